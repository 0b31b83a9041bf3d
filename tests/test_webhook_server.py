"""The webhook service over real HTTP (uvicorn on 127.0.0.1, a real SQLite file, real worker
threads) with an in-memory GitHub and a reviewer that keeps the pipeline's contract."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from webhook_fakes import (
    BOT,
    REPO,
    SECRET,
    SHARED_WEBHOOKS,
    IdempotentReviewer,
    LiveServer,
    MemoryGitHub,
    encode,
    pr_payload,
    sha,
    shared_payloads,
    signed_headers,
    wait_for,
)

from bot.github.types import GitHubError
from bot.server.app import create_app
from bot.server.queue import SQLiteQueue
from bot.server.settings import Settings
from bot.server.webhook import classify


@dataclass
class Bot:
    server: LiveServer
    queue: SQLiteQueue
    github: MemoryGitHub
    reviewer: IdempotentReviewer
    client: httpx.Client

    def post(
        self, payload: Any, event: str = "pull_request", delivery: str | None = None, **kw: Any
    ) -> httpx.Response:
        body = payload if isinstance(payload, bytes) else encode(payload)
        return self.client.post(
            self.server.url + "/webhook",
            content=body,
            headers=signed_headers(body, event, delivery, **kw),
        )

    def get(self, path: str) -> httpx.Response:
        return self.client.get(self.server.url + path)


@pytest.fixture
def make_bot(tmp_path: Path) -> Iterator[Callable[..., Bot]]:
    stack: list[tuple[LiveServer, SQLiteQueue]] = []
    client = httpx.Client(timeout=30)

    def make(
        reviewer: IdempotentReviewer | None = None, workers: bool = True, **overrides: Any
    ) -> Bot:
        settings = Settings(
            webhook_secrets=(SECRET,),
            github_token="test-token",
            db_path=str(tmp_path / f"q{len(stack)}.sqlite3"),
            poll_seconds=0.05,
            retry_base_seconds=0.0,
            write_interval=0,
        )
        settings = replace(settings, **overrides)
        queue = SQLiteQueue(
            settings.db_path,
            lease_seconds=settings.lease_seconds,
            max_attempts=settings.max_attempts,
        )
        github = MemoryGitHub()
        reviewer = reviewer or IdempotentReviewer()
        app = create_app(
            settings,
            queue=queue,
            gateways=lambda installation: github,
            reviewer=reviewer,
            start_workers=workers,
        )
        server = LiveServer(app).__enter__()
        stack.append((server, queue))
        return Bot(server, queue, github, reviewer, client)

    yield make
    client.close()
    for server, queue in stack:
        server.__exit__(None, None, None)
        queue.close()


# ----------------------------------------------------------------------------- answers


def test_ping_is_answered_and_recorded(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot()
    r = bot.post({"zen": "Keep it logically awesome.", "hook_id": 1}, "ping", "d-ping")
    assert r.status_code == 200 and r.json()["pong"] is True
    row = bot.queue.delivery("d-ping")
    assert row is not None and row["outcome"] == "ping"


@pytest.mark.parametrize(
    ("event", "payload", "reason"),
    [
        ("issues", {"action": "opened"}, "event issues"),
        ("pull_request", pr_payload("labeled", 2, sha(1)), "action labeled"),
        ("pull_request", pr_payload("closed", 2, sha(1)), "action closed"),
        ("pull_request", pr_payload("edited", 2, sha(1)), "without a base change"),
        ("pull_request", pr_payload("opened", 2, sha(1), draft=True), "draft"),
        (
            "pull_request",
            pr_payload("reopened", 2, sha(1), sender=BOT, sender_type="Bot"),
            "bot itself",
        ),
        ("pull_request", pr_payload("opened", 2, sha(1), sender="me-bot"), "bot itself"),
        ("brand_new_event", {"action": "whatever"}, "event brand_new_event"),
    ],
)
def test_other_events_and_actions_get_2xx_and_are_ignored(
    make_bot: Callable[..., Bot], event: str, payload: Any, reason: str
) -> None:
    bot = make_bot(github_app_slug="recipe-review", bot_login="me-bot")
    r = bot.post(payload, event, "d-x")
    assert r.status_code == 202, r.text
    assert r.json()["outcome"] == "ignored" and reason in r.json()["reason"]
    assert bot.queue.jobs() == []


def test_app_slug_alone_identifies_the_bot(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot(github_app_slug="recipe-review")
    r = bot.post(pr_payload("opened", 2, sha(1), sender=BOT, sender_type="Bot"))
    assert r.json()["outcome"] == "ignored"
    other = pr_payload("synchronize", 2, sha(1), sender="dependabot[bot]", sender_type="Bot")
    assert bot.post(other).json()["outcome"] == "queued"  # other bots' pushes are reviewed


def test_the_bots_own_push_is_reviewed(make_bot: Callable[..., Bot]) -> None:
    """The "Apply safe fixes" commit is the bot's own push: its new head is reviewed."""
    bot = make_bot(github_app_slug="recipe-review")
    mine = pr_payload("synchronize", 2, sha(2), sender=BOT, sender_type="Bot")
    assert bot.post(mine).json()["outcome"] == "queued"


def test_drafts_are_reviewed_when_configured(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot(review_drafts=True, workers=False)
    r = bot.post(pr_payload("opened", 2, sha(1), draft=True))
    assert r.json()["outcome"] == "queued"


def test_edited_with_a_base_change_is_reviewed(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot(workers=False)
    payload = pr_payload("edited", 2, sha(1))
    payload["changes"] = {"base": {"ref": {"from": "old"}}}
    assert bot.post(payload).json()["outcome"] == "queued"


@pytest.mark.parametrize(
    ("body", "headers", "reason"),
    [
        (b"{not json", {}, "not JSON"),
        (b"[1, 2]", {}, "not a JSON object"),
        (encode({"action": "opened"}), {}, "without a pull_request"),
        (encode(pr_payload("opened", 2, "not-a-sha")), {}, "head.sha"),
        (encode(pr_payload("opened", -4, sha(1))), {}, "number"),
        (encode(pr_payload("opened\nFAKE LOG LINE", 2, sha(1))), {}, "without an action"),
        (b"\xff\xfe", {}, "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, {}, "not JSON"),
        (encode({"a": 1}), {"X-GitHub-Delivery": ""}, "X-GitHub-Delivery"),
        (encode({"a": 1}), {"X-GitHub-Event": "../../etc"}, "X-GitHub-Event"),
    ],
)
def test_signed_but_malformed_is_recorded_as_failed_not_5xx(
    make_bot: Callable[..., Bot], body: bytes, headers: dict[str, str], reason: str
) -> None:
    bot = make_bot()
    for _ in range(2):  # a redelivery gets the same answer, never a 5xx loop
        h = signed_headers(body, "pull_request", "d-bad")
        h.update(headers)
        r = bot.client.post(bot.server.url + "/webhook", content=body, headers=h)
        assert r.status_code == 400, r.text
        assert reason in r.json().get("reason", reason)
    rows = [bot.queue.delivery("d-bad")] if headers == {} else []
    assert all(row is not None and row["outcome"] == "malformed" for row in rows)
    assert bot.queue.jobs() == []
    assert bot.get("/healthz").status_code == 200


def test_form_encoded_payloads_are_accepted(make_bot: Callable[..., Bot]) -> None:
    from urllib.parse import urlencode

    bot = make_bot(workers=False)
    body = urlencode({"payload": encode(pr_payload("opened", 2, sha(1))).decode()}).encode()
    h = signed_headers(body)
    h["Content-Type"] = "application/x-www-form-urlencoded"
    r = httpx.post(bot.server.url + "/webhook", content=body, headers=h)
    assert r.status_code == 202 and r.json()["outcome"] == "queued"


# ----------------------------------------------------------------------------- reviews


def test_opened_pr_is_reviewed_once(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot()
    bot.github.open_pull(2, sha(1))
    r = bot.post(pr_payload("opened", 2, sha(1)), delivery="d1")
    assert r.status_code == 202 and r.json() == {"delivery": "d1", "outcome": "queued", "job": 1}
    wait_for(lambda: bot.queue.stats().jobs["done"] == 1)
    assert bot.github.reviewed_heads(2) == [sha(1)]
    assert bot.reviewer.expected_heads() == [sha(1)]


def test_same_delivery_100_times_concurrently_gives_one_review(
    make_bot: Callable[..., Bot],
) -> None:
    bot = make_bot()
    bot.github.open_pull(2, sha(1))
    body = encode(pr_payload("opened", 2, sha(1)))
    headers = signed_headers(body, delivery="d-once")

    async def burst() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            return await asyncio.gather(
                *(
                    client.post(bot.server.url + "/webhook", content=body, headers=headers)
                    for _ in range(100)
                )
            )

    responses = asyncio.run(burst())
    assert {r.status_code for r in responses} == {202}
    outcomes = sorted(r.json()["outcome"] for r in responses)
    assert outcomes == ["duplicate"] * 99 + ["queued"]
    wait_for(lambda: bot.queue.stats().jobs["done"] == 1)
    assert len(bot.queue.jobs()) == 1
    assert len(bot.reviewer.runs) == 1
    assert bot.github.reviewed_heads(2) == [sha(1)]
    row = bot.queue.delivery("d-once")
    assert row is not None and row["redeliveries"] == 99


@pytest.mark.parametrize("strict_head", [False, True], ids=["reviews-current", "skips-moved"])
def test_synchronize_burst_out_of_order_reviews_the_newest_head(
    make_bot: Callable[..., Bot], strict_head: bool
) -> None:
    gate = threading.Event()
    reviewer = IdempotentReviewer(block=gate, strict_head=strict_head)
    bot = make_bot(reviewer=reviewer, workers=True)
    bot.github.open_pull(2, sha(1))
    # The first push is being reviewed (the reviewer holds), while five more pushes land
    # and their deliveries arrive out of order.
    assert (
        bot.post(pr_payload("opened", 2, sha(1), updated_at="2026-08-01T10:00:00Z")).json()[
            "outcome"
        ]
        == "queued"
    )
    wait_for(bot.reviewer.started.is_set)
    bot.github.open_pull(2, sha(6))  # the PR's current head is now the newest push
    for n in (4, 6, 2, 5, 3):
        r = bot.post(pr_payload("synchronize", 2, sha(n), updated_at=f"2026-08-01T10:00:0{n}Z"))
        assert r.status_code == 202
    states = sorted((j["state"], j["head_sha"]) for j in bot.queue.jobs())
    assert states == [("queued", sha(6)), ("running", sha(1))]  # collapsed to the newest
    gate.set()
    wait_for(lambda: bot.queue.stats().jobs["done"] == 2)
    assert bot.reviewer.expected_heads() == [sha(1), sha(6)]
    # the pipeline either reviewed the then-current head or skipped the moved one;
    # either way the last review is of the newest head, and no head twice
    heads = bot.github.reviewed_heads(2)
    assert heads[-1] == sha(6) and len(heads) == len(set(heads))
    assert heads == ([sha(6)] if strict_head else [sha(1), sha(6)])
    # A straggler for an old head, delivered after the newest head was reviewed: nothing to do.
    r = bot.post(pr_payload("synchronize", 2, sha(3), updated_at="2026-08-01T10:00:03Z"))
    assert r.json()["outcome"] == "superseded"
    assert len(bot.queue.jobs()) == 2


def test_newest_head_arrives_first(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot(workers=False)
    for n in (9, 3, 7, 1):
        bot.post(pr_payload("synchronize", 2, sha(n), updated_at=f"2026-08-01T10:00:0{n}Z"))
    (job,) = bot.queue.jobs()
    assert job["head_sha"] == sha(9) and job["deliveries"] == 4


def test_transient_failure_is_retried_and_permanent_one_dead_letters(
    make_bot: Callable[..., Bot],
) -> None:
    bot = make_bot(reviewer=IdempotentReviewer(fail_before_status=2), max_attempts=3)
    bot.github.open_pull(2, sha(1))
    bot.post(pr_payload("opened", 2, sha(1)))
    wait_for(lambda: bot.queue.stats().jobs["done"] == 1)
    assert bot.github.reviewed_heads(2) == [sha(1)] and len(bot.github.statuses) == 1
    bot.post(pr_payload("opened", 404, sha(1)), delivery="d-missing")  # no such PR: 404
    wait_for(lambda: bot.queue.stats().jobs["dead"] == 1)
    text = bot.get("/metrics").text
    assert 'bot_queue_jobs{state="dead"} 1' in text
    assert 'bot_jobs_total{result="retry"} 2' in text
    assert 'bot_github_errors_total{method="pull",status="404"} 1' in text
    # GitHub's "Redeliver" button revives a dead letter.
    bot.github.open_pull(404, sha(1))
    r = bot.post(pr_payload("opened", 404, sha(1)), delivery="d-missing")
    assert r.json()["outcome"] == "requeued"
    wait_for(lambda: bot.queue.stats().jobs["done"] == 2)


def test_reviewer_exceptions_never_kill_the_workers(make_bot: Callable[..., Bot]) -> None:
    reviewer = IdempotentReviewer(error=GitHubError("boom", 422))
    bot = make_bot(reviewer=reviewer)
    bot.github.open_pull(2, sha(1))
    bot.post(pr_payload("opened", 2, sha(1)))
    wait_for(lambda: bot.queue.stats().jobs["dead"] == 1)
    assert bot.get("/readyz").json()["workers"] == "2/2"


# ----------------------------------------------------------------------------- health, metrics


def test_health_readiness_and_metrics(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot()
    bot.github.open_pull(2, sha(1))
    assert bot.get("/healthz").json() == {"status": "ok"}
    ready = bot.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "backend": "sqlite",
        "database": "ok",
        "credentials": "token",
        "workers": "2/2",
    }
    bot.post(pr_payload("opened", 2, sha(1)))
    bot.post({"zen": "z"}, "ping")
    bot.client.post(bot.server.url + "/webhook", content=b"{}", headers={"X-GitHub-Event": "ping"})
    wait_for(lambda: bot.queue.stats().jobs["done"] == 1)
    r = bot.get("/metrics")
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = r.text
    for line in (
        'bot_webhook_deliveries_total{event="pull_request",outcome="queued"} 1',
        'bot_webhook_deliveries_total{event="ping",outcome="ping"} 1',
        'bot_webhook_deliveries_total{event="unverified",outcome="unauthorized"} 1',
        'bot_queue_jobs{state="queued"} 0',
        'bot_queue_jobs{state="done"} 1',
        'bot_queue_jobs{state="dead"} 0',
        'bot_jobs_total{result="done"} 1',
        "bot_review_latency_seconds_count 1",
        'bot_github_calls_total{method="pull"} 1',
        "bot_webhook_ack_seconds_count 3",
        "bot_workers_alive 2",
    ):
        assert line in text, line
    for name in (
        "bot_webhook_ack_seconds_bucket",
        "bot_queue_oldest_due_seconds",
        "bot_review_attempt_seconds_bucket",
        "bot_github_errors_total",
    ):
        assert name in text


def test_readyz_fails_when_the_database_is_gone(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot(workers=False)
    bot.queue.close()
    r = bot.get("/readyz")
    assert r.status_code == 503 and r.json()["database"].startswith("unreachable")
    r = bot.post(pr_payload("opened", 2, sha(1)))
    assert r.status_code == 503  # not persisted: never acknowledged
    assert bot.get("/healthz").status_code == 200


def test_readyz_fails_without_credentials(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot(workers=False, github_token=None)
    r = bot.get("/readyz")
    assert r.status_code == 503 and r.json()["credentials"] == "missing"


# ----------------------------------------------------------------------------- recorded payloads


@pytest.mark.skipif(not SHARED_WEBHOOKS.is_dir(), reason="../shared/webhooks absent")
def test_recorded_payloads_are_classified() -> None:
    seen: dict[str, set[str]] = {}
    for payload in shared_payloads("pull_request"):
        decision = classify("pull_request", payload)
        seen.setdefault(decision.kind, set()).add(payload["action"])
        if decision.kind == "review":
            assert decision.pull is not None
            assert decision.pull.repo == REPO and decision.pull.number == 2
            assert decision.pull.updated_at is not None
    assert seen["review"] == {"opened", "reopened", "synchronize", "ready_for_review"}
    assert "malformed" not in seen
    assert "converted_to_draft" in seen["ignore"] and "closed" in seen["ignore"]
    for event in ("ping", "push", "issue_comment", "installation", "check_run", "status"):
        for payload in shared_payloads(event):
            assert classify(event, payload).kind == ("ping" if event == "ping" else "ignore")


@pytest.mark.skipif(not SHARED_WEBHOOKS.is_dir(), reason="../shared/webhooks absent")
def test_recorded_payloads_over_http(make_bot: Callable[..., Bot]) -> None:
    bot = make_bot(workers=False)
    answers = []
    for event in ("ping", "pull_request", "push", "installation"):
        for payload in shared_payloads(event):
            r = bot.post(payload, event)
            assert r.status_code in (200, 202), r.text
            answers.append(r.json()["outcome"])
    assert answers.count("queued") == 1  # every reviewable delivery is of the same PR head
    assert {str(j["head_sha"])[:8] for j in bot.queue.jobs()} == {"ec26c3e5"}
