"""Webhook received -> review posted, against the fake GitHub on loopback.

A typical recipe PR (3 files: a new agentic recipe, its changelog entry, and
an edited sibling) is opened N times; for each, the time from sending the
signed `pull_request.opened` delivery to the commit status appearing on the
head SHA is measured. Prints median / p90 / max and what one review costs in
GitHub API calls.

    python benchmarks/bench_review.py --runs 15
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bot.server.app import create_app  # noqa: E402
from bot.server.settings import load_settings  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402
from tests.test_e2e_review import REPO, SECRET, base_files, example_files, payload  # noqa: E402
from tests.webhook_fakes import LiveServer, encode, signed_headers  # noqa: E402

SIBLING = "benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    head = example_files()
    head[SIBLING] = head[SIBLING].replace(
        "--max-num-seqs $((2 * CONC))", "--max-num-seqs $((4 * CONC))"
    )
    base = base_files(example_files())
    times: list[float] = []
    calls: list[int] = []
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_token("bench-token", "recipe-bot")
        settings = load_settings(
            {
                "BOT_WEBHOOK_SECRET": SECRET.decode(),
                "GITHUB_API_URL": fake.url,
                "GITHUB_TOKEN": "bench-token",
                "BOT_DB": str(Path(tmp) / "queue.sqlite3"),
                "BOT_WRITE_INTERVAL": "0",
                "BOT_POLL_SECONDS": "0.01",
            }
        )
        fake.create_repo(REPO, base)
        with LiveServer(create_app(settings)) as server, httpx.Client() as client:
            for n in range(1, args.runs + 1):
                pull = fake.create_pull(REPO, head=head, number=n, head_ref=f"topic-{n}")
                body = encode(payload(fake, "opened", n))
                before = len(fake.requests)
                start = time.perf_counter()
                r = client.post(
                    server.url + "/webhook",
                    content=body,
                    headers=signed_headers(body, "pull_request", f"bench-{n}", secret=SECRET),
                )
                assert r.status_code == 202, r.text
                repo = fake.repo(REPO)
                deadline = start + 30
                while not repo.statuses.get(pull.head_sha):
                    if time.perf_counter() > deadline:
                        raise SystemExit(f"run {n}: no status after 30 s")
                    time.sleep(0.002)
                times.append(time.perf_counter() - start)
                calls.append(len(fake.requests) - before)
    ms = sorted(t * 1000 for t in times)
    p90 = ms[max(0, int(len(ms) * 0.9) - 1)]
    print(f"typical recipe PR (3 files), {len(ms)} reviews, webhook -> status posted")
    print(f"  median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms   max {ms[-1]:7.1f} ms")
    print(
        f"  first (cold) {times[0] * 1000:7.1f} ms; GitHub API calls per review: median {statistics.median(calls):.0f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
