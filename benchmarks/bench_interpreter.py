"""Benchmark: the symbolic bash interpreter over every recipe script of a tree, in process.

    python benchmarks/bench_interpreter.py --repo DIR
    python benchmarks/bench_interpreter.py --repo DIR --before OLD_SRC --rounds 5

Each round runs a fresh child process per build. The child builds the configuration of
`bot lint --repo DIR` (its knowledge: the watched flags and names, the inputs' domains),
reads every `.sh` file the tree routes to the recipe parser, and times `parse_recipe` over
all of them `--repeat` times in one process (CPU time; the best pass counts, so the
import and first-use costs are left out). `parse_recipe` is tree-sitter-bash, the
interpreter with its path joins, and the launches read from what it reports. With
`--before DIR` (another build's source tree, e.g. `git archive COMMIT | tar -x -C DIR`)
the same child runs from that tree in every round, right after this build's, and the ratio
is taken per round. Both builds must give the same launches, commands and problems (a
digest of them, positions included, is compared; the children share one string hash seed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def child(repo: str, repeat: int) -> None:
    import gc

    from bot.app.config import load_repo_config
    from bot.app.local import open_checkout
    from bot.core.context import Context, route
    from bot.parse.recipe import parse_recipe
    from bot.parse.values import Str

    checkout = open_checkout(repo)
    config = load_repo_config(checkout.tree)
    ctx = Context.for_tree(checkout.tree, config)
    run = ctx.run
    scripts = []
    for path in sorted(checkout.tree.paths()):
        if path.endswith(".sh") and route(path, config) == "recipe":
            text = ctx.text(path)
            if text is not None:
                scripts.append((path, text))
    # as `bot lint` collects (bot.cli.lint_run.LINT_GC_THRESHOLDS)
    gc.set_threshold(50_000, 20, 100)
    passes = []
    recipes = []
    for _ in range(repeat):
        docs: dict[str, object] = {}  # engine YAML loaded once per pass, as in one lint
        t0 = time.process_time()
        recipes = [
            parse_recipe(p, t, domains=run.domains or None, inputs=run.inputs, engine_docs=docs)
            for p, t in scripts
        ]
        passes.append(time.process_time() - t0)
    Str.__repr__ = lambda self: f"Str{self.segs!r}"  # type: ignore[method-assign]
    digest = hashlib.sha256()
    for r in recipes:
        digest.update(repr((r.path, r.launches, r.commands, r.problems)).encode())
    print(
        json.dumps(
            {
                "scripts": len(scripts),
                "launches": sum(len(r.launches) for r in recipes),
                "best": min(passes),
                "digest": digest.hexdigest(),
            }
        )
    )


def run_child(src: Path, repo: str, repeat: int) -> dict[str, object]:
    # one string hash seed for both builds: a variable joined from several paths keeps
    # a place in a path's variables that set order decides, and launches list them
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run(
        [sys.executable, __file__, "--child", repo, "--repeat", str(repeat)],
        env=env,
        capture_output=True,
        text=True,
        cwd=src,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repo", default=os.environ.get("INFERENCEX_DIR", "../ix"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3, help="passes per child (best counts)")
    ap.add_argument("--before", type=Path, help="another build's source tree")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        sys.path.insert(0, os.getcwd())
        child(args.child, args.repeat)
        return 0
    builds = [("this build", PROJECT_ROOT)]
    if args.before:
        builds.append((f"before ({args.before})", args.before.resolve()))
    # one untimed child per build first: bytecode compiled, as an installed package has it
    for _, src in builds:
        run_child(src, args.repo, 1)
    got: dict[str, list[dict[str, object]]] = {name: [] for name, _ in builds}
    for _ in range(args.rounds):
        for name, src in builds:
            got[name].append(run_child(src, args.repo, args.repeat))
    load = os.getloadavg()[0]
    first = got[builds[0][0]][0]
    print(f"repo: {args.repo}   {first['scripts']} scripts, {first['launches']} launches")
    print(f"rounds: {args.rounds}, best of {args.repeat} passes each   load average {load:.1f}")
    for name, _ in builds:
        cpu = [float(r["best"]) * 1000 for r in got[name]]  # type: ignore[arg-type]
        print(
            f"{name:<40} parse_recipe CPU median {statistics.median(cpu):7.1f} ms"
            f"   min {min(cpu):7.1f}   max {max(cpu):7.1f}"
        )
    if args.before:
        mine, theirs = got[builds[0][0]], got[builds[1][0]]
        ratios = [float(a["best"]) / float(b["best"]) for a, b in zip(mine, theirs, strict=True)]  # type: ignore[arg-type]
        print(
            f"this build / before, per round: median {statistics.median(ratios):.3f}"
            f"   min {min(ratios):.3f}   max {max(ratios):.3f}"
        )
        same = {r["digest"] for r in mine} == {r["digest"] for r in theirs}
        print("launches, commands, problems: " + ("the same" if same else "DIFFERENT"))
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
