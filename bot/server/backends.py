"""Which queue `BOT_DB` names: a `postgresql://` URL is the PostgreSQL queue shared by
replicas (`bot.server.pgqueue`, imported only then), anything else the SQLite file of one
machine (`bot.server.queue`)."""

from __future__ import annotations

from typing import Any

from bot.server.queue import QueueError, SQLiteQueue
from bot.server.settings import Settings


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def open_queue(settings: Settings, **kw: Any) -> Any:
    """The queue for `settings.db_path` (a `JobQueue` with `backend`, `where`,
    `schema_status`, `dead_letters` and `retry`)."""
    if is_postgres(settings.db_path):
        try:
            from bot.server.pgqueue import PostgresQueue
        except ImportError as exc:  # pragma: no cover - psycopg is a dependency
            raise QueueError(f"BOT_DB is a PostgreSQL URL but {exc.name} is missing") from exc
        return PostgresQueue(
            settings.db_path,
            lease_seconds=settings.lease_seconds,
            max_attempts=settings.max_attempts,
            pool_size=settings.workers + 20,  # webhook threads + workers + the keeper
            **kw,
        )
    return SQLiteQueue(
        settings.db_path,
        lease_seconds=settings.lease_seconds,
        max_attempts=settings.max_attempts,
        **kw,
    )


def migrate(db: str) -> list[str]:
    """`bot db migrate`: create or update the schema of `db`; returns what it did."""
    if is_postgres(db):
        from bot.server import pgqueue

        return pgqueue.migrate(db)
    q = SQLiteQueue(db)  # migrates in place when it opens
    try:
        version = q.schema_status()["schema_version"]
    finally:
        q.close()
    return [f"sqlite {db}: schema version {version}"]


def describe(db: str) -> str:
    """`db` for logs: a URL without its password."""
    if is_postgres(db):
        from bot.server.pgqueue import redact

        return redact(db)
    return db
