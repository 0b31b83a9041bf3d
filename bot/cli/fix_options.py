"""`bot lint`'s fix options (ruff's `--fix` family): light, so the cached path of
`bot lint` (`bot.cli.lint`) parses them without loading the fixer (`bot.cli.fixing`)."""

from __future__ import annotations

import argparse


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
