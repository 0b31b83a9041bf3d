"""Units small enough to read in one sitting, where the code was split to make them so.

The bash interpreter (`bot/parse/bash/`) is split by concern; these limits keep it
that way: no module over 800 lines, no function over 100 lines, no block that radon
rates F (cyclomatic complexity over 40).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parents[1]
SPLIT = [ROOT / "bot" / "parse" / "bash"]
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 100


def _modules() -> list[Path]:
    return sorted(p for folder in SPLIT for p in folder.rglob("*.py"))


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """Functions (decorators included) longer than `limit` lines."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            length = (node.end_lineno or node.lineno) - first + 1
            if length > limit:
                out.append(f"{node.name} ({length} lines)")
    return out


def f_blocks(source: str) -> list[str]:
    """Blocks radon rates F."""
    return [f"{b.name} ({b.complexity})" for b in cc_visit(source) if cc_rank(b.complexity) == "F"]


def test_the_split_is_seen() -> None:
    names = {p.name for p in _modules()}
    assert {"interpreter.py", "expand.py", "conditions.py", "commands.py", "paths.py"} <= names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_unit_limits(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MAX_MODULE_LINES
    assert long_functions(source) == []
    assert f_blocks(source) == []


def test_the_checks_can_fail() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}") == [f"f ({MAX_FUNCTION_LINES + 1} lines)"]
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(45))
    assert f_blocks(f"def g(x):\n{branches}    return -1\n") == ["g (46)"]
