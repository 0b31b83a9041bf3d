"""GitHub write pacing and rate-limit state shared by every replica (PostgreSQL backend).

GitHub's secondary rate limits apply to the App installation (or token), not to one
process: two replicas each pacing writes one second apart would together write twice a
second. With `BOT_DB=postgresql://...` every gateway call runs the `SharedPacing` hook
(`bot.github.calls`), which keeps the state in the `bot_pacing` row of the credential (`installation:<id>` or `token`):

- a write reserves the next slot (`next_write_at`, `BOT_WRITE_INTERVAL` after the previous
  one, whichever replica made it) under a row lock, then sleeps until it comes;
- a rate-limit answer (Retry-After, or an exhausted `x-ratelimit-remaining` with its reset)
  seen by any replica sets `not_before`, and every replica's calls, reads and writes, wait
  until then.

The per-process pacing inside `bot.github.gateway` stays as it is; the shared one is
never shorter, so it is the one that binds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool

from bot.github.calls import hooked
from bot.github.types import Gateway, GitHubError
from bot.server.gateways import GatewayFactory

log = logging.getLogger("bot.server.pacing")

MAX_HOLD = 3600.0  # a Retry-After longer than this is recorded as this


class SharedPacer:
    def __init__(
        self,
        pool: ConnectionPool[Any],
        interval: float,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.pool = pool
        self.interval = interval
        self.clock = clock
        self.sleep = sleep

    def turn(self, key: str, *, write: bool) -> float:
        """Wait for this call's turn; returns the seconds waited."""
        now = self.clock()
        if not write:  # a read waits only for a rate-limit hold
            with self.pool.connection() as conn, conn.transaction():
                row = (
                    conn.cursor(row_factory=tuple_row)
                    .execute("SELECT not_before FROM bot_pacing WHERE key = %s", (key,))
                    .fetchone()
                )
            wait = (float(row[0]) if row else 0.0) - now
            if wait > 0:
                self.sleep(wait)
            return max(0.0, wait)
        with self.pool.connection() as conn, conn.transaction():
            cur = conn.cursor(row_factory=tuple_row)
            cur.execute(
                "INSERT INTO bot_pacing (key, updated_at) VALUES (%s, %s)"
                " ON CONFLICT (key) DO NOTHING",
                (key, now),
            )
            row = cur.execute(
                "SELECT next_write_at, not_before FROM bot_pacing WHERE key = %s FOR UPDATE",
                (key,),
            ).fetchone()
            assert row is not None
            next_write_at, not_before = float(row[0]), float(row[1])
            due = max(now, not_before, next_write_at)
            cur.execute(
                "UPDATE bot_pacing SET next_write_at = %s, updated_at = %s WHERE key = %s",
                (due + self.interval, now, key),
            )
        wait = due - now
        if wait > 0:
            self.sleep(wait)
        return max(0.0, wait)

    def hold(self, key: str, seconds: float, reason: str) -> None:
        """Every replica waits `seconds` before its next call with this credential."""
        now = self.clock()
        until = now + min(max(0.0, seconds), MAX_HOLD)
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO bot_pacing (key, not_before, reason, updated_at)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (key) DO UPDATE"
                " SET not_before = greatest(bot_pacing.not_before, excluded.not_before),"
                " reason = excluded.reason, updated_at = excluded.updated_at",
                (key, until, reason[:200], now),
            )
        log.warning("GitHub rate limit on %s: every replica holds for %.0f s", key, until - now)

    def state(self) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            rows = (
                conn.cursor(row_factory=tuple_row)
                .execute(
                    "SELECT key, next_write_at, not_before, reason FROM bot_pacing ORDER BY key"
                )
                .fetchall()
            )
        return [
            {"key": r[0], "next_write_at": r[1], "not_before": r[2], "reason": r[3]} for r in rows
        ]


class SharedPacing:
    """A `CallHook`: each call takes its turn from the shared pacer (a write reserves the
    credential's next write slot); a rate-limit answer holds every replica."""

    def __init__(self, pacer: SharedPacer, key: str) -> None:
        self.pacer = pacer
        self.key = key

    def before(self, name: str, write: bool) -> None:
        self.pacer.turn(self.key, write=write)

    def failed(self, name: str, error: GitHubError) -> None:
        if error.retry_after is not None and error.status in (403, 429):
            self.pacer.hold(self.key, error.retry_after, f"{name}: GitHub {error.status}")


def paced(inner: Gateway, pacer: SharedPacer, key: str) -> Gateway:
    """`inner` (a `bot.github.calls.GatewayBase`) whose calls take their turn from `pacer`."""
    return hooked(inner, SharedPacing(pacer, key))


def paced_factory(factory: GatewayFactory, pacer: SharedPacer, *, token: bool) -> GatewayFactory:
    """`factory`'s gateways, paced across replicas per credential."""

    def make(installation_id: int | None) -> Gateway:
        key = "token" if token or installation_id is None else f"installation:{installation_id}"
        return paced(factory(installation_id), pacer, key)

    return make
