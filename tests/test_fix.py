"""`bot lint --fix` and its use case (`bot.app.fix`): ruff's fix semantics on recipes,
the changelog and master configs."""

from __future__ import annotations

import datetime
from pathlib import Path

from bot.app import FixOptions, LintOptions, fix_tree
from bot.base.tree import MemoryTree

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "inferencex-mini"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
TODAY = datetime.date(2026, 8, 20)
OPTIONS = LintOptions(review_date=TODAY, workers=1)


def _example() -> dict[str, bytes]:
    return {
        p.relative_to(EXAMPLE).as_posix(): p.read_bytes() for p in EXAMPLE.rglob("*") if p.is_file()
    }


def test_fix_tree_applies_unsafe_fixes_only_when_asked() -> None:
    tree = MemoryTree(_example())
    safe = fix_tree(tree, options=OPTIONS)
    assert safe.files == [] and safe.fixed == []
    assert {f.rule for f in safe.report.findings} == {"RCP001", "RCP002", "CHL002"}
    unsafe = fix_tree(tree, options=OPTIONS, fixes=FixOptions(unsafe=True))
    assert [f.path for f in unsafe.files] == [AGENTIC]
    assert sorted(f.rule for f in unsafe.fixed) == ["RCP001", "RCP002"]
    after = unsafe.files[0].after.decode()
    assert "--gpu-memory-utilization 0.90\n" in after
    assert "--reasoning-parser" not in after
    assert {f.rule for f in unsafe.report.findings} == {"CHL002"}
    assert unsafe.converged
