"""Reliability of `bot serve` against hostile or unlucky senders: the cheap half of the
battery (the expensive half, with figures, is `benchmarks/bench_reliability.py`).

Real components: uvicorn on 127.0.0.1 configured exactly as `bot serve` runs it
(`bot.server.app.uvicorn_config`), raw sockets that stall, a real SQLite file, the
review pipeline and PyGithub against the fake GitHub on loopback.
"""

from __future__ import annotations

import asyncio
import io
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from hostile import (
    EVENT_DEFS,
    body_mutations,
    garbage,
    load_schema,
    schema_payloads,
    signature_mutations,
)
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from webhook_fakes import (
    PREVIOUS,
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

from bot.server import queue as queue_module
from bot.server.app import Service, configure_logging, create_app
from bot.server.queue import DeliveryRecord, RejectedRecord, SQLiteQueue
from bot.server.settings import Settings
from bot.server.webhook import PullEvent, sign

BASE = Settings(
    webhook_secrets=(SECRET,),
    github_token="test-token",
    poll_seconds=0.05,
    retry_base_seconds=0.0,
    write_interval=0,
    header_timeout=0.6,
    body_timeout=0.6,
    keepalive_timeout=0.6,
)


class Live:
    def __init__(self, server: LiveServer, queue: SQLiteQueue, github: MemoryGitHub) -> None:
        self.server, self.queue, self.github = server, queue, github
        self.client = httpx.Client(timeout=30)

    def post(self, body: bytes, headers: Any) -> httpx.Response:
        return self.client.post(self.server.url + "/webhook", content=body, headers=headers)

    def connect(self) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.server.port), timeout=10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Callable[..., Live]]:
    made: list[Live] = []

    def make(workers: bool = False, **overrides: Any) -> Live:
        settings = replace(BASE, db_path=str(tmp_path / f"q{len(made)}.sqlite3"), **overrides)
        queue = SQLiteQueue(settings.db_path)
        github = MemoryGitHub()
        app = create_app(
            settings,
            queue=queue,
            gateways=lambda installation: github,
            reviewer=IdempotentReviewer(),
            start_workers=workers,
        )
        server = LiveServer(app, settings).__enter__()
        made.append(Live(server, queue, github))
        return made[-1]

    yield make
    for one in made:
        one.client.close()
        one.server.__exit__(None, None, None)
        one.queue.close()


def ping_body(n: int) -> bytes:
    return encode({"zen": f"Keep it logically awesome {n}", "hook_id": n})


# ----------------------------------------------------------------------------- isolation


def test_an_out_of_range_id_fails_only_its_own_delivery(live: Callable[..., Live]) -> None:
    bot = live()
    bad = pr_payload("opened", 3, sha(1))
    bad["installation"] = {"id": 2**70}
    bad_body = encode(bad)
    bad_headers = signed_headers(bad_body, "pull_request", "d-bad")

    async def burst() -> list[httpx.Response]:
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=50), timeout=30) as c:
            url = bot.server.url + "/webhook"
            pings = [
                c.post(url, content=ping_body(n), headers=signed_headers(ping_body(n), "ping"))
                for n in range(45)
            ]
            return await asyncio.gather(c.post(url, content=bad_body, headers=bad_headers), *pings)

    bad_answer, *pings = asyncio.run(burst())
    assert [r.status_code for r in pings] == [200] * 45
    assert bad_answer.status_code == 400 and "installation.id" in bad_answer.json()["reason"]
    row = bot.queue.delivery("d-bad")
    assert row is not None and row["outcome"] == "malformed" and row["job_id"] is None
    assert bot.queue.stats().deliveries == 46 and bot.queue.jobs() == []


def test_the_queue_rolls_back_one_record_and_commits_its_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even past `check_record` (here switched off), a value SQLite cannot hold fails
    only its own savepoint; concurrent deliveries of the same group commit succeed."""
    monkeypatch.setattr(queue_module, "check_record", lambda record: None)
    q = SQLiteQueue(str(tmp_path / "q.sqlite3"))
    bad_pull = PullEvent(REPO, 3, sha(1), None, 2**70, "x", False)
    bad = DeliveryRecord("d-bad", "pull_request", "opened", "review", "r", bad_pull)
    results: dict[str, Any] = {}
    start = threading.Barrier(31)

    def ingest(record: DeliveryRecord) -> None:
        start.wait()
        try:
            results[record.delivery_id] = q.ingest(record).outcome
        except Exception as exc:
            results[record.delivery_id] = exc

    records = [bad] + [DeliveryRecord(f"p{n}", "ping", None, "ping", "ping") for n in range(30)]
    threads = [threading.Thread(target=ingest, args=(r,)) for r in records]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert isinstance(results.pop("d-bad"), RejectedRecord)
    assert set(results.values()) == {"ping"} and len(results) == 30
    assert q.stats().deliveries == 30 and q.jobs() == []
    q.close()


def test_a_record_the_queue_rejects_is_stored_as_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.server.app as app_module

    monkeypatch.setattr(queue_module, "check_record", lambda record: None)
    monkeypatch.setattr(app_module, "check_record", lambda record: None)
    monkeypatch.setattr(
        "bot.server.webhook._installation_id",
        lambda payload: payload["installation"]["id"],
    )
    service = _service(tmp_path)
    bad = pr_payload("opened", 3, sha(1))
    bad["installation"] = {"id": 2**70}
    body = encode(bad)
    status, answer = service.handle_webhook(_lower(signed_headers(body, delivery="d-x")), body)
    assert status == 400 and "cannot be stored" in answer["reason"]
    assert service.queue.delivery("d-x")["outcome"] == "malformed"  # type: ignore[attr-defined,index]


# ----------------------------------------------------------------------------- ingress refusals


def test_repeated_signature_headers_are_refused(live: Callable[..., Live]) -> None:
    bot = live()
    body = ping_body(1)
    good = sign(SECRET, body)
    forged = sign(b"attacker", body)
    base = [("Content-Type", "application/json"), ("X-GitHub-Event", "ping")]
    for pair in ([good, forged], [forged, good], [good, good]):
        headers = [*base, ("X-GitHub-Delivery", "d-dup")]
        headers += [("X-Hub-Signature-256", value) for value in pair]
        answer = bot.post(body, headers)
        assert answer.status_code == 400 and "more than once" in answer.json()["error"]
    headers = [*base, ("X-GitHub-Delivery", "a"), ("X-GitHub-Delivery", "b")]
    headers.append(("X-Hub-Signature-256", good))
    assert bot.post(body, headers).status_code == 400
    assert bot.queue.stats().deliveries == 0
    assert bot.post(body, signed_headers(body, "ping", "d-ok")).status_code == 200


@pytest.mark.parametrize("repo", ["../..", "a/..", "../../x/y"])
def test_invalid_repository_names_are_refused_at_ingress(
    live: Callable[..., Live], repo: str
) -> None:
    bot = live()
    body = encode(pr_payload("opened", 5, sha(5), repo=repo))
    answer = bot.post(body, signed_headers(body, delivery="d-repo"))
    assert answer.status_code == 400
    row = bot.queue.delivery("d-repo")
    assert row is not None and row["outcome"] == "malformed" and row["repo"] is None
    assert bot.queue.jobs() == []


def test_body_caps_declared_and_streamed(live: Callable[..., Live]) -> None:
    bot = live(max_body_bytes=4096)
    body = b"{" + b" " * 5000 + b"}"
    assert bot.post(body, signed_headers(body, "ping")).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: chunked, cut at the cap
        for _ in range(10):
            yield b" " * 1000

    answer = bot.client.post(
        bot.server.url + "/webhook", content=chunks(), headers=signed_headers(b"", "ping")
    )
    assert answer.status_code == 413
    assert bot.queue.stats().deliveries == 0


# ----------------------------------------------------------------------------- slow clients


def _closed_after(sock: socket.socket, limit: float = 5.0) -> tuple[float, bytes]:
    """Seconds until the server closes `sock`, and what it sent before."""
    started = time.monotonic()
    sock.settimeout(limit)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except TimeoutError:
        raise AssertionError(f"still open after {limit} s") from None
    except ConnectionResetError:
        pass
    return time.monotonic() - started, data


def _head(body_length: int, delivery: str = "d-slow") -> bytes:
    return (
        "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-GitHub-Event: ping\r\nX-GitHub-Delivery: {delivery}\r\n"
        f"X-Hub-Signature-256: sha256={'0' * 64}\r\nContent-Length: {body_length}\r\n\r\n"
    ).encode()


def test_silent_and_half_header_clients_are_dropped(live: Callable[..., Live]) -> None:
    bot = live()
    started = time.monotonic()
    silent = bot.connect()
    half = bot.connect()
    half.sendall(_head(10)[:40])
    for sock in (silent, half):
        _, data = _closed_after(sock)
        assert 0.4 < time.monotonic() - started < 3.0 and data == b""
        sock.close()


def test_a_stalled_or_trickling_body_gets_408_and_is_dropped(live: Callable[..., Live]) -> None:
    bot = live()
    stalled = bot.connect()
    stalled.sendall(_head(1000) + b"{" * 10)
    took, data = _closed_after(stalled)
    assert 0.4 < took < 3.0 and data.startswith(b"HTTP/1.1 408")
    stalled.close()

    trickle = bot.connect()
    trickle.sendall(_head(1000))
    started = time.monotonic()
    answer = b""
    trickle.settimeout(0.1)
    while time.monotonic() - started < 5:
        try:
            trickle.sendall(b" ")
            chunk = trickle.recv(4096)
            if not chunk:
                break
            answer += chunk
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            break
    assert time.monotonic() - started < 3.0 and answer.startswith(b"HTTP/1.1 408")
    trickle.close()
    assert bot.queue.stats().deliveries == 0


def test_deadline_rearms_after_a_response_and_idle_keepalive_closes(
    live: Callable[..., Live],
) -> None:
    bot = live()
    body = ping_body(7)
    sock = bot.connect()
    head = _head(len(body), "d-keep").replace(
        f"sha256={'0' * 64}".encode(), sign(SECRET, body).encode()
    )
    sock.sendall(head + body)
    sock.settimeout(5)
    first = sock.recv(4096)
    assert first.startswith(b"HTTP/1.1 200")
    sock.sendall(head[:30])  # a second request that never completes its headers
    took, _ = _closed_after(sock)
    assert took < 3.0
    sock.close()
    idle = bot.connect()
    idle.sendall(head + body)
    idle.settimeout(5)
    assert idle.recv(4096).startswith(b"HTTP/1.1 200")
    took, _ = _closed_after(idle)  # kept alive, then closed when idle
    assert took < 3.0
    idle.close()


def test_valid_deliveries_are_acked_while_100_slow_clients_hang(
    live: Callable[..., Live],
) -> None:
    bot = live(header_timeout=3.0, body_timeout=3.0)
    slow = []
    for n in range(100):
        s = bot.connect()
        s.sendall(_head(5000, f"s{n}")[: 30 + n] if n % 2 else _head(5000, f"s{n}") + b"{")
        slow.append(s)
    times = []
    for n in range(20):
        body = ping_body(n)
        started = time.monotonic()
        assert bot.post(body, signed_headers(body, "ping")).status_code == 200
        times.append(time.monotonic() - started)
    assert max(times) < 1.5, times  # well under the 3 s the slow ones get
    for s in slow:
        _closed_after(s, 8)
        s.close()
    assert bot.queue.stats().deliveries == 20


# ----------------------------------------------------------------------------- the battery, small


def _lower(headers: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def _service(tmp_path: Path, name: str = "svc.sqlite3") -> Service:
    settings = replace(BASE, db_path=str(tmp_path / name), webhook_secrets=(SECRET, PREVIOUS))
    app = create_app(settings, queue=SQLiteQueue(settings.db_path), start_workers=False)
    service: Service = app.state.service
    return service


def test_2000_signature_mutations_are_all_refused(tmp_path: Path) -> None:
    service = _service(tmp_path)
    body = encode(pr_payload("opened", 9, sha(9)))
    headers = _lower(signed_headers(body))
    checked = 0
    for signature in signature_mutations(SECRET, body, (PREVIOUS[:-1], b"x", SECRET.upper())):
        status, _ = service.handle_webhook({**headers, "x-hub-signature-256": signature}, body)
        assert status == 401, signature
        checked += 1
    for mutated in body_mutations(body, 2000 - checked + 100):
        status, _ = service.handle_webhook(headers, mutated)
        assert status == 401, mutated
        checked += 1
    assert checked >= 2000
    assert service.queue.stats().deliveries == 0
    status, _ = service.handle_webhook(headers, body)  # the original still passes
    assert status == 202


SCHEMA = load_schema()


def _judge(service: Service, event: str, body: bytes, n: int) -> None:
    delivery = f"h-{n}"
    headers = _lower(signed_headers(body, event, delivery))
    status, answer = service.handle_webhook(headers, body)
    assert status in (200, 202, 400), (status, answer)
    row = service.queue.delivery(answer["delivery"])  # type: ignore[attr-defined]
    assert row is not None, answer  # every signed delivery is on record


@pytest.mark.skipif(SCHEMA is None, reason="../shared/webhooks is absent")
def test_signed_schema_shaped_hostile_payloads_never_5xx(tmp_path: Path) -> None:
    assert SCHEMA is not None
    service = _service(tmp_path, "schema.sqlite3")
    counter = iter(range(10**9))

    @hsettings(
        max_examples=300,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(schema_payloads(SCHEMA, EVENT_DEFS))
    def run(pair: tuple[str, Any]) -> None:
        event, payload = pair
        _judge(service, event, encode(payload), next(counter))

    run()


def test_signed_garbage_never_5xx(tmp_path: Path) -> None:
    service = _service(tmp_path, "garbage.sqlite3")
    counter = iter(range(10**9))

    @hsettings(
        max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(garbage(), st.sampled_from(["pull_request", "issue_comment", "ping", "push", "x"]))
    def run(body: bytes, event: str) -> None:
        _judge(service, event, body, next(counter))

    run()


# ----------------------------------------------------------------------------- canaries


def test_no_credential_reaches_a_log_line_or_the_database(fake_github: Any, tmp_path: Path) -> None:
    """DEBUG logging, the real pipeline and PyGithub; GitHub's error bodies echo the
    token, a JWT, a PEM key and an Anthropic key; a delivery is signed with a canary
    secret. Nothing of them may appear in the log or in the SQLite file."""
    from test_e2e_review import REPO as E2E_REPO
    from test_e2e_review import base_files, example_files, payload

    from bot.server.settings import load_settings

    token = "ghs_" + "CanaryToken0123456789abcdefABCDEF01"
    secret = "webhook-canary-" + "s3cr3t-9f8e7d"
    jwt_canary = "eyJhbGciOiJSUzI1NiJ9.eyJjYW5hcnkiOjF9.Y2FuYXJ5LXNpZ25hdHVyZQ"
    pem = "-----BEGIN PRIVATE KEY-----\nQ2FuYXJ5UEVN\n-----END PRIVATE KEY-----"
    ant = "sk-ant-api03-canary" + "Z" * 30
    fake_github.add_token(token, "recipe-bot")
    settings = load_settings(
        {
            "BOT_WEBHOOK_SECRET": secret,
            "GITHUB_API_URL": fake_github.url,
            "GITHUB_TOKEN": token,
            "BOT_DB": str(tmp_path / "canary.sqlite3"),
            "BOT_WRITE_INTERVAL": "0",
            "BOT_POLL_SECONDS": "0.05",
            "BOT_RETRY_BASE_SECONDS": "0",
            "BOT_LOG_LEVEL": "debug",
        }
    )
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    configure_logging(settings, stream)
    try:
        head = example_files()
        pull = fake_github.create_pull(E2E_REPO, base=base_files(head), head=head, number=1)
        echo = f"Bad credentials: token {token} jwt {jwt_canary} key {pem} {ant} {secret}"
        fake_github.fail_next("POST", r"/statuses/", 502, message=echo, times=2)
        fake_github.fail_next("POST", r"/reviews$", 401, message=echo, after_effect=False)
        with LiveServer(create_app(settings), settings) as server:
            body = encode(payload(fake_github, "opened", 1))
            for signing in (secret.encode(), b"wrong"):
                headers = signed_headers(body, "pull_request", secret=signing)
                httpx.post(server.url + "/webhook", content=body, headers=headers, timeout=10)
            logging.getLogger("bot.test").debug("config %s %s", settings, token)
            wait_for(lambda: "job is now dead" in stream.getvalue(), timeout=20)
            del pull
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved[0]:
            root.addHandler(h)
        root.setLevel(saved[1])
    text = stream.getvalue()
    assert "Bad credentials" in text and "DEBUG" in text  # the echo was logged, redacted
    database = b"".join(p.read_bytes() for p in tmp_path.glob("canary.sqlite3*"))
    assert b"Bad credentials" in database  # the stored error is there, redacted
    for canary in (token, secret, jwt_canary, "Q2FuYXJ5UEVN", ant):
        assert canary not in text, canary
        assert canary.encode() not in database, canary


# ----------------------------------------------------------------------------- writes answered 502


def test_writes_answered_502_after_being_applied_duplicate_nothing(
    fake_github: Any, tmp_path: Path
) -> None:
    """20 % of GitHub writes are applied and then answered 502 (the response lost): the
    retried reviews post every review, comment and status exactly once."""
    from review_rig import audit, delivery, open_pulls

    from bot.server.settings import load_settings

    fake_github.add_token("chaos-token", "recipe-bot")
    settings = load_settings(
        {
            "BOT_WEBHOOK_SECRET": SECRET.decode(),
            "GITHUB_API_URL": fake_github.url,
            "GITHUB_TOKEN": "chaos-token",
            "BOT_DB": str(tmp_path / "chaos.sqlite3"),
            "BOT_WRITE_INTERVAL": "0",
            "BOT_POLL_SECONDS": "0.02",
            "BOT_RETRY_BASE_SECONDS": "0",
            "BOT_MAX_ATTEMPTS": "30",
        }
    )
    numbers = range(1, 9)
    open_pulls(fake_github, numbers)
    fake_github.chaos(0.2, seed=12)
    app = create_app(settings)
    service: Service = app.state.service
    with LiveServer(app, settings) as server, httpx.Client(timeout=10) as client:
        for n in numbers:
            body = delivery(fake_github, "opened", n)
            r = client.post(server.url + "/webhook", content=body, headers=signed_headers(body))
            assert r.status_code == 202
        wait_for(lambda: service.queue.stats().jobs["done"] == len(numbers), timeout=60)
    result = audit(fake_github, numbers)
    assert fake_github.chaos_hits >= 3  # the chaos really happened
    assert result.lost == [] and result.duplicates == 0, result.line()
    assert result.reviews == len(numbers)


def test_an_acking_process_and_a_reviewing_process_share_one_queue(tmp_path: Path) -> None:
    """BOT_WORKERS=0: this `bot serve` only acknowledges (its ack path shares no CPU with
    reviews); a second one on the same SQLite file reviews what it stored."""
    db = str(tmp_path / "shared.sqlite3")
    github = MemoryGitHub()
    github.open_pull(4, sha(4))
    reviewer = IdempotentReviewer()
    acking = replace(BASE, db_path=db, workers=0)
    reviewing = replace(BASE, db_path=db, workers=1)
    front = create_app(acking, gateways=lambda i: github, reviewer=IdempotentReviewer())
    back = create_app(reviewing, gateways=lambda i: github, reviewer=reviewer)
    assert front.state.service.pool is None
    with LiveServer(front, acking) as a, LiveServer(back, reviewing), httpx.Client() as c:
        body = encode(pr_payload("opened", 4, sha(4)))
        assert (
            c.post(a.url + "/webhook", content=body, headers=signed_headers(body)).status_code
            == 202
        )
        assert c.get(a.url + "/readyz").status_code == 200
        wait_for(lambda: github.reviewed_heads(4) == [sha(4)], timeout=10)
    assert [run[3] for run in reviewer.runs] == [sha(4)]
