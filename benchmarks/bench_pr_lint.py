"""Benchmark: a typical small PR through `bot lint --repo DIR --base MB --head PR`, cold,
and the service's review of it with and without a warm base cache.

Picks the newest pull requests of a git repository that change exactly
`--files` files (default 3), at least one of them a recipe, and times
`bot lint` on each as a fresh subprocess (interpreter start-up included),
head against its merge-base with `--main`. Prints the median, min and max
wall time, and the findings of each run.

Then the service's lint of each pull request (`bot.app.pull.lint_pull`, what the
review pipeline, the sign-off gate and the advisor run, over the local-git
gateway: trees that know each file's blob SHA, as GitHub's do), in one process,
CPU time per review: with a fresh parse cache (a service that never saw the base),
and with the service's cache (`service_parses()`) warm with the base (every file of
the merge-base parsed by an earlier run), so only what the PR changed is parsed.
The findings of both must be the same.

    python benchmarks/bench_pr_lint.py --repo /path/to/InferenceX-clone --prs 10
    python benchmarks/bench_pr_lint.py --repo CLONE --prs 6 --before DIR --no-service

`--before DIR` (another build's source tree, e.g. `git archive <commit>` extracted)
also runs that build's command on each pull request, right after this build's
(`--repeat N`: N such pairs per pull request), from DIR alone (`other_build.py`),
and prints both medians, CPU and wall, and the per-pair ratios; the two builds'
outputs must be the same.

The repository needs `refs/pull/<N>/head` refs (a GitHub mirror has them).
"""

from __future__ import annotations

import argparse
import json
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
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--main", default="main")
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--prs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=1, help="service reviews of each PR")
    ap.add_argument(
        "--no-service", action="store_true", help="time the CLI only, not the service's lint"
    )
    ap.add_argument(
        "--no-bytecode",
        dest="bytecode",
        action="store_false",
        help="do not compile the project's modules first: every run compiles them "
        "(PYTHONDONTWRITEBYTECODE=1 makes every run compile ~80 modules), unlike an "
        "installed package",
    )
    ap.add_argument(
        "--before",
        type=Path,
        default=None,
        help="source tree of another build: also time its command on each PR, alternating",
    )
    ap.add_argument("--repeat", type=int, default=1, help="runs of each PR (with --before: pairs)")
    args = ap.parse_args(argv)
    before: Path | None = args.before.resolve() if args.before is not None else None
    if before is not None and not (before / "bot" / "cli" / "__main__.py").is_file():
        print(f"bench_pr_lint: no bot/cli/__main__.py under {before}", file=sys.stderr)
        return 2
    env = dict(os.environ)
    if args.bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for root in (PROJECT_ROOT, before):
            if root is not None:
                subprocess.run(
                    [sys.executable, "-m", "compileall", "-q", "bot", "rules"],
                    cwd=root,
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
    walls: list[float] = []
    cpus: list[float] = []
    old_walls: list[float] = []
    old_cpus: list[float] = []
    for n, base, head in picked:
        lint = ["lint", "--repo", str(args.repo)]
        lint += ["--base", base, "--head", head, "--pr", str(n), "--format", "json"]
        cmd = [sys.executable, "-c", "from bot.cli import main; raise SystemExit(main())", *lint]
        for _ in range(max(1, args.repeat)):
            proc, wall, cpu = _timed(cmd, env)
            walls.append(wall)
            cpus.append(cpu)
            try:
                count = len(json.loads(proc.stdout)["findings"])
            except (ValueError, KeyError):
                count = -1
            line = f"  #{n}: {wall * 1000:7.1f} ms  exit {proc.returncode}  findings {count}"
            if before is not None:
                old_cmd, old_env = other_build.command(before, lint)
                old, old_wall, old_cpu = _timed(old_cmd, old_env)
                old_walls.append(old_wall)
                old_cpus.append(old_cpu)
                if old.stdout != proc.stdout or old.returncode != proc.returncode:
                    sys.stderr.write(old.stderr)
                    raise SystemExit(f"bench_pr_lint: #{n}: the two builds' outputs differ")
                line += f"; before {old_wall * 1000:7.1f} ms, same output"
            print(line)
    print(
        f"{len(walls)} runs of {len(picked)} PRs changing {args.files} files: median "
        f"{statistics.median(walls) * 1000:.1f} ms, min {min(walls) * 1000:.1f} ms, "
        f"max {max(walls) * 1000:.1f} ms; CPU median {statistics.median(cpus) * 1000:.1f} ms; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    if before is not None:
        wall_ratio = [a / b for a, b in zip(walls, old_walls, strict=True)]
        cpu_ratio = [a / b for a, b in zip(cpus, old_cpus, strict=True)]
        print(
            f"before ({before}): wall median {statistics.median(old_walls) * 1000:.1f} ms, "
            f"CPU median {statistics.median(old_cpus) * 1000:.1f} ms\n"
            f"this build / before, per pair: wall median {statistics.median(wall_ratio):.3f} "
            f"(min {min(wall_ratio):.3f}, max {max(wall_ratio):.3f}), CPU median "
            f"{statistics.median(cpu_ratio):.3f} (min {min(cpu_ratio):.3f}, "
            f"max {max(cpu_ratio):.3f})"
        )
    if not args.no_service:
        service(args.repo, picked, args.rounds)
    return 0


def _timed(
    cmd: list[str], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """The finished child, its wall time and its CPU time (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=PROJECT_ROOT, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, wall, cpu


# The service's side, in a child process (imports paid once, outside the timing).
SERVICE = r"""
import datetime, json, statistics, sys, time
from bot.app import LintOptions, lint_tree
from bot.app.config import load_repo_config
from bot.app.pull import lint_pull, service_parses
from bot.github.localgit import LocalGitGateway
from bot.github.types import PullInfo
from bot.sources import GitTree, merge_base

repo, rounds, picked = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
today = datetime.date(2026, 9, 1)
REPO = "SemiAnalysisAI/InferenceX"
pulls = {n: PullInfo(REPO, n, head, base, "main", f"pr-{n}", "author") for n, base, head in picked}
gw = LocalGitGateway(repo, pulls)
cold, warm, warm_parsed, cold_parsed, base_prime = [], [], [], [], []

def findings(outcome):
    return [(f.rule, f.path, f.span.line, f.message.en) for f in outcome.report.findings]

for _ in range(rounds):
    for n, base, head in picked:
        pull = pulls[n]
        files = gw.pull_files(REPO, n)
        fresh = service_parses()
        start = time.process_time()
        got_cold = lint_pull(gw, pull, files, today, fresh)
        cold.append(time.process_time() - start)
        cold_parsed.append(fresh.misses)
        # the service saw this base before: its files are parsed, by blob SHA
        shared = service_parses()
        tree = GitTree(repo, merge_base(repo, base, head))
        start = time.process_time()
        lint_tree(tree, config=load_repo_config(tree), options=LintOptions(cache=shared, workers=1, review_date=today))
        base_prime.append(time.process_time() - start)
        tree.close()
        before = shared.misses
        start = time.process_time()
        got_warm = lint_pull(gw, pull, files, today, shared)
        warm.append(time.process_time() - start)
        warm_parsed.append(shared.misses - before)
        if findings(got_cold) != findings(got_warm):
            raise SystemExit(f"#{n}: findings differ with the warm cache")
gw.close()
print(json.dumps({"cold": cold, "warm": warm, "cold_parsed": cold_parsed,
                  "warm_parsed": warm_parsed, "base_prime": base_prime}))
"""


def service(repo: Path, picked: list[tuple[int, str, str]], rounds: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SERVICE, str(repo), str(rounds), json.dumps(picked)],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit("bench_pr_lint: the service run failed")
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    cold, warm = got["cold"], got["warm"]
    ratio = statistics.median(w / c for w, c in zip(warm, cold, strict=True))
    print(
        f"service lint per review (CPU, {len(cold)} reviews of {len(picked)} PRs, one process): "
        f"cold base median {statistics.median(cold) * 1000:.1f} ms "
        f"(max {max(cold) * 1000:.1f}), {statistics.median(got['cold_parsed']):.0f} files parsed; "
        f"warm base median {statistics.median(warm) * 1000:.1f} ms "
        f"(max {max(warm) * 1000:.1f}), {statistics.median(got['warm_parsed']):.0f} files parsed; "
        f"warm/cold {ratio:.2f}; findings identical"
    )
    print(
        f"  (the base, primed once per review: median {statistics.median(got['base_prime']):.2f} s "
        "CPU for a whole-tree lint of the merge-base)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
