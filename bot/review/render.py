"""Findings -> a GitHub review: inline comments, summary, status. Pure.

Every comment the bot writes carries a hidden marker; inline comments carry
the finding's fingerprint (rule, path and normalised offending text, not the
line number), so a re-run after a push, a crash or a 5xx recognises what is
already posted and never posts it twice. Only comments written by the bot's
own account are trusted to carry markers.

A review people read: findings of one rule with the same message at one location share
one inline comment (it carries each one's fingerprint); a later location of the same rule
and message in the same file gets a short comment pointing at the first; a rule's
rationale is shown once per review, collapsed, in the first of its comments; the summary
lists only what is not inline, with the counts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field, replace
from typing import NamedTuple

from bot.base.records import dataclass
from bot.core.gate import Gate, decide, suppressed_by
from bot.core.model import SEVERITY_RANK, Finding, T
from bot.core.shared import SharedCheck
from bot.core.suppress import Silenced
from bot.core.wording import JOINERS, SEVERITY, both, say
from bot.github.types import Comment, ReviewComment, Status, StatusState
from bot.report.markers import FP_MARK as FP_MARK
from bot.report.markers import MAX_BODY as MAX_BODY
from bot.report.markers import REFUSED_MARK as REFUSED_MARK
from bot.report.markers import RESOLVED_MARK as RESOLVED_MARK
from bot.report.markers import REVIEW_MARK as REVIEW_MARK
from bot.report.markers import STATE_MARK as STATE_MARK
from bot.report.markers import SUMMARY_MARK as SUMMARY_MARK
from bot.report.markers import SUMMARY_TITLE as SUMMARY_TITLE
from bot.report.markers import fingerprints_in as fingerprints_in
from bot.report.markers import is_summary_comment as is_summary_comment
from bot.report.markers import refused_fingerprints_in as refused_fingerprints_in
from bot.report.markers import review_shas_in as review_shas_in
from bot.report.markers import state_in as state_in
from bot.report.markers import summary_head as summary_head
from bot.report.markers import truncate as truncate

MAX_INLINE = 50  # inline comments per review; the rest go to the summary
MAX_STATE = 300  # findings remembered in the summary's hidden state

ICON = {"error": "🔴", "warning": "🟡", "info": "🔵"}


# ------------------------------------------------------------------- bodies
def _lines(t: T) -> str:
    return t.en if t.en == t.zh else f"{t.en}\n\n{t.zh}"


def suggestion_block(suggestion: str) -> list[str]:
    """A GitHub suggestion block replacing the commented lines with `suggestion`.

    An empty suggestion is a deletion and renders as an empty block: a blank line
    inside the fence would replace the line with an empty one, and after a
    trailing `\\` an empty line ends the command and drops every later flag. The
    fence is longer than any backtick run in the text, so it cannot close early.
    """
    runs = [len(m) for m in re.findall(r"`{3,}", suggestion)]
    fence = "`" * max([3, *(n + 1 for n in runs)])
    body = suggestion.split("\n") if suggestion else []
    return [f"{fence}suggestion", *body, fence]


def rule_link(f: Finding, docs_url: str) -> str:
    anchor = f"{docs_url}#{f.rule.lower()}" if docs_url else ""
    return f"[`{f.rule}` {f.slug}]({anchor})" if anchor else f"`{f.rule}` {f.slug}"


def rationale_block(rationale: T) -> list[str]:
    """A rule's rationale, collapsed (`<details>`)."""
    return [
        f"<details><summary>{both(say('why'))}</summary>",
        "",
        rationale.en,
        "",
        rationale.zh,
        "",
        "</details>",
    ]


def comment_body(
    f: Finding,
    rationale: T | None,
    docs_url: str,
    *,
    also: Sequence[Finding] = (),
    same_as: int | None = None,
) -> str:
    """The inline comment on `f`. `also`: findings of the same rule with the same message
    at the same location, sharing this comment (their fingerprints are carried too);
    `same_as`: the line of an earlier comment in the same file with the same rule and
    message, which this short one points at instead of repeating the message and fix;
    `rationale`: shown (collapsed) only when given, once per rule and review."""
    head = f"{ICON.get(f.severity, '')} **{both(SEVERITY[f.severity])}** · {rule_link(f, docs_url)}"
    if also:
        head += f" · ×{len(also) + 1}"
    parts = [head, ""]
    if same_as is not None:
        parts += [both(say("same-as", line=same_as))]
    else:
        parts += [f.message.en, "", f.message.zh]
        if f.fix is not None:
            fix = say("fix-md", fix=f.fix)
            parts += ["", fix.en, "", fix.zh]
    if f.suggestion is not None:
        parts += ["", *suggestion_block(f.suggestion)]
    if f.proposal is not None and same_as is None:
        fence = "`" * max([3, *(len(m) + 1 for m in re.findall(r"`{3,}", f.proposal))])
        parts += ["", f"**{both(say('proposal-heading'))}**", "", fence, f.proposal, fence]
    if rationale is not None:
        parts += ["", *rationale_block(rationale)]
    parts += ["", "".join(FP_MARK.format(fp=x.fingerprint) for x in (f, *also))]
    return truncate("\n".join(parts))


def resolved_body(old: str, head_sha: str) -> str:
    """An inline comment whose finding is gone: marked, never deleted."""
    if RESOLVED_MARK in old:
        return old
    head = f"✅ {both(say('resolved', sha=head_sha[:7]))}"
    inner = re.sub(r"<!-- recipe-review:fp=[0-9a-f]+ -->", "", old).strip()
    original = both(say("original"))
    body = f"{head}\n\n<details><summary>{original}</summary>\n\n{inner}\n\n</details>\n\n"
    return truncate(
        body + RESOLVED_MARK + "\n" + "".join(FP_MARK.format(fp=x) for x in fingerprints_in(old))
    )


def _table(findings: Sequence[Finding], limit: int = 200) -> list[str]:
    if not findings:
        return []
    rows = [f"| | Rule | Where | {both(say('finding'))} |", "|---|---|---|---|"]
    for f in findings[:limit]:
        msg = f.message.en.replace("|", "\\|").replace("\n", " ")
        zh = f.message.zh.replace("|", "\\|").replace("\n", " ")
        rows.append(
            f"| {ICON.get(f.severity, '')} | `{f.rule}` | `{f.path}:{f.line}` | {msg}<br>{zh} |"
        )
    if len(findings) > limit:
        rows.append(f"| | | | {both(say('more-rows', n=len(findings) - limit))} |")
    return rows


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    out = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        out[f.severity] += 1
    return out


def counts_line(c: dict[str, int]) -> str:
    return both(say("counts", **c))


GATE_ICON = {"pass": "✅", "human": "👀", "fail": "❌"}
GATE_LINE = {
    state: (icon, say(f"gate-{state}").en, say(f"gate-{state}").zh)
    for state, icon in GATE_ICON.items()
}


def gate_lines(gate: Gate) -> list[str]:
    """The gate's decision as the summary states it (the status uses the same `Gate`)."""
    icon, en, zh = GATE_LINE[gate.state]
    reason = gate.reason()
    return [f"{icon} **{en}** — {reason.en}<br>**{zh}** — {reason.zh}"]


def silenced_lines(silenced: Sequence[Silenced]) -> list[str]:
    """ "Suppressed in this PR by @author: reason", one line per finding."""
    if not silenced:
        return []
    out = ["", f"**{both(say('suppressed-heading'))}**", ""]
    for s in silenced[:50]:
        f, by = s.finding, suppressed_by(s)
        out.append(
            f"- {ICON.get(f.severity, '')} `{f.rule}` `{f.path}:{f.line}`: {f.message.en} — "
            f"{by.en}<br>{f.message.zh} — {by.zh}"
        )
    out += ["", both(say("suppression-note"))]
    return out


def summary_body(
    findings: Sequence[Finding],
    outside: Sequence[Finding],
    fixed: Sequence[list[str]],
    head_sha: str,
    silenced: Sequence[Silenced] = (),
) -> str:
    """The sticky summary (and the check run's summary): the counts, the gate, and only
    the findings that are not inline comments (`outside`: on lines the PR did not change,
    refused by GitHub, or over the inline cap); the inline ones are counted."""
    c = counts(findings)
    title = "## recipe-review"
    gate = decide(findings, silenced)
    if not findings:
        lines = [title, "", f"✅ {both(say('no-findings', sha=head_sha[:7]))}"]
        if silenced:
            lines += ["", *gate_lines(gate)]
    else:
        lines = [title, "", f"**{counts_line(c)}** on `{head_sha[:7]}`", "", *gate_lines(gate)]
        inline = len(findings) - len(outside)
        if inline:
            lines += ["", both(say("inline-count", n=inline))]
        if outside:
            lines += ["", both(say("not-inline", n=len(outside))), ""]
            lines += _table(
                sorted(outside, key=lambda f: (-SEVERITY_RANK[f.severity], f.sort_key()))
            )
    lines += silenced_lines(silenced)
    if fixed:
        lines += ["", f"**{both(say('fixed-heading'))}**", ""]
        lines += [f"- ~~`{rule}` `{path}`: {title_en}~~" for rule, path, title_en in fixed]
    state = {
        "head": head_sha,
        "findings": {
            f.fingerprint: [f.rule, f.path, f.title.en] for f in list(findings)[:MAX_STATE]
        },
    }
    lines += [
        "",
        SUMMARY_MARK,
        STATE_MARK.format(state=json.dumps(state, ensure_ascii=False)),
    ]
    return truncate("\n".join(lines))


def review_body(
    new_inline: int,
    outside: Sequence[Finding],
    head_sha: str,
    refused: Sequence[Finding] = (),
) -> str:
    """The review's own body. `outside` findings are counted (the summary lists them);
    `refused`: findings (also in `outside`) whose inline comment GitHub could not place on
    this head, listed here and marked, so a re-run keeps them out of the diff."""
    lines = [
        f"**recipe-review** · `{head_sha[:7]}` · {both(say('new-inline', n=new_inline))}",
    ]
    if refused:
        lines += [
            "",
            both(say("refused-below", n=len(refused))),
            "",
            *_table(refused, limit=50),
        ]
    rest = len(outside) - len(refused)
    if rest > 0:
        lines += ["", both(say("outside-diff-note", n=rest))]
    lines += ["", REVIEW_MARK.format(sha=head_sha)]
    lines += [REFUSED_MARK.format(fp=f.fingerprint) for f in refused]
    return truncate("\n".join(lines))


def refused_in(mine: Sequence[Comment], head_sha: str) -> set[str]:
    """Fingerprints GitHub refused to place inline on `head_sha` (the bot's own reviews)."""
    out: set[str] = set()
    for c in mine:
        if c.kind == "review_summary" and head_sha in review_shas_in(c.body):
            out.update(refused_fingerprints_in(c.body))
    return out


def keep_refused_outside(plan: Plan, mine: Sequence[Comment], head_sha: str) -> None:
    """Findings GitHub refused to place inline on this head stay outside the diff: a re-run
    neither posts them inline again nor posts a second review for them."""
    refused = refused_in(mine, head_sha)
    moved = [f for fs, _ in plan.inline for f in fs if f.fingerprint in refused]
    if not moved:
        return
    plan.inline = [
        Inline(fs, c) for fs, c in plan.inline if not any(f.fingerprint in refused for f in fs)
    ]
    plan.outside = [*plan.outside, *(f for f in moved if f not in plan.outside)]
    if plan.inline:
        plan.review_body = review_body(len(plan.inline), plan.outside, head_sha)
    else:
        plan.review_body = None  # this head's review, with these findings, is there


def placeable(comment: ReviewComment, lines: dict[str, set[int]]) -> bool:
    """Can GitHub place `comment` on a diff whose commentable lines are `lines`?"""
    ok = lines.get(comment.path, set())
    first = comment.start_line if comment.start_line is not None else comment.line
    return all(n in ok for n in range(first, comment.line + 1))


def _with_note(summary: str, note: str) -> str:
    head = SUMMARY_TITLE + "\n"
    if summary.startswith(head):
        return truncate(head + "\n" + note + "\n" + summary[len(head) :])
    return truncate(note + "\n\n" + summary)


def with_refused_note(summary: str, refused: int) -> str:
    """The summary, saying that GitHub refused `refused` inline comments (listed below)."""
    return _with_note(summary, f"⚠️ {both(say('refused-note', n=refused))}")


def with_partial_note(summary: str, listed: int, total: int) -> str:
    """The summary, saying the review covers only the files GitHub listed."""
    note = say("partial-note", listed=f"{listed:,}", total=f"{total:,}", rest=f"{total - listed:,}")
    return _with_note(summary, f"⚠️ {both(note)}")


def with_shared_note(summary: str, shared: Sequence[SharedCheck]) -> str:
    """The summary, saying which shared launch files were reviewed through the recipes
    that use them (`bot.core.shared`)."""
    if not shared:
        return summary
    return _with_note(
        summary, "\n".join(f"ℹ️ {c.describe().en} / {c.describe().zh}" for c in shared)
    )


def partial_status(status: Status, listed: int, total: int) -> Status:
    """A partial review never reports `success`: what would pass needs a human."""
    if status.state != "success":
        return status
    desc = say("status-partial", listed=listed, total=total).en
    return replace(status, state="pending", description=desc[:139])


def status_for(
    findings: Sequence[Finding],
    context: str,
    target_url: str | None,
    silenced: Sequence[Silenced] = (),
) -> Status:
    """The commit status: the gate's decision (`bot.core.gate.decide`), as the summary states it.

    fail -> `failure`; human (warnings on changed lines, or a suppression the PR adds)
    -> `pending` "Needs a human", never `success`; pass -> `success`.
    """
    gate = decide(findings, silenced)
    c = counts(findings)
    state: StatusState
    if gate.state == "fail":
        state = "failure"
        text = say("status-fail", n=len(gate.errors), warnings=c["warning"])
    elif gate.state == "human":
        state = "pending"
        parts = []
        if gate.warnings:
            parts.append(say("status-warnings", n=len(gate.warnings)))
        if gate.unacknowledged:
            parts.append(say("status-suppressed", n=len(gate.unacknowledged)))
        sep = JOINERS["list"]
        reasons = T(en=sep.en.join(p.en for p in parts), zh=sep.zh.join(p.zh for p in parts))
        text = say("status-human", reasons=reasons)
    elif findings:
        state = "success"
        text = say("status-elsewhere", n=len(findings))
    else:
        state = "success"
        text = say("status-clean")
    desc = text.en  # GitHub shows one line of at most 140 characters
    return Status(state=state, context=context, description=desc[:139], target_url=target_url)


# ---------------------------------------------------------------------- plan
class Inline(NamedTuple):
    """One inline comment to post: the findings it stands for (the first is the one it
    shows; the others are the same rule and message at the same location) and the
    comment itself."""

    findings: tuple[Finding, ...]
    comment: ReviewComment


@dataclass
class Plan:
    inline: list[Inline] = field(default_factory=list)
    outside: list[Finding] = field(default_factory=list)
    already: list[Finding] = field(default_factory=list)
    resolve: list[Comment] = field(default_factory=list)
    summary: str = ""
    summary_comment: Comment | None = None
    review_body: str | None = None
    fixed: list[list[str]] = field(default_factory=list)


def _inline_comments(
    new: Sequence[Finding], rationale: Mapping[str, T], docs_url: str, limit: int
) -> tuple[list[Inline], list[Finding]]:
    """The inline comments for `new` findings (each placed on the diff), at most `limit`,
    and the findings left over. Findings of one rule with the same message at the same
    location share one comment; a later location of the same rule and message in the same
    file gets a short comment pointing at the first; each rule's rationale is shown once,
    in its first comment."""
    groups: dict[tuple[str, str, T, tuple[int, int] | None], list[Finding]] = {}
    for f in new:
        groups.setdefault((f.rule, f.path, f.message, f.comment_lines), []).append(f)
    comments: list[Inline] = []
    left: list[Finding] = []
    first_line: dict[tuple[str, str, T], int] = {}
    explained: set[str] = set()
    for (rule, path, message, lines), fs in groups.items():
        if lines is None or len(comments) >= limit:
            left.extend(fs)
            continue
        first, last = lines
        shown = fs[0]
        if len({f.suggestion for f in fs}) > 1 or shown.span.last_line > last:
            # the suggestion replaces every line of the finding; on a comment covering
            # fewer lines GitHub would replace only those (and two findings disagreeing
            # on the replacement have none to offer)
            shown = replace(shown, suggestion=None)
        key = (rule, path, message)
        why = rationale.get(rule) if rule not in explained else None
        explained.add(rule)
        body = comment_body(shown, why, docs_url, also=tuple(fs[1:]), same_as=first_line.get(key))
        first_line.setdefault(key, last)
        comment = ReviewComment(
            path=path, line=last, start_line=first if last > first else None, body=body
        )
        comments.append(Inline(tuple(fs), comment))
    return comments, left


def plan_review(
    findings: Sequence[Finding],
    mine: Sequence[Comment],
    head_sha: str,
    rationale: Mapping[str, T],
    docs_url: str,
    silenced: Sequence[Silenced] = (),
) -> Plan:
    """Decide what to post. `mine` must hold only comments by the bot's own account.

    A finding goes inline where the change's diff model placed it
    (`Finding.comment_lines`, from `ChangeSet.place`), else to the summary."""
    plan = Plan()
    posted: set[str] = set()
    for c in mine:
        # an outdated comment (GitHub nulled its line after a push) no longer shows the
        # finding on the diff: the finding is posted again on its current line
        if (
            c.kind == "review"
            and c.in_reply_to is None
            and RESOLVED_MARK not in c.body
            and c.line is not None
        ):
            posted.update(fingerprints_in(c.body))
    current = {f.fingerprint for f in findings}
    new: list[Finding] = []
    for f in findings:
        if f.fingerprint in posted:
            plan.already.append(f)
        elif f.comment_lines is not None:
            new.append(f)
        else:
            plan.outside.append(f)
    plan.inline, left = _inline_comments(new, rationale, docs_url, MAX_INLINE)
    plan.outside += left
    for c in mine:
        if c.kind != "review" or c.in_reply_to is not None or RESOLVED_MARK in c.body:
            continue
        fps = fingerprints_in(c.body)
        if fps and not any(fp in current for fp in fps):
            plan.resolve.append(c)
    summaries = [c for c in mine if c.kind == "issue" and is_summary_comment(c.body)]
    previous: dict[str, list[str]] = {}
    if summaries:
        plan.summary_comment = min(summaries, key=lambda c: c.id)
        previous = state_in(plan.summary_comment.body)
    plan.fixed = [v for fp, v in previous.items() if fp not in current and len(v) == 3]
    reviewed = any(head_sha in review_shas_in(c.body) for c in mine if c.kind == "review_summary")
    outside_new = [f for f in plan.outside if not reviewed]
    if plan.inline or (outside_new and not reviewed):
        plan.review_body = review_body(len(plan.inline), plan.outside, head_sha)
    plan.summary = summary_body(findings, plan.outside, plan.fixed, head_sha, silenced)
    return plan
