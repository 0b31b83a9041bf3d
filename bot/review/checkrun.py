"""The review as a check run: conclusion, title, summary, per-rule details, annotations,
the "Apply safe fixes" button. Pure.

The conclusion follows the one gate decision (`bot.core.gate.decide`, as the commit
status does): `failure` for a blocking error (or a configuration the gate could not
run with), `action_required` for "needs a human" (a partial review too), `success`,
and `neutral` where nothing was checked (no file of the PR is one the rules read, and
nothing was found).

Every finding on a changed line is an annotation (`failure`, `warning`, `notice`) on
its exact lines, with its columns when it sits on one line. GitHub takes at most 50
annotations per request (`ANNOTATIONS_PER_REQUEST`), so they are sent in batches; at
most `MAX_ANNOTATIONS` are sent and the summary counts the rest. GitHub's limits on
`output` are kept: `summary` and `text` at most 65,535 characters, an annotation's
`title` at most 255, its `message` and `raw_details` at most 64 KB, an action's
`label` and `identifier` at most 20 characters and its `description` at most 40.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.base.records import dataclass
from bot.core.gate import Gate, decide
from bot.core.model import SEVERITY_RANK, Finding, T
from bot.core.suppress import Silenced
from bot.core.wording import both, say
from bot.github.types import Annotation, CheckRunAction, CheckRunOutput

ANNOTATIONS_PER_REQUEST = 50  # GitHub: "a maximum of 50 per API request"
MAX_ANNOTATIONS = 500  # per check run (ten updates); the summary counts the rest
MAX_OUTPUT = 65_535  # characters of `output.summary` and `output.text`
MAX_TITLE = 255  # characters of an annotation's title
MAX_DETAILS = 64 * 1024  # bytes of an annotation's message and raw_details
LEVEL = {"error": "failure", "warning": "warning", "info": "notice"}
FIX_ACTION = "apply-safe-fixes"  # the identifier `check_run.requested_action` carries
_HIDDEN = re.compile(r"^<!-- recipe-review:[^\n]*-->\n?", re.M)

FIX_LABEL = "Apply safe fixes"  # the button's label, as GitHub shows it


@dataclass(frozen=True)
class Verdict:
    """What the check run concludes, in one place: the conclusion and the title."""

    conclusion: str
    title: str


def conclusion_for(
    gate: Gate, *, checked: bool, partial: bool = False, config_error: bool = False
) -> str:
    """The check run's conclusion for the gate's decision (the commit status's twin)."""
    if config_error or gate.state == "fail":
        return "failure"
    if gate.state == "human" or partial:
        return "action_required"
    return "success" if checked else "neutral"


def verdict(
    findings: Sequence[Finding],
    silenced: Sequence[Silenced] = (),
    *,
    checked: bool,
    partial: bool = False,
    config_error: bool = False,
) -> Verdict:
    gate = decide(findings, silenced)
    conclusion = conclusion_for(gate, checked=checked, partial=partial, config_error=config_error)
    if config_error:
        return Verdict(conclusion, both(say("config-invalid-title")))
    c = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        c[f.severity] += 1
    return Verdict(
        conclusion, f"{both(say(f'conclusion-{conclusion}'))} · {both(say('counts', **c))}"
    )


# ---------------------------------------------------------------------- annotations


def _cut(text: str, limit_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit_bytes:
        return text
    return data[: limit_bytes - 3].decode("utf-8", "ignore") + "…"


def annotation(f: Finding) -> Annotation:
    """The annotation of one finding: its exact lines, its columns on one line."""
    message = f"{f.message.en}\n{f.message.zh}"
    if f.fix is not None:
        fix = say("fix", fix=f.fix)
        message += f"\n{fix.en}\n{fix.zh}"
    one_line = f.span.last_line == f.span.line and f.span.end_col is not None
    return Annotation(
        path=f.path,
        start_line=f.span.line,
        end_line=f.span.last_line,
        annotation_level=LEVEL[f.severity],
        message=_cut(message, MAX_DETAILS),
        title=f"{f.rule} {f.slug}: {f.title.en}"[:MAX_TITLE],
        raw_details=_cut(f.suggestion, MAX_DETAILS) if f.suggestion else "",
        start_column=f.span.col if one_line else None,
        end_column=f.span.end_col if one_line else None,
    )


def annotations_for(findings: Sequence[Finding]) -> tuple[list[Annotation], int]:
    """The annotations of the findings on changed lines (errors first, at most
    `MAX_ANNOTATIONS`) and how many were left out."""
    changed = [f for f in findings if f.in_diff is True]
    changed.sort(key=lambda f: (-SEVERITY_RANK[f.severity], f.sort_key()))
    kept = changed[:MAX_ANNOTATIONS]
    return [annotation(f) for f in kept], len(changed) - len(kept)


def batches(items: Sequence[Annotation]) -> list[tuple[Annotation, ...]]:
    """`items` in requests of at most `ANNOTATIONS_PER_REQUEST`; one empty batch when
    there is none (the completing update is sent anyway)."""
    n = ANNOTATIONS_PER_REQUEST
    return [tuple(items[i : i + n]) for i in range(0, len(items), n)] or [()]


# ---------------------------------------------------------------------- output


def _fit(text: str, note: str) -> str:
    if len(text) <= MAX_OUTPUT:
        return text
    return text[: MAX_OUTPUT - len(note) - 2] + "\n\n" + note


def summary(markdown: str, annotated: int, left_out: int, fixable: int = 0) -> str:
    """The review's summary (the sticky comment's text, without its hidden markers),
    with the annotation counts and, when offered, what "Apply safe fixes" would do."""
    text = _HIDDEN.sub("", markdown).rstrip() + "\n"
    if fixable:
        text += f"\n🔧 {both(say('safe-fixes', n=fixable, button=f'**{FIX_LABEL}**'))}\n"
    if annotated or left_out:
        text += f"\n{both(say('annotated', n=annotated))}\n"
    if left_out:
        text += f"\n{both(say('not-annotated', n=left_out, limit=MAX_ANNOTATIONS))}\n"
    return _fit(text, f"… ({both(say('cut'))})")


def details(findings: Sequence[Finding], rationale: Mapping[str, T], docs_url: str) -> str:
    """`output.text`: per rule, its title, rationale and every place it was found."""
    by_rule: dict[str, list[Finding]] = {}
    for f in sorted(findings, key=lambda f: (-SEVERITY_RANK[f.severity], f.rule, f.sort_key())):
        by_rule.setdefault(f.rule, []).append(f)
    if not by_rule:
        return ""
    out: list[str] = []
    for rule, fs in by_rule.items():
        f0 = fs[0]
        link = f"{docs_url}#{rule.lower()}" if docs_url else ""
        name = f"[`{rule}` {f0.slug}]({link})" if link else f"`{rule}` {f0.slug}"
        out += [f"### {name}: {f0.title.en} / {f0.title.zh}", ""]
        why = rationale.get(rule)
        if why is not None:
            out += [
                f"<details><summary>{both(say('why'))}</summary>",
                "",
                why.en,
                "",
                why.zh,
                "",
                "</details>",
                "",
            ]
        for f in fs:
            changed = f" ({both(say('changed-line'))})" if f.in_diff else ""
            where = f"`{f.path}:{f.line}`{changed}"
            out.append(f"- {f.severity}: {where}: {f.message.en}<br>{f.message.zh}")
        out.append("")
    return _fit("\n".join(out), f"… ({both(say('cut'))})")


def output(
    title: str, summary_text: str, text: str, batch: Sequence[Annotation] = ()
) -> CheckRunOutput:
    return CheckRunOutput(title=title, summary=summary_text, text=text, annotations=tuple(batch))


def fix_action(count: int) -> CheckRunAction:
    """The "Apply safe fixes" button (label <= 20, description <= 40 characters)."""
    description = f"Commit {count} safe fix(es) to the branch"
    if len(description) > 40:
        description = "Commit the safe fixes to the branch"
    return CheckRunAction(label=FIX_LABEL, description=description, identifier=FIX_ACTION)
