"""`bot`: lint recipes locally or in CI. An edge: argument parsing, I/O, exit codes.

One thin module per command: it registers its subparser (`register(sub)`, which
binds `set_defaults(func=run)`), and `run(args, out, err)` parses nothing more,
calls the use cases (`bot.app`) or the service's edges, prints, and returns the
exit status. A new command is a new module named in `COMMANDS`.

Commands are loaded by name, as pip loads its commands: `bot lint ...` imports
`bot.cli.lint` alone (not the service, the sign-off or the review), so the linter
starts fast; `bot --help` and a mistyped command load them all to list them.

Exit codes: 0 nothing at or above `--fail-on`; 1 findings at or above it;
2 usage error or unreadable input (one `bot: error: ...` line on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from bot import __version__
from bot.app.files import SourceError
from bot.cli.common import Parser, UsageError
from bot.core.configfile import ConfigError
from bot.core.registry import RegistryError

# each command and the module that registers and runs it, in the order `bot --help`
# lists them (a module may register several: `bot db` and `bot queue`)
COMMANDS: dict[str, str] = {
    "lint": "bot.cli.lint",
    "rules": "bot.cli.rules",
    "explain": "bot.cli.explain",
    "serve": "bot.cli.serve",
    "replay": "bot.cli.replay",
    "signoff": "bot.cli.signoff",
    "review": "bot.cli.review",
    "backtest": "bot.cli.backtest",
    "new-rule": "bot.cli.new_rule",
    "db": "bot.cli.admin",
    "queue": "bot.cli.admin",
}

MAIN_EPILOG = """\
examples:
  bot lint --repo . --base origin/main     lint the changes of the current branch
  bot rules                                list every rule
  bot explain RCP001                       show a rule's documentation (English and 中文)

Run `bot lint --help` for all lint options.
"""


def command_module(name: str) -> ModuleType:
    """The module of command `name` (`COMMANDS`), imported on first use."""
    return importlib.import_module(COMMANDS[name])


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `bot` parser: every command's (None), or `command`'s alone, the others
    listed by name (what `bot COMMAND ...` needs to parse its arguments)."""
    parser = Parser(
        prog="bot",
        description="recipe-review bot: deterministic, bilingual review of LLM inference "
        "benchmark recipes (InferenceX-shaped repositories).",
        epilog=MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    load = set(COMMANDS.values()) if command is None else {COMMANDS[command]}
    for name, module in COMMANDS.items():
        if name in sub.choices:  # registered with another command of its module
            continue
        if module in load:
            command_module(name).register(sub)
        else:
            sub.add_parser(name)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command `argv` names, if it names one (then only its module is loaded)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
        if arg in ("-h", "--help"):
            return None
    return None


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
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command(argv))
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
