"""The service's review compares a stale branch's changelog with the base branch's tip.

A branch forked before main merged entry #50 carries that entry once it merges main;
judged against the merge-base alone, #50's entry looks like the PR's own (a pr-link to
another PR, an entry inserted before merged ones). `lint_pull` passes the base branch's
tip (`PullInfo.base_sha`) so the changelog rules can tell the two apart.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from webhook_fakes import REPO, MemoryGitHub, sha

from bot.app.pull import lint_pull
from bot.github.types import PullFile

CHANGELOG = "perf-changelog.yaml"
PULL = f"https://github.com/{REPO}/pull/"  # pr-links name the PR's own repository


def _entry(key: str, n: int) -> str:
    return f'- config-keys:\n    - {key}\n  description:\n    - "Bump the image"\n  pr-link: {PULL}{n}\n'


FORK, TIP, HEAD = sha(1), sha(2), sha(3)
A = _entry("a-fp8-h100-vllm", 10)
X = _entry("x-fp8-h100-vllm", 50)  # merged on main after the branch forked
P = _entry("p-fp8-h100-vllm", 60)  # the PR's own entry


@dataclass
class StaleBranch(MemoryGitHub):
    """main moved from FORK to TIP; the PR's HEAD merged main and appended its entry."""

    files: dict[str, dict[str, str]] = field(
        default_factory=lambda: {
            FORK: {CHANGELOG: A},
            TIP: {CHANGELOG: A + "\n" + X},
            HEAD: {CHANGELOG: A + "\n" + X + "\n" + P},
        }
    )

    def merge_base(self, repo: str, base: str, head: str) -> str:
        return FORK

    def tree_paths(self, repo: str, ref: str) -> list[str]:
        return sorted(self.files.get(ref, {}))

    def read(self, repo: str, path: str, ref: str) -> bytes | None:
        text = self.files.get(ref, {}).get(path)
        return None if text is None else text.encode()


def _rules(tip: str) -> list[str]:
    gw = StaleBranch()
    gw.open_pull(60, HEAD)
    pull = gw.pull(REPO, 60)
    pull = type(pull)(**{**pull.__dict__, "base_sha": tip})
    files = [PullFile(path=CHANGELOG, status="modified")]
    outcome = lint_pull(gw, pull, files, datetime.date(2026, 8, 22))
    return sorted(f.rule for f in outcome.report.findings)


def test_an_entry_main_merged_since_the_fork_is_not_the_prs() -> None:
    assert _rules(TIP) == []


def test_without_a_newer_tip_the_carried_entry_is_judged_as_the_prs() -> None:
    # the base branch did not move: the merge-base is the tip, and #50's entry is new
    assert "CHL002" in _rules(FORK)
