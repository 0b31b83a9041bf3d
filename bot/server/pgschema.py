"""The PostgreSQL queue's schema: the bot's tables and server-side functions beside
procrastinate's, and `migrate` (`bot db migrate`), which creates or updates both.

`bot.server.pgqueue.PostgresQueue` checks `schema_status` before it serves and refuses a
database whose schema is behind (`SchemaBehind`). Split from `bot.server.pgqueue`, which
re-exports `SCHEMA_VERSION`, `SchemaBehind`, `schema_status` and `migrate`.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import psycopg
from psycopg.rows import tuple_row

from bot.server.jobs import QueueError

SCHEMA_VERSION = 5  # of the bot_* tables and functions (1: tables only, before bot_ingest_v1;
# 3: advise jobs; 4: delivery conflicts, bot_pulls.swept_head; 5: bot_fixes)
_BOT_SCHEMA = """
CREATE TABLE IF NOT EXISTS bot_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE IF NOT EXISTS bot_deliveries (
    delivery_id  text PRIMARY KEY,
    event        text NOT NULL,
    action       text,
    received_at  double precision NOT NULL,
    outcome      text NOT NULL,
    detail       text NOT NULL DEFAULT '',
    repo         text,
    number       integer,
    head_sha     text,
    job_id       bigint,
    body_sha256  text NOT NULL DEFAULT '',
    size         integer NOT NULL DEFAULT 0,
    redeliveries integer NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS bot_deliveries_received ON bot_deliveries(received_at);
CREATE TABLE IF NOT EXISTS bot_pulls (
    repo          text NOT NULL,
    number        integer NOT NULL,
    head_sha      text NOT NULL,
    head_at       double precision,
    reviewed_head text,
    updated_at    double precision NOT NULL,
    PRIMARY KEY (repo, number)
);
CREATE TABLE IF NOT EXISTS bot_jobs (
    id              bigserial PRIMARY KEY,
    repo            text NOT NULL,
    number          integer NOT NULL,
    kind            text NOT NULL,
    head_sha        text NOT NULL,
    installation_id bigint,
    state           text NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    run_after       double precision NOT NULL,
    pjob_id         bigint,
    lease_owner     text,
    lease_token     text,
    deliveries      integer NOT NULL DEFAULT 1,
    created_at      double precision NOT NULL,
    updated_at      double precision NOT NULL,
    finished_at     double precision,
    last_error      text NOT NULL DEFAULT '',
    detail          text NOT NULL DEFAULT '',
    events          text NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS bot_jobs_state ON bot_jobs(state, run_after);
CREATE INDEX IF NOT EXISTS bot_jobs_finished ON bot_jobs(finished_at);
CREATE UNIQUE INDEX IF NOT EXISTS bot_jobs_one_queued ON bot_jobs(repo, number, kind)
    WHERE state = 'queued';
CREATE UNIQUE INDEX IF NOT EXISTS bot_jobs_one_running ON bot_jobs(repo, number, kind)
    WHERE state = 'running';
ALTER TABLE bot_pulls ADD COLUMN IF NOT EXISTS swept_head text;
CREATE TABLE IF NOT EXISTS bot_fixes (
    repo         text NOT NULL,
    head_sha     text NOT NULL,
    number       integer NOT NULL,
    requested_at double precision NOT NULL,
    delivery_id  text NOT NULL,
    job_id       bigint,
    PRIMARY KEY (repo, head_sha)
);
CREATE TABLE IF NOT EXISTS bot_pacing (
    key           text PRIMARY KEY,
    next_write_at double precision NOT NULL DEFAULT 0,
    not_before    double precision NOT NULL DEFAULT 0,
    reason        text NOT NULL DEFAULT '',
    updated_at    double precision NOT NULL DEFAULT 0
)
"""


# Ingest as server-side functions: one round trip per delivery instead of about ten (on a
# busy machine each round trip waits for both processes to be scheduled). The logic is the
# SQLite queue's `_ingest_one`, statement for statement.
_BOT_FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION bot_merge_events_v1(existing text, new jsonb, max_events integer)
    RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(jsonb_agg(e ORDER BY n), '[]'::jsonb)::text FROM (
        SELECT e, n FROM jsonb_array_elements(
            (CASE WHEN jsonb_typeof(coalesce(nullif(existing, ''), '[]')::jsonb) = 'array'
                  THEN coalesce(nullif(existing, ''), '[]')::jsonb ELSE '[]'::jsonb END) || new
        ) WITH ORDINALITY AS t(e, n)
        WHERE jsonb_typeof(e) = 'object'
        ORDER BY n DESC LIMIT max_events
    ) AS kept
$$;

CREATE OR REPLACE FUNCTION bot_insert_job_v1(
    p_kind text, p_repo text, p_number integer, p_head text, p_installation bigint,
    p_now double precision, p_events text, p_queue text
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint := nextval(pg_get_serial_sequence('bot_jobs', 'id'));
    v_lock text := p_kind || ':' || p_repo || '#' || p_number;
BEGIN
    INSERT INTO bot_jobs (id, repo, number, kind, head_sha, installation_id, state, run_after,
                          created_at, updated_at, events, pjob_id)
    VALUES (v_id, p_repo, p_number, p_kind, p_head, p_installation, 'queued', p_now, p_now,
            p_now, p_events,
            (procrastinate_defer_jobs_v1(ARRAY[ROW(p_queue, 'recipe-bot.' || p_kind, 0, v_lock,
                v_lock, jsonb_build_object('job', v_id), to_timestamp(p_now))
                ::procrastinate_job_to_defer_v1]))[1]);
    RETURN v_id;
END $$;

CREATE OR REPLACE FUNCTION bot_revive_v1(p_job bigint, p_now double precision, p_queue text)
    RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v record;
    v_lock text;
BEGIN
    SELECT repo, number, state, kind INTO v FROM bot_jobs WHERE id = p_job;
    IF NOT FOUND OR v.state <> 'dead' THEN RETURN false; END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended(v.repo || '#' || v.number, 0));
    SELECT repo, number, state, kind INTO v FROM bot_jobs WHERE id = p_job FOR UPDATE;
    IF NOT FOUND OR v.state <> 'dead' THEN RETURN false; END IF;
    IF EXISTS (SELECT 1 FROM bot_jobs WHERE repo = v.repo AND number = v.number
               AND kind = v.kind AND state = 'queued') THEN
        RETURN false;
    END IF;
    v_lock := v.kind || ':' || v.repo || '#' || v.number;
    UPDATE bot_jobs SET state = 'queued', attempts = 0, run_after = p_now, finished_at = NULL,
        updated_at = p_now,
        pjob_id = (procrastinate_defer_jobs_v1(ARRAY[ROW(p_queue, 'recipe-bot.' || v.kind, 0,
            v_lock, v_lock, jsonb_build_object('job', p_job), to_timestamp(p_now))
            ::procrastinate_job_to_defer_v1]))[1]
    WHERE id = p_job;
    RETURN true;
END $$;

CREATE OR REPLACE FUNCTION bot_enqueue_signoff_v1(
    p_repo text, p_number integer, p_head text, p_installation bigint, p_event jsonb,
    p_now double precision, p_queue text, p_max_events integer
) RETURNS TABLE(r_outcome text, r_job bigint) LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
    v_events text;
BEGIN
    SELECT id, events INTO v_id, v_events FROM bot_jobs
        WHERE repo = p_repo AND number = p_number AND kind = 'signoff' AND state = 'queued'
        FOR UPDATE;
    IF FOUND THEN
        UPDATE bot_jobs SET events = bot_merge_events_v1(v_events, jsonb_build_array(p_event),
                p_max_events),
            head_sha = CASE WHEN p_head = '' THEN head_sha ELSE p_head END,
            installation_id = coalesce(p_installation, installation_id),
            deliveries = deliveries + 1, updated_at = p_now
        WHERE id = v_id;
        RETURN QUERY SELECT 'collapsed'::text, v_id;
    ELSE
        RETURN QUERY SELECT 'queued'::text, bot_insert_job_v1('signoff', p_repo, p_number,
            p_head, p_installation, p_now,
            bot_merge_events_v1('[]', jsonb_build_array(p_event), p_max_events), p_queue);
    END IF;
END $$;

CREATE OR REPLACE FUNCTION bot_ingest_v1(
    p_delivery text, p_event text, p_action text, p_now double precision, p_body_sha text,
    p_size integer, p_kind text, p_reason text,
    p_repo text, p_number integer, p_head text, p_updated_at double precision,
    p_installation bigint,
    s_repo text, s_number integer, s_head text, s_installation bigint, s_event jsonb,
    p_queue text, p_max_events integer
) RETURNS TABLE(r_outcome text, r_job bigint, r_duplicate boolean, r_requeued boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_stored text;
    v_outcome text;
    v_job bigint;
    v_detail text := p_reason;
    v_pull record;
    v_found boolean;
    v_newer boolean;
    v_newest text;
    v_id bigint;
BEGIN
    INSERT INTO bot_deliveries (delivery_id, event, action, received_at, outcome, body_sha256,
                                size)
    VALUES (p_delivery, p_event, p_action, p_now, 'pending', p_body_sha, p_size)
    ON CONFLICT (delivery_id) DO NOTHING;
    IF NOT FOUND THEN  -- seen before (committed by this or another replica)
        SELECT body_sha256, job_id INTO v_stored, v_job FROM bot_deliveries
            WHERE delivery_id = p_delivery;
        IF v_stored <> '' AND p_body_sha <> '' AND v_stored <> p_body_sha THEN
            -- another body under a known id: not a redelivery; nothing is stored
            RETURN QUERY SELECT 'conflict'::text, v_job, true, false;
            RETURN;
        END IF;
        UPDATE bot_deliveries SET redeliveries = redeliveries + 1 WHERE delivery_id = p_delivery
            RETURNING outcome, job_id INTO v_outcome, v_job;
        RETURN QUERY SELECT v_outcome, v_job, true,
            (v_job IS NOT NULL AND bot_revive_v1(v_job, p_now, p_queue));
        RETURN;
    END IF;
    IF p_kind = 'ping' THEN
        v_outcome := 'ping';
    ELSIF p_kind = 'malformed' THEN
        v_outcome := 'malformed';
    ELSIF p_kind = 'signoff' AND s_repo IS NOT NULL THEN
        PERFORM pg_advisory_xact_lock(hashtextextended(s_repo || '#' || s_number, 0));
        SELECT e.r_outcome, e.r_job INTO v_outcome, v_job FROM bot_enqueue_signoff_v1(
            s_repo, s_number, s_head, s_installation, s_event, p_now, p_queue, p_max_events) AS e;
    ELSIF p_kind = 'advise' AND p_repo IS NOT NULL THEN  -- after a finished review
        PERFORM pg_advisory_xact_lock(hashtextextended(p_repo || '#' || p_number, 0));
        SELECT id INTO v_id FROM bot_jobs WHERE repo = p_repo AND number = p_number
            AND kind = 'advise' AND state = 'queued' FOR UPDATE;
        IF FOUND THEN  -- one queued advise job per PR, moved to the newest head
            UPDATE bot_jobs SET head_sha = p_head,
                installation_id = coalesce(p_installation, installation_id),
                deliveries = deliveries + 1, updated_at = p_now
            WHERE id = v_id;
            v_outcome := 'collapsed';
            v_job := v_id;
        ELSE
            v_job := bot_insert_job_v1('advise', p_repo, p_number, p_head, p_installation,
                p_now, '[]', p_queue);
            v_outcome := 'queued';
        END IF;
    ELSIF p_kind <> 'review' OR p_repo IS NULL THEN
        v_outcome := 'ignored';
    ELSE
        PERFORM pg_advisory_xact_lock(hashtextextended(p_repo || '#' || p_number, 0));
        SELECT head_sha, head_at, reviewed_head INTO v_pull FROM bot_pulls
            WHERE repo = p_repo AND number = p_number FOR UPDATE;
        v_found := FOUND;
        IF NOT v_found THEN
            v_newer := true;
            INSERT INTO bot_pulls (repo, number, head_sha, head_at, updated_at)
                VALUES (p_repo, p_number, p_head, p_updated_at, p_now);
        ELSE
            v_newer := p_updated_at IS NULL OR v_pull.head_at IS NULL
                OR p_updated_at >= v_pull.head_at;
            IF v_newer THEN
                UPDATE bot_pulls SET head_sha = p_head, head_at = p_updated_at, updated_at = p_now
                    WHERE repo = p_repo AND number = p_number;
            END IF;
        END IF;
        v_newest := CASE WHEN v_newer THEN p_head ELSE v_pull.head_sha END;
        IF NOT v_newer AND v_pull.reviewed_head IS NOT DISTINCT FROM v_newest THEN
            v_outcome := 'superseded';
            v_detail := 'older than ' || left(v_newest, 12) || ', already reviewed';
        ELSE
            IF NOT v_newer THEN
                SELECT id INTO v_id FROM bot_jobs WHERE repo = p_repo AND number = p_number
                    AND state = 'running' AND kind = 'review' AND head_sha = v_newest LIMIT 1;
                IF FOUND THEN
                    v_outcome := 'superseded';
                    v_job := v_id;
                    v_detail := 'older than ' || left(v_newest, 12) || ', under review';
                END IF;
            END IF;
            IF v_outcome IS NULL THEN
                SELECT id INTO v_id FROM bot_jobs WHERE repo = p_repo AND number = p_number
                    AND state = 'queued' AND kind = 'review' FOR UPDATE;
                IF FOUND THEN
                    UPDATE bot_jobs SET head_sha = v_newest,
                        installation_id = coalesce(p_installation, installation_id),
                        deliveries = deliveries + 1, updated_at = p_now
                    WHERE id = v_id;
                    v_outcome := 'collapsed';
                    v_job := v_id;
                ELSE
                    v_job := bot_insert_job_v1('review', p_repo, p_number, v_newest,
                        p_installation, p_now, '[]', p_queue);
                    v_outcome := 'queued';
                END IF;
            END IF;
        END IF;
        IF s_repo IS NOT NULL AND v_outcome <> 'superseded' THEN  -- a new head: re-judge
            PERFORM bot_enqueue_signoff_v1(s_repo, s_number, s_head, s_installation, s_event,
                p_now, p_queue, p_max_events);
        END IF;
    END IF;
    UPDATE bot_deliveries SET outcome = v_outcome, detail = left(coalesce(v_detail, ''), 500),
        repo = coalesce(p_repo, s_repo), number = coalesce(p_number, s_number),
        head_sha = nullif(coalesce(p_head, s_head), ''), job_id = v_job
    WHERE delivery_id = p_delivery;
    RETURN QUERY SELECT v_outcome, v_job, false, false;
END $$;
"""


class SchemaBehind(QueueError):
    """The database's schema is older than this bot's: run `bot db migrate`."""


# ---------------------------------------------------------------------- schema


def _procrastinate_version() -> str:
    import procrastinate

    return str(procrastinate.__version__)


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def schema_status(conn: psycopg.Connection[Any]) -> dict[str, Any]:
    """What the database has against what this bot needs."""
    cur = conn.cursor(row_factory=tuple_row)
    has_meta = cur.execute("SELECT to_regclass('bot_meta') IS NOT NULL").fetchone()
    meta: dict[str, str] = {}
    if has_meta and has_meta[0]:
        meta = {k: v for k, v in cur.execute("SELECT key, value FROM bot_meta").fetchall()}
    has_jobs = cur.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()
    version = int(meta.get("schema_version", "0"))
    pversion = meta.get("procrastinate_version", "")
    current = bool(has_jobs and has_jobs[0]) and version == SCHEMA_VERSION
    current = current and _version_key(pversion) >= _version_key(_procrastinate_version())
    return {
        "schema_version": version,
        "required": SCHEMA_VERSION,
        "procrastinate_schema": pversion or None,
        "procrastinate": _procrastinate_version(),
        "current": current,
        "newer": version > SCHEMA_VERSION,
    }


def migrate(dsn: str) -> list[str]:
    """Create or bring up to date procrastinate's schema and the bot's tables; idempotent,
    safe to run from several replicas at once (an advisory lock serialises them)."""
    from procrastinate import schema as pschema

    done: list[str] = []
    with psycopg.connect(dsn, autocommit=False) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('recipe-bot:migrate', 0))")
        status = schema_status(conn)
        if status["newer"]:
            raise QueueError(
                f"database schema version {status['schema_version']} is newer than this bot "
                f"({SCHEMA_VERSION})"
            )
        has_jobs = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()
        installed = _procrastinate_version()
        if not (has_jobs and has_jobs[0]):
            conn.execute(pschema.SchemaManager.get_schema())
            done.append(f"procrastinate schema {installed} applied")
        elif status["procrastinate_schema"] and _version_key(
            status["procrastinate_schema"]
        ) < _version_key(installed):
            # procrastinate ships one SQL file per schema change, named by the version
            # that introduced it: apply those after the recorded version, in order
            path = pathlib.Path(pschema.SchemaManager.get_migrations_path())
            old = _version_key(status["procrastinate_schema"])
            for sql in sorted(path.glob("*.sql")):
                v = _version_key(sql.name)
                if old < v <= _version_key(installed):
                    conn.execute(sql.read_text(encoding="utf-8"))
                    done.append(f"procrastinate migration {sql.name}")
        for statement in _BOT_SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(_BOT_FUNCTIONS)
        if status["schema_version"] != SCHEMA_VERSION:
            done.append(f"bot tables and functions at version {SCHEMA_VERSION}")
        conn.execute(
            "INSERT INTO bot_meta (key, value) VALUES ('schema_version', %s),"
            " ('procrastinate_version', %s)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(SCHEMA_VERSION), installed),
        )
        conn.commit()
    return done
