"""Per-PR cost of `bot backtest` against a hand-written sweep (`bot lint` once per PR).

usage: bench_backtest.py --repo MIRROR --prs 2680-2709 [--base main] [--github-repo O/N]

For each PR head, in alternation on one core: (a) `bot lint --repo MIRROR --base MERGE_BASE
--head HEAD --pr N --date D --format json` in a new process, as a sweep script does; (b) the
backtest worker's lint in this process (`bot.backtest.worker.lint_commit`: `bot.app`'s
`open_local_change` within one `LocalRepository`, so one `git cat-file` process, and
`lint_change`; rules and knowledge loaded once, as a backtest worker runs). Prints the median
and p90 of each, their ratio, and whether both give the same findings (fingerprints) for
every PR.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bot.app.local import LocalRepository
from bot.backtest.history import MainLine, list_pulls, parse_numbers, plan_pull, select_pulls
from bot.backtest.worker import lint_commit
from bot.core.registry import all_rules


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--prs", required=True)
    ap.add_argument("--base", default="main")
    ap.add_argument("--github-repo", default=None)
    a = ap.parse_args()
    bot = shutil.which("bot") or str(Path(sys.executable).with_name("bot"))
    main_line = MainLine(a.repo, a.base)
    pulls = select_pulls(list_pulls(a.repo), parse_numbers(a.prs))
    repository = LocalRepository(a.repo)
    rules = all_rules()
    sub: list[float] = []
    inproc: list[float] = []
    same = 0
    for pull in pulls:
        plan = plan_pull(main_line, pull, False)
        if plan.base is None:
            continue
        cmd = [
            bot,
            "lint",
            "--repo",
            a.repo,
            "--base",
            plan.base,
            "--head",
            plan.head,
            "--pr",
            str(plan.number),
            "--date",
            plan.date.isoformat(),
            "--format",
            "json",
            "--allow-empty",
            "--fail-on",
            "never",
        ]
        if a.github_repo:
            cmd += ["--github-repo", a.github_repo]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        sub.append(time.perf_counter() - start)
        if proc.returncode != 0:
            print(f"#{plan.number}: bot lint exit {proc.returncode}: {proc.stderr.strip()[:200]}")
            continue
        theirs = sorted(f["fingerprint"] for f in json.loads(proc.stdout)["findings"])
        start = time.perf_counter()
        report = lint_commit(
            repository,
            plan.base,
            plan.head,
            pr=plan.number,
            date=plan.date,
            config=None,
            rules=rules,
            repository=a.github_repo,
        )
        inproc.append(time.perf_counter() - start)
        same += sorted(f.fingerprint for f in report.findings) == theirs
    repository.close()

    def p90(xs: list[float]) -> float:
        return sorted(xs)[min(len(xs) - 1, int(0.9 * len(xs)))]

    print(f"PR heads: {len(inproc)}; same findings: {same}/{len(inproc)}")
    print(
        f"bot lint per PR (new process):   median {statistics.median(sub):.3f} s, p90 {p90(sub):.3f} s"
    )
    print(
        f"backtest per PR (lint_commit):    median {statistics.median(inproc):.3f} s, p90 {p90(inproc):.3f} s"
    )
    print(f"ratio of medians: {statistics.median(sub) / statistics.median(inproc):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
