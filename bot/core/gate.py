"""The gate: one decision over findings, shared by every surface that says pass or fail. Pure.

The commit status of the review, the review summary and each row of the sign-off
verdict ask the same question of the findings behind them: what do the rules report
on what the PR changed?

- an error on what the PR changed blocks (`fail`);
- a warning on what the PR changed needs a human (`human`), with the finding linked:
  never `pass`;
- a finding silenced by a suppression the PR adds or changes is not silenced here:
  it needs the CODEOWNER's explicit acknowledgement (the rule id or slug named in the
  sign-off). Unacknowledged it blocks a sign-off row (`fail`) and makes the commit
  status `human`; acknowledged it is `human` (listed for the maintainer);
- info, and findings on lines the PR did not change, never move the gate.

Outside PR mode (`in_diff` is None) every finding counts as "what is checked".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Literal

from bot.base.records import dataclass
from bot.core.model import Finding, T
from bot.core.suppress import Silenced
from bot.core.wording import JOINERS, say

State = Literal["pass", "human", "fail"]
RANK: dict[str, int] = {"pass": 0, "human": 1, "fail": 2}


@dataclass(frozen=True)
class Gate:
    state: State
    errors: tuple[Finding, ...] = ()  # block
    warnings: tuple[Finding, ...] = ()  # need a human
    # silenced by a suppression the PR adds or changes, by acknowledgement
    unacknowledged: tuple[Silenced, ...] = ()
    acknowledged: tuple[Silenced, ...] = ()

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.errors + self.warnings

    def reason(self) -> T:
        """One line: what decides the state, naming the first finding of each kind."""
        parts: list[T] = []
        if self.errors:
            f = self.errors[0]
            parts.append(say("gate-errors", n=len(self.errors), rule=f.rule, where=where(f)))
        if self.unacknowledged:
            s = self.unacknowledged[0]
            parts.append(say("gate-unacknowledged", rule=s.finding.rule, where=where(s.finding)))
        if self.warnings:
            f = self.warnings[0]
            parts.append(say("gate-warnings", n=len(self.warnings), rule=f.rule, where=where(f)))
        if self.acknowledged:
            s = self.acknowledged[0]
            parts.append(say("gate-acknowledged", rule=s.finding.rule, by=suppressed_by(s)))
        if not parts:
            return say("gate-nothing")
        sep = JOINERS["clauses"]
        return T(en=sep.en.join(p.en for p in parts), zh=sep.zh.join(p.zh for p in parts))


def where(f: Finding) -> str:
    return f"`{f.path}:{f.line}`"


def suppressed_by(s: Silenced) -> T:
    """`suppressed in this PR by @author: reason`."""
    who: T | str = f"@{s.author}" if s.author else say("the-pr")
    return say("suppressed-by", who=who, reason=s.suppression.reason)


def _changed(f: Finding) -> bool:
    return f.in_diff is not False


def acknowledges(text: str, finding: Finding) -> bool:
    """Whether `text` (a sign-off) names the finding's rule by id or slug."""
    return bool(
        re.search(rf"(?<![A-Za-z0-9]){re.escape(finding.rule)}(?![0-9])", text, re.I)
        or re.search(rf"(?<![\w-]){re.escape(finding.slug)}(?![\w-])", text, re.I)
    )


def decide(
    findings: Iterable[Finding],
    silenced: Iterable[Silenced] = (),
    *,
    rules: Collection[str] | None = None,
    acknowledgement: str | None = None,
) -> Gate:
    """The gate over `findings` (of `rules`, when given) and the PR's own suppressions.

    `acknowledgement` is the sign-off text that may name suppressed rules; None where
    no CODEOWNER speaks (the review's commit status), where a PR-added suppression
    makes the state `human`.
    """
    ids = {r.upper() for r in rules} if rules is not None else None

    def mine(f: Finding) -> bool:
        return ids is None or f.rule in ids

    errors: list[Finding] = []
    warnings: list[Finding] = []
    for f in findings:
        if not mine(f) or not _changed(f):
            continue
        if f.severity == "error":
            errors.append(f)
        elif f.severity == "warning":
            warnings.append(f)
    ack: list[Silenced] = []
    unack: list[Silenced] = []
    for s in silenced:
        if not mine(s.finding) or s.finding.severity == "info":
            continue
        if acknowledgement is not None and acknowledges(acknowledgement, s.finding):
            ack.append(s)
        else:
            unack.append(s)
    if errors or (unack and acknowledgement is not None):
        state: State = "fail"
    elif warnings or unack or ack:
        state = "human"
    else:
        state = "pass"
    return Gate(state, tuple(errors), tuple(warnings), tuple(unack), tuple(ack))


def worst(states: Sequence[State]) -> State:
    return max(states, key=lambda s: RANK[s], default="pass")
