"""`--compare OTHER.sqlite`: what this run's rules say differently on the same history.

The two stores are compared on the commits both hold an `ok` result for (the
same PR, commit and merge-base); a finding is matched by its fingerprint.
`added`: this run finds it and the other did not; `removed`: the reverse.
The other store's results are those of its latest run under settings that
differ from this run's (so one store can be compared with itself after a
rule change), or of its latest run when all are the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Literal

from bot.backtest.answer import PullOutcome
from bot.backtest.store import FindingRow, Store
from bot.base.records import dataclass


@dataclass(frozen=True)
class Change:
    kind: Literal["added", "removed"]
    pr: int
    sha: str  # a commit where the finding is (added) or was (removed)
    finding: FindingRow


@dataclass
class Comparison:
    other: str  # the other store's path
    other_settings: dict[str, object]
    commits: int = 0  # commits compared
    pulls: int = 0
    changes: list[Change] = field(default_factory=list)

    def per_rule(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for c in self.changes:
            added, removed = out.get(c.finding.rule, (0, 0))
            out[c.finding.rule] = (added + (c.kind == "added"), removed + (c.kind == "removed"))
        return dict(sorted(out.items()))


def other_key(other: Store, current: str) -> str | None:
    runs = other.runs()
    for run in reversed(runs):
        if run["settings"] != current:
            return str(run["settings"])
    return str(runs[-1]["settings"]) if runs else None


def compare(current: Store, key: str, outcomes: Iterable[PullOutcome], other: Store) -> Comparison:
    okey = other_key(other, key)
    result = Comparison(str(other.path), (other.settings(okey) or {}) if okey else {})
    if okey is None:
        return result
    for o in outcomes:
        plan = o.plan
        mine = current.results(key, plan.number)
        theirs = other.results(okey, plan.number)
        steps = [(sha, base) for sha, base in plan.steps() if base is not None]
        common = [
            s
            for s in steps
            if s in mine and mine[s].status == "ok" and s in theirs and theirs[s].status == "ok"
        ]
        if not common:
            continue
        result.pulls += 1
        result.commits += len(common)
        now: dict[str, tuple[str, FindingRow]] = {}
        before: dict[str, tuple[str, FindingRow]] = {}
        for step in common:
            for f in mine[step].findings:
                now.setdefault(f.fingerprint, (step[0], f))
            for f in theirs[step].findings:
                before.setdefault(f.fingerprint, (step[0], f))
        for fp in sorted(now.keys() - before.keys()):
            result.changes.append(Change("added", plan.number, *now[fp]))
        for fp in sorted(before.keys() - now.keys()):
            result.changes.append(Change("removed", plan.number, *before[fp]))
    result.changes.sort(key=lambda c: (-c.pr, c.finding.rule, c.finding.path, c.finding.line))
    return result
