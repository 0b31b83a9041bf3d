"""Plain-text report for terminals. Pure: a Report in, a string out.

    benchmarks/single_node/agentic/x_mtp.sh:12:5  error  RCP001 reasoning-parser-on-interleaved-thinking
      `--reasoning-parser minimax_m3` moves ...
      `--reasoning-parser minimax_m3` 会把 ...
      fix: Drop `--reasoning-parser`; keep `--tool-call-parser`
      修复：删除 `--reasoning-parser`，保留 `--tool-call-parser`

Findings are grouped by file (a blank line between files) and followed by a
summary line per language. ANSI colour only when `color=True`.
"""

from __future__ import annotations

from itertools import groupby

from bot.core.engine import Report
from bot.core.model import Finding, T
from bot.core.wording import SEVERITY, say
from bot.report.paths import PathMap, as_given

LANGS = ("en", "zh", "both")

_RESET = "\x1b[0m"
_STYLE = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "info": "\x1b[1;36m",
    "loc": "\x1b[1m",
    "rule": "\x1b[35m",
    "dim": "\x1b[2m",
    "ok": "\x1b[1;32m",
}


def langs(lang: str) -> tuple[str, ...]:
    """The languages to print for `lang` ("en", "zh" or "both")."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    return ("en", "zh") if lang == "both" else (lang,)


def bilingual(text: T, lang: str, sep: str = "\n") -> str:
    """`text` in the chosen language(s), English first; one copy when both are equal."""
    parts = [text.get(code) for code in langs(lang)]
    if len(parts) == 2 and parts[0] == parts[1]:
        parts = parts[:1]
    return sep.join(parts)


def message_with_fix(f: Finding, lang: str) -> str:
    """The finding's message, then its fix (`Fix: ...` / `修复：...`), in `lang`: the
    one-string form of the machine formats (SARIF, rdjson, GitHub annotations)."""
    text = bilingual(f.message, lang)
    if f.fix is not None:
        fix = say("fix", fix=f.fix)
        text += "\n" + "\n".join(fix.get(code) for code in langs(lang))
    return text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_lines(report: Report, lang: str) -> list[str]:
    """One summary line per chosen language."""
    counts = report.counts()
    nfiles = len(report.files)
    out: list[str] = []
    # English counts its nouns ("1 error", "2 errors"); Chinese gives the numbers
    files = {"files": _plural(nfiles, "file"), "files_zh": nfiles}
    if report.findings:
        text = say(
            "text-counts",
            error=_plural(counts["error"], SEVERITY["error"].en),
            error_zh=counts["error"],
            warning=_plural(counts["warning"], SEVERITY["warning"].en),
            warning_zh=counts["warning"],
            info=counts["info"],
            **files,
        )
    else:
        text = say("text-clean", **files)
    suppressed = say("text-suppressed", n=report.suppressed)
    for code in langs(lang):
        line = text.get(code)
        if report.suppressed:
            line += suppressed.get(code)
        out.append(line)
    for check in report.shared:
        text = check.describe()
        out.extend(text.en if code == "en" else text.zh for code in langs(lang))
    return out


def _paint(text: str, style: str, color: bool) -> str:
    return f"{_STYLE[style]}{text}{_RESET}" if color else text


def _finding(f: Finding, lang: str, color: bool, paths: PathMap) -> list[str]:
    loc = _paint(f"{paths(f.path)}:{f.span.line}:{f.span.col}", "loc", color)
    sev = _paint(f.severity, f.severity, color)
    rule = _paint(f"{f.rule} {f.slug}", "rule", color)
    lines = [f"{loc}  {sev}  {rule}"]
    if f.line_text is not None and f.line_text.strip():
        # `+` marks a line the pull request added or changed
        mark = "+" if f.in_diff else " "
        lines.append(_paint(f"  {f.span.line:>5} {mark}| ", "dim", color) + f.line_text.rstrip())
    codes = langs(lang)
    for code in codes:
        lines.extend("  " + part for part in f.message.get(code).splitlines() or [""])
        if len(codes) == 2 and f.message.en == f.message.zh:
            break
    if f.fix is not None:
        for code in codes:
            label = say("fix-label").get(code)
            lines.append("  " + _paint(label, "dim", color) + f.fix.get(code))
            if len(codes) == 2 and f.fix.en == f.fix.zh:
                break
    if f.suggestion is not None:
        names = say("suggestion-label")
        lines.append("  " + _paint(" / ".join(names.get(c) for c in codes), "dim", color))
        if f.suggestion:
            lines.extend("  | " + part for part in f.suggestion.splitlines())
        else:
            deleted = say("delete-line")
            lines.append("  | " + " ".join(deleted.get(c) for c in codes))
    if f.proposal is not None:
        names = say("proposal-label")
        lines.append("  " + _paint(" / ".join(names.get(c) for c in codes), "dim", color))
        lines.extend("  | " + part for part in f.proposal.splitlines())
    return lines


def render(
    report: Report, lang: str = "both", *, color: bool = False, paths: PathMap = as_given
) -> str:
    """The report as terminal text, ending with a newline. `paths` maps a path of the
    report to the path printed (the CLI prints them from the current directory)."""
    langs(lang)  # validate early
    out: list[str] = []
    for _, group in groupby(report.findings, key=lambda f: f.path):
        if out:
            out.append("")
        for f in group:
            out.extend(_finding(f, lang, color, paths))
    if out:
        out.append("")
    style = "error" if report.counts()["error"] else ("warning" if report.findings else "ok")
    out.extend(_paint(line, style, color) for line in summary_lines(report, lang))
    return "\n".join(out) + "\n"
