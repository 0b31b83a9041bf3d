"""The backtest's SQLite store: one lint result per (settings, PR, commit). An edge.

A result is reused when the same commit of the same PR was linted against the
same merge-base under the same settings: the same rules code, rule selection
and configuration (`settings_key`). So a second run does only new work, and a
run after a rule change redoes everything under a new key while the old
results stay for `--compare`.

Tables:
- `settings(key, description)`: what a key stands for (JSON);
- `runs(id, settings, started, finished, seconds, linted, reused, args)`: one row per run;
- `pulls(number, head, main_tip, base, merged, merge_commit, head_date, commits, problem)`:
  each PR's plan from git, reused while its head and the base branch's tip are unchanged;
- `lints(settings, pr, sha, base, date, status, detail, seconds, files, rule_ms)`:
  `status` is `ok`, `missing` (an object the repository lacks) or `error` (the lint raised);
- `findings(settings, pr, sha, rule, severity, path, line, end_line, fingerprint, in_diff,
  message_en, message_zh, line_text)`;
- `line_changes(old, new, path, line, changed)`: the answer key's `git diff` answers.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from bot.backtest.history import PullPlan
from bot.base.records import dataclass

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, description TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, settings TEXT NOT NULL, started TEXT NOT NULL, finished TEXT,
    seconds REAL, linted INTEGER, reused INTEGER, args TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pulls (
    number INTEGER PRIMARY KEY, head TEXT NOT NULL, main_tip TEXT NOT NULL, base TEXT,
    merged TEXT, merge_commit TEXT, head_date TEXT NOT NULL, commits TEXT, problem TEXT);
CREATE TABLE IF NOT EXISTS lints (
    settings TEXT NOT NULL, pr INTEGER NOT NULL, sha TEXT NOT NULL, base TEXT NOT NULL,
    date TEXT NOT NULL, status TEXT NOT NULL, detail TEXT, seconds REAL NOT NULL,
    files INTEGER NOT NULL, rule_ms TEXT NOT NULL,
    PRIMARY KEY (settings, pr, sha, base));
CREATE TABLE IF NOT EXISTS findings (
    settings TEXT NOT NULL, pr INTEGER NOT NULL, sha TEXT NOT NULL, base TEXT NOT NULL,
    rule TEXT NOT NULL, severity TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
    end_line INTEGER NOT NULL, fingerprint TEXT NOT NULL, in_diff INTEGER,
    message_en TEXT NOT NULL, message_zh TEXT NOT NULL, line_text TEXT);
CREATE INDEX IF NOT EXISTS findings_by_commit ON findings (settings, pr, sha, base);
CREATE TABLE IF NOT EXISTS line_changes (
    old TEXT NOT NULL, new TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
    changed INTEGER, PRIMARY KEY (old, new, path, line));
"""


class StoreError(Exception):
    pass


@dataclass(frozen=True)
class FindingRow:
    rule: str
    severity: str
    path: str
    line: int
    end_line: int
    fingerprint: str
    in_diff: bool | None
    message_en: str
    message_zh: str
    line_text: str | None


# a commit linted (`ok`), one whose objects the mirror lacks (`missing`), or a failed lint
LintStatus = Literal["ok", "missing", "error"]


@dataclass(frozen=True)
class LintResult:
    """One commit linted (or not) by a worker."""

    pr: int
    sha: str
    base: str
    date: str
    status: LintStatus
    detail: str | None
    seconds: float
    files: int
    rule_ms: dict[str, float]
    findings: tuple[FindingRow, ...]


class Store:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(self.path)
            self.db.executescript(_SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: {exc}") from None
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            self.db.commit()
        elif row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path}: store schema {row[0]}, this bot reads {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- settings and runs -----------------------------------------------------------

    def add_settings(self, key: str, description: dict[str, Any]) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO settings VALUES (?, ?)",
            (key, json.dumps(description, sort_keys=True)),
        )
        self.db.commit()

    def settings(self, key: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT description FROM settings WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def start_run(self, key: str, args: dict[str, Any]) -> int:
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        cur = self.db.execute(
            "INSERT INTO runs (settings, started, args) VALUES (?, ?, ?)",
            (key, now, json.dumps(args, sort_keys=True)),
        )
        self.db.commit()
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_run(self, run: int, seconds: float, linted: int, reused: int) -> None:
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        self.db.execute(
            "UPDATE runs SET finished = ?, seconds = ?, linted = ?, reused = ? WHERE id = ?",
            (now, seconds, linted, reused, run),
        )
        self.db.commit()

    def runs(self, key: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT id, settings, started, finished, seconds, linted, reused, args FROM runs"
        rows = self.db.execute(
            sql + (" WHERE settings = ?" if key else "") + " ORDER BY id", (key,) if key else ()
        ).fetchall()
        names = ("id", "settings", "started", "finished", "seconds", "linted", "reused", "args")
        return [dict(zip(names, r, strict=True)) for r in rows]

    def latest_settings(self) -> str | None:
        row = self.db.execute("SELECT settings FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        return row[0] if row else None

    # -- pull plans ------------------------------------------------------------------

    def plan(self, number: int, head: str, main_tip: str) -> PullPlan | None:
        row = self.db.execute(
            "SELECT base, merged, merge_commit, head_date, commits, problem FROM pulls "
            "WHERE number = ? AND head = ? AND main_tip = ?",
            (number, head, main_tip),
        ).fetchone()
        if row is None:
            return None
        base, merged, merge_commit, day, commits, problem = row
        return PullPlan(
            number,
            head,
            datetime.date.fromisoformat(day),
            base,
            tuple((c[0], c[1]) for c in json.loads(commits)) if commits is not None else None,
            merged,
            merge_commit,
            problem,
        )

    def save_plan(self, plan: PullPlan, main_tip: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO pulls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                plan.number,
                plan.head,
                main_tip,
                plan.base,
                plan.merged,
                plan.merge_commit,
                plan.date.isoformat(),
                json.dumps([list(c) for c in plan.commits]) if plan.commits is not None else None,
                plan.problem,
            ),
        )

    def plans(self) -> list[PullPlan]:
        rows = self.db.execute(
            "SELECT number, head, main_tip FROM pulls ORDER BY number"
        ).fetchall()
        out = []
        for number, head, tip in rows:
            plan = self.plan(number, head, tip)
            if plan is not None:
                out.append(plan)
        return out

    def commit(self) -> None:
        self.db.commit()

    # -- lint results ----------------------------------------------------------------

    def done(self, key: str, pr: int) -> set[tuple[str, str]]:
        """(commit, merge-base) pairs of `pr` already linted under `key`, whatever the outcome."""
        rows = self.db.execute(
            "SELECT sha, base FROM lints WHERE settings = ? AND pr = ?", (key, pr)
        )
        return {(r[0], r[1]) for r in rows}

    def save(self, key: str, results: Iterable[LintResult]) -> None:
        for r in results:
            self.db.execute(
                "DELETE FROM findings WHERE settings = ? AND pr = ? AND sha = ? AND base = ?",
                (key, r.pr, r.sha, r.base),
            )
            self.db.execute(
                "INSERT OR REPLACE INTO lints VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    r.pr,
                    r.sha,
                    r.base,
                    r.date,
                    r.status,
                    r.detail,
                    r.seconds,
                    r.files,
                    json.dumps(r.rule_ms, sort_keys=True),
                ),
            )
            self.db.executemany(
                "INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        key,
                        r.pr,
                        r.sha,
                        r.base,
                        f.rule,
                        f.severity,
                        f.path,
                        f.line,
                        f.end_line,
                        f.fingerprint,
                        None if f.in_diff is None else int(f.in_diff),
                        f.message_en,
                        f.message_zh,
                        f.line_text,
                    )
                    for f in r.findings
                ],
            )
        self.db.commit()

    def results(self, key: str, pr: int) -> dict[tuple[str, str], LintResult]:
        """Every stored result of `pr` under `key`, by (commit, merge-base)."""
        rows = self.db.execute(
            "SELECT sha, base, date, status, detail, seconds, files, rule_ms FROM lints "
            "WHERE settings = ? AND pr = ?",
            (key, pr),
        ).fetchall()
        found: dict[tuple[str, str], list[FindingRow]] = {}
        for row in self.db.execute(
            "SELECT sha, base, rule, severity, path, line, end_line, fingerprint, in_diff, "
            "message_en, message_zh, line_text FROM findings WHERE settings = ? AND pr = ?",
            (key, pr),
        ):
            sha, base, *rest = row
            rest[6] = None if rest[6] is None else bool(rest[6])
            found.setdefault((sha, base), []).append(FindingRow(*rest))
        return {
            (sha, base): LintResult(
                pr,
                sha,
                base,
                date,
                status,
                detail,
                seconds,
                files,
                json.loads(rule_ms),
                tuple(found.get((sha, base), ())),
            )
            for sha, base, date, status, detail, seconds, files, rule_ms in rows
        }

    def lint_seconds(self, key: str) -> list[float]:
        """The time of every stored lint under `key`."""
        return [
            r[0] for r in self.db.execute("SELECT seconds FROM lints WHERE settings = ?", (key,))
        ]

    def had_commits(self, number: int, head: str) -> bool:
        """Whether the stored plan of this PR head listed its commits (under any branch tip)."""
        row = self.db.execute(
            "SELECT commits FROM pulls WHERE number = ? AND head = ?", (number, head)
        ).fetchone()
        return row is not None and row[0] is not None

    def linted_pulls(self, key: str) -> list[int]:
        """PRs with at least one stored result under `key`."""
        rows = self.db.execute(
            "SELECT DISTINCT pr FROM lints WHERE settings = ? ORDER BY pr", (key,)
        )
        return [r[0] for r in rows]

    # -- the answer key's diffs ------------------------------------------------------

    def line_change(self, old: str, new: str, path: str, line: int) -> tuple[bool, bool | None]:
        """(known, changed)."""
        row = self.db.execute(
            "SELECT changed FROM line_changes WHERE old = ? AND new = ? AND path = ? AND line = ?",
            (old, new, path, line),
        ).fetchone()
        if row is None:
            return False, None
        return True, None if row[0] is None else bool(row[0])

    def save_line_change(
        self, old: str, new: str, path: str, line: int, changed: bool | None
    ) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO line_changes VALUES (?, ?, ?, ?, ?)",
            (old, new, path, line, None if changed is None else int(changed)),
        )


def open_other(path: str | Path) -> Store:
    """A store named by `--compare`: it must exist (an empty new one would compare nothing)."""
    if not Path(path).is_file():
        raise StoreError(f"{path}: no such store")
    return Store(path)
