"""Signature and body-size checks: unit level and over real HTTP (uvicorn on loopback)."""

from __future__ import annotations

import hashlib
import hmac
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from webhook_fakes import (
    PREVIOUS,
    SECRET,
    IdempotentReviewer,
    LiveServer,
    MemoryGitHub,
    encode,
    pr_payload,
    sha,
    signed_headers,
)

from bot.server.app import create_app
from bot.server.queue import SQLiteQueue
from bot.server.settings import MIB, Settings
from bot.server.webhook import sign, verify_signature

BODY = b'{"zen": "Design for failure."}'
GOOD = sign(SECRET, BODY)


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        (None, "missing"),
        ("", "missing"),
        (GOOD.replace("sha256=", "sha1="), "prefix"),
        (GOOD[len("sha256=") :], "prefix"),
        (GOOD[:-1], "not a SHA-256"),  # truncated
        (GOOD[:20], "not a SHA-256"),
        (GOOD + "00", "not a SHA-256"),
        ("sha256=" + "z" * 64, "not a SHA-256"),
        (sign(b"wrong secret", BODY), "does not match"),
        (sign(SECRET, BODY + b" "), "does not match"),
    ],
)
def test_bad_signatures_are_rejected(header: str | None, problem: str) -> None:
    result = verify_signature(header, BODY, [SECRET, PREVIOUS])
    assert result is not None and problem in result


def test_valid_signatures() -> None:
    assert verify_signature(GOOD, BODY, [SECRET]) is None
    assert verify_signature(GOOD.upper().replace("SHA256=", "sha256="), BODY, [SECRET]) is None
    assert verify_signature(sign(PREVIOUS, BODY), BODY, [SECRET, PREVIOUS]) is None
    assert verify_signature(sign(PREVIOUS, BODY), BODY, [SECRET]) == "signature does not match"
    assert verify_signature(GOOD, BODY, []) == "no webhook secret configured"
    expected = "sha256=" + hmac.new(SECRET, BODY, hashlib.sha256).hexdigest()
    assert expected == GOOD


def test_the_app_refuses_to_start_without_a_secret(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="secret"):
        create_app(Settings(db_path=str(tmp_path / "q.sqlite3")), start_workers=False)


# ----------------------------------------------------------------------------- over HTTP


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[LiveServer, SQLiteQueue]]:
    settings = Settings(
        webhook_secrets=(SECRET, PREVIOUS),
        github_token="t",
        db_path=str(tmp_path / "q.sqlite3"),
        max_body_bytes=4096,
        poll_seconds=0.05,
    )
    queue = SQLiteQueue(settings.db_path)
    github = MemoryGitHub()
    github.open_pull(2, sha(1))
    app = create_app(
        settings, queue=queue, gateways=lambda i: github, reviewer=IdempotentReviewer()
    )
    with LiveServer(app) as server:
        yield server, queue
    queue.close()


BAD_HEADERS = {
    "missing": lambda body: {"X-Hub-Signature-256": ""},
    "wrong": lambda body: {"X-Hub-Signature-256": sign(b"nope", body)},
    "wrong prefix": lambda body: {"X-Hub-Signature-256": sign(SECRET, body).replace("256", "1")},
    "truncated": lambda body: {"X-Hub-Signature-256": sign(SECRET, body)[:-8]},
    "other body": lambda body: {"X-Hub-Signature-256": sign(SECRET, body + b"\n")},
}


@pytest.mark.parametrize("case", sorted(BAD_HEADERS))
def test_http_bad_signature_is_401_and_nothing_is_stored(
    live: tuple[LiveServer, SQLiteQueue], case: str
) -> None:
    server, queue = live
    body = encode(pr_payload("opened", 2, sha(1)))
    headers = signed_headers(body, delivery="d-bad")
    headers.update(BAD_HEADERS[case](body))
    if not headers["X-Hub-Signature-256"]:
        del headers["X-Hub-Signature-256"]
    r = httpx.post(server.url + "/webhook", content=body, headers=headers)
    assert r.status_code == 401
    assert queue.delivery("d-bad") is None and queue.jobs() == []


def test_http_rotated_secret_is_accepted(live: tuple[LiveServer, SQLiteQueue]) -> None:
    server, queue = live
    body = encode(pr_payload("opened", 2, sha(1)))
    r = httpx.post(
        server.url + "/webhook",
        content=body,
        headers=signed_headers(body, delivery="d-old", secret=PREVIOUS),
    )
    assert r.status_code == 202 and r.json()["outcome"] == "queued"
    assert queue.delivery("d-old") is not None


def test_http_body_at_the_cap_is_accepted(live: tuple[LiveServer, SQLiteQueue]) -> None:
    server, _ = live
    body = encode({"zen": "x"})
    body += b" " * (4096 - len(body))
    r = httpx.post(server.url + "/webhook", content=body, headers=signed_headers(body, "ping"))
    assert r.status_code == 200


def test_http_body_over_the_cap_is_413(live: tuple[LiveServer, SQLiteQueue]) -> None:
    server, queue = live
    body = encode({"zen": "x" * 5000})
    r = httpx.post(
        server.url + "/webhook", content=body, headers=signed_headers(body, "ping", "d-big")
    )
    assert r.status_code == 413
    assert queue.delivery("d-big") is None


def test_http_chunked_body_over_the_cap_is_413(live: tuple[LiveServer, SQLiteQueue]) -> None:
    server, queue = live
    body = encode({"zen": "x" * 5000})

    def chunks() -> Iterator[bytes]:  # no Content-Length: the server counts as it reads
        for i in range(0, len(body), 1000):
            yield body[i : i + 1000]

    r = httpx.post(
        server.url + "/webhook", content=chunks(), headers=signed_headers(body, "ping", "d-chunk")
    )
    assert r.status_code == 413
    assert queue.delivery("d-chunk") is None


def test_http_default_cap_is_25_mib(tmp_path: Path) -> None:
    settings = Settings(webhook_secrets=(SECRET,), db_path=str(tmp_path / "q.sqlite3"))
    assert settings.max_body_bytes == 25 * MIB
    app = create_app(replace(settings, github_token="t"), start_workers=False)
    with LiveServer(app) as server:
        for declared, status in ((25 * MIB + 1, b"413"), (2**40, b"413")):
            with socket.create_connection(("127.0.0.1", server.port)) as sock:
                sock.sendall(
                    b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {declared}\r\n\r\n".encode()
                )
                reply = sock.recv(200)  # answered before any body byte is sent
            assert reply.split(b" ")[1] == status


def test_http_client_gone_mid_body_stores_nothing(live: tuple[LiveServer, SQLiteQueue]) -> None:
    server, queue = live
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            b"POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Delivery: d-gone\r\n"
            b"Content-Length: 1000\r\n\r\n" + b"{" * 10
        )
    body = encode({"zen": "still here"})
    r = httpx.post(server.url + "/webhook", content=body, headers=signed_headers(body, "ping"))
    assert r.status_code == 200
    assert queue.delivery("d-gone") is None
