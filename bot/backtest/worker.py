"""A worker's share of a backtest: lint some commits of one PR. Runs in a pool process.

A task names commits of one PR; the worker lints each against its own merge-base
with the base branch the one way every entry point lints a change
(`bot.app.open_local_change` and `bot.app.lint_change`, as `bot lint --repo DIR
--base MERGE_BASE --head SHA --pr N --date D` does). It keeps one `LocalRepository`
per repository for its lifetime (one `git cat-file` process; a merge-base tree
shared by the commits that fork from it) and one parse cache per task (the commits
of one PR share most blobs), and times each rule's `check` (`RuleClock`). Whatever
happens to one commit is its result (`ok`, `missing`, `error`); a task never raises.
"""

from __future__ import annotations

import datetime
import functools
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from typing import Any

from bot.app import LintOptions, lint_change, load_repo_config
from bot.app.local import LocalRepository, open_local_change
from bot.backtest.store import FindingRow, LintResult, LintStatus
from bot.base.records import dataclass
from bot.base.tree import Tree
from bot.core.config import CONFIG_FILENAMES, Config, build_config
from bot.core.context import ParseCache
from bot.core.engine import Report
from bot.core.model import Finding
from bot.core.registry import RuleModule, all_rules
from bot.sources import SourceError


@dataclass(frozen=True)
class Task:
    repo: str
    pr: int
    commits: tuple[tuple[str, str, str], ...]  # (sha, its merge-base, committer date YYYY-MM-DD)
    config: str | None  # a candidate configuration's text
    rules: tuple[str, ...] | None  # rule ids; None: every rule
    repository: str | None


# per process: each repository opened once (a pool worker serves many tasks)
_REPOS: dict[str, LocalRepository] = {}
# per process: configurations by the text or file they come from (validating one is slow)
_CONFIGS: dict[tuple[str, str | None], Config] = {}


def _opened(repo: str) -> LocalRepository:
    if repo not in _REPOS:
        _REPOS[repo] = LocalRepository(repo)
    return _REPOS[repo]


@functools.lru_cache(maxsize=16)
def _candidate(text: str) -> Config:
    return build_config(text, source="--config")


def config_of(tree: Tree, candidate: str | None) -> Config:
    """The candidate configuration's text when given, else the repository's own at `tree`
    (the merge-base), loaded as every entry point loads it and built once per file."""
    if candidate is not None:
        return _candidate(candidate)
    key = next(((n, tree.blob_id(n)) for n in CONFIG_FILENAMES if tree.blob_id(n)), ("", None))
    if key not in _CONFIGS:
        if len(_CONFIGS) >= 16:
            _CONFIGS.clear()
        _CONFIGS[key] = load_repo_config(tree, ref="the merge-base")
    return _CONFIGS[key]


@dataclass
class RuleClock:
    """Seconds each rule's `check` took, summed over one lint."""

    seconds: dict[str, float] = field(default_factory=dict)

    def wrap(self, rules: Sequence[RuleModule]) -> list[RuleModule]:
        return [RuleModule(rule=rm.rule, check=self._timed(rm), module=rm.module) for rm in rules]

    def _timed(self, rm: RuleModule) -> Callable[..., Iterator[Finding]]:
        def check(*args: Any) -> Iterator[Finding]:
            start = time.perf_counter()
            found = list(rm.check(*args))
            took = time.perf_counter() - start
            self.seconds[rm.rule.id] = self.seconds.get(rm.rule.id, 0.0) + took
            return iter(found)

        return check


def _selection(ids: tuple[str, ...] | None) -> list[RuleModule]:
    rules = all_rules()
    if ids is None:
        return rules
    wanted = set(ids)
    return [rm for rm in rules if rm.rule.id in wanted]


def lint_commit(
    repo: LocalRepository,
    base: str,
    sha: str,
    *,
    pr: int | None,
    date: datetime.date,
    config: str | None,
    rules: Sequence[RuleModule],
    repository: str | None,
    cache: ParseCache | None = None,
) -> Report:
    """What commit `sha` changes, linted against `base` (its merge-base) in this process:
    `config` is a candidate configuration's text (None: the repository's own at the
    merge-base), `rules` the rules to run (a `RuleClock` may wrap them), `cache` shared
    by the commits of one PR. A missing object raises `MissingObject`."""
    with open_local_change(repo.path, base, sha, pr=pr, repository=repository, within=repo) as c:
        options = LintOptions(rules=rules, review_date=date, workers=1, cache=cache)
        return lint_change(c, config=config_of(c.config_tree, config), options=options).report


def run_task(task: Task) -> list[LintResult]:
    selection = _selection(task.rules)
    cache = ParseCache()
    out = []
    for sha, base, day in task.commits:
        clock = RuleClock()
        start = time.perf_counter()
        status: LintStatus = "ok"
        detail: str | None = None
        files = 0
        rows: tuple[FindingRow, ...] = ()
        try:
            report = lint_commit(
                _opened(task.repo),
                base,
                sha,
                pr=task.pr,
                date=datetime.date.fromisoformat(day),
                config=task.config,
                rules=clock.wrap(selection),
                repository=task.repository,
                cache=cache,
            )
            files = len(report.files)
            rows = tuple(
                FindingRow(
                    rule=f.rule,
                    severity=f.severity,
                    path=f.path,
                    line=f.span.line,
                    end_line=f.span.last_line,
                    fingerprint=f.fingerprint,
                    in_diff=f.in_diff,
                    message_en=f.message.en,
                    message_zh=f.message.zh,
                    line_text=f.line_text,
                )
                for f in report.findings
            )
        except SourceError as exc:  # MissingObject, or a commit git cannot read
            status, detail = "missing", str(exc)
        except Exception as exc:  # a bot bug on this commit: recorded, the run goes on
            status = "error"
            last = traceback.extract_tb(exc.__traceback__)[-1]
            detail = f"{type(exc).__name__}: {exc} ({last.filename}:{last.lineno})"
        seconds = time.perf_counter() - start
        out.append(
            LintResult(
                pr=task.pr,
                sha=sha,
                base=base,
                date=day,
                status=status,
                detail=detail,
                seconds=seconds,
                files=files,
                rule_ms={k: round(v * 1000, 3) for k, v in clock.seconds.items()},
                findings=rows,
            )
        )
    return out
