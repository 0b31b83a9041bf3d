"""The whole-tree benchmark's tools do what their figures claim (no timing here): the parse
limit reads and parses every routed file, split into two shares that cover them once, and
the profile gives each sample to the innermost stage on its stack."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_lint_tree  # noqa: E402
import profile_lint_tree  # noqa: E402

EXAMPLE = ROOT / "examples" / "inferencex-mini"


def test_the_parse_limit_reads_and_parses_every_routed_file(tmp_path: Path) -> None:
    paths = bench_lint_tree.routed_paths(EXAMPLE)
    assert any(p.endswith(".sh") for p in paths) and "perf-changelog.yaml" in paths
    plan = bench_lint_tree.limit_plan(EXAMPLE, paths)
    first, second = plan["shares"]
    assert sorted(first + second) == sorted(paths)  # each file in exactly one share
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(bench_lint_tree.PARSE_LIMIT), str(plan_file)],
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["files"] == len(paths) and seen["errors"] == 0
    size = sum((EXAMPLE / p).stat().st_size for p in paths)
    assert seen["bytes"] == size and seen["nodes"] > 100 and seen["events"] > 10
    # nothing of the bot's is imported by the limit
    assert "import bot" not in bench_lint_tree.PARSE_LIMIT.read_text(encoding="utf-8")


def test_each_sample_goes_to_the_innermost_stage() -> None:
    lint = ("bot/core/engine.py", "lint")
    rule = ("rules/recipe/RCP002_gpu_memory_too_high_for_draft_head.py", "check")
    run = ("bot/core/engine.py", "_run")
    parsed = ("bot/core/context.py", "Context.parsed")
    recipe = ("bot/parse/kinds.py", "_recipe")
    interp = ("bot/parse/bash/interpreter.py", "Interpreter.run")
    tree = ("bot/parse/bash/syntax.py", "parse_tree")
    samples = [
        ((lint, run, rule), 1.0),  # a rule's own code
        ((lint, run, rule, parsed, recipe, interp), 2.0),  # a sibling the rule interprets
        ((lint, run, rule, parsed, recipe, tree), 4.0),  # ... and parses
        ((lint, ("<frozen importlib._bootstrap>", "_find_and_load")), 8.0),
        ((lint,), 16.0),
    ]
    stages, details, _ = profile_lint_tree.attribute(samples)
    assert dict(stages) == {
        "rules": 1.0,
        "interpret": 2.0,
        "parse": 4.0,
        "imports": 8.0,
        "engine": 16.0,
    }
    assert details["rules: RCP002"] == 1.0
    assert details["interpret: bash interpreter"] == 2.0
    assert details["parse: tree-sitter-bash"] == 4.0


def test_another_build_runs_from_its_own_source_tree(tmp_path: Path) -> None:
    """`--before DIR` runs DIR's `bot` and DIR's `rules/` (as `bot.rules`), not this
    checkout's, though this checkout is installed in development mode and the command
    runs from it."""
    import other_build

    other = tmp_path / "other"
    for name in ("bot", "rules", "schemas"):
        shutil.copytree(ROOT / name, other / name, ignore=shutil.ignore_patterns("__pycache__"))
    init = other / "bot" / "__init__.py"
    init.write_text('__version__ = "0.0.0-other"\n', encoding="utf-8")
    rule = next((other / "rules" / "config").glob("CFG001_*.py"))
    text = rule.read_text(encoding="utf-8")
    rule.write_text(text.replace("Master-config entry does not match", "OTHER BUILD:"), "utf-8")
    outputs = []
    for argv in (["--version"], ["explain", "CFG001"]):
        cmd, env = other_build.command(other, argv)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert "0.0.0-other" in outputs[0]
    assert "OTHER BUILD:" in outputs[1]


def test_the_counting_pass_runs_against_this_build() -> None:
    """The counting pass wraps functions by module and name: a function moved to another
    module (as `archived_master_configs` was) must fail here, not in a later profile."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[2]); import profile_lint_tree as p; "
        "counts = p.count_work(__import__('pathlib').Path(sys.argv[1])); "
        # the rule module the counting pass patched is the one the registry runs
        "from bot.core.registry import all_rules; "
        "mods = {rm.rule.id: sys.modules[rm.module] for rm in all_rules()}; "
        "counts['patched'] = getattr(mods['CFG004']._covers, '__name__', '') == 'wrapper'; "
        "print(json.dumps(counts))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(EXAMPLE), str(ROOT / "benchmarks")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert counts["files"] > 0
    assert counts["calls"]["interpreter runs"] > 0
    assert counts["calls"]["parser changelog"] == 1
    assert counts["patched"]
