"""A worker's share of a backtest: lint some commits of one PR. Runs in a pool process.

A task names commits of one PR; the worker lints each against its own
merge-base with the base branch through `lint_change`, keeping one `git cat-file` process per repository for
its lifetime and one parse cache per task (the commits of one PR share most
blobs). Whatever happens to one commit is its result (`ok`, `missing`,
`error`); a task never raises.
"""

from __future__ import annotations

import datetime
import time
import traceback
from dataclasses import dataclass

from bot.backtest.lintchange import MissingObject, ObjectReader, RuleClock, lint_change
from bot.backtest.store import FindingRow, LintResult, LintStatus
from bot.core.context import ParseCache
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


# per process: one object reader per repository (a pool worker serves many tasks)
_READERS: dict[str, ObjectReader] = {}


def _reader(repo: str) -> ObjectReader:
    if repo not in _READERS:
        _READERS[repo] = ObjectReader(repo)
    return _READERS[repo]


def _selection(ids: tuple[str, ...] | None) -> list[RuleModule]:
    rules = all_rules()
    if ids is None:
        return rules
    wanted = set(ids)
    return [rm for rm in rules if rm.rule.id in wanted]


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
            report = lint_change(
                task.repo,
                base,
                sha,
                task.pr,
                datetime.date.fromisoformat(day),
                task.config,
                clock.wrap(selection),
                repository=task.repository,
                reader=_reader(task.repo),
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
        except MissingObject as exc:
            status, detail = "missing", str(exc)
        except SourceError as exc:
            status, detail = "missing", str(exc)
            stopped = _READERS.pop(task.repo, None)  # git may have stopped: start afresh
            if stopped is not None:
                stopped.close()
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
