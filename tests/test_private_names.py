"""No module reaches into another module's private names (`from x import _y`, `x._y`).

A name with a leading underscore is its module's own business; one another module
needs is public (named without `_`) and typed as such. Scanned over `bot/` and
`rules/` (the installed `bot.rules`), whichever way the module is imported.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "rules").rglob("*.py")])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def reaches(source: str) -> list[str]:
    """The private names of project modules this source uses."""
    tree = ast.parse(source)
    modules: set[str] = set()  # local names bound to a project module
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "bot":
                    modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "bot":
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                elif _is_module(f"{node.module}.{alias.name}"):
                    modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _private(node.attr)
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_module_uses_another_modules_private_names(path: Path) -> None:
    assert reaches(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "source",
    [
        "from bot.parse.master_config import _plain\n",
        "from bot.parse import facts\nx = facts._float(1)\n",
        "import bot.core.engine as engine\nengine._run\n",
        "def f():\n    from bot.sources import _git\n",
    ],
)
def test_the_scan_catches(source: str) -> None:
    assert reaches(source)


def test_the_scan_allows_public_and_dunder_names() -> None:
    source = (
        "from bot.parse import facts\nfrom bot.parse.facts import number\n"
        "import bot\nfacts.number(1)\nbot.__name__\nclass A:\n    def f(self):\n"
        "        return self._x\n"
    )
    assert reaches(source) == []
