"""Imports sit at the top of a module; inside a function only where an optional dependency
needs it.

An import inside a function hides a dependency from the reader, from import-linter's
layer contracts (which see it, but only as a plain edge) and from start-up: it is allowed
only for a package of the `server` or `llm` extra (`pyproject.toml`), or for a project
module that imports one at its top level, directly or through other project modules, so
`bot lint` starts without them; and for a library in `DEFERRED`: slow to load and used
by only some lints (a recipe linted alone needs none of them:
`tests/test_light_install.py::test_a_recipe_lint_loads_only_what_it_uses`). Everything
else is imported where the module starts.
Checked on the syntax trees of `bot/` and `rules/`.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from bot.cli.common import EXTRAS

ROOT = Path(__file__).resolve().parents[1]

# import names of the packages of the optional extras, by distribution name
OPTIONAL: dict[str, str] = {
    "fastapi": "fastapi",
    "uvicorn": "uvicorn",
    "httptools": "httptools",
    "uvloop": "uvloop",
    "pygithub": "github",
    "procrastinate": "procrastinate",
    "psycopg": "psycopg",
    "psycopg-pool": "psycopg_pool",
    "anthropic": "anthropic",
    "matplotlib": "matplotlib",
    "tqdm": "tqdm",
}
OPTIONAL_MODULES = frozenset(OPTIONAL.values())
# slow to load (tens of milliseconds each) and needed only by some lints: JSON Schema
# validation (a repository's configuration, CFG001, CHL001, the advisor's answers), pip
# requirement parsing (a recipe's `pip install`), installed versions (the lint cache's key)
DEFERRED = frozenset({"jsonschema", "packaging", "importlib.metadata"})


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _files() -> dict[str, Path]:
    files = sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "rules").rglob("*.py")])
    return {_module_name(p): p for p in files}


FILES = _files()


def _targets(node: ast.Import | ast.ImportFrom, module: str) -> list[str]:
    """The modules an import statement loads (relative imports resolved)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".")
        if FILES.get(module, Path()).name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    out = [base]
    out += [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in FILES]
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(
    node: ast.AST, module: str, in_function: bool
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """(import statement, whether it runs inside a function), `TYPE_CHECKING` left out."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            yield from (
                (n, in_function) for o in child.orelse for n, _ in _walk(o, module, in_function)
            )
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, in_function
        inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        yield from _walk(child, module, inner)


@cache
def _imports(module: str) -> tuple[tuple[tuple[str, ...], int, bool], ...]:
    path = FILES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return tuple(
        (tuple(_targets(node, module)), node.lineno, in_function)
        for node, in_function in _walk(tree, module, False)
    )


def _optional_package(name: str) -> bool:
    return name.split(".")[0] in OPTIONAL_MODULES


def needs_extra(module: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether importing `module` imports a package of an optional extra."""
    if _optional_package(module):
        return True
    if module not in FILES or module in seen:
        return False
    seen = seen | {module}
    return any(
        needs_extra(target, seen)
        for targets, _, in_function in _imports(module)
        if not in_function
        for target in targets
    )


def violations() -> list[str]:
    out = []
    for module, path in FILES.items():
        for targets, line, in_function in _imports(module):
            deferred = any(t in DEFERRED or t.split(".")[0] in DEFERRED for t in targets)
            if in_function and not deferred and not any(needs_extra(t) for t in targets):
                rel = path.relative_to(ROOT).as_posix()
                out.append(f"{rel}:{line}: import {targets[0]} inside a function")
    return out


def test_imports_inside_functions_are_only_for_optional_dependencies() -> None:
    found = violations()
    assert not found, (
        "import these at the top of the module (only a module of the server, llm or backtest extra, "
        "or one that imports it, may be imported inside a function):\n" + "\n".join(found)
    )


def test_the_optional_list_is_the_extras_of_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    names = {
        re.split(r"[\[<>=!~;\s]", req, maxsplit=1)[0].lower()
        for extra in ("server", "llm", "backtest")
        for req in extras[extra]
    }
    assert names == set(OPTIONAL), "update OPTIONAL with the extras' import names"
    base = {
        re.split(r"[\[<>=!~;\s]", req, maxsplit=1)[0].lower() for req in project["dependencies"]
    }
    assert not base & set(OPTIONAL), "a package of the default install is not optional"
    # what `bot serve` and `bot lint --advise` check before they run
    assert {m for modules in EXTRAS.values() for m in modules} <= OPTIONAL_MODULES


def test_the_server_app_needs_the_extra_and_the_lint_command_does_not() -> None:
    assert needs_extra("bot.server.app")  # fastapi at its top
    assert needs_extra("bot.github.gateway")  # PyGithub
    assert not needs_extra("bot.cli.lint")
    assert not needs_extra("bot.app")


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("def f():\n    import json\n", True),
        ("def f():\n    from bot.core.model import T\n", True),
        ("class A:\n    def m(self):\n        import os\n", True),
        ("def f():\n    import anthropic\n", False),
        ("def f():\n    from bot.server.app import serve\n", False),
        ("import json\n", False),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import json\n", False),
    ],
)
def test_the_checker(source: str, bad: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse(source)
    found = [
        targets
        for node, in_function in _walk(tree, "bot.example", False)
        if in_function
        for targets in [_targets(node, "bot.example")]
        if not any(needs_extra(t) for t in targets)
    ]
    assert bool(found) is bad
