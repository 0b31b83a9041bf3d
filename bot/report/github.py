"""GitHub Actions workflow commands: one annotation line per finding. Pure.

    ::error file=x.sh,line=12,endLine=12,col=5,title=RCP001 slug::message%0Afix

Severity `error` maps to `::error`, `warning` to `::warning`, `info` to
`::notice`. Data and property values are escaped as GitHub's toolkit does
(`%`, CR and LF in data; additionally `:` and `,` in properties). A plain
summary line follows the annotations.
"""

from __future__ import annotations

from bot.core.engine import Report
from bot.core.model import Finding
from bot.report.text import bilingual, langs, summary_lines

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding, lang: str = "both") -> str:
    props = [("file", f.path), ("line", str(f.span.line))]
    if f.span.end_line is not None:
        props.append(("endLine", str(f.span.end_line)))
    props.append(("col", str(f.span.col)))
    if f.span.end_col is not None and f.span.last_line == f.span.line:
        props.append(("endColumn", str(f.span.end_col)))
    props.append(("title", f"{f.rule} {f.slug}"))
    message = bilingual(f.message, lang)
    if f.fix is not None:
        fixes = {"en": f"Fix: {f.fix.en}", "zh": f"修复：{f.fix.zh}"}
        message += "\n" + "\n".join(fixes[code] for code in langs(lang))
    head = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    return f"::{COMMAND[f.severity]} {head}::{escape_data(message)}"


def render(report: Report, lang: str = "both") -> str:
    """Workflow command lines for every finding, then the summary; ends with a newline."""
    lines = [annotation(f, lang) for f in report.findings]
    lines.extend(summary_lines(report, lang))
    return "\n".join(lines) + "\n"
