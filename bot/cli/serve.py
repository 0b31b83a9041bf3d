"""`bot serve`: the GitHub App webhook service (needs the `server` extra)."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from bot.cli.common import Subparsers, UsageError, port, require_extra
from bot.server.settings import SettingsError, help_epilog, load_settings

SERVE_DESCRIPTION = """\
Run the GitHub App webhook service: POST /webhook (signature checked, delivery
persisted in a SQLite queue, 202), GET /healthz, GET /readyz, GET /metrics, and
review workers that post one review per pull request head.
"""


def register(sub: Subparsers) -> None:
    sp = sub.add_parser(
        "serve",
        help="run the webhook service (GitHub App)",
        description=SERVE_DESCRIPTION,
        epilog=help_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sp.add_argument("--host", metavar="H", help="address to bind (default: $BOT_HOST or 127.0.0.1)")
    sp.add_argument(
        "--port", type=port, metavar="P", help="port to listen on (default: $BOT_PORT or 8080)"
    )
    sp.add_argument("--config", metavar="FILE", help="TOML file of settings (default: $BOT_CONFIG)")
    sp.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    require_extra("server", "bot serve")
    try:
        settings = load_settings(
            os.environ, args.config, overrides={"host": args.host, "port": args.port}
        )
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    from bot.server.app import serve  # FastAPI and uvicorn: the `server` extra

    return serve(settings)
