"""Advice as JSON, terminal text and the sticky summary's collapsed section. Pure.

Advice is never a merge gate: it changes no status, verdict or finding. In the sticky
summary it lives between two of the bot's own markers (`ADVISOR_START`/`ADVISOR_END`),
inside `<details>`; every text in it came through `grounding.check_answer` (marker-like
text, HTML, links and mentions already dropped or stripped) and is escaped again here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.advisor.grounding import Advice
from bot.advisor.sanitize import clean_output
from bot.core.model import T
from bot.core.wording import both, say

# the question each piece of advice answers, as a heading
QUESTIONS: dict[str, T] = {
    q: say(f"question-{q}")
    for q in (
        "upstream_args",
        "waiver_coverage",
        "append_only_gating",
        "signoff_reasons",
        "sibling_diff",
        "claims_match",
    )
}


def _verdict(verdict: str) -> T:
    return say(f"verdict-{verdict}")


ADVISOR_START = "<!-- recipe-review:advisor sha={sha} -->"
ADVISOR_END = "<!-- recipe-review:advisor-end -->"
_SECTION_RE = re.compile(
    r"\n*<!-- recipe-review:advisor sha=([0-9a-f]{7,64}) -->.*?<!-- recipe-review:advisor-end -->\n?",
    re.S,
)
ICON = {"concern": "⚠️", "no_concern": "✅", "cannot_tell": "❔"}


def advice_json(items: Sequence[Advice]) -> list[dict[str, Any]]:
    return [a.as_json() for a in items]


def run_json(run: Any) -> dict[str, Any]:
    return {
        "model": run.model,
        "asked": list(run.asked),
        "calls": run.calls,
        "cached": run.cached,
        "skipped": list(run.skipped),
        "dropped": list(run.dropped),
        "errors": list(run.errors),
        "deferred_seconds": run.deferred,
        "usage": {
            "input_tokens": run.usage.input_tokens,
            "output_tokens": run.usage.output_tokens,
            "cache_write_tokens": run.usage.cache_write_tokens,
            "cache_read_tokens": run.usage.cache_read_tokens,
        },
        "cost_usd": round(run.cost_usd, 6),
    }


def text_section(items: Sequence[Advice], run: Any, lang: str = "both") -> str:
    codes = ("en", "zh") if lang == "both" else (lang,)
    title = say("advisor-title")
    out = [" / ".join(title.get(c) for c in codes)]
    if not items:
        none = say("advisor-none")
        out.append("  " + " / ".join(none.get(c) for c in codes))
    for a in items:
        verdict = a.verdict if codes == ("en",) else f"{a.verdict} {_verdict(a.verdict).zh}"
        out.append(f"{a.path}:{a.line}  {verdict}  {a.question}  (confidence {a.confidence:g})")
        out.append(f"  | {a.quote}")
        if "en" in codes:
            out.append(f"  {a.message_en}")
        if "zh" in codes:
            out.append(f"  {a.message_zh}")
    notes = [f"{run.calls} call(s), {run.cached} cached", f"${run.cost_usd:.4f}"]
    if run.dropped:
        notes.append(f"{len(run.dropped)} item(s) dropped")
    if run.deferred is not None:
        notes.append(f"deferred ({run.deferred:g} s)")
    out.append("  " + ", ".join(notes))
    out += [f"  error: {e}" for e in run.errors]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    """Model text made inert in markdown: cleaned, one line, no backticks or pipes."""
    text = clean_output(text).replace("\n", " ")
    return re.sub(r"([\\`*_\[\]|#~])", r"\\\1", text).strip()


def _code(text: str) -> str:
    text = clean_output(text).replace("\n", " ").replace("`", "'")
    return f"`` {text} ``"


def summary_section(items: Sequence[Advice], head_sha: str, note: str = "") -> str:
    """The collapsed "Advisor" section of the sticky summary."""
    concerns = sum(1 for a in items if a.verdict == "concern")
    unit = say("advisor-concerns")
    lines = [
        ADVISOR_START.format(sha=head_sha),
        f"<details><summary>{both(say('advisor-title'))}: "
        f"{concerns} {both(unit)} on <code>{head_sha[:7]}</code></summary>",
        "",
        f"_{both(say('advisor-note'))}_",
        "",
    ]
    if not items:
        lines.append(both(say("advisor-none-md")))
    for a in items:
        title = QUESTIONS.get(a.question, T(en=a.question, zh=a.question))
        lines += [
            f"- {ICON[a.verdict]} **{a.verdict}** · {both(title)} · "
            f"{_code(a.path + ':' + str(a.line))} · {a.confidence:g}",
            f"  > {_code(a.quote)}",
            f"  {_md(a.message_en)}",
            f"  {_md(a.message_zh)}",
        ]
    if note:
        lines += ["", f"_{_md(note)}_"]
    lines += ["", "</details>", ADVISOR_END]
    return "\n".join(lines)


def section_in(body: str) -> tuple[str, str] | None:
    """(head sha, section text) of the advisor section in a summary body, if any."""
    m = _SECTION_RE.search(body or "")
    return (m.group(1), m.group(0).strip("\n")) if m else None


def with_section(body: str, section: str) -> str:
    """The summary `body` with its advisor section replaced by `section` ("" removes it);
    the section goes right after the title block, before the summary's hidden markers."""
    body = _SECTION_RE.sub("\n", body).rstrip("\n")
    if not section:
        return body
    mark = "<!-- recipe-review:summary -->"
    if mark in body:
        head, _, tail = body.partition(mark)
        return head.rstrip("\n") + "\n\n" + section + "\n\n" + mark + tail
    return body + "\n\n" + section
