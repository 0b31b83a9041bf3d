"""`bot explain RULE`: one rule's documentation in English and Chinese."""

from __future__ import annotations

import argparse
from typing import TextIO

from bot.cli.common import Subparsers, UsageError
from bot.core.registry import get_rule
from bot.docs import render_rule_markdown


def register(sub: Subparsers) -> None:
    ep = sub.add_parser(
        "explain",
        help="show one rule's documentation",
        description="Show a rule's documentation in English and Chinese: message, fix, rationale and examples.",
        epilog="examples:\n  bot explain RCP001\n  bot explain reasoning-parser-on-interleaved-thinking\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ep.add_argument("rule", metavar="ID|SLUG", help="rule id (RCP001) or slug")
    ep.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rm = get_rule(args.rule)
    if rm is None:
        raise UsageError(f"unknown rule {args.rule!r} (run 'bot rules' for the list)")
    out.write(render_rule_markdown(rm, level=1))
    return 0
