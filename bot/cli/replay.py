"""`bot replay`: review a pull request from a recorded webhook payload."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from bot.cli.common import Subparsers, UsageError, positive_int, require_extra
from bot.server.replay import ReplayError, ReplayOptions, replay

REPLAY_EPILOG = """\
examples:
  bot replay delivery.json --event pull_request --dry-run
  bot replay payloads.json --event pull_request --index 3 --dry-run --format json
  GITHUB_API_URL=http://127.0.0.1:9000 bot replay delivery.json --event pull_request
  bot replay delivery.json --event pull_request --dry-run --local-repo .   # no GitHub

The payload is judged as a live delivery would be (ignored actions are reported
and exit 0); the review then runs once against GITHUB_API_URL with the configured
credentials (see `bot serve --help`). --dry-run reads from GitHub but writes
nothing: it prints the review, comments and status that would be posted.

exit status: 0 done (or ignored), 1 GitHub error, 2 usage or input error.
"""


def register(sub: Subparsers) -> None:
    rp = sub.add_parser(
        "replay",
        help="review a pull request from a recorded webhook payload",
        description="Process a recorded webhook payload against a real or fake GitHub: "
        "print (--dry-run) or post the review.",
        epilog=REPLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rp.add_argument("event_file", metavar="EVENT_FILE", help="JSON payload (or a list of them)")
    rp.add_argument(
        "--event", required=True, metavar="NAME", help="the X-GitHub-Event name (pull_request)"
    )
    rp.add_argument("--dry-run", action="store_true", help="print what would be posted")
    rp.add_argument(
        "--index", type=int, metavar="N", help="which payload when EVENT_FILE holds a list"
    )
    rp.add_argument(
        "--installation",
        type=positive_int,
        metavar="ID",
        help="GitHub App installation (default: the payload's)",
    )
    rp.add_argument(
        "--format", choices=("text", "json"), default="text", help="dry-run output format"
    )
    rp.add_argument("--config", metavar="FILE", help="TOML file of settings (default: $BOT_CONFIG)")
    rp.add_argument(
        "--local-repo",
        metavar="DIR",
        help="with --dry-run: read the pull request from this local clone, not GitHub",
    )
    rp.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not (args.dry_run and args.local_repo):  # GitHub is read through PyGithub
        require_extra("server", "bot replay")
    options = ReplayOptions(
        event_file=args.event_file,
        event=args.event,
        dry_run=args.dry_run,
        index=args.index,
        installation=args.installation,
        config=args.config,
        format=args.format,
        local_repo=args.local_repo,
    )
    try:
        return replay(options, os.environ, out, err)
    except ReplayError as exc:
        raise UsageError(str(exc)) from None
