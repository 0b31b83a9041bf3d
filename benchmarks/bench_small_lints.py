"""Benchmark: the small lints users run most, this build against another, in alternation.

Two commands, each as a fresh process (interpreter start-up and imports included),
with `--no-cache`:

- one recipe: `bot lint RECIPE` inside a checkout of the target repository (what a
  pre-commit hook runs on a commit that touches one script);
- one pull request: `bot lint --repo CLONE --base MERGE-BASE --head PR --pr N`.

Each round runs this build, then the other (`--before DIR`: another build's source
tree, put first on `PYTHONPATH`, with the same interpreter and libraries), so both
see the same load. Prints CPU (user + system of the child) and wall medians per
build and the per-round ratio; each command's output must be the same from both
builds. Both builds' modules are compiled first, as an installed package has them.

    python benchmarks/bench_small_lints.py --tree /path/to/InferenceX-checkout \\
        --recipe benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh \\
        --repo /path/to/InferenceX-clone --pr 2707 --before /path/to/other-build --rounds 9
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import other_build  # noqa: E402


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bench_small_lints: git {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout.strip()


def timed(build: Path, argv: list[str], cwd: Path) -> tuple[float, float, str]:
    """(CPU, wall, stdout) of `bot ARGV` run from `build`'s source."""
    # the build's `bot`, `rules/` and `schemas/` (not an editable install's)
    cmd, env = other_build.command(build, argv)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"bench_small_lints: {build}: exit {proc.returncode}\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, required=True, help="a checkout of the target repository")
    ap.add_argument("--recipe", required=True, help="a recipe's path inside --tree")
    ap.add_argument("--repo", type=Path, required=True, help="a clone with refs/pull/N/head")
    ap.add_argument("--pr", type=int, required=True)
    ap.add_argument("--main", default="main")
    ap.add_argument("--before", type=Path, required=True, help="another build's source tree")
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args(argv)

    builds = {"this build": PROJECT_ROOT, str(args.before): args.before.resolve()}
    for root in builds.values():
        for package in ("bot", "rules"):
            compileall.compile_dir(str(root / package), quiet=1)
    head = git(args.repo, "rev-parse", f"refs/pull/{args.pr}/head")
    base = git(args.repo, "merge-base", args.main, head)
    cases = {
        "one recipe": (
            ["lint", args.recipe, "--no-cache", "--format", "json"],
            args.tree,
        ),
        f"PR #{args.pr}": (
            [
                *("lint", "--repo", str(args.repo), "--base", base, "--head", head),
                *("--pr", str(args.pr), "--format", "json", "--no-cache"),
            ],
            PROJECT_ROOT,
        ),
    }
    print(f"load average {os.getloadavg()[0]:.2f}; {args.rounds} rounds")
    for name, (cmd, cwd) in cases.items():
        cpu: dict[str, list[float]] = {b: [] for b in builds}
        wall: dict[str, list[float]] = {b: [] for b in builds}
        ratios: list[float] = []
        outputs: set[str] = set()
        for _ in range(args.rounds):
            got = {}
            for label, root in builds.items():
                c, w, out = timed(root, cmd, cwd)
                cpu[label].append(c)
                wall[label].append(w)
                outputs.add(out)
                got[label] = c
            mine, other = got.values()
            ratios.append(mine / other if other else float("nan"))
        same = "same output" if len(outputs) == 1 else "OUTPUTS DIFFER"
        print(f"{name}: {same}")
        for label in builds:
            print(
                f"  {label}: CPU median {statistics.median(cpu[label]) * 1000:.0f} ms "
                f"(min {min(cpu[label]) * 1000:.0f}), wall median "
                f"{statistics.median(wall[label]) * 1000:.0f} ms"
            )
        print(f"  this build / other, CPU, per round: median {statistics.median(ratios):.3f}")
        if len(outputs) != 1:
            return 1
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
