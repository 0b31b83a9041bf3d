"""Benchmark: lint a whole InferenceX-shaped tree, cold, as `bot lint --repo DIR` does.

Every run is a fresh Python subprocess (new interpreter, empty parse cache).
Inside the child the clock starts before the first `bot` import and stops when
`lint()` returns; the parent also times the whole child process (interpreter
start-up and exit included). One extra, instrumented run times parse and rules
per file and lists the slowest files.

    python benchmarks/bench_lint_tree.py                 # ../ix, 7 runs
    python benchmarks/bench_lint_tree.py --repo /path/to/InferenceX --runs 3
    python benchmarks/bench_lint_tree.py --json          # machine-readable figures

The repository defaults to `$INFERENCEX_DIR`, else `../ix` next to the project.
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
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]

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
        "--bytecode",
        action="store_true",
        help="compile the project's modules first and let the children read the bytecode "
        "cache, as an installed package does",
    )
    args = ap.parse_args(argv)
    if args.bytecode:
        CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "bot", "rules"],
            cwd=PROJECT_ROOT,
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

    runs: list[dict[str, Any]] = []
    walls: list[float] = []
    for _ in range(args.runs):
        data, wall = run_child(repo, "plain")
        runs.append(data)
        walls.append(wall)
    inst, inst_wall = run_child(repo, "instrumented")

    per_file = inst["per_file"]

    def per_recipe(select: Any) -> dict[str, float] | None:
        times = [v["parse_s"] + v["rules_s"] for p, v in per_file.items() if select(p)]
        return {"n": len(times), **stats(times)} if times else None

    single = per_recipe(lambda p: p.startswith("benchmarks/single_node/") and p.endswith(".sh"))
    multi = per_recipe(lambda p: p.startswith("benchmarks/multi_node/") and p.endswith(".yaml"))
    slowest = sorted(
        per_file.items(), key=lambda kv: kv[1]["parse_s"] + kv[1]["rules_s"], reverse=True
    )[:10]
    figures: dict[str, Any] = {
        "repo": str(repo),
        "python": sys.version.split()[0],
        "bytecode_cache": "PYTHONDONTWRITEBYTECODE" not in CHILD_ENV,
        "load_average": os.getloadavg()[0],
        "runs": args.runs,
        "inprocess_s": stats([r["inprocess_s"] for r in runs]),
        "import_s": stats([r["import_s"] for r in runs]),
        "lint_s": stats([r["lint_s"] for r in runs]),
        "process_wall_s": stats(walls),
        "peak_rss_mib": stats([r["peak_rss_kib"] / 1024 for r in runs]),
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

    print(f"repo: {repo}   python {figures['python']}   {args.runs} cold runs")
    print(
        f"bytecode cache: {'yes' if figures['bytecode_cache'] else 'no'}   "
        f"load average {figures['load_average']:.2f}"
    )
    print(line("in-process (total)", figures["inprocess_s"]))
    print(line("  imports", figures["import_s"]))
    print(line("  config + lint", figures["lint_s"]))
    print(line("process wall", figures["process_wall_s"]))
    print(
        f"peak memory (largest process) median {figures['peak_rss_mib']['median']:.0f} MiB, "
        f"max {figures['peak_rss_mib']['max']:.0f} MiB"
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
