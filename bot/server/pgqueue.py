"""The `JobQueue` on PostgreSQL, through procrastinate, for several `bot serve` replicas.

`BOT_DB=postgresql://...` selects it (`bot.server.backends.open_queue`); a plain path keeps
the SQLite file (`bot.server.queue`). The semantics are the SQLite queue's, proven by one
conformance suite run against both (`tests/test_queue_conformance.py`).

What procrastinate (>= 3.10, psycopg 3) does here, through its own SQL functions, in the
same transaction as the bot's rows:

- `procrastinate_jobs` holds one row per attempt of a bot job, with `queueing_lock` and
  `lock` both set to `<kind>:<repo>#<number>`: its partial unique index keeps at most one
  queued (`todo`) job per PR and kind, and `procrastinate_fetch_job_v2` never hands out a
  job whose lock has a running (`doing`) one, so one review runs per PR across replicas;
- `procrastinate_workers` holds a heartbeat per worker thread; a replica that died stops
  beating, `procrastinate_prune_stalled_workers_v1` removes it after the lease, which
  detaches its jobs (`worker_id` NULL), and the next `claim` on any replica recovers them.

What the bot keeps beside them (tables `bot_*`, schema version `SCHEMA_VERSION`):
`bot_deliveries` (dedupe by `X-GitHub-Delivery`, written in the transaction that defers the
job; another body under a known id is a `conflict`), `bot_pulls` (newest head, last
reviewed head, last swept head), `bot_jobs` (the job as workers and
operators see it: state, attempts, head, sign-off events, the current procrastinate job),
`bot_fixes` (the heads whose safe fixes were requested: "Apply safe fixes" acts once per
head) and `bot_pacing` (GitHub write pacing and rate-limit holds shared by replicas,
`bot.server.pacing`).

A retry is never procrastinate's `retry_job`: that puts the same row back to `todo`, which
collides with the `queueing_lock` of a job queued meanwhile (procrastinate issues #1446 and
#1543). A retry finishes the attempt as `failed` and defers a new row after the delay
(Retry-After included) when no job of the PR is queued; when one is, the failed job is
superseded by it. Procrastinate's own worker loop is not used: the bot's threads call
`claim`, `extend`, `finish` and `fail` like on SQLite.

Concurrent decisions about one PR (ingest, claim, finish, retry) are serialised by a
transaction-scoped advisory lock on the PR, so two replicas never both queue a job for it.
Ingest is one call per delivery of the server-side function `bot_ingest_v1` (the SQLite
queue's ingest logic in PL/pgSQL, created by `bot db migrate`), and concurrent deliveries
share one transaction per lane (group commit), as on SQLite.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from bot.server.ingress import check_record
from bot.server.jobs import (
    DEAD,
    DEFAULT_LEASE_SECONDS,
    FINISHED,
    FIX,
    JOB_STATES,
    MAX_JOB_EVENTS,
    QUEUED,
    REVIEW,
    SUPERSEDED,
    DeliveryRecord,
    GroupCommit,
    Ingested,
    IngestOutcome,
    Job,
    QueueError,
    QueueStats,
    RejectedRecord,
    Slot,
    leased_job,
    load_events,
    merge_events,
)
from bot.server.pgschema import SCHEMA_VERSION as SCHEMA_VERSION
from bot.server.pgschema import SchemaBehind as SchemaBehind
from bot.server.pgschema import migrate as migrate
from bot.server.pgschema import schema_status

QUEUE_NAME = "recipe-bot"


class _OneFailed(Exception):
    """A delivery of an optimistic batch failed: run the batch again, isolated."""


def redact(url: str) -> str:
    """The URL without its password (for logs and /readyz)."""
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)


# ---------------------------------------------------------------------- the queue


def _pr_key(record: DeliveryRecord) -> tuple[str, int]:
    pull = record.pull or record.signoff
    return (pull.repo, pull.number) if pull is not None else ("", 0)


def _lock_name(kind: str, repo: str, number: int) -> str:
    return f"{kind}:{repo}#{number}"


class PostgresQueue:
    """`JobQueue` on PostgreSQL (procrastinate's job table and heartbeats, the bot's rows)."""

    backend = "postgresql"

    def __init__(
        self,
        dsn: str,
        *,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        max_attempts: int = 5,
        clock: Callable[[], float] = time.time,
        pool_size: int = 8,
        wait_seconds: float = 2.0,
        connect_timeout: int = 3,
        lanes: int = 3,
    ) -> None:
        self.dsn = dsn
        self.lease_seconds = lease_seconds
        self.max_attempts = max_attempts
        self.clock = clock
        self._workers: dict[str, int] = {}  # owner → procrastinate worker id
        self._workers_lock = threading.Lock()
        # group commit in a few lanes (a PR always in the same one): batches in parallel
        self._lanes = [GroupCommit() for _ in range(max(1, lanes))]
        self._pool = ConnectionPool(
            dsn,
            min_size=min(4, pool_size),  # the group-commit lanes and a worker, opened at start
            max_size=pool_size,
            timeout=wait_seconds,
            kwargs={"connect_timeout": connect_timeout, "autocommit": False},
            check=ConnectionPool.check_connection,
            open=False,
            name="recipe-bot",
        )
        self._pool.open(wait=False)

    @property
    def where(self) -> str:
        return redact(self.dsn)

    def pacer(self, interval: float) -> Any:
        """GitHub pacing shared by the replicas on this database (`bot.server.pacing`)."""
        from bot.server.pacing import SharedPacer

        return SharedPacer(self._pool, interval, clock=self.clock)

    # ------------------------------------------------------------- plumbing

    @contextlib.contextmanager
    def _tx(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """One transaction on a pooled connection (committed on success)."""
        with self._pool.connection() as conn:
            conn.row_factory = dict_row  # type: ignore[assignment]
            with conn.transaction():
                yield conn  # type: ignore[misc]

    def close(self) -> None:
        with contextlib.suppress(Exception), self._tx() as db:
            for wid in list(self._workers.values()):
                db.execute("SELECT procrastinate_unregister_worker_v1(%s)", (wid,))
        self._pool.close()

    def ping(self) -> None:
        """Raises when the database is unreachable or its schema is behind this bot."""
        with self._tx() as db:
            status = schema_status(db)
        if not status["current"]:
            raise SchemaBehind(
                f"schema version {status['schema_version']} "
                f"(procrastinate {status['procrastinate_schema'] or 'absent'}), "
                f"this bot needs {SCHEMA_VERSION} (procrastinate {status['procrastinate']}): "
                "run `bot db migrate`"
            )

    def schema_status(self) -> dict[str, Any]:
        with self._tx() as db:
            return schema_status(db)

    @staticmethod
    def _lock_pr(db: psycopg.Connection[Any], repo: str, number: int) -> None:
        db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{repo}#{number}",))

    @staticmethod
    def _defer(
        db: psycopg.Connection[Any], job_id: int, kind: str, repo: str, number: int, at: float
    ) -> int:
        lock = _lock_name(kind, repo, number)
        row = db.execute(
            "UPDATE bot_jobs SET pjob_id = (procrastinate_defer_jobs_v1(ARRAY[ROW(%s, %s, 0,"
            " %s, %s, %s::jsonb, to_timestamp(%s))::procrastinate_job_to_defer_v1]))[1]"
            " WHERE id = %s RETURNING pjob_id",
            (QUEUE_NAME, f"recipe-bot.{kind}", lock, lock, json.dumps({"job": job_id}), at, job_id),
        ).fetchone()
        assert row is not None
        return int(row["pjob_id"])

    @staticmethod
    def _end_attempt(db: psycopg.Connection[Any], pjob_id: int | None, status: str) -> None:
        if pjob_id is None:
            return
        row = db.execute(
            "SELECT status FROM procrastinate_jobs WHERE id = %s FOR UPDATE", (pjob_id,)
        ).fetchone()
        if row is not None and row["status"] in ("todo", "doing"):
            db.execute(
                "SELECT procrastinate_finish_job_v1(%s, %s::procrastinate_job_status, false)",
                (pjob_id, status),
            )

    # ------------------------------------------------------------- ingest

    def ingest(self, record: DeliveryRecord) -> Ingested:
        """Persist one delivery and what it decided (committed when this returns).

        Group commit, as on SQLite: concurrent callers share one transaction led by one of
        them (one per lane; a PR always goes to the same lane), the batch in PR order so
        that replicas take the PRs' locks in the same order. When a delivery fails, the
        batch runs again with each delivery in a savepoint, so that one fails alone."""
        problem = check_record(record)
        if problem is not None:
            raise RejectedRecord(problem)
        lane = self._lanes[zlib.crc32(repr(_pr_key(record)).encode()) % len(self._lanes)]
        return lane.submit(Slot(record), self._ingest_batch)

    def _ingest_batch(self, batch: list[Slot]) -> None:
        ordered = sorted(batch, key=lambda s: _pr_key(s.record))
        try:
            try:  # the common case in one go; when a delivery fails, again in savepoints
                self._run_batch(ordered, isolate=False)
            except _OneFailed:
                self._run_batch(ordered, isolate=True)
        except BaseException as exc:  # not committed: nothing in the batch is stored
            for slot in batch:
                slot.result, slot.error = None, exc
            raise
        finally:
            for slot in batch:
                slot.committed = True
                slot.wake.set()

    def _run_batch(self, ordered: list[Slot], *, isolate: bool) -> None:
        now = self.clock()
        with self._tx() as db:
            for slot in ordered:
                slot.result, slot.error = None, None
                try:
                    if isolate:
                        with db.transaction():  # a savepoint: this delivery fails alone
                            slot.result = self._ingest_one(db, slot.record, now)
                    else:
                        slot.result = self._ingest_one(db, slot.record, now)
                except psycopg.DatabaseError as exc:
                    if isinstance(exc, psycopg.OperationalError):
                        raise  # the connection or the server: the whole batch fails
                    if not isolate:
                        raise _OneFailed() from exc
                    # this delivery's data (a value out of range): a 400 and a record; any
                    # other failure of it stays an error (503: GitHub may redeliver)
                    slot.error = (
                        RejectedRecord(f"{type(exc).__name__}: {exc}"[:300])
                        if isinstance(exc, psycopg.DataError)
                        else exc
                    )

    def _ingest_one(
        self, db: psycopg.Connection[Any], record: DeliveryRecord, now: float
    ) -> Ingested:
        pull, req = record.pull, record.signoff
        row = db.execute(
            "SELECT * FROM bot_ingest_v1(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
            " %s, %s, %s, %s, %s::jsonb, %s, %s)",
            (
                record.delivery_id,
                record.event,
                record.action,
                now,
                record.body_sha256,
                record.size,
                record.kind,
                record.reason,
                pull.repo if pull else None,
                pull.number if pull else None,
                pull.head_sha if pull else None,
                pull.updated_at if pull else None,
                pull.installation_id if pull else None,
                req.repo if req else None,
                req.number if req else None,
                req.head_sha if req else None,
                req.installation_id if req else None,
                json.dumps(req.event, sort_keys=True) if req else None,
                QUEUE_NAME,
                MAX_JOB_EVENTS,
            ),
        ).fetchone()
        assert row is not None
        if record.kind == FIX and pull is not None and not row["r_duplicate"]:
            # bot_ingest_v1 stored the delivery (a new one: "ignored"); the fix job and its
            # durable record are decided here, in the same transaction
            outcome, fix_job, detail = self._enqueue_fix(db, record, now)
            db.execute(
                "UPDATE bot_deliveries SET outcome = %s, detail = %s, job_id = %s"
                " WHERE delivery_id = %s",
                (outcome, detail[:500], fix_job, record.delivery_id),
            )
            return Ingested(outcome, fix_job)
        job = row["r_job"]
        conflict = None
        if row["r_outcome"] == "conflict":
            stored = db.execute(
                "SELECT body_sha256 FROM bot_deliveries WHERE delivery_id = %s",
                (record.delivery_id,),
            ).fetchone()
            conflict = (str(stored["body_sha256"]) if stored else "", record.body_sha256)
        return Ingested(
            row["r_outcome"],
            int(job) if job is not None else None,
            duplicate=bool(row["r_duplicate"]),
            requeued=bool(row["r_requeued"]),
            conflict=conflict,
        )

    def _enqueue_fix(
        self, db: psycopg.Connection[Any], record: DeliveryRecord, now: float
    ) -> tuple[IngestOutcome, int | None, str]:
        """As `bot.server.fixrequests.enqueue_fix` (SQLite): a head's fix job once, by
        its `bot_fixes` row."""
        ev = record.pull
        assert ev is not None
        self._lock_pr(db, ev.repo, ev.number)
        outcome: IngestOutcome
        done = db.execute(
            "SELECT job_id FROM bot_fixes WHERE repo = %s AND head_sha = %s",
            (ev.repo, ev.head_sha),
        ).fetchone()
        if done is not None:
            job = done["job_id"]
            why = f"safe fixes of {ev.head_sha[:12]} requested before"
            return "superseded", int(job) if job is not None else None, why
        queued = db.execute(
            "SELECT id FROM bot_jobs WHERE repo = %s AND number = %s AND kind = %s"
            " AND state = 'queued' FOR UPDATE",
            (ev.repo, ev.number, FIX),
        ).fetchone()
        if queued is not None:
            db.execute(
                "UPDATE bot_jobs SET head_sha = %s,"
                " installation_id = coalesce(%s, installation_id),"
                " deliveries = deliveries + 1, updated_at = %s WHERE id = %s",
                (ev.head_sha, ev.installation_id, now, queued["id"]),
            )
            outcome, job_id = "collapsed", int(queued["id"])
        else:
            row = db.execute(
                "SELECT bot_insert_job_v1(%s, %s, %s, %s, %s, %s, '[]', %s) AS id",
                (FIX, ev.repo, ev.number, ev.head_sha, ev.installation_id, now, QUEUE_NAME),
            ).fetchone()
            assert row is not None
            outcome, job_id = "queued", int(row["id"])
        db.execute(
            "INSERT INTO bot_fixes (repo, head_sha, number, requested_at, delivery_id, job_id)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (ev.repo, ev.head_sha, ev.number, now, record.delivery_id, job_id),
        )
        return outcome, job_id, record.reason

    def fix_requested(self, repo: str, head_sha: str) -> bool:
        with self._tx() as db:
            row = db.execute(
                "SELECT 1 FROM bot_fixes WHERE repo = %s AND head_sha = %s", (repo, head_sha)
            ).fetchone()
        return row is not None

    def rerun_requested(self, job: Job) -> bool:
        """As `SQLiteQueue.rerun_requested`."""
        with self._tx() as db:
            row = db.execute(
                "SELECT 1 FROM bot_deliveries WHERE job_id = %s AND action = 'rerequested'"
                " AND event IN ('check_run', 'check_suite') LIMIT 1",
                (job.id,),
            ).fetchone()
        return row is not None

    def _revive(self, db: psycopg.Connection[Any], job_id: int, now: float) -> bool:
        """A redelivery (or `bot queue retry`) of a dead-lettered job queues it again."""
        row = db.execute(
            "SELECT bot_revive_v1(%s, %s, %s) AS ok", (job_id, now, QUEUE_NAME)
        ).fetchone()
        return bool(row and row["ok"])

    # ------------------------------------------------------------- workers

    def _worker_id(self, db: psycopg.Connection[Any], owner: str) -> int:
        """The procrastinate worker row of `owner`, heartbeat renewed (registered anew when
        it was pruned while idle)."""
        with self._workers_lock:
            wid = self._workers.get(owner)
        if wid is not None:
            row = db.execute(
                "UPDATE procrastinate_workers SET last_heartbeat = now() WHERE id = %s"
                " RETURNING id",
                (wid,),
            ).fetchone()
            if row is not None:
                return wid
        row = db.execute("SELECT worker_id FROM procrastinate_register_worker_v1()").fetchone()
        assert row is not None
        wid = int(row["worker_id"])
        with self._workers_lock:
            self._workers[owner] = wid
        return wid

    def claim(self, owner: str) -> Job | None:
        """Lease the next due job whose PR has no running job; recover the jobs of workers
        whose heartbeat stopped first."""
        now = self.clock()
        with self._tx() as db:
            wid = self._worker_id(db, owner)
            self._recover_stalled(db, now)
            for _ in range(5):  # skip (and close) attempts that lost their bot job
                row = db.execute(
                    "SELECT id, args FROM procrastinate_fetch_job_v2(%s, %s)",
                    ([QUEUE_NAME], wid),
                ).fetchone()
                if row is None or row["id"] is None:
                    return None
                pjob, job_id = int(row["id"]), int(row["args"].get("job", 0))
                job = db.execute(
                    "SELECT * FROM bot_jobs WHERE id = %s FOR UPDATE", (job_id,)
                ).fetchone()
                if job is None or job["state"] != QUEUED or job["pjob_id"] != pjob:
                    self._end_attempt(db, pjob, "failed")
                    continue
                token = str(pjob)
                db.execute(
                    "UPDATE bot_jobs SET state = 'running', attempts = attempts + 1,"
                    " lease_owner = %s, lease_token = %s, updated_at = %s WHERE id = %s",
                    (owner, token, now, job_id),
                )
                return leased_job({**job, "id": job_id}, token)
        return None

    def _recover_stalled(self, db: psycopg.Connection[Any], now: float) -> None:
        db.execute("SELECT procrastinate_prune_stalled_workers_v1(%s)", (self.lease_seconds,))
        stalled = db.execute(
            "SELECT b.id FROM bot_jobs AS b JOIN procrastinate_jobs AS p ON p.id = b.pjob_id"
            " WHERE b.state = 'running' AND p.status = 'doing' AND p.worker_id IS NULL"
            " FOR UPDATE OF b SKIP LOCKED"
        ).fetchall()
        for row in stalled:
            job = db.execute("SELECT * FROM bot_jobs WHERE id = %s", (row["id"],)).fetchone()
            if job is None:
                continue
            self._lock_pr(db, job["repo"], job["number"])
            error = f"lease of {job['lease_owner']} expired (worker lost)"
            self._settle(db, job, error, now, 0.0)

    def _settle(
        self,
        db: psycopg.Connection[Any],
        job: dict[str, Any],
        error: str,
        now: float,
        delay: float,
        permanent: bool = False,
    ) -> str:
        """Move a running job that did not finish to queued (a new attempt after `delay`),
        superseded (a newer job of the PR is queued) or dead."""
        self._end_attempt(db, job["pjob_id"], "failed")
        sibling = db.execute(
            "SELECT id, events FROM bot_jobs WHERE repo = %s AND number = %s AND kind = %s"
            " AND state = 'queued' FOR UPDATE",
            (job["repo"], job["number"], job["kind"]),
        ).fetchone()
        if permanent or job["attempts"] >= self.max_attempts:
            state, run_after = DEAD, now
        elif sibling is not None:
            state, run_after = SUPERSEDED, now
            if job["events"] not in ("", "[]"):
                merged = merge_events(job["events"], load_events(sibling["events"]))
                db.execute("UPDATE bot_jobs SET events = %s WHERE id = %s", (merged, sibling["id"]))
        else:
            state, run_after = QUEUED, now + delay
        db.execute(
            "UPDATE bot_jobs SET state = %s, run_after = %s, lease_owner = NULL,"
            " lease_token = NULL, last_error = %s, updated_at = %s, finished_at = %s"
            " WHERE id = %s",
            (state, run_after, error[:2000], now, None if state == QUEUED else now, job["id"]),
        )
        if state == QUEUED:
            self._defer(db, job["id"], job["kind"], job["repo"], job["number"], run_after)
        return state

    def _held(self, db: psycopg.Connection[Any], job: Job) -> dict[str, Any] | None:
        row = db.execute(
            "SELECT * FROM bot_jobs WHERE id = %s AND lease_token = %s AND state = 'running'"
            " FOR UPDATE",
            (job.id, job.lease_token),
        ).fetchone()
        return dict(row) if row is not None else None

    def extend(self, job: Job) -> bool:
        """Renew the heartbeat of the worker running `job`; False when the job was lost."""
        with self._tx() as db:
            if self._held(db, job) is None:
                return False
            db.execute(
                "UPDATE procrastinate_workers SET last_heartbeat = now() WHERE id ="
                " (SELECT worker_id FROM procrastinate_jobs WHERE id = %s AND status = 'doing')",
                (int(job.lease_token),),
            )
            return True

    def finish(
        self, job: Job, *, reviewed: bool, detail: str = "", head_sha: str | None = None
    ) -> bool:
        """As `SQLiteQueue.finish`: `head_sha` is the head GitHub showed the job."""
        now = self.clock()
        seen = head_sha or job.head_sha
        with self._tx() as db:
            self._lock_pr(db, job.repo, job.number)
            held = self._held(db, job)
            if held is None:
                return False
            self._end_attempt(db, held["pjob_id"], "succeeded")
            db.execute(
                "UPDATE bot_jobs SET state = 'done', lease_owner = NULL, lease_token = NULL,"
                " finished_at = %s, updated_at = %s, detail = %s WHERE id = %s",
                (now, now, detail[:2000], job.id),
            )
            if job.kind == REVIEW:
                if reviewed:
                    db.execute(
                        "UPDATE bot_pulls SET reviewed_head = %s, updated_at = %s"
                        " WHERE repo = %s AND number = %s",
                        (seen, now, job.repo, job.number),
                    )
                if seen != job.head_sha:
                    db.execute(
                        "UPDATE bot_pulls SET head_sha = %s, updated_at = %s"
                        " WHERE repo = %s AND number = %s AND head_sha = %s",
                        (seen, now, job.repo, job.number, job.head_sha),
                    )
            return True

    def sweep(self, idle_seconds: float) -> list[Job]:
        """As `SQLiteQueue.sweep`: a review job for each PR whose newest head was left
        without a review and without a job for `idle_seconds` (each head once)."""
        now = self.clock()
        queued: list[Job] = []
        with self._tx() as db:
            rows = db.execute(
                "SELECT p.repo, p.number, p.head_sha FROM bot_pulls AS p"
                " WHERE (p.reviewed_head IS NULL OR p.reviewed_head <> p.head_sha)"
                " AND (p.swept_head IS NULL OR p.swept_head <> p.head_sha)"
                " AND p.updated_at < %s AND NOT EXISTS (SELECT 1 FROM bot_jobs AS j"
                " WHERE j.repo = p.repo AND j.number = p.number AND j.kind = 'review'"
                " AND j.state IN ('queued', 'running'))"
                ' ORDER BY p.repo COLLATE "C", p.number LIMIT 100',  # ingest's lock order
                (now - idle_seconds,),
            ).fetchall()
            for row in rows:
                repo, number = row["repo"], row["number"]
                self._lock_pr(db, repo, number)
                again = db.execute(  # under the PR's lock: still unreviewed, still no job?
                    "SELECT head_sha FROM bot_pulls WHERE repo = %s AND number = %s"
                    " AND head_sha = %s AND (swept_head IS NULL OR swept_head <> head_sha)"
                    " AND NOT EXISTS (SELECT 1 FROM bot_jobs WHERE repo = %s AND number = %s"
                    " AND kind = 'review' AND state IN ('queued', 'running')) FOR UPDATE",
                    (repo, number, row["head_sha"], repo, number),
                ).fetchone()
                if again is None:
                    continue
                last = db.execute(
                    "SELECT installation_id FROM bot_jobs WHERE repo = %s AND number = %s"
                    " ORDER BY id DESC LIMIT 1",
                    (repo, number),
                ).fetchone()
                installation = last["installation_id"] if last is not None else None
                found = db.execute(
                    "SELECT bot_insert_job_v1('review', %s, %s, %s, %s, %s, '[]', %s) AS id",
                    (repo, number, row["head_sha"], installation, now, QUEUE_NAME),
                ).fetchone()
                assert found is not None
                db.execute("UPDATE bot_jobs SET detail = 'swept' WHERE id = %s", (found["id"],))
                db.execute(
                    "UPDATE bot_pulls SET swept_head = head_sha WHERE repo = %s AND number = %s",
                    (repo, number),
                )
                queued.append(
                    Job(int(found["id"]), repo, number, row["head_sha"], installation, 0, "", now)
                )
        return queued

    def fail(self, job: Job, error: str, *, delay: float, permanent: bool) -> str | None:
        now = self.clock()
        with self._tx() as db:
            self._lock_pr(db, job.repo, job.number)
            held = self._held(db, job)
            if held is None:
                return None
            return self._settle(db, held, error, now, delay, permanent)

    # ------------------------------------------------------------- operators

    def retry(self, job_id: int) -> str:
        """`bot queue retry ID`: queue a dead-lettered job again; says what happened."""
        now = self.clock()
        with self._tx() as db:
            job = db.execute("SELECT state FROM bot_jobs WHERE id = %s", (job_id,)).fetchone()
            if job is None:
                raise QueueError(f"no job {job_id}")
            if job["state"] != DEAD:
                raise QueueError(f"job {job_id} is {job['state']}, not dead")
            if not self._revive(db, job_id, now):
                raise QueueError(f"job {job_id}: a queued job of the same PR already covers it")
        return f"job {job_id} queued again"

    def dead_letters(self, limit: int = 50) -> list[dict[str, Any]]:
        with self._tx() as db:
            return [
                dict(r)
                for r in db.execute(
                    "SELECT id, kind, repo, number, head_sha, attempts, finished_at, last_error"
                    " FROM bot_jobs WHERE state = 'dead' ORDER BY finished_at DESC, id DESC"
                    " LIMIT %s",
                    (limit,),
                )
            ]

    def stats(self) -> QueueStats:
        now = self.clock()
        with self._tx() as db:
            counts = dict.fromkeys(JOB_STATES, 0)
            for row in db.execute("SELECT state, count(*) AS n FROM bot_jobs GROUP BY state"):
                counts[row["state"]] = int(row["n"])
            oldest = db.execute(
                "SELECT min(run_after) AS t FROM bot_jobs WHERE state = 'queued'"
                " AND run_after <= %s",
                (now,),
            ).fetchone()
            deliveries = db.execute("SELECT count(*) AS n FROM bot_deliveries").fetchone()
        t = oldest["t"] if oldest else None
        return QueueStats(
            jobs=counts,
            oldest_queued_age=max(0.0, now - t) if t is not None else 0.0,
            deliveries=int(deliveries["n"]) if deliveries else 0,
        )

    def job(self, job_id: int) -> dict[str, object] | None:
        with self._tx() as db:
            row = db.execute("SELECT * FROM bot_jobs WHERE id = %s", (job_id,)).fetchone()
        return dict(row) if row is not None else None

    def jobs(self) -> list[dict[str, object]]:
        with self._tx() as db:
            return [dict(r) for r in db.execute("SELECT * FROM bot_jobs ORDER BY id")]

    def delivery(self, delivery_id: str) -> dict[str, object] | None:
        with self._tx() as db:
            row = db.execute(
                "SELECT * FROM bot_deliveries WHERE delivery_id = %s", (delivery_id,)
            ).fetchone()
        return dict(row) if row is not None else None

    def prune(self, max_age: float) -> int:
        older_than = self.clock() - max_age
        finished = list(FINISHED)
        with self._tx() as db:
            n = db.execute(
                "DELETE FROM bot_deliveries WHERE received_at < %s AND (job_id IS NULL OR job_id"
                " IN (SELECT id FROM bot_jobs WHERE state = ANY(%s)))",
                (older_than, finished),
            ).rowcount
            n += db.execute(
                "DELETE FROM bot_jobs WHERE state = ANY(%s) AND finished_at < %s AND id NOT IN"
                " (SELECT job_id FROM bot_deliveries WHERE job_id IS NOT NULL)",
                (finished, older_than),
            ).rowcount
            n += db.execute(
                "DELETE FROM bot_pulls WHERE updated_at < %s AND NOT EXISTS (SELECT 1 FROM"
                " bot_jobs WHERE bot_jobs.repo = bot_pulls.repo"
                " AND bot_jobs.number = bot_pulls.number)",
                (older_than,),
            ).rowcount
            db.execute(
                "DELETE FROM procrastinate_jobs AS p WHERE p.queue_name = %s"
                " AND p.status IN ('succeeded', 'failed') AND NOT EXISTS"
                " (SELECT 1 FROM bot_jobs AS b WHERE b.pjob_id = p.id)",
                (QUEUE_NAME,),
            )
            return n
