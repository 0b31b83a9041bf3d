"""`bot backtest`: lint a repository's past pull requests (bot.backtest does the work)."""

from __future__ import annotations

import argparse
from typing import TextIO

from bot.backtest.cli import add_parser
from bot.backtest.cli import main as run_backtest
from bot.cli.common import Parser, Subparsers


def register(sub: Subparsers) -> None:
    add_parser(sub, Parser).set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return run_backtest(args, out, err)
