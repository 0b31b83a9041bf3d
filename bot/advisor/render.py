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

ADVISOR_START = "<!-- recipe-review:advisor sha={sha} -->"
ADVISOR_END = "<!-- recipe-review:advisor-end -->"
_SECTION_RE = re.compile(
    r"\n*<!-- recipe-review:advisor sha=([0-9a-f]{7,64}) -->.*?<!-- recipe-review:advisor-end -->\n?",
    re.S,
)
ICON = {"concern": "⚠️", "no_concern": "✅", "cannot_tell": "❔"}
VERDICT_ZH = {"concern": "有疑虑", "no_concern": "无疑虑", "cannot_tell": "无法判断"}
QUESTION_TITLE = {
    "upstream_args": ("Server args vs the upstream recipe", "服务参数与上游配方对照"),
    "waiver_coverage": ("Waiver covers the engine patch", "豁免是否覆盖引擎补丁"),
    "append_only_gating": (
        "Append-only hunks gated to new points",
        "append-only 改动是否仅作用于新点",
    ),
    "signoff_reasons": ("Reasons for unchecked sign-off items", "未勾选签核项的理由"),
    "sibling_diff": ("Differences from the proven sibling recipe", "与已验证同类配方的差异"),
    "claims_match": ("Stated values vs parsed values", "陈述的数值与解析值对照"),
}


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
    title = {"en": "Advisor (not a merge gate)", "zh": "顾问（不是合并门禁）"}
    out = [" / ".join(title[c] for c in codes)]
    if not items:
        out.append("  " + " / ".join({"en": "no advice", "zh": "无建议"}[c] for c in codes))
    for a in items:
        verdict = a.verdict if codes == ("en",) else f"{a.verdict} {VERDICT_ZH[a.verdict]}"
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
    lines = [
        ADVISOR_START.format(sha=head_sha),
        "<details><summary>Advisor (not a merge gate) / 顾问（不是合并门禁）: "
        f"{concerns} concern(s) / 条疑虑 on <code>{head_sha[:7]}</code></summary>",
        "",
        "_Advice from a language model on questions no rule can decide. It never changes "
        "the status, a sign-off verdict or a finding. / 语言模型针对规则无法判定的问题给出的"
        "建议，不影响状态、签核结论或检查结果。_",
        "",
    ]
    if not items:
        lines.append("No advice. / 无建议。")
    for a in items:
        en, zh = QUESTION_TITLE.get(a.question, (a.question, a.question))
        lines += [
            f"- {ICON[a.verdict]} **{a.verdict}** · {en} / {zh} · "
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
