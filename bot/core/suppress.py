"""Suppression comments: `# bot: ignore[ID, ...] reason`. Pure.

A suppression names rules by id (`RCP001`) or slug and gives a reason after the
bracket. It silences a finding of a named rule on its own line or the line below.
A suppression that names an unknown rule, gives no reason, or silences nothing
is itself a finding (PRL001, PRL002; ruff's RUF100 is the model), and a
malformed one silences nothing. In PR mode a suppression on a line the PR adds
or changes still silences the finding in the lint report, but the gate does not
count it as silenced: the review lists it and the sign-off needs a CODEOWNER's
acknowledgement (`bot.core.gate`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import field

from bot.base.records import dataclass
from bot.core.model import Finding

SUPPRESS_RE = re.compile(r"#\s*bot:\s*ignore\[([^\]\n]*)\]?(.*)$", re.I)
# a reason is words, not punctuation alone
_REASON_RE = re.compile(r"[^\W_]{2,}", re.UNICODE)
# what a suppression comment may not silence: the suppression checks themselves
UNSUPPRESSIBLE = frozenset({"PRL001", "PRL002"})


@dataclass
class Suppression:
    path: str
    line: int
    col: int
    written: tuple[str, ...]  # the names as written, in order
    rules: tuple[str, ...]  # the known rule ids they resolve to
    unknown: tuple[str, ...]  # names that are neither an id nor a slug
    reason: str
    text: str  # the comment itself, for fingerprints
    closed: bool = True  # the bracket is closed
    # set by the engine: the rule ids whose findings it silenced
    used: set[str] = field(default_factory=set)
    # in PR mode: the PR added or changed this line
    added_by_pr: bool = False

    @property
    def valid(self) -> bool:
        return self.closed and bool(self.rules) and not self.unknown and self.has_reason

    @property
    def has_reason(self) -> bool:
        return bool(_REASON_RE.search(self.reason))

    def covers(self, finding: Finding) -> bool:
        return finding.rule in self.rules and finding.rule not in UNSUPPRESSIBLE


@dataclass(frozen=True)
class Silenced:
    """A finding silenced by a suppression the PR adds or changes: the gate still sees it."""

    finding: Finding
    suppression: Suppression
    author: str | None = None


@dataclass
class SuppressionScan:
    """Every suppression comment in the linted files (the input of PRL001 and PRL002)."""

    items: list[Suppression]
    # rule ids that ran on each path: a suppression of a rule that did not run is not "unused"
    ran: Mapping[str, frozenset[str]] = field(default_factory=dict)


def parse_suppressions(
    path: str, text: str, resolve: Callable[[str], str | None]
) -> list[Suppression]:
    """The suppression comments of `text`; `resolve` maps an id or slug to a rule id."""
    out: list[Suppression] = []
    if "bot:" not in text and "bot:" not in text.lower():
        return out
    for no, line in enumerate(text.splitlines(), 1):
        m = SUPPRESS_RE.search(line)
        if m is None:
            continue
        closed = "]" in line[m.start() :]
        names = tuple(x.strip() for x in m.group(1).split(",") if x.strip())
        rules: list[str] = []
        unknown: list[str] = []
        for name in names:
            rid = resolve(name)
            if rid is None:
                unknown.append(name)
            elif rid not in rules:
                rules.append(rid)
        out.append(
            Suppression(
                path=path,
                line=no,
                col=m.start() + 1,
                written=names,
                rules=tuple(rules),
                unknown=tuple(unknown),
                reason=m.group(2).strip() if closed else "",
                text=m.group(0).strip(),
                closed=closed,
            )
        )
    return out


def suppressing(finding: Finding, marks: list[Suppression]) -> Suppression | None:
    """The valid suppression that silences `finding`, if any (its line or the line above)."""
    lines = {finding.span.line, finding.span.line - 1, finding.span.last_line}
    for s in marks:
        if s.line in lines and s.valid and s.covers(finding):
            return s
    return None
