"""Lint on two cores: one forked worker takes half of the recipes. An edge, not the core.

The engine is pure and single-threaded; this runs it twice over disjoint
shares of the routed paths. The worker is forked after configuration and the
tree are loaded (no interpreter start-up, copy-on-write memory), lints its
share with the per-file rules only, and sends its findings back through a
pipe; the parent lints the rest, runs the whole-change rules, and merges.
Findings are sorted and deduplicated exactly as `lint` does, so the output
is the same, byte for byte, as a single-process run. If the worker fails
for any reason the parent lints its share itself.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Callable
from typing import Any, TypeVar

from bot.core.engine import Context, Report, dedupe, lint, route
from bot.core.model import Finding
from bot.core.reads import Reads
from bot.core.registry import RuleModule, all_rules
from bot.parse.master_launch import master_launches
from bot.parse.recipe import describe_path

R = TypeVar("R")

# below this many routed files a fork costs more than it saves
MIN_FILES = 60


# relative cost per byte (measured on InferenceX): the bash interpreter is about
# six times as slow per byte as the YAML walk; the changelog and master configs,
# with their rules, about three times
_COST = {".sh": 6, ".yaml": 1, ".yml": 1}
_REST_COST = 3


def _share(ctx: Context, paths: list[str]) -> tuple[list[str], list[str]]:
    """(worker's paths, parent's paths): recipes split by estimated cost, the rest stays."""
    recipes: list[str] = []
    rest: list[str] = []
    for p in paths:
        (recipes if route(p, ctx.config) == "recipe" else rest).append(p)

    def cost(p: str) -> int:
        return len(ctx.tree.read(p) or b"") * _COST.get(p[p.rfind(".") :], 3)

    # rules read siblings (same directory; same model and SKU): keep them together
    groups: dict[str, list[str]] = {}
    for p in recipes:
        folder, _, name = p.rpartition("/")
        if p.endswith((".yaml", ".yml")):
            key = folder
        else:  # RCP002 reads spec-decode siblings of the same model and SKU
            parts = describe_path(p)
            key = f"sh:{parts.model or name}:{parts.sku}"
        groups.setdefault(key, []).append(p)
    mine: list[str] = []
    theirs: list[str] = []
    load_mine = sum(len(ctx.tree.read(p) or b"") for p in rest) * _REST_COST
    load_theirs = 0.0
    weighted = [(sum(cost(p) for p in g), k, g) for k, g in groups.items()]
    for weight, _, group in sorted(weighted, key=lambda item: (-item[0], item[1])):
        if load_theirs <= load_mine:
            theirs.extend(group)
            load_theirs += weight
        else:
            mine.extend(group)
            load_mine += weight
    return sorted(theirs), sorted(mine + rest)


def lint_parallel(
    ctx: Context,
    paths: list[str] | None = None,
    rules: list[RuleModule] | None = None,
    workers: int = 2,
) -> Report:
    rules = rules if rules is not None else all_rules()
    selected = sorted(set(paths if paths is not None else ctx.all_paths()))
    routed = [p for p in selected if route(p, ctx.config) is not None]
    if workers < 2 or len(routed) < MIN_FILES or not hasattr(os, "fork"):
        return lint(ctx, paths=selected, rules=rules)
    worker_paths, parent_paths = _share(ctx, routed)
    # a view both processes read (the master configs, parsed, and the recipes their
    # points run): built once here, the worker inherits it with the fork
    master_launches(ctx)
    per_file = [rm for rm in rules if rm.rule.target != "change"]

    def parent() -> Report:
        # paths no parser takes stay with the parent: a changed shared launch file is
        # reviewed through the recipes it reaches (bot.core.shared)
        unrouted = [p for p in selected if route(p, ctx.config) is None]
        return lint(ctx, paths=parent_paths + unrouted, rules=rules)

    forked = _forked(ctx, lambda: _parts(lint(ctx, paths=worker_paths, rules=per_file)), parent)
    if forked is None:
        return lint(ctx, paths=selected, rules=rules)
    mine, got = forked
    if got is None:
        got = _parts(lint(ctx, paths=worker_paths, rules=per_file))
    findings: list[Finding] = [*mine.findings, *got[0]]
    findings.sort(key=Finding.sort_key)
    findings = dedupe(findings)
    return Report(
        findings=findings,
        files=sorted({*mine.files, *got[1]}),
        suppressed=mine.suppressed + got[2],
        silenced=[*mine.silenced, *got[3]],
        suppressions=sorted(
            {(m.path, m.line, m.col): m for m in [*mine.suppressions, *got[4]]}.values(),
            key=lambda m: (m.path, m.line, m.col),
        ),
        shared=[*mine.shared, *got[5]],
    )


def _parts(report: Report) -> tuple[Any, ...]:
    """What a worker hands back (picklable)."""
    return (
        report.findings,
        report.files,
        report.suppressed,
        report.silenced,
        report.suppressions,
        report.shared,
    )


def _forked(
    ctx: Context, worker: Callable[[], object], parent: Callable[[], R]
) -> tuple[R, Any] | None:
    """Run `worker` in a forked process while this one runs `parent`; `parent`'s result
    and `worker`'s (unpickled; None when the worker failed: the caller does its share).
    None when the fork itself fails (nothing ran)."""
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the worker
        code = 0
        try:
            os.close(read_fd)
            _after_fork(ctx)
            data = pickle.dumps(worker())
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_fd)
    mine = parent()
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    got: Any = None
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and data:
        with contextlib.suppress(Exception):
            got = pickle.loads(data)
    return mine, got


def _after_fork(ctx: Context) -> None:
    """Give the worker its own `git cat-file` processes (pipes are not shareable)."""
    for tree in (ctx.tree, ctx.base):
        reset = getattr(tree, "after_fork", None)
        if callable(reset):
            reset()


# --------------------------------------------------------------------------- file by file

FileLint = tuple[Report, Reads]


def lint_each(
    ctx: Context,
    paths: list[str],
    rules: list[RuleModule],
    workers: int = 2,
) -> dict[str, FileLint]:
    """Lint each of `paths` on its own, with what its lint read (a context that tracks
    reads, tree mode: each file's report holds its own findings and suppressions).

    Two cores as `lint_parallel` uses them: one forked worker takes half of the files."""
    routed = [p for p in sorted(set(paths)) if route(p, ctx.config) is not None]
    if workers < 2 or len(routed) < MIN_FILES or not hasattr(os, "fork"):
        return _each(ctx, routed, rules)
    worker_paths, parent_paths = _share(ctx, routed)
    master_launches(ctx)  # built once, inherited by the worker (its reads with it)
    forked = _forked(
        ctx, lambda: _each(ctx, worker_paths, rules), lambda: _each(ctx, parent_paths, rules)
    )
    if forked is None:
        return _each(ctx, routed, rules)
    mine, got = forked
    if not isinstance(got, dict):
        got = _each(ctx, worker_paths, rules)
    return {**mine, **got}


def _each(ctx: Context, paths: list[str], rules: list[RuleModule]) -> dict[str, FileLint]:
    out: dict[str, FileLint] = {}
    for path in paths:
        with ctx.reading() as reads:
            report = lint(ctx, paths=[path], rules=rules)
        out[path] = (report, reads)
    return out
