"""The pieces every sign-off check builds its rows from. Pure.

Every word of a row comes from its SGN record (`rules/signoff/`) or the shared
clauses of SGN000 (`bot/signoff/wording.py`); these helpers pass values and parts:
a row by its wording variant, a finding linked at the head, the gate decision
(`bot.core.gate`) over the rules behind a row and the rows it replaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.gate import Gate, decide
from bot.core.model import Finding, Join, Part, T, part
from bot.core.suppress import Silenced
from bot.signoff.detect import Signoff
from bot.signoff.model import (
    BenchmarkChange,
    Check,
    CheckStatus,
    SignoffFacts,
)
from bot.signoff.wording import more as _more
from bot.signoff.wording import says
from bot.signoff.wording import words as worded

MAX_LISTED = 4  # items named in one reason


def row_says(name: str, variant: str, /, **params: Any) -> T:
    """A wording of the sign-off row `name`, from its SGN record."""
    return says(name, variant, **params)


def make_row(name: str, status: CheckStatus, variant: str, /, **params: Any) -> Check:
    return Check(name, status, says(name, variant, **params))


def composed_row(name: str, status: CheckStatus, value: Part | Join) -> Check:
    """A row whose reason is several clauses of its record (a `Join` of parts)."""
    return Check(name, status, worded(name, value))


def at_login(login: str) -> str:
    return f"@{login}"


def same_login(a: str | None, b: str | None) -> bool:
    return (
        a is not None
        and b is not None
        and a.strip().lstrip("@").lower() == b.strip().lstrip("@").lower()
    )


def is_bot(login: str, facts: SignoffFacts) -> bool:
    return (
        facts.signer_is_bot or login.lower().endswith("[bot]") or same_login(login, facts.bot_login)
    )


def gate_for(facts: SignoffFacts, rules: Sequence[str], signoff: Signoff) -> Gate:
    """The one gate decision (`bot.core.gate`) over the rules behind a row."""
    return decide(facts.findings, facts.silenced, rules=rules, acknowledgement=signoff.text)


def finding_link(facts: SignoffFacts, f: Finding) -> str:
    where = f"{f.path}:{f.line}"
    if facts.repo_url and facts.head_sha:
        return f"[`{where}`]({facts.repo_url}/blob/{facts.head_sha}/{f.path}#L{f.line})"
    return f"`{where}`"


def first_finding(found: Sequence[Finding], facts: SignoffFacts) -> Part:
    """The first finding, linked, with its message; "+N more" for the others."""
    first = found[0]
    return part(
        "finding",
        where=finding_link(facts, first),
        message=first.message,
        more=_more(len(found) - 1),
    )


def suppressed_by(s: Silenced) -> Part:
    """`suppressed in this PR by @author: reason`."""
    reason = s.suppression.reason
    if s.author:
        return part("suppressed-by", author=at_login(s.author), reason=reason)
    return part("suppressed-here", reason=reason)


def gate_rows(name: str, gate: Gate, facts: SignoffFacts, rows: list[Check]) -> list[Check]:
    """A row passes only when its rules report nothing on what the PR changed.

    fail: an error on changed lines, or a suppression the PR adds that the sign-off does
    not acknowledge; human: a warning on changed lines (linked), or an acknowledged
    suppression. Either replaces the row's own pass or N/A.
    """
    if gate.state == "pass":
        return rows
    if gate.state == "fail":
        if gate.errors:
            return [composed_row(name, "fail", first_finding(gate.errors, facts))]
        s = gate.unacknowledged[0]
        blocks = part(
            "suppressed-blocks",
            where=finding_link(facts, s.finding),
            message=s.finding.message,
            by=suppressed_by(s),
            rule=s.finding.rule,
        )
        return [composed_row(name, "fail", blocks)]
    clauses: list[Part] = []
    if gate.warnings:
        clauses.append(part("warned", finding=first_finding(gate.warnings, facts)))
    for kind, listed in (
        ("suppressed-open", gate.unacknowledged),
        ("suppressed-acknowledged", gate.acknowledged),
    ):
        for s in listed[:MAX_LISTED]:
            where = finding_link(facts, s.finding)
            clauses.append(part(kind, rule=s.finding.rule, where=where, by=suppressed_by(s)))
    row = composed_row(name, "human", Join(tuple(clauses), "clauses"))
    kept = [r for r in rows if r.name != name]
    return [row, *kept]


def bench_name(b: BenchmarkChange) -> str:
    return b.entry or b.path.rsplit("/", 1)[-1]
