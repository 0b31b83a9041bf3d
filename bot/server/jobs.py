"""What both queue backends share: the job and delivery records, the `JobQueue`
interface, group commit, and the job states. Pure data and threading, no storage.

`bot.server.queue` (SQLite) and `bot.server.pgqueue` (PostgreSQL) implement `JobQueue`
with the same semantics; `bot.server.queue` re-exports everything here.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

from bot.server.webhook import Kind, PullEvent, SignoffRequest

DEFAULT_LEASE_SECONDS = 30.0  # renewed every third of it: a dead worker's jobs return fast
JobKind = Literal["review", "signoff", "advise", "fix"]
# a delivery as the webhook classified it (`webhook.Decision.kind`), or the advise job a
# worker queues after a finished review
RecordKind = Literal[Kind, "advise"]
REVIEW: JobKind = "review"
SIGNOFF: JobKind = "signoff"
ADVISE: JobKind = "advise"
FIX: JobKind = "fix"
MAX_JOB_EVENTS = 200  # delivery summaries kept per sign-off job (the newest)

QUEUED, RUNNING, DONE, DEAD, SUPERSEDED = "queued", "running", "done", "dead", "superseded"
JOB_STATES = (QUEUED, RUNNING, DONE, DEAD, SUPERSEDED)
FINISHED = (DONE, DEAD, SUPERSEDED)

# What ingest did with a delivery (also the `outcome` label of the deliveries metric);
# `conflict`: a delivery id seen before, with another body (nothing stored, answered 409).
IngestOutcome = Literal[
    "queued",
    "collapsed",
    "superseded",
    "ignored",
    "ping",
    "malformed",
    "conflict",
]
INGEST_OUTCOMES: tuple[IngestOutcome, ...] = get_args(IngestOutcome)


@dataclass(frozen=True)
class DeliveryRecord:
    """A verified delivery, as ingest stores it."""

    delivery_id: str
    event: str
    action: str | None
    kind: RecordKind
    reason: str
    pull: PullEvent | None = None
    body_sha256: str = ""
    size: int = 0
    signoff: SignoffRequest | None = None  # a sign-off job to queue (alone, or with the review)


@dataclass(frozen=True)
class Ingested:
    outcome: IngestOutcome
    job_id: int | None = None
    duplicate: bool = False  # the delivery id was seen before
    requeued: bool = False  # a redelivery revived its dead job
    # a delivery id seen before with another body: (the stored body's sha256, this one's)
    conflict: tuple[str, str] | None = None


@dataclass(frozen=True)
class Job:
    id: int
    repo: str
    number: int
    head_sha: str
    installation_id: int | None
    attempts: int  # including the one now running
    lease_token: str
    created_at: float
    kind: JobKind = REVIEW
    events: tuple[dict[str, Any], ...] = ()  # sign-off jobs: the deliveries' summaries


@dataclass(frozen=True)
class QueueStats:
    jobs: dict[str, int]  # by state
    oldest_queued_age: float  # seconds the oldest due job has waited (0 when none)
    deliveries: int


class JobQueue(Protocol):
    """The storage interface the server and workers use (a Postgres queue can replace SQLite)."""

    def ingest(self, record: DeliveryRecord) -> Ingested: ...

    def claim(self, owner: str) -> Job | None: ...

    def extend(self, job: Job) -> bool: ...

    def finish(
        self, job: Job, *, reviewed: bool, detail: str = "", head_sha: str | None = None
    ) -> bool: ...

    def fail(self, job: Job, error: str, *, delay: float, permanent: bool) -> str | None: ...

    def stats(self) -> QueueStats: ...

    def ping(self) -> None: ...

    def prune(self, max_age: float) -> int: ...

    def sweep(self, idle_seconds: float) -> list[Job]: ...

    def close(self) -> None: ...


class QueueError(Exception):
    pass


class RejectedRecord(QueueError):
    """This delivery cannot be stored as it is (a value out of range, say); the other
    deliveries of its batch are unaffected. The caller stores it as `malformed`."""


class Slot:
    """One caller of `ingest` waiting for its batch."""

    __slots__ = ("committed", "error", "record", "result", "wake")

    def __init__(self, record: DeliveryRecord) -> None:
        self.record = record
        self.wake = threading.Event()  # committed, or promoted to lead the next batch
        self.committed = False
        self.result: Ingested | None = None
        self.error: BaseException | None = None

    def outcome(self) -> Ingested:
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


class GroupCommit:
    """Concurrent `ingest` callers share one transaction: one caller at a time leads and
    commits everything pending, then promotes the first caller that arrived meanwhile to
    lead the next batch. Used by both queue backends."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pending: list[Slot] = []
        self.leading = False

    def submit(self, slot: Slot, run_batch: Callable[[list[Slot]], None]) -> Ingested:
        """Wait for `slot`'s batch to commit (leading it, when no batch is running)."""
        with self.lock:
            self.pending.append(slot)
            follower, self.leading = self.leading, True
        if follower:
            slot.wake.wait()
            if slot.committed:
                return slot.outcome()
        with self.lock:  # leading (first caller, or promoted)
            batch, self.pending = self.pending, []
        try:
            run_batch(batch)
        finally:
            with self.lock:
                if self.pending:
                    self.pending[0].wake.set()  # not committed: it leads the next batch
                else:
                    self.leading = False
        return slot.outcome()


def leased_job(row: Any, token: str) -> Job:
    """The `Job` a worker gets for a jobs row it has just leased (either backend)."""
    return Job(
        id=row["id"],
        repo=row["repo"],
        number=row["number"],
        head_sha=row["head_sha"],
        installation_id=row["installation_id"],
        attempts=row["attempts"] + 1,
        lease_token=token,
        created_at=row["created_at"],
        kind=row["kind"],
        events=tuple(load_events(row["events"])),
    )


def load_events(text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text or "[]")
    except ValueError:
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def merge_events(existing: str, new: list[dict[str, Any]]) -> str:
    """`existing` (JSON) followed by `new`, the newest MAX_JOB_EVENTS kept."""
    events = load_events(existing) + list(new)
    return json.dumps(events[-MAX_JOB_EVENTS:], separators=(",", ":"), sort_keys=True)
