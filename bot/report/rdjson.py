"""Reviewdog Diagnostic Format (rdjson), for `reviewdog -f=rdjson`. Pure.

    {"source": {"name": "recipe-review-bot", "url": ...},
     "diagnostics": [{"message", "location": {"path", "range": {"start", "end"}},
                      "severity": "ERROR" | "WARNING" | "INFO",
                      "code": {"value": "RCP001", "url": <rule docs>},
                      "suggestions": [{"range", "text"}]}]}

Lines and columns are 1-based; a range's end is exclusive. Columns count UTF-8
bytes, as rdjson's `Position.column` is defined (the finding's character column is
converted on its line). A suggestion replaces
the finding's whole lines (from column 1 of its first line to column 1 of the
line after its last), so reviewdog posts it as a GitHub suggestion; an empty
text deletes the lines. `diagnostics` follow the report's order.
"""

from __future__ import annotations

import json
from typing import Any

from bot.base.span import column_in
from bot.core.engine import Report
from bot.core.model import Finding
from bot.report.links import PROJECT_URL, rule_url
from bot.report.paths import PathMap, as_given
from bot.report.text import langs, message_with_fix

SEVERITY = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


def diagnostic(f: Finding, lang: str = "both", paths: PathMap = as_given) -> dict[str, Any]:
    start = {"line": f.span.line, "column": column_in(f.line_text, f.span.col, "utf8")}
    rng: dict[str, Any] = {"start": start}
    if f.span.end_col is not None and f.span.last_line == f.span.line:
        rng["end"] = {"line": f.span.line, "column": column_in(f.line_text, f.span.end_col, "utf8")}
    elif f.span.end_line is not None:
        rng["end"] = {"line": f.span.end_line + 1, "column": 1}
    out: dict[str, Any] = {
        "message": message_with_fix(f, lang),
        "location": {"path": paths(f.path), "range": rng},
        "severity": SEVERITY[f.severity],
        "code": {"value": f.rule, "url": rule_url(f.rule)},
    }
    if f.suggestion is not None:
        out["suggestions"] = [
            {
                "range": {
                    "start": {"line": f.span.line, "column": 1},
                    "end": {"line": f.span.last_line + 1, "column": 1},
                },
                "text": f.suggestion + "\n" if f.suggestion else "",
            }
        ]
    out["original_output"] = f"{paths(f.path)}:{f.span.line}:{f.span.col}: {f.rule} {f.slug}"
    return out


def render(report: Report, lang: str = "both", *, paths: PathMap = as_given) -> str:
    """The report as one rdjson document, ending with a newline. `paths` maps a path of
    the report to the path printed."""
    langs(lang)
    data = {
        "source": {"name": "recipe-review-bot", "url": PROJECT_URL},
        "diagnostics": [diagnostic(f, lang, paths) for f in report.findings],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
