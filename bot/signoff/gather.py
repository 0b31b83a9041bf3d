"""The one facts gatherer of `bot signoff check` and the sign-off service.

Both decide from the same `SignoffFacts`: this module assembles them, in one way, from a
`FactSource` that reads the repository (the GitHub API in the service, a local git
repository and the command-line options offline). Which files hold CODEOWNERS, the
checklist and the sweep workflow comes from the knowledge (`knowledge.signoff`), whose
shipped YAML holds the only defaults. Pure: the source does the reading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from typing import Protocol

from bot.base.records import dataclass
from bot.core.config import Knowledge
from bot.core.engine import Context, Report
from bot.signoff.content import with_content
from bot.signoff.model import CheckRun, PartialList, PostedComment, ReuseSweep, SignoffFacts


@dataclass(frozen=True)
class SignedComment:
    """A sign-off comment, as posted."""

    login: str
    body: str
    # the login that last edited it, when someone did; None: nobody (or unknown)
    edited_by: str | None = None


@dataclass(frozen=True)
class Signer:
    """What the source knows about one signer."""

    permission: str | None = None
    # "@org/team" -> is the signer a member? None: membership could not be read
    team_membership: Mapping[str, bool | None] = field(default_factory=dict)
    org_member: bool | None = None
    is_bot: bool = False


class FactSource(Protocol):
    """Where the facts are read from; every method may answer None for "unknown"."""

    head_sha: str

    def base_text(self, path: str) -> str | None:
        """A file of the base branch (CODEOWNERS, the sweep workflow)."""

    def template_text(self, path: str) -> str | None:
        """A file of the ref the checklist template is read from."""

    def changed(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(the paths the PR changes, the paths it adds)."""

    def changed_count(self) -> int | None:
        """How many files the PR changes when `changed()` lists only some of them (GitHub's
        `changed_files`); None: `changed()` lists them all."""

    def commits(self) -> tuple[str, ...] | None:
        """The PR's commits, oldest first."""

    def check_runs(self, commits: tuple[str, ...] | None) -> tuple[CheckRun, ...] | None: ...

    def reuse_sweeps(self) -> tuple[ReuseSweep, ...] | None: ...

    def comments(self) -> tuple[PostedComment, ...] | None:
        """The PR's other comments, in the order posted (disapprovals)."""

    def signer(
        self, login: str, codeowners: str | None, paths: tuple[str, ...], newest: bool
    ) -> Signer: ...

    def lint(self) -> tuple[Context | None, Report]:
        """The PR-mode lint: its context (None: the content could not be read) and report."""


@dataclass(frozen=True)
class SignoffPaths:
    """The files the sign-off reads ("": none), and whether it reads the PR's comments."""

    codeowners: tuple[str, ...]  # the first that exists is read
    template: str
    template_zh: str
    workflow: str  # the sweep workflow: its job names are the check runs to look for
    disapproval: bool  # disapproval phrases are configured: the comments are read


def knowledge_paths(knowledge: Knowledge) -> SignoffPaths:
    """The files the sign-off reads, from `knowledge.signoff` (the YAML holds the defaults)."""
    table = knowledge.section("signoff") or {}
    return SignoffPaths(
        codeowners=tuple(str(p) for p in table.get("codeowners") or []),
        template=str(table.get("template") or ""),
        template_zh=str(table.get("template_zh") or ""),
        workflow=str((table.get("check_runs") or {}).get("workflow") or ""),
        disapproval=bool((table.get("disapproval") or {}).get("phrases")),
    )


def _first(read: Callable[[str], str | None], paths: Sequence[str]) -> str | None:
    for path in paths:
        text = read(path) if path else None
        if text is not None:
            return text
    return None


def gather(
    src: FactSource,
    signoffs: Sequence[SignedComment],
    knowledge: Knowledge,
    *,
    pr: int | None,
    bot_login: str | None,
    repo_url: str | None = None,
    pr_author: str | None = None,
) -> list[SignoffFacts]:
    """The facts of each sign-off in `signoffs` (the last is the newest). What the PR
    changes, its lint, CI and comments are read once; who signed is read per sign-off."""
    if not signoffs:
        raise ValueError("gather() needs at least one sign-off")
    where = knowledge_paths(knowledge)
    newest = signoffs[-1]
    paths, added = src.changed()
    total = src.changed_count()
    partial = PartialList(len(paths), total) if total is not None and total > len(paths) else None
    codeowners = _first(src.base_text, where.codeowners)
    template = _first(src.template_text, [where.template])
    template_zh = _first(src.template_text, [where.template_zh])
    who = src.signer(newest.login, codeowners, paths, True)
    commits = src.commits()
    runs = src.check_runs(commits)
    sweeps = src.reuse_sweeps()
    facts = SignoffFacts(
        head_sha=src.head_sha,
        signer=newest.login,
        body=newest.body,
        pr=pr,
        signer_is_bot=who.is_bot,
        bot_login=bot_login,
        changed_paths=paths,
        files_partial=partial,
        codeowners_text=codeowners,
        template_text=template,
        template_zh_text=template_zh,
        signer_permission=who.permission,
        team_membership=who.team_membership,
        pr_commits=commits,
        check_runs=runs,
        reuse_sweeps=sweeps,
        added_paths=added,
        edited_by=newest.edited_by,
        repo_url=repo_url,
        sweep_workflow_text=_first(src.base_text, [where.workflow]),
        pr_author=pr_author,
        signer_org_member=who.org_member,
    )
    if where.disapproval:
        facts = replace(facts, comments=src.comments())
    ctx, report = src.lint()
    if ctx is None:
        facts = replace(facts, findings=tuple(report.findings))
    else:
        facts = with_content(facts, ctx, report)
    out: list[SignoffFacts] = []
    for other in signoffs[:-1]:
        them = src.signer(other.login, codeowners, paths, False)
        out.append(
            replace(
                facts,
                signer=other.login,
                body=other.body,
                signer_is_bot=them.is_bot,
                signer_permission=them.permission,
                team_membership=them.team_membership,
                edited_by=other.edited_by,
                signer_org_member=them.org_member,
            )
        )
    out.append(facts)
    return out
