"""Plan the PRs, lint what the store does not hold yet, in a process pool. An edge.

Memory stays bounded whatever the history's size: tasks are handed to the
pool a few at a time, each worker process is replaced after a number of
tasks, and results go to SQLite as they arrive; the report reads them back.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import importlib.util
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, TextIO

from bot import __version__
from bot.backtest import worker
from bot.backtest.history import MainLine, Pull, PullPlan, commit_dates, plan_pull
from bot.backtest.store import LintResult, Store
from bot.base.records import dataclass

# commits of one PR handed to a worker at once (a long PR is split so the cores stay busy)
CHUNK = 8
# tasks a worker process serves before it is replaced (bounds what a long run accumulates)
TASKS_PER_CHILD = 64

# the code whose change makes stored results stale
_ENGINE_PACKAGES = (
    "bot.base",
    "bot.core",
    "bot.parse",
    "bot.knowledge",
    "bot.rules",
    "bot.schemas",
)
# how a commit is read and linted: the application layer's change, git objects, the worker
_LINT_MODULES = (
    "bot.app.config",
    "bot.app.lint",
    "bot.app.local",
    "bot.sources",
    "bot.backtest.worker",
)


def engine_fingerprint() -> str:
    """A hash of the rules, parsers, engine and knowledge this process runs."""
    digest = hashlib.sha256(__version__.encode())
    files: list[Path] = []
    for name in _ENGINE_PACKAGES:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            files.extend(
                p for p in Path(folder).rglob("*") if p.suffix in (".py", ".yaml", ".json")
            )
    for name in _LINT_MODULES:
        module = importlib.util.find_spec(name)
        if module and module.origin:
            files.append(Path(module.origin))
    for path in sorted(set(files)):
        if "__pycache__" in path.parts:
            continue
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def settings_key(
    engine: str, rules: Sequence[str] | None, config: str | None, repository: str | None
) -> tuple[str, dict[str, Any]]:
    """The key results are stored under, and what it stands for."""
    description = {
        "engine": engine,
        "bot": __version__,
        "rules": sorted(rules) if rules is not None else "ALL",
        "config": config,
        "repository": repository,
    }
    raw = repr(sorted(description.items())).encode()
    return hashlib.sha256(raw).hexdigest()[:16], description


@dataclass
class RunStats:
    pulls: int = 0
    linted: int = 0  # commits linted by this run
    reused: int = 0  # commits whose stored result was reused
    missing: int = 0  # commits of this run whose objects were missing
    errors: int = 0
    seconds: float = 0.0
    planned: list[PullPlan] = field(default_factory=list)


def plan_all(
    store: Store, main: MainLine, pulls: Sequence[Pull], with_commits: bool
) -> list[PullPlan]:
    """Each PR's plan, from the store while its head and the branch tip are unchanged."""
    plans = []
    for pull in pulls:
        plan = store.plan(pull.number, pull.head, main.tip)
        if plan is None or (with_commits and plan.commits is None and plan.problem is None):
            # a PR once listed with its commits keeps them listed (its stored results need them)
            listed = with_commits or store.had_commits(pull.number, pull.head)
            plan = plan_pull(main, pull, listed)
            store.save_plan(plan, main.tip)
        plans.append(plan)
    store.commit()
    return plans


def _tasks(
    store: Store,
    key: str,
    repo: str,
    plans: Sequence[PullPlan],
    with_commits: bool,
    make: Callable[..., worker.Task],
) -> tuple[list[worker.Task], int, list[LintResult]]:
    """(tasks, reused results, results recorded without linting: commits without a merge-base
    and PRs that cannot be planned)."""
    tasks: list[worker.Task] = []
    reused = 0
    unplanned: list[LintResult] = []
    todo: list[tuple[PullPlan, list[tuple[str, str]]]] = []
    for plan in plans:
        done = store.done(key, plan.number)
        steps = plan.steps() if with_commits else ((plan.head, plan.base),)
        left: list[tuple[str, str]] = []
        for sha, base in steps:
            if (sha, base or "") in done:
                reused += 1
            elif base is None:
                why = plan.problem or f"no merge-base of {sha[:12]} with the base branch"
                unplanned.append(
                    LintResult(
                        plan.number, sha, "", plan.date.isoformat(), "missing", why, 0.0, 0, {}, ()
                    )
                )
            else:
                left.append((sha, base))
        if left:
            todo.append((plan, left))
    wanted = {sha for _, left in todo for sha, _ in left}
    dates = commit_dates(repo, wanted) if wanted else {}
    for plan, left in todo:
        for i in range(0, len(left), CHUNK):
            commits = tuple(
                (sha, base, (dates.get(sha) or plan.date).isoformat())
                for sha, base in left[i : i + CHUNK]
            )
            tasks.append(make(pr=plan.number, commits=commits))
    return tasks, reused, unplanned


def _pool(jobs: int) -> cf.Executor:
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(["bot.backtest.worker"])
    return cf.ProcessPoolExecutor(
        max_workers=jobs, mp_context=ctx, max_tasks_per_child=TASKS_PER_CHILD
    )


def _results(tasks: Sequence[worker.Task], jobs: int) -> Iterator[list[LintResult]]:
    if jobs <= 1:
        for task in tasks:
            yield worker.run_task(task)
        return
    with _pool(jobs) as pool:
        pending: set[cf.Future[list[LintResult]]] = set()
        queue = iter(tasks)
        for task in queue:
            pending.add(pool.submit(worker.run_task, task))
            if len(pending) >= 2 * jobs:
                break
        while pending:
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                yield fut.result()
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(worker.run_task, nxt))


def _progress(total: int, enabled: bool, stream: TextIO) -> Any:
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread in a process that forks a pool
    return tqdm(
        total=total,
        unit="commit",
        disable=not enabled,
        file=stream,
        dynamic_ncols=True,
        desc="backtest",
    )


def run(
    store: Store,
    key: str,
    repo: str,
    plans: Sequence[PullPlan],
    *,
    with_commits: bool,
    jobs: int,
    config: str | None,
    rules: Sequence[str] | None,
    repository: str | None,
    progress: bool,
    err: TextIO = sys.stderr,
) -> RunStats:
    """Lint every commit the plans name that the store lacks; store each result."""
    start = time.perf_counter()

    def make(**kw: Any) -> worker.Task:
        return worker.Task(
            repo=repo,
            config=config,
            rules=tuple(rules) if rules is not None else None,
            repository=repository,
            **kw,
        )

    tasks, reused, unplanned = _tasks(store, key, repo, plans, with_commits, make)
    stats = RunStats(pulls=len(plans), reused=reused, planned=list(plans))
    store.save(key, unplanned)
    stats.missing += len(unplanned)
    total = sum(len(t.commits) for t in tasks)
    bar = _progress(total, progress and total > 0, err)
    try:
        for results in _results(tasks, max(1, jobs)):
            store.save(key, results)
            stats.linted += len(results)
            stats.missing += sum(r.status == "missing" for r in results)
            stats.errors += sum(r.status == "error" for r in results)
            bar.update(len(results))
    finally:
        bar.close()
    stats.seconds = time.perf_counter() - start
    return stats


def default_jobs() -> int:
    return max(
        1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
