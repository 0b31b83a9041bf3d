"""The rule engine: route paths to parsers, run rules, apply suppressions. Pure.

Each changed path is routed to its parser by glob, parsed once (cached by
blob id), and handed to the rules that target it. A file that cannot be
parsed becomes a finding, never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from bot.core.changeset import ChangeSet
from bot.core.config import Config
from bot.core.model import SEVERITY_RANK, Finding
from bot.core.registry import RuleModule, all_rules
from bot.core.tree import Tree, glob_match

SUPPRESS_RE = re.compile(r"#\s*bot:\s*ignore\[([A-Za-z0-9_,\s-]+)\]")

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
    # the base branch's tip, when it is ahead of `base` (the merge-base): entries
    # a stale branch carries from it are not the PR's own
    base_tip: Tree | None = None
    _memo: dict[str, Any] = field(default_factory=dict)

    @property
    def knowledge(self) -> Any:
        return self.config.knowledge

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
        key = (kind, blob + "\x00" + path)
        if key not in _PARSE_CACHE:
            text = self.text(path, src)
            if text is None:
                return None
            if len(_PARSE_CACHE) >= _PARSE_CACHE_MAX:
                _PARSE_CACHE.clear()
            _PARSE_CACHE[key] = parse(path, text)
        return _PARSE_CACHE[key]

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


def suppressed_ids(text: str) -> dict[int, set[str]]:
    """Line number -> rule ids suppressed there (`# bot: ignore[ID, ...] reason`)."""
    out: dict[int, set[str]] = {}
    if "bot:" not in text:
        return out
    for no, line in enumerate(text.splitlines(), 1):
        m = SUPPRESS_RE.search(line)
        if m:
            ids = {x.strip().upper() for x in m.group(1).split(",") if x.strip()}
            out.setdefault(no, set()).update(ids)
    return out


def _is_suppressed(f: Finding, marks: dict[int, set[str]], slugs: dict[str, str]) -> bool:
    for line in (f.span.line, f.span.line - 1, f.span.last_line):
        ids = marks.get(line, set())
        if f.rule in ids or f.slug.upper() in ids or "ALL" in ids:
            return True
    return False


@dataclass
class Report:
    findings: list[Finding]
    files: list[str]
    suppressed: int = 0

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
    marks_by_path: dict[str, dict[int, set[str]]] = {}
    lines_by_path: dict[str, list[str]] = {}
    for finding in raw:
        if finding.path not in marks_by_path:
            source = ctx.text(finding.path) or ""
            marks_by_path[finding.path] = suppressed_ids(source)
            lines_by_path[finding.path] = source.splitlines()
        lines = lines_by_path[finding.path]
        if finding.line_text is None and 0 < finding.span.line <= len(lines):
            finding = replace(finding, line_text=lines[finding.span.line - 1][:400])
        if _is_suppressed(finding, marks_by_path[finding.path], {}):
            suppressed += 1
            continue
        override = config.severity.get(finding.rule)
        if override:
            finding = replace(finding, severity=override)
        if ctx.change is not None:
            finding = replace(
                finding,
                in_diff=ctx.change.touches_line(
                    finding.path, finding.span.line, finding.span.last_line
                ),
            )
        findings.append(finding)
    findings = _dedupe(findings)
    findings.sort(key=Finding.sort_key)
    return Report(findings=findings, files=files, suppressed=suppressed)


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
