"""`--output-format concise`: one line per finding, for triage with grep and editors. Pure.

    benchmarks/single_node/agentic/x_mtp.sh:12:5: RCP001 [error] `--reasoning-parser ...` moves ...

`path:line:col: ID [severity] message`, the message in the chosen language(s)
(both: English / 中文) on one line, then the summary lines of the text format.
"""

from __future__ import annotations

from bot.core.engine import Report
from bot.core.model import Finding
from bot.report.paths import PathMap, as_given
from bot.report.text import langs, summary_lines

_RESET = "\x1b[0m"
_STYLE = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "info": "\x1b[1;36m", "loc": "\x1b[1m"}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def line(f: Finding, lang: str = "both", *, color: bool = False, paths: PathMap = as_given) -> str:
    texts = [_one_line(f.message.get(code)) for code in langs(lang)]
    if len(texts) == 2 and texts[0] == texts[1]:
        texts = texts[:1]
    loc = f"{paths(f.path)}:{f.span.line}:{f.span.col}:"
    sev = f"[{f.severity}]"
    if color:
        loc = f"{_STYLE['loc']}{loc}{_RESET}"
        sev = f"{_STYLE[f.severity]}{sev}{_RESET}"
    return f"{loc} {f.rule} {sev} {' / '.join(texts)}"


def render(
    report: Report, lang: str = "both", *, color: bool = False, paths: PathMap = as_given
) -> str:
    """One line per finding, in the report's order, then the summary; ends with a newline."""
    langs(lang)
    out = [line(f, lang, color=color, paths=paths) for f in report.findings]
    out.extend(summary_lines(report, lang))
    return "\n".join(out) + "\n"
