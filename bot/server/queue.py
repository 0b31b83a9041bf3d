"""The durable job queue: one SQLite file in WAL mode, behind the small `JobQueue` interface.

Tables (schema version 2, `PRAGMA user_version`; a version 1 file is migrated in place):

- `deliveries`: one row per `X-GitHub-Delivery` id, whatever the event (the
  idempotency key), with what ingest decided (`outcome`) and the job it fed.
- `pulls`: per pull request, the newest head seen (ordered by the payload's
  `pull_request.updated_at`; a finished review records the head GitHub showed it, which
  settles a tie), the head of the last finished review, and the head the sweeper last
  queued (`sweep`: a newest head left without a review and without a job).
- `jobs`: jobs of four kinds, `review` (the review pipeline), `signoff` (the
  CODEOWNER sign-off gate, `bot.signoff.service`), `advise` (the optional LLM
  advisor, queued by a worker through `ingest` after a finished review) and `fix`
  (the check run's "Apply safe fixes" button, `bot.review.fixes`). States: `queued` (due at
  `run_after`; retries wait here), `running` (leased to one worker until
  `lease_until`), and the finished states `done`, `dead` (dead letter: attempts
  exhausted or a permanent error) and `superseded` (a newer job of the same PR
  and kind took over). Partial unique indexes keep at most one queued and one
  running job per PR and kind. A sign-off job carries the summaries of the
  deliveries it stands for (`events`, JSON): collapsing appends to them, and a
  superseded job hands them to the job that took over, so no tampering report
  is lost.

- `fixes`: one row per head whose safe fixes were requested (the durable record that
  makes the "Apply safe fixes" button act at most once per head, whatever happens to
  the job: a second press, or a press on a run GitHub shows again, starts nothing),
  kept by `bot.server.fixrequests`.

A delivery id seen before is a redelivery (nothing new is stored) when its body is the
same; with another body it is a `conflict` (nothing stored; the server answers 409).

Ingest collapses: a delivery for a PR that already has a queued job joins it and
moves its head to the newest one seen, so a burst of `synchronize` events becomes
one review of the newest head. A delivery older than the newest head seen, whose
newest head is already reviewed, starts nothing (`superseded`).

Concurrent ingests share one transaction (group commit: one fsync per batch). Each
delivery runs in its own savepoint: one that cannot be stored (`RejectedRecord`, after
`bot.server.ingress.check_record` or a failed insert) is rolled back alone and the rest
of the batch commits.
Every write runs in `BEGIN IMMEDIATE`, so several processes may share the file.
Time comes from the injected `clock`, so tests can expire leases.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from bot.server.fixrequests import enqueue_fix, fix_requested, queue_job
from bot.server.ingress import check_record
from bot.server.jobs import ADVISE as ADVISE
from bot.server.jobs import DEAD as DEAD
from bot.server.jobs import DEFAULT_LEASE_SECONDS as DEFAULT_LEASE_SECONDS
from bot.server.jobs import DONE as DONE
from bot.server.jobs import FINISHED as FINISHED
from bot.server.jobs import FIX as FIX
from bot.server.jobs import INGEST_OUTCOMES as INGEST_OUTCOMES
from bot.server.jobs import JOB_STATES as JOB_STATES
from bot.server.jobs import MAX_JOB_EVENTS as MAX_JOB_EVENTS
from bot.server.jobs import QUEUED as QUEUED
from bot.server.jobs import REVIEW as REVIEW
from bot.server.jobs import RUNNING as RUNNING
from bot.server.jobs import SIGNOFF as SIGNOFF
from bot.server.jobs import SUPERSEDED as SUPERSEDED
from bot.server.jobs import DeliveryRecord as DeliveryRecord
from bot.server.jobs import GroupCommit as GroupCommit
from bot.server.jobs import Ingested as Ingested
from bot.server.jobs import IngestOutcome as IngestOutcome
from bot.server.jobs import Job as Job
from bot.server.jobs import JobKind as JobKind
from bot.server.jobs import JobQueue as JobQueue
from bot.server.jobs import QueueError as QueueError
from bot.server.jobs import QueueStats as QueueStats
from bot.server.jobs import RecordKind as RecordKind
from bot.server.jobs import RejectedRecord as RejectedRecord
from bot.server.jobs import Slot as Slot
from bot.server.jobs import leased_job as leased_job
from bot.server.jobs import load_events as load_events
from bot.server.jobs import merge_events as merge_events
from bot.server.webhook import PullEvent, SignoffRequest

SCHEMA_VERSION = 4  # 3: pulls.swept_head (the sweeper); 4: fixes
_SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    delivery_id  TEXT PRIMARY KEY,
    event        TEXT NOT NULL,
    action       TEXT,
    received_at  REAL NOT NULL,
    outcome      TEXT NOT NULL,
    detail       TEXT NOT NULL DEFAULT '',
    repo         TEXT,
    number       INTEGER,
    head_sha     TEXT,
    job_id       INTEGER,
    body_sha256  TEXT NOT NULL DEFAULT '',
    size         INTEGER NOT NULL DEFAULT 0,
    redeliveries INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS deliveries_received ON deliveries(received_at);
CREATE TABLE IF NOT EXISTS pulls (
    repo          TEXT NOT NULL,
    number        INTEGER NOT NULL,
    head_sha      TEXT NOT NULL,
    head_at       REAL,
    reviewed_head TEXT,
    updated_at    REAL NOT NULL,
    swept_head    TEXT,
    PRIMARY KEY (repo, number)
);
CREATE TABLE IF NOT EXISTS jobs (
    id              INTEGER PRIMARY KEY,
    repo            TEXT NOT NULL,
    number          INTEGER NOT NULL,
    head_sha        TEXT NOT NULL,
    installation_id INTEGER,
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    run_after       REAL NOT NULL,
    lease_owner     TEXT,
    lease_token     TEXT,
    lease_until     REAL,
    deliveries      INTEGER NOT NULL DEFAULT 1,
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL,
    finished_at     REAL,
    last_error      TEXT NOT NULL DEFAULT '',
    detail          TEXT NOT NULL DEFAULT '',
    kind            TEXT NOT NULL DEFAULT 'review',
    events          TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, run_after);
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs(finished_at);
CREATE TABLE IF NOT EXISTS fixes (
    repo         TEXT NOT NULL,
    head_sha     TEXT NOT NULL,
    number       INTEGER NOT NULL,
    requested_at REAL NOT NULL,
    delivery_id  TEXT NOT NULL,
    job_id       INTEGER,
    PRIMARY KEY (repo, head_sha)
);
"""
# after the migration: version 1 had these per PR, version 2 has them per PR and kind
_INDEXES = """
DROP INDEX IF EXISTS jobs_one_queued;
DROP INDEX IF EXISTS jobs_one_running;
CREATE UNIQUE INDEX IF NOT EXISTS jobs_one_queued_kind ON jobs(repo, number, kind)
    WHERE state = 'queued';
CREATE UNIQUE INDEX IF NOT EXISTS jobs_one_running_kind ON jobs(repo, number, kind)
    WHERE state = 'running';
"""


class SQLiteQueue:
    """`JobQueue` on one SQLite file (WAL, synchronous=FULL: an acknowledged delivery survives
    a crash of the process or the machine)."""

    def __init__(
        self,
        path: str,
        *,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        max_attempts: int = 5,
        clock: Callable[[], float] = time.time,
        busy_timeout_ms: int = 10_000,
    ) -> None:
        self.path = path
        self.lease_seconds = lease_seconds
        self.max_attempts = max_attempts
        self.clock = clock
        self._lock = threading.Lock()
        self._group = GroupCommit()
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal" and path != ":memory:":
            raise QueueError(f"{path}: cannot use WAL mode (journal_mode={mode})")
        self._db.execute("PRAGMA synchronous = FULL")
        with self._tx() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise QueueError(
                    f"{path}: schema version {version} is newer than this bot ({SCHEMA_VERSION})"
                )
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            columns = {row["name"] for row in db.execute("PRAGMA table_info(jobs)")}
            if "kind" not in columns:  # version 1
                db.execute("ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'review'")
            if "events" not in columns:
                db.execute("ALTER TABLE jobs ADD COLUMN events TEXT NOT NULL DEFAULT '[]'")
            pull_columns = {row["name"] for row in db.execute("PRAGMA table_info(pulls)")}
            if "swept_head" not in pull_columns:  # version 2
                db.execute("ALTER TABLE pulls ADD COLUMN swept_head TEXT")
            for statement in _INDEXES.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # ----------------------------------------------------------------- plumbing

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def ping(self) -> None:
        with self._lock:
            self._db.execute("SELECT count(*) FROM jobs WHERE state = 'queued'").fetchone()

    # ----------------------------------------------------------------- ingest

    def ingest(self, record: DeliveryRecord) -> Ingested:
        """Persist one delivery (committed and synced when this returns).

        Group commit: concurrent callers share one transaction, so 20 deliveries in flight
        cost one fsync, not 20. One caller at a time leads: it commits everything pending,
        then promotes the first caller that arrived meanwhile to lead the next batch.
        """
        problem = check_record(record)
        if problem is not None:
            raise RejectedRecord(problem)
        return self._group.submit(Slot(record), self._ingest_batch)

    def _ingest_batch(self, batch: list[Slot]) -> None:
        now = self.clock()
        try:
            with self._tx() as db:
                for slot in batch:
                    db.execute("SAVEPOINT one")
                    try:
                        slot.result = self._ingest_one(db, slot.record, now)
                    except (sqlite3.OperationalError, MemoryError):
                        raise  # the database itself (locked, full, I/O): the whole batch
                    except Exception as exc:  # this delivery's data: this delivery only
                        db.execute("ROLLBACK TO one")
                        slot.error = RejectedRecord(f"{type(exc).__name__}: {exc}"[:300])
                    db.execute("RELEASE one")
        except BaseException as exc:  # the transaction failed: nothing in the batch is stored
            for slot in batch:
                slot.result, slot.error = None, exc
            raise
        finally:
            for slot in batch:
                slot.committed = True
                slot.wake.set()

    def _ingest_one(self, db: sqlite3.Connection, record: DeliveryRecord, now: float) -> Ingested:
        row = db.execute(
            "SELECT outcome, job_id, body_sha256 FROM deliveries WHERE delivery_id = ?",
            (record.delivery_id,),
        ).fetchone()
        if row is not None:
            stored = row["body_sha256"]
            if stored and record.body_sha256 and stored != record.body_sha256:
                # GitHub redelivers the same body: another body under a known id is not a
                # redelivery (a replay, or a sender reusing ids); nothing is stored
                return Ingested(
                    "conflict", row["job_id"], duplicate=True, conflict=(stored, record.body_sha256)
                )
            db.execute(
                "UPDATE deliveries SET redeliveries = redeliveries + 1 WHERE delivery_id = ?",
                (record.delivery_id,),
            )
            requeued = row["job_id"] is not None and self._revive(db, row["job_id"], now)
            return Ingested(row["outcome"], row["job_id"], duplicate=True, requeued=requeued)
        outcome, job_id, detail = self._decide(db, record, now)
        pull: PullEvent | SignoffRequest | None = record.pull or record.signoff
        db.execute(
            "INSERT INTO deliveries (delivery_id, event, action, received_at, outcome, detail,"
            " repo, number, head_sha, job_id, body_sha256, size)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.delivery_id,
                record.event,
                record.action,
                now,
                outcome,
                detail[:500],
                pull.repo if pull else None,
                pull.number if pull else None,
                (pull.head_sha or None) if pull else None,
                job_id,
                record.body_sha256,
                record.size,
            ),
        )
        return Ingested(outcome, job_id)

    def _decide(
        self, db: sqlite3.Connection, record: DeliveryRecord, now: float
    ) -> tuple[IngestOutcome, int | None, str]:
        if record.kind == "ping":
            return "ping", None, record.reason
        if record.kind == "malformed":
            return "malformed", None, record.reason
        if record.kind == SIGNOFF and record.signoff is not None:
            outcome, job_id = self._enqueue_signoff(db, record.signoff, now)
            return outcome, job_id, record.reason
        if record.kind == ADVISE and record.pull is not None:
            outcome, job_id = queue_job(db, record.pull, now, ADVISE)
            return outcome, job_id, record.reason
        if record.kind == FIX and record.pull is not None:
            return enqueue_fix(db, record, record.pull, now)
        if record.kind != "review" or record.pull is None:
            return "ignored", None, record.reason
        outcome, job_id, detail = self._decide_review(db, record.pull, record.reason, now)
        if record.signoff is not None and outcome != "superseded":
            self._enqueue_signoff(db, record.signoff, now)  # a new head: re-judge the sign-off
        return outcome, job_id, detail

    def _enqueue_signoff(
        self, db: sqlite3.Connection, req: SignoffRequest, now: float
    ) -> tuple[IngestOutcome, int | None]:
        """Queue a sign-off job, or add this delivery to the PR's queued one."""
        queued = db.execute(
            "SELECT id, events FROM jobs WHERE repo = ? AND number = ? AND kind = ?"
            " AND state = 'queued'",
            (req.repo, req.number, SIGNOFF),
        ).fetchone()
        if queued is not None:
            db.execute(
                "UPDATE jobs SET events = ?, head_sha = CASE WHEN ? = '' THEN head_sha ELSE ? END,"
                " installation_id = coalesce(?, installation_id), deliveries = deliveries + 1,"
                " updated_at = ? WHERE id = ?",
                (
                    merge_events(queued["events"], [req.event]),
                    req.head_sha,
                    req.head_sha,
                    req.installation_id,
                    now,
                    queued["id"],
                ),
            )
            return "collapsed", queued["id"]
        cur = db.execute(
            "INSERT INTO jobs (repo, number, head_sha, installation_id, state, run_after,"
            " created_at, updated_at, kind, events) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)",
            (
                req.repo,
                req.number,
                req.head_sha,
                req.installation_id,
                now,
                now,
                now,
                SIGNOFF,
                merge_events("[]", [req.event]),
            ),
        )
        return "queued", cur.lastrowid

    def fix_requested(self, repo: str, head_sha: str) -> bool:
        """Whether the safe fixes of `head_sha` were requested (the durable record)."""
        with self._lock:
            return fix_requested(self._db, repo, head_sha)

    def rerun_requested(self, job: Job) -> bool:
        """Whether a re-run request (`check_run`/`check_suite` `rerequested`) fed `job`:
        its review then gets a check run of its own."""
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM deliveries WHERE job_id = ? AND action = 'rerequested'"
                " AND event IN ('check_run', 'check_suite') LIMIT 1",
                (job.id,),
            ).fetchone()
        return row is not None

    def _decide_review(
        self, db: sqlite3.Connection, ev: PullEvent, reason: str, now: float
    ) -> tuple[IngestOutcome, int | None, str]:
        pull = db.execute(
            "SELECT head_sha, head_at, reviewed_head FROM pulls WHERE repo = ? AND number = ?",
            (ev.repo, ev.number),
        ).fetchone()
        newer = (
            pull is None
            or ev.updated_at is None
            or pull["head_at"] is None
            or ev.updated_at >= pull["head_at"]
        )
        if pull is None:
            db.execute(
                "INSERT INTO pulls (repo, number, head_sha, head_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (ev.repo, ev.number, ev.head_sha, ev.updated_at, now),
            )
        elif newer:
            db.execute(
                "UPDATE pulls SET head_sha = ?, head_at = ?, updated_at = ?"
                " WHERE repo = ? AND number = ?",
                (ev.head_sha, ev.updated_at, now, ev.repo, ev.number),
            )
        newest = ev.head_sha if newer else pull["head_sha"]
        if not newer and pull["reviewed_head"] == newest:
            return "superseded", None, f"older than {newest[:12]}, already reviewed"
        if not newer:
            running = db.execute(
                "SELECT id FROM jobs WHERE repo = ? AND number = ? AND state = 'running'"
                " AND kind = 'review' AND head_sha = ?",
                (ev.repo, ev.number, newest),
            ).fetchone()
            if running is not None:
                return "superseded", running["id"], f"older than {newest[:12]}, under review"
        queued = db.execute(
            "SELECT id FROM jobs WHERE repo = ? AND number = ? AND state = 'queued'"
            " AND kind = 'review'",
            (ev.repo, ev.number),
        ).fetchone()
        if queued is not None:
            db.execute(
                "UPDATE jobs SET head_sha = ?, installation_id = coalesce(?, installation_id),"
                " deliveries = deliveries + 1, updated_at = ? WHERE id = ?",
                (newest, ev.installation_id, now, queued["id"]),
            )
            return "collapsed", queued["id"], reason
        cur = db.execute(
            "INSERT INTO jobs (repo, number, head_sha, installation_id, state, run_after,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?)",
            (ev.repo, ev.number, newest, ev.installation_id, now, now, now),
        )
        return "queued", cur.lastrowid, reason

    def _revive(self, db: sqlite3.Connection, job_id: int, now: float) -> bool:
        """A redelivery of a dead-lettered job queues it again (the operator's retry button)."""
        job = db.execute(
            "SELECT repo, number, state, kind FROM jobs WHERE id = ?", (job_id,)
        ).fetchone()
        if job is None or job["state"] != DEAD:
            return False  # finished: nothing to do; queued or running: it resumes by itself
        sibling = db.execute(
            "SELECT 1 FROM jobs WHERE repo = ? AND number = ? AND kind = ? AND state = 'queued'",
            (job["repo"], job["number"], job["kind"]),
        ).fetchone()
        if sibling is not None:
            return False  # a queued job of the same PR reviews its current head anyway
        db.execute(
            "UPDATE jobs SET state = 'queued', attempts = 0, run_after = ?, finished_at = NULL,"
            " updated_at = ? WHERE id = ?",
            (now, now, job_id),
        )
        return True

    # ----------------------------------------------------------------- workers

    def claim(self, owner: str) -> Job | None:
        """Lease the next due job whose PR has no running job; recover expired leases first."""
        now = self.clock()
        with self._tx() as db:
            self._recover_expired(db, now)
            row = db.execute(
                "SELECT * FROM jobs AS j WHERE j.state = 'queued' AND j.run_after <= ?"
                " AND NOT EXISTS (SELECT 1 FROM jobs AS r WHERE r.repo = j.repo"
                " AND r.number = j.number AND r.kind = j.kind AND r.state = 'running')"
                " ORDER BY j.run_after, j.id LIMIT 1",
                (now,),
            ).fetchone()
            if row is None:
                return None
            token = uuid.uuid4().hex
            db.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?,"
                " lease_token = ?, lease_until = ?, updated_at = ? WHERE id = ?",
                (owner, token, now + self.lease_seconds, now, row["id"]),
            )
            return leased_job(row, token)

    def _recover_expired(self, db: sqlite3.Connection, now: float) -> None:
        expired = db.execute(
            "SELECT id, repo, number, attempts, lease_owner FROM jobs"
            " WHERE state = 'running' AND lease_until < ?",
            (now,),
        ).fetchall()  # _settle reads each one's kind and events
        for job in expired:
            error = f"lease of {job['lease_owner']} expired (worker lost)"
            self._settle(db, job["id"], job["repo"], job["number"], job["attempts"], error, now, 0)

    def _settle(
        self,
        db: sqlite3.Connection,
        job_id: int,
        repo: str,
        number: int,
        attempts: int,
        error: str,
        now: float,
        delay: float,
        permanent: bool = False,
    ) -> str:
        """Move a running job that did not finish to queued (retry), superseded or dead."""
        own = db.execute("SELECT kind, events FROM jobs WHERE id = ?", (job_id,)).fetchone()
        sibling = db.execute(
            "SELECT id, events FROM jobs WHERE repo = ? AND number = ? AND kind = ?"
            " AND state = 'queued'",
            (repo, number, own["kind"]),
        ).fetchone()
        if permanent or attempts >= self.max_attempts:
            state, run_after = DEAD, now
        elif sibling is not None:
            state, run_after = SUPERSEDED, now
            if own["events"] not in ("", "[]"):  # the successor reports what this one carried
                merged = merge_events(own["events"], load_events(sibling["events"]))
                db.execute("UPDATE jobs SET events = ? WHERE id = ?", (merged, sibling["id"]))
        else:
            state, run_after = QUEUED, now + delay
        db.execute(
            "UPDATE jobs SET state = ?, run_after = ?, lease_owner = NULL, lease_token = NULL,"
            " lease_until = NULL, last_error = ?, updated_at = ?, finished_at = ? WHERE id = ?",
            (
                state,
                run_after,
                error[:2000],
                now,
                None if state == QUEUED else now,
                job_id,
            ),
        )
        return state

    def extend(self, job: Job) -> bool:
        """Renew the lease; False when it was lost (expired and taken over)."""
        now = self.clock()
        with self._tx() as db:
            cur = db.execute(
                "UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_token = ?"
                " AND state = 'running'",
                (now + self.lease_seconds, job.id, job.lease_token),
            )
            return cur.rowcount == 1

    def finish(
        self, job: Job, *, reviewed: bool, detail: str = "", head_sha: str | None = None
    ) -> bool:
        """Mark the job done; False when its lease was lost (another worker owns it now).

        `head_sha`: the PR's head as GitHub showed it to the job (a review reads it when it
        starts, whatever head the job was queued for): reviewed when `reviewed`, and the
        newest head known from now on unless a delivery brought another since the claim."""
        now = self.clock()
        seen = head_sha or job.head_sha
        with self._tx() as db:
            cur = db.execute(
                "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_token = NULL,"
                " lease_until = NULL, finished_at = ?, updated_at = ?, detail = ?"
                " WHERE id = ? AND lease_token = ? AND state = 'running'",
                (now, now, detail[:2000], job.id, job.lease_token),
            )
            if cur.rowcount != 1:
                return False
            if job.kind == REVIEW:
                if reviewed:
                    db.execute(
                        "UPDATE pulls SET reviewed_head = ?, updated_at = ?"
                        " WHERE repo = ? AND number = ?",
                        (seen, now, job.repo, job.number),
                    )
                if seen != job.head_sha:
                    db.execute(
                        "UPDATE pulls SET head_sha = ?, updated_at = ?"
                        " WHERE repo = ? AND number = ? AND head_sha = ?",
                        (seen, now, job.repo, job.number, job.head_sha),
                    )
            return True

    def fail(self, job: Job, error: str, *, delay: float, permanent: bool) -> str | None:
        """Retry after `delay`, or dead-letter; returns the new state (None: lease lost)."""
        now = self.clock()
        with self._tx() as db:
            row = db.execute(
                "SELECT attempts FROM jobs WHERE id = ? AND lease_token = ? AND state = 'running'",
                (job.id, job.lease_token),
            ).fetchone()
            if row is None:
                return None
            return self._settle(
                db, job.id, job.repo, job.number, row["attempts"], error, now, delay, permanent
            )

    # ----------------------------------------------------------------- observability

    def stats(self) -> QueueStats:
        now = self.clock()
        with self._lock:
            counts = dict.fromkeys(JOB_STATES, 0)
            for row in self._db.execute("SELECT state, count(*) AS n FROM jobs GROUP BY state"):
                counts[row["state"]] = row["n"]
            oldest = self._db.execute(
                "SELECT min(run_after) FROM jobs WHERE state = 'queued' AND run_after <= ?",
                (now,),
            ).fetchone()[0]
            deliveries = self._db.execute("SELECT count(*) FROM deliveries").fetchone()[0]
        return QueueStats(
            jobs=counts,
            oldest_queued_age=max(0.0, now - oldest) if oldest is not None else 0.0,
            deliveries=deliveries,
        )

    def job(self, job_id: int) -> dict[str, object] | None:
        """One job's row (for tests and operators)."""
        with self._lock:
            row = self._db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return dict(row) if row is not None else None

    def jobs(self) -> list[dict[str, object]]:
        with self._lock:
            return [dict(r) for r in self._db.execute("SELECT * FROM jobs ORDER BY id")]

    def delivery(self, delivery_id: str) -> dict[str, object] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM deliveries WHERE delivery_id = ?", (delivery_id,)
            ).fetchone()
        return dict(row) if row is not None else None

    def prune(self, max_age: float) -> int:
        """Delete deliveries, finished jobs and idle PR rows older than `max_age` seconds."""
        older_than = self.clock() - max_age
        with self._tx() as db:
            n = db.execute(
                "DELETE FROM deliveries WHERE received_at < ? AND (job_id IS NULL OR job_id IN"
                " (SELECT id FROM jobs WHERE state IN ('done', 'dead', 'superseded')))",
                (older_than,),
            ).rowcount
            n += db.execute(
                "DELETE FROM jobs WHERE state IN ('done', 'dead', 'superseded')"
                " AND finished_at < ? AND id NOT IN"
                " (SELECT job_id FROM deliveries WHERE job_id IS NOT NULL)",
                (older_than,),
            ).rowcount
            n += db.execute(
                "DELETE FROM pulls WHERE updated_at < ? AND NOT EXISTS (SELECT 1 FROM jobs"
                " WHERE jobs.repo = pulls.repo AND jobs.number = pulls.number)",
                (older_than,),
            ).rowcount
            return n

    def sweep(self, idle_seconds: float) -> list[Job]:
        """Queue a review of each PR whose newest head has no review, no queued or running
        review job, and no delivery for `idle_seconds` (a job that ended without reviewing
        it: dead after an outage, skipped, or moved to another head). Each head is swept at
        most once. Returns the jobs queued (their ids; not leased)."""
        now = self.clock()
        queued: list[Job] = []
        with self._tx() as db:
            rows = db.execute(
                "SELECT p.repo, p.number, p.head_sha FROM pulls AS p"
                " WHERE (p.reviewed_head IS NULL OR p.reviewed_head != p.head_sha)"
                " AND (p.swept_head IS NULL OR p.swept_head != p.head_sha)"
                " AND p.updated_at < ? AND NOT EXISTS (SELECT 1 FROM jobs AS j"
                " WHERE j.repo = p.repo AND j.number = p.number AND j.kind = 'review'"
                " AND j.state IN ('queued', 'running')) LIMIT 100",
                (now - idle_seconds,),
            ).fetchall()
            for row in rows:
                last = db.execute(
                    "SELECT installation_id FROM jobs WHERE repo = ? AND number = ?"
                    " ORDER BY id DESC LIMIT 1",
                    (row["repo"], row["number"]),
                ).fetchone()
                installation = last["installation_id"] if last is not None else None
                cur = db.execute(
                    "INSERT INTO jobs (repo, number, head_sha, installation_id, state,"
                    " run_after, created_at, updated_at, detail)"
                    " VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, 'swept')",
                    (row["repo"], row["number"], row["head_sha"], installation, now, now, now),
                )
                db.execute(
                    "UPDATE pulls SET swept_head = ? WHERE repo = ? AND number = ?",
                    (row["head_sha"], row["repo"], row["number"]),
                )
                assert cur.lastrowid is not None
                queued.append(
                    Job(
                        cur.lastrowid,
                        row["repo"],
                        row["number"],
                        row["head_sha"],
                        installation,
                        0,
                        "",
                        now,
                    )
                )
        return queued

    # ----------------------------------------------------------------- operators
    # (the same as bot.server.pgqueue.PostgresQueue's: `bot queue status|retry`, /readyz)

    backend = "sqlite"

    @property
    def where(self) -> str:
        return self.path

    def schema_status(self) -> dict[str, Any]:
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
        return {"schema_version": version, "required": SCHEMA_VERSION, "current": True}

    def dead_letters(self, limit: int = 50) -> list[dict[str, Any]]:
        with self._lock:
            return [
                dict(r)
                for r in self._db.execute(
                    "SELECT id, kind, repo, number, head_sha, attempts, finished_at, last_error"
                    " FROM jobs WHERE state = 'dead' ORDER BY finished_at DESC, id DESC LIMIT ?",
                    (limit,),
                )
            ]

    def retry(self, job_id: int) -> str:
        """Queue a dead-lettered job again (`bot queue retry ID`); says what happened."""
        with self._tx() as db:
            row = db.execute("SELECT state FROM jobs WHERE id = ?", (job_id,)).fetchone()
            if row is None:
                raise QueueError(f"no job {job_id}")
            if row["state"] != DEAD:
                raise QueueError(f"job {job_id} is {row['state']}, not dead")
            if not self._revive(db, job_id, self.clock()):
                raise QueueError(f"job {job_id}: a queued job of the same PR already covers it")
        return f"job {job_id} queued again"
