"""`bot db migrate|status`, `bot queue status|retry`: the service's queue database
(`bot.server.admin`; needs the `server` extra)."""

from __future__ import annotations

import argparse
from typing import TextIO

from bot.cli.common import Parser, Subparsers, require_extra
from bot.server import admin


def register(sub: Subparsers) -> None:
    admin.add_commands(sub, parser_class=Parser)
    for name in ("db", "queue"):
        sub.choices[name].set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    require_extra("server", f"bot {args.command}")
    return admin.run(args, out, err)
