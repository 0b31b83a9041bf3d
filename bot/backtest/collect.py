"""Gather a backtest from the store into the one value every report renders. An edge.

The report covers every PR the store holds results for under the run's
settings (runs add to a store: `--prs 2300-2709` then `--commits --prs
2640-2709` gives one report over both). The answer key's line questions are
asked of git once and remembered in the store.
"""

from __future__ import annotations

import datetime
from dataclasses import field
from typing import Any
from urllib.parse import quote

from bot.backtest import answer, history
from bot.backtest.answer import PullOutcome, RuleRow, Totals
from bot.backtest.compare import Comparison
from bot.backtest.judge import JudgeResult
from bot.backtest.store import Store
from bot.base.records import dataclass
from bot.core.registry import all_rules


@dataclass(frozen=True)
class Links:
    """GitHub addresses of PRs, commits and lines; all None without a repository."""

    repository: str | None

    def pr(self, number: int) -> str | None:
        return f"https://github.com/{self.repository}/pull/{number}" if self.repository else None

    def commit(self, sha: str) -> str | None:
        return f"https://github.com/{self.repository}/commit/{sha}" if self.repository else None

    def line(self, sha: str, path: str, line: int) -> str | None:
        if not self.repository:
            return None
        anchor = f"#L{line}" if line > 0 else ""
        return f"https://github.com/{self.repository}/blob/{sha}/{quote(path)}{anchor}"


@dataclass
class Backtest:
    repo: str
    base_branch: str
    settings_key: str
    settings: dict[str, Any]
    links: Links
    outcomes: list[PullOutcome]
    rules: list[RuleRow]
    totals: Totals
    weeks: dict[datetime.date, dict[str, int]]
    run: dict[str, Any]  # this run: seconds, linted, reused, jobs
    judge: JudgeResult | None = None
    comparison: Comparison | None = None
    titles: dict[str, str] = field(default_factory=dict)  # rule id -> title (English)


def outcomes(store: Store, key: str, repo: str) -> list[PullOutcome]:
    """Every PR with a result under `key`, newest first, followed over its commits."""
    plans = {p.number: p for p in store.plans()}

    def oracle(old: str, new: str, path: str, line: int) -> bool | None:
        known, changed = store.line_change(old, new, path, line)
        if not known:
            changed = history.line_changed(repo, old, new, path, line)
            store.save_line_change(old, new, path, line, changed)
        return changed

    out = []
    for number in store.linted_pulls(key):
        plan = plans.get(number)
        if plan is not None:  # results of commits the plan no longer names are left aside
            out.append(answer.follow(plan, store.results(key, number), oracle))
    store.commit()
    out.sort(key=lambda o: -o.plan.number)
    return out


def rule_titles() -> dict[str, str]:
    return {rm.rule.id: rm.rule.title.en for rm in all_rules()}
