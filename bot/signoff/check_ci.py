"""Checks 1 and 4 of the sign-off: a commit of the PR has green, executed sweep and
eval check runs (job names read from the base branch's sweep workflow), and an
authorized user posted `/reuse-sweep-run`. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from bot.base.records import dataclass
from bot.core.model import Part, part
from bot.signoff.model import (
    Check,
    CheckRun,
    SignoffFacts,
)
from bot.signoff.rows import (
    at_login,
    make_row,
    same_login,
)
from bot.signoff.settings import Settings


def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if ch == "*" else re.escape(ch) for ch in glob), re.S)


def _name_state(runs: Sequence[CheckRun]) -> str:
    """One check-run name's outcome: success | pending | skipped | <failing conclusion>."""
    if any(r.conclusion == "success" for r in runs):
        return "success"
    if any(r.status != "completed" for r in runs):
        return "pending"
    conclusions = [r.conclusion or "none" for r in runs]
    bad = [c for c in conclusions if c not in ("skipped", "neutral")]
    return bad[0] if bad else "skipped"


@dataclass(frozen=True)
class _Group:
    state: str  # green | failed | pending | skipped | none
    count: int = 0
    culprit: str = ""
    conclusion: str = ""


def _group(runs: Sequence[CheckRun], patterns: Sequence[str]) -> _Group:
    regexes = [_pattern(p) for p in patterns]
    by_name: dict[str, list[CheckRun]] = {}
    for r in runs:
        if any(rx.match(r.name) for rx in regexes):
            by_name.setdefault(r.name, []).append(r)
    if not by_name:
        return _Group("none")
    states = {name: _name_state(rs) for name, rs in sorted(by_name.items())}
    for name, st in states.items():
        if st not in ("success", "pending", "skipped"):
            return _Group("failed", culprit=name, conclusion=st)
    for name, st in states.items():
        if st == "pending":
            return _Group("pending", culprit=name)
    green = sum(1 for st in states.values() if st == "success")
    if not green:
        return _Group("skipped", culprit=next(iter(states)))
    return _Group("green", count=green)


_JOB_NAME = re.compile(r"^\s+name:\s*[\"']?(?P<name>[^\"'\n#]*?\s/)\s*[\"']?\s*(?:#.*)?$", re.M)


def sweep_jobs(workflow: str | None, cfg: Settings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(benchmark, eval) check-run name prefixes: the sweep workflow's job names.

    Every job `name: ... /` of the base branch's workflow (`single-node 1k1k /`,
    `agentic /`, `multi-node 8k1k /`, `eval /`, `multi-node agentic eval /`, ...);
    evals are the names with "eval", `exclude` drops smoke jobs. Without the
    workflow, or when it names none, the knowledge defaults.
    """
    if not workflow:
        return cfg.benchmark_runs, cfg.eval_runs
    excluded = {x.strip().lower() for x in cfg.exclude_runs}
    names: list[str] = []
    for m in _JOB_NAME.finditer(workflow[:500_000]):
        name = " ".join(m.group("name").split())
        if "${{" in name or name.lower() in excluded or name in names:
            continue
        names.append(name)
    bench = tuple(n for n in names if "eval" not in n.lower())
    evals = tuple(n for n in names if "eval" in n.lower())
    if not bench or not evals:
        return cfg.benchmark_runs, cfg.eval_runs
    return bench, evals


def _runs_label(patterns: Sequence[str]) -> Part | str:
    """The first two job names of a kind, and how many more."""
    if not patterns:
        return ""
    if len(patterns) == 1:
        return part("jobs-1", first=patterns[0])
    if len(patterns) == 2:
        return part("jobs-2", first=patterns[0], second=patterns[1])
    return part("jobs-more", first=patterns[0], second=patterns[1], n=len(patterns) - 2)


def ci_row(facts: SignoffFacts, cfg: Settings) -> Check:
    bench_runs, eval_runs = sweep_jobs(facts.sweep_workflow_text, cfg)
    cfg = replace(cfg, benchmark_runs=bench_runs, eval_runs=eval_runs)
    if facts.pr_commits is None:
        return make_row("ci-green", "unknown", "commits-unread")
    if facts.check_runs is None:
        return make_row("ci-green", "unknown", "runs-unread")
    bench_label, eval_label = _runs_label(cfg.benchmark_runs), _runs_label(cfg.eval_runs)
    detail: Part | None = None
    for sha in reversed(facts.pr_commits):
        runs = [r for r in facts.check_runs if r.head_sha == sha]
        bench, evals = _group(runs, cfg.benchmark_runs), _group(runs, cfg.eval_runs)
        if bench.state == "green" and evals.state == "green":
            return make_row(
                "ci-green",
                "pass",
                "green",
                sha_7=sha[:7],
                bench_label=bench_label,
                count=bench.count,
                eval_label=eval_label,
                count_2=evals.count,
            )
        if detail is not None or (bench.state == "none" and evals.state == "none"):
            continue
        for label, g in ((bench_label, bench), (eval_label, evals)):
            if g.state == "failed":
                detail = part("run-failed", sha_7=sha[:7], run=g.culprit, conclusion=g.conclusion)
            elif g.state == "pending":
                detail = part("run-pending", sha_7=sha[:7], run=g.culprit)
            elif g.state == "skipped":
                detail = part("runs-skipped", sha_7=sha[:7], jobs=label)
            elif g.state == "none":
                detail = part("no-run", sha_7=sha[:7], jobs=label)
            if detail is not None:
                break
    if detail is None:
        detail = part("no-runs", bench_label=bench_label, eval_label=eval_label)
    return make_row("ci-green", "fail", "not-green", detail=detail)


# ------------------------------------------------------------------ reuse sweep (check 4)


def reuse_row(facts: SignoffFacts, cfg: Settings) -> Check:
    if facts.reuse_sweeps is None:
        return make_row("reuse-sweep", "unknown", "comments-unread")
    sweeps = [s for s in facts.reuse_sweeps if not same_login(s.author, facts.bot_login)]
    for s in sweeps:
        if s.permission is not None and s.permission.lower() in cfg.write:
            return make_row(
                "reuse-sweep",
                "pass",
                "posted",
                author=at_login(s.author),
                lower=s.permission.lower(),
            )
    unknown = [s.author for s in sweeps if s.permission is None]
    if unknown:
        return make_row("reuse-sweep", "unknown", "permission-unknown", poster=at_login(unknown[0]))
    if sweeps:
        return make_row("reuse-sweep", "fail", "not-authorized", author=at_login(sweeps[0].author))
    return make_row("reuse-sweep", "fail", "none")
