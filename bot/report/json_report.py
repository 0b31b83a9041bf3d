"""The JSON report: the machine-readable contract. Pure: a Report in, a string out.

Shape (documented by `schemas/findings.schema.json`, version 1)::

    {"version": 1,
     "tool": {"name": "recipe-review-bot", "version": "0.1.0"},
     "findings": [{"rule", "slug", "severity", "path", "line", "column", "end_line",
                   "end_column", "title": {"en", "zh"}, "message": {"en", "zh"},
                   "fix": {"en", "zh"} | null, "suggestion": str | null, "fingerprint"}],
     "summary": {"error", "warning", "info", "files", "suppressed"},
     "shared": [{"path", "dependents", "linted", "introduced", "truncated",
                 "summary": {"en", "zh"}}]}   (only when shared launch code changed)

Both languages are always present; `lang` is accepted for a uniform renderer
signature and ignored. Consumers should ignore members they do not know:
new optional members may be added without bumping `version`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bot import __version__
from bot.core.engine import Report
from bot.core.model import Finding, T

VERSION = 1
TOOL = "recipe-review-bot"


def _t(text: T | None) -> dict[str, str] | None:
    return None if text is None else {"en": text.en, "zh": text.zh}


def finding_dict(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "slug": f.slug,
        "severity": f.severity,
        "path": f.path,
        "line": f.span.line,
        "column": f.span.col,
        "end_line": f.span.last_line,
        "end_column": f.span.end_col,
        "title": _t(f.title),
        "message": _t(f.message),
        "fix": _t(f.fix),
        "suggestion": f.suggestion,
        "proposal": f.proposal,
        "in_diff": f.in_diff,
        "fingerprint": f.fingerprint,
    }


def report_dict(report: Report) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": VERSION,
        "tool": {"name": TOOL, "version": __version__},
        "findings": [finding_dict(f) for f in report.findings],
        "summary": {
            **report.counts(),
            "files": len(report.files),
            "suppressed": report.suppressed,
        },
    }
    if report.shared:
        data["shared"] = [
            {
                "path": c.path,
                "dependents": list(c.dependents),
                "linted": list(c.linted),
                "introduced": c.introduced,
                "truncated": c.truncated,
                "summary": _t(c.describe()),
            }
            for c in report.shared
        ]
    return data


def render(
    report: Report,
    lang: str = "both",
    *,
    indent: int | None = 2,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """The report as JSON text (UTF-8, Chinese left unescaped), ending with a newline.

    `extra`: members added after `summary`, as data (the advisor's `advice` and
    `advisor` with `bot lint --advise`)."""
    del lang  # both languages are always part of the contract
    data = report_dict(report)
    data.update(extra or {})
    return json.dumps(data, ensure_ascii=False, indent=indent) + "\n"
