"""The check run's "Apply safe fixes" button: one commit on the head branch with the
safe fixes of a reviewed head, as the bot. Through the gateway only.

The fixes are `bot lint --fix`'s (`bot.app.fix.fix_change` on the pull request's head
against its merge-base, with the base's configuration): only fixes a rule declares
`safe`, only on lines the pull request adds or changes. The commit is made with the Git
Data API (a blob per fixed file, a tree over the head's, a commit whose parent is the
head) and the branch is moved to it with `force: false`, a compare-and-swap on the
head: GitHub refuses (422) when the branch is no longer where the commit starts.

Never on a fork (the head branch must live in the base repository), never when the
head moved since the review (the head is read again just before the ref is moved),
never without `contents: write`. "Never twice for one head" is the queue's durable
record (`fixes`): a head's fix job is queued once. The push then triggers the normal
review of the new head (its `synchronize`).
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Sequence
from dataclasses import field

from bot.app.config import load_repo_config
from bot.app.fix import FixOptions, FixResult, fix_change, fixable
from bot.app.lint import LintOptions
from bot.app.pull import pull_change
from bot.base.records import dataclass
from bot.core.config import ConfigError
from bot.core.engine import Report
from bot.core.model import Finding
from bot.github.types import CommitGateway, Gateway, GitHubError, PullInfo, TreeChange

log = logging.getLogger("bot.review.fixes")

SAFE = FixOptions()  # safe fixes only, ruff's `--fix`


@dataclass
class FixPosted:
    """What one "Apply safe fixes" run did."""

    result: str  # committed | skipped
    commit_sha: str | None = None
    head_sha: str | None = None  # the head the fixes were made on
    rules: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def safe_fixes(report: Report) -> list[Finding]:
    """The findings on changed lines whose fix is safe: what the button would fix."""
    return fixable(report, SAFE, changed_only=True)


def may_commit(gw: Gateway, pull: PullInfo) -> str | None:
    """Why the bot may not commit to the pull request's head branch (None: it may):
    the branch lives in a fork, or the App lacks `contents: write`."""
    if pull.head_repo is None or pull.head_repo.lower() != pull.repo.lower():
        return "the head branch is in a fork"
    permissions = getattr(gw, "app_permissions", None)
    granted = permissions(pull.repo) if permissions is not None else {}
    if granted.get("contents") != "write":
        return "the App may not write contents"
    return None


def commit_message(result: FixResult, head_sha: str) -> str:
    """The commit message: the rules whose fixes it applies, then each fix."""
    rules = sorted({f.rule for f in result.fixed})
    lines = [
        f"Apply safe fixes: {', '.join(rules)}",
        "",
        f"recipe-review applied the safe fixes of `bot lint --fix` to {head_sha[:12]}:",
        "",
    ]
    for f in sorted(result.fixed, key=lambda f: f.sort_key()):
        lines.append(f"- {f.rule} {f.slug}: {f.path}:{f.line}")
    return "\n".join(lines) + "\n"


def compute(
    gw: Gateway, pull: PullInfo, today: datetime.date, *, fixes: FixOptions = SAFE
) -> FixResult | str:
    """`bot lint --fix` on the pull request's head, through the gateway's trees; the
    reason when it cannot run (an invalid configuration)."""
    files = gw.pull_files(pull.repo, pull.number)
    with pull_change(gw, pull, files) as change:
        try:
            config = load_repo_config(change.config_tree, ref=change.config_ref)
        except ConfigError as exc:
            return f"the bot configuration is invalid: {exc}"
        options = LintOptions(review_date=today, workers=1)
        return fix_change(change, config=config, options=options, fixes=fixes)


def apply_safe_fixes(
    gw: CommitGateway,
    repo: str,
    number: int,
    head_sha: str,
    *,
    today: datetime.date | None = None,
) -> FixPosted:
    """Commit the safe fixes of `head_sha` to the pull request's head branch, once."""
    pull = gw.pull(repo, number)
    if pull.state != "open":
        return FixPosted("skipped", head_sha=head_sha, skipped=[f"pull request is {pull.state}"])
    if pull.head_sha != head_sha:
        return FixPosted("skipped", head_sha=head_sha, skipped=["the head moved since the review"])
    why = may_commit(gw, pull)
    if why is not None:
        return FixPosted("skipped", head_sha=head_sha, skipped=[why])
    result = compute(gw, pull, today or datetime.date.today())
    if isinstance(result, str):
        return FixPosted("skipped", head_sha=head_sha, skipped=[result])
    if not result.files:
        return FixPosted("skipped", head_sha=head_sha, skipped=["no safe fix applies"])
    changes: list[TreeChange] = []
    for f in result.files:
        mode = gw.file_mode(repo, f.path, head_sha) or "100644"
        changes.append(TreeChange(f.path, gw.create_blob(repo, f.after), mode))
    tree = gw.create_tree(repo, gw.commit_tree(repo, head_sha), changes)
    commit = gw.create_commit(repo, commit_message(result, head_sha), tree, [head_sha])
    posted = FixPosted(
        "committed",
        commit_sha=commit,
        head_sha=head_sha,
        rules=sorted({f.rule for f in result.fixed}),
        files=[f.path for f in result.files],
    )
    if gw.pull(repo, number).head_sha != head_sha:
        return _moved(posted)
    try:
        gw.update_ref(repo, f"heads/{pull.head_ref}", commit)
    except GitHubError as err:
        if err.status == 422:  # not a fast-forward: the branch moved meanwhile
            log.info("%s#%d: the head branch moved; no fix commit (%s)", repo, number, err)
            return _moved(posted)
        raise
    return posted


def _moved(posted: FixPosted) -> FixPosted:
    return FixPosted(
        "skipped",
        head_sha=posted.head_sha,
        rules=posted.rules,
        files=posted.files,
        skipped=["the head moved since the review"],
    )


def offer(gw: Gateway, pull: PullInfo, findings: Sequence[Finding]) -> int:
    """How many safe fixes the button would apply (0: no button): the review's findings
    with a safe fix, when the bot may commit to the head branch."""
    count = len(fixable(Report(findings=list(findings), files=[]), SAFE, changed_only=True))
    if count == 0 or may_commit(gw, pull) is not None:
        return 0
    return count
