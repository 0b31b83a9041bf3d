"""The reliability battery of `bot serve`, the expensive half (the cheap half runs in CI:
tests/test_reliability.py). Prints one figure per part and exits 1 if any bar is missed.

Parts (all against real components: `bot serve` as a child process or the app under
uvicorn as `bot serve` configures it, a real SQLite file, PyGithub against the fake
GitHub on loopback):

  signatures   >= 2,000 wrong signatures (mutated header or body): all 401, none stored
  malformed    >= 5,000 signed malformed payloads: Hypothesis over the octokit schema
               (../shared/webhooks; skipped when absent) plus raw garbage: 0 5xx, each on record
  slow         body caps (413) and 100 slow clients (silent, half headers, stalled and
               trickling bodies) while valid deliveries are acked: time to drop, ack p99
  once         one delivery 100 times concurrently: one job, 99 duplicates
  kill         >= 30 SIGKILLs of `bot serve` during reviews, restarted on one database,
               DEBUG logging with canary credentials: 0 lost, 0 duplicates, no canary leaked
  chaos        20 % of GitHub writes answered 502 after being applied, >= 100 reviews
  ratelimit    secondary (403 + Retry-After) and primary (X-RateLimit-Remaining: 0) windows
  ack          ack p50/p99 at 20 deliveries in flight while reviews run (child process)

    python benchmarks/bench_reliability.py            # everything (a few minutes)
    python benchmarks/bench_reliability.py kill chaos # some parts
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import httpx  # noqa: E402
from bench_webhook import drive, free_port, http_request, pct  # noqa: E402
from hypothesis import HealthCheck, given  # noqa: E402
from hypothesis import settings as hsettings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bot.server.app import create_app  # noqa: E402
from bot.server.settings import load_settings  # noqa: E402
from bot.server.webhook import sign  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402
from tests.hostile import (  # noqa: E402
    EVENT_DEFS,
    body_mutations,
    garbage,
    load_schema,
    schema_payloads,
    signature_mutations,
)
from tests.review_rig import audit, delivery, open_pulls, push  # noqa: E402
from tests.webhook_fakes import LiveServer, encode, pr_payload, sha  # noqa: E402

SECRET = "bench-reliability-" + "webhook-secret-7c1d"
TOKEN = "ghs_" + "BenchCanary0123456789abcdefABCDEFgh"
FAILED: list[str] = []


def bar(ok: bool, what: str) -> None:
    print(f"    {'ok ' if ok else 'MISSED'} {what}")
    if not ok:
        FAILED.append(what)


def headers(body: bytes, event: str, delivery_id: str, signature: str | None = None) -> dict:
    return {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery_id,
        "X-Hub-Signature-256": signature or sign(SECRET.encode(), body),
    }


CREDENTIALS = {"app": True}  # `--token`: act as a token (no check runs), as before


def audited(fake: FakeGitHub, numbers: Any) -> Any:
    """`audit` as the bot the service acts as: the App (its check runs counted too: one
    per head, none left in progress) or the token's account."""
    if CREDENTIALS["app"]:
        return audit(fake, numbers, bot=fake.bot_login, check_runs=True)
    return audit(fake, numbers)


def env_for(fake: FakeGitHub, db: str, **extra: str) -> dict[str, str]:
    """The service's environment: the fake's GitHub App (the review writes its check run
    too), or with `--token` the canary token."""
    if CREDENTIALS["app"]:
        who = {
            "GITHUB_APP_ID": str(fake.app_id),
            "GITHUB_APP_PRIVATE_KEY": fake.app_private_key_pem,
            "GITHUB_APP_SLUG": fake.app_slug,
        }
    else:
        who = {"GITHUB_TOKEN": TOKEN}
    return {
        "BOT_WEBHOOK_SECRET": SECRET,
        "GITHUB_API_URL": fake.url,
        **who,
        "BOT_DB": db,
        "BOT_WRITE_INTERVAL": "0",
        "BOT_POLL_SECONDS": "0.05",
        "BOT_RETRY_BASE_SECONDS": "0",
        "BOT_MAX_ATTEMPTS": "50",
        **extra,
    }


class InProcess:
    """The app under uvicorn as `bot serve` configures it, in this process."""

    def __init__(self, env: dict[str, str], workers: bool = True) -> None:
        self.settings = load_settings(env)
        self.app = create_app(self.settings, start_workers=workers)
        self.service = self.app.state.service
        self.server = LiveServer(self.app, self.settings)

    def __enter__(self) -> InProcess:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    def drained(self, jobs: int) -> bool:
        stats = self.service.queue.stats().jobs
        return stats["done"] + stats["superseded"] + stats["dead"] >= jobs and not (
            stats["queued"] or stats["running"]
        )


def wait(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.02)


# ----------------------------------------------------------------------------- parts


def part_signatures(fake: FakeGitHub, tmp: Path) -> None:
    print("signatures: mutated X-Hub-Signature-256 values and bodies, over HTTP")
    body = encode(pr_payload("opened", 9, sha(9)))
    others = (b"x", SECRET.upper().encode(), SECRET[:-1].encode())
    sigs = list(signature_mutations(SECRET.encode(), body, others))
    bodies = list(body_mutations(body, 2400 - len(sigs)))
    with InProcess(env_for(fake, str(tmp / "sig.sqlite3")), workers=False) as srv:
        port = srv.server.port
        good = sign(SECRET.encode(), body)
        requests = [
            http_request(port, headers(body, "pull_request", f"s{n}", s or " "), body)
            for n, s in enumerate(sigs)
        ] + [
            http_request(port, headers(b, "pull_request", f"b{n}", good), b)
            for n, b in enumerate(bodies)
        ]
        _, answers, _ = asyncio.run(drive(port, requests, 20, "steady", 0))
        stored = srv.service.queue.stats().deliveries
    total = len(sigs) + len(bodies)
    print(f"    {len(sigs)} header mutations + {len(bodies)} body mutations: answers {answers}")
    bar(total >= 2000 and answers == {401: total}, f"{total} forgeries, all 401")
    bar(stored == 0, f"{stored} stored")


def part_malformed(fake: FakeGitHub, tmp: Path, schema_n: int, garbage_n: int) -> None:
    schema = load_schema()
    print("malformed: signed hostile payloads over HTTP (Hypothesis)")
    answers: dict[int, int] = {}
    unrecorded = 0
    counter = iter(range(10**9))
    with InProcess(env_for(fake, str(tmp / "bad.sqlite3")), workers=False) as srv:
        client = httpx.Client(timeout=10)
        url = srv.server.url + "/webhook"
        queue = srv.service.queue

        def send(event: str, body: bytes) -> None:
            nonlocal unrecorded
            d = f"h-{next(counter)}"
            r = client.post(url, content=body, headers=headers(body, event, d))
            answers[r.status_code] = answers.get(r.status_code, 0) + 1
            recorded = r.status_code < 500 and queue.delivery(r.json().get("delivery", d))
            unrecorded += 0 if recorded else 1

        common = {
            "deadline": None,
            "database": None,
            "suppress_health_check": list(HealthCheck),
        }
        n_schema = 0
        if schema is None:
            print("    ../shared/webhooks absent: the schema part is skipped")
        else:

            @hsettings(max_examples=schema_n, **common)
            @given(schema_payloads(schema, EVENT_DEFS))
            def from_schema(pair: tuple[str, Any]) -> None:
                send(pair[0], encode(pair[1]))

            from_schema()
            n_schema = sum(answers.values())

        events = st.sampled_from(["pull_request", "issue_comment", "ping", "push", "zz"])

        @hsettings(max_examples=garbage_n, **common)
        @given(garbage(), events)
        def raw(body: bytes, event: str) -> None:
            send(event, body)

        raw()
        client.close()
    total = sum(answers.values())
    fivexx = sum(v for k, v in answers.items() if k >= 500)
    print(f"    {n_schema} schema-shaped + {total - n_schema} garbage: answers {answers}")
    bar(total >= 5000 or schema is None, f"{total} signed malformed payloads")
    bar(fivexx == 0, f"{fivexx} answered 5xx")
    bar(unrecorded == 0, f"{unrecorded} not on record")


def _slow_client(port: int, kind: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port))
    head = http_request(port, headers(b"x" * 5000, "ping", "slow"), b"")
    head = head.replace(b"Content-Length: 0", b"Content-Length: 5000")
    if kind == 1:
        s.sendall(head[:40])
    elif kind >= 2:
        s.sendall(head + b"{")
    return s


def part_slow(fake: FakeGitHub, tmp: Path) -> None:
    print("slow: body caps and 100 slow clients while deliveries are acked")
    env = env_for(fake, str(tmp / "slow.sqlite3"), BOT_MAX_BODY_BYTES=str(1 << 20))
    with InProcess(env, workers=False) as srv:
        port = srv.server.port
        big = b"{" + b" " * (2 << 20) + b"}"
        with httpx.Client(timeout=30) as c:
            caps = [
                c.post(
                    srv.server.url + "/webhook", content=big, headers=headers(big, "ping", "c1")
                ),
                c.post(
                    srv.server.url + "/webhook",
                    content=iter([b" " * 65536] * 40),
                    headers=headers(b"", "ping", "c2"),
                ),
            ]
        bar([r.status_code for r in caps] == [413, 413], "2 MiB declared and streamed: 413")
        requests = [
            http_request(port, headers(b, "ping", f"ok-{n}"), b)
            for n in range(600)
            for b in [encode({"zen": f"z{n}", "hook_id": n})]
        ]
        quiet, _, _ = asyncio.run(drive(port, requests[:300], 20, "steady", 0))
        started = time.monotonic()
        slow = [_slow_client(port, k % 4) for k in range(100)]
        trickle_stop = threading.Event()

        def trickle() -> None:
            while not trickle_stop.wait(0.2):
                for s in slow[3::4]:
                    with contextlib.suppress(OSError):
                        s.send(b" ")

        t = threading.Thread(target=trickle, daemon=True)
        t.start()
        loaded, statuses, _ = asyncio.run(drive(port, requests[300:], 20, "steady", 0))
        dropped = []
        for s in slow:
            s.settimeout(15)
            try:
                while s.recv(4096):
                    pass
            except (TimeoutError, ConnectionResetError):
                pass
            dropped.append(time.monotonic() - started)
            s.close()
        trickle_stop.set()
    print(
        f"    ack p50/p99 {pct(quiet, 0.5) * 1e3:.1f}/{pct(quiet, 0.99) * 1e3:.1f} ms alone, "
        f"{pct(loaded, 0.5) * 1e3:.1f}/{pct(loaded, 0.99) * 1e3:.1f} ms with 100 slow clients open"
    )
    print(f"    all 100 slow clients dropped {max(dropped):.1f} s after connecting (at most)")
    bar(max(dropped) <= 10.0, "slow clients dropped within 10 s")
    bar(statuses == {200: 300}, f"valid deliveries answered {statuses}")
    bar(pct(loaded, 0.99) < 0.1, "ack p99 under 100 ms with 100 slow clients open")


def part_once(fake: FakeGitHub, tmp: Path) -> None:
    print("once: one delivery 100 times concurrently")
    open_pulls(fake, range(500, 501))
    with InProcess(env_for(fake, str(tmp / "once.sqlite3"))) as srv:
        body = delivery(fake, "opened", 500)
        h = headers(body, "pull_request", "same-delivery")

        async def burst() -> list[httpx.Response]:
            async with httpx.AsyncClient(limits=httpx.Limits(max_connections=100), timeout=30) as c:
                url = srv.server.url + "/webhook"
                return await asyncio.gather(
                    *(c.post(url, content=body, headers=h) for _ in range(100))
                )

        answers = asyncio.run(burst())
        wait(lambda: srv.drained(1), 30, "the review")
        jobs = len(srv.service.queue.jobs())
    outcomes: dict[str, int] = {}
    for r in answers:
        key = r.json().get("outcome", str(r.status_code))
        outcomes[key] = outcomes.get(key, 0) + 1
    result = audited(fake, range(500, 501))
    print(f"    outcomes {outcomes}; jobs {jobs}; {result.line()}")
    bar(outcomes == {"queued": 1, "duplicate": 99} and jobs == 1, "one job, 99 duplicates")
    bar(result.duplicates == 0 and not result.lost and result.reviews == 1, "one review")


SERVE = "from bot.cli import main; raise SystemExit(main(['serve']))"


def launch(env: dict[str, str], log: Any) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    child_env = {**os.environ, **env, "BOT_PORT": str(port), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE], env=child_env, stdout=log, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("bot serve did not start")


def db_jobs(db: str) -> dict[str, int]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return dict(con.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall())
    finally:
        con.close()


def send_all(
    url: str, pending: list[tuple[int, bytes, str]], acked: list[str]
) -> list[tuple[int, bytes, str]]:
    """POST each delivery; those answered 202 go to `acked`; the rest are returned (a
    killed server answers nothing: they are redelivered later, as GitHub's button does)."""
    left = []
    with httpx.Client(timeout=5) as c:
        for n, body, d in pending:
            try:
                r = c.post(url, content=body, headers=headers(body, "pull_request", d))
            except httpx.HTTPError:
                left.append((n, body, d))
                continue
            if r.status_code == 202:
                acked.append(d)
            else:
                left.append((n, body, d))
    return left


def part_kill(fake: FakeGitHub, tmp: Path, kills: int) -> None:
    print(f"kill: {kills} SIGKILLs of `bot serve` during reviews, one database, DEBUG logs")
    db = str(tmp / "kill.sqlite3")
    log_path = tmp / "kill.log"
    env = env_for(fake, db, BOT_LEASE_SECONDS="1", BOT_LOG_LEVEL="debug")
    numbers = range(1000, 1040)
    open_pulls(fake, numbers)
    rng = random.Random(12)
    unacked: list[tuple[int, bytes, str]] = []
    acked: list[str] = []
    mid_review = 0
    seq = 0
    touched: set[int] = set()
    echo = f"Bad credentials: {TOKEN} {SECRET}"
    with open(log_path, "ab") as log:
        for _k in range(kills):
            proc, port = launch(env, log)
            fake.fail_next("POST", r"/statuses/", 502, after_effect=True, message=echo)
            url = f"http://127.0.0.1:{port}/webhook"
            pending, unacked = unacked, []
            for n in rng.sample(list(numbers), 6):
                touched.add(n)
                seq += 1
                push(fake, n, seq)
                pending.append((n, delivery(fake, "synchronize", n), f"k{seq}"))
            unacked = send_all(url, pending, acked)
            time.sleep(rng.uniform(0.05, 0.6))
            running = db_jobs(db).get("running", 0)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            mid_review += 1 if running else 0
        proc, port = launch(env, log)  # the last restart drains the queue
        unacked = send_all(f"http://127.0.0.1:{port}/webhook", unacked, acked)
        wait(
            lambda: not (db_jobs(db).get("queued", 0) or db_jobs(db).get("running", 0)),
            120,
            "the queue to drain",
        )
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    fake.failures.clear()
    con = sqlite3.connect(db)
    stored = {r[0] for r in con.execute("SELECT delivery_id FROM deliveries")}
    dead = con.execute("SELECT count(*) FROM jobs WHERE state = 'dead'").fetchone()[0]
    con.close()
    missing = [d for d in acked if d not in stored]
    result = audited(fake, sorted(touched))
    text = log_path.read_bytes()
    files = b"".join(p.read_bytes() for p in tmp.glob("kill.sqlite3*"))
    leaked = [c for c in (TOKEN, SECRET) if c.encode() in text or c.encode() in files]
    print(
        f"    {kills} kills ({mid_review} with a review running), {len(acked)} deliveries "
        f"acknowledged, {len(missing)} of them missing from the database, {dead} dead jobs, "
        f"{len(unacked)} never acknowledged"
    )
    print(f"    {result.line()}")
    print(f"    {len(text.splitlines())} DEBUG log lines; canaries found: {leaked or 'none'}")
    bar(kills >= 30 and not missing and not result.lost and not unacked, "0 lost")
    bar(result.duplicates == 0, "0 duplicate reviews, comments, statuses or check runs")
    bar(not leaked and b"Bad credentials" in text, "no credential in the logs or the database")


def part_chaos(fake: FakeGitHub, tmp: Path, reviews: int) -> None:
    print(f"chaos: 20 % of writes answered 502 after being applied, {reviews} reviews")
    numbers = range(2000, 2000 + reviews)
    open_pulls(fake, numbers)
    fake.chaos(0.2, seed=12)
    started = time.monotonic()
    try:
        with InProcess(env_for(fake, str(tmp / "chaos.sqlite3"))) as srv:
            with httpx.Client(timeout=10) as c:
                for n in numbers:
                    body = delivery(fake, "opened", n)
                    r = c.post(
                        srv.server.url + "/webhook",
                        content=body,
                        headers=headers(body, "pull_request", f"c{n}"),
                    )
                    assert r.status_code == 202, r.text
            wait(lambda: srv.drained(reviews), 600, "the reviews")
            dead = srv.service.queue.stats().jobs["dead"]
    finally:
        fake.chaos(0)
    result = audited(fake, numbers)
    print(
        f"    {fake.chaos_hits} writes answered 502 after being applied, {dead} dead jobs, "
        f"{time.monotonic() - started:.1f} s"
    )
    print(f"    {result.line()}")
    bar(result.reviews == reviews and not result.lost and not dead, "0 lost")
    bar(result.duplicates == 0, "0 duplicate reviews, comments, statuses or check runs")


def part_ratelimit(fake: FakeGitHub, tmp: Path) -> None:
    print("ratelimit: secondary and primary rate-limit windows during 30 reviews")
    numbers = range(3000, 3030)
    open_pulls(fake, numbers)
    started = time.monotonic()
    with InProcess(env_for(fake, str(tmp / "rate.sqlite3"))) as srv:
        with httpx.Client(timeout=10) as c:
            for i, n in enumerate(numbers):
                if i % 10 == 0:  # a window: the next writes are refused for 1 s
                    fake.rate_limit_next("POST", ".*", retry_after=1, times=3)
                if i % 10 == 5:
                    fake.rate_limit_next("GET", r"/pulls/\d+$", retry_after=1, secondary=False)
                body = delivery(fake, "opened", n)
                c.post(
                    srv.server.url + "/webhook",
                    content=body,
                    headers=headers(body, "pull_request", f"r{n}"),
                )
        wait(lambda: srv.drained(len(numbers)), 300, "the reviews")
        dead = srv.service.queue.stats().jobs["dead"]
    limited = sum(1 for r in fake.requests if r.status in (403, 429))
    result = audited(fake, numbers)
    print(f"    {limited} requests rate limited; {dead} dead; {time.monotonic() - started:.1f} s")
    print(f"    {result.line()}")
    bar(not result.lost and not dead and result.duplicates == 0, "0 lost, 0 duplicates")


def part_ack(fake: FakeGitHub, tmp: Path, count: int) -> None:
    print(f"ack: {count} deliveries, 20 in flight, while reviews run (bot serve, child process)")
    numbers = range(4000, 4040)
    open_pulls(fake, numbers)
    p99 = {}
    for split in (False, True):
        db = str(tmp / f"ack-{split}.sqlite3")
        with open(tmp / "ack.log", "ab") as log:
            procs = []
            if split:  # a second `bot serve` on the same file does the reviewing
                procs.append(launch(env_for(fake, db), log)[0])
                proc, port = launch(env_for(fake, db, BOT_WORKERS="0"), log)
            else:
                proc, port = launch(env_for(fake, db), log)
            procs.append(proc)
            try:
                requests = []
                for i in range(count):
                    n = numbers[i % len(numbers)]
                    if i % 10 == 0:
                        push(fake, n, i)  # new heads keep the workers reviewing
                    body = delivery(fake, "synchronize", n)
                    requests.append(
                        http_request(port, headers(body, "pull_request", f"a{split}{i}"), body)
                    )
                latencies, statuses, wall = asyncio.run(drive(port, requests, 20, "steady", 0))
                reviewing = db_jobs(db)
            finally:
                for p in procs:
                    p.send_signal(signal.SIGTERM)
                    p.wait(30)
        fivexx = sum(v for k, v in statuses.items() if k >= 500)
        how = (
            "acking process BOT_WORKERS=0 + a reviewing process"
            if split
            else "one process, 2 workers"
        )
        print(
            f"    {how}: ack p50 {pct(latencies, 0.5) * 1e3:.1f} ms, "
            f"p99 {pct(latencies, 0.99) * 1e3:.1f} ms, max {max(latencies) * 1e3:.1f} ms "
            f"over {wall:.1f} s; answers {statuses}; jobs then {reviewing}"
        )
        bar(fivexx == 0, "0 5xx")
        p99[split] = pct(latencies, 0.99)
    bar(min(p99.values()) < 0.1, "ack p99 under 100 ms while reviews run (best topology)")


PARTS = ("signatures", "malformed", "slow", "once", "kill", "chaos", "ratelimit", "ack")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("parts", nargs="*", help=f"any of {', '.join(PARTS)} (default: all)")
    ap.add_argument("--kills", type=int, default=30)
    ap.add_argument("--reviews", type=int, default=100)
    ap.add_argument("--schema", type=int, default=4000, help="schema-shaped payloads")
    ap.add_argument("--garbage", type=int, default=1200, help="raw garbage bodies")
    ap.add_argument("--ack", type=int, default=2000, help="deliveries for the ack part")
    ap.add_argument(
        "--token",
        action="store_true",
        help="act as a token (no check runs) instead of the fake's GitHub App",
    )
    args = ap.parse_args()
    CREDENTIALS["app"] = not args.token
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown part(s): {', '.join(unknown)}")
    logging_quiet()
    t0 = time.monotonic()
    with FakeGitHub() as fake, tempfile.TemporaryDirectory(prefix="wt-12-bench-") as d:
        fake.add_token(TOKEN, "recipe-bot")
        tmp = Path(d)
        for part in args.parts or PARTS:
            started = time.monotonic()
            if part == "signatures":
                part_signatures(fake, tmp)
            elif part == "malformed":
                part_malformed(fake, tmp, args.schema, args.garbage)
            elif part == "slow":
                part_slow(fake, tmp)
            elif part == "once":
                part_once(fake, tmp)
            elif part == "kill":
                part_kill(fake, tmp, args.kills)
            elif part == "chaos":
                part_chaos(fake, tmp, args.reviews)
            elif part == "ratelimit":
                part_ratelimit(fake, tmp)
            elif part == "ack":
                part_ack(fake, tmp, args.ack)
            print(f"    ({time.monotonic() - started:.0f} s)")
        crashes = len(fake.crashes)
    print(f"total {time.monotonic() - t0:.0f} s; fake GitHub crashes {crashes}")
    if FAILED:
        print("missed: " + "; ".join(FAILED))
        return 1
    print("every bar met")
    return 0


def logging_quiet() -> None:
    import logging

    logging.basicConfig(level=logging.CRITICAL)
    for name in ("github", "bot", "uvicorn"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


if __name__ == "__main__":
    raise SystemExit(main())
