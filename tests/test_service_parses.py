"""The service's parsed files (`bot.app.pull.service_parses`): kept across reviews by blob
SHA, bounded, and the same findings as a review that parses everything itself."""

from __future__ import annotations

import datetime
from pathlib import Path

from bot.app.pull import ParseCache, lint_pull, service_parses
from bot.core.tree import content_id
from bot.github.types import PullFile, PullInfo

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inferencex-mini"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
REPO = "acme/bench"
TODAY = datetime.date(2026, 9, 1)


def _files() -> dict[str, bytes]:
    return {
        p.relative_to(EXAMPLE).as_posix(): p.read_bytes() for p in EXAMPLE.rglob("*") if p.is_file()
    }


class Trees:
    """The gateway's reads of a few refs held in memory, counted: `blob_id` answers
    from the listing, as GitHub's tree API does; `read` fetches a file's content."""

    def __init__(self, refs: dict[str, dict[str, bytes]]) -> None:
        self.refs = refs
        self.fetched: list[tuple[str, str]] = []

    def merge_base(self, repo: str, base: str, head: str) -> str:
        return base

    def tree_paths(self, repo: str, ref: str) -> list[str]:
        return sorted(self.refs[ref])

    def blob_id(self, repo: str, path: str, ref: str) -> str | None:
        data = self.refs[ref].get(path)
        return None if data is None else content_id(data)

    def read(self, repo: str, path: str, ref: str) -> bytes | None:
        self.fetched.append((ref, path))
        return self.refs[ref].get(path)


def _pull(number: int, head: str) -> PullInfo:
    return PullInfo(REPO, number, head, "base", "main", f"topic-{number}", "someone")


def _findings(outcome: object) -> list[tuple[str, str, int, str]]:
    report = outcome.report  # type: ignore[attr-defined]
    return [(f.rule, f.path, f.span.line, f.message.en) for f in report.findings]


def test_a_review_of_a_known_base_parses_only_what_the_pr_changed() -> None:
    base = _files()
    first = dict(base)
    first[AGENTIC] = base[AGENTIC].replace(b"--max-num-seqs", b"--max-num-seqs  ")
    second = dict(base)
    second[AGENTIC] = base[AGENTIC].replace(b"0.95", b"0.96")
    gw = Trees({"base": base, "one": first, "two": second})
    files = [PullFile(AGENTIC, "modified")]
    shared = service_parses()
    lint_pull(gw, _pull(1, "one"), files, TODAY, shared)  # type: ignore[arg-type]
    parsed_first = shared.misses
    gw.fetched.clear()
    before = shared.misses
    warm = lint_pull(gw, _pull(2, "two"), files, TODAY, shared)  # type: ignore[arg-type]
    # the changed recipe alone (its sibling, the changelog and the golden curves are
    # the base's, parsed by the first review)
    assert shared.misses - before == 1 < parsed_first
    # fetched from the base: the changed file (for its diff) and the configuration
    # (its text is the key of the configuration built from it: not built again)
    assert {path for ref, path in gw.fetched if ref == "base"} <= {AGENTIC, ".recipe-bot.yml"}
    assert len(shared.configs) == 1
    alone = lint_pull(gw, _pull(2, "two"), files, TODAY)  # type: ignore[arg-type]
    assert _findings(warm) == _findings(alone)
    assert _findings(alone)  # RCP001 and RCP002 on the recipe


def test_the_cache_is_bounded_by_the_bytes_parsed() -> None:
    cache = ParseCache(max_bytes=100)
    cache.put(("recipe", "a", "a.sh", ""), "A", 60)
    cache.put(("recipe", "b", "b.sh", ""), "B", 30)
    assert cache.get(("recipe", "a", "a.sh", "")) == (True, "A")  # now the newest
    cache.put(("recipe", "c", "c.sh", ""), "C", 30)  # 120 bytes: the oldest (b) goes
    assert cache.get(("recipe", "b", "b.sh", ""))[0] is False
    assert cache.get(("recipe", "a", "a.sh", ""))[0] and cache.get(("recipe", "c", "c.sh", ""))[0]
    assert cache.size == 90 and len(cache) == 2
    by_count = ParseCache(max_items=2)
    for name in "xyz":
        by_count.put(("recipe", name, name, ""), name, 1)
    assert len(by_count) == 2 and by_count.get(("recipe", "x", "x", ""))[0] is False
