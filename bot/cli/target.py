"""What `bot lint` (and `bot lint --fix`) opens for `--repo DIR --base REF [--head REF]`:
the change and its base's configuration, shared by `bot.cli.lint_run` and
`bot.cli.fixing`."""

from __future__ import annotations

import argparse
from contextlib import ExitStack

from bot.app.config import load_repo_config
from bot.app.lint import Change
from bot.app.local import open_local_change
from bot.core.config import Config


def open_change(args: argparse.Namespace, trees: ExitStack) -> tuple[Change, Config]:
    """The change the command line names, kept open in `trees`, and the configuration
    of its base (`--config` wins), so a pull request cannot relax its own checks."""
    change = trees.enter_context(
        open_local_change(
            args.repo,
            args.base,
            args.head,
            pr=args.pr,
            author=args.author,
            repository=args.github_repo,
        )
    )
    config = load_repo_config(change.config_tree, ref=change.config_ref, file=args.config)
    return change, config
