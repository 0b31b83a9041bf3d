"""`bot rules`: list every rule (text, JSON or a Markdown table)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from bot.cli.common import Subparsers
from bot.core.registry import all_rules
from bot.docs import render_rules_table


def register(sub: Subparsers) -> None:
    rp = sub.add_parser(
        "rules",
        help="list every rule",
        description="List every rule: id, severity, slug and title.",
    )
    rp.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="output format (default: text)",
    )
    rp.set_defaults(func=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rules = [rm.rule for rm in all_rules()]
    if args.format == "json":
        data = [
            {
                "id": r.id,
                "slug": r.slug,
                "severity": r.severity,
                "conditions": [
                    {
                        "name": name,
                        "severity": c.severity,
                        "when": {"en": c.when.en, "zh": c.when.zh},
                    }
                    for name, c in r.conditions.items()
                ],
                "target": r.target,
                "title": {"en": r.title.en, "zh": r.title.zh},
            }
            for r in rules
        ]
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    if args.format == "markdown":
        out.write(render_rules_table(rules) + "\n")
        return 0
    if not rules:
        out.write("no rules registered\n")
        return 0
    slug_w = max(len(r.slug) for r in rules)
    for r in rules:
        out.write(f"{r.id}  {r.severity:<7}  {r.slug:<{slug_w}}  {r.title.en}\n")
        for name, c in r.conditions.items():
            out.write(f"{'':6}  {c.severity:<7}  {'':<{slug_w}}  when {c.when.en} ({name})\n")
    return 0
