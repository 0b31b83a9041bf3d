"""The answer key from history: what became of each finding. Pure: stored results in, figures out.

A finding is identified within a PR by its fingerprint (rule, path and the
normalised offending text: the identity the review uses to avoid duplicate
comments), so a finding that only moved lines is the same finding. Over the
PR's linted commits, oldest first, ending with its head:

- `early`: seen on a commit before the head (only PRs linted with `--commits`);
- `fixed later`: early and absent from the head: a later commit removed it.
  `line edited` says whether the first commit without it deleted or changed the
  line it pointed at (as numbered in the last commit that had it);
- `on head`: present on the PR's head (its latest state, or what was merged);
- `stayed`: on the head of a merged PR: merged in spite of it (a false alarm or
  a tolerated one, for a person to judge).

Per rule the figures count unique (PR, fingerprint) findings; the fixed-later
rate is `fixed later / early`.
"""

from __future__ import annotations

import datetime
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from typing import Literal

from bot.backtest.history import PullPlan
from bot.backtest.store import FindingRow, LintResult
from bot.base.records import dataclass

Outcome = Literal["fixed", "removed", "stayed", "open"]
LineOracle = Callable[[str, str, str, int], "bool | None"]


@dataclass(frozen=True)
class Tracked:
    """One finding of one PR, followed over its commits."""

    pr: int
    finding: FindingRow  # as last seen
    sha: str  # the commit it was last seen on
    first_sha: str
    on_head: bool
    early: bool
    removed_by: str | None  # the first linted commit without it (when not on head)
    line_edited: bool | None
    merged: bool

    @property
    def outcome(self) -> Outcome:
        if not self.on_head:
            return "fixed" if self.line_edited else "removed"
        return "stayed" if self.merged else "open"


@dataclass
class PullOutcome:
    plan: PullPlan
    status: Literal["ok", "missing", "error"]
    detail: str | None
    head_seconds: float | None
    commits_linted: int  # commits with a result (ok) before and including the head
    commits_known: int  # commits the PR has (1 when its commits were not listed)
    missing_commits: int
    findings: list[Tracked]
    rule_ms: Mapping[str, float]  # on the head

    @property
    def merged(self) -> bool:
        return self.plan.merged is not None

    @property
    def with_commits(self) -> bool:
        return self.plan.commits is not None and self.commits_linted == self.commits_known


@dataclass
class RuleRow:
    rule: str
    findings: int = 0
    pulls: int = 0
    on_head: int = 0
    early: int = 0
    fixed_later: int = 0
    line_edited: int = 0
    stayed_merged: int = 0
    blocked_pulls: int = 0  # PRs whose head has an error-severity finding of the rule
    median_ms: float | None = None  # the rule's check time per PR head (where it ran)
    severities: dict[str, int] = field(default_factory=dict)

    @property
    def fixed_rate(self) -> float | None:
        return self.fixed_later / self.early if self.early else None


@dataclass
class Totals:
    pulls: int = 0
    linted: int = 0
    with_commits: int = 0
    merged: int = 0
    skipped_missing: int = 0
    failed: int = 0
    commits_linted: int = 0
    commits_missing: int = 0
    findings: int = 0
    median_seconds: float | None = None  # one PR head's lint
    p90_seconds: float | None = None
    lint_seconds: float = 0.0  # every stored lint, summed (CPU in the workers)


def follow(
    plan: PullPlan,
    results: Mapping[tuple[str, str], LintResult],
    line_oracle: LineOracle,
) -> PullOutcome:
    """The answer key of one PR from its stored results, keyed by (commit, merge-base)."""
    head = results.get((plan.head, plan.base or ""))
    if head is None or head.status != "ok":
        status: Literal["missing", "error"] = (
            "error" if head is not None and head.status == "error" else "missing"
        )
        detail = head.detail if head is not None else plan.problem
        return PullOutcome(plan, status, detail, None, 0, 1, 1, [], {})
    steps = plan.steps()
    found_at = [results.get((sha, base or "")) for sha, base in steps]
    seen = [(sha, r) for (sha, _), r in zip(steps, found_at, strict=True) if r and r.status == "ok"]
    missing = sum(1 for r in found_at if r is not None and r.status != "ok")
    merged = plan.merged is not None
    # fingerprint -> (first sha, last sha, finding as last seen)
    tracks: dict[str, tuple[str, str, FindingRow]] = {}
    absent_after: dict[str, str] = {}  # fingerprint -> first commit without it after a sighting
    for sha, result in seen:
        here: dict[str, FindingRow] = {}
        for f in result.findings:
            here.setdefault(f.fingerprint, f)
        for fp, f in here.items():
            first = tracks[fp][0] if fp in tracks else sha
            tracks[fp] = (first, sha, f)
            absent_after.pop(fp, None)
        for fp in tracks:
            if fp not in here and fp not in absent_after:
                absent_after[fp] = sha
    found = []
    for fp, (first, last, f) in tracks.items():
        on_head = last == plan.head
        early = first != plan.head
        removed_by = None if on_head else absent_after.get(fp)
        edited = line_oracle(last, removed_by, f.path, f.line) if removed_by else None
        found.append(
            Tracked(plan.number, f, last, first, on_head, early, removed_by, edited, merged)
        )
    found.sort(key=lambda t: (t.finding.path, t.finding.line, t.finding.rule))
    return PullOutcome(
        plan, "ok", None, head.seconds, len(seen), len(steps), missing, found, head.rule_ms
    )


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def rule_table(outcomes: Iterable[PullOutcome]) -> list[RuleRow]:
    rows: dict[str, RuleRow] = {}
    ms: dict[str, list[float]] = {}
    for o in outcomes:
        if o.status != "ok":
            continue
        for rule, took in o.rule_ms.items():
            ms.setdefault(rule, []).append(took)
            rows.setdefault(rule, RuleRow(rule))
        touched: set[str] = set()
        blocked: set[str] = set()
        for t in o.findings:
            row = rows.setdefault(t.finding.rule, RuleRow(t.finding.rule))
            row.findings += 1
            row.severities[t.finding.severity] = row.severities.get(t.finding.severity, 0) + 1
            touched.add(row.rule)
            if t.on_head:
                row.on_head += 1
                if t.merged:
                    row.stayed_merged += 1
                if t.finding.severity == "error":
                    blocked.add(row.rule)
            if t.early:
                row.early += 1
                if not t.on_head:
                    row.fixed_later += 1
                    row.line_edited += bool(t.line_edited)
        for rule in touched:
            rows[rule].pulls += 1
        for rule in blocked:
            rows[rule].blocked_pulls += 1
    for rule, values in ms.items():
        rows[rule].median_ms = _median(values)
    return [rows[k] for k in sorted(rows)]


def totals(outcomes: Sequence[PullOutcome], all_seconds: Iterable[float]) -> Totals:
    t = Totals(pulls=len(outcomes))
    heads = []
    for o in outcomes:
        t.merged += o.merged
        if o.status == "missing":
            t.skipped_missing += 1
            continue
        if o.status == "error":
            t.failed += 1
            continue
        t.linted += 1
        t.with_commits += o.with_commits and o.plan.commits is not None
        t.commits_linted += o.commits_linted
        t.commits_missing += o.missing_commits
        t.findings += len(o.findings)
        if o.head_seconds is not None:
            heads.append(o.head_seconds)
    t.median_seconds = _median(heads)
    if heads:
        ordered = sorted(heads)
        t.p90_seconds = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    t.lint_seconds = sum(all_seconds)
    return t


def week_of(day: datetime.date) -> datetime.date:
    return day - datetime.timedelta(days=day.weekday())


def per_week(outcomes: Iterable[PullOutcome]) -> dict[datetime.date, dict[str, int]]:
    """Week (its Monday, by the PR head's date) -> findings on heads by severity, and `PRs`."""
    out: dict[datetime.date, dict[str, int]] = {}
    for o in outcomes:
        if o.status != "ok":
            continue
        week = out.setdefault(week_of(o.plan.date), {"error": 0, "warning": 0, "info": 0, "PRs": 0})
        week["PRs"] += 1
        for t in o.findings:
            if t.on_head:
                week[t.finding.severity] = week.get(t.finding.severity, 0) + 1
    return dict(sorted(out.items()))
