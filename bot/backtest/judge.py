"""Hand verdicts on backtest findings (`--judge FILE`) and the precision they give. Pure.

The file is plain text, one verdict per line, fields separated by spaces or tabs::

    # PR   RULE    PATH                                                   VERDICT  note
    2423   RCP001  benchmarks/single_node/agentic/minimaxm3_fp4_b300.sh   TP       parser strips think
    2431   CHL002  *                                                      FP       placeholder while open

- PR: the pull request number; RULE: a rule id; PATH: the finding's path, or `*`
  for every path of that rule in that PR;
- VERDICT: `TP` (a real defect), `FP` (a false alarm) or `debatable`
  (case-insensitive); `?` leaves the group unjudged, so the template the
  report writes (`judge-template.tsv`) can be filled in place;
- anything after the verdict is a note; `#` starts a comment line; a later
  line for the same (PR, RULE, PATH) replaces an earlier one.

A verdict judges the group of findings of one PR with that rule and path (all
its commits). Per rule, precision = TP / (TP + FP) over judged groups;
debatable groups are counted beside it, not in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Literal

from bot.backtest.answer import PullOutcome
from bot.base.records import dataclass

Verdict = Literal["TP", "FP", "debatable"]
_VERDICTS: dict[str, Verdict] = {"tp": "TP", "fp": "FP", "debatable": "debatable"}


class JudgeError(ValueError):
    pass


@dataclass(frozen=True)
class Judgement:
    pr: int
    rule: str
    path: str  # "*" for every path
    verdict: Verdict
    note: str
    line: int  # in the file


def parse_verdicts(text: str, source: str = "verdicts") -> list[Judgement]:
    found: dict[tuple[int, str, str], Judgement] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 4)
        if len(parts) < 4:
            raise JudgeError(f"{source}:{number}: want `PR RULE PATH VERDICT [note]`, got {raw!r}")
        pr, rule, path, verdict = parts[:4]
        if not pr.lstrip("#").isdigit():
            raise JudgeError(f"{source}:{number}: {pr!r} is not a PR number")
        if verdict == "?":
            continue
        if verdict.lower() not in _VERDICTS:
            raise JudgeError(
                f"{source}:{number}: verdict {verdict!r} is not TP, FP, debatable or ?"
            )
        key = (int(pr.lstrip("#")), rule.upper(), path)
        found[key] = Judgement(
            key[0],
            key[1],
            path,
            _VERDICTS[verdict.lower()],
            parts[4] if len(parts) > 4 else "",
            number,
        )
    return list(found.values())


@dataclass
class Precision:
    rule: str
    tp: int = 0
    fp: int = 0
    debatable: int = 0
    unjudged: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None


@dataclass
class JudgeResult:
    rules: dict[str, Precision] = field(default_factory=dict)
    stale: list[Judgement] = field(default_factory=list)  # verdicts that match no finding
    verdicts: dict[tuple[int, str, str], Verdict] = field(default_factory=dict)

    def overall(self) -> Precision:
        total = Precision("all")
        for p in self.rules.values():
            total.tp += p.tp
            total.fp += p.fp
            total.debatable += p.debatable
            total.unjudged += p.unjudged
        return total


def groups(outcomes: Iterable[PullOutcome]) -> dict[tuple[int, str, str], str]:
    """(PR, rule, path) -> the first message of the group: what a verdict judges."""
    out: dict[tuple[int, str, str], str] = {}
    for o in outcomes:
        for t in o.findings:
            out.setdefault((o.plan.number, t.finding.rule, t.finding.path), t.finding.message_en)
    return out


def judge(judgements: Iterable[Judgement], outcomes: Iterable[PullOutcome]) -> JudgeResult:
    found = groups(outcomes)
    exact = {(j.pr, j.rule, j.path): j for j in judgements if j.path != "*"}
    wild = {(j.pr, j.rule): j for j in judgements if j.path == "*"}
    used: set[tuple[int, str, str]] = set()
    result = JudgeResult()
    for key in sorted(found):
        pr, rule, _ = key
        j = exact.get(key) or wild.get((pr, rule))
        row = result.rules.setdefault(rule, Precision(rule))
        if j is None:
            row.unjudged += 1
            continue
        used.add((j.pr, j.rule, j.path))
        result.verdicts[key] = j.verdict
        if j.verdict == "TP":
            row.tp += 1
        elif j.verdict == "FP":
            row.fp += 1
        else:
            row.debatable += 1
    result.stale = sorted(
        (j for j in [*exact.values(), *wild.values()] if (j.pr, j.rule, j.path) not in used),
        key=lambda j: j.line,
    )
    return result


def template(found: Mapping[tuple[int, str, str], str]) -> str:
    """A verdict file with every group unjudged (`?`), its first message as the note."""
    lines = [
        "# bot backtest verdicts: PR RULE PATH VERDICT [note]; VERDICT is TP, FP, debatable or ?",
    ]
    for (pr, rule, path), message in sorted(found.items(), key=lambda kv: (-kv[0][0], kv[0][1:])):
        note = " ".join(message.split())[:160]
        lines.append(f"{pr}\t{rule}\t{path}\t?\t{note}")
    return "\n".join(lines) + "\n"
