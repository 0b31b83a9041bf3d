"""The rule engine: route paths to parsers, run rules, apply suppressions. Pure.

Each changed path is routed to its parser by glob, parsed once (cached by
blob id), and handed to the rules that target it. A file that cannot be
parsed becomes a finding, never an exception.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, cast

from bot.core.changeset import ChangeSet
from bot.core.config import Config
from bot.core.model import SEVERITY_RANK, Finding
from bot.core.registry import RuleModule, all_rules, resolve_rule
from bot.core.suppress import (
    UNSUPPRESSIBLE,
    Silenced,
    Suppression,
    SuppressionScan,
    parse_suppressions,
    suppressing,
)
from bot.core.tree import Tree, glob_match

_PARSE_CACHE: dict[tuple[str, str], Any] = {}
_PARSE_CACHE_MAX = 4096


@dataclass
class Context:
    """What a rule may look at besides its own input. Read-only."""

    tree: Tree
    config: Config
    pr: int | None = None
    base: Tree | None = None
    # paths changed by the PR; None when the whole tree is linted
    changed: frozenset[str] | None = None
    # "tree": a whole merged tree; "pr": a change against `base`; "paths": files named by hand
    mode: str = "paths"
    # the pull request as a change (base/head hunks); None outside PR mode
    change: ChangeSet | None = None
    # the date rules judge dated knowledge against (deprecations); an input,
    # never read from a clock inside the core
    review_date: date | None = None
    # the pull request's GitHub repository (`owner/name`), when known
    repository: str | None = None
    # the base branch's tip, when it is ahead of `base` (the merge-base): entries
    # a stale branch carries from it are not the PR's own
    base_tip: Tree | None = None
    _memo: dict[str, Any] = field(default_factory=dict)

    @property
    def knowledge(self) -> Any:
        return self.config.knowledge

    def pr_link_prefix(self, default: str) -> str:
        """The URL a changelog `pr-link` starts with: the target repository's
        `knowledge.changelog.pr_link_prefix`, else the pull request's own
        repository, else `default`."""
        section = self.knowledge.section("changelog") or {}
        explicit = section.get("pr_link_prefix")
        if explicit:
            return str(explicit)
        if self.repository:
            return f"https://github.com/{self.repository}/pull/"
        return default

    def text(self, path: str, tree: Tree | None = None) -> str | None:
        data = (tree or self.tree).read(path)
        if data is None:
            return None
        return data.decode("utf-8", errors="replace")

    def parsed(
        self, kind: str, path: str, parse: Callable[[str, str], Any], tree: Tree | None = None
    ) -> Any:
        """Parse `path` once per content: results are cached by blob id."""
        src = tree or self.tree
        blob = src.blob_id(path)
        if blob is None:
            return None
        if kind == "recipe":
            # bash recipes read the knowledge's environment domains and the names the
            # engine adapters give (`engines.recipe_inputs`): part of the key
            from bot.parse.engines import recipe_inputs

            domains = self.env_domains()
            inputs = self.memo("recipe_inputs", lambda: recipe_inputs(self.knowledge))
            parse = functools.partial(cast(Any, parse), domains=domains or None, inputs=inputs)
            kind = (
                "recipe|" + repr(sorted((k, sorted(v)) for k, v in domains.items())) + inputs.key()
            )
        key = (kind, blob + "\x00" + path)
        if key not in _PARSE_CACHE:
            text = self.text(path, src)
            if text is None:
                return None
            if len(_PARSE_CACHE) >= _PARSE_CACHE_MAX:
                _PARSE_CACHE.clear()
            _PARSE_CACHE[key] = parse(path, text)
        return _PARSE_CACHE[key]

    def env_domains(self) -> dict[str, frozenset[str]]:
        """`knowledge.env_domains`: the values each recipe input can take ("" = unset)."""

        def make() -> dict[str, frozenset[str]]:
            table = self.knowledge.section("env_domains") or {}
            return {str(k): frozenset(str(x) for x in v) for k, v in table.items() if v}

        return self.memo("env_domains", make)  # type: ignore[no-any-return]

    def recipe(self, path: str) -> Any:
        from bot.parse.recipe import parse_recipe

        return self.parsed("recipe", path, parse_recipe)

    def all_paths(self, tree: Tree | None = None) -> list[str]:
        """The tree's paths, listed once per lint run."""
        src = tree or self.tree
        return self.memo(f"paths:{id(src)}", lambda: sorted(src.paths()))  # type: ignore[no-any-return]

    def recipes(self, tree: Tree | None = None) -> list[str]:
        """Paths routed to the recipe parser."""
        return self.memo(  # type: ignore[no-any-return]
            f"recipes:{id(tree or self.tree)}",
            lambda: [p for p in self.all_paths(tree) if route(p, self.config) == "recipe"],
        )

    def memo(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def golden(self) -> Any:
        from bot.parse.golden import load_golden_set

        return self.memo("golden", lambda: load_golden_set(self))


@dataclass
class Target:
    kind: str
    parse: Callable[[str, str], Any]


def _targets() -> dict[str, Target]:
    from bot.parse.changelog import parse_changelog
    from bot.parse.master_config import parse_master_config
    from bot.parse.recipe import parse_recipe

    return {
        "recipe": Target("recipe", parse_recipe),
        "changelog": Target("changelog", parse_changelog),
        "master_config": Target("master_config", parse_master_config),
    }


def route(path: str, config: Config) -> str | None:
    if path == config.changelog or glob_match(path, config.changelog):
        return "changelog"
    if any(glob_match(path, pat) for pat in config.master_configs):
        return "master_config"
    if any(glob_match(path, pat) for pat in config.recipes) and not any(
        glob_match(path, pat) for pat in config.recipes_exclude
    ):
        return "recipe"
    return None


@dataclass
class Report:
    findings: list[Finding]
    files: list[str]
    suppressed: int = 0
    # findings silenced by a suppression the PR adds or changes: out of `findings`,
    # but the gate (bot.core.gate) still counts them
    silenced: list[Silenced] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)

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
    targets = _targets()
    selected = sorted(set(paths if paths is not None else ctx.all_paths()))
    raw: list[Finding] = []
    files: list[str] = []
    for path in selected:
        kind = route(path, config)
        if kind is None:
            continue
        parsed = ctx.parsed(kind, path, targets[kind].parse)
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
    findings = _dedupe(findings)
    findings.sort(key=Finding.sort_key)
    return Report(
        findings=findings,
        files=files,
        suppressed=suppressed,
        silenced=silenced,
        suppressions=everything,
    )


def _finish(finding: Finding, ctx: Context) -> Finding:
    """The repository's severity override and, in PR mode, whether the PR touched the lines."""
    override = ctx.config.severity.get(finding.rule)
    if override:
        finding = replace(finding, severity=override)
    if ctx.change is not None:
        finding = replace(
            finding,
            in_diff=ctx.change.touches_line(
                finding.path, finding.span.line, finding.span.last_line
            ),
        )
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


def _run(rm: RuleModule, parsed: Any, ctx: Context) -> Iterator[Finding]:
    yield from rm.check(parsed, ctx)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str, int, str]] = set()
    out = []
    for f in findings:
        key = (f.rule, f.path, f.span.line, f.message.en)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
