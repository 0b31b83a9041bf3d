"""Many real reviews against the fake GitHub, and an audit of what was written (not a test
module; `tests/test_reliability.py` and `benchmarks/bench_reliability.py` use it).

`open_pulls` opens PRs shaped like the seed case (three findings each); `audit` reads
back everything the bot wrote and counts what must never happen: a PR whose current
head has no status of ours (a lost delivery), more than one review per head, more than
one summary comment, an inline finding posted twice on the current diff (an outdated
comment, whose line GitHub nulled after a push, is not on it), and the same status
written twice in a row for one commit and context; with `check_runs`, more than one
check run of the App on a head (no re-run was asked for), and a current head without a
completed run (lost) or a run left `in_progress` on any head the bot reviewed.
"""

from __future__ import annotations

import datetime
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from bot.review import render
from tests.fakegithub import FakeGitHub
from tests.test_e2e_review import REPO, base_files, example_files, payload

CONTEXT = "recipe-review"


@dataclass
class Audit:
    pulls: int = 0
    lost: list[int] = field(default_factory=list)  # PRs whose head has no status of ours
    duplicate_reviews: int = 0
    duplicate_summaries: int = 0
    duplicate_inline: int = 0
    duplicate_statuses: int = 0
    duplicate_check_runs: int = 0
    reviews: int = 0
    statuses: int = 0
    check_runs: int = 0
    unfinished_runs: int = 0  # left in_progress on a head the bot reviewed

    @property
    def duplicates(self) -> int:
        return (
            self.duplicate_reviews
            + self.duplicate_summaries
            + self.duplicate_inline
            + self.duplicate_statuses
            + self.duplicate_check_runs
        )

    def line(self) -> str:
        runs = (
            f", check runs {self.duplicate_check_runs} ({self.check_runs} written, "
            f"{self.unfinished_runs} left in progress)"
            if self.check_runs or self.duplicate_check_runs
            else ""
        )
        return (
            f"{self.pulls} PRs: lost {len(self.lost)}, duplicate reviews "
            f"{self.duplicate_reviews}, summaries {self.duplicate_summaries}, inline "
            f"{self.duplicate_inline}, statuses {self.duplicate_statuses}{runs} "
            f"({self.reviews} reviews, {self.statuses} statuses written)"
        )


def open_pulls(fake: FakeGitHub, numbers: range) -> None:
    head = example_files()
    if REPO not in fake.repos:
        fake.create_repo(REPO, base_files(example_files()))
    for n in numbers:
        fake.create_pull(REPO, head=head, number=n, head_ref=f"topic-{n}")


def push(fake: FakeGitHub, number: int, salt: int) -> str:
    """A new head for PR `number` (one more line in the recipe)."""
    files = example_files()
    recipe = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
    files[recipe] += f"# push {salt}\n"
    return fake.push(REPO, number, files)


_SEQ = itertools.count()
_EPOCH = datetime.datetime(2026, 11, 30, 10, 0, tzinfo=datetime.UTC)


def delivery(fake: FakeGitHub, action: str, number: int) -> bytes:
    """A signed-ready `pull_request` body for PR `number`'s current head, with an
    `updated_at` later than every earlier one (as GitHub's are: newer pushes, later times)."""
    from tests.webhook_fakes import encode

    body = payload(fake, action, number)
    stamp = _EPOCH + datetime.timedelta(seconds=next(_SEQ))
    body["pull_request"]["updated_at"] = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    return encode(body)


def audit(
    fake: FakeGitHub, numbers: Sequence[int], bot: str = "recipe-bot", check_runs: bool = False
) -> Audit:
    repo = fake.repo(REPO)
    out = Audit(pulls=len(numbers))
    for n in numbers:
        pull = repo.pulls[n]
        mine = [r for r in repo.reviews.get(n, []) if r["user"]["login"] == bot]
        out.reviews += len(mine)
        per_head = Counter(r.get("commit_id") for r in mine)
        out.duplicate_reviews += sum(c - 1 for c in per_head.values())
        summaries = [
            c
            for c in repo.issue_comments.get(n, [])
            if c["user"]["login"] == bot and render.SUMMARY_MARK in c["body"]
        ]
        out.duplicate_summaries += max(0, len(summaries) - 1)
        prints: Counter[Any] = Counter()
        for c in repo.review_comments.get(n, []):
            # on the current diff: an outdated comment (line null) is not shown there
            if c["user"]["login"] == bot and c.get("line") is not None:
                for fp in render.fingerprints_in(c["body"]):
                    prints[fp] += 1
        out.duplicate_inline += sum(c - 1 for c in prints.values())
        heads_seen = {pull.head_sha} | {r.get("commit_id") for r in mine}
        for sha in heads_seen:
            mine_here = [
                s
                for s in reversed(repo.statuses.get(sha, []))  # oldest first
                if s["creator"]["login"] == bot
            ]
            out.statuses += len(mine_here)
            for context in {s["context"] for s in mine_here}:  # the review's and sign-off's
                ours = [s for s in mine_here if s["context"] == context]
                for a, b in pairwise(ours):
                    key = ("state", "description", "target_url")
                    if all(a.get(k) == b.get(k) for k in key):
                        out.duplicate_statuses += 1
        lost = not any(
            s["context"] == CONTEXT and s["creator"]["login"] == bot
            for s in repo.statuses.get(pull.head_sha, [])
        )
        if check_runs:
            for sha in heads_seen | {pull.head_sha}:
                runs = [
                    r
                    for r in repo.check_runs.get(sha or "", [])
                    if r["app"]["slug"] == fake.app_slug and r["name"] == CONTEXT
                ]
                out.check_runs += len(runs)
                out.duplicate_check_runs += max(0, len(runs) - 1)
                out.unfinished_runs += sum(1 for r in runs if r["status"] != "completed")
                if sha == pull.head_sha and not any(r["status"] == "completed" for r in runs):
                    lost = True
        if lost:
            out.lost.append(n)
    return out
