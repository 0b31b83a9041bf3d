"""The fix requests of the SQLite queue: the check run's "Apply safe fixes" button,
acted on at most once per head. Part of `bot.server.queue.SQLiteQueue`.

The `fixes` table holds one row per head whose safe fixes were requested, whatever
happens to the job: a second press, or a press on a run GitHub shows again, starts
nothing. Each function runs on the queue's connection, inside its transaction;
`queue_job` also queues the advise jobs.
"""

from __future__ import annotations

import sqlite3

from bot.server.jobs import FIX, DeliveryRecord, IngestOutcome, JobKind
from bot.server.webhook import PullEvent


def enqueue_fix(
    db: sqlite3.Connection, record: DeliveryRecord, ev: PullEvent, now: float
) -> tuple[IngestOutcome, int | None, str]:
    """Queue the fix job of a head, once: a head whose fixes were requested before
    starts nothing (`superseded`); a fix job queued for another head of the PR moves to
    this one (that head is older: its fixes would be refused anyway)."""
    done = db.execute(
        "SELECT job_id FROM fixes WHERE repo = ? AND head_sha = ?", (ev.repo, ev.head_sha)
    ).fetchone()
    if done is not None:
        return (
            "superseded",
            done["job_id"],
            f"safe fixes of {ev.head_sha[:12]} requested before",
        )
    outcome, job_id = queue_job(db, ev, now, FIX)
    db.execute(
        "INSERT INTO fixes (repo, head_sha, number, requested_at, delivery_id, job_id)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (ev.repo, ev.head_sha, ev.number, now, record.delivery_id, job_id),
    )
    return outcome, job_id, record.reason


def queue_job(
    db: sqlite3.Connection, ev: PullEvent, now: float, kind: JobKind
) -> tuple[IngestOutcome, int | None]:
    """Queue a `kind` job of the PR (advise, fix), or move the PR's queued one of that kind
    to this head (`collapsed`)."""
    queued = db.execute(
        "SELECT id FROM jobs WHERE repo = ? AND number = ? AND kind = ? AND state = 'queued'",
        (ev.repo, ev.number, kind),
    ).fetchone()
    if queued is not None:
        db.execute(
            "UPDATE jobs SET head_sha = ?, installation_id = coalesce(?, installation_id),"
            " deliveries = deliveries + 1, updated_at = ? WHERE id = ?",
            (ev.head_sha, ev.installation_id, now, queued["id"]),
        )
        return "collapsed", queued["id"]
    cur = db.execute(
        "INSERT INTO jobs (repo, number, head_sha, installation_id, state, run_after,"
        " created_at, updated_at, kind) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?)",
        (ev.repo, ev.number, ev.head_sha, ev.installation_id, now, now, now, kind),
    )
    return "queued", cur.lastrowid


def fix_requested(db: sqlite3.Connection, repo: str, head_sha: str) -> bool:
    """Whether the safe fixes of `head_sha` were requested (the durable record)."""
    row = db.execute(
        "SELECT 1 FROM fixes WHERE repo = ? AND head_sha = ?", (repo, head_sha)
    ).fetchone()
    return row is not None
