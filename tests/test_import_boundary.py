"""The core (`bot.base`, `bot.core`, `bot.parse`, `bot.rules`) does no I/O: no edge imports.

Checked by scanning the source files' syntax trees, so a lazy import inside a
function or an `importlib.import_module("subprocess")` is caught as well.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

CORE_PACKAGES = ("bot.base", "bot.core", "bot.parse", "bot.rules")

FORBIDDEN = (
    "bot.cli",
    "bot.sources",
    "bot.server",
    "bot.github",
    "subprocess",
    "socket",
    "urllib",
    "http",
    "github",
    "fastapi",
    "requests",
    "httpx",
    "aiohttp",
    "anthropic",
    "bot.advisor",
)


def forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


def source_files() -> list[Path]:
    files: list[Path] = []
    for name in CORE_PACKAGES:
        package = importlib.import_module(name)
        for folder in package.__path__:
            files.extend(sorted(Path(folder).rglob("*.py")))
    return files


def violations(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if forbidden(alias.name):
                    yield node.lineno, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if forbidden(node.module):
                yield node.lineno, f"from {node.module} import ..."
            for alias in node.names:
                if forbidden(f"{node.module}.{alias.name}"):
                    yield node.lineno, f"from {node.module} import {alias.name}"
            if node.module == "os" and any(
                a.name in ("environ", "getenv", "environb") for a in node.names
            ):
                yield node.lineno, "environment access (from os import environ/getenv)"
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            if node.attr in ("environ", "environb", "getenv", "putenv", "system", "popen"):
                yield node.lineno, f"os.{node.attr}"
        elif isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if (
                    isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str)
                    and forbidden(arg.value)
                ):
                    yield node.lineno, f"{name}({arg.value!r})"


FILES = source_files()


def test_core_sources_found() -> None:
    names = {p.name for p in FILES}
    assert "engine.py" in names and "model.py" in names


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_edge_imports(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = [f"{path.name}:{line}: {what}" for line, what in violations(tree)]
    assert not found, "the core must not reach the edges:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess",
        "def f():\n    from bot.sources import FsTree",
        "from bot import cli",
        "import os\nx = os.environ['HOME']",
        "from os import getenv",
        "import importlib\nimportlib.import_module('socket')",
        "import urllib.request",
        "from http.client import HTTPConnection",
        "import github",
        "def f():\n    import anthropic",
        "from bot.advisor.client import Advisor",
    ],
)
def test_checker_catches(source: str) -> None:
    assert list(violations(ast.parse(source)))


def test_checker_allows_plain_core_code() -> None:
    assert not list(
        violations(ast.parse("import os.path\nimport re\nfrom bot.core.model import T\n"))
    )


def test_only_the_advisor_client_imports_anthropic() -> None:
    """The SDK is an optional extra: one edge module imports it, lazily."""
    root = Path(__file__).resolve().parents[1]
    importers = []
    for path in sorted([*(root / "bot").rglob("*.py"), *(root / "rules").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "anthropic" or n.startswith("anthropic.") for n in names):
                importers.append(path.relative_to(root).as_posix())
    assert sorted(set(importers)) == ["bot/advisor/client.py"]


def test_cli_service_and_review_run_without_the_sdk(tmp_path: Path) -> None:
    """With `anthropic` uninstallable, lint, the review pipeline and the service still import
    and run, and --advise says in one line what is missing."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    code = (
        "import sys; sys.modules['anthropic'] = None\n"
        "import bot.server.app, bot.review.pipeline, bot.advisor.render, bot.advisor.service\n"
        "from bot.cli import main\n"
        "rc = main(['lint', 'examples/inferencex-mini', '--format', 'json', '-o', "
        f"{str(tmp_path / 'out.json')!r}])\n"
        "assert rc == 1, rc\n"
        "import os; os.environ['ANTHROPIC_API_KEY'] = 'k'\n"
        "rc = main(['lint', 'examples/inferencex-mini', '--advise'])\n"
        "assert rc == 2, rc\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        proc.stderr.strip().splitlines()[-1].startswith("bot: error: --advise needs the anthropic")
    )
