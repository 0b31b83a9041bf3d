"""What every command module shares: the parser class, argument types, errors, extras.

A command module exposes `register(sub)`, which adds its subparser(s) and binds
`set_defaults(func=run)`; `run(args, out, err)` returns the exit status. Raise
`UsageError` for anything the user can fix (exit 2, one `bot: error: ...` line).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeAlias

# `register(sub)` receives this: the `bot` parser's subcommands
Subparsers: TypeAlias = "argparse._SubParsersAction[Any]"

PACKAGE = "recipe-review-bot"
# import names of each extra's required packages (pyproject's optional-dependencies)
EXTRAS: dict[str, tuple[str, ...]] = {
    "server": ("fastapi", "uvicorn", "github", "procrastinate", "psycopg", "psycopg_pool"),
    "llm": ("anthropic",),
}


class UsageError(Exception):
    """A mistake the user can fix: exit 2 with one `bot: error: ...` line."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `bot: error: ... (see 'bot lint --help')`."""

    def error(self, message: str) -> NoReturn:
        hint = f"{self.prog} --help"
        self.exit(2, f"bot: error: {message} (see '{hint}')\n")


def iso_date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {value!r}")
    return number


def port(value: str) -> int:
    number = positive_int(value)
    if number > 65535:
        raise argparse.ArgumentTypeError(f"not a port: {value!r}")
    return number


def read_body(name: str) -> str:
    """A UTF-8 text file's contents ('-': stdin)."""
    data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name}: not valid UTF-8 (byte {exc.start})") from None


def installed(module: str) -> bool:
    """Whether `module` can be imported (without importing it)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_extra(extra: str, what: str, modules: Sequence[str] | None = None) -> None:
    """A usage error naming the extra to install when `what` needs a package it lacks."""
    absent = [m for m in (modules or EXTRAS[extra]) if not installed(m)]
    if absent:
        raise UsageError(
            f"{what} needs the {extra} extra (missing: {', '.join(absent)}): "
            f"pip install '{PACKAGE}[{extra}]'"
        )
