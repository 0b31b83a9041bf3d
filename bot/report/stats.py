"""`bot lint --statistics`: one row per rule and emitted severity with its count. Pure.

    3  RCP001  error    [*] reasoning-parser-on-interleaved-thinking
    1  RCP001  warning  [*] reasoning-parser-on-interleaved-thinking

The severity is the one the findings were reported at (a rule's declared conditions
and the repository's overrides change it), so a rule that reported at two
severities has two rows. `[*]` marks rows whose findings all carry a suggestion.
Rows are sorted by count (highest first), then rule id, then severity (errors
first). `--format json` gives the same rows as a list.
"""

from __future__ import annotations

import json
from typing import Any

from bot.core.engine import Report
from bot.core.model import SEVERITY_RANK


def rows(report: Report) -> list[dict[str, Any]]:
    by_rule: dict[tuple[str, str], dict[str, Any]] = {}
    for f in report.findings:
        row = by_rule.setdefault(
            (f.rule, f.severity),
            {"code": f.rule, "name": f.slug, "severity": f.severity, "count": 0, "fixable": True},
        )
        row["count"] += 1
        row["fixable"] = row["fixable"] and f.suggestion is not None
    return sorted(
        by_rule.values(),
        key=lambda r: (-r["count"], r["code"], -SEVERITY_RANK[r["severity"]]),
    )


def render(report: Report, fmt: str = "text") -> str:
    data = rows(report)
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if not data:
        return ""
    width = max(len(str(r["count"])) for r in data)
    out = [
        f"{r['count']:>{width}}  {r['code']}  {r['severity']:<7}  "
        f"{'[*] ' if r['fixable'] else ''}{r['name']}"
        for r in data
    ]
    return "\n".join(out) + "\n"
