"""A change to shared launch code, reviewed through the recipes it reaches. Pure.

A pull request that changes `benchmarks/benchmark_lib.sh`, a runner under
`runners/`, `amd_utils/job.slurm` or another file recipes source or run changes
every recipe that uses it, although none of their own lines change. For each such
file the PR changes (`knowledge.shared_launch.paths`, not itself a linted kind, or
a launcher of a model table) this module finds the recipes it reaches
(`bot.parse.deps`: the recipes that source or run it, through up to
`MAX_DEPTH` other shared files, and the recipes it runs), lints those whose checks
can read it (`_readers`) on the PR's base and on its head with the same rules, and
keeps what the change introduces: the head's findings whose fingerprint the base
does not have. Each is reported on
the first changed line of the shared file, naming the recipe and line it holds
on; when the shared file has no changed line on the head (it was deleted), it
stays on the recipe's own line, which the PR does not change (the summary).

The engine calls `review_shared` from `lint` in PR mode; the lint function is
passed in, so this module does not import the engine.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bot.base.glob import glob_match
from bot.base.records import dataclass
from bot.base.span import Span
from bot.base.text import T
from bot.base.tree import Tree
from bot.core.changeset import ChangeSet
from bot.core.context import Context, route
from bot.core.model import Finding
from bot.core.wording import say
from bot.parse.deps import Layout, resolve, uses

if TYPE_CHECKING:
    from bot.core.registry import RuleModule

# shared files reached through at most this many references (a runner -> submit.sh
# -> job.slurm -> server_sglang.sh)
MAX_DEPTH = 3
# above this many dependents of one change the rest is not linted (and said so)
MAX_DEPENDENTS = 1500


@dataclass(frozen=True)
class SharedCheck:
    """One changed shared file: the recipes it reaches, and those of them linted on base
    and head (the ones whose checks can read it: see `_readers`)."""

    path: str
    dependents: tuple[str, ...]
    linted: tuple[str, ...]
    introduced: int  # findings the head has and the base does not
    truncated: bool = False  # more than MAX_DEPENDENTS to lint; the rest not linted

    def describe(self) -> T:
        """What the review of the shared file covered, for a summary."""
        if not self.linted:
            return say("shared-unread", path=self.path, n=len(self.dependents))
        n = len(self.linted)
        return say(
            "shared-linted",
            path=self.path,
            n=len(self.dependents),
            linted=n,
            more=say("shared-first", n=n) if self.truncated else T(en="", zh=""),
            introduced=self.introduced,
        )


LintFn = Callable[["Context", list[str], list["RuleModule"]], Any]


def shared_paths(ctx: Context, selected: Iterable[str]) -> list[str]:
    """The changed files of `selected` that are shared launch code."""
    if ctx.change is None:
        return []
    globs = ctx.knowledge.shared_launch.paths
    launchers = {t.launcher for t in ctx.knowledge.model_tables.values() if t.launcher}
    changed = ctx.change.touched
    out = []
    for path in selected:
        if path not in changed:
            continue
        routed = _route(ctx, path) is not None
        if path in launchers or (not routed and any(glob_match(path, g) for g in globs)):
            out.append(path)
    return sorted(out)


def review_shared(
    ctx: Context, shared: list[str], skip: Iterable[str], rules: list[RuleModule], lint: LintFn
) -> tuple[list[Finding], list[SharedCheck]]:
    """The findings the change to each of `shared` introduces in the recipes it reaches
    (those in `skip` are linted anyway), and one `SharedCheck` per shared file."""
    change = ctx.change
    if change is None or not shared:
        return [], []
    reach = {s: _dependents(ctx, s) - set(skip) - {s} for s in shared}
    readers = {s: _readers(ctx, s) & reach[s] for s in shared}
    everyone = sorted(set().union(*readers.values()))
    truncated = len(everyone) > MAX_DEPENDENTS
    everyone = everyone[:MAX_DEPENDENTS]
    per_file = [rm for rm in rules if rm.rule.target not in ("change", "suppression")]
    found: list[Finding] = []
    if everyone:
        # both sides as this pull request sees them: the head with its change, the base
        # as a change that changes nothing, so each rule judges both the same way
        still = ChangeSet(
            base=change.base, head=change.base, files=(), pr=change.pr, author=change.author
        )
        sides = {}
        for name, side_change in (("head", change), ("base", still)):
            side = Context.for_change(
                side_change,
                ctx.config,
                review_date=ctx.review_date,
                repository=ctx.repository,
                base_tip=ctx.base_tip,
                parsers=ctx.parsers,
                cache=ctx.cache,
            )
            tree = side_change.head
            present = [p for p in everyone if tree.blob_id(p) is not None]
            sides[name] = lint(side, present, per_file).findings
        before = {f.fingerprint for f in sides["base"]}
        found = [f for f in sides["head"] if f.fingerprint not in before]
    out: list[Finding] = []
    checks: list[SharedCheck] = []
    taken: set[int] = set()
    for s in shared:
        mine = [i for i, f in enumerate(found) if i not in taken and f.path in readers[s]]
        taken.update(mine)
        anchor = _anchor(ctx, s)
        out.extend(_on_shared(found[i], s, anchor) for i in mine)
        linted = tuple(sorted(p for p in readers[s] if p in everyone))
        checks.append(SharedCheck(s, tuple(sorted(reach[s])), linted, len(mine), truncated))
    return out, checks


def _route(ctx: Context, path: str) -> str | None:
    return route(path, ctx.config)


def _anchor(ctx: Context, path: str) -> int | None:
    """The first changed head line of the shared file (None: it has none)."""
    change = ctx.change
    f = change.file(path) if change is not None else None
    if f is None or f.binary or f.status == "deleted":
        return None
    if f.status == "added":
        return 1
    if f.added_lines:
        return min(f.added_lines)
    # only removals: the head line where they were
    starts = [h.new_start for h in f.hunks]
    return max(1, min(starts)) if starts else None


def _on_shared(f: Finding, shared: str, line: int | None) -> Finding:
    """An introduced finding, on the shared file's changed line when it has one."""
    if line is None:
        return replace(f, in_diff=None)
    return replace(
        f,
        path=shared,
        span=Span(line),
        message=say(
            "via-shared", message=f.message, recipe=f.path, line=f.span.line, shared=shared
        ),
        subject=f"{f.path}: {f.subject}",
        suggestion=None,
        proposal=None,
        line_text=None,
        in_diff=None,
    )


def _dependents(ctx: Context, shared: str) -> set[str]:
    """The linted recipes the change to `shared` reaches: those that use it (source or
    run it, through other shared files) and those it runs."""
    tree = ctx.change.head if ctx.change is not None else ctx.tree
    graph = _graph(ctx, tree)
    if shared not in graph.forward and ctx.change is not None:
        # deleted on the head: what referred to it on the base
        graph = _graph(ctx, ctx.change.base)
    routed = graph.routed
    out: set[str] = set()
    for edges in (graph.backward, graph.forward):
        seen = {shared}
        frontier = {shared}
        for _ in range(MAX_DEPTH):
            nxt: set[str] = set()
            for node in frontier:
                for other in edges.get(node, ()):
                    if other not in seen:
                        seen.add(other)
                        nxt.add(other)
            out.update(p for p in nxt if p in routed)
            frontier = nxt
            if not frontier:
                break
    return out


def _readers(ctx: Context, shared: str) -> set[str]:
    """The reached recipes whose checks can read `shared`: those that run it (a rule
    follows a script a recipe runs, RCP008) and the model tables it launches (RCP005
    reads the launcher). A recipe rule reads no other file of another kind than the
    ones it is tied to by name or knowledge (siblings, golden curves, master configs,
    the changelog, waivers): a recipe that only sources the file (`source
    benchmark_lib.sh`: the interpreter does not follow it) or that the file runs (a
    runner) lints the same on base and head, so it is not linted twice for nothing."""
    tree = ctx.change.head if ctx.change is not None else ctx.tree
    graph = _graph(ctx, tree)
    if shared not in graph.forward and ctx.change is not None:
        graph = _graph(ctx, ctx.change.base)
    out = {r for r, targets in graph.runs.items() if shared in targets and r in graph.routed}
    out.update(graph.tables.get(shared, ()))
    return out


@dataclass
class _Graph:
    forward: dict[str, set[str]]  # file -> the files it references
    backward: dict[str, set[str]]  # file -> the files that reference it
    routed: frozenset[str]
    runs: dict[str, set[str]]  # file -> the files it runs (not only sources)
    tables: dict[str, set[str]]  # launcher -> the model tables it loads (knowledge)


def _graph(ctx: Context, tree: Tree) -> _Graph:
    """The references between the tree's launch files (shared files and recipes),
    built once per run and tree."""

    def build() -> _Graph:
        shared = ctx.knowledge.shared_launch
        layout = Layout(roots=shared.roots, own_dir=shared.own_dir, top=shared.top or Layout().top)
        globs = shared.paths
        paths = ctx.all_paths(tree)
        routed = frozenset(ctx.recipes(tree))
        nodes = [p for p in paths if p in routed or any(glob_match(p, g) for g in globs)]
        by_name: dict[str, list[str]] = {}
        for p in nodes:
            by_name.setdefault(posixpath.basename(p), []).append(p)
        forward: dict[str, set[str]] = {}
        runs: dict[str, set[str]] = {}
        for node in nodes:
            text = ctx.text(node, tree)
            if text is None or "\x00" in text[:8192]:
                continue
            here = posixpath.dirname(node)
            found = uses(node, text, layout)
            forward[node] = resolve((p for p, _ in found), here, nodes, by_name) - {node}
            ran = [p for p, sourced in found if not sourced]
            if ran:
                runs[node] = resolve(ran, here, nodes, by_name) - {node}
        # a model table's launcher runs it with the table's flags
        tables: dict[str, set[str]] = {}
        for table_path, entry in ctx.knowledge.model_tables.items():
            launcher = entry.launcher
            if launcher and table_path in routed:
                forward.setdefault(launcher, set()).add(table_path)
                tables.setdefault(launcher, set()).add(table_path)
        backward: dict[str, set[str]] = {}
        for src, dsts in forward.items():
            for dst in dsts:
                backward.setdefault(dst, set()).add(src)
        return _Graph(forward, backward, routed, runs, tables)

    return ctx.memo(f"shared-graph:{id(tree)}", build)
