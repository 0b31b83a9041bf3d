"""What a pull request changes, for the sign-off's conditional checks. Pure.

The edges (the CLI, the webhook service) lint the PR in PR mode once; this
module reads the same `Context` (and the lint `Report`) into the facts the
sign-off checks need:

- `pr_content(ctx)`: the recipe scripts and master-config entries the PR adds
  or changes (engines, single- or multi-node, agentic, speculative decoding)
  and whether a new changelog entry sets `append-only: true`;
- `with_content(facts, ctx, report)`: `facts` with `content`, `findings`,
  `added_paths` (and `changed_paths` when empty) filled in.

Deleted files and entries are not benchmarks the PR submits, so they are left out.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from bot.core.engine import Context, Report, route
from bot.core.tree import glob_match
from bot.parse.changelog import Changelog
from bot.parse.changelog_diff import base_diff
from bot.parse.facts import spec
from bot.parse.master_config import MasterConfig, engine_family
from bot.parse.master_sets import base_master_configs, entry_changes
from bot.parse.recipe import Recipe
from bot.signoff.model import BenchmarkChange, PrContent, SignoffFacts

DEFAULT_MULTI_NODE = ("benchmarks/multi_node/**",)
# files that may patch the serving stack without being a recipe the rules read
SCRIPT_SUFFIXES = (".sh", ".py", ".patch", ".diff")
_SPEC_NAME = re.compile(r"(?:^|[_.-])(?:mtp|eagle\d*|dspark|spec)(?:$|[_.-])", re.I)


def _signoff_knowledge(ctx: Context) -> Mapping[str, Any]:
    table = ctx.knowledge.section("signoff")
    return table if isinstance(table, Mapping) else {}


def _changed(ctx: Context) -> list[str]:
    if ctx.change is not None:
        return [f.path for f in ctx.change.files if f.status != "deleted"]
    return sorted(ctx.changed or ())


def _recipe_change(path: str, recipe: Recipe, ctx: Context) -> BenchmarkChange:
    engines = sorted({launch.engine for launch in recipe.launches if launch.engine})
    spec_decode = recipe.mtp or any(spec(x, ctx.knowledge) is not None for x in recipe.launches)
    return BenchmarkChange(
        path=path,
        engines=tuple(engines),
        multi_node=recipe.kind == "multi_node",
        agentic=recipe.agentic,
        spec_decode=spec_decode,
    )


def _walk_values(data: Any, key: str) -> Iterable[Any]:
    if isinstance(data, Mapping):
        for k, v in data.items():
            if k == key:
                yield v
            yield from _walk_values(v, key)
    elif isinstance(data, list):
        for v in data:
            yield from _walk_values(v, key)


def _entry_changes(master: MasterConfig, ctx: Context) -> list[BenchmarkChange]:
    out = []
    for change in entry_changes(master, base_master_configs(ctx)):
        entry = change.entry
        framework = entry.get("framework")
        family = engine_family(framework, ctx.knowledge) if isinstance(framework, str) else None
        engines = (family,) if family else ((framework,) if isinstance(framework, str) else ())
        scenarios = entry.get("scenarios")
        agentic = isinstance(scenarios, Mapping) and "agentic-coding" in scenarios
        specs = [str(v).lower() for v in _walk_values(entry.data, "spec-decoding")]
        spec_decode = any(v not in ("none", "", "false") for v in specs) or bool(
            _SPEC_NAME.search(entry.key)
        )
        out.append(
            BenchmarkChange(
                path=master.path,
                entry=entry.key,
                engines=tuple(engines),
                multi_node=entry.get("multinode") is True or entry.get("disagg") is True,
                agentic=agentic or "agentic" in entry.key.split("-"),
                spec_decode=spec_decode,
            )
        )
    return out


def _append_only(path: str, ctx: Context) -> bool:
    changelog = ctx.parsed("changelog", path)
    if not isinstance(changelog, Changelog):
        return False
    diff = base_diff(changelog, ctx)
    return diff is not None and any(e.get("append-only") is True for e in diff.new)


def pr_content(ctx: Context) -> PrContent:
    """The PR's benchmarks, read from a PR-mode `Context` (`ctx.base` and `ctx.change` set)."""
    table = _signoff_knowledge(ctx)
    multi = tuple(table.get("multi_node_paths", DEFAULT_MULTI_NODE) or DEFAULT_MULTI_NODE)
    benchmarks: list[BenchmarkChange] = []
    master_changed = False
    append_only = False
    unread: list[str] = []
    for path in _changed(ctx):
        kind = route(path, ctx.config)
        if kind == "recipe":
            recipe = ctx.recipe(path)
            if isinstance(recipe, Recipe):
                benchmarks.append(_recipe_change(path, recipe, ctx))
        elif kind == "master_config":
            master = ctx.parsed("master_config", path)
            if isinstance(master, MasterConfig):
                changes = _entry_changes(master, ctx)
                master_changed = master_changed or bool(changes)
                benchmarks.extend(changes)
        elif kind == "changelog":
            append_only = append_only or _append_only(path, ctx)
        elif kind is None and not any(glob_match(path, pat) for pat in multi):
            if path.endswith(SCRIPT_SUFFIXES):
                unread.append(path)
        elif any(glob_match(path, pat) for pat in multi):
            name = posixpath.basename(path)
            benchmarks.append(
                BenchmarkChange(
                    path=path,
                    multi_node=True,
                    agentic="agentic" in path.split("/"),
                    spec_decode=bool(_SPEC_NAME.search(name.rsplit(".", 1)[0])),
                )
            )
    return PrContent(tuple(benchmarks), master_changed, append_only, tuple(unread))


def with_content(facts: SignoffFacts, ctx: Context, report: Report | None) -> SignoffFacts:
    """`facts` completed from a PR-mode lint: content, findings, added (and changed) paths.

    `report` is the lint of the PR's changed paths with `ctx` (`bot.core.engine.lint`);
    None leaves `findings` as they are.
    """
    added = facts.added_paths
    changed = facts.changed_paths
    if ctx.change is not None:
        added = added or tuple(f.path for f in ctx.change.files if f.status == "added")
        changed = changed or tuple(ctx.change.paths)
    return replace(
        facts,
        content=pr_content(ctx),
        findings=tuple(report.findings) if report is not None else facts.findings,
        silenced=tuple(report.silenced) if report is not None else facts.silenced,
        added_paths=added,
        changed_paths=changed,
    )
