"""The lazy gateway factory and the instrumenting wrapper the workers put around it.

- `github_factory`: builds the real gateway on first use (`bot.github.gateway` is
  imported then, not when this module is imported) and keeps one per credential and
  installation for the life of the process, as that gateway wants (its caches, and
  its write pacing, `BOT_WRITE_INTERVAL` apart, are per gateway). Tests pass their
  own factory.
- `Delegating`: every `Gateway` method forwarded through one hook, `_call`.
- `Instrumented`: counts calls and errors per method for /metrics.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from bot.github.types import (
    CheckRunInfo,
    Comment,
    Gateway,
    GitHubError,
    PullFile,
    PullInfo,
    ReviewComment,
    SignoffGateway,
    Status,
)
from bot.server.metrics import Metrics
from bot.server.settings import Settings

R = TypeVar("R")

GatewayFactory = Callable[[int | None], Gateway]
"""installation id (None for token auth or when the payload has none) → a Gateway."""


class ConfigurationError(Exception):
    """The service cannot build a gateway for this job (permanent: retrying will not help)."""


class Delegating:
    """A `Gateway` (and `SignoffGateway`, when `inner` is one) that forwards every call to
    `inner` through `_call`."""

    def __init__(self, inner: Gateway) -> None:
        self.inner = inner

    @property
    def _signoff(self) -> SignoffGateway:
        return cast(SignoffGateway, self.inner)

    def _call(self, name: str, thunk: Callable[[], R]) -> R:
        return thunk()

    def login(self) -> str:
        return self._call("login", self.inner.login)

    def pull(self, repo: str, number: int) -> PullInfo:
        return self._call("pull", lambda: self.inner.pull(repo, number))

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        return self._call("pull_files", lambda: self.inner.pull_files(repo, number))

    def merge_base(self, repo: str, base: str, head: str) -> str:
        return self._call("merge_base", lambda: self.inner.merge_base(repo, base, head))

    def tree_paths(self, repo: str, ref: str) -> list[str]:
        return self._call("tree_paths", lambda: self.inner.tree_paths(repo, ref))

    def read(self, repo: str, path: str, ref: str) -> bytes | None:
        return self._call("read", lambda: self.inner.read(repo, path, ref))

    def blob_id(self, repo: str, path: str, ref: str) -> str | None:
        return self._call("blob_id", lambda: self.inner.blob_id(repo, path, ref))

    def issue_comments(self, repo: str, number: int) -> list[Comment]:
        return self._call("issue_comments", lambda: self.inner.issue_comments(repo, number))

    def review_comments(self, repo: str, number: int) -> list[Comment]:
        return self._call("review_comments", lambda: self.inner.review_comments(repo, number))

    def reviews(self, repo: str, number: int) -> list[Comment]:
        return self._call("reviews", lambda: self.inner.reviews(repo, number))

    def create_review(
        self, repo: str, number: int, commit_sha: str, body: str, comments: Sequence[ReviewComment]
    ) -> int:
        return self._call(
            "create_review",
            lambda: self.inner.create_review(repo, number, commit_sha, body, comments),
        )

    def create_issue_comment(self, repo: str, number: int, body: str) -> int:
        return self._call(
            "create_issue_comment", lambda: self.inner.create_issue_comment(repo, number, body)
        )

    def edit_issue_comment(self, repo: str, comment_id: int, body: str) -> None:
        return self._call(
            "edit_issue_comment", lambda: self.inner.edit_issue_comment(repo, comment_id, body)
        )

    def edit_review_comment(self, repo: str, comment_id: int, body: str) -> None:
        return self._call(
            "edit_review_comment", lambda: self.inner.edit_review_comment(repo, comment_id, body)
        )

    def set_status(self, repo: str, sha: str, status: Status) -> None:
        return self._call("set_status", lambda: self.inner.set_status(repo, sha, status))

    # sign-off reads (SignoffGateway)

    def collaborator_permission(self, repo: str, user: str) -> str | None:
        return self._call(
            "collaborator_permission", lambda: self._signoff.collaborator_permission(repo, user)
        )

    def team_membership(self, repo: str, org: str, team_slug: str, user: str) -> bool | None:
        return self._call(
            "team_membership", lambda: self._signoff.team_membership(repo, org, team_slug, user)
        )

    def org_membership(self, repo: str, org: str, user: str) -> bool | None:
        inner = getattr(self._signoff, "org_membership", None)
        if inner is None:
            return None
        return self._call("org_membership", lambda: inner(repo, org, user))  # type: ignore[no-any-return]

    def pull_commits(self, repo: str, number: int) -> list[str]:
        return self._call("pull_commits", lambda: self._signoff.pull_commits(repo, number))

    def check_runs(self, repo: str, sha: str) -> list[CheckRunInfo]:
        return self._call("check_runs", lambda: self._signoff.check_runs(repo, sha))


class Instrumented(Delegating):
    def __init__(self, inner: Gateway, metrics: Metrics) -> None:
        super().__init__(inner)
        self.metrics = metrics

    def _call(self, name: str, thunk: Callable[[], R]) -> R:
        self.metrics.github_calls.inc(name)
        try:
            return thunk()
        except GitHubError as exc:
            self.metrics.github_errors.inc(name, str(exc.status))
            raise


def github_factory(settings: Settings) -> GatewayFactory:
    """Real gateways from the configured credentials: built on first use, then shared by
    every worker (the gateway is thread-safe). An App gateway per installation id; None
    (a payload without one) gets the gateway that looks installations up per repository."""
    cache: dict[int | None, Gateway] = {}
    lock = threading.Lock()

    def make(installation_id: int | None) -> Gateway:
        from bot.github import gateway as github_gateway  # the edge that imports PyGithub

        options: dict[str, Any] = {"seconds_between_writes": settings.write_interval}
        if settings.self_login:
            options["login"] = settings.self_login
        key = None if settings.github_token else installation_id
        with lock:
            gw = cache.get(key)
            if gw is not None:
                return gw
            if settings.github_token:
                gw = github_gateway.from_token(
                    settings.github_token, settings.github_api_url, **options
                )
            elif settings.github_app_id is not None and settings.github_app_private_key:
                gw = github_gateway.from_app(
                    settings.github_app_id,
                    settings.github_app_private_key,
                    installation_id or settings.github_app_installation_id,
                    settings.github_api_url,
                    **options,
                )
            else:
                raise ConfigurationError("no GitHub credentials configured")
            cache[key] = gw
            return gw

    return make
