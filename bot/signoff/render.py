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

from bot.core.model import Join, T, part
from bot.signoff.model import VERDICT_MARK, Check, Verdict
from bot.signoff.wording import frame, record

MAX_BODY = 65_000

ICON = {"pass": "✅", "fail": "❌", "na": "➖", "unknown": "❔", "human": "👀"}

# Every word of the comment is a variant of SGN000 `verdict` (`rules/signoff/`): the
# status words, the headers, the line saying what blocks, one line per row, the footer.


def _title(name: str) -> T:
    """A row's title, from its SGN record (`rules/signoff/`)."""
    return record(name).title


def _status(status: str) -> T:
    return frame(f"status-{status}") if status in ICON else T(status, status)


def _flat(text: str) -> str:
    """One line: a reason never breaks the one-line-per-check shape."""
    return " ".join(text.split())


def _lang(text: T, lang: str, zh: T | None = None) -> str:
    """`text` in `lang`; with "both" its English, `<br>`, then the Chinese of `zh` (or `text`)."""
    if lang in ("en", "zh"):
        return text.get(lang)
    return f"{text.en}<br>{(zh or text).zh}"


def check_line(check: Check, lang: str = "both") -> str:
    icon = ICON.get(check.status, "❔")
    reason = T(_flat(check.reason.en), _flat(check.reason.zh))
    fields = {"title": _title(check.name), "status": _status(check.status), "reason": reason}
    # with both languages the Chinese continues the same line, without a second icon
    return _lang(frame("row", icon=icon, **fields), lang, frame("row-plain", **fields))


def _blocking_line(verdict: Verdict, blocking: Sequence[Check], lang: str) -> str:
    failed = tuple(_title(c.name) for c in blocking if c.status == "fail")
    unverified = tuple(_title(c.name) for c in blocking if c.status == "unknown")
    blocks = []
    if failed:
        blocks.append(part("blocking-failed", titles=Join(failed)))
    if unverified:
        blocks.append(part("blocking-unverified", titles=Join(unverified)))
    line = frame("blocking", signer=f"@{verdict.signer}", blocks=Join(tuple(blocks), "clauses"))
    return _lang(line, lang)


def header_lines(passed: bool, lang: str = "both") -> list[str]:
    """The verdict's header; with both languages the Chinese verdict on a line of its own."""
    word = "verdict-pass" if passed else "verdict-fail"
    header = frame("header-pass" if passed else "header-fail", verdict=part(word))
    return [header.get(lang), frame(word).zh] if lang == "both" else [header.get(lang)]


def render_verdict_comment(verdict: Verdict, *, lang: str = "both") -> str:
    """The verdict comment for `verdict.sha`, with its hidden marker first."""
    lines = [VERDICT_MARK.format(sha=verdict.sha)]
    passed = verdict.verdict == "pass"
    lines += header_lines(passed, lang)
    blocking = [c for c in verdict.checks if c.status in ("fail", "unknown")]
    if not passed:
        lines += ["", _blocking_line(verdict, blocking, lang)]
    lines.append("")
    lines += [check_line(c, lang) for c in verdict.checks]
    footer = frame("footer", sha=verdict.sha[:7], signer=f"@{verdict.signer}")
    lines += ["", f"<sub>{_lang(footer, lang)}</sub>"]
    body = "\n".join(lines) + "\n"
    if len(body) > MAX_BODY:
        body = body[: MAX_BODY - 40] + "\n\n…\n"
    return body
