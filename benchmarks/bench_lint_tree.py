"""Benchmark: lint a whole InferenceX-shaped tree, cold, as `bot lint --repo DIR` does, and
compare it with the parse limit.

Every run is a fresh Python subprocess (new interpreter, empty parse cache). Each round
runs, one after the other: the real command, cold (`bot lint --repo DIR --format json
--no-cache`, its process wall and CPU time), the parse limit (`parse_limit.py`: the same routed files read
and parsed with the same libraries on the same two cores, nothing else), and a child that
times imports and lint inside the process (the clock starts before the first `bot` import
and stops when `lint_parallel()` returns). The ratio to the parse limit is taken per
round, so a busy moment on the shared machine slows both sides of one ratio. The parse
limit's two shares are balanced by each file's parse time, measured once first. One
extra, instrumented run times parse and rules per file and lists the slowest files.

Then the warm cache (`bot.app.cache`): one `bot lint --repo DIR` fills a fresh cache
directory, and `--runs` more runs of the same command on the unchanged tree are timed
(their output must be the cold run's, byte for byte). Peak memory is the larger
process's resident set (`bot lint` forks one worker), from the in-process children.

The project's modules are compiled first and read from the bytecode cache, as an
installed package reads them (the parse limit's libraries are read from theirs);
`--no-bytecode` compiles them in every run instead.

    python benchmarks/bench_lint_tree.py                 # ../ix, 7 rounds
    python benchmarks/bench_lint_tree.py --repo /path/to/InferenceX --runs 3
    python benchmarks/bench_lint_tree.py --json          # machine-readable figures
    python benchmarks/bench_lint_tree.py --before DIR    # and another build, side by side

`--before DIR` takes the source tree of another build of the project (e.g. `git archive
COMMIT | tar -x -C DIR`): each round also runs the same cold command from it
(`python -m bot.cli` with `PYTHONPATH=DIR`, this interpreter and its libraries), right after
this build's, and the ratios to it are taken per round.

The repository defaults to `$INFERENCEX_DIR`, else `../ix` next to the project. For the
time of each stage (parse, interpret, join, rules, render) see `profile_lint_tree.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import other_build  # noqa: E402

PARSE_LIMIT = Path(__file__).resolve().with_name("parse_limit.py")

# The child: argv[1] is the repository, argv[2] "plain" or "instrumented".
# It prints one JSON object on its last stdout line.
CHILD = r"""
import sys, time
t0 = time.perf_counter()
import json
from collections import Counter, defaultdict

from bot.app.config import load_repo_config
from bot.app.local import open_checkout
from bot.core import engine
from bot.core.engine import Context, lint

t_imported = time.perf_counter()
repo, mode = sys.argv[1], sys.argv[2]
parse_s = defaultdict(float)
rules_s = defaultdict(float)
other_parse = defaultdict(float)
if mode == "instrumented":
    pending = [0.0]  # parse time spent inside the rule currently running
    orig_run = engine._run
    from bot.parse.kinds import PARSERS

    def timed(kind, parse):
        def run(p, text, opts):
            s = time.perf_counter()
            try:
                return parse(p, text, opts)
            finally:
                dt = time.perf_counter() - s
                pending[0] += dt
                if kind in ("recipe", "changelog"):
                    parse_s[p] += dt
                else:
                    other_parse[kind] += dt

        return run

    # the context receives the parser table: hand it timed parsers
    timed_parsers = {kind: timed(kind, parse) for kind, parse in PARSERS.items()}

    def timed_run(rm, parsed, ctx):
        path = getattr(parsed, "path", "?")
        gen = orig_run(rm, parsed, ctx)
        while True:
            before = pending[0]
            s = time.perf_counter()
            try:
                item = next(gen)
            except StopIteration:
                rules_s[path] += time.perf_counter() - s - (pending[0] - before)
                return
            rules_s[path] += time.perf_counter() - s - (pending[0] - before)
            yield item

    engine._run = timed_run

checkout = open_checkout(repo)
config = load_repo_config(checkout.tree)
if mode == "instrumented":
    ctx = Context.for_tree(checkout.tree, config, parsers=timed_parsers)
else:
    ctx = Context.for_tree(checkout.tree, config)
if mode == "instrumented":  # per-file timings need one process
    report = lint(ctx)
else:  # as `bot lint` runs: two cores
    from bot.parallel import lint_parallel

    report = lint_parallel(ctx)
t_end = time.perf_counter()
checkout.close()
import resource

peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
out = {
    "peak_rss_kib": max(peak, peak_children),
    "import_s": t_imported - t0,
    "lint_s": t_end - t_imported,
    "inprocess_s": t_end - t0,
    "files": len(report.files),
    "findings": len(report.findings),
    "by_rule": dict(sorted(Counter(f.rule for f in report.findings).items())),
}
if mode == "instrumented":
    out["per_file"] = {
        p: {"parse_s": parse_s.get(p, 0.0), "rules_s": rules_s.get(p, 0.0)}
        for p in report.files
    }
    out["other_parse_s"] = dict(other_parse)
print(json.dumps(out))
"""


def default_repo() -> Path:
    env = os.environ.get("INFERENCEX_DIR")
    return Path(env) if env else (PROJECT_ROOT.parent / "ix")


CHILD_ENV = dict(os.environ)


def run_child(repo: Path, mode: str) -> tuple[dict[str, Any], float]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(repo), mode],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        check=False,
        env=CHILD_ENV,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"bench_lint_tree: child exited with status {proc.returncode}")
    lines = proc.stdout.strip().splitlines()
    if not lines:
        sys.stderr.write(proc.stderr)
        raise SystemExit("bench_lint_tree: child printed nothing")
    return json.loads(lines[-1]), wall


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(
    cmd: list[str], env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """`cmd` as a child process: the result, its wall time and the CPU time of its process
    tree (children it waited for included)."""
    cpu0 = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, capture_output=True, text=True, cwd=PROJECT_ROOT, check=False, env=env or CHILD_ENV
    )
    wall = time.perf_counter() - start
    return proc, wall, _children_cpu() - cpu0


def routed_paths(repo: Path) -> list[str]:
    """The paths `bot lint --repo` lints (every path of the tree the configuration routes)."""
    sys.path.insert(0, str(PROJECT_ROOT))
    from bot.app.config import load_repo_config
    from bot.app.local import open_checkout
    from bot.core.engine import Context, route

    checkout = open_checkout(str(repo))
    config = load_repo_config(checkout.tree)
    ctx = Context.for_tree(checkout.tree, config)
    return [p for p in sorted(ctx.all_paths()) if route(p, config) is not None]


def limit_plan(repo: Path, paths: list[str]) -> dict[str, Any]:
    """The parse limit's two shares, balanced by each file's parse time (the least of two
    passes, in this process): the longest first, each to the lighter share."""
    sys.path.insert(0, str(PARSE_LIMIT.parent))
    from parse_limit import parse_share

    cost: dict[str, float] = {}
    for _ in range(2):
        for p in paths:
            start = time.perf_counter()
            parse_share(str(repo), [p])
            took = time.perf_counter() - start
            cost[p] = min(took, cost.get(p, took))
    shares: list[list[str]] = [[], []]
    load = [0.0, 0.0]
    for p in sorted(paths, key=lambda q: (-cost[q], q)):
        i = 0 if load[0] <= load[1] else 1
        shares[i].append(p)
        load[i] += cost[p]
    return {"root": str(repo), "shares": shares, "estimated_s": load}


def warm_runs(lint_cmd: list[str], runs: int) -> dict[str, Any]:
    """`bot lint` on the unchanged tree with a cache a first run filled: wall and CPU of
    `runs` runs, and whether each printed what a cold run prints."""
    with tempfile.TemporaryDirectory(prefix="bot-cache-") as cache:
        cmd = [*lint_cmd, "--cache-dir", cache]
        cold, _, _ = run_timed([*lint_cmd, "--no-cache"])
        first, _, _ = run_timed(cmd)
        walls: list[float] = []
        cpus: list[float] = []
        same = first.stdout == cold.stdout
        for _ in range(runs):
            proc, wall, cpu = run_timed(cmd)
            walls.append(wall)
            cpus.append(cpu)
            same = same and proc.returncode == cold.returncode and proc.stdout == cold.stdout
    return {"wall_s": stats(walls), "cpu_s": stats(cpus), "same_output": same}


def stats(values: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repo",
        type=Path,
        default=None,
        help="repository to lint (default: $INFERENCEX_DIR, else ../ix next to the project)",
    )
    ap.add_argument("--runs", type=int, default=7, help="cold runs (default: 7)")
    ap.add_argument("--json", action="store_true", help="print machine-readable figures")
    ap.add_argument(
        "--no-bytecode",
        dest="bytecode",
        action="store_false",
        help="do not compile the project's modules first: every run compiles them "
        "(PYTHONDONTWRITEBYTECODE), unlike an installed package",
    )
    ap.add_argument(
        "--before",
        type=Path,
        default=None,
        help="source tree of another build: also time its cold command in every round",
    )
    args = ap.parse_args(argv)
    before: Path | None = args.before.resolve() if args.before is not None else None
    if before is not None and not (before / "bot" / "cli" / "__main__.py").is_file():
        print(f"bench_lint_tree: no bot/cli/__main__.py under {before}", file=sys.stderr)
        return 2
    if args.bytecode:
        CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        for root in (PROJECT_ROOT, before):
            if root is not None:
                subprocess.run(
                    [sys.executable, "-m", "compileall", "-q", "bot", "rules"],
                    cwd=root,
                    env=CHILD_ENV,
                    check=True,
                )
    repo: Path = args.repo if args.repo is not None else default_repo()
    if not repo.is_dir():
        print(
            f"bench_lint_tree: repository directory not found: {repo}\n"
            "  pass --repo DIR or set INFERENCEX_DIR to a checkout of SemiAnalysisAI/InferenceX",
            file=sys.stderr,
        )
        return 2
    if args.runs < 1:
        print("bench_lint_tree: --runs must be at least 1", file=sys.stderr)
        return 2
    repo = repo.resolve()

    paths = routed_paths(repo)
    plan = limit_plan(repo, paths)
    fd, plan_name = tempfile.mkstemp(suffix=".json", prefix="parse-limit-")
    with os.fdopen(fd, "w", encoding="utf-8") as plan_file:
        json.dump(plan, plan_file)
    bot = Path(sys.executable).with_name("bot")
    lint_cmd = [str(bot), "lint", "--repo", str(repo), "--format", "json", "--fail-on", "never"]
    cli = [*lint_cmd, "--no-cache", "--output", os.devnull]
    # the other build entirely from its own source (not this checkout's `rules/`)
    before_cli, before_env = other_build.command(before or PROJECT_ROOT, cli[1:], CHILD_ENV)
    if before is None:
        before_env = None
    old_wall: list[float] = []
    old_cpu: list[float] = []

    runs: list[dict[str, Any]] = []
    walls: list[float] = []
    bot_wall: list[float] = []
    bot_cpu: list[float] = []
    lim_wall: list[float] = []
    lim_cpu: list[float] = []
    limits: list[dict[str, Any]] = []
    try:
        for _ in range(args.runs):
            proc, wall, cpu = run_timed(cli)
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr)
                raise SystemExit(f"bench_lint_tree: bot lint exited with {proc.returncode}")
            bot_wall.append(wall)
            bot_cpu.append(cpu)
            if before_env is not None:
                proc, wall, cpu = run_timed(before_cli, env=before_env)
                if proc.returncode != 0:
                    sys.stderr.write(proc.stderr)
                    raise SystemExit(f"bench_lint_tree: --before exited with {proc.returncode}")
                old_wall.append(wall)
                old_cpu.append(cpu)
            proc, wall, cpu = run_timed([sys.executable, str(PARSE_LIMIT), plan_name])
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr)
                raise SystemExit(f"bench_lint_tree: parse_limit exited with {proc.returncode}")
            lim_wall.append(wall)
            lim_cpu.append(cpu)
            limits.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            data, wall = run_child(repo, "plain")
            runs.append(data)
            walls.append(wall)
    finally:
        os.unlink(plan_name)
    inst, inst_wall = run_child(repo, "instrumented")
    warm = warm_runs(lint_cmd, args.runs)
    if limits[0]["files"] != len(paths):
        raise SystemExit("bench_lint_tree: the parse limit did not read every routed file")

    per_file = inst["per_file"]

    def per_recipe(select: Any) -> dict[str, float] | None:
        times = [v["parse_s"] + v["rules_s"] for p, v in per_file.items() if select(p)]
        return {"n": len(times), **stats(times)} if times else None

    single = per_recipe(lambda p: p.startswith("benchmarks/single_node/") and p.endswith(".sh"))
    multi = per_recipe(lambda p: p.startswith("benchmarks/multi_node/") and p.endswith(".yaml"))
    slowest = sorted(
        per_file.items(), key=lambda kv: kv[1]["parse_s"] + kv[1]["rules_s"], reverse=True
    )[:10]
    ratio = {
        "wall": stats([b / lim for b, lim in zip(bot_wall, lim_wall, strict=True)]),
        "cpu": stats([b / lim for b, lim in zip(bot_cpu, lim_cpu, strict=True)]),
    }
    figures: dict[str, Any] = {
        "repo": str(repo),
        "bot_lint_wall_s": stats(bot_wall),
        "bot_lint_cpu_s": stats(bot_cpu),
        "parse_limit_wall_s": stats(lim_wall),
        "parse_limit_cpu_s": stats(lim_cpu),
        "parse_limit_inprocess_s": stats([x["inprocess_s"] for x in limits]),
        "parse_limit_peak_rss_mib": stats([x["peak_rss_kib"] / 1024 for x in limits]),
        "parse_limit_seen": {k: limits[0][k] for k in ("files", "bytes", "nodes", "events")},
        "parse_limit_shares": [len(s) for s in plan["shares"]],
        "parse_limit_estimated_s": plan["estimated_s"],
        "ratio_to_parse_limit": ratio,
        "python": sys.version.split()[0],
        "bytecode_cache": "PYTHONDONTWRITEBYTECODE" not in CHILD_ENV,
        "load_average": os.getloadavg()[0],
        "runs": args.runs,
        "inprocess_s": stats([r["inprocess_s"] for r in runs]),
        "import_s": stats([r["import_s"] for r in runs]),
        "lint_s": stats([r["lint_s"] for r in runs]),
        "process_wall_s": stats(walls),
        "peak_rss_mib": stats([r["peak_rss_kib"] / 1024 for r in runs]),
        "warm_cache": warm,
        "per_single_node_recipe_s": single,
        "per_multi_node_recipe_s": multi,
        "files": runs[0]["files"],
        "findings": runs[0]["findings"],
        "findings_by_rule": runs[0]["by_rule"],
        "instrumented": {
            "inprocess_s": inst["inprocess_s"],
            "process_wall_s": inst_wall,
            "parse_total_s": sum(v["parse_s"] for v in per_file.values()),
            "rules_total_s": sum(v["rules_s"] for v in per_file.values()),
            "other_parse_s": inst["other_parse_s"],
        },
        "slowest_files": [
            {"path": p, "parse_s": v["parse_s"], "rules_s": v["rules_s"]} for p, v in slowest
        ],
    }
    if before is not None:
        figures["before"] = {
            "source": str(before),
            "bot_lint_wall_s": stats(old_wall),
            "bot_lint_cpu_s": stats(old_cpu),
            "ratio_to_parse_limit_cpu": stats(
                [b / lim for b, lim in zip(old_cpu, lim_cpu, strict=True)]
            ),
            "this_to_before_cpu": stats([b / o for b, o in zip(bot_cpu, old_cpu, strict=True)]),
            "this_to_before_wall": stats([b / o for b, o in zip(bot_wall, old_wall, strict=True)]),
        }
    if any(
        r["files"] != figures["files"] or r["by_rule"] != figures["findings_by_rule"] for r in runs
    ):
        figures["warning"] = "runs disagree on files or findings"

    if args.json:
        print(json.dumps(figures, indent=2))
        return 0

    def line(label: str, s: dict[str, float]) -> str:
        return (
            f"{label:<22} median {s['median'] * 1000:8.1f} ms   "
            f"min {s['min'] * 1000:8.1f} ms   max {s['max'] * 1000:8.1f} ms"
        )

    print(f"repo: {repo}   python {figures['python']}   {args.runs} cold rounds")
    print(
        f"bytecode cache: {'yes' if figures['bytecode_cache'] else 'no'}   "
        f"load average {figures['load_average']:.2f}"
    )
    seen = figures["parse_limit_seen"]
    print(line("bot lint (wall)", figures["bot_lint_wall_s"]))
    print(line("bot lint (cpu)", figures["bot_lint_cpu_s"]))
    print(line("parse limit (wall)", figures["parse_limit_wall_s"]))
    print(line("parse limit (cpu)", figures["parse_limit_cpu_s"]))
    print(
        f"parse limit: {seen['files']} files, {seen['bytes']:,} bytes, {seen['nodes']:,} "
        f"bash syntax nodes, {seen['events']:,} YAML events; shares of "
        f"{' and '.join(map(str, figures['parse_limit_shares']))} files; peak memory "
        f"{figures['parse_limit_peak_rss_mib']['median']:.0f} MiB"
    )
    r = figures["ratio_to_parse_limit"]
    print(
        f"ratio to the parse limit (per round): wall median {r['wall']['median']:.2f}x "
        f"(min {r['wall']['min']:.2f}, max {r['wall']['max']:.2f}); "
        f"cpu median {r['cpu']['median']:.2f}x (min {r['cpu']['min']:.2f}, "
        f"max {r['cpu']['max']:.2f})"
    )
    if "before" in figures:
        b = figures["before"]
        print(f"before: {b['source']}")
        print(line("  bot lint (wall)", b["bot_lint_wall_s"]))
        print(line("  bot lint (cpu)", b["bot_lint_cpu_s"]))
        print(
            f"  ratio to the parse limit, cpu median {b['ratio_to_parse_limit_cpu']['median']:.2f}x; "
            f"this build / before (per round): cpu median {b['this_to_before_cpu']['median']:.3f} "
            f"(min {b['this_to_before_cpu']['min']:.3f}, max {b['this_to_before_cpu']['max']:.3f}), "
            f"wall median {b['this_to_before_wall']['median']:.3f}"
        )
    print(line("in-process (total)", figures["inprocess_s"]))
    print(line("  imports", figures["import_s"]))
    print(line("  config + lint", figures["lint_s"]))
    print(line("process wall", figures["process_wall_s"]))
    print(
        f"peak memory (largest process) median {figures['peak_rss_mib']['median']:.0f} MiB, "
        f"max {figures['peak_rss_mib']['max']:.0f} MiB"
    )
    w = figures["warm_cache"]
    print(line("warm cache (wall)", w["wall_s"]))
    print(line("warm cache (cpu)", w["cpu_s"]))
    print(
        "warm cache output: "
        + ("the cold run's, byte for byte" if w["same_output"] else "DIFFERS from the cold run")
    )
    for label, key in (
        ("single-node recipe", "per_single_node_recipe_s"),
        ("multi-node recipe", "per_multi_node_recipe_s"),
    ):
        if figures[key]:
            print(line(f"per {label} (n={figures[key]['n']})", figures[key]))
    print(f"files linted: {figures['files']}   findings: {figures['findings']}")
    for rule, n in figures["findings_by_rule"].items():
        print(f"  {rule}: {n}")
    ins = figures["instrumented"]
    print(
        f"instrumented run: in-process {ins['inprocess_s'] * 1000:.1f} ms, "
        f"parse {ins['parse_total_s'] * 1000:.1f} ms, rules {ins['rules_total_s'] * 1000:.1f} ms, "
        + ", ".join(f"{k} parse {v * 1000:.1f} ms" for k, v in sorted(ins["other_parse_s"].items()))
    )
    print("10 slowest files (parse + rules):")
    for item in figures["slowest_files"]:
        total = item["parse_s"] + item["rules_s"]
        print(
            f"  {total * 1000:8.1f} ms  (parse {item['parse_s'] * 1000:7.1f}, "
            f"rules {item['rules_s'] * 1000:7.1f})  {item['path']}"
        )
    if "warning" in figures:
        print("WARNING: " + figures["warning"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
