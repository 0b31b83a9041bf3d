"""Benchmark: a typical small PR through `bot lint --repo DIR --base MB --head PR`, cold.

Picks the newest pull requests of a git repository that change exactly
`--files` files (default 3), at least one of them a recipe, and times
`bot lint` on each as a fresh subprocess (interpreter start-up included),
head against its merge-base with `--main`. Prints the median, min and max
wall time, and the findings of each run.

    python benchmarks/bench_pr_lint.py --repo /path/to/InferenceX-clone --prs 10

The repository needs `refs/pull/<N>/head` refs (a GitHub mirror has them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--main", default="main")
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--prs", type=int, default=10)
    ap.add_argument(
        "--bytecode",
        action="store_true",
        help="compile the project's modules first and let the children read the bytecode "
        "cache, as an installed package does (PYTHONDONTWRITEBYTECODE=1 otherwise makes every "
        "run compile ~80 modules again)",
    )
    args = ap.parse_args(argv)
    env = dict(os.environ)
    if args.bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "bot", "rules"],
            cwd=PROJECT_ROOT,
            env=env,
            check=True,
        )
    cached = "yes" if "PYTHONDONTWRITEBYTECODE" not in env else "no (PYTHONDONTWRITEBYTECODE)"
    print(f"bytecode cache: {cached}; load average {os.getloadavg()[0]:.2f}")
    refs = git(args.repo, "for-each-ref", "--format=%(refname)", "refs/pull/*/head").split()
    numbers = sorted((int(r.split("/")[2]) for r in refs if r.count("/") == 3), reverse=True)
    main_sha = git(args.repo, "rev-parse", args.main)
    picked: list[tuple[int, str, str]] = []
    for n in numbers:
        head = git(args.repo, "rev-parse", f"refs/pull/{n}/head")
        base = git(args.repo, "merge-base", main_sha, head)
        if not base:
            continue
        names = [x for x in git(args.repo, "diff", "--name-only", base, head).split("\n") if x]
        if len(names) == args.files and any(
            x.startswith("benchmarks/") and x.endswith((".sh", ".yaml")) for x in names
        ):
            picked.append((n, base, head))
        if len(picked) >= args.prs:
            break
    if not picked:
        print("bench_pr_lint: no matching pull request found", file=sys.stderr)
        return 2
    walls = []
    for n, base, head in picked:
        cmd = [sys.executable, "-c", "from bot.cli import main; raise SystemExit(main())"]
        cmd += ["lint", "--repo", str(args.repo)]
        cmd += ["--base", base, "--head", head, "--pr", str(n), "--format", "json"]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=PROJECT_ROOT, env=env)
        wall = time.perf_counter() - start
        walls.append(wall)
        try:
            count = len(json.loads(proc.stdout)["findings"])
        except (ValueError, KeyError):
            count = -1
        print(f"  #{n}: {wall * 1000:7.1f} ms  exit {proc.returncode}  findings {count}")
    print(
        f"{len(walls)} PRs changing {args.files} files: median "
        f"{statistics.median(walls) * 1000:.1f} ms, min {min(walls) * 1000:.1f} ms, "
        f"max {max(walls) * 1000:.1f} ms; load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
