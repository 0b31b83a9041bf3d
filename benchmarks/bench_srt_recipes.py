"""Benchmark: srt-slurm (multi-node YAML) recipes read and interpreted, this build against another.

    python benchmarks/bench_srt_recipes.py --repo /path/to/InferenceX --rounds 7
    python benchmarks/bench_srt_recipes.py --repo DIR --rounds 7 --before DIR2  # DIR2: another build

Every `*.yaml` / `*.yml` file under `benchmarks/multi_node/` of the tree is what `bot lint
--repo` routes to the recipe parser there (srt-slurm recipes, templates with zip sweeps,
and the model tables beside them). In each round a fresh child process of each build (its
source tree first on `PYTHONPATH`, the same interpreter and libraries, the lint's garbage
collector thresholds) reads the texts, imports the parser, and then times, on its own CPU
clock:

- `yaml`: `yamlpos.load_positioned` of every text (values with positions);
- `recipe`: `recipe.parse_recipe` of every text (YAML with positions and the launches,
  environment and client settings made from it).

- `interpret`: `recipe.parse_recipe` of every text with `load_positioned` answered from
  the values the `yaml` pass loaded (the parsers' own name for it replaced in the child),
  so only the launches, environment and client settings are made.

With `--whole-tree`, each child first lints the whole tree in-process on one core, as
`bot lint --repo DIR --no-cache` does (`tree`: its CPU; `tree srt`: the CPU spent inside
`parse_srt_recipe`, YAML included), and the JSON report joins the digest.

Each is run `--passes` times in the child and the median pass is kept. The builds alternate (this build first, then the other) and the ratio is
taken per round. Each child also prints a digest of every parse (values, every key's and
value's position and source text, the launches, flags, environment, client settings and
problems, read through the public API); both builds must give the same digest.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def recipe_paths(repo: Path) -> list[str]:
    root = repo / "benchmarks" / "multi_node"
    found = [p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
    return sorted(str(p.relative_to(repo)) for p in found)


def _dump(value: Any, depth: int = 0) -> Any:
    """A canonical form of a parse: positions read through `PosMap`'s public methods."""
    import dataclasses

    from bot.parse.yamlpos import PosList, PosMap

    if depth > 40:
        return "..."
    if isinstance(value, PosMap):
        return [
            "map",
            value.lc.line,
            value.lc.col,
            [
                [repr(k), _dump(v, depth + 1), value.key_pos(k), value.value_pos(k), value.raw(k)]
                for k, v in value.items()
            ],
        ]
    if isinstance(value, PosList):
        return [
            "list",
            value.line,
            value.col,
            [[_dump(v, depth + 1), list(p)] for v, p in zip(value, value.items, strict=True)],
        ]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            type(value).__name__,
            {
                f.name: _dump(getattr(value, f.name), depth + 1)
                for f in dataclasses.fields(value)
                if f.name not in ("spec_memo", "text")
            },
        ]
    if isinstance(value, dict):
        return [[repr(k), _dump(v, depth + 1)] for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_dump(v, depth + 1) for v in value]
    return repr(value)


def whole_tree(repo: Path) -> tuple[float, float, str]:
    """(CPU of a whole-tree lint in this process, CPU inside `parse_srt_recipe`, report)."""
    import time

    from bot.app.config import load_repo_config
    from bot.app.local import open_checkout
    from bot.core.engine import Context, lint
    from bot.parse import srt_recipe
    from bot.report import json_report

    spent = [0.0]
    original = srt_recipe.parse_srt_recipe

    def timed(path: str, text: str) -> Any:
        start = time.process_time()
        try:
            return original(path, text)
        finally:
            spent[0] += time.process_time() - start

    srt_recipe.parse_srt_recipe = timed  # type: ignore[assignment]
    start = time.process_time()
    try:
        checkout = open_checkout(str(repo))
        report = lint(Context.for_tree(checkout.tree, load_repo_config(checkout.tree)), paths=None)
        rendered = json_report.render(report)
    finally:
        srt_recipe.parse_srt_recipe = original
    return time.process_time() - start, spent[0], rendered


def child(repo: Path, passes: int, tree: bool) -> None:
    import gc
    import time

    texts = [
        (path, (repo / path).read_bytes().decode("utf-8", errors="replace"))
        for path in recipe_paths(repo)
    ]
    from bot.cli.lint_run import LINT_GC_THRESHOLDS
    from bot.parse.recipe import parse_recipe
    from bot.parse.yamlpos import load_positioned
    from bot.parse.yamlsafe import YamlError

    gc.set_threshold(*LINT_GC_THRESHOLDS)
    tree_cpu, tree_srt, report = whole_tree(repo) if tree else (0.0, 0.0, "")

    def load_all() -> list[Any]:
        out: list[Any] = []
        for path, text in texts:
            try:
                out.append(load_positioned(text, label=path))
            except YamlError as exc:
                out.append(("error", exc.kind, exc.line, sorted(exc.params.items())))
        return out

    def parse_all() -> list[Any]:
        return [parse_recipe(path, text) for path, text in texts]

    loaded: dict[str, Any] = {}

    def answer(text: str, *, label: str = "YAML") -> Any:
        got = loaded[text]
        if isinstance(got, BaseException):
            raise got
        return got

    for _, text in texts:
        try:
            loaded[text] = load_positioned(text)
        except YamlError as exc:
            loaded[text] = exc

    def interpret_all() -> list[Any]:
        from bot.parse import model_table, srt_recipe

        saved = srt_recipe.load_positioned, model_table.load_positioned
        srt_recipe.load_positioned = model_table.load_positioned = answer
        try:
            return parse_all()
        finally:
            srt_recipe.load_positioned, model_table.load_positioned = saved

    timings: dict[str, list[float]] = {"recipe": [], "yaml": [], "interpret": []}
    results: dict[str, Any] = {}
    for _ in range(passes):
        for name, fn in (("recipe", parse_all), ("yaml", load_all), ("interpret", interpret_all)):
            start = time.process_time()
            got = fn()
            timings[name].append(time.process_time() - start)
            results[name] = got
            del got
    digest = hashlib.sha256(report.encode())
    for name in ("yaml", "recipe", "interpret"):
        for item in results[name]:
            digest.update(json.dumps(_dump(item), ensure_ascii=False).encode())
    print(
        json.dumps(
            {
                "files": len(texts),
                "bytes": sum(len(t) for _, t in texts),
                "recipe": statistics.median(timings["recipe"]),
                "yaml": statistics.median(timings["yaml"]),
                "interpret": statistics.median(timings["interpret"]),
                "tree": tree_cpu,
                "tree srt": tree_srt,
                "digest": digest.hexdigest(),
            }
        )
    )


def run_child(build: Path, repo: Path, passes: int, tree: bool) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(build))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = [sys.executable, "-P", str(Path(__file__).resolve()), "--child"]
    argv += ["--repo", str(repo), "--passes", str(passes)] + (["--whole-tree"] if tree else [])
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench_srt_recipes: {build}: exit {proc.returncode}\n{proc.stderr}")
    got: dict[str, Any] = json.loads(proc.stdout)
    return got


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, required=True, help="a checkout of the target repository")
    ap.add_argument("--before", type=Path, help="another build's source tree")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=3, help="timed passes in each child")
    ap.add_argument(
        "--whole-tree", action="store_true", help="also lint the whole tree in each child"
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    if args.child:
        child(repo, args.passes, args.whole_tree)
        return 0

    builds = {"this build": PROJECT_ROOT}
    if args.before is not None:
        builds[str(args.before)] = args.before.resolve()
    for root in builds.values():
        for package in ("bot", "rules"):
            compileall.compile_dir(str(root / package), quiet=1)
    stages = ["recipe", "yaml", "interpret"] + (["tree", "tree srt"] if args.whole_tree else [])
    figures: dict[str, dict[str, list[float]]] = {
        name: {stage: [] for stage in stages} for name in builds
    }
    digests: dict[str, set[str]] = {name: set() for name in builds}
    files = 0
    for _ in range(args.rounds):
        for name, root in builds.items():
            got = run_child(root, repo, args.passes, args.whole_tree)
            files = got["files"]
            digests[name].add(got["digest"])
            for stage in stages:
                figures[name][stage].append(got[stage])
    print(f"{files} YAML files under benchmarks/multi_node/, {args.rounds} rounds")
    for name, per in figures.items():
        line = ", ".join(
            f"{stage} {_ms(statistics.median(v))} (min {_ms(min(v))})" for stage, v in per.items()
        )
        print(f"{name}: {line}")
    if args.before is not None:
        this, other = figures["this build"], figures[str(args.before)]
        for stage in stages:
            ratios = [a / b for a, b in zip(this[stage], other[stage], strict=True) if b > 0]
            print(
                f"this build / before, {stage} (per round): median "
                f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}) "
                f"[{' '.join(f'{r:.2f}' for r in ratios)}]"
            )
    all_digests = set().union(*digests.values())
    same = len(all_digests) == 1
    print(f"digest: {'the same from every child' if same else 'DIFFERS'} {sorted(all_digests)}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
