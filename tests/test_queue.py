"""The durable queue (a real SQLite file in tmp_path) and the workers that drain it.

Time is a fake clock, so leases expire and retries come due without sleeping;
the crash test kills a real process holding a lease.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from webhook_fakes import REPO, IdempotentReviewer, MemoryGitHub, sha, wait_for

from bot.github.types import GitHubError
from bot.server.gateways import ConfigurationError
from bot.server.metrics import Metrics
from bot.server.queue import DeliveryRecord, QueueError, SQLiteQueue
from bot.server.webhook import PullEvent
from bot.server.worker import RetryPolicy, WorkerPool


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def record(
    delivery: str,
    number: int = 7,
    head: str = sha(1),
    *,
    at: float | None = 100.0,
    kind: str = "review",
    repo: str = REPO,
) -> DeliveryRecord:
    pull = PullEvent(
        repo=repo,
        number=number,
        head_sha=head,
        updated_at=at,
        installation_id=1,
        sender="Codertocat",
        draft=False,
    )
    return DeliveryRecord(
        delivery_id=delivery,
        event="pull_request",
        action="synchronize",
        kind=kind,
        reason="pull_request.synchronize",
        pull=pull if kind == "review" else None,
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def queue(tmp_path: Path, clock: Clock) -> Iterator[SQLiteQueue]:
    q = SQLiteQueue(str(tmp_path / "queue.sqlite3"), lease_seconds=60, max_attempts=3, clock=clock)
    yield q
    q.close()


def pool_for(
    queue: SQLiteQueue, github: MemoryGitHub, reviewer: IdempotentReviewer, **kw: object
) -> WorkerPool:
    return WorkerPool(
        queue,
        gateways=lambda installation: github,
        reviewer=reviewer,
        metrics=Metrics(),
        retry=RetryPolicy(base=5, cap=60, jitter=0),
        **kw,  # type: ignore[arg-type]
    )


# ----------------------------------------------------------------------------- storage


def test_file_is_wal_and_survives_reopen(tmp_path: Path, clock: Clock) -> None:
    path = str(tmp_path / "q.sqlite3")
    q = SQLiteQueue(path, clock=clock)
    assert q.ingest(record("d1")).outcome == "queued"
    q.close()
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    q = SQLiteQueue(path, clock=clock)
    job = q.claim("w")
    assert job is not None and job.head_sha == sha(1)
    assert q.ingest(record("d1")).duplicate
    q.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.sqlite3"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(QueueError, match="newer"):
        SQLiteQueue(str(path))


def test_non_review_deliveries_are_recorded_without_a_job(queue: SQLiteQueue) -> None:
    for kind, outcome in (("ignore", "ignored"), ("ping", "ping"), ("malformed", "malformed")):
        got = queue.ingest(record(f"d-{kind}", kind=kind))
        assert (got.outcome, got.job_id) == (outcome, None)
        row = queue.delivery(f"d-{kind}")
        assert row is not None and row["outcome"] == outcome
    assert queue.claim("w") is None


# ----------------------------------------------------------------------------- idempotency


def test_one_job_per_delivery_id(queue: SQLiteQueue) -> None:
    first = queue.ingest(record("same"))
    again = [queue.ingest(record("same")) for _ in range(5)]
    assert first.outcome == "queued" and not first.duplicate
    assert all(a.duplicate and a.job_id == first.job_id for a in again)
    assert len(queue.jobs()) == 1
    row = queue.delivery("same")
    assert row is not None and row["redeliveries"] == 5


def test_same_delivery_from_many_threads_makes_one_job(tmp_path: Path) -> None:
    q = SQLiteQueue(str(tmp_path / "q.sqlite3"))
    results = []
    barrier = threading.Barrier(20)

    def send() -> None:
        barrier.wait()
        results.append(q.ingest(record("racy")))

    threads = [threading.Thread(target=send) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(not r.duplicate for r in results) == 1
    assert len({r.job_id for r in results}) == 1
    assert len(q.jobs()) == 1
    q.close()


def test_group_commit_persists_every_concurrent_delivery(tmp_path: Path) -> None:
    path = str(tmp_path / "q.sqlite3")
    q = SQLiteQueue(path)
    barrier = threading.Barrier(40)
    results: list[object] = []

    def send(n: int) -> None:
        barrier.wait()
        results.append(q.ingest(record(f"d{n}", number=1 + n % 7, head=sha(n), at=float(n))))

    threads = [threading.Thread(target=send, args=(n,)) for n in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 40
    q.close()
    q = SQLiteQueue(path)  # everything acknowledged is on disk
    assert q.stats().deliveries == 40
    jobs = q.jobs()
    assert len(jobs) == 7  # one per PR, each at its newest head
    assert {j["number"]: j["head_sha"] for j in jobs} == {
        1 + k: sha(max(n for n in range(40) if n % 7 == k)) for k in range(7)
    }
    q.close()


def test_a_failed_commit_fails_every_waiting_delivery(tmp_path: Path) -> None:
    q = SQLiteQueue(str(tmp_path / "q.sqlite3"))
    q.close()
    errors: list[BaseException] = []

    def send(n: int) -> None:
        try:
            q.ingest(record(f"d{n}"))
        except sqlite3.Error as exc:
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(n,)) for n in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert len(errors) == 10 and not any(t.is_alive() for t in threads)


def test_redelivery_of_a_finished_job_does_nothing(queue: SQLiteQueue) -> None:
    queue.ingest(record("d1"))
    job = queue.claim("w")
    assert job is not None and queue.finish(job, reviewed=True)
    again = queue.ingest(record("d1"))
    assert again.duplicate and not again.requeued
    assert queue.claim("w") is None


def test_redelivery_of_an_unfinished_job_resumes_it(queue: SQLiteQueue, clock: Clock) -> None:
    queue.ingest(record("d1"))
    assert queue.claim("dead-worker") is not None
    assert queue.ingest(record("d1")).duplicate  # no second job
    assert queue.claim("w") is None  # still leased
    clock.now += 61
    job = queue.claim("w")
    assert job is not None and job.attempts == 2
    assert len(queue.jobs()) == 1


def test_redelivery_revives_a_dead_letter(queue: SQLiteQueue) -> None:
    queue.ingest(record("d1"))
    job = queue.claim("w")
    assert job is not None
    assert queue.fail(job, "GitHub 404", delay=0, permanent=True) == "dead"
    assert queue.stats().jobs["dead"] == 1
    again = queue.ingest(record("d1"))
    assert again.duplicate and again.requeued
    job = queue.claim("w")
    assert job is not None and job.attempts == 1


# ----------------------------------------------------------------------------- collapse, order


def test_burst_collapses_to_newest_head(queue: SQLiteQueue) -> None:
    heads = [(sha(n), 100.0 + n) for n in range(1, 11)]
    order = [4, 9, 0, 7, 2, 8, 1, 6, 3, 5]  # out of order
    outcomes = [queue.ingest(record(f"d{i}", head=heads[i][0], at=heads[i][1])) for i in order]
    assert outcomes[0].outcome == "queued"
    assert {o.outcome for o in outcomes[1:]} == {"collapsed"}
    assert len(queue.jobs()) == 1
    job = queue.claim("w")
    assert job is not None and job.head_sha == sha(10)


def test_at_most_one_running_and_one_queued_per_pr(queue: SQLiteQueue) -> None:
    queue.ingest(record("a", head=sha(1), at=1))
    running = queue.claim("w1")
    assert running is not None
    queue.ingest(record("b", head=sha(2), at=2))
    queue.ingest(record("c", head=sha(3), at=3))
    queue.ingest(record("other", number=8, head=sha(9), at=1))
    states = sorted((j["number"], j["state"], j["head_sha"]) for j in queue.jobs())
    assert states == [(7, "queued", sha(3)), (7, "running", sha(1)), (8, "queued", sha(9))]
    nxt = queue.claim("w2")  # PR 7 is running: the other PR goes first
    assert nxt is not None and nxt.number == 8
    assert queue.claim("w3") is None
    assert queue.finish(running, reviewed=True)
    job = queue.claim("w3")
    assert job is not None and (job.number, job.head_sha) == (7, sha(3))


def test_stale_delivery_after_newest_was_reviewed_starts_nothing(queue: SQLiteQueue) -> None:
    queue.ingest(record("new", head=sha(2), at=200))
    job = queue.claim("w")
    assert job is not None and queue.finish(job, reviewed=True)
    stale = queue.ingest(record("old", head=sha(1), at=100))
    assert stale.outcome == "superseded" and stale.job_id is None
    assert queue.claim("w") is None


def test_stale_delivery_while_newest_is_running_starts_nothing(queue: SQLiteQueue) -> None:
    queue.ingest(record("new", head=sha(2), at=200))
    job = queue.claim("w")
    stale = queue.ingest(record("old", head=sha(1), at=100))
    assert job is not None and stale.outcome == "superseded" and stale.job_id == job.id
    assert [j["state"] for j in queue.jobs()] == ["running"]


def test_stale_delivery_for_an_unreviewed_pr_reviews_the_newest_head(queue: SQLiteQueue) -> None:
    queue.ingest(record("new", head=sha(2), at=200))
    job = queue.claim("w")
    assert job is not None
    assert queue.fail(job, "boom", delay=0, permanent=True) == "dead"
    stale = queue.ingest(record("old", head=sha(1), at=100))
    assert stale.outcome == "queued"
    again = queue.claim("w")
    assert again is not None and again.head_sha == sha(2)


# ----------------------------------------------------------------------------- leases, retries


def test_expired_lease_is_taken_over_and_the_old_owner_is_fenced(
    queue: SQLiteQueue, clock: Clock
) -> None:
    queue.ingest(record("d1"))
    old = queue.claim("old")
    assert old is not None
    clock.now += 30
    assert queue.extend(old)  # renewing keeps it
    clock.now += 59
    assert queue.claim("new") is None
    clock.now += 2
    new = queue.claim("new")
    assert new is not None and new.id == old.id and new.attempts == 2
    assert not queue.extend(old)
    assert not queue.finish(old, reviewed=True)
    assert queue.fail(old, "late", delay=0, permanent=False) is None
    assert queue.finish(new, reviewed=True)


def test_retry_waits_for_backoff_then_dead_letters(queue: SQLiteQueue, clock: Clock) -> None:
    queue.ingest(record("d1"))
    for attempt in (1, 2):
        job = queue.claim("w")
        assert job is not None and job.attempts == attempt
        assert queue.fail(job, "GitHub 502", delay=30, permanent=False) == "queued"
        assert queue.claim("w") is None
        clock.now += 31
    job = queue.claim("w")
    assert job is not None and job.attempts == 3
    assert queue.fail(job, "GitHub 502", delay=30, permanent=False) == "dead"
    row = queue.job(job.id)
    assert row is not None and row["last_error"] == "GitHub 502"
    assert queue.stats().jobs["dead"] == 1


def test_crash_loop_ends_in_the_dead_letter_state(queue: SQLiteQueue, clock: Clock) -> None:
    queue.ingest(record("poison"))
    for _ in range(3):
        assert queue.claim("w") is not None
        clock.now += 61  # the worker died every time
    assert queue.claim("w") is None
    assert queue.stats().jobs["dead"] == 1


def test_failed_job_with_a_newer_queued_job_is_superseded(queue: SQLiteQueue) -> None:
    queue.ingest(record("a", head=sha(1), at=1))
    job = queue.claim("w")
    queue.ingest(record("b", head=sha(2), at=2))
    assert job is not None
    assert queue.fail(job, "GitHub 502", delay=0, permanent=False) == "superseded"
    nxt = queue.claim("w")
    assert nxt is not None and nxt.head_sha == sha(2)


def test_stats_and_prune(queue: SQLiteQueue, clock: Clock) -> None:
    queue.ingest(record("d1"))
    queue.ingest(record("d2", number=8))
    clock.now += 5
    stats = queue.stats()
    assert stats.jobs["queued"] == 2 and stats.oldest_queued_age == 5 and stats.deliveries == 2
    job = queue.claim("w")
    assert job is not None and queue.finish(job, reviewed=True)
    clock.now += 100
    assert queue.prune(50) >= 2  # the finished job and its delivery; the queued one stays
    assert [j["state"] for j in queue.jobs()] == ["queued"]
    queue.ping()


# ----------------------------------------------------------------------------- workers


def test_worker_reviews_and_passes_the_newest_head(queue: SQLiteQueue) -> None:
    github = MemoryGitHub()
    github.open_pull(7, sha(3))
    queue.ingest(record("a", head=sha(3), at=3))
    queue.ingest(record("b", head=sha(1), at=1))
    reviewer = IdempotentReviewer()
    pool = pool_for(queue, github, reviewer)
    assert pool.run_once("w")
    assert not pool.run_once("w")
    assert reviewer.expected_heads() == [sha(3)]
    assert github.reviewed_heads(7) == [sha(3)]
    assert pool.metrics.jobs.get("done") == 1


def test_raise_mid_job_is_retried_without_a_duplicate(queue: SQLiteQueue, clock: Clock) -> None:
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    queue.ingest(record("d1"))
    reviewer = IdempotentReviewer(fail_before_status=1)  # review posted, then a 502
    pool = pool_for(queue, github, reviewer)
    assert pool.run_once("w")
    assert github.reviewed_heads(7) == [sha(1)] and github.statuses == []
    assert not pool.run_once("w")  # backing off
    clock.now += 6
    assert pool.run_once("w")
    assert github.reviewed_heads(7) == [sha(1)]  # not posted twice
    assert len(github.statuses) == 1
    (job,) = queue.jobs()
    assert (job["state"], job["attempts"]) == ("done", 2)
    assert pool.metrics.jobs.get("retry") == 1 and pool.metrics.jobs.get("done") == 1


def test_worker_dead_mid_job_then_restart_gives_one_review(
    queue: SQLiteQueue, clock: Clock
) -> None:
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    queue.ingest(record("d1"))
    # A worker leased the job, posted the review and died before finishing it.
    job = queue.claim("dead-worker")
    assert job is not None
    github.create_review(REPO, 7, sha(1), f"review <!-- recipe-review head={sha(1)} -->", [])
    reviewer = IdempotentReviewer()
    pool = pool_for(queue, github, reviewer)
    assert not pool.run_once("w")  # the dead worker's lease still holds
    clock.now += 61
    assert pool.run_once("w")
    assert github.reviewed_heads(7) == [sha(1)]
    assert len(github.statuses) == 1
    assert [j["state"] for j in queue.jobs()] == ["done"]


def test_permanent_errors_dead_letter_at_once(queue: SQLiteQueue) -> None:
    github = MemoryGitHub()  # PR 7 does not exist: 404
    queue.ingest(record("d1"))
    queue.ingest(record("d2", number=8))
    reviewer = IdempotentReviewer()

    def factory(installation: int | None) -> MemoryGitHub:
        if installation is None:
            raise ConfigurationError("no installation")
        return github

    pool = WorkerPool(queue, gateways=factory, reviewer=reviewer, metrics=Metrics())
    assert pool.run_once("w") and pool.run_once("w")
    assert queue.stats().jobs["dead"] == 2
    assert pool.metrics.jobs.get("dead") == 2
    assert pool.metrics.github_errors.get("pull", "404") == 2


def test_rate_limit_retry_after_is_honoured(queue: SQLiteQueue, clock: Clock) -> None:
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    queue.ingest(record("d1"))
    reviewer = IdempotentReviewer(error=GitHubError("rate limited", 403, retry_after=120))
    pool = pool_for(queue, github, reviewer)
    assert pool.run_once("w")
    clock.now += 119
    assert not pool.run_once("w")
    clock.now += 2
    assert pool.run_once("w")


def test_unexpected_exceptions_are_retried_then_dead(queue: SQLiteQueue, clock: Clock) -> None:
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    queue.ingest(record("d1"))

    def broken(*args: object) -> object:
        raise KeyError("bug")

    pool = WorkerPool(
        queue,
        gateways=lambda i: github,
        reviewer=broken,  # type: ignore[arg-type]
        metrics=Metrics(),
        retry=RetryPolicy(base=1, cap=1, jitter=0),
    )
    for _ in range(3):
        assert pool.run_once("w")
        clock.now += 2
    assert queue.stats().jobs["dead"] == 1


def test_threads_drain_the_queue_and_renew_leases(tmp_path: Path) -> None:
    q = SQLiteQueue(str(tmp_path / "q.sqlite3"), lease_seconds=0.3)
    github = MemoryGitHub()
    for n in range(1, 6):
        github.open_pull(n, sha(n))
        q.ingest(record(f"d{n}", number=n, head=sha(n)))
    reviewer = IdempotentReviewer(delay=0.5)  # longer than the lease: renewals must keep it
    pool = pool_for(q, github, reviewer, workers=3, lease_seconds=0.3, poll_seconds=0.05)
    pool.start()
    try:
        wait_for(lambda: q.stats().jobs["done"] == 5)
    finally:
        pool.stop()
    assert sorted(n for _, n, _, _ in reviewer.runs) == [1, 2, 3, 4, 5]  # each exactly once
    assert all(j["attempts"] == 1 for j in q.jobs())
    q.close()


CRASHER = textwrap.dedent(
    """
    import sys, time
    from bot.server.queue import SQLiteQueue
    q = SQLiteQueue(sys.argv[1], lease_seconds=0.5)
    job = q.claim("doomed")
    print(job.id if job else "none", flush=True)
    time.sleep(60)
    """
)


def test_worker_process_killed_mid_job_then_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "q.sqlite3")
    q = SQLiteQueue(path, lease_seconds=0.5)
    q.ingest(record("d1"))
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASHER, path],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "1"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    reviewer = IdempotentReviewer()
    pool = pool_for(q, github, reviewer, workers=1, lease_seconds=0.5, poll_seconds=0.05)
    pool.start()
    try:
        wait_for(lambda: q.stats().jobs["done"] == 1)
    finally:
        pool.stop()
    assert github.reviewed_heads(7) == [sha(1)]
    (job,) = q.jobs()
    assert job["attempts"] == 2 and "doomed" in str(job["last_error"])
    q.close()
