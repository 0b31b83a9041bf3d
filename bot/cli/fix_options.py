"""`bot lint`'s fix options (ruff's `--fix` family): light, so the cached path of
`bot lint` (`bot.cli.lint`) parses them without loading the fixer (`bot.cli.fixing`)."""

from __future__ import annotations

import argparse

from bot.cli.common import UsageError


def add_options(lp: argparse.ArgumentParser) -> None:
    group = lp.add_argument_group("fixes (ruff's --fix semantics)")
    group.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes in place (files on disk, the working tree), then report "
        "what remains",
    )
    group.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix, --fix-only or --diff: also apply the fixes marked unsafe (they "
        "change a value a benchmark measures; `bot explain ID` says why)",
    )
    group.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff instead of writing them (exit 1 when there "
        "is something to fix); what remains is not reported",
    )
    group.add_argument(
        "--fix-only",
        action="store_true",
        help="apply the fixes and report nothing else (exit 0 unless --exit-non-zero-on-fix)",
    )
    group.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when a fix was applied, even if nothing remains",
    )


def wanted(args: argparse.Namespace) -> bool:
    """Whether the command line asks for fixes."""
    return bool(args.fix or args.fix_only or args.diff)


def writes(args: argparse.Namespace) -> bool:
    """Whether the fixes go to the files (`--diff` wins over `--fix`, as in ruff)."""
    return wanted(args) and not args.diff


def check(args: argparse.Namespace) -> None:
    """Usage errors of the fix options, once the lint mode is resolved."""
    if not wanted(args):
        return
    option = "--diff" if args.diff else "--fix-only" if args.fix_only else "--fix"
    if writes(args) and args.head:
        raise UsageError(
            f"{option} writes the fixed files into the working tree, and --head {args.head} "
            "lints a commit, which has none: check the commit out and run without --head, "
            "or print the fixes with --diff"
        )
    if args.advise:
        raise UsageError(f"--advise reviews a change; run it without {option}")
