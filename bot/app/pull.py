"""A pull request read through the GitHub gateway, linted: the services' use case.

    pull_change(gw, pull, files)           the pull request as a `Change` over gateway trees
    lint_pull(gw, pull, files, today)      lint it with its base's configuration
    service_parses()                       the parsed files a service keeps across reviews
    local_pull(repo, number, base, head)   a pull request of a local clone, as the
                                           review pipeline sees it (`bot review`)

The review pipeline, the sign-off service and the advise job all lint a pull
request this way, so they judge the same findings. The trees read lazily
through the gateway (`bot.github.tree.GitHubTree`), one request per file read.

A service hands every review one `service_parses()` cache: files are parsed once
per blob SHA (the trees know each file's SHA from the tree listing, so a file
whose parse is kept is neither fetched nor parsed again), so the review of a pull
request whose base was seen before parses only what the pull request changed:
the master configs, the changelog, the golden curves and the recipes rules read
are the base's, already parsed. It is bounded (`SERVICE_PARSE_BYTES` of parsed
text, least recently used first out).
"""

from __future__ import annotations

import datetime
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TypeVar

from bot.app.config import load_repo_config
from bot.app.lint import Change, LintOptions, LintResult, lint_change
from bot.base.records import dataclass
from bot.core.changeset import FileStatus
from bot.core.config import Config, ConfigError
from bot.core.context import ParseCache as ParseCache  # re-exported: services hold one
from bot.core.engine import Context, Report
from bot.github.tree import GitHubTree
from bot.github.types import Gateway, PullFile, PullInfo
from bot.sources import resolve_ref


@dataclass
class PullLint:
    """What lint found for one head of a pull request."""

    pull: PullInfo
    result: LintResult | None
    # the base's `.recipe-bot.yml` is invalid: nothing was linted
    config_error: str | None = None

    @property
    def report(self) -> Report:
        return self.result.report if self.result is not None else Report(findings=[], files=[])

    @property
    def ctx(self) -> Context | None:
        """The lint run's context (trees, change, configuration); None when nothing ran."""
        return self.result.runs[0].ctx if self.result is not None else None


# GitHub's file status as the head's path compares with the base's: a renamed or
# copied file's path is new to the base
_STATUS: dict[str, FileStatus] = {
    "added": "added",
    "copied": "added",
    "renamed": "added",
    "removed": "deleted",
    "modified": "modified",
    "changed": "modified",
}


def pull_change(gw: Gateway, pull: PullInfo, files: Sequence[PullFile]) -> Change:
    """The pull request's change: its head against its merge-base with the base branch,
    the files GitHub lists (with their previous paths) and their patches."""
    base_sha = gw.merge_base(pull.repo, pull.base_sha, pull.head_sha)
    paths: set[str] = set()
    for f in files:
        paths.add(f.path)
        if f.previous_path:
            paths.add(f.previous_path)
    # a stale branch carries entries the base branch merged since the merge-base: the
    # changelog rules compare with the base branch's tip to tell them from the PR's own
    tip = GitHubTree(gw, pull.repo, pull.base_sha) if pull.base_sha != base_sha else None
    return Change(
        base=GitHubTree(gw, pull.repo, base_sha),
        head=GitHubTree(gw, pull.repo, pull.head_sha),
        paths=frozenset(paths),
        base_tip=tip,
        pr=pull.number,
        author=pull.author,
        repository=pull.repo,
        patches={f.path: f.patch for f in files},
        statuses={f.path: _STATUS[f.status] for f in files if f.status in _STATUS},
        config_ref=pull.base_ref,
    )


K = TypeVar("K")
V = TypeVar("V")

# texts whose parses a service keeps (their parses hold about ten times as much):
# InferenceX's base files and recipes are 3.4 MB
SERVICE_PARSE_BYTES = 8 * 1024 * 1024


class ServiceParses(ParseCache):
    """A service's `ParseCache`, with the configurations built from the bases'
    `.recipe-bot.yml` (by text: building one loads and validates the knowledge)."""

    MAX_CONFIGS = 16

    def __init__(self, max_bytes: int = SERVICE_PARSE_BYTES) -> None:
        super().__init__(max_bytes=max_bytes, changelogs=True)
        self.configs: _Bounded[tuple[str | None, str], Config] = _Bounded(self.MAX_CONFIGS)


class _Bounded(OrderedDict[K, V]):
    """A dict that keeps its `limit` newest items; thread-safe for single sets and gets."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self._lock = threading.Lock()

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            super().__setitem__(key, value)
            while len(self) > self.limit:
                self.popitem(last=False)


def service_parses(max_bytes: int = SERVICE_PARSE_BYTES) -> ServiceParses:
    """The parsed files a service keeps across reviews, by blob SHA (thread-safe)."""
    return ServiceParses(max_bytes)


def lint_pull(
    gw: Gateway,
    pull: PullInfo,
    files: Sequence[PullFile],
    today: datetime.date,
    parses: ParseCache | None = None,
) -> PullLint:
    """Lint the pull request with the configuration of its base branch (an invalid one is
    reported, not raised). In this process: a service never forks. `parses`: files parsed
    by earlier reviews (`service_parses()`); None: this review's own."""
    change = pull_change(gw, pull, files)
    built = parses.configs if isinstance(parses, ServiceParses) else None
    try:
        config = load_repo_config(change.config_tree, ref=change.config_ref, built=built)
    except ConfigError as exc:
        return PullLint(pull, None, config_error=str(exc))
    options = LintOptions(review_date=today, workers=1, cache=parses)
    return PullLint(pull, lint_change(change, config=config, options=options))


def local_pull(
    repo: str | os.PathLike[str],
    number: int,
    base: str,
    head: str,
    *,
    repository: str,
    author: str | None = None,
) -> PullInfo:
    """Pull request `number` of GitHub repository `repository` (`owner/name`), from
    `base` to `head` of the local clone `repo`, as the review pipeline sees it."""
    return PullInfo(
        html_url=f"https://github.com/{repository}/pull/{number}",
        repo=repository,
        number=number,
        head_sha=resolve_ref(repo, head),
        base_sha=resolve_ref(repo, base),
        base_ref=base,
        head_ref=head,
        author=author or "unknown",
    )
