"""The PostgreSQL backend as an operator and GitHub see it: `bot db` / `bot queue` (on both
backends), /readyz naming the backend and failing while the schema is behind, the webhook
answering 503 (never 202) while the database is down or read-only and the workers backing
off and recovering when it returns (a real server stopped and started), and GitHub write
pacing shared by replicas."""

from __future__ import annotations

import io
import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from webhook_fakes import (
    REPO,
    SECRET,
    IdempotentReviewer,
    LiveServer,
    MemoryGitHub,
    encode,
    pr_payload,
    sha,
    signed_headers,
    wait_for,
)

from bot import cli
from bot.github.types import GitHubError, Status
from bot.server.app import create_app
from bot.server.pacing import paced
from bot.server.queue import DeliveryRecord, SQLiteQueue
from bot.server.settings import Settings
from bot.server.webhook import PullEvent


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def review_record(delivery: str, number: int = 7) -> DeliveryRecord:
    pull = PullEvent(REPO, number, sha(number), 1.0, 1, "Codertocat", False)
    return DeliveryRecord(delivery, "pull_request", "synchronize", "review", "sync", pull=pull)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        path = str(tmp_path / "q.sqlite3")
        SQLiteQueue(path).close()
        return path
    return str(request.getfixturevalue("pg_url"))


def _open(db: str) -> Any:
    from bot.server.backends import open_queue

    return open_queue(Settings(db_path=db))


# ----------------------------------------------------------------------------- CLI


def test_queue_status_lists_dead_letters_and_retry_queues_one(db: str) -> None:
    q = _open(db)
    try:
        q.ingest(review_record("d1"))
        job = q.claim("w")
        q.fail(job, "GitHub 404: Not Found", delay=0, permanent=True)
    finally:
        q.close()
    code, out, _ = run_cli("queue", "status", "--db", db)
    assert code == 0
    assert "dead 1" in out and f"{REPO}#7@{sha(7)[:12]}" in out and "404" in out
    code, out, _ = run_cli("queue", "status", "--db", db, "--json")
    import json

    doc = json.loads(out)
    assert doc["jobs"]["dead"] == 1 and doc["dead_letters"][0]["id"] == job.id
    assert run_cli("queue", "retry", str(job.id), "--db", db)[:2] == (
        0,
        f"job {job.id} queued again\n",
    )
    code, _, err = run_cli("queue", "retry", str(job.id), "--db", db)
    assert (code, err) == (1, f"bot: job {job.id} is queued, not dead\n")
    assert "dead 0" in run_cli("queue", "status", "--db", db)[1]


def test_db_commands_report_an_unreachable_or_missing_database(tmp_path: Path) -> None:
    code, _, err = run_cli("queue", "status", "--db", str(tmp_path / "absent.sqlite3"))
    assert code == 2 and "no queue database" in err
    url = "postgresql://bot:hunter2@127.0.0.1:1/bot"
    code, _, err = run_cli("queue", "status", "--db", url)
    assert code == 2 and "Connection refused" in err and "hunter2" not in err


def test_db_migrate_creates_the_schema_and_readyz_fails_until_then(pg_admin_dsn: str) -> None:
    base = pg_admin_dsn.rpartition("/")[0]
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS bot_fresh WITH (FORCE)")
        conn.execute("CREATE DATABASE bot_fresh")
    url = f"{base}/bot_fresh"
    code, out, _ = run_cli("db", "status", "--db", url)
    assert code == 1 and "behind" in out
    settings = Settings(webhook_secrets=(SECRET,), github_token="t", db_path=url, write_interval=0)
    app = create_app(settings, gateways=lambda i: MemoryGitHub(), start_workers=False)
    with LiveServer(app) as server, httpx.Client(timeout=10) as client:
        ready = client.get(server.url + "/readyz")
        assert ready.status_code == 503
        assert ready.json()["backend"] == "postgresql"
        assert "run `bot db migrate`" in ready.json()["database"]
        body = encode(pr_payload("opened", 7, sha(1)))
        r = client.post(server.url + "/webhook", content=body, headers=signed_headers(body))
        assert r.status_code == 503  # nothing stored, GitHub keeps it failed and redeliverable
        code, out, _ = run_cli("db", "migrate", "--db", url)
        assert code == 0 and "procrastinate schema" in out and "bot tables" in out
        assert run_cli("db", "migrate", "--db", url)[1].endswith("schema is current\n")
        ready = client.get(server.url + "/readyz")
        assert ready.status_code == 200 and ready.json()["database"] == "ok"
        r = client.post(server.url + "/webhook", content=body, headers=signed_headers(body))
        assert r.status_code == 202
    assert run_cli("db", "status", "--db", url)[0] == 0
    with psycopg.connect(pg_admin_dsn, autocommit=True) as conn:
        conn.execute("DROP DATABASE bot_fresh WITH (FORCE)")


# ----------------------------------------------------------------------------- outages


@pytest.fixture
def own_pg() -> Iterator[Any]:
    """A server of this test's own, to stop and start."""
    import pgserver

    reason = pgserver.unavailable_reason()
    if reason:
        pytest.skip(f"PostgreSQL unavailable: {reason}")
    server = pgserver.PgServer()
    server.start(fsync=False)
    try:
        yield server
    finally:
        server.cleanup()


def test_database_down_or_read_only_answers_503_and_workers_recover(own_pg: Any) -> None:
    from bot.server import pgqueue

    pgqueue.migrate(own_pg.dsn)
    github = MemoryGitHub()
    for n in (1, 2, 3, 4):
        github.open_pull(n, sha(n))
    settings = Settings(
        webhook_secrets=(SECRET,),
        github_token="t",
        db_path=own_pg.dsn,
        write_interval=0,
        poll_seconds=0.05,
        retry_base_seconds=0.0,
        lease_seconds=2,
    )
    app = create_app(settings, gateways=lambda i: github, reviewer=IdempotentReviewer())
    service = app.state.service
    with LiveServer(app) as server, httpx.Client(timeout=15) as client:

        def post(n: int, delivery: str) -> int:
            body = encode(pr_payload("opened", n, sha(n)))
            return client.post(
                server.url + "/webhook",
                content=body,
                headers=signed_headers(body, delivery=delivery),
            ).status_code

        assert post(1, "d1") == 202
        wait_for(lambda: github.reviewed_heads(1) == [sha(1)])

        own_pg.stop()  # the database goes down
        assert post(2, "d2") == 503
        assert client.get(server.url + "/readyz").status_code == 503
        errors = service.metrics.queue_errors
        wait_for(lambda: errors.get("PoolTimeout") + errors.get("OperationalError") >= 2, 15)

        own_pg.start(fsync=False)  # and comes back on the same port
        wait_for(lambda: client.get(server.url + "/readyz").status_code == 200, timeout=15)
        assert post(2, "d2") == 202  # GitHub's redelivery: a first delivery, not a duplicate
        assert post(3, "d3") == 202
        wait_for(lambda: github.reviewed_heads(2) == [sha(2)], timeout=40)
        wait_for(lambda: github.reviewed_heads(3) == [sha(3)], timeout=40)

        with psycopg.connect(own_pg.dsn, autocommit=True) as conn:  # read-only now
            conn.execute("ALTER SYSTEM SET default_transaction_read_only = on")
            conn.execute("SELECT pg_reload_conf()")
        time.sleep(0.3)
        assert post(4, "d4") == 503
        with psycopg.connect(own_pg.dsn, autocommit=True) as conn:
            conn.execute("SET default_transaction_read_only = off")
            conn.execute("ALTER SYSTEM RESET default_transaction_read_only")
            conn.execute("SELECT pg_reload_conf()")
        time.sleep(0.3)
        assert post(4, "d4") == 202
        wait_for(lambda: github.reviewed_heads(4) == [sha(4)], timeout=40)
    deliveries = service.metrics.deliveries
    assert deliveries.get("pull_request", "error") == 2  # the two 503s
    assert deliveries.get("pull_request", "queued") == 4
    assert deliveries.get("pull_request", "duplicate") == 0


# ----------------------------------------------------------------------------- pacing


def test_write_pacing_and_rate_limit_holds_are_shared_by_replicas(pg_url: str) -> None:
    from bot.server.pgqueue import PostgresQueue

    replicas = [PostgresQueue(pg_url), PostgresQueue(pg_url)]
    try:
        github = MemoryGitHub()
        stamps: list[float] = []
        lock = threading.Lock()

        class Recording(MemoryGitHub):
            def set_status(self, repo: str, sha_: str, status: Status) -> None:
                with lock:
                    stamps.append(time.monotonic())

        inner = Recording()
        gateways = [paced(inner, q.pacer(0.15), "installation:1") for q in replicas]

        def writer(gw: Any) -> None:
            for _ in range(4):
                gw.set_status(REPO, sha(1), Status("success", "ctx", "ok"))

        threads = [threading.Thread(target=writer, args=(gw,)) for gw in gateways]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stamps.sort()
        gaps = [b - a for a, b in itertools.pairwise(stamps)]
        # one pace for both replicas (unshared, each would write its own pairs at once, a
        # millisecond apart). A stamp is taken after the pacer's grant, so a thread held up
        # between the two shortens one gap by that delay (0.047 s seen on a busy machine):
        # the gaps are held to a fifth of the pace, the span below to the whole
        assert len(stamps) == 8 and min(gaps) >= 0.03, gaps
        # seven paces end to end (unshared: three each, about 0.45 s); the pace is kept by
        # the database's clock, read here through another one: a tenth of slack
        assert stamps[-1] - stamps[0] >= 7 * 0.15 * 0.9

        class Limited(MemoryGitHub):
            def create_issue_comment(self, repo: str, number: int, body: str) -> int:
                raise GitHubError("secondary rate limit", 403, retry_after=1.0)

        with pytest.raises(GitHubError):
            paced(Limited(), replicas[0].pacer(0), "installation:1").create_issue_comment(
                REPO, 7, "x"
            )
        started = time.monotonic()
        github.open_pull(7, sha(7))
        paced(github, replicas[1].pacer(0), "installation:1").pull(REPO, 7)  # the other replica
        assert time.monotonic() - started >= 0.9  # held by the Retry-After replica 0 saw
        (state,) = replicas[1].pacer(0).state()
        assert state["key"] == "installation:1" and "403" in state["reason"]
    finally:
        for q in replicas:
            q.close()


# ----------------------------------------------------------------------------- deployment


def test_compose_file_runs_migrate_before_two_replicas_with_known_settings() -> None:
    from ruamel.yaml import YAML

    from bot.server.settings import OPTIONS

    root = Path(__file__).resolve().parents[1]
    doc = YAML(typ="safe").load((root / "deploy" / "compose.yaml").read_text(encoding="utf-8"))
    services = doc["services"]
    replicas = [n for n, s in services.items() if s.get("image") == "recipe-review-bot"]
    assert {"bot-a", "bot-b", "migrate"} <= set(replicas)
    assert services["migrate"]["entrypoint"] == ["bot", "db", "migrate"]
    known = {o.env for o in OPTIONS}
    for name in ("bot-a", "bot-b"):
        env = services[name]["environment"]
        assert env["BOT_DB"].startswith("postgresql://")
        assert set(env) <= known, set(env) - known
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )
    nginx = (root / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    assert "server bot-a:8080" in nginx and "server bot-b:8080" in nginx
    assert "non_idempotent" in nginx
