"""A change to shared launch code, reviewed through the recipes it reaches. Pure.

A pull request that changes `benchmarks/benchmark_lib.sh`, a runner under
`runners/`, `amd_utils/job.slurm` or another file recipes source or run changes
every recipe that uses it, although none of their own lines change. For each such
file the PR changes (`knowledge.shared_launch.paths`, not itself a linted kind, or
a launcher of a model table) this module finds the recipes it reaches
(`bot.parse.deps`: the recipes that source or run it, through up to
`MAX_DEPTH` other shared files, and the recipes it runs), lints them on the PR's
base and on its head with the same rules, and keeps what the change introduces:
the head's findings whose fingerprint the base does not have. Each is reported on
the first changed line of the shared file, naming the recipe and line it holds
on; when the shared file has no changed line on the head (it was deleted), it
stays on the recipe's own line, which the PR does not change (the summary).

The engine calls `review_shared` from `lint` in PR mode; the lint function is
passed in, so this module does not import the engine.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from bot.base.glob import glob_match
from bot.base.span import Span
from bot.base.tree import Tree
from bot.core.model import Finding, T
from bot.parse.deps import Layout, references, resolve

if TYPE_CHECKING:
    from bot.core.context import Context
    from bot.core.registry import RuleModule

# shared files reached through at most this many references (a runner -> submit.sh
# -> job.slurm -> server_sglang.sh)
MAX_DEPTH = 3
# above this many dependents of one change the rest is not linted (and said so)
MAX_DEPENDENTS = 1500

# how an introduced finding reads on the shared file's line
VIA = T(
    en="{message} (in `{recipe}` line {line}, which uses `{shared}`; new with this change)",
    zh="{message}（见 `{recipe}` 第 {line} 行，该文件使用 `{shared}`；由本次修改引入）",
)


@dataclass(frozen=True)
class SharedCheck:
    """One changed shared file: the recipes that use it, linted on base and head."""

    path: str
    dependents: tuple[str, ...]
    introduced: int  # findings the head has and the base does not
    truncated: bool = False  # more than MAX_DEPENDENTS dependents; the rest not linted


LintFn = Callable[["Context", list[str], list["RuleModule"]], Any]


def shared_paths(ctx: Context, selected: Iterable[str]) -> list[str]:
    """The changed files of `selected` that are shared launch code."""
    if ctx.change is None:
        return []
    table = ctx.knowledge.section("shared_launch") or {}
    globs = [str(g) for g in table.get("paths", []) or []]
    launchers = {
        str(entry.get("launcher"))
        for entry in (ctx.knowledge.section("model_tables") or {}).values()
        if isinstance(entry, Mapping) and entry.get("launcher")
    }
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
    from bot.core.context import Context as _Context  # the class itself, at run time

    reach = {s: _dependents(ctx, s) - set(skip) - {s} for s in shared}
    everyone = sorted(set().union(*reach.values()))
    truncated = len(everyone) > MAX_DEPENDENTS
    everyone = everyone[:MAX_DEPENDENTS]
    per_file = [rm for rm in rules if rm.rule.target not in ("change", "suppression")]
    found: list[Finding] = []
    if everyone:
        sides = {}
        for name, tree in (("head", change.head), ("base", change.base)):
            side = _Context.for_tree(
                tree,
                ctx.config,
                review_date=ctx.review_date,
                repository=ctx.repository,
                parsers=ctx.parsers,
                cache=ctx.cache,
            )
            present = [p for p in everyone if tree.blob_id(p) is not None]
            sides[name] = lint(side, present, per_file).findings
        before = {f.fingerprint for f in sides["base"]}
        found = [f for f in sides["head"] if f.fingerprint not in before]
    out: list[Finding] = []
    checks: list[SharedCheck] = []
    taken: set[int] = set()
    for s in shared:
        mine = [i for i, f in enumerate(found) if i not in taken and f.path in reach[s]]
        taken.update(mine)
        anchor = _anchor(ctx, s)
        out.extend(_on_shared(found[i], s, anchor) for i in mine)
        users = tuple(sorted(p for p in reach[s] if p in everyone))
        checks.append(SharedCheck(s, users, len(mine), truncated))
    return out, checks


def _route(ctx: Context, path: str) -> str | None:
    from bot.core.context import route

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
    params = {
        "message": f.message.en,
        "message_zh": f.message.zh,
        "recipe": f.path,
        "line": f.span.line,
        "shared": shared,
    }
    return replace(
        f,
        path=shared,
        span=Span(line),
        message=VIA.format(params),
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


@dataclass
class _Graph:
    forward: dict[str, set[str]]  # file -> the files it references
    backward: dict[str, set[str]]  # file -> the files that reference it
    routed: frozenset[str]


def _graph(ctx: Context, tree: Tree) -> _Graph:
    """The references between the tree's launch files (shared files and recipes),
    built once per run and tree."""

    def build() -> _Graph:
        table = ctx.knowledge.section("shared_launch") or {}
        layout = Layout(
            roots=tuple(str(r) for r in table.get("roots", []) or []),
            own_dir=tuple(str(r) for r in table.get("own_dir", []) or []),
            top=tuple(str(r) for r in table.get("top", []) or []) or Layout().top,
        )
        globs = [str(g) for g in table.get("paths", []) or []]
        paths = ctx.all_paths(tree)
        routed = frozenset(ctx.recipes(tree))
        nodes = [p for p in paths if p in routed or any(glob_match(p, g) for g in globs)]
        by_name: dict[str, list[str]] = {}
        for p in nodes:
            by_name.setdefault(posixpath.basename(p), []).append(p)
        forward: dict[str, set[str]] = {}
        for node in nodes:
            text = ctx.text(node, tree)
            if text is None or "\x00" in text[:8192]:
                continue
            pats = references(node, text, layout)
            forward[node] = resolve(pats, posixpath.dirname(node), nodes, by_name) - {node}
        # a model table's launcher runs it with the table's flags
        for table_path, entry in (ctx.knowledge.section("model_tables") or {}).items():
            if isinstance(entry, Mapping) and entry.get("launcher") and table_path in routed:
                forward.setdefault(str(entry["launcher"]), set()).add(str(table_path))
        backward: dict[str, set[str]] = {}
        for src, dsts in forward.items():
            for dst in dsts:
                backward.setdefault(dst, set()).add(src)
        return _Graph(forward, backward, routed)

    return ctx.memo(f"shared-graph:{id(tree)}", build)
