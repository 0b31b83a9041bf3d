"""Benchmark: pull requests that change shared launch code, two builds side by side.

Picks real pull requests of a git repository whose change includes a shared launch
file (`benchmarks/benchmark_lib.sh`, `runners/*.sh`, `*.slurm`, ...), and times
`bot lint --repo DIR --base MB --head PR --format json` for each as a fresh subprocess
with each of the given bot executables, alternating their order PR by PR so both see
the same machine load. Prints per PR the wall time, the files checked and the findings
of each build, then the median time of each build and their ratio.

    python benchmarks/bench_shared_launch.py --repo /work/ix --bots NEW_BOT OLD_BOT --prs 2590-2709
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from fnmatch import fnmatch
from pathlib import Path

SHARED = ("benchmarks/*.sh", "benchmarks/*.slurm", "runners/*.sh")


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    return out.stdout.strip()


def shared_prs(repo: Path, prs: list[int], main: str) -> list[tuple[int, str, str]]:
    out = []
    for pr in prs:
        head = git(repo, "rev-parse", "-q", "--verify", f"refs/pull/{pr}/head")
        if not head:
            continue
        base = git(repo, "merge-base", main, head)
        files = git(repo, "diff", "--name-only", base, head).splitlines()
        routed = ("benchmarks/single_node/", "benchmarks/multi_node/srt-slurm-recipes/")
        if any(any(fnmatch(f, g) for g in SHARED) and not f.startswith(routed) for f in files):
            out.append((pr, base, head))
    return out


def run(bot: str, repo: Path, pr: int, base: str, head: str) -> tuple[float, dict[str, object]]:
    t = time.perf_counter()
    proc = subprocess.run(
        [
            bot,
            "lint",
            "--repo",
            str(repo),
            "--base",
            base,
            "--head",
            head,
            "--pr",
            str(pr),
            "--format",
            "json",
            "--allow-empty",
            "--fail-on",
            "never",
        ],
        capture_output=True,
        text=True,
    )
    dt = time.perf_counter() - t
    try:
        data: dict[str, object] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        data = {"error": proc.stderr[-300:]}
    return dt, data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--main", default="main")
    ap.add_argument("--bots", nargs=2, required=True, metavar=("NEW", "OLD"))
    ap.add_argument("--prs", default="2590-2709")
    ap.add_argument("--limit", type=int, default=12)
    a = ap.parse_args(argv)
    lo, _, hi = a.prs.partition("-")
    numbers = list(range(int(lo), int(hi or lo) + 1))
    picked = shared_prs(a.repo, numbers, a.main)[: a.limit]
    times: dict[str, list[float]] = {b: [] for b in a.bots}
    for i, (pr, base, head) in enumerate(picked):
        order = a.bots if i % 2 == 0 else list(reversed(a.bots))
        row = []
        for bot in order:
            dt, data = run(bot, a.repo, pr, base, head)
            times[bot].append(dt)
            summary = data.get("summary") if isinstance(data, dict) else None
            files = summary.get("files") if isinstance(summary, dict) else "?"
            findings = data.get("findings") if isinstance(data, dict) else None
            row.append(
                f"{Path(bot).parts[-4] if len(Path(bot).parts) > 3 else bot}: "
                f"{dt:5.1f}s files={files} findings={len(findings or [])}"
            )
        print(f"#{pr}: " + " | ".join(row), flush=True)
    new, old = a.bots
    if times[new] and times[old]:
        mn, mo = statistics.median(times[new]), statistics.median(times[old])
        print(f"PRs: {len(picked)}  median new {mn:.2f}s  old {mo:.2f}s  ratio {mn / mo:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
