"""Sign-off posted -> verdict comment and status, end to end against the fake GitHub.

The PR is the seed case as fixed (examples/inferencex-mini: a new agentic MiniMax-M3
recipe, its changelog entry, a sibling recipe), in a repository with CODEOWNERS and
InferenceX's real checklist template (../shared/inferencex, when present; otherwise the
test suite's). For each run a CODEOWNER posts the filled checklist on a fresh PR whose
head has green sweep and eval check runs and a maintainer's `/reuse-sweep-run`; the time
from sending the signed `issue_comment.created` delivery to the `codeowner-signoff-verify`
status appearing on the head SHA is measured. Then the PR gets a push, and the time from
the `synchronize` delivery to the "older commit" failure on the new head.

The LLM verifier this replaces (`.github/workflows/codeowner-signoff-verify.yml`) takes
minutes per sign-off. The target here is under 2 s.

    python benchmarks/bench_signoff.py --runs 15
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bot.github.gateway import from_token  # noqa: E402
from bot.server.app import create_app  # noqa: E402
from bot.server.settings import load_settings  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402
from tests.test_e2e_review import base_files, example_files, fixed_files  # noqa: E402
from tests.test_signoff_service import TEMPLATE_DOC  # noqa: E402
from tests.webhook_fakes import LiveServer, encode, signed_headers  # noqa: E402

REPO = "SemiAnalysisAI/InferenceX"
SECRET = b"bench secret"
CONTEXT = "codeowner-signoff-verify"
SHARED = ROOT.parent / "shared" / "inferencex"
CODEOWNERS = "* @SemiAnalysisAI/core\nbenchmarks/ @alice\nperf-changelog.yaml @alice\n"
RECIPE_LINK = "https://recipes.vllm.ai/MiniMaxAI/MiniMax-M3"


def template() -> tuple[str, str]:
    """(template document, where it came from)."""
    real = SHARED / "docs" / "PR_REVIEW_CHECKLIST.md"
    if real.exists():
        return real.read_text(encoding="utf-8"), "InferenceX docs/PR_REVIEW_CHECKLIST.md"
    return TEMPLATE_DOC, "the test suite's template"


def filled(doc: str, login: str) -> str:
    block = doc.split("```")[1].strip("\n")
    body = block.replace("- [ ]", "- [x]").replace("FILL_IN_GITHUB_USERNAME", login)
    detail = f"vLLM recipe: {RECIPE_LINK}; sweep and evals green on the head commit"
    return body.replace("insert any additional info here", detail)


def stats(label: str, seconds: list[float]) -> None:
    ms = sorted(t * 1000 for t in seconds)
    p90 = ms[max(0, int(len(ms) * 0.9) - 1)]
    print(
        f"  {label}: median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms   max {ms[-1]:7.1f} ms"
    )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    doc, source = template()
    base = {
        **base_files(example_files()),
        ".github/CODEOWNERS": CODEOWNERS,
        "docs/PR_REVIEW_CHECKLIST.md": doc,
    }
    head = {**fixed_files(example_files()), ".github/CODEOWNERS": CODEOWNERS}
    head["docs/PR_REVIEW_CHECKLIST.md"] = doc
    verify_s: list[float] = []
    push_s: list[float] = []
    calls: list[int] = []
    results: list[str] = []
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_token("bench-token", "recipe-bot")
        for login in ("alice", "max"):
            fake.add_token(f"{login}-token", login)
        settings = load_settings(
            {
                "BOT_WEBHOOK_SECRET": SECRET.decode(),
                "GITHUB_API_URL": fake.url,
                "GITHUB_TOKEN": "bench-token",
                "BOT_LOGIN": "recipe-bot",
                "BOT_DB": str(Path(tmp) / "queue.sqlite3"),
                "BOT_WRITE_INTERVAL": "0",
                "BOT_POLL_SECONDS": "0.01",
            }
        )
        fake.create_repo(REPO, base)
        fake.set_permission(REPO, "alice", "write")
        fake.set_permission(REPO, "max", "maintain")
        fake.add_team("SemiAnalysisAI", "core", ["max"])
        alice = from_token("alice-token", fake.url, seconds_between_writes=0)
        maintainer = from_token("max-token", fake.url, seconds_between_writes=0)
        with LiveServer(create_app(settings)) as server, httpx.Client() as client:

            def deliver(event: str, payload: dict[str, Any], delivery: str) -> None:
                body = encode(payload)
                r = client.post(
                    server.url + "/webhook",
                    content=body,
                    headers=signed_headers(body, event, delivery, secret=SECRET),
                )
                assert r.status_code == 202, r.text

            def wait_status(sha: str, count: int, start: float) -> dict[str, Any]:
                deadline = start + 30
                while True:
                    mine = [
                        s for s in fake.repo(REPO).statuses.get(sha, []) if s["context"] == CONTEXT
                    ]
                    if len(mine) >= count:
                        return mine[0]
                    if time.perf_counter() > deadline:
                        raise SystemExit(f"no {CONTEXT} status on {sha[:7]} after 30 s")
                    time.sleep(0.002)

            for n in range(1, args.runs + 1):
                pull = fake.create_pull(
                    REPO, head=head, number=n, head_ref=f"topic-{n}", user="contributor"
                )
                fake.add_check_run(REPO, pull.head_sha, "single-node 1k1k / minimaxm3")
                fake.add_check_run(REPO, pull.head_sha, "eval / gsm8k")
                maintainer.create_issue_comment(REPO, n, "/reuse-sweep-run")
                cid = alice.create_issue_comment(REPO, n, filled(doc, "alice"))
                comment = next(c for c in fake.repo(REPO).issue_comments[n] if c["id"] == cid)
                payload = {
                    "action": "created",
                    "issue": {"number": n, "state": "open", "pull_request": {}},
                    "comment": comment,
                    "repository": {"full_name": REPO},
                    "sender": fake.user("alice"),
                    "installation": {"id": 1},
                }
                before = len(fake.requests)
                start = time.perf_counter()
                deliver("issue_comment", payload, f"sign-{n}")
                status = wait_status(pull.head_sha, 1, start)
                verify_s.append(time.perf_counter() - start)
                calls.append(len(fake.requests) - before)
                results.append(status["state"])

                time.sleep(1.05)  # GitHub's timestamps have one-second resolution
                new = fake.push(REPO, n, {**head, "README.md": f"push {n}\n"})
                pushed_at = datetime.fromtimestamp(fake.clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                sync = {
                    "action": "synchronize",
                    "number": n,
                    "pull_request": {
                        "number": n,
                        "state": "open",
                        "updated_at": pushed_at,
                        "head": {"sha": new, "ref": pull.head_ref},
                        "base": {"sha": pull.base_sha, "ref": "main", "repo": {"full_name": REPO}},
                    },
                    "repository": {"full_name": REPO},
                    "sender": fake.user("contributor"),
                    "installation": {"id": 1},
                }
                start = time.perf_counter()
                deliver("pull_request", sync, f"push-{n}")
                stale = wait_status(new, 1, start)
                push_s.append(time.perf_counter() - start)
                assert stale["state"] == "failure", stale
        alice.close()
        maintainer.close()
    print(f"sign-off verification, end to end against the fake GitHub ({len(verify_s)} runs)")
    print(f"  PR: the seed recipe PR as fixed (3 files); template: {source}")
    stats("sign-off posted -> verdict + status", verify_s)
    print(
        f"  first (cold) {verify_s[0] * 1000:7.1f} ms; GitHub API calls per verification: "
        f"median {statistics.median(calls):.0f}; verdicts: "
        + ", ".join(f"{r} x{results.count(r)}" for r in sorted(set(results)))
    )
    stats("push -> 'older commit' failure on the new head", push_s)
    print("  (the LLM verifier it replaces takes minutes per sign-off; target here: < 2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
