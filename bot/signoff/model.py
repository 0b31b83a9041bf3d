"""Sign-off verification: the data the edges gather and the verdict. Pure.

The service (webhook events) and the CLI (`bot signoff check`) collect
`SignoffFacts` — everything the checks need that lives outside the comment —
and `bot.signoff.verify.verify(facts, knowledge)` turns them into a
`Verdict`. A fact the caller could not learn is None and makes its check
`unknown`, never a silent pass.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from typing import Literal

from bot.base.records import dataclass
from bot.core.model import Finding, T
from bot.core.suppress import Silenced

CheckStatus = Literal["pass", "fail", "na", "unknown", "human"]

SIGNOFF_PHRASE = "As a PR reviewer and CODEOWNER, I have reviewed this and have"
VERDICT_MARK = "<!-- codeowner-signoff-verify sha={sha} -->"
DEFAULT_STATUS_CONTEXT = "codeowner-signoff-verify"
_VERDICT_FIRST_LINE = re.compile(r"<!-- codeowner-signoff-verify sha=[0-9a-f]{7,64} -->")


def is_verdict_comment(body: str) -> bool:
    """Whether one of the bot's own comments is a verdict comment, by its kind: the bot
    writes the verdict marker as the comment's first line. The marker (or a verdict
    record) anywhere else, e.g. echoed into the sticky summary, never makes a verdict."""
    first = (body or "").lstrip("\ufeff \n").split("\n", 1)[0].strip()
    return _VERDICT_FIRST_LINE.fullmatch(first) is not None


@dataclass(frozen=True)
class Check:
    name: str  # stable id, e.g. "owner", "template", "signed", "ci-green", "reuse-sweep"
    status: CheckStatus
    reason: T


@dataclass(frozen=True)
class Verdict:
    verdict: Literal["pass", "fail"]
    sha: str
    signer: str
    checks: tuple[Check, ...]

    def as_json(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "sha": self.sha,
            "signer": self.signer,
            "checks": [
                {
                    "name": c.name,
                    "status": c.status,
                    "reason": {"en": c.reason.en, "zh": c.reason.zh},
                }
                for c in self.checks
            ],
        }


@dataclass(frozen=True)
class CheckRun:
    name: str
    status: str  # queued | in_progress | completed
    conclusion: str | None  # success | failure | skipped | neutral | cancelled | ...
    head_sha: str


@dataclass(frozen=True)
class ReuseSweep:
    """A comment with `/reuse-sweep-run` at the start of a line."""

    author: str
    permission: str | None  # admin | maintain | write | triage | read | none; None unknown


@dataclass(frozen=True)
class PostedComment:
    """Another comment on the PR (not a sign-off), in the order posted."""

    author: str
    body: str
    permission: str | None = None  # the author's permission; None unknown


@dataclass(frozen=True)
class BenchmarkChange:
    """One benchmark the PR adds or changes: a recipe script or a master-config entry."""

    path: str
    entry: str | None = None  # the master-config key; None for a script
    # engines it launches: "vllm", "sglang", "trtllm", "atom", ... (master configs: the
    # framework's engine family, else the framework); () when unknown
    engines: tuple[str, ...] = ()
    multi_node: bool = False  # benchmarks/multi_node/**, `multinode: true` or `disagg: true`
    agentic: bool = False
    spec_decode: bool = False


@dataclass(frozen=True)
class PrContent:
    """What the PR changes, read by the lint engine (`bot.signoff.content.pr_content`)."""

    benchmarks: tuple[BenchmarkChange, ...] = ()
    master_config_changed: bool = False  # a master-config entry is new or changed
    append_only: bool = False  # a new changelog entry sets `append-only: true`
    # changed scripts and patches (.sh, .py, .patch, .diff) that are neither recipes nor
    # multi-node benchmark files: the lint rules do not read them for engine patches
    unread: tuple[str, ...] = ()


@dataclass(frozen=True)
class PartialList:
    """The PR's file list is cut short: GitHub lists at most 3,000 files of a pull request
    (documented) while its `changed_files` counts them all."""

    listed: int
    changed: int


@dataclass(frozen=True)
class SignoffFacts:
    head_sha: str
    signer: str  # the comment's author login
    body: str  # the sign-off comment body
    pr: int | None = None
    signer_is_bot: bool = False
    bot_login: str | None = None
    changed_paths: tuple[str, ...] = ()
    # `changed_paths` holds only part of what the PR changes (listed N of M); None: all.
    # Every row judged from the changed files is then unknown, never a pass
    files_partial: PartialList | None = None
    codeowners_text: str | None = None  # .github/CODEOWNERS from the BASE branch
    template_text: str | None = None  # docs/PR_REVIEW_CHECKLIST.md from the default branch
    template_zh_text: str | None = None  # docs/PR_REVIEW_CHECKLIST_zh.md
    signer_permission: str | None = None  # None: unknown
    # "@org/team" -> is the signer a member? None: membership could not be read
    team_membership: Mapping[str, bool | None] = field(default_factory=dict)
    pr_commits: tuple[str, ...] | None = None  # None: unknown (offline CLI)
    check_runs: tuple[CheckRun, ...] | None = None  # over the PR's commits; None: unknown
    reuse_sweeps: tuple[ReuseSweep, ...] | None = None
    # lint findings on the PR (the engine in PR mode) for the conditional items
    findings: tuple[Finding, ...] = ()
    # paths added by the PR (waivers: docs/waiver/<PR>.md)
    added_paths: tuple[str, ...] = ()
    # the login that last edited the sign-off comment, when someone did; an edit by
    # anyone but the signer voids the sign-off
    edited_by: str | None = None
    # the PR's benchmarks as the lint engine reads them; None: not linted, so the
    # conditional checks (recipe link, waiver, golden AL, ...) are `unknown`
    content: PrContent | None = None
    # findings silenced by a suppression the PR adds or changes: the gate still sees them,
    # and a row passes them only when the sign-off names the rule (id or slug)
    silenced: tuple[Silenced, ...] = ()
    # the repository's web address (`https://github.com/o/r`), to link findings; None: no links
    repo_url: str | None = None
    # the base branch's `.github/workflows/run-sweep.yml`: which job names prove a sweep
    sweep_workflow_text: str | None = None
    pr_author: str | None = None
    # the PR's other comments in the order posted (disapprovals); None: not read
    comments: tuple[PostedComment, ...] | None = None
    # whether the signer is a member of the organisation of the owning teams; None unknown
    signer_org_member: bool | None = None
