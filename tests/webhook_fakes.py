"""Shared pieces of the webhook and queue tests (not a test module).

- `MemoryGitHub`: an in-memory `Gateway` (pull requests, reviews, comments, statuses).
- `IdempotentReviewer`: stands in for `bot.review.pipeline.review_pull_request` with
  its contract: it reviews the PR's *current* head, re-reads what the bot posted and
  never posts twice for one head; it can be told to fail or block mid-review.
- `LiveServer`: the real app under uvicorn in a thread on 127.0.0.1 (a free port).
- `pr_payload` / `signed_headers`: deliveries shaped like ../shared/webhooks/.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

from bot.github.calls import OPTIONAL, FallbackGateway, empty_answer, is_write
from bot.github.types import (
    Comment,
    GitHubError,
    Posted,
    PullFile,
    PullInfo,
    ReviewComment,
    Status,
)
from bot.server.webhook import sign

SECRET = b"it's a secret to everybody"
PREVIOUS = b"the old secret, during rotation"
REPO = "Codertocat/Hello-World"
BOT = "recipe-review[bot]"


def service_env(
    api_url: str, db: object, *, secret: bytes, login: str | None = None, **extra: str
) -> dict[str, str]:
    """The environment of a `bot serve` under test: the fake GitHub at `api_url`, its
    token `e2e-token`, a SQLite queue at `db`, no write pacing and a fast poll."""
    env = {
        "BOT_WEBHOOK_SECRET": secret.decode(),
        "GITHUB_API_URL": api_url,
        "GITHUB_TOKEN": "e2e-token",
        "BOT_DB": str(db),
        "BOT_WRITE_INTERVAL": "0",
        "BOT_POLL_SECONDS": "0.05",
    }
    if login is not None:
        env["BOT_LOGIN"] = login
    return {**env, **extra}


SHARED_WEBHOOKS = Path(__file__).resolve().parents[1].parent / "shared" / "webhooks"


def sha(n: int) -> str:
    return f"{n:040x}"


@dataclass
class MemoryGitHub(FallbackGateway):
    """An in-memory GitHub behind the `Gateway` protocol. Thread-safe.

    Gateway methods it does not define come from the method table (`fallback`): a read
    answers "nothing there" (`bot.github.calls.empty_answer`), a write is recorded in
    `other_writes` as (method, args). So a new gateway method needs no code here."""

    pulls: dict[tuple[str, int], PullInfo] = field(default_factory=dict)
    reviews_posted: list[tuple[str, int, str, str]] = field(default_factory=list)
    comments: list[tuple[str, int, str]] = field(default_factory=list)
    statuses: list[tuple[str, str, Status]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    other_writes: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fallback(self, name: str) -> Callable[..., Any] | None:
        if name in OPTIONAL:
            return None  # the fake does not have it: callers do without
        if not is_write(name):
            return lambda *args, **kwargs: empty_answer(name)

        def write(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                self.other_writes.append((name, (*args, *kwargs.values())))
                return len(self.other_writes)

        return write

    def open_pull(self, number: int, head: str, *, repo: str = REPO, draft: bool = False) -> None:
        with self.lock:
            self.pulls[(repo, number)] = PullInfo(
                repo=repo,
                number=number,
                head_sha=head,
                base_sha=sha(0xBA5E),
                base_ref="main",
                head_ref=f"topic-{number}",
                author="Codertocat",
                draft=draft,
            )

    def _log(self, name: str) -> None:
        with self.lock:
            self.calls.append(name)

    def login(self) -> str:
        self._log("login")
        return BOT

    def pull(self, repo: str, number: int) -> PullInfo:
        self._log("pull")
        with self.lock:
            info = self.pulls.get((repo, number))
        if info is None:
            raise GitHubError("Not Found", 404)
        return info

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        self._log("pull_files")
        return []

    def merge_base(self, repo: str, base: str, head: str) -> str:
        return base

    def issue_comments(self, repo: str, number: int) -> list[Comment]:
        with self.lock:
            return [
                Comment(id=i, body=body, author=BOT)
                for i, (r, n, body) in enumerate(self.comments, 1)
                if (r, n) == (repo, number)
            ]

    def reviews(self, repo: str, number: int) -> list[Comment]:
        self._log("reviews")
        with self.lock:
            return [
                Comment(id=i, body=body, author=BOT, kind="review_summary")
                for i, (r, n, _sha, body) in enumerate(self.reviews_posted, 1)
                if (r, n) == (repo, number)
            ]

    def create_review(
        self, repo: str, number: int, commit_sha: str, body: str, comments: Sequence[ReviewComment]
    ) -> int:
        self._log("create_review")
        with self.lock:
            self.reviews_posted.append((repo, number, commit_sha, body))
            return len(self.reviews_posted)

    def create_issue_comment(self, repo: str, number: int, body: str) -> int:
        with self.lock:
            self.comments.append((repo, number, body))
            return len(self.comments)

    def set_status(self, repo: str, sha: str, status: Status) -> None:
        self._log("set_status")
        with self.lock:
            self.statuses.append((repo, sha, status))

    def reviewed_heads(self, number: int, repo: str = REPO) -> list[str]:
        with self.lock:
            return [s for r, n, s, _ in self.reviews_posted if (r, n) == (repo, number)]


class IdempotentReviewer:
    """The pipeline's contract in miniature (see the module docstring).

    `fail_before_status`: number of runs that post the review, then raise a transient
    error before setting the status (a crash halfway through the writes).
    `block`: an Event the reviewer waits on after posting its review (a slow job).
    `strict_head`: behave like `bot.review.pipeline`: skip when the PR's head is not
    `expected_head`, and wait on `block` *before* writing, then skip if the head moved.
    """

    def __init__(
        self,
        *,
        fail_before_status: int = 0,
        error: GitHubError | None = None,
        block: threading.Event | None = None,
        delay: float = 0.0,
        strict_head: bool = False,
    ) -> None:
        self.strict_head = strict_head
        self.fail_before_status = fail_before_status
        self.error = error
        self.block = block
        self.delay = delay
        self.runs: list[tuple[str, int, str | None, str]] = []  # repo, number, expected, reviewed
        self.started = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, gateway: Any, repo: str, number: int, expected_head: str | None) -> Posted:
        info = gateway.pull(repo, number)
        with self.lock:
            self.runs.append((repo, number, expected_head, info.head_sha))
        self.started.set()
        if self.delay:
            time.sleep(self.delay)
        if self.error is not None:
            raise self.error
        if info.draft:
            return Posted(skipped=["draft pull request"])
        if self.strict_head:
            if expected_head is not None and info.head_sha != expected_head:
                return Posted(skipped=["head moved; a newer review covers it"])
            if self.block is not None:
                self.block.wait(10)
            if gateway.pull(repo, number).head_sha != info.head_sha:
                return Posted(skipped=["head moved during review"])
        marker = f"<!-- recipe-review head={info.head_sha} -->"
        existing = [c for c in gateway.reviews(repo, number) if marker in c.body]
        review_id = existing[0].id if existing else None
        if review_id is None:
            review_id = gateway.create_review(repo, number, info.head_sha, f"review {marker}", [])
        if self.block is not None and not self.strict_head:
            self.block.wait(10)
        with self.lock:
            crash = self.fail_before_status > 0
            if crash:
                self.fail_before_status -= 1
        if crash:
            raise GitHubError("Bad Gateway", 502)
        status = Status("success", "recipe-review", "no findings")
        gateway.set_status(repo, info.head_sha, status)
        return Posted(review_id=review_id, status=status)

    def expected_heads(self) -> list[str | None]:
        with self.lock:
            return [expected for _, _, expected, _ in self.runs]


def pr_payload(
    action: str,
    number: int,
    head: str,
    *,
    updated_at: str = "2026-08-01T10:00:00Z",
    draft: bool = False,
    sender: str = "Codertocat",
    sender_type: str = "User",
    installation: int | None = 1,
    repo: str = REPO,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "state": "open",
            "draft": draft,
            "updated_at": updated_at,
            "head": {"sha": head, "ref": f"topic-{number}"},
            "base": {"sha": sha(0xBA5E), "ref": "main", "repo": {"full_name": repo}},
        },
        "repository": {"full_name": repo},
        "sender": {"login": sender, "type": sender_type},
    }
    if installation is not None:
        payload["installation"] = {"id": installation}
    return payload


def shared_payloads(event: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(
        (SHARED_WEBHOOKS / f"{event}.json").read_text(encoding="utf-8")
    )
    return data


def encode(payload: Any) -> bytes:
    return json.dumps(payload).encode("utf-8")


def signed_headers(
    body: bytes,
    event: str = "pull_request",
    delivery: str | None = None,
    *,
    secret: bytes = SECRET,
    signature: str | None = None,
) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": signature if signature is not None else sign(secret, body),
    }


class LiveServer:
    """`app` served by uvicorn in a thread on 127.0.0.1; lifespan (workers) included.
    With `settings`, under `bot.server.app.uvicorn_config` (what `bot serve` runs)."""

    def __init__(self, app: Any, settings: Any = None) -> None:
        # proto=IPPROTO_TCP, or asyncio skips TCP_NODELAY on accepted sockets (40 ms
        # delayed-ACK stalls); uvicorn binding host:port itself gets this right.
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        if settings is not None:  # exactly what `bot serve` runs (deadlines, keep-alive)
            from bot.server.app import uvicorn_config

            config = uvicorn_config(app, settings, log_level="warning", access_log=False)
        else:
            config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.sock.close()


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, interval: float = 0.01) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval)
