"""Benchmark: webhook acknowledgement latency with deliveries in flight (DESIGN §4: p99 < 100 ms
with 20 in flight).

The service runs in its own process (the real app under uvicorn on 127.0.0.1, a real
SQLite queue file, review workers running a no-op reviewer so they compete for the
database as in production). The parent keeps `--concurrency` signed deliveries in
flight on keep-alive connections and times each request from send to answer; it
prints p50/p90/p99/max, throughput, and the server's own view of the ack time.

Deliveries are realistic `pull_request.synchronize` payloads (the recorded example
from ../shared/webhooks when present, else a synthetic one of the same size), with
distinct delivery ids, spread over `--pulls` pull requests, so ingest both creates
and collapses jobs.

    python benchmarks/bench_webhook.py                     # 2,000 deliveries, 20 in flight
    python benchmarks/bench_webhook.py --deliveries 5000 --concurrency 50 --json
    python benchmarks/bench_webhook.py --db postgresql://postgres@127.0.0.1:5432/bot
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED = PROJECT_ROOT.parent / "shared" / "webhooks" / "pull_request.json"
SECRET = b"bench-secret"

# The server child: argv = port, database path, workers. Prints "ready" once listening.
SERVER = r"""
import logging, sys, threading
import uvicorn
from bot.github.types import Posted
from bot.server.app import create_app
from bot.server.settings import Settings

port, db, workers = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
settings = Settings(webhook_secrets=(b"bench-secret",), github_token="bench", db_path=db,
                    workers=max(1, workers), poll_seconds=0.2, write_interval=0)
class NoGitHub:  # the no-op reviewer never calls it; login() is asked once
    def login(self):
        return "bench[bot]"

app = create_app(settings, gateways=lambda installation: NoGitHub(),
                 reviewer=lambda gw, repo, number, head: Posted(review_id=1),
                 start_workers=workers > 0)
server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                       access_log=False))
import asyncio
async def main():
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    print("ready", flush=True)
    await task
asyncio.run(main())
"""


def payload_template() -> dict[str, Any]:
    if SHARED.is_file():
        for payload in json.loads(SHARED.read_text(encoding="utf-8")):
            if payload.get("action") == "synchronize":
                return dict(payload)
    return {
        "action": "synchronize",
        "number": 2,
        "pull_request": {
            "number": 2,
            "state": "open",
            "draft": False,
            "updated_at": "2026-08-01T10:00:00Z",
            "head": {"sha": "0" * 40},
            "base": {"repo": {"full_name": "Codertocat/Hello-World"}},
            "body": "x" * 20_000,  # the recorded payload is about 25 KB
        },
        "repository": {"full_name": "Codertocat/Hello-World"},
        "installation": {"id": 1},
        "sender": {"login": "Codertocat", "type": "User"},
    }


def deliveries(n: int, pulls: int) -> list[tuple[dict[str, str], bytes]]:
    import hashlib
    import hmac

    template = payload_template()
    out = []
    for i in range(n):
        payload = json.loads(json.dumps(template))
        number = 1 + i % pulls
        payload["number"] = number
        pr = payload["pull_request"]
        pr["number"] = number
        pr["head"]["sha"] = f"{i:040x}"
        pr["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_790_000_000 + i))
        body = json.dumps(payload).encode()
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest(),
        }
        out.append((headers, body))
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def http_request(port: int, headers: dict[str, str], body: bytes) -> bytes:
    head = f"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in headers.items()
    )
    return (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> int:
    """Send one request on a keep-alive connection and read the whole answer; its status."""
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    await reader.readexactly(length)
    return status


async def drive(
    port: int, requests: list[bytes], concurrency: int, mode: str, gap: float
) -> tuple[list[float], dict[int, int], float]:
    """`concurrency` warm keep-alive connections. steady: each sends its next delivery as
    soon as the previous one is answered (always `concurrency` in flight). burst: all send
    one delivery at the same instant, then wait `gap` seconds (GitHub's pattern when a push
    or a bulk change fires many hooks). A minimal HTTP/1.1 client on asyncio streams:
    httpx costs about 4 ms of CPU per request, which on a small machine would be measured
    instead of the server."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    conns = []
    for _ in range(concurrency):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        ping = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        await exchange(reader, writer, ping)
        conns.append((reader, writer))
    pending = list(reversed(requests))

    async def timed(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
    ) -> None:
        start = time.perf_counter()
        status = await exchange(reader, writer, request)
        latencies.append(time.perf_counter() - start)
        statuses[status] = statuses.get(status, 0) + 1

    async def steady(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while pending:
            await timed(reader, writer, pending.pop())

    started = time.perf_counter()
    if mode == "steady":
        await asyncio.gather(*(steady(r, w) for r, w in conns))
    else:
        while pending:
            batch = [(r, w, pending.pop()) for r, w in conns if pending]
            await asyncio.gather(*(timed(r, w, q) for r, w, q in batch))
            await asyncio.sleep(gap)
    wall = time.perf_counter() - started
    for _, writer in conns:
        writer.close()
    return latencies, statuses, wall


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(args: argparse.Namespace, mode: str) -> dict[str, Any]:
    port = free_port()
    requests = [http_request(port, h, b) for h, b in deliveries(args.deliveries, args.pulls)]
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or os.path.join(tmp, "bench.sqlite3")
        env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(port), db, str(args.workers)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != "ready":
                raise SystemExit("the server did not start")
            latencies, statuses, wall = asyncio.run(
                drive(port, requests, args.concurrency, mode, args.gap)
            )
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
                metrics = r.read().decode()
        finally:
            proc.terminate()
            proc.wait(10)
    server: dict[str, float] = {}
    for line in metrics.splitlines():
        for key in ("count", "sum"):
            if line.startswith(f"bot_webhook_ack_seconds_{key}"):
                server[key] = float(line.split()[-1])
    return {
        "mode": mode,
        "deliveries": len(latencies),
        "concurrency": args.concurrency,
        "workers": args.workers,
        "statuses": statuses,
        "p50_ms": round(pct(latencies, 0.50) * 1000, 2),
        "p90_ms": round(pct(latencies, 0.90) * 1000, 2),
        "p99_ms": round(pct(latencies, 0.99) * 1000, 2),
        "max_ms": round(max(latencies) * 1000, 2),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2),
        "throughput_per_s": round(len(latencies) / wall, 1),
        "server_mean_ack_ms": round(server["sum"] / server["count"] * 1000, 2)
        if server.get("count")
        else None,
        "cpus": os.cpu_count(),
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--deliveries", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=20, help="deliveries in flight")
    ap.add_argument("--mode", choices=("steady", "burst", "both"), default="both")
    ap.add_argument("--gap", type=float, default=0.05, help="pause between bursts (s)")
    ap.add_argument(
        "--pulls", type=int, default=50, help="pull requests the deliveries spread over"
    )
    ap.add_argument("--workers", type=int, default=2, help="review workers in the server (0: none)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--db",
        help="a migrated postgresql:// URL instead of a fresh SQLite file (`bot db migrate`)",
    )
    args = ap.parse_args()

    modes = ("steady", "burst") if args.mode == "both" else (args.mode,)
    ok = True
    for mode in modes:
        f = run(args, mode)
        ok = ok and f["statuses"].get(202, 0) == f["deliveries"] and f["p99_ms"] < 100
        if args.json:
            print(json.dumps(f))
            continue
        print(
            f"webhook ack, {mode}: {f['deliveries']} deliveries, {args.concurrency} in flight, "
            f"{args.workers} review workers, {f['cpus']} CPUs"
        )
        print(
            f"  p50 {f['p50_ms']} ms  p90 {f['p90_ms']} ms  p99 {f['p99_ms']} ms  "
            f"max {f['max_ms']} ms  (target p99 < 100 ms)"
        )
        print(
            f"  {f['throughput_per_s']} deliveries/s; server-side mean ack "
            f"{f['server_mean_ack_ms']} ms; statuses {f['statuses']}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
