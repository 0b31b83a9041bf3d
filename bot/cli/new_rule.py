"""`bot new-rule ID SLUG`: scaffold a recipe rule in this checkout (`bot.app.scaffold`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from bot.app.scaffold import ScaffoldError, checkout_root, new_rule
from bot.cli.common import Subparsers, UsageError
from bot.core.model import SEVERITIES


def register(sub: Subparsers) -> None:
    np = sub.add_parser(
        "new-rule",
        help="scaffold a new recipe rule (module, examples, case file, snapshot, docs)",
        description=(
            "Write a new recipe rule: rules/recipe/<ID>_<slug>.py with its bilingual record, "
            "a working placeholder check and examples that run as tests, "
            "tests/rule_cases/<ID>.yml, tests/snapshots/rules/<ID>.md, and docs/rules.md "
            "regenerated. The test suite passes on the result; then replace the placeholder "
            "with the rule's own logic (CONTRIBUTING.md)."
        ),
        epilog="example:\n  bot new-rule RCP014 eval-without-chat-template\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    np.add_argument("rule_id", metavar="ID", help="the new rule's id, e.g. RCP014")
    np.add_argument("slug", metavar="SLUG", help="its kebab-case slug, e.g. my-new-check")
    np.add_argument(
        "--severity",
        choices=SEVERITIES,
        default="warning",
        help="its default severity (default: warning)",
    )
    np.add_argument(
        "--root",
        type=Path,
        help="the checkout to write into (default: the one this bot is installed from, editable)",
    )
    np.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    root = args.root or checkout_root()
    if root is None:
        raise UsageError("this bot is not installed from a checkout (pip install -e); pass --root")
    try:
        made = new_rule(root, args.rule_id, args.slug, args.severity)
    except ScaffoldError as e:
        raise UsageError(str(e)) from e
    for path in made.written:
        out.write(f"wrote {path.relative_to(root)}\n")
    out.write(
        f"{made.rule_id} runs its placeholder check; make it the rule's own, then refresh its "
        f"snapshot and the docs:\n"
        f"  UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py -k {made.rule_id}\n"
        f"  python -m bot.docs --write\n"
    )
    return 0
