"""The fix requests of the SQLite queue: the check run's "Apply safe fixes" button,
acted on at most once per head. Part of `bot.server.queue.SQLiteQueue`.

The `fixes` table holds one row per head whose safe fixes were requested, whatever
happens to the job: a second press, or a press on a run GitHub shows again, starts
nothing. Each function runs on the queue's connection, inside its transaction.
"""

from __future__ import annotations

import sqlite3

from bot.server.jobs import FIX, DeliveryRecord, IngestOutcome
from bot.server.webhook import PullEvent


def enqueue_fix(
    db: sqlite3.Connection, record: DeliveryRecord, ev: PullEvent, now: float
) -> tuple[IngestOutcome, int | None, str]:
    """Queue the fix job of a head, once: a head whose fixes were requested before
    starts nothing (`superseded`); a fix job queued for another head of the PR moves to
    this one (that head is older: its fixes would be refused anyway)."""
    outcome: IngestOutcome
    done = db.execute(
        "SELECT job_id FROM fixes WHERE repo = ? AND head_sha = ?", (ev.repo, ev.head_sha)
    ).fetchone()
    if done is not None:
        return (
            "superseded",
            done["job_id"],
            f"safe fixes of {ev.head_sha[:12]} requested before",
        )
    queued = db.execute(
        "SELECT id FROM jobs WHERE repo = ? AND number = ? AND kind = ? AND state = 'queued'",
        (ev.repo, ev.number, FIX),
    ).fetchone()
    if queued is not None:
        db.execute(
            "UPDATE jobs SET head_sha = ?, installation_id = coalesce(?, installation_id),"
            " deliveries = deliveries + 1, updated_at = ? WHERE id = ?",
            (ev.head_sha, ev.installation_id, now, queued["id"]),
        )
        outcome, job_id = "collapsed", queued["id"]
    else:
        cur = db.execute(
            "INSERT INTO jobs (repo, number, head_sha, installation_id, state, run_after,"
            " created_at, updated_at, kind) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?)",
            (ev.repo, ev.number, ev.head_sha, ev.installation_id, now, now, now, FIX),
        )
        outcome, job_id = "queued", cur.lastrowid
    db.execute(
        "INSERT INTO fixes (repo, head_sha, number, requested_at, delivery_id, job_id)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (ev.repo, ev.head_sha, ev.number, now, record.delivery_id, job_id),
    )
    return outcome, job_id, record.reason


def fix_requested(db: sqlite3.Connection, repo: str, head_sha: str) -> bool:
    """Whether the safe fixes of `head_sha` were requested (the durable record)."""
    row = db.execute(
        "SELECT 1 FROM fixes WHERE repo = ? AND head_sha = ?", (repo, head_sha)
    ).fetchone()
    return row is not None
