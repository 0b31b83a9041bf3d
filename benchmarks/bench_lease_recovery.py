"""Benchmark: how long a SIGKILLed replica's running review waits before another replica
runs it, with the service's default lease (`BOT_LEASE_SECONDS`, a heartbeat timeout).

Two real `bot serve` processes share one queue (the SQLite file, then PostgreSQL). Replica
A takes a review and, while GitHub answers it slowly (the fake GitHub stalls one request),
is SIGKILLed. Replica B, already running, takes the job over once A's lease lapses. It
prints, per backend: the lease, the time from the kill to B's first GitHub request for the
PR, the time to the review's status, and what was written (one review, one status: 0
duplicates). Exit 1 when the takeover is later than 60 s or anything is written twice.

    python benchmarks/bench_lease_recovery.py                   # both backends
    python benchmarks/bench_lease_recovery.py --backend sqlite
    python benchmarks/bench_lease_recovery.py --dsn postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import httpx  # noqa: E402
from bench_replicas import SECRET, TOKEN, Replica  # noqa: E402

from bot.server.settings import load_settings  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402
from tests.test_e2e_review import REPO, base_files, example_files  # noqa: E402
from tests.webhook_fakes import encode, signed_headers  # noqa: E402

BUDGET = 60.0


# BOT_LEASE_SECONDS and BOT_POLL_SECONDS: the defaults
SETTINGS = {"BOT_WORKERS": "1", "BOT_WRITE_INTERVAL": "0"}


def wait(predicate: Any, timeout: float) -> float | None:
    """Seconds until `predicate()` held, None when it did not within `timeout`."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.02)
    return None


def run(backend: str, db: str, work: Path) -> tuple[bool, str]:
    lease = load_settings({"BOT_WEBHOOK_SECRET": "s", "GITHUB_TOKEN": "t"}).lease_seconds
    fake = FakeGitHub().start()
    assert fake._server is not None  # the killed replica resets its connection: expected
    fake._server.handle_error = lambda request, address: None  # type: ignore[method-assign]
    a = Replica("a", db, fake.url, work, SETTINGS)
    b = Replica("b", db, fake.url, work, SETTINGS)
    try:
        fake.add_token(TOKEN, "recipe-bot")
        fake.create_repo(REPO, base_files(example_files()))
        pull = fake.create_pull(REPO, head=example_files(), number=1)
        files = r"/pulls/1/files$"
        fake.stall_next("GET", files, seconds=lease * 4)  # A's review hangs on GitHub here
        a.start()
        raw = encode(
            {
                "action": "opened",
                "number": 1,
                "pull_request": {
                    "number": 1,
                    "state": "open",
                    "updated_at": "2026-11-30T10:00:00Z",
                    "head": {"sha": pull.head_sha},
                    "base": {"repo": {"full_name": REPO}},
                },
                "repository": {"full_name": REPO},
                "installation": {"id": 1},
            }
        )
        headers = signed_headers(raw, delivery=f"lease-{backend}", secret=SECRET)
        assert httpx.post(a.url + "/webhook", content=raw, headers=headers).status_code == 202
        if wait(lambda: len(fake.calls("GET", files)) == 1, 30) is None:
            return False, f"{backend}: replica A never started the review"
        b.start()
        before = len(fake.calls("GET", r"/pulls/1$"))
        killed = time.monotonic()
        a.kill()
        took = wait(lambda: len(fake.calls("GET", r"/pulls/1$")) > before, BUDGET * 2)
        done = wait(lambda: bool(fake.repo(REPO).statuses.get(pull.head_sha)), BUDGET * 2)
        status_after = time.monotonic() - killed if done is not None else None
        time.sleep(1.0)
        repo = fake.repo(REPO)
        reviews = len(repo.reviews.get(1, []))
        statuses = len(repo.statuses.get(pull.head_sha, []))
        summaries = len(repo.issue_comments.get(1, []))
        line = (
            f"{backend}: lease {lease:g} s; SIGKILL -> replica B's first GitHub call for the PR "
            f"{'never' if took is None else f'{took:.1f} s'}, -> the review's status "
            f"{'never' if status_after is None else f'{status_after:.1f} s'}; written: "
            f"{reviews} review, {summaries} summary, {statuses} status"
        )
        violations = len(fake.contract_violations)  # GitHub's REST contract, as in the tests
        line += f"; contract violations {violations}"
        ok = (
            took is not None
            and took <= BUDGET
            and (reviews, summaries, statuses) == (1, 1, 1)
            and not fake.crashes
            and not violations
        )
        return ok, line
    finally:
        a.stop()
        b.stop()
        fake.stop()


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--dsn", help="admin DSN of a running PostgreSQL (default: start one)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-lease-"))
    results: list[tuple[bool, str]] = []
    server = None
    try:
        if args.backend in ("sqlite", "both"):
            results.append(run("sqlite", str(work / "queue.sqlite3"), work))
        if args.backend in ("postgresql", "both"):
            import psycopg

            from bot.server import pgqueue

            admin = args.dsn
            if admin is None:
                import pgserver

                reason = pgserver.unavailable_reason()
                if reason:
                    raise SystemExit(f"no PostgreSQL: {reason}")
                server = pgserver.PgServer()
                server.start()
                admin = server.dsn
            name = f"bench_lease_{os.getpid()}"
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
            dsn = f"{admin.rpartition('/')[0]}/{name}"
            pgqueue.migrate(dsn)
            try:
                results.append(run("postgresql", dsn, work))
            finally:
                with psycopg.connect(admin, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if server is not None:
            server.cleanup()
    for _, line in results:
        print(line)
    if all(ok for ok, _ in results):
        print(f"all checks passed (takeover within {BUDGET:g} s, nothing written twice)")
        return 0
    print("FAILED")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
