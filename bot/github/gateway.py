"""The GitHub gateway: `Gateway` implemented with PyGithub. An edge.

It and `bot.github.http` are the only modules that import PyGithub. It authenticates as a GitHub App
(a JWT signed with the app's private key buys installation tokens, which
PyGithub caches and renews 20 s before they expire) or with a plain token, and
talks to any API base URL (github.com, GitHub Enterprise Server's `/api/v3`,
the fake server in the tests).

The HTTP plumbing (requests, retries, error mapping, pagination, write pacing,
the LRU caches) is `bot.github.http`; this module turns GitHub's JSON into the
plain data of `bot.github.types`. As a `bot.github.calls.GatewayBase` it runs
the call hooks it is given (`hooked(...)`: metrics, deadlines, shared pacing)
around each gateway method. The check-run and Git Data API calls (the "Apply safe
fixes" commit) are `bot.github.gitdata.CheckRunsAndGitData`, which the gateway
inherits.

- `set_status` reads the commit's current status for the context first and writes
  nothing when it is identical, so statuses are as idempotent as comments.
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import jwt
from cryptography.hazmat.primitives import serialization
from github import Auth

from bot.base.records import dataclass
from bot.github.gitdata import MAX_ANNOTATIONS_READ as MAX_ANNOTATIONS_READ
from bot.github.gitdata import MAX_CHECK_RUNS as MAX_CHECK_RUNS
from bot.github.gitdata import SHA, CheckRunsAndGitData, check_repo, int_or_none, quoted, text_at
from bot.github.http import (
    DEFAULT_BASE_URL,
    LRU,
    SECONDARY_RATE_WAIT,
    USER_AGENT,
    Clock,
    GitHubHttp,
    Sleep,
    to_github_error,
)
from bot.github.types import (
    PERMISSIONS,
    Comment,
    CommitGateway,
    Gateway,
    GitHubError,
    PullFile,
    PullInfo,
    ReviewComment,
    SignoffGateway,
    Status,
    status_state,
)

MAX_PR_FILES = 3000  # GitHub lists at most 3,000 files of a pull request
MAX_LIST_ITEMS = 10_000  # comments, reviews: a bound against runaway pagination
MAX_PR_COMMITS = 250  # GitHub lists at most 250 commits of a pull request
MAX_STATUSES_READ = 1_000  # GitHub keeps at most 1,000 statuses per commit and context
MAX_FILE_BYTES = 50 * 1024 * 1024
STATUS_DESCRIPTION_MAX = 140  # GitHub rejects longer commit status descriptions

__all__ = [
    "DEFAULT_BASE_URL",
    "SECONDARY_RATE_WAIT",
    "PyGithubGateway",
    "from_app",
    "from_token",
    "to_github_error",
]


# --------------------------------------------------------------------------- helpers


def _clean_path(path: str) -> str | None:
    """A repository-relative path, or None when no git tree can hold it."""
    path = path.strip("/")
    parts = path.split("/")
    if not path or any(p in ("", ".", "..") for p in parts) or "\x00" in path:
        return None
    return path


def _login(user: Any) -> str:
    if isinstance(user, dict) and isinstance(user.get("login"), str):
        return str(user["login"])
    return "ghost"  # GitHub shows deleted accounts as "ghost"


def _user_type(user: Any) -> str:
    return text_at(user, "type")


_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")
_SLUG = re.compile(r"[A-Za-z0-9_.-]{1,100}")


@dataclass(frozen=True)
class _Entry:
    sha: str
    size: int | None
    mode: str = "100644"


# --------------------------------------------------------------------------- gateway


class PyGithubGateway(CheckRunsAndGitData):
    """`Gateway` over PyGithub. Build it with `from_token` or `from_app`.

    Caches (login, installations, trees by SHA, blobs by SHA, merge bases of
    SHAs) are locked and writes are serialised and paced per gateway, so keep
    one gateway per credential (and installation) for the life of the process
    instead of one per job. The HTTP session underneath is PyGithub's (requests),
    shared by the threads using the gateway.
    """

    def __init__(
        self,
        auth: Auth.Token | Auth.AppAuth,
        *,
        installation_id: int | None = None,
        base_url: str = DEFAULT_BASE_URL,
        login: str | None = None,
        seconds_between_writes: float = 1.0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
        max_retry_wait: float = 60.0,
        read_retries: int = 3,
        backoff_factor: float = 0.5,
        write_rate_limit_retries: int = 2,
        timeout: int = 15,
        user_agent: str = USER_AGENT,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self._http = GitHubHttp(
            auth,
            installation_id=installation_id,
            base_url=base_url,
            seconds_between_writes=seconds_between_writes,
            sleep=sleep,
            clock=clock,
            max_retry_wait=max_retry_wait,
            read_retries=read_retries,
            backoff_factor=backoff_factor,
            write_rate_limit_retries=write_rate_limit_retries,
            timeout=timeout,
            user_agent=user_agent,
        )
        self.base_url = self._http.base_url
        self._max_file_bytes = max_file_bytes
        # shared by the copies `with_hooks` makes: state lives in objects, never in
        # plain attributes
        self._memo: dict[str, str] = {} if login is None else {"login": login}
        self._trees = LRU(max_items=64)
        self._blobs = LRU(max_items=4096, max_weight=128 * 1024 * 1024)
        self._merge_bases = LRU(max_items=1024)

    # ------------------------------------------------------------------ factories

    @classmethod
    def from_token(
        cls, token: str, base_url: str = DEFAULT_BASE_URL, **options: Any
    ) -> PyGithubGateway:
        """A gateway acting as the token's user; `login()` asks `GET /user`
        unless `login=` is given (an Actions `GITHUB_TOKEN` cannot read /user)."""
        return cls(Auth.Token(token), base_url=base_url, **options)

    @classmethod
    def from_app(
        cls,
        app_id: int | str,
        private_key_pem: str,
        installation_id: int | None = None,
        base_url: str = DEFAULT_BASE_URL,
        **options: Any,
    ) -> PyGithubGateway:
        """A gateway acting as a GitHub App installation. Without `installation_id`
        each repository's installation is looked up (`GET /repos/{o}/{r}/installation`)
        and cached, so one gateway can serve every installation of the app."""
        # Load the key once: PyGithub would parse (and validate) the PEM for
        # every JWT it signs, about 60 ms each.
        key = serialization.load_pem_private_key(private_key_pem.encode(), password=None)

        def sign(payload: dict[str, Any]) -> str:
            return jwt.encode(payload, key, algorithm="RS256")  # type: ignore[arg-type]

        auth = Auth.AppAuth(app_id, sign_func=sign)
        return cls(auth, installation_id=installation_id, base_url=base_url, **options)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> PyGithubGateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def is_app(self) -> bool:
        return self._http.is_app

    def installation_id(self, repo: str) -> int:
        """The app's installation on `repo` (cached)."""
        if self._http.fixed_installation is not None:
            return self._http.fixed_installation
        return self._http.installation_id(check_repo(repo))

    # ------------------------------------------------------------------ identity

    def login(self) -> str:
        known = self._memo.get("login")
        if known is not None:
            return known
        if self._http.is_app:
            _, data = self._http.call(self._http.app_requester(), "GET", "/app")
            slug = data.get("slug") if isinstance(data, dict) else None
            if not isinstance(slug, str) or not slug:
                raise GitHubError("GET /app: no slug", status=0)
            login = f"{slug}[bot]"
        else:
            data = self._get(None, "/user")
            if not isinstance(data, dict) or not isinstance(data.get("login"), str):
                raise GitHubError("GET /user: no login", status=0)
            login = str(data["login"])
        self._memo["login"] = login
        return login

    # ------------------------------------------------------------------ pull requests

    def pull(self, repo: str, number: int) -> PullInfo:
        repo = check_repo(repo)
        data = self._get(repo, f"/repos/{repo}/pulls/{int(number)}")
        try:
            base, head = data["base"], data["head"]
            base_repo = base.get("repo") or {}
            return PullInfo(
                repo=str(base_repo.get("full_name") or repo),
                number=int(data["number"]),
                head_sha=str(head["sha"]),
                base_sha=str(base["sha"]),
                base_ref=str(base["ref"]),
                head_ref=str(head["ref"]),
                author=_login(data.get("user")),
                draft=bool(data.get("draft")),
                state=str(data.get("state") or "open"),
                html_url=str(data.get("html_url") or ""),
                title=str(data.get("title") or ""),
                body=str(data.get("body") or ""),
                changed_files=int_or_none(data.get("changed_files")),
                head_repo=text_at(head.get("repo"), "full_name") or None,
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GitHubError(
                f"GET /repos/{repo}/pulls/{number}: bad pull request ({exc})"
            ) from exc

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        repo = check_repo(repo)
        files = []
        for f in self._http.pages(repo, f"/repos/{repo}/pulls/{int(number)}/files", MAX_PR_FILES):
            if not isinstance(f.get("filename"), str):
                continue
            previous = f.get("previous_filename")
            patch = f.get("patch")
            files.append(
                PullFile(
                    path=f["filename"],
                    status=str(f.get("status") or "modified"),
                    previous_path=previous if isinstance(previous, str) else None,
                    patch=patch if isinstance(patch, str) else None,
                )
            )
        return files

    def merge_base(self, repo: str, base: str, head: str) -> str:
        repo = check_repo(repo)
        key = (repo, base, head)
        cacheable = bool(SHA.fullmatch(base) and SHA.fullmatch(head))
        if cacheable:
            hit = self._merge_bases.get(key)
            if hit is not None:
                return str(hit)
        url = f"/repos/{repo}/compare/{quoted(base, ':')}...{quoted(head, ':')}"
        data = self._get(repo, url, {"per_page": 1})
        sha = (data.get("merge_base_commit") or {}).get("sha") if isinstance(data, dict) else None
        if not isinstance(sha, str):
            raise GitHubError(f"GET {url}: no merge_base_commit", status=0)
        if cacheable:
            self._merge_bases.put(key, sha)
        return sha

    # ------------------------------------------------------------------ trees and files

    def _listing(self, repo: str, ref: str) -> dict[str, _Entry]:
        """path → blob entry of every regular file at `ref` (cached when `ref` is a SHA)."""
        cacheable = bool(SHA.fullmatch(ref))
        if cacheable:
            hit = self._trees.get((repo, ref))
            if hit is not None:
                return dict(hit)
        listing: dict[str, _Entry] = {}
        stack: list[tuple[str, str]] = [(ref, "")]
        while stack:
            tree, prefix = stack.pop()
            url = f"/repos/{repo}/git/trees/{quoted(tree)}"
            data = self._get(repo, url, {"recursive": "1"})
            entries = data.get("tree") if isinstance(data, dict) else None
            if not isinstance(entries, list):
                raise GitHubError(f"GET {url}: no tree", status=0)
            if data.get("truncated"):
                # Too big for one answer: list this level alone, walk each subtree.
                data = self._get(repo, url)
                entries = data.get("tree") if isinstance(data, dict) else None
                if not isinstance(entries, list):
                    raise GitHubError(f"GET {url}: no tree", status=0)
                for e in entries:
                    if isinstance(e, dict) and e.get("type") == "tree":
                        stack.append((str(e.get("sha")), f"{prefix}{e.get('path')}/"))
            for e in entries:
                if (
                    isinstance(e, dict)
                    and e.get("type") == "blob"
                    and e.get("mode") != "120000"  # symlinks are left out, as in GitTree
                    and isinstance(e.get("path"), str)
                    and isinstance(e.get("sha"), str)
                ):
                    size = e.get("size")
                    mode = text_at(e, "mode") or "100644"
                    listing[prefix + e["path"]] = _Entry(e["sha"], int_or_none(size), mode)
        if cacheable:
            self._trees.put((repo, ref), listing)
        return dict(listing)

    def _cached_listing(self, repo: str, ref: str) -> dict[str, _Entry] | None:
        hit = self._trees.get((repo, ref))
        return None if hit is None else dict(hit)

    def tree_paths(self, repo: str, ref: str) -> list[str]:
        repo = check_repo(repo)
        return sorted(self._listing(repo, ref))

    def blob_id(self, repo: str, path: str, ref: str) -> str | None:
        repo = check_repo(repo)
        clean = _clean_path(path)
        if clean is None:
            return None
        entry = self._listing(repo, ref).get(clean)
        return None if entry is None else entry.sha

    def read(self, repo: str, path: str, ref: str) -> bytes | None:
        repo = check_repo(repo)
        clean = _clean_path(path)
        if clean is None:
            return None
        listing = self._cached_listing(repo, ref)
        if listing is not None:
            entry = listing.get(clean)
            return None if entry is None else self._blob(repo, entry.sha, entry.size, clean)
        url = f"/repos/{repo}/contents/{quoted(clean, '/')}"
        try:
            data = self._get(repo, url, {"ref": ref})
        except GitHubError as err:
            if err.status == 404:
                return None
            raise
        if not isinstance(data, dict) or data.get("type") != "file":
            return None  # a directory, a submodule or a symlink
        sha = data.get("sha")
        size = int_or_none(data.get("size"))
        if isinstance(sha, str):
            hit = self._blobs.get(sha)
            if hit is not None:
                return bytes(hit)
        content = data.get("content")
        if data.get("encoding") == "base64" and isinstance(content, str) and (content or not size):
            blob = self._decode(content, url)
        elif isinstance(sha, str):  # over 1 MB: the contents API sends no content
            return self._blob(repo, sha, size, clean)
        else:
            raise GitHubError(f"GET {url}: no content", status=0)
        if isinstance(sha, str):
            self._blobs.put(sha, blob, len(blob))
        return blob

    def _blob(self, repo: str, sha: str, size: int | None, path: str) -> bytes:
        hit = self._blobs.get(sha)
        if hit is not None:
            return bytes(hit)
        if size is not None and size > self._max_file_bytes:
            raise GitHubError(f"{path}: {size} bytes is over the {self._max_file_bytes} limit", 413)
        url = f"/repos/{repo}/git/blobs/{quoted(sha)}"
        data = self._get(repo, url)
        content = data.get("content") if isinstance(data, dict) else None
        if not isinstance(content, str) or data.get("encoding", "base64") != "base64":
            raise GitHubError(f"GET {url}: no base64 content", status=0)
        blob = self._decode(content, url)
        self._blobs.put(sha, blob, len(blob))
        return blob

    @staticmethod
    def _decode(content: str, url: str) -> bytes:
        try:
            return base64.b64decode(content.encode("ascii"), validate=False)
        except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
            raise GitHubError(f"GET {url}: bad base64 content", status=0) from exc

    # ------------------------------------------------------------------ comments and reviews

    def issue_comments(self, repo: str, number: int) -> list[Comment]:
        repo = check_repo(repo)
        url = f"/repos/{repo}/issues/{int(number)}/comments"
        return [
            _comment(c, "issue")
            for c in self._http.pages(repo, url, MAX_LIST_ITEMS)
            if isinstance(c.get("id"), int)
        ]

    def review_comments(self, repo: str, number: int) -> list[Comment]:
        repo = check_repo(repo)
        url = f"/repos/{repo}/pulls/{int(number)}/comments"
        return [
            _comment(
                c,
                "review",
                path=c.get("path") if isinstance(c.get("path"), str) else None,
                line=int_or_none(c.get("line")),
                in_reply_to=int_or_none(c.get("in_reply_to_id")),
                commit_id=text_at(c, "commit_id"),
            )
            for c in self._http.pages(repo, url, MAX_LIST_ITEMS)
            if isinstance(c.get("id"), int)
        ]

    def reviews(self, repo: str, number: int) -> list[Comment]:
        repo = check_repo(repo)
        url = f"/repos/{repo}/pulls/{int(number)}/reviews"
        return [
            Comment(
                id=int(r["id"]),
                body=str(r.get("body") or ""),
                author=_login(r.get("user")),
                kind="review_summary",
                html_url=str(r.get("html_url") or ""),
                created_at=text_at(r, "submitted_at"),
                updated_at=text_at(r, "submitted_at"),
                author_type=_user_type(r.get("user")),
                state=text_at(r, "state").upper(),
                commit_id=text_at(r, "commit_id"),
            )
            for r in self._http.pages(repo, url, MAX_LIST_ITEMS)
            if isinstance(r.get("id"), int)
        ]

    # ------------------------------------------------------------------ sign-off reads

    def collaborator_permission(self, repo: str, user: str) -> str | None:
        repo = check_repo(repo)
        if not _LOGIN.fullmatch(user):
            return "none"  # no such account can exist
        url = f"/repos/{repo}/collaborators/{quoted(user)}/permission"
        try:
            data = self._get(repo, url)
        except GitHubError as err:
            if err.status == 404:
                return "none"
            if err.transient:
                raise
            return None
        # `permission` folds maintain into write and triage into read; `role_name` does not
        for key in ("role_name", "permission"):
            value = text_at(data, key).lower()
            if value in PERMISSIONS:
                return value
        return None

    def team_membership(self, repo: str, org: str, team_slug: str, user: str) -> bool | None:
        repo = check_repo(repo)
        if not (_SLUG.fullmatch(org) and _SLUG.fullmatch(team_slug)):
            return None
        if not _LOGIN.fullmatch(user):
            return False
        url = f"/orgs/{quoted(org)}/teams/{quoted(team_slug)}/memberships/{quoted(user)}"
        try:
            data = self._get(repo, url)
        except GitHubError as err:
            if err.status == 404:
                return False
            if err.transient:
                raise
            return None
        state = text_at(data, "state")
        if state == "active":
            return True
        if state == "pending":
            return False
        return None

    def org_membership(self, repo: str, org: str, user: str) -> bool | None:
        """Is `user` a member of `org`? None when GitHub will not say (403, another
        permanent error).

        GitHub answers 204 (member) or 404 (not a member) to a requester inside the org,
        and 302 to one outside it (documented: "Response if requester is not an
        organization member"), redirecting to the public-membership check. A 302 is
        therefore never a member by itself: the public check decides (204: a public
        member; 404: not a member as far as this installation can see)."""
        repo = check_repo(repo)
        if not _SLUG.fullmatch(org):
            return None
        if not _LOGIN.fullmatch(user):
            return False
        requester = self._http.requester(repo)
        try:
            url = f"/orgs/{quoted(org)}/members/{quoted(user)}"
            status, _, _ = self._http.answer(requester, "GET", url, accept=(404,))
            if status == 302:
                url = f"/orgs/{quoted(org)}/public_members/{quoted(user)}"
                status, _, _ = self._http.answer(requester, "GET", url, accept=(404,))
                return status == 204
        except GitHubError as err:
            if err.transient:
                raise
            return None
        return {204: True, 404: False}.get(status)

    def pull_commits(self, repo: str, number: int) -> list[str]:
        repo = check_repo(repo)
        url = f"/repos/{repo}/pulls/{int(number)}/commits"
        return [
            str(c["sha"])
            for c in self._http.pages(repo, url, MAX_PR_COMMITS)
            if isinstance(c.get("sha"), str)
        ]

    # ------------------------------------------------------------------ git data (commits)

    def app_permissions(self, repo: str) -> dict[str, str]:
        return self._http.installation_permissions(check_repo(repo))

    def file_mode(self, repo: str, path: str, ref: str) -> str | None:
        repo = check_repo(repo)
        clean = _clean_path(path)
        entry = self._listing(repo, ref).get(clean) if clean is not None else None
        return None if entry is None else entry.mode

    # ------------------------------------------------------------------ writes

    def create_review(
        self,
        repo: str,
        number: int,
        commit_sha: str,
        body: str,
        comments: Sequence[ReviewComment],
    ) -> int:
        """Post one submitted review (event COMMENT) with its inline comments.

        GitHub answers 422 when any comment's line is not in the PR's diff."""
        repo = check_repo(repo)
        inline = []
        for c in comments:
            item: dict[str, Any] = {"path": c.path, "line": c.line, "side": c.side, "body": c.body}
            if c.start_line is not None and c.start_line < c.line:
                item["start_line"] = c.start_line
                item["start_side"] = c.side
            inline.append(item)
        payload = {"commit_id": commit_sha, "body": body, "event": "COMMENT", "comments": inline}
        data = self._http.write(repo, "POST", f"/repos/{repo}/pulls/{int(number)}/reviews", payload)
        return self._id(data, "review")

    def create_issue_comment(self, repo: str, number: int, body: str) -> int:
        repo = check_repo(repo)
        url = f"/repos/{repo}/issues/{int(number)}/comments"
        return self._id(self._http.write(repo, "POST", url, {"body": body}), "comment")

    def edit_issue_comment(self, repo: str, comment_id: int, body: str) -> None:
        repo = check_repo(repo)
        url = f"/repos/{repo}/issues/comments/{int(comment_id)}"
        self._http.write(repo, "PATCH", url, {"body": body})

    def edit_review_comment(self, repo: str, comment_id: int, body: str) -> None:
        repo = check_repo(repo)
        url = f"/repos/{repo}/pulls/comments/{int(comment_id)}"
        self._http.write(repo, "PATCH", url, {"body": body})

    def commit_status(self, repo: str, sha: str, context: str) -> Status | None:
        """The current status of `context` on commit `sha` (the newest one GitHub lists
        for it), or None when it has none."""
        repo = check_repo(repo)
        url = f"/repos/{repo}/commits/{quoted(sha)}/statuses"
        for item in self._http.pages(repo, url, MAX_STATUSES_READ):
            if item.get("context") == context:
                target = item.get("target_url")
                state = status_state(text_at(item, "state"))
                if state is None:  # not a state GitHub documents: not ours to match
                    return None
                return Status(
                    state=state,
                    context=context,
                    description=text_at(item, "description"),
                    target_url=target if isinstance(target, str) and target else None,
                )
        return None

    def set_status(self, repo: str, sha: str, status: Status) -> None:
        """Set `status` on `sha`, unless the commit already shows exactly it for this
        context (a retry after a crash or a 502 that GitHub applied posts nothing)."""
        repo = check_repo(repo)
        description = status.description
        if len(description) > STATUS_DESCRIPTION_MAX:
            description = description[: STATUS_DESCRIPTION_MAX - 1] + "…"
        wanted = replace(status, description=description, target_url=status.target_url or None)
        if self.commit_status(repo, sha, status.context) == wanted:
            return
        payload: dict[str, Any] = {
            "state": status.state,
            "context": status.context,
            "description": description,
        }
        if status.target_url:
            payload["target_url"] = status.target_url
        self._http.write(repo, "POST", f"/repos/{repo}/statuses/{quoted(sha)}", payload)


def from_token(token: str, base_url: str = DEFAULT_BASE_URL, **options: Any) -> PyGithubGateway:
    """See `PyGithubGateway.from_token`."""
    return PyGithubGateway.from_token(token, base_url, **options)


def from_app(
    app_id: int | str,
    private_key_pem: str,
    installation_id: int | None = None,
    base_url: str = DEFAULT_BASE_URL,
    **options: Any,
) -> PyGithubGateway:
    """See `PyGithubGateway.from_app`."""
    return PyGithubGateway.from_app(app_id, private_key_pem, installation_id, base_url, **options)


def _conforms(gateway: PyGithubGateway) -> Gateway:
    return gateway  # mypy checks that PyGithubGateway implements the Protocol


def _conforms_signoff(gateway: PyGithubGateway) -> SignoffGateway:
    return gateway


def _conforms_commit(gateway: PyGithubGateway) -> CommitGateway:
    return gateway


def _comment(
    raw: dict[str, Any], kind: Literal["issue", "review", "review_summary"], **extra: Any
) -> Comment:
    """A Comment from an issue-comment or review-comment JSON object."""
    return Comment(
        id=int(raw["id"]),
        body=str(raw.get("body") or ""),
        author=_login(raw.get("user")),
        kind=kind,
        html_url=str(raw.get("html_url") or ""),
        created_at=text_at(raw, "created_at"),
        updated_at=text_at(raw, "updated_at"),
        author_type=_user_type(raw.get("user")),
        **extra,
    )
