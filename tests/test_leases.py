"""Leases, on both queue backends (the SQLite file and PostgreSQL): a running job's lease
is a heartbeat its worker renews every third of `BOT_LEASE_SECONDS`, so

- a replica that dies (SIGKILL, OOM) has its running jobs taken over by another replica
  within a minute, with the service's default settings;
- a live worker keeps its job however long it runs;
- a job that finished is not reported as "lease lost".
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest
from webhook_fakes import IdempotentReviewer, MemoryGitHub, sha, wait_for

from bot.server.metrics import Metrics
from bot.server.queue import SQLiteQueue
from bot.server.settings import load_settings
from bot.server.worker import WorkerPool
from tests.test_queue_conformance import backend as backend
from tests.test_queue_conformance import make as make
from tests.test_queue_conformance import record
from tests.test_queue_conformance import store as store

DEATH_BUDGET = 60.0  # seconds from a replica's death to its jobs running elsewhere


def _defaults() -> Any:
    return load_settings({"BOT_WEBHOOK_SECRET": "s", "GITHUB_TOKEN": "t"})


def test_the_default_lease_recovers_a_dead_replicas_jobs_within_a_minute() -> None:
    """The lease is the heartbeat timeout: with the defaults, a dead replica's job is
    claimable elsewhere within 60 s of its last heartbeat (the next poll included).
    Without the fix the default lease was 300 s: the job waited five minutes."""
    settings = _defaults()
    assert settings.lease_seconds + settings.poll_seconds <= DEATH_BUDGET
    assert settings.lease_seconds / 3 >= 2 * settings.poll_seconds  # beats, not a busy loop


def test_a_dead_replicas_running_job_is_taken_over_within_a_minute_sqlite(tmp_path: Any) -> None:
    """SQLite, the service's default lease, a clock stepped by hand: replica A claims a job
    and dies (no heartbeat); 60 s later replica B's claim takes the job over."""
    settings = _defaults()
    now = [1_000_000.0]
    path = str(tmp_path / "q.sqlite3")
    a = SQLiteQueue(path, lease_seconds=settings.lease_seconds, clock=lambda: now[0])
    b = SQLiteQueue(path, lease_seconds=settings.lease_seconds, clock=lambda: now[0])
    a.ingest(record("d1"))
    held = a.claim("replica-a")
    assert held is not None
    now[0] += settings.lease_seconds / 2
    assert b.claim("replica-b") is None  # alive as far as anyone knows
    now[0] = 1_000_000.0 + DEATH_BUDGET - settings.poll_seconds
    taken = b.claim("replica-b")
    assert taken is not None and taken.id == held.id and taken.attempts == 2
    assert not a.finish(held, reviewed=True)  # the dead replica's attempt is fenced off
    a.close()
    b.close()


def test_a_dead_replicas_running_job_is_taken_over_within_a_minute_postgres(
    pg_url: str,
) -> None:
    """PostgreSQL, the service's default lease: procrastinate's worker heartbeat of the dead
    replica is a minute old (its clock is the server's); replica B's claim takes over."""
    import psycopg

    from bot.server.pgqueue import PostgresQueue

    settings = _defaults()
    a = PostgresQueue(pg_url, lease_seconds=settings.lease_seconds)
    b = PostgresQueue(pg_url, lease_seconds=settings.lease_seconds)
    try:
        a.ingest(record("d1"))
        held = a.claim("replica-a")
        assert held is not None

        def heartbeat_age(seconds: float) -> None:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(
                    "UPDATE procrastinate_workers SET last_heartbeat ="
                    " now() - make_interval(secs => %s) WHERE id = (SELECT worker_id FROM"
                    " procrastinate_jobs WHERE id = %s)",
                    (seconds, int(held.lease_token)),
                )

        heartbeat_age(settings.lease_seconds / 2)
        assert b.claim("replica-b") is None  # alive as far as anyone knows
        heartbeat_age(DEATH_BUDGET - settings.poll_seconds)
        taken = b.claim("replica-b")
        assert taken is not None and taken.id == held.id and taken.attempts == 2
        assert not a.finish(held, reviewed=True)
    finally:
        a.close()
        b.close()


def test_a_live_worker_keeps_a_job_that_outlasts_its_lease(
    make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A review running three leases long keeps its lease by heartbeat: no other replica
    takes it over, nothing is reviewed twice, and no "lease lost" is logged."""
    queue, other = make(lease_seconds=1.0), make(lease_seconds=1.0)
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    slow = IdempotentReviewer(delay=3.0)
    pool = WorkerPool(
        queue,
        gateways=lambda _: github,
        reviewer=slow,
        metrics=Metrics(),
        workers=1,
        lease_seconds=1.0,
        poll_seconds=0.05,
    )
    queue.ingest(record("d1"))
    with caplog.at_level(logging.WARNING, logger="bot.server.worker"):
        pool.start()
        try:
            slow.started.wait(5)
            deadline = time.monotonic() + 2.5
            while time.monotonic() < deadline:  # the other replica keeps asking
                assert other.claim("replica-b") is None
                time.sleep(0.1)
            wait_for(lambda: queue.jobs()[0]["state"] == "done", timeout=10)
        finally:
            pool.stop()
    assert len(slow.runs) == 1 and len(github.reviews_posted) == 1
    assert not [r for r in caplog.records if "lease lost" in r.getMessage()]


class _SlowExtend:
    """A queue whose lease renewal is slow: it returns only after the job finished."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.finished = threading.Event()
        self.renewing = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def extend(self, job: Any) -> bool:
        self.renewing.set()
        self.finished.wait(10)
        return bool(self.inner.extend(job))

    def finish(self, job: Any, **kw: Any) -> bool:
        done = bool(self.inner.finish(job, **kw))
        self.finished.set()
        return done


def test_a_finished_job_is_not_reported_as_lease_lost(
    make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The keeper renews the leases it saw held; a job that finished while its renewal was
    under way has no lease any more, and that is not "lease lost". Without the fix every
    such race logged a false "job N: lease lost while running" warning."""
    queue = _SlowExtend(make(lease_seconds=0.3))
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    block = threading.Event()
    reviewer = IdempotentReviewer(block=block)
    pool = WorkerPool(
        queue,
        gateways=lambda _: github,
        reviewer=reviewer,
        metrics=Metrics(),
        workers=1,
        lease_seconds=0.3,
        poll_seconds=0.05,
    )
    queue.ingest(record("d1"))
    with caplog.at_level(logging.WARNING, logger="bot.server.worker"):
        pool.start()
        try:
            assert queue.renewing.wait(5)  # the keeper is renewing while the job runs
            block.set()  # the job finishes now, during that renewal
            wait_for(lambda: queue.jobs()[0]["state"] == "done", timeout=10)
            time.sleep(0.5)
        finally:
            pool.stop()
    assert [j["state"] for j in queue.jobs()] == ["done"]
    assert not [r for r in caplog.records if "lease lost" in r.getMessage()]
