"""`bot review --dry-run`: the review the service would post, from local git.

The service's own pipeline (`bot.review.pipeline`) runs through a gateway that
reads the local clone (`bot.github.localgit`) and records writes instead of
sending them (`bot.server.dryrun`).
"""

from __future__ import annotations

import argparse
import datetime
import json
from typing import TextIO

from bot.app.local import origin_repository, work_tree
from bot.app.pull import local_pull
from bot.cli.common import Subparsers, UsageError, iso_date, positive_int
from bot.github.localgit import LocalGitGateway
from bot.review.pipeline import ReviewSettings, review_pull_request
from bot.server.dryrun import DryRunGateway

REVIEW_EPILOG = """\
examples:
  bot review --repo . --pr 2423 --base origin/main --head HEAD --dry-run
  bot review --repo . --pr 2423 --base origin/main --head pr-2423 --dry-run --format json

Runs the service's review pipeline (lint, split by the diff, render) on a pull
request read from local git, and prints exactly what the service would post:
the review with each inline comment and its body, the summary comment, the
check run (the payload GitHub would receive, its summary, details and each
annotation) and the commit status. Nothing is sent anywhere; no GitHub access is needed (like
`danger pr`). The changed files and patches are `git diff MERGE_BASE HEAD`, the
configuration is read from BASE, and the review is rendered as the bot's first
on the pull request (a local clone holds no comments).

exit status: 0 printed, 2 usage or input error.
"""


def register(sub: Subparsers) -> None:
    vp = sub.add_parser(
        "review",
        help="print the review the service would post on a pull request, from local git",
        description="Render the pull-request review the service would post, from local git.",
        epilog=REVIEW_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    vp.add_argument("--repo", default=".", metavar="DIR", help="git checkout (default: .)")
    vp.add_argument("--pr", required=True, type=positive_int, metavar="N", help="PR number")
    vp.add_argument("--base", required=True, metavar="REF", help="the pull request's base branch")
    vp.add_argument("--head", default="HEAD", metavar="REF", help="its head (default: HEAD)")
    vp.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be posted (required: posting needs the service or `bot replay`)",
    )
    vp.add_argument("--author", metavar="LOGIN", help="the pull request's author")
    vp.add_argument(
        "--github-repo",
        metavar="OWNER/NAME",
        help="the pull request's repository (default: from the `origin` remote)",
    )
    vp.add_argument(
        "--date",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help="review date for dated knowledge such as deprecations (default: today)",
    )
    vp.add_argument(
        "--status-context", default="recipe-review", metavar="NAME", help="commit status name"
    )
    vp.add_argument(
        "--check-run",
        default="recipe-review",
        metavar="NAME",
        help="the check run's name (default: recipe-review; '' for none, status only)",
    )
    vp.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    vp.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not args.dry_run:
        raise UsageError(
            "bot review reads local git and posts nothing: pass --dry-run "
            "(the service, or `bot replay EVENT_FILE`, posts reviews)"
        )
    work_tree(args.repo)
    repository = args.github_repo or origin_repository(args.repo)
    if repository is None:
        raise UsageError(
            f"bot review needs the pull request's GitHub repository: the `origin` remote of "
            f"{args.repo} is not a GitHub URL; pass --github-repo OWNER/NAME"
        )
    pull = local_pull(
        args.repo, args.pr, args.base, args.head, repository=repository, author=args.author
    )
    local = LocalGitGateway(args.repo, {pull.number: pull})
    dry = DryRunGateway(local)
    try:
        posted = review_pull_request(
            dry,
            pull.repo,
            pull.number,
            settings=ReviewSettings(
                status_context=args.status_context,
                bot_login=local.login(),
                check_run=args.check_run or None,
            ),
            today=args.date or datetime.date.today(),
        )
    finally:
        local.close()
    target = f"{pull.repo}#{pull.number} at {pull.head_sha[:12]}"
    if args.format == "json":
        data = {"pull": target, "skipped": posted.skipped, "writes": json.loads(dry.to_json())}
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(f"dry run of the review of {target} (from local git)\n")
        out.write(dry.render())
    out.flush()
    return 0
