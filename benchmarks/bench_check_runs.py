"""Review latency with the check run on and off, side by side, against the fake GitHub.

Two services on one fake GitHub, both acting as its GitHub App: one reports each review
as a check run as well (`BOT_CHECK_RUNS=true`, the default), the other through the
commit status and comments only (`BOT_CHECK_RUNS=false`). The same typical recipe PR
(the seed case: a new agentic recipe and its changelog entry, three findings) is opened
against each in alternation; each run measures the time from sending the signed
`pull_request.opened` delivery to the commit status on the head (the review's last
write in both), and, with the check run, to the run showing `in_progress` (the first
thing a maintainer sees). The fake answers without validating GitHub's contract (the
tests do that), so the figures are the bot's. Prints medians, the ratio, and the GitHub requests and writes
one review makes. `--interval` paces writes as production does (`BOT_WRITE_INTERVAL`,
GitHub's advice is 1 s): then each extra write costs that interval.

    python benchmarks/bench_check_runs.py --runs 15
    python benchmarks/bench_check_runs.py --runs 4 --interval 1
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

WRITES = ("POST", "PATCH", "PUT", "DELETE")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=15, help="reviews per configuration")
    ap.add_argument("--interval", type=float, default=0.0, help="BOT_WRITE_INTERVAL (s)")
    ap.add_argument(
        "--contract",
        action="store_true",
        help="validate every request and answer against GitHub's REST description (the "
        "tests' fake; it costs the fake, not the bot, several ms per request)",
    )
    args = ap.parse_args()
    head = example_files()
    base = base_files(example_files())
    done: dict[str, list[float]] = {"on": [], "off": []}
    first: list[float] = []
    requests: dict[str, list[int]] = {"on": [], "off": []}
    writes: dict[str, list[int]] = {"on": [], "off": []}
    with FakeGitHub(contract=args.contract) as fake, tempfile.TemporaryDirectory() as tmp:
        fake.create_repo(REPO, base)
        servers = {}
        for config in ("on", "off"):
            env = {
                "BOT_WEBHOOK_SECRET": SECRET.decode(),
                "GITHUB_API_URL": fake.url,
                "GITHUB_APP_ID": str(fake.app_id),
                "GITHUB_APP_PRIVATE_KEY": fake.app_private_key_pem,
                "GITHUB_APP_SLUG": fake.app_slug,
                "BOT_DB": str(Path(tmp) / f"{config}.sqlite3"),
                "BOT_WRITE_INTERVAL": str(args.interval),
                "BOT_POLL_SECONDS": "0.01",
                "BOT_CHECK_RUNS": "true" if config == "on" else "false",
                "BOT_SIGNOFF_ENABLED": "false",
            }
            servers[config] = LiveServer(create_app(load_settings(env))).__enter__()
        try:
            with httpx.Client(timeout=60) as client:
                for i in range(args.runs * 2):
                    # alternate, and alternate which goes first in each pair
                    config = ("on", "off")[(i + i // 2) % 2]
                    n = i + 1
                    pull = fake.create_pull(REPO, head=head, number=n, head_ref=f"topic-{n}")
                    body = encode(payload(fake, "opened", n))
                    before = len(fake.requests)
                    start = time.perf_counter()
                    r = client.post(
                        servers[config].url + "/webhook",
                        content=body,
                        headers=signed_headers(body, "pull_request", f"b-{n}", secret=SECRET),
                    )
                    assert r.status_code == 202, r.text
                    repo = fake.repo(REPO)
                    deadline = start + 120
                    seen = None
                    while not repo.statuses.get(pull.head_sha):
                        if seen is None and repo.check_runs.get(pull.head_sha):
                            seen = time.perf_counter() - start
                        if time.perf_counter() > deadline:
                            raise SystemExit(f"run {n}: no status after 120 s")
                        time.sleep(0.001)
                    done[config].append(time.perf_counter() - start)
                    if config == "on" and seen is not None:
                        first.append(seen)
                    time.sleep(0.05)  # the review's worker finishes its job
                    mine = fake.requests[before:]
                    requests[config].append(len(mine))
                    writes[config].append(sum(1 for q in mine if q.method in WRITES))
        finally:
            for server in servers.values():
                server.__exit__(None, None, None)
    on = statistics.median(done["on"]) * 1000
    off = statistics.median(done["off"]) * 1000
    print(
        f"typical recipe PR (seed case, 3 findings), {args.runs} reviews per configuration "
        f"in alternation, BOT_WRITE_INTERVAL={args.interval:g}, webhook -> status posted"
    )
    print(f"  check run on : median {on:8.1f} ms   max {max(done['on']) * 1000:8.1f} ms")
    print(f"  check run off: median {off:8.1f} ms   max {max(done['off']) * 1000:8.1f} ms")
    print(f"  on / off     : {on / off:.2f}x (+{on - off:.1f} ms)")
    if first:
        print(f"  check run in_progress after: median {statistics.median(first) * 1000:.1f} ms")
    for config in ("on", "off"):
        print(
            f"  GitHub requests per review ({config}): median "
            f"{statistics.median(requests[config]):.0f}, writes "
            f"{statistics.median(writes[config]):.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
