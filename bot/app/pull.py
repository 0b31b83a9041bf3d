"""A pull request read through the GitHub gateway, linted: the services' use case.

    pull_change(gw, pull, files)           the pull request as a `Change` over gateway trees
    lint_pull(gw, pull, files, today)      lint it with its base's configuration

The review pipeline, the sign-off service and the advise job all lint a pull
request this way, so they judge the same findings. The trees read lazily
through the gateway (`bot.github.tree.GitHubTree`), one request per file read.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from bot.app.config import load_repo_config
from bot.app.lint import Change, LintOptions, LintResult, lint_change
from bot.core.changeset import FileStatus
from bot.core.config import ConfigError
from bot.core.engine import Context, Report
from bot.github.tree import GitHubTree
from bot.github.types import Gateway, PullFile, PullInfo


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


def lint_pull(
    gw: Gateway, pull: PullInfo, files: Sequence[PullFile], today: datetime.date
) -> PullLint:
    """Lint the pull request with the configuration of its base branch (an invalid one is
    reported, not raised). In this process: a service never forks."""
    change = pull_change(gw, pull, files)
    try:
        config = load_repo_config(change.config_tree, ref=change.config_ref)
    except ConfigError as exc:
        return PullLint(pull, None, config_error=str(exc))
    options = LintOptions(review_date=today, workers=1)
    return PullLint(pull, lint_change(change, config=config, options=options))
