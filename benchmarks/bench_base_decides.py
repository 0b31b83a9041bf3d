"""Benchmark: what judging a PR by its base costs, two builds side by side.

For each pull request, times `bot lint --repo R --base MB --head PR` (a fresh process,
head against its merge-base with `--main`) with each of two `bot` executables, the
runs alternating so that both see the same machine load. Prints per PR the median wall
time of each build, their ratio and the error counts, then the median ratio.

    python benchmarks/bench_base_decides.py --repo /path/to/InferenceX-mirror \\
        --old /path/to/old/.venv/bin/bot --new .venv/bin/bot --prs 1895,2002,2114 --reps 5

The repository needs `refs/pull/<N>/head` refs (a GitHub mirror has them). A PR whose
master configs break a schema constraint pays for one lint of the base's master configs
(the ratchet of `bot/core/practice.py`); every other PR pays nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True
    ).stdout.strip()


def run(bot: str, repo: Path, pr: int, base: str, head: str, date: str) -> tuple[float, int]:
    argv = [bot, "lint", "--repo", str(repo), "--base", base, "--head", head, "--pr", str(pr)]
    argv += ["--date", date, "--format", "json", "--allow-empty", "--fail-on", "never"]
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    errors = json.loads(out.stdout)["summary"]["error"] if out.returncode == 0 else -1
    return elapsed, errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--main", default="main")
    ap.add_argument("--old", required=True, help="the `bot` executable to compare with")
    ap.add_argument("--new", required=True, help="the `bot` executable measured")
    ap.add_argument("--prs", required=True, help="comma-separated PR numbers")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    ratios = []
    print(f"{'PR':>6} {'old s':>7} {'new s':>7} {'ratio':>6} {'errors old/new':>15}")
    for pr in (int(x) for x in a.prs.split(",")):
        head = git(a.repo, "rev-parse", f"refs/pull/{pr}/head")
        if not head:
            continue
        base = git(a.repo, "merge-base", a.main, head)
        date = git(a.repo, "show", "-s", "--format=%cs", head)
        times: dict[str, list[float]] = {"old": [], "new": []}
        errors: dict[str, int] = {}
        for _ in range(a.reps):
            for name, bot in (("old", a.old), ("new", a.new)):
                t, e = run(bot, a.repo, pr, base, head, date)
                times[name].append(t)
                errors[name] = e
        old, new = statistics.median(times["old"]), statistics.median(times["new"])
        ratios.append(new / old)
        print(f"{pr:>6} {old:7.2f} {new:7.2f} {new / old:6.2f} {errors['old']:>7}/{errors['new']}")
    if ratios:
        print(f"median ratio new/old: {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
