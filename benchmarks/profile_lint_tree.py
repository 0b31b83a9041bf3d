"""Profile a whole-tree lint by stage, and count the work it repeats.

    python benchmarks/profile_lint_tree.py --repo DIR     # pip install py-spy (or pyinstrument)
    python benchmarks/profile_lint_tree.py --repo DIR --json

Nothing is timed inside the bot. A child process lints the tree as `bot lint --repo DIR
--format json` does, on one core (so one profiler sees the whole job, which `bot lint`
spreads over two), while py-spy samples its stacks from outside (no hook runs in the
process, so Python-heavy stages are not made to look dearer than the C parsers; time in
a C call counts for the Python line that made it). Without py-spy, pyinstrument profiles
in this process instead. Each sample goes to the stage of the innermost function on its
stack that starts one:

- imports: modules loaded on first use while linting;
- setup: the configuration (`build_config`: knowledge YAML, JSON Schemas), listing the
  tree, routing each path;
- parse: reading files and turning bytes into syntax and values: tree-sitter-bash
  (`bash.parse_tree`), ruamel's C event parser walked into values with positions
  (`yamlpos.load_positioned`, the master-config and changelog walks), the C safe loader
  (`yamlsafe.load_safe`), the round-trip loader of engine YAML heredocs;
- interpret: turning syntax into facts: the parser table's functions (`parse_recipe`
  with the symbolic bash interpreter, `parse_srt_recipe`, `parse_master_config`,
  `parse_changelog`, the golden curves) less the parsing they call;
- join: views across files built once per run and shared by rules (`Context.memo`:
  master-config points joined to the recipes they run, spec-decode siblings, golden
  sets, waivers, the changelog diff);
- rules: the rules' `check` functions less what they call in the stages above (one line
  per rule);
- engine: the engine's own loop (suppression comments, `line_text`, dedupe, sort);
- render: the JSON report.

A second pass in this process counts calls through wrappers installed from here (parser
calls per path and per content, statements the bash interpreter evaluates against the
distinct statements it runs, JSON Schema validations, rule calls): the repeated work a
cache or a restructuring would remove.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))
Counter = collections.Counter

# (file suffix, function name) -> stage; the innermost match on a stack wins
ENTRIES: dict[tuple[str, str], str] = {
    ("bot/core/config.py", "build_config"): "setup",
    ("bot/core/context.py", "all_paths"): "setup",
    ("bot/core/context.py", "route"): "setup",
    ("bot/sources.py", "read"): "parse",
    ("bot/sources.py", "blob_id"): "parse",
    ("bot/parse/bash/syntax.py", "parse_tree"): "parse",
    ("bot/parse/yamlpos.py", "load_positioned"): "parse",
    ("bot/parse/yamlsafe.py", "load_safe"): "parse",
    ("bot/parse/yamlsafe.py", "load_roundtrip"): "parse",
    ("bot/parse/master_config.py", "_walk"): "parse",
    ("bot/parse/changelog.py", "_walk_plain"): "parse",
    ("bot/parse/changelog.py", "_read_events"): "parse",
    ("bot/parse/kinds.py", "_recipe"): "interpret",
    ("bot/parse/kinds.py", "_changelog"): "interpret",
    ("bot/parse/kinds.py", "_master_config"): "interpret",
    ("bot/parse/kinds.py", "_golden"): "interpret",
    ("bot/core/context.py", "memo"): "join",
    ("bot/core/engine.py", "_run"): "rules",
    ("bot/core/engine.py", "lint"): "engine",
    ("bot/report/json_report.py", "render"): "render",
}
STAGES = ("imports", "setup", "parse", "interpret", "join", "rules", "engine", "render")
# finer lines inside a stage, innermost match wins
DETAIL: dict[tuple[str, str], str] = {
    ("bot/parse/bash/syntax.py", "parse_tree"): "parse: tree-sitter-bash",
    ("bot/parse/yamlpos.py", "load_positioned"): "parse: YAML with positions (C event parser)",
    ("bot/parse/yamlsafe.py", "load_safe"): "parse: YAML values (C safe loader)",
    ("bot/parse/yamlsafe.py", "load_roundtrip"): "parse: engine YAML (pure round-trip loader)",
    ("bot/parse/master_config.py", "_walk"): "parse: master-config event walk",
    ("bot/parse/changelog.py", "_walk_plain"): "parse: changelog line walk",
    ("bot/parse/changelog.py", "_read_events"): "parse: changelog event walk",
    ("bot/sources.py", "read"): "parse: file reads",
    ("bot/sources.py", "blob_id"): "parse: file reads",
    ("bot/parse/bash/interpreter.py", "run"): "interpret: bash interpreter",
    ("bot/parse/bash/paths.py", "join_by_value"): "interpret: bash interpreter, path joins",
    ("bot/parse/bash/paths.py", "merge"): "interpret: bash interpreter, path joins",
    ("bot/parse/bash/paths.py", "prune"): "interpret: bash interpreter, path joins",
    ("bot/parse/srt_recipe.py", "parse_srt_recipe"): "interpret: srt-slurm recipes",
    ("bot/parse/model_table.py", "parse_model_table"): "interpret: model tables",
    ("bot/parse/master_config.py", "parse_master_config"): "interpret: master configs",
    ("bot/parse/changelog.py", "parse_changelog"): "interpret: changelog",
    ("bot/parse/master_launch.py", "master_launches"): "join: master-config launches",
}

Frame = tuple[str, str]  # (path relative to the project or a library root, function)
Stack = tuple[Frame, ...]  # outermost first


def _match(table: dict[tuple[str, str], str], frame: Frame) -> str | None:
    path, function = frame
    name = function.rsplit(".", 1)[-1]  # py-spy writes `Class.method`
    for (suffix, entry), label in table.items():
        if name == entry and path.endswith(suffix):
            return label
    return None


def attribute(
    samples: list[tuple[Stack, float]],
) -> tuple[dict[str, float], dict[str, float], dict[str, Counter]]:
    """Time per stage and per detail line, each sample to the innermost match on its
    stack, and the functions the samples stopped in, per stage."""
    stage_time: dict[str, float] = collections.defaultdict(float)
    detail_time: dict[str, float] = collections.defaultdict(float)
    functions: dict[str, Counter] = collections.defaultdict(collections.Counter)
    for stack, seconds in samples:
        stage, detail = "other", None
        for frame in stack:
            if frame[0].startswith("<frozen importlib"):
                stage, detail = "imports", None
                continue
            stage = _match(ENTRIES, frame) or stage
            detail = _match(DETAIL, frame) or detail
            if frame[0].startswith("rules/"):  # a rule's own code: its id
                detail = "rules: " + frame[0].rsplit("/", 1)[-1].split("_", 1)[0]
        stage_time[stage] += seconds
        if detail is not None and detail.split(":")[0] == stage:
            detail_time[detail] += seconds
        if stack:
            path, function = stack[-1]
            functions[stage][f"{function} ({path.rsplit('/', 1)[-1]})"] += seconds
    return stage_time, detail_time, functions


def _relative(path: str) -> str:
    path = path.replace("\\", "/")
    root = str(PROJECT_ROOT) + "/"
    if path.startswith(root):
        return path[len(root) :]
    return path.split("site-packages/", 1)[-1]


def samples_pyspy(py_spy: str, repo: Path, rate: int) -> tuple[list[tuple[Stack, float]], float]:
    """Sample a child process that lints the tree with py-spy (a sampling profiler outside
    the process: no hook runs in it, so Python-heavy code is not made to look slower than
    C parsers). Time inside a C call counts for the Python line that made it."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stacks.txt"
        cmd = [py_spy, "record", "--rate", str(rate), "--nonblocking", "--format", "raw"]
        cmd += ["--output", str(out), "--", sys.executable, __file__, "--child", str(repo)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=PROJECT_ROOT, check=False)
        wall = time.perf_counter() - start
        if proc.returncode != 0 or not out.is_file():
            raise SystemExit(f"profile_lint_tree: py-spy failed:\n{proc.stderr}")
        samples = []
        for line in out.read_text(encoding="utf-8").splitlines():
            stack_text, _, count = line.rpartition(" ")
            frames = []
            for part in stack_text.split(";"):
                m = re.fullmatch(r"(.*) \((.*?)(?::\d+)?\)", part)
                if m:
                    frames.append((_relative(m.group(2)), m.group(1)))
            samples.append((tuple(frames), int(count) / rate))
    return samples, wall


def samples_pyinstrument(repo: Path) -> tuple[list[tuple[Stack, float]], float]:
    """The same from pyinstrument, in this process (its hook makes Python calls dearer than
    C parsing: shares lean towards Python-heavy stages)."""
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.001)
    start = time.perf_counter()
    profiler.start()
    lint_once(repo)
    profiler.stop()
    wall = time.perf_counter() - start
    session = profiler.last_session
    assert session is not None
    samples: list[tuple[Stack, float]] = []
    todo: list[tuple[Any, Stack]] = [(session.root_frame(), ())]
    while todo:
        frame, above = todo.pop()
        function = str(frame.function or "")
        here = (
            above
            if function.startswith("[")
            else (*above, (_relative(str(frame.file_path or "")), function))
        )
        children = list(frame.children)
        own = frame.time - sum(c.time for c in children)
        if own > 0:
            samples.append((here, own))
        todo.extend((c, here) for c in children)
    return samples, wall


def lint_once(repo: Path) -> tuple[Any, str]:
    """A whole-tree lint in this process, as `bot lint --repo` does on one core, and the
    JSON report."""
    from bot.app.config import load_repo_config
    from bot.app.local import open_checkout
    from bot.core.engine import Context, lint
    from bot.report import json_report

    checkout = open_checkout(str(repo))
    config = load_repo_config(checkout.tree)
    ctx = Context.for_tree(checkout.tree, config)
    report = lint(ctx, paths=None)
    return report, json_report.render(report)


# ------------------------------------------------------------------ counting pass


def _digest(value: Any) -> str:
    data = value if isinstance(value, bytes) else str(value).encode("utf-8", "replace")
    return hashlib.sha1(data).hexdigest()


def _patch(module: Any, name: str, make: Callable[[Any], Any]) -> None:
    """Replace `module.name` and every `bot` module's reference to the same object."""
    original = getattr(module, name)
    wrapped = make(original)
    for mod in list(sys.modules.values()):
        if mod is None or not getattr(mod, "__name__", "").startswith(("bot", "rules")):
            continue
        for attr, value in list(vars(mod).items()):
            if value is original:
                setattr(mod, attr, wrapped)


def count_work(repo: Path) -> dict[str, Any]:
    import jsonschema

    from bot.core import context as context_mod
    from bot.core import engine
    from bot.parse import bash, kinds, master_config, master_launch, yamlpos, yamlsafe

    calls: Counter = Counter()
    contents: dict[str, set[str]] = collections.defaultdict(set)
    per_path: dict[str, Counter] = collections.defaultdict(Counter)

    def counted(label: str, content_arg: int | None = None) -> Callable[[Any], Any]:
        def make(fn: Any) -> Any:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                calls[label] += 1
                if content_arg is not None and len(args) > content_arg:
                    contents[label].add(_digest(args[content_arg]))
                return fn(*args, **kwargs)

            return wrapper

        return make

    _patch(bash, "parse_tree", counted("tree-sitter parse", 0))
    _patch(yamlpos, "load_positioned", counted("load_positioned", 0))
    _patch(yamlsafe, "load_safe", counted("load_safe", 0))
    _patch(master_config, "_walk", counted("master-config event walk", 0))
    _patch(master_launch, "master_launches", counted("master_launches"))
    table = {}
    for kind, parse in kinds.PARSERS.items():

        def parser(path: str, text: str, run: Any, _parse: Any = parse, _kind: str = kind) -> Any:
            calls[f"parser {_kind}"] += 1
            contents[f"parser {_kind}"].add(_digest(text))
            per_path[f"parser {_kind}"][path] += 1
            return _parse(path, text, run)

        table[kind] = parser

    original_parsed = context_mod.Context.parsed

    def parsed(self: Any, kind: str, path: str, tree: Any = None) -> Any:
        calls[f"ctx.parsed {kind}"] += 1
        per_path[f"ctx.parsed {kind}"][path] += 1
        return original_parsed(self, kind, path, tree)

    context_mod.Context.parsed = parsed  # type: ignore[method-assign]

    # the bash interpreter: statements evaluated (once per live path) against distinct ones
    interp = bash.Interpreter
    from bot.parse.bash import paths as bash_paths

    original_run, original_stmt = interp.run, interp.stmt
    stmt_total = [0]
    stmt_distinct: set[tuple[int, int]] = set()
    paths_per_run: list[int] = []
    steps_per_run: list[int] = []

    def run(self: Any, root: Any) -> Any:
        calls["interpreter runs"] += 1
        states = original_run(self, root)
        paths_per_run.append(len(states))
        steps_per_run.append(self.steps)
        return states

    def stmt(self: Any, node: Any, st: Any, depth: int) -> Any:
        stmt_total[0] += 1
        stmt_distinct.add((id(self), node.start_byte))
        return original_stmt(self, node, st, depth)

    interp.run = run  # type: ignore[method-assign]
    interp.stmt = stmt  # type: ignore[method-assign]
    # statement evaluations per script, for the heaviest
    per_script: Counter = Counter()
    counting_stmt = interp.stmt

    def stmt_of(self: Any, node: Any, st: Any, depth: int) -> Any:
        per_script[id(self)] += 1
        return counting_stmt(self, node, st, depth)

    interp.stmt = stmt_of  # type: ignore[method-assign]
    script_of: dict[int, str] = {}
    original_init = interp.__init__

    def init(self: Any, source: bytes, *args: Any, **kwargs: Any) -> None:
        original_init(self, source, *args, **kwargs)
        script_of[id(self)] = _digest(source)[:12]

    interp.__init__ = init  # type: ignore[method-assign]
    # helpers that the profile shows hot: how often they run
    for owner, name in (
        (bash.State, "key"),
        (bash_paths, "merge"),
        (bash_paths, "join_by_value"),
        (bash_paths, "prune"),
    ):
        original_method = getattr(owner, name)

        def method(*a: Any, _m: Any = original_method, _l: str = name, **k: Any) -> Any:
            calls[f"bash {_l}"] += 1
            return _m(*a, **k)

        setattr(owner, name, method)
    from bot import sources

    names: dict[str, str] = {}  # content digest -> the first path read with it

    for name in ("read", "blob_id"):
        original_fs = getattr(sources.FsTree, name)

        def fs_method(self: Any, path: str, _m: Any = original_fs, _l: str = name) -> Any:
            calls[f"FsTree.{_l}"] += 1
            per_path[f"FsTree.{_l}"][path] += 1
            got = _m(self, path)
            if _l == "read" and isinstance(got, bytes):
                names.setdefault(_digest(got)[:12], path)
            return got

        setattr(sources.FsTree, name, fs_method)
    _patch(context_mod, "route", counted("route"))
    from bot.parse import srt_recipe

    _patch(srt_recipe, "_scalar_str", counted("srt_recipe _scalar_str"))
    import importlib

    cfg004 = importlib.import_module("bot.rules.config.CFG004_other_engine_before_vllm_sglang")
    _patch(cfg004, "archived_master_configs", counted("archived_master_configs"))
    _patch(cfg004, "_covers", counted("CFG004 _covers"))

    # JSON Schema validations started from the bot (nested descents not counted)
    depth = [0]
    original_iter = jsonschema.Draft202012Validator.iter_errors

    def iter_errors(self: Any, *args: Any, **kwargs: Any) -> Any:
        if depth[0] == 0:
            calls["JSON Schema validations"] += 1
        depth[0] += 1
        try:
            yield from original_iter(self, *args, **kwargs)
        finally:
            depth[0] -= 1

    jsonschema.Draft202012Validator.iter_errors = iter_errors  # type: ignore[method-assign]

    rule_calls: Counter = Counter()
    rule_time: dict[str, float] = collections.defaultdict(float)
    original_engine_run = engine._run

    def engine_run(rm: Any, parsed: Any, ctx: Any) -> Any:
        rule_calls[rm.rule.id] += 1
        gen = original_engine_run(rm, parsed, ctx)
        while True:
            start = time.perf_counter()
            try:
                item = next(gen)
            except StopIteration:
                rule_time[rm.rule.id] += time.perf_counter() - start
                return
            rule_time[rm.rule.id] += time.perf_counter() - start
            yield item

    engine._run = engine_run

    from bot.app.config import load_repo_config
    from bot.app.local import open_checkout
    from bot.core.engine import Context, lint

    checkout = open_checkout(str(repo))
    config = load_repo_config(checkout.tree)
    ctx = Context.for_tree(checkout.tree, config, parsers=table)
    report = lint(ctx, paths=None)

    parser_by_path = {
        label: {
            "calls": sum(c.values()),
            "paths": len(c),
            "max_per_path": max(c.values(), default=0),
            "busiest": c.most_common(3),
        }
        for label, c in per_path.items()
    }
    paths_hist = Counter(paths_per_run)
    return {
        "files": len(report.files),
        "findings": len(report.findings),
        "calls": dict(sorted(calls.items())),
        "distinct_contents": {k: len(v) for k, v in sorted(contents.items())},
        "per_path": parser_by_path,
        "interpreter": {
            "runs": len(paths_per_run),
            "statements_evaluated": stmt_total[0],
            "distinct_statements": len(stmt_distinct),
            "paths_per_run": dict(sorted(paths_hist.items())),
            "steps_total": sum(steps_per_run),
            "heaviest_scripts": [
                (names.get(script_of.get(k, ""), "?"), n) for k, n in per_script.most_common(6)
            ],
        },
        "rules": {
            rid: {"calls": rule_calls[rid], "s": rule_time[rid]}
            for rid in sorted(rule_calls, key=lambda r: -rule_time[r])
        },
    }


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, help="the tree to lint")
    ap.add_argument("--json", action="store_true", help="print machine-readable figures")
    ap.add_argument("--top", type=int, default=6, help="functions listed per stage")
    ap.add_argument("--rate", type=int, default=500, help="py-spy samples per second")
    ap.add_argument(
        "--repeat", type=int, default=3, help="profiled runs, their samples pooled (default: 3)"
    )
    ap.add_argument("--profiler", choices=("auto", "py-spy", "pyinstrument"), default="auto")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:  # the process py-spy samples
        lint_once(args.child.resolve())
        return 0
    if args.repo is None:
        ap.error("--repo is required")
    repo = args.repo.resolve()
    py_spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    use = args.profiler
    if use == "auto":
        use = "py-spy" if py_spy else "pyinstrument"
    if use == "py-spy":
        if not py_spy:
            print("profile_lint_tree: py-spy not found (pip install py-spy)", file=sys.stderr)
            return 2
        runs = [samples_pyspy(py_spy, repo, args.rate) for _ in range(max(1, args.repeat))]
    else:
        try:
            runs = [samples_pyinstrument(repo) for _ in range(max(1, args.repeat))]
        except ImportError:
            print("profile_lint_tree: needs py-spy or pyinstrument", file=sys.stderr)
            return 2
    # pooled, each run weighing 1/N: the figures are one run's, averaged
    samples = [(stack, sec / len(runs)) for got, _ in runs for stack, sec in got]
    wall = statistics.median(w for _, w in runs)
    stage_time, detail_time, functions = attribute(samples)
    total = sum(stage_time.values())
    counts = count_work(repo)

    figures = {
        "repo": str(repo),
        "profiler": use,
        "runs": len(runs),
        "wall_s": wall,
        "sampled_s": total,
        "stages_s": {s: stage_time.get(s, 0.0) for s in (*STAGES, "other")},
        "details_s": dict(sorted(detail_time.items())),
        "top_functions": {
            s: [(name, t) for name, t in functions[s].most_common(args.top)] for s in STAGES
        },
        "counts": counts,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"repo: {repo}: {counts['files']} files, {counts['findings']} findings; one process "
        f"under {use}, {len(runs)} runs: median wall {wall:.2f} s, {total:.2f} s sampled per run "
        "('other': interpreter start-up "
        "and the CLI's own code)"
    )
    print("stage        seconds   share")
    for stage, seconds in figures["stages_s"].items():
        print(f"  {stage:<10} {seconds:7.2f}  {seconds / total:6.1%}")
    for label, seconds in figures["details_s"].items():
        print(f"    {label:<52} {seconds:6.2f} s")
    for stage in STAGES:
        top = ", ".join(f"{n} {t:.2f}" for n, t in figures["top_functions"][stage])
        print(f"  top {stage}: {top}")
    c = counts
    print("repeated work (counting pass):")
    for label, n in c["calls"].items():
        distinct = c["distinct_contents"].get(label)
        more = f" ({distinct} distinct contents)" if distinct is not None else ""
        print(f"  {label:<30} {n:7d}{more}")
    for label, row in c["per_path"].items():
        print(
            f"  {label:<30} {row['calls']} calls over {row['paths']} paths, at most "
            f"{row['max_per_path']} per path: {row['busiest']}"
        )
    it = c["interpreter"]
    print(
        f"  bash interpreter: {it['runs']} runs, {it['statements_evaluated']} statement "
        f"evaluations of {it['distinct_statements']} distinct statements "
        f"({it['statements_evaluated'] / max(1, it['distinct_statements']):.2f} per statement); "
        f"paths per run {it['paths_per_run']}"
    )
    for path, n in it["heaviest_scripts"]:
        print(f"    {n:6d} statement evaluations  {path}")
    print("  rules (calls, seconds, with the counting wrappers on):")
    for rid, row in list(c["rules"].items())[:12]:
        print(f"    {rid}: {row['calls']} calls, {row['s']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
