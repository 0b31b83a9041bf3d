"""Operator commands for the queue's database, on either backend:

    bot db migrate          create or update the schema (run before starting new replicas)
    bot db status           the schema against this bot's (exit 1 when behind)
    bot queue status        jobs by state, the oldest due job, the dead letters
    bot queue retry ID      queue a dead-lettered job again

`--db` names the database (default: `$BOT_DB`, else `bot-queue.sqlite3`): a file path is
the SQLite queue, a `postgresql://` URL the queue shared by replicas.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
from typing import Any, TextIO

from bot.server import backends
from bot.server.queue import QueueError
from bot.server.settings import DEFAULT_DB, Settings


def add_commands(sub: argparse._SubParsersAction[Any], parser_class: Any = None) -> None:
    kw = {"parser_class": parser_class} if parser_class else {}
    db_help = "the queue database: SQLite file or postgresql:// URL (default: $BOT_DB)"

    dp = sub.add_parser("db", help="create, migrate or check the queue's database schema")
    dsub = dp.add_subparsers(dest="db_command", metavar="COMMAND", required=True, **kw)
    for name, text in (
        ("migrate", "create or update the schema (idempotent; safe from several replicas)"),
        ("status", "compare the schema with this bot's (exit 1 when it is behind)"),
    ):
        p = dsub.add_parser(name, help=text, description=text)
        p.add_argument("--db", metavar="DB", help=db_help)

    qp = sub.add_parser("queue", help="inspect the job queue and retry dead letters")
    qsub = qp.add_subparsers(dest="queue_command", metavar="COMMAND", required=True, **kw)
    sp = qsub.add_parser(
        "status",
        help="jobs by state, the oldest due job and the dead letters",
        description="Jobs by state, how long the oldest due job has waited, and the dead "
        "letters (jobs that exhausted their attempts or hit a permanent error).",
    )
    sp.add_argument("--db", metavar="DB", help=db_help)
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.add_argument("--limit", type=int, default=20, metavar="N", help="dead letters shown")
    rp = qsub.add_parser(
        "retry",
        help="queue a dead-lettered job again",
        description="Queue a dead-lettered job again, with a fresh set of attempts.",
    )
    rp.add_argument("job_id", type=int, metavar="ID", help="the job's id (from `queue status`)")
    rp.add_argument("--db", metavar="DB", help=db_help)


def _db(args: argparse.Namespace) -> str:
    return str(args.db or os.environ.get("BOT_DB") or DEFAULT_DB)


def _open(db: str) -> Any:
    if backends.is_postgres(db):
        import psycopg

        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        psycopg.connect(db, connect_timeout=5).close()  # a clear error when unreachable
    elif not os.path.exists(db):
        raise FileNotFoundError(db)
    return backends.open_queue(Settings(db_path=db))  # the queue commands need no credentials


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    db = _db(args)
    where = backends.describe(db)
    try:
        if args.command == "db" and args.db_command == "migrate":
            for step in backends.migrate(db) or ["schema is current"]:
                print(f"{where}: {step}", file=out)
            return 0
        queue = _open(db)
        try:
            if args.command == "db":
                status = queue.schema_status()
                print(
                    f"{where} ({queue.backend}): schema version {status['schema_version']}, "
                    f"this bot needs {status['required']}: "
                    f"{'current' if status['current'] else 'behind — run `bot db migrate`'}",
                    file=out,
                )
                return 0 if status["current"] else 1
            if args.queue_command == "retry":
                print(queue.retry(args.job_id), file=out)
                return 0
            return _status(queue, where, args, out)
        finally:
            queue.close()
    except QueueError as exc:
        print(f"bot: {exc}", file=err)
        return 1
    except FileNotFoundError:
        print(f"bot: error: no queue database at {db}", file=err)
        return 2
    except Exception as exc:  # database unreachable, refused, not a database
        reason = " ".join(str(exc).split()) or type(exc).__name__
        print(f"bot: error: {where}: {reason}", file=err)
        return 2


def _status(queue: Any, where: str, args: argparse.Namespace, out: TextIO) -> int:
    queue.ping()
    stats = queue.stats()
    dead = queue.dead_letters(max(0, args.limit))
    if args.json:
        doc = {
            "backend": queue.backend,
            "database": where,
            "jobs": stats.jobs,
            "oldest_due_seconds": round(stats.oldest_queued_age, 3),
            "deliveries": stats.deliveries,
            "dead_letters": dead,
        }
        print(json.dumps(doc, indent=2, sort_keys=True, default=str), file=out)
        return 0
    counts = ", ".join(f"{state} {n}" for state, n in stats.jobs.items())
    print(f"{where} ({queue.backend})", file=out)
    print(f"jobs: {counts}", file=out)
    print(f"oldest due job waited {stats.oldest_queued_age:.1f} s", file=out)
    print(f"deliveries stored: {stats.deliveries}", file=out)
    if not dead:
        print("dead letters: none", file=out)
        return 0
    print(f"dead letters ({len(dead)} shown; `bot queue retry ID` queues one again):", file=out)
    for d in dead:
        when = (
            datetime.datetime.fromtimestamp(float(d["finished_at"]), datetime.UTC).strftime(
                "%Y-%m-%d %H:%M:%SZ"
            )
            if d.get("finished_at")
            else "-"
        )
        error = " ".join(str(d.get("last_error") or "").split())[:120]
        print(
            f"  {d['id']:>6}  {d['kind']:<7} {d['repo']}#{d['number']}"
            f"@{str(d['head_sha'])[:12]}  attempts {d['attempts']}  {when}  {error}",
            file=out,
        )
    return 0
