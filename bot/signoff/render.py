"""A `Verdict` as the PR comment the repository already knows. Pure.

The shape is the LLM verifier's (`.github/codeowner-signoff-verify-prompt.md`):
the hidden marker `<!-- codeowner-signoff-verify sha=<sha> -->`, then

    ## ✅✅✅ **Verdict: PASS** ✅✅✅        or        ## ❌❌❌ **REJECTED** ❌❌❌

then, on a rejection, one line @-mentioning the signer with what blocks, and
one line per check that starts with its status: ✅ pass, ❌ fail, ➖ N/A,
❔ could not be verified (blocks, like a failure: the bot will not vouch for
it), 👀 needs a human (does not block). With `lang="both"` each line carries
the English text, then `<br>` and the Chinese, so a line stays one check.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.model import T
from bot.core.registry import signoff_rule
from bot.signoff.model import VERDICT_MARK, Check, Verdict

MAX_BODY = 65_000

ICON = {"pass": "✅", "fail": "❌", "na": "➖", "unknown": "❔", "human": "👀"}
STATUS = {
    "pass": T("PASS", "通过"),
    "fail": T("FAIL", "不通过"),
    "na": T("N/A", "不适用"),
    "unknown": T("UNVERIFIED", "无法核实"),
    "human": T("NEEDS A HUMAN", "需人工确认"),
}
PASS_HEADER = "## ✅✅✅ **Verdict: PASS** ✅✅✅"
FAIL_HEADER = "## ❌❌❌ **REJECTED** ❌❌❌"
PASS_HEADER_ZH = "## ✅✅✅ **结论：通过** ✅✅✅"
FAIL_HEADER_ZH = "## ❌❌❌ **驳回** ❌❌❌"


def _title(name: str) -> T:
    """A row's title, from its SGN record (`rules/signoff/`)."""
    rule = signoff_rule(name)
    return rule.title if rule is not None else T(name, name)


def _flat(text: str) -> str:
    """One line: a reason never breaks the one-line-per-check shape."""
    return " ".join(text.split())


def check_line(check: Check, lang: str = "both") -> str:
    icon = ICON.get(check.status, "❔")
    title, status = _title(check.name), STATUS.get(check.status, T(check.status, check.status))
    en = f"{icon} **{title.en}**: {status.en} — {_flat(check.reason.en)}"
    zh_body = f"**{title.zh}**：{status.zh} — {_flat(check.reason.zh)}"
    if lang == "en":
        return en
    if lang == "zh":
        return f"{icon} {zh_body}"
    return f"{en}<br>{zh_body}"


def _blocking_line(verdict: Verdict, blocking: Sequence[Check], lang: str) -> str:
    failed = [c for c in blocking if c.status == "fail"]
    unverified = [c for c in blocking if c.status == "unknown"]
    en_parts, zh_parts = [], []
    if failed:
        en_parts.append("failed: " + ", ".join(_title(c.name).en for c in failed))
        zh_parts.append("未通过：" + "、".join(_title(c.name).zh for c in failed))
    if unverified:
        en_parts.append(
            "could not be verified: " + ", ".join(_title(c.name).en for c in unverified)
        )
        zh_parts.append("无法核实：" + "、".join(_title(c.name).zh for c in unverified))
    who = f"@{verdict.signer}"
    en = f"{who} this sign-off does not count yet; {'; '.join(en_parts)}"
    zh = f"{who} 这份签署暂不生效；{'；'.join(zh_parts)}"
    if lang == "en":
        return en
    if lang == "zh":
        return zh
    return f"{en}<br>{zh}"


def render_verdict_comment(verdict: Verdict, *, lang: str = "both") -> str:
    """The verdict comment for `verdict.sha`, with its hidden marker first."""
    lines = [VERDICT_MARK.format(sha=verdict.sha)]
    passed = verdict.verdict == "pass"
    if lang == "zh":
        lines.append(PASS_HEADER_ZH if passed else FAIL_HEADER_ZH)
    else:
        lines.append(PASS_HEADER if passed else FAIL_HEADER)
        if lang == "both":
            lines.append(f"**{'结论：通过' if passed else '驳回'}**")
    blocking = [c for c in verdict.checks if c.status in ("fail", "unknown")]
    if not passed:
        lines += ["", _blocking_line(verdict, blocking, lang)]
    lines.append("")
    lines += [check_line(c, lang) for c in verdict.checks]
    sha = verdict.sha[:7]
    footer_en = (
        f"Checked at `{sha}` for @{verdict.signer}'s sign-off by recipe-review bot. "
        "👀 rows are left to a human and do not block; ❔ rows block until the bot can read them."
    )
    footer_zh = (
        f"recipe-review bot 于 `{sha}` 核查了 @{verdict.signer} 的签署。"
        "👀 行需人工确认，不阻塞合并；❔ 行在机器人能够读取相关信息之前会阻塞合并。"
    )
    footer = {"en": footer_en, "zh": footer_zh}.get(lang, f"{footer_en}<br>{footer_zh}")
    lines += ["", f"<sub>{footer}</sub>"]
    body = "\n".join(lines) + "\n"
    if len(body) > MAX_BODY:
        body = body[: MAX_BODY - 40] + "\n\n…\n"
    return body
