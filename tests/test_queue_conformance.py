"""One conformance suite for every `JobQueue` backend: the SQLite file and PostgreSQL
(procrastinate). Each test runs against both, on a real SQLite file in tmp_path and a real
PostgreSQL database (a throwaway server started by conftest, or BOT_TEST_PG_DSN).

Time is the real clock here (PostgreSQL's `now()` decides when a deferred job is due and
when a heartbeat is stale), so leases and retry delays are short.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from webhook_fakes import REPO, IdempotentReviewer, MemoryGitHub, sha, wait_for

from bot.server.metrics import Metrics
from bot.server.queue import ADVISE, DeliveryRecord, Job, QueueError, RejectedRecord
from bot.server.webhook import PullEvent, SignoffRequest
from bot.server.worker import RetryPolicy, WorkerPool

LEASE = 1.0  # seconds: a replica that stops beating loses its jobs after this

Factory = Callable[..., Any]


def record(
    delivery: str, number: int = 7, head: str = sha(1), *, at: float | None = 100.0
) -> DeliveryRecord:
    pull = PullEvent(
        repo=REPO,
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
        kind="review",
        reason="pull_request.synchronize",
        pull=pull,
    )


def signoff_record(delivery: str, number: int = 7, head: str = sha(1)) -> DeliveryRecord:
    req = SignoffRequest(
        repo=REPO,
        number=number,
        head_sha=head,
        installation_id=1,
        event={"delivery": delivery, "kind": "comment"},
    )
    return DeliveryRecord(
        delivery_id=delivery,
        event="issue_comment",
        action="created",
        kind="signoff",
        reason="issue_comment.created",
        signoff=req,
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if backend == "sqlite":
        return str(tmp_path / "queue.sqlite3")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def make(backend: str, store: str) -> Iterator[Factory]:
    """Opens queues on one store: each call is another replica."""
    opened: list[Any] = []

    def open_queue(**kw: Any) -> Any:
        kw.setdefault("lease_seconds", LEASE)
        kw.setdefault("max_attempts", 3)
        if backend == "sqlite":
            from bot.server.queue import SQLiteQueue

            q: Any = SQLiteQueue(store, **kw)
        else:
            from bot.server.pgqueue import PostgresQueue

            q = PostgresQueue(store, **kw)
        opened.append(q)
        return q

    yield open_queue
    for q in opened:
        q.close()


@pytest.fixture
def queue(make: Factory) -> Any:
    return make()


def _sql(backend: str, store: str, statements: list[str]) -> None:
    if backend == "sqlite":
        db = sqlite3.connect(store)
        try:
            for s in statements:
                db.execute(s)
            db.commit()
        finally:
            db.close()
    else:
        import psycopg

        with psycopg.connect(store, autocommit=True) as conn:
            for s in statements:
                conn.execute(s)  # type: ignore[call-overload]


def break_job_inserts(backend: str, store: str) -> None:
    """Make every job insert fail, as a full or broken disk would."""
    if backend == "sqlite":
        _sql(
            backend,
            store,
            [
                "CREATE TRIGGER no_jobs BEFORE INSERT ON jobs"
                " BEGIN SELECT RAISE(ABORT, 'disk full'); END"
            ],
        )
    else:
        _sql(
            backend,
            store,
            [
                "CREATE FUNCTION no_jobs() RETURNS trigger LANGUAGE plpgsql AS"
                " $$ BEGIN RAISE EXCEPTION 'disk full'; END $$",
                "CREATE TRIGGER no_jobs BEFORE INSERT ON procrastinate_jobs"
                " FOR EACH ROW EXECUTE FUNCTION no_jobs()",
            ],
        )


def repair_job_inserts(backend: str, store: str) -> None:
    if backend == "sqlite":
        _sql(backend, store, ["DROP TRIGGER no_jobs"])
    else:
        _sql(backend, store, ["DROP TRIGGER no_jobs ON procrastinate_jobs"])


def claim_soon(queue: Any, owner: str, timeout: float = 5.0) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = queue.claim(owner)
        if job is not None:
            return job
        time.sleep(0.05)
    raise AssertionError(f"no job became due within {timeout} s")


# ----------------------------------------------------------------------------- dedupe


def test_one_job_per_delivery_id(queue: Any) -> None:
    first = queue.ingest(record("d1"))
    again = queue.ingest(record("d1"))
    assert (first.outcome, first.duplicate) == ("queued", False)
    assert (again.outcome, again.job_id, again.duplicate) == ("queued", first.job_id, True)
    assert len(queue.jobs()) == 1
    assert queue.delivery("d1")["redeliveries"] == 1


def test_same_delivery_at_many_replicas_at_once_makes_one_job(make: Factory) -> None:
    replicas = [make() for _ in range(4)]
    results: list[Any] = []
    lock = threading.Lock()

    def send(q: Any) -> None:
        r = q.ingest(record("same"))
        with lock:
            results.append(r)

    threads = [threading.Thread(target=send, args=(replicas[i % 4],)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 12
    assert sum(not r.duplicate for r in results) == 1
    assert len({r.job_id for r in results}) == 1
    assert len(replicas[0].jobs()) == 1


def test_delivery_and_job_are_stored_together_or_not_at_all(
    queue: Any, backend: str, store: str
) -> None:
    break_job_inserts(backend, store)
    with pytest.raises(Exception, match="disk full"):
        queue.ingest(record("d1"))
    assert queue.delivery("d1") is None  # not stored: the webhook answers 503, GitHub retries
    assert queue.jobs() == []
    repair_job_inserts(backend, store)
    again = queue.ingest(record("d1"))  # the redelivery is a first delivery
    assert (again.outcome, again.duplicate) == ("queued", False)
    assert len(queue.jobs()) == 1


# ----------------------------------------------------------------------------- bursts


def test_burst_collapses_to_the_newest_head(queue: Any) -> None:
    outcomes = [queue.ingest(record(f"d{i}", head=sha(i), at=float(i))) for i in range(1, 6)]
    assert [o.outcome for o in outcomes] == ["queued"] + ["collapsed"] * 4
    assert len({o.job_id for o in outcomes}) == 1
    (job,) = queue.jobs()
    assert (job["head_sha"], job["deliveries"]) == (sha(5), 5)
    claimed = queue.claim("w")
    assert claimed.head_sha == sha(5)


def test_out_of_order_burst_keeps_the_newest_head(queue: Any) -> None:
    queue.ingest(record("new", head=sha(3), at=3))
    queue.ingest(record("old", head=sha(1), at=1))
    (job,) = queue.jobs()
    assert job["head_sha"] == sha(3)


def test_signoff_deliveries_collapse_and_keep_every_event(queue: Any) -> None:
    a = queue.ingest(signoff_record("s1"))
    b = queue.ingest(signoff_record("s2"))
    assert (a.outcome, b.outcome, a.job_id == b.job_id) == ("queued", "collapsed", True)
    job = queue.claim("w")
    assert (job.kind, [e["delivery"] for e in job.events]) == ("signoff", ["s1", "s2"])


def test_one_running_and_one_queued_job_per_pr(make: Factory) -> None:
    a, b = make(), make()
    a.ingest(record("d1", head=sha(1), at=1))
    running = a.claim("replica-a")
    assert running is not None
    a.ingest(record("d2", head=sha(2), at=2))
    a.ingest(record("d3", head=sha(3), at=3))
    assert b.claim("replica-b") is None  # PR 7 is under review: its next job waits
    b.ingest(record("other", number=8, head=sha(9), at=1))
    other = b.claim("replica-b")
    assert (other.number, other.head_sha) == (8, sha(9))
    assert a.finish(running, reviewed=True)
    nxt = b.claim("replica-b")
    assert (nxt.number, nxt.head_sha) == (7, sha(3))


# ----------------------------------------------------------------------------- supersede


def test_stale_delivery_after_the_newest_was_reviewed_starts_nothing(queue: Any) -> None:
    queue.ingest(record("d2", head=sha(2), at=2))
    job = queue.claim("w")
    assert queue.finish(job, reviewed=True)
    late = queue.ingest(record("d1", head=sha(1), at=1))
    assert (late.outcome, late.job_id) == ("superseded", None)
    assert [j["state"] for j in queue.jobs()] == ["done"]


def test_stale_delivery_while_the_newest_is_running_starts_nothing(queue: Any) -> None:
    queue.ingest(record("d2", head=sha(2), at=2))
    job = queue.claim("w")
    late = queue.ingest(record("d1", head=sha(1), at=1))
    assert (late.outcome, late.job_id) == ("superseded", job.id)


def test_a_failed_job_with_a_newer_queued_job_is_superseded(queue: Any) -> None:
    queue.ingest(record("d1", head=sha(1), at=1))
    job = queue.claim("w")
    queue.ingest(record("d2", head=sha(2), at=2))  # queued while the first one runs
    assert queue.fail(job, "GitHub 502", delay=0, permanent=False) == "superseded"
    states = sorted((j["head_sha"], j["state"]) for j in queue.jobs())
    assert states == sorted([(sha(1), "superseded"), (sha(2), "queued")])
    assert queue.claim("w").head_sha == sha(2)


# ----------------------------------------------------------------------------- leases


def test_jobs_of_a_replica_that_died_are_recovered_and_its_writes_fenced(
    make: Factory,
) -> None:
    dead, alive = make(), make()
    dead.ingest(record("d1"))
    lost = dead.claim("replica-a:worker-0")
    assert lost is not None
    assert alive.claim("replica-b:worker-0") is None  # its heartbeat is still fresh
    time.sleep(LEASE + 0.5)  # replica A stops beating (SIGKILL)
    taken = claim_soon(alive, "replica-b:worker-0")
    assert (taken.id, taken.attempts) == (lost.id, 2)
    assert not dead.finish(lost, reviewed=True)  # the old attempt is fenced off
    assert dead.fail(lost, "late", delay=0, permanent=False) is None
    assert not dead.extend(lost)
    assert alive.finish(taken, reviewed=True)
    assert [j["state"] for j in alive.jobs()] == ["done"]


def test_heartbeats_keep_a_long_job_with_its_replica(make: Factory) -> None:
    a, b = make(), make()
    a.ingest(record("d1"))
    job = a.claim("replica-a:worker-0")
    for _ in range(6):
        time.sleep(LEASE / 3)
        assert a.extend(job)
    assert b.claim("replica-b:worker-0") is None
    assert a.finish(job, reviewed=True)


# ----------------------------------------------------------------------------- retries


def test_retry_waits_for_retry_after_then_dead_letters(queue: Any) -> None:
    queue.ingest(record("d1"))
    job = queue.claim("w")
    assert queue.fail(job, "GitHub 429", delay=1.0, permanent=False) == "queued"
    assert queue.claim("w") is None  # Retry-After not over yet
    time.sleep(0.6)
    assert queue.claim("w") is None
    again = claim_soon(queue, "w")
    assert again.attempts == 2
    assert queue.fail(again, "GitHub 429", delay=0.2, permanent=False) == "queued"
    third = claim_soon(queue, "w")
    assert queue.fail(third, "GitHub 502", delay=0, permanent=False) == "dead"  # max_attempts 3
    assert queue.claim("w") is None


def test_a_retry_waiting_for_its_delay_absorbs_new_deliveries(queue: Any) -> None:
    """A waiting retry holds the PR's queueing lock: a new push joins it, no collision."""
    queue.ingest(record("d1", head=sha(1), at=1))
    job = queue.claim("w")
    assert queue.fail(job, "GitHub 502", delay=0.5, permanent=False) == "queued"
    joined = queue.ingest(record("d2", head=sha(2), at=2))
    assert (joined.outcome, joined.job_id) == ("collapsed", job.id)
    again = claim_soon(queue, "w")
    assert (again.id, again.head_sha, again.attempts) == (job.id, sha(2), 2)


def test_a_retry_while_a_newer_job_is_queued_never_collides(make: Factory) -> None:
    a, b = make(), make()
    a.ingest(record("d1", head=sha(1), at=1))
    job = a.claim("replica-a")
    b.ingest(record("d2", head=sha(2), at=2))  # the PR's queueing lock is taken now
    time.sleep(LEASE + 0.5)  # replica A died mid-job
    recovered = claim_soon(b, "replica-b")  # recovery retries A's job: superseded, no error
    assert recovered.head_sha == sha(2)
    assert not a.finish(job, reviewed=True)
    assert sorted(j["state"] for j in b.jobs()) == ["running", "superseded"]


# ----------------------------------------------------------------------------- dead letters


def test_dead_letters_are_listed_and_retried_by_id(queue: Any) -> None:
    queue.ingest(record("d1"))
    job = queue.claim("w")
    assert queue.fail(job, "GitHub 404: gone", delay=0, permanent=True) == "dead"
    (dead,) = queue.dead_letters()
    assert (dead["id"], dead["repo"], dead["number"]) == (job.id, REPO, 7)
    assert "404" in dead["last_error"]
    assert queue.stats().jobs["dead"] == 1
    assert queue.retry(job.id) == f"job {job.id} queued again"
    assert queue.dead_letters() == []
    again = queue.claim("w")
    assert (again.id, again.attempts) == (job.id, 1)
    with pytest.raises(QueueError, match="running, not dead"):
        queue.retry(job.id)
    with pytest.raises(QueueError, match="no job"):
        queue.retry(999_999)


def test_redelivery_revives_a_dead_letter(queue: Any) -> None:
    queue.ingest(record("d1"))
    job = queue.claim("w")
    queue.fail(job, "GitHub 404", delay=0, permanent=True)
    again = queue.ingest(record("d1"))
    assert again.requeued and again.duplicate
    assert queue.claim("w").id == job.id


def test_stats_and_prune(queue: Any) -> None:
    queue.ingest(record("d1"))
    queue.ingest(record("d2", number=8))
    job = queue.claim("w")
    queue.finish(job, reviewed=True)
    stats = queue.stats()
    assert (stats.jobs["done"], stats.jobs["queued"], stats.deliveries) == (1, 1, 2)
    time.sleep(0.05)
    assert queue.prune(0.0) >= 2  # the finished job, its delivery (and its PR row)
    assert [j["state"] for j in queue.jobs()] == ["queued"]


# ----------------------------------------------------------------------------- workers


def _pool(queue: Any, github: MemoryGitHub, reviewer: Any, **kw: Any) -> WorkerPool:
    return WorkerPool(
        queue,
        gateways=lambda installation: github,
        reviewer=reviewer,
        metrics=Metrics(),
        retry=RetryPolicy(base=0.2, cap=1, jitter=0),
        lease_seconds=LEASE,
        poll_seconds=0.05,
        **kw,
    )


def test_a_job_past_its_wall_clock_timeout_is_failed_and_retried(queue: Any) -> None:
    github = MemoryGitHub()
    github.open_pull(7, sha(1))
    queue.ingest(record("d1"))
    release = threading.Event()
    calls: list[int] = []

    def reviewer(gw: Any, repo: str, number: int, head: str | None) -> Any:
        calls.append(1)
        if len(calls) == 1:
            release.wait(10)  # stuck in a call that never returns in time
            gw.pull(repo, number)  # past the deadline: refused, nothing written
        return IdempotentReviewer()(gw, repo, number, head)

    pool = _pool(queue, github, reviewer, workers=2, job_timeout=0.5)
    pool.start()
    try:
        wait_for(lambda: any(j["state"] == "done" for j in queue.jobs()), timeout=10)
        release.set()
        (job,) = queue.jobs()
        assert job["attempts"] == 2
        assert "timed out after 0.5 s" in job["last_error"]
        assert pool.metrics.jobs.get("timeout") == 1
        wait_for(lambda: pool.metrics.jobs.get("lost") == 1, timeout=5)  # the late attempt
        assert github.reviewed_heads(7) == [sha(1)]
    finally:
        release.set()
        pool.stop(5)


def test_two_replicas_drain_bursts_with_one_review_per_pr_at_a_time(make: Factory) -> None:
    github = MemoryGitHub()
    prs = range(1, 11)
    running: dict[int, int] = {}
    worst = [0]
    lock = threading.Lock()
    inner = IdempotentReviewer()

    def reviewer(gw: Any, repo: str, number: int, head: str | None) -> Any:
        with lock:
            running[number] = running.get(number, 0) + 1
            worst[0] = max(worst[0], running[number])
        try:
            time.sleep(0.01)
            return inner(gw, repo, number, head)
        finally:
            with lock:
                running[number] -= 1

    replicas = [make(), make()]
    pools = [_pool(q, github, reviewer, workers=2) for q in replicas]
    for p in pools:
        p.start()
    try:
        for step in range(1, 6):
            for n in prs:
                github.open_pull(n, sha(n * 100 + step))  # a push
                q = replicas[(n + step) % 2]
                q.ingest(record(f"{n}-{step}", number=n, head=sha(n * 100 + step), at=step))
                if step == 3:  # GitHub redelivers some
                    replicas[n % 2].ingest(
                        record(f"{n}-{step}", number=n, head=sha(n * 100 + step), at=step)
                    )
            time.sleep(0.02)

        def drained() -> bool:
            return all(j["state"] in ("done", "superseded") for j in replicas[0].jobs())

        wait_for(drained, timeout=20)
    finally:
        for p in pools:
            p.stop(5)
    assert worst[0] == 1
    for n in prs:
        heads = github.reviewed_heads(n)
        assert heads and heads[-1] == sha(n * 100 + 5)
        assert len(heads) == len(set(heads))  # no head reviewed twice


def test_a_push_also_queues_a_signoff_check_unless_it_is_stale(queue: Any) -> None:
    both = DeliveryRecord(
        delivery_id="push-2",
        event="pull_request",
        action="synchronize",
        kind="review",
        reason="pull_request.synchronize",
        pull=record("x", head=sha(2), at=2).pull,
        signoff=signoff_record("push-2", head=sha(2)).signoff,
    )
    assert queue.ingest(both).outcome == "queued"
    kinds = sorted((j["kind"], j["head_sha"]) for j in queue.jobs())
    assert kinds == [("review", sha(2)), ("signoff", sha(2))]
    assert queue.delivery("push-2")["head_sha"] == sha(2)
    review = queue.claim("w")
    signoff = queue.claim("w2")  # another kind of the same PR runs beside the review
    assert {review.kind, signoff.kind} == {"review", "signoff"}
    assert queue.finish(review, reviewed=True)
    stale = DeliveryRecord(
        delivery_id="push-1",
        event="pull_request",
        action="synchronize",
        kind="review",
        reason="pull_request.synchronize",
        pull=record("y", head=sha(1), at=1).pull,
        signoff=signoff_record("push-1", head=sha(1)).signoff,
    )
    assert queue.ingest(stale).outcome == "superseded"
    assert len(queue.jobs()) == 2  # no sign-off job for a head that is not the newest


def test_a_stale_delivery_for_an_unreviewed_pr_reviews_the_newest_head(queue: Any) -> None:
    queue.ingest(record("d2", head=sha(2), at=2))
    job = queue.claim("w")
    assert queue.fail(job, "GitHub 404", delay=0, permanent=True) == "dead"
    late = queue.ingest(record("d1", head=sha(1), at=1))
    assert late.outcome == "queued"
    assert queue.claim("w").head_sha == sha(2)


# ----------------------------------------------------------------------------- ingress, advice


def test_an_out_of_range_id_is_rejected_before_anything_is_stored(queue: Any) -> None:
    bad = record("huge")
    assert bad.pull is not None
    bad = dataclasses.replace(bad, pull=dataclasses.replace(bad.pull, installation_id=2**70))
    with pytest.raises(RejectedRecord, match="installation"):
        queue.ingest(bad)
    assert queue.delivery("huge") is None
    assert queue.ingest(record("fine")).outcome == "queued"  # the queue still takes the next


def _advise_record(delivery: str, head: str) -> DeliveryRecord:
    base = record(delivery, head=head)
    return dataclasses.replace(base, event="advise", kind=ADVISE, reason="review finished")


def test_advise_jobs_are_one_queued_per_pr_on_the_newest_head(queue: Any) -> None:
    first = queue.ingest(_advise_record("advise-1", sha(1)))
    again = queue.ingest(_advise_record("advise-2", sha(2)))
    assert (first.outcome, again.outcome) == ("queued", "collapsed")
    assert first.job_id == again.job_id
    (job,) = [j for j in queue.jobs() if j["kind"] == ADVISE]
    assert job["head_sha"] == sha(2)
    assert queue.ingest(_advise_record("advise-2", sha(2))).duplicate


# ----------------------------------------------------------------------------- GitHub's order


def test_a_known_delivery_id_with_another_body_is_a_conflict(queue: Any) -> None:
    first = queue.ingest(dataclasses.replace(record("d1"), body_sha256="a" * 64))
    again = queue.ingest(dataclasses.replace(record("d1"), body_sha256="a" * 64))
    other = queue.ingest(dataclasses.replace(record("d1", head=sha(2)), body_sha256="b" * 64))
    assert (again.outcome, again.duplicate, again.conflict) == ("queued", True, None)
    assert (other.outcome, other.conflict) == ("conflict", ("a" * 64, "b" * 64))
    assert other.job_id == first.job_id
    stored = queue.delivery("d1")
    assert stored["redeliveries"] == 1 and stored["head_sha"] == sha(1)
    assert [j["head_sha"] for j in queue.jobs()] == [sha(1)]  # nothing of it stored


def test_finish_records_the_head_github_showed(queue: Any) -> None:
    """A job queued for an older head (deliveries out of order) reviews the head GitHub
    shows: that head is the reviewed one, and the newest known."""
    queue.ingest(record("d1", head=sha(2), at=100.0))
    queue.ingest(record("d2", head=sha(1), at=100.0))  # equal times, arrived last: wins
    job = claim_soon(queue, "w")
    assert job.head_sha == sha(1)
    assert queue.finish(job, reviewed=True, head_sha=sha(2))
    assert queue.sweep(0.0) == []  # the newest head is reviewed: nothing to sweep
    again = queue.ingest(record("d3", head=sha(1), at=99.0))
    assert again.outcome == "superseded"


def test_sweep_queues_each_head_left_without_a_review_once(queue: Any) -> None:
    queue.ingest(record("d1", head=sha(1)))
    job = claim_soon(queue, "w")
    assert queue.fail(job, "outage", delay=0, permanent=True) == "dead"
    time.sleep(0.05)
    assert queue.sweep(3600.0) == []  # not idle long enough
    (swept,) = queue.sweep(0.0)
    assert (swept.repo, swept.number, swept.head_sha, swept.installation_id) == (
        REPO,
        7,
        sha(1),
        1,
    )
    assert queue.sweep(0.0) == []  # a queued job covers it
    job = claim_soon(queue, "w")
    assert job.id == swept.id
    assert queue.fail(job, "still out", delay=0, permanent=True) == "dead"
    assert queue.sweep(0.0) == []  # each head once
    queue.ingest(record("d2", head=sha(2), at=200.0))
    job = claim_soon(queue, "w")
    assert queue.finish(job, reviewed=True)
    assert queue.sweep(0.0) == []


def fix_record(delivery: str, number: int = 7, head: str = sha(1)) -> DeliveryRecord:
    """The check run's "Apply safe fixes" pressed for `head`."""
    pull = PullEvent(REPO, number, head, 100.0, 1, "maintainer", False)
    return DeliveryRecord(
        delivery, "check_run", "requested_action", "fix", "check_run.requested_action", pull
    )


def test_safe_fixes_are_queued_once_per_head(queue: Any) -> None:
    first = queue.ingest(fix_record("f1"))
    assert first.outcome == "queued" and queue.fix_requested(REPO, sha(1))
    # pressed again (another delivery), queued or not, done or not: nothing more
    assert queue.ingest(fix_record("f2")).outcome == "superseded"
    job = queue.claim("w1")
    assert job is not None and (job.kind, job.head_sha) == ("fix", sha(1))
    assert queue.finish(job, reviewed=False, detail="committed")
    assert queue.ingest(fix_record("f3")).outcome == "superseded"
    # a redelivery of the first is a duplicate; another head of the PR is a new request
    assert queue.ingest(fix_record("f1")).duplicate
    assert queue.ingest(fix_record("f4", head=sha(2))).outcome == "queued"
    assert not queue.fix_requested(REPO, sha(3))
    # the review of the PR is not held back by its fix job, nor the fix job by the review
    review = queue.ingest(record("r1", head=sha(2)))
    assert review.outcome == "queued"
    kinds = sorted(j.kind for j in (queue.claim("w2"), queue.claim("w3")) if j is not None)
    assert kinds == ["fix", "review"]


def test_a_rerun_request_is_told_apart_from_a_push(queue: Any) -> None:
    queue.ingest(record("push", head=sha(1)))
    push_job = queue.claim("w")
    assert push_job is not None and not queue.rerun_requested(push_job)
    queue.finish(push_job, reviewed=True)
    rerun = dataclasses.replace(
        record("rerun", head=sha(1), at=200.0), event="check_run", action="rerequested"
    )
    assert queue.ingest(rerun).outcome == "queued"  # the reviewed head, again
    job = queue.claim("w")
    assert job is not None and job.head_sha == sha(1) and queue.rerun_requested(job)
