"""GitHub Actions workflow commands: one annotation line per finding. Pure.

    ::error file=x.sh,line=12,endLine=12,col=5,title=RCP001 slug::message%0Afix

Severity `error` maps to `::error`, `warning` to `::warning`, `info` to
`::notice`. Data and property values are escaped as GitHub's toolkit does
(`%`, CR and LF in data; additionally `:` and `,` in properties).

GitHub shows at most 10 annotations of each level per step and drops the rest,
so at most `MAX_PER_LEVEL` of each are printed, findings on lines the pull
request changed first; then one plain line says how many were left out (as
reviewdog does) and plain summary lines follow.
"""

from __future__ import annotations

from bot.core.engine import Report
from bot.core.model import Finding
from bot.core.wording import say
from bot.report.paths import PathMap, as_given
from bot.report.text import langs, message_with_fix, summary_lines

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
MAX_PER_LEVEL = 10


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding, lang: str = "both", paths: PathMap = as_given) -> str:
    props = [("file", paths(f.path)), ("line", str(f.span.line))]
    if f.span.end_line is not None:
        props.append(("endLine", str(f.span.end_line)))
    props.append(("col", str(f.span.col)))
    if f.span.end_col is not None and f.span.last_line == f.span.line:
        props.append(("endColumn", str(f.span.end_col)))
    props.append(("title", f"{f.rule} {f.slug}"))
    message = message_with_fix(f, lang)
    head = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    return f"::{COMMAND[f.severity]} {head}::{escape_data(message)}"


def select(findings: list[Finding], limit: int = MAX_PER_LEVEL) -> tuple[list[Finding], int]:
    """The findings to annotate (report order kept) and how many are left out:
    per level, those on changed lines first, at most `limit`."""
    chosen: set[int] = set()
    for level in COMMAND:
        of_level = [n for n, f in enumerate(findings) if f.severity == level]
        of_level.sort(key=lambda n: 0 if findings[n].in_diff else 1)
        chosen.update(of_level[:limit])
    kept = [f for n, f in enumerate(findings) if n in chosen]
    return kept, len(findings) - len(kept)


def render(
    report: Report, lang: str = "both", *, limit: int = MAX_PER_LEVEL, paths: PathMap = as_given
) -> str:
    """Annotation lines (at most `limit` per level), a line counting the ones left
    out, then the summary; ends with a newline. `paths` maps a path of the report to
    the `file` printed."""
    kept, omitted = select(report.findings, limit)
    lines = [annotation(f, lang, paths) for f in kept]
    if omitted:
        note = say("annotations-omitted", n=omitted, limit=limit)
        lines.append(" / ".join(note.get(code) for code in langs(lang)))
    lines.extend(summary_lines(report, lang))
    return "\n".join(lines) + "\n"
