"""The rule engine: route paths to parsers, run rules, apply suppressions. Pure.

Each changed path is routed to its kind by glob, parsed once by the parser
the context's table names for that kind (cached by blob id, per run), and
handed to the rules that target it. A file that cannot be parsed becomes a
finding, never an exception. The engine imports no parser.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import field, replace

from bot.base.records import dataclass
from bot.core.context import Context as Context  # re-exported: the edges build it
from bot.core.context import RuleContext as RuleContext
from bot.core.context import route as route
from bot.core.model import SEVERITY_RANK, Finding
from bot.core.practice import judged_by_base
from bot.core.registry import RuleModule, all_rules, resolve_rule
from bot.core.shared import SharedCheck, review_shared, shared_paths
from bot.core.suppress import (
    UNSUPPRESSIBLE,
    Silenced,
    Suppression,
    SuppressionScan,
    parse_suppressions,
    suppressing,
)


@dataclass
class Report:
    findings: list[Finding]
    files: list[str]
    suppressed: int = 0
    # findings silenced by a suppression the PR adds or changes: out of `findings`,
    # but the gate (bot.core.gate) still counts them
    silenced: list[Silenced] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    # PR mode: each changed shared launch file and the recipes it reaches, linted on
    # base and head (bot.core.shared); what it introduces is in `findings`
    shared: list[SharedCheck] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.findings:
            out[f.severity] += 1
        return out

    def exceeds(self, level: str) -> bool:
        return any(SEVERITY_RANK[f.severity] >= SEVERITY_RANK[level] for f in self.findings)


def lint(
    ctx: Context,
    paths: Iterable[str] | None = None,
    rules: list[RuleModule] | None = None,
) -> Report:
    """Lint `paths` (default: every routed path of the tree).

    Rules that target one file run once per routed path; rules that target the
    whole change (`target="change"`) run once when `ctx.change` is set.
    """
    rules = rules if rules is not None else all_rules()
    config = ctx.config
    selected = sorted(set(paths if paths is not None else ctx.all_paths()))
    raw: list[Finding] = []
    files: list[str] = []
    for path in selected:
        kind = route(path, config)
        if kind is None:
            continue
        parsed = ctx.parsed(kind, path)
        if parsed is None:
            continue
        files.append(path)
        for rm in rules:
            if rm.rule.target == kind and rm.rule.id not in config.disabled:
                raw.extend(_run(rm, parsed, ctx))
    if ctx.change is not None:
        for rm in rules:
            if rm.rule.target == "change" and rm.rule.id not in config.disabled:
                raw.extend(_run(rm, ctx.change, ctx))
    # a changed file recipes source or run: the recipes it reaches, base against head
    shared = shared_paths(ctx, selected)
    shared_checks: list[SharedCheck] = []
    if shared:
        introduced, shared_checks = review_shared(
            ctx, shared, selected, [rm for rm in rules if rm.rule.id not in config.disabled], lint
        )
        raw.extend(introduced)
        files.extend(p for p in {*shared, *(f.path for f in introduced)} if p not in files)
    raw = judged_by_base(raw, ctx, rules)
    findings: list[Finding] = []
    suppressed = 0
    silenced: list[Silenced] = []
    marks_by_path: dict[str, list[Suppression]] = {}
    lines_by_path: dict[str, list[str]] = {}

    def marks_of(path: str) -> list[Suppression]:
        if path not in marks_by_path:
            source = ctx.text(path) or ""
            marks = parse_suppressions(path, source, resolve_rule)
            if ctx.change is not None:
                for s in marks:
                    s.added_by_pr = ctx.change.touches_line(path, s.line, s.line)
            marks_by_path[path] = marks
            lines_by_path[path] = source.splitlines()
        return marks_by_path[path]

    for path in files:
        marks_of(path)
    for finding in raw:
        marks = marks_of(finding.path)
        lines = lines_by_path[finding.path]
        if finding.line_text is None and 0 < finding.span.line <= len(lines):
            finding = replace(finding, line_text=lines[finding.span.line - 1][:400])
        waiver = suppressing(finding, marks)
        if waiver is not None:
            waiver.used.add(finding.rule)
            suppressed += 1
            if waiver.added_by_pr:
                author = ctx.change.author if ctx.change is not None else None
                silenced.append(Silenced(_finish(finding, ctx), waiver, author))
            continue
        findings.append(_finish(finding, ctx))
    everything = [s for path in sorted(marks_by_path) for s in marks_by_path[path]]
    checks = [
        r for r in rules if r.rule.target == "suppression" and r.rule.id not in config.disabled
    ]
    if checks and everything:
        ran = _ran(files, rules, ctx)
        scan = SuppressionScan(everything, ran)
        for rm in checks:
            findings.extend(_finish(f, ctx) for f in _run(rm, scan, ctx))
    findings = dedupe(findings)
    findings.sort(key=Finding.sort_key)
    return Report(
        findings=findings,
        files=files,
        suppressed=suppressed,
        silenced=silenced,
        suppressions=everything,
        shared=shared_checks,
    )


def _finish(finding: Finding, ctx: Context) -> Finding:
    """The repository's severity override and, in PR mode, where the finding's lines stand
    in the change (`ChangeSet.place`: touched by the PR, and commentable)."""
    override = ctx.config.severity.get(finding.rule)
    if override:
        finding = replace(finding, severity=override)
    if ctx.change is not None:
        place = ctx.change.place(finding.path, finding.span.line, finding.span.last_line)
        finding = replace(finding, in_diff=place.changed, comment_lines=place.comment)
    return finding


def _ran(files: list[str], rules: list[RuleModule], ctx: Context) -> dict[str, frozenset[str]]:
    """The rule ids that ran on each linted path."""
    out: dict[str, frozenset[str]] = {}
    for path in files:
        kind = route(path, ctx.config)
        out[path] = frozenset(
            rm.rule.id
            for rm in rules
            if rm.rule.id not in ctx.config.disabled
            and rm.rule.id not in UNSUPPRESSIBLE
            and (rm.rule.target == kind or (rm.rule.target == "change" and ctx.change is not None))
        )
    return out


def _run(rm: RuleModule, parsed: object, ctx: Context) -> Iterator[Finding]:
    yield from rm.check(parsed, ctx)


def dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str, int, str]] = set()
    out = []
    for f in findings:
        key = (f.rule, f.path, f.span.line, f.message.en)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
