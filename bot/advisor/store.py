"""The advisor's ledger: cached answers, calls per head SHA, tokens per installation and day.

One SQLite file (WAL). Answers are cached by `prompt.cache_key` (question, prompt version,
model, input hash), so a second run on the same head makes no call. The clock is injected.
"""

from __future__ import annotations

import datetime
import os
import sqlite3
import threading
import time
from collections.abc import Callable

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY, question TEXT NOT NULL, model TEXT NOT NULL,
    response TEXT NOT NULL, stop_reason TEXT NOT NULL DEFAULT '', created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
    head_sha TEXT NOT NULL, key TEXT NOT NULL, at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_head ON calls(head_sha);
CREATE TABLE IF NOT EXISTS budget (
    installation TEXT NOT NULL, day TEXT NOT NULL, tokens INTEGER NOT NULL,
    PRIMARY KEY (installation, day)
);
"""


def default_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "recipe-review-bot", "advisor.sqlite3")


class Ledger:
    def __init__(self, path: str, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout = 10000")
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode = WAL")
        with self._lock:
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def day(self) -> str:
        return datetime.datetime.fromtimestamp(self.clock(), datetime.UTC).date().isoformat()

    def answer(self, key: str) -> tuple[str, str] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT response, stop_reason FROM answers WHERE key = ?", (key,)
            ).fetchone()
        return (row[0], row[1]) if row else None

    def store(self, key: str, question: str, model: str, response: str, stop_reason: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                (key, question, model, response, stop_reason, self.clock()),
            )

    def calls_for(self, head_sha: str) -> int:
        with self._lock:
            return int(
                self._db.execute(
                    "SELECT count(*) FROM calls WHERE head_sha = ?", (head_sha,)
                ).fetchone()[0]
            )

    def record_call(self, head_sha: str, key: str) -> None:
        with self._lock:
            self._db.execute("INSERT INTO calls VALUES (?, ?, ?)", (head_sha, key, self.clock()))

    def tokens_today(self, installation: str) -> int:
        with self._lock:
            row = self._db.execute(
                "SELECT tokens FROM budget WHERE installation = ? AND day = ?",
                (installation, self.day()),
            ).fetchone()
        return int(row[0]) if row else 0

    def spend(self, installation: str, tokens: int) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO budget VALUES (?, ?, ?) ON CONFLICT(installation, day)"
                " DO UPDATE SET tokens = tokens + excluded.tokens",
                (installation, self.day(), int(tokens)),
            )
