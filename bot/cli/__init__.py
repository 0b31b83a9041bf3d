"""`bot`: lint recipes locally or in CI. An edge: argument parsing, I/O, exit codes.

One thin module per command: it registers its subparser (`register(sub)`, which
binds `set_defaults(func=run)`), and `run(args, out, err)` parses nothing more,
calls the use cases (`bot.app`) or the service's edges, prints, and returns the
exit status. A new command is a new module listed in `COMMANDS`.

Exit codes: 0 nothing at or above `--fail-on`; 1 findings at or above it;
2 usage error or unreadable input (one `bot: error: ...` line on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from bot import __version__
from bot.cli import admin, explain, lint, replay, review, rules, serve, signoff
from bot.cli.common import Parser, UsageError
from bot.core.config import ConfigError
from bot.core.registry import RegistryError
from bot.sources import SourceError

# the commands in the order `bot --help` lists them
COMMANDS: tuple[ModuleType, ...] = (lint, rules, explain, serve, replay, signoff, review, admin)

MAIN_EPILOG = """\
examples:
  bot lint --repo . --base origin/main     lint the changes of the current branch
  bot rules                                list every rule
  bot explain RCP001                       show a rule's documentation (English and 中文)

Run `bot lint --help` for all lint options.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="bot",
        description="recipe-review bot: deterministic, bilingual review of LLM inference "
        "benchmark recipes (InferenceX-shaped repositories).",
        epilog=MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS:
        command.register(sub)
    return parser


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        reason = exc.strerror or str(exc)
        return f"{exc.filename}: {reason[0].lower() + reason[1:] if reason else reason}"
    return str(exc) or type(exc).__name__


def _subparser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the subcommand `args` ran (the top-level one when none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            sub = action.choices.get(getattr(args, "command", None) or "")
            if isinstance(sub, argparse.ArgumentParser):
                return _subparser(sub, args)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `bot` command line; returns the exit status."""
    out, err = sys.stdout, sys.stderr
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # point at the subcommand's own help: `bot lint --help`
            _subparser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(err)
        return 2
    try:
        return int(func(args, out, err))
    except BrokenPipeError:  # `bot lint ... | head`: stop quietly
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (UsageError, ConfigError, SourceError, RegistryError, OSError) as exc:
        print(f"bot: error: {_describe(exc)}", file=err)
        return 2
    except KeyboardInterrupt:
        return 130
