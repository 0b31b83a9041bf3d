"""The lint cache (`bot.app.cache`): warm runs answer as cold runs do, and only from
results whose inputs are unchanged.

Every test lints a copy of the example repository (three recipes and a changelog)
with the cache on; the answer with the cache is compared with a run without it.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.app import LintOptions, lint_tree
from bot.app import lint as app_lint
from bot.app.cache import DEFAULT_DIR, LintCache
from bot.app.config import load_repo_config
from bot.cli import main
from bot.core.config import build_config
from bot.core.context import Context
from bot.core.engine import lint
from bot.core.tree import MemoryTree
from bot.sources import FsTree
from tests.example_copy import copy_example

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inferencex-mini"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
SIBLING = "benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh"
OPTIONS = ("--format", "json", "--fail-on", "never", "--date", "2026-09-01")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the example repository, with the cache on (the suite turns it off)."""
    monkeypatch.delenv("BOT_NO_CACHE", raising=False)
    root = tmp_path / "repo"
    copy_example(root)
    return root


def run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(list(argv))
    finally:
        sys.stdout, sys.stderr = saved
    return code, out.getvalue()


def relinted(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The files each lint run lints itself (the cache answering the rest)."""
    calls: list[list[str]] = []
    real = app_lint.lint_each

    def spy(ctx: Any, paths: list[str], rules: Any, workers: int = 2) -> Any:
        calls.append(sorted(paths))
        return real(ctx, paths, rules, workers)

    monkeypatch.setattr(app_lint, "lint_each", spy)
    return calls


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_warm_run_prints_what_a_cold_run_prints(repo: Path) -> None:
    cold = run("lint", "--repo", str(repo), "--no-cache", *OPTIONS)
    first = run("lint", "--repo", str(repo), *OPTIONS)
    second = run("lint", "--repo", str(repo), *OPTIONS)
    assert first == cold == second
    assert json.loads(cold[1])["summary"]["files"] == 3
    cache = repo / DEFAULT_DIR
    assert (cache / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text(encoding="utf-8").startswith("Signature: ")


def test_an_empty_selection_runs_no_rule_with_the_cache_too(repo: Path) -> None:
    """`--select X --ignore X` selects nothing: with the cache on, the run is what it is
    without it. Without the fix the cached lint read an empty selection as every rule
    and reported the example's three findings."""
    argv = ("lint", "--repo", str(repo), "--select", "RCP002", "--ignore", "RCP002")
    cold = run(*argv, "--no-cache", "--allow-empty", *OPTIONS)
    warm = [run(*argv, "--allow-empty", *OPTIONS) for _ in range(2)]
    assert json.loads(cold[1])["findings"] == []
    assert warm == [cold, cold]


def test_an_unchanged_tree_is_answered_without_linting(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("lint", "--repo", str(repo), *OPTIONS)
    calls = relinted(monkeypatch)

    def loaded() -> Any:
        raise AssertionError("the linter was loaded")

    monkeypatch.setattr("bot.cli.lint.linter", loaded)
    code, out = run("lint", "--repo", str(repo), *OPTIONS)
    assert code == 0 and json.loads(out)["summary"]["files"] == 3
    assert calls == []


def test_no_cache_writes_nothing(repo: Path) -> None:
    run("lint", "--repo", str(repo), "--no-cache", *OPTIONS)
    assert not (repo / DEFAULT_DIR).exists()


def test_cache_dir_and_the_environment(repo: Path, tmp_path: Path, monkeypatch: Any) -> None:
    elsewhere = tmp_path / "cache"
    run("lint", "--repo", str(repo), "--cache-dir", str(elsewhere), *OPTIONS)
    assert (elsewhere / ".gitignore").exists() and not (repo / DEFAULT_DIR).exists()
    monkeypatch.setenv("BOT_NO_CACHE", "1")
    run("lint", "--repo", str(repo), *OPTIONS)
    assert not (repo / DEFAULT_DIR).exists()


def test_a_changed_recipe_relints_it_and_what_reads_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("lint", "--repo", str(repo), *OPTIONS)
    calls = relinted(monkeypatch)
    # the agentic recipe's RCP002 finding compares it with this sibling's 0.90
    edit(repo / SIBLING, "--gpu-memory-utilization 0.90", "--gpu-memory-utilization 0.97")
    warm = run("lint", "--repo", str(repo), *OPTIONS)
    assert calls == [[AGENTIC, SIBLING]]  # not the changelog
    cold = run("lint", "--repo", str(repo), "--no-cache", *OPTIONS)
    assert warm == cold
    rules = {(f["rule"], f["path"]) for f in json.loads(warm[1])["findings"]}
    assert ("RCP002", AGENTIC) not in rules and ("RCP002", SIBLING) in rules


def test_an_added_file_and_a_changed_configuration_are_seen(repo: Path) -> None:
    run("lint", "--repo", str(repo), *OPTIONS)
    shutil.copy(repo / AGENTIC, repo / AGENTIC.replace("h100", "h200"))
    assert run("lint", "--repo", str(repo), *OPTIONS) == run(
        "lint", "--repo", str(repo), "--no-cache", *OPTIONS
    )
    edit(repo / ".recipe-bot.yml", "  severity: {}", "  severity: {}\n  disable: [RCP001]")
    warm = run("lint", "--repo", str(repo), *OPTIONS)
    assert warm == run("lint", "--repo", str(repo), "--no-cache", *OPTIONS)
    assert "RCP001" not in {f["rule"] for f in json.loads(warm[1])["findings"]}


def test_a_damaged_entry_is_a_miss(repo: Path) -> None:
    first = run("lint", "--repo", str(repo), *OPTIONS)
    entries = [p for p in (repo / DEFAULT_DIR).rglob("*.json")]
    assert entries
    for p in entries:
        p.write_text('{"format": "1", "trees": [', encoding="utf-8")
    assert run("lint", "--repo", str(repo), *OPTIONS) == first


def test_writes_are_atomic_under_concurrent_writers(tmp_path: Path) -> None:
    cache = LintCache(tmp_path / "c")
    big = {"items": ["x" * 1000] * 500}
    seen: list[Any] = []

    def writer() -> None:
        for _ in range(20):
            cache.store("files", "ab" * 32, big)

    def reader() -> None:
        for _ in range(200):
            seen.append(cache.load("files", "ab" * 32))

    threads = [threading.Thread(target=writer) for _ in range(3)] + [
        threading.Thread(target=reader) for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s is None or s == big for s in seen)
    assert cache.load("files", "ab" * 32) == big
    assert not [p for p in (tmp_path / "c").rglob(".tmp-*")]


def test_paths_on_disk_are_cached_too(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    first = run("lint", "benchmarks", *OPTIONS)
    calls = relinted(monkeypatch)
    edit(repo / AGENTIC, "--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.96")
    assert run("lint", "benchmarks", *OPTIONS) == run("lint", "benchmarks", "--no-cache", *OPTIONS)
    assert calls == [[AGENTIC, SIBLING]]  # each reads the other (RCP002)
    assert first[0] == 0


def test_the_app_layer_reports_what_a_run_read(repo: Path) -> None:
    tree = FsTree(repo)
    options = LintOptions(results=LintCache(repo / "c"), workers=1)
    result = lint_tree(tree, config=load_repo_config(tree), options=options)
    reads = result.runs[0].reads
    assert reads is not None and reads.listing is not None
    assert ("head", SIBLING) in reads.reads.blobs and ("head", AGENTIC) in reads.reads.blobs
    again = lint_tree(tree, config=load_repo_config(tree), options=options)
    assert again.report.findings == result.report.findings
    assert again.runs[0].reads is not None
    assert again.runs[0].reads.reads.blobs == reads.reads.blobs


def test_reads_are_noted_per_file_and_through_shared_views() -> None:
    files = {
        AGENTIC: (EXAMPLE / AGENTIC).read_text(encoding="utf-8"),
        SIBLING: (EXAMPLE / SIBLING).read_text(encoding="utf-8"),
    }
    ctx = Context.for_tree(MemoryTree(files), build_config(None), track=True)
    with ctx.reading() as reads:
        lint(ctx, [AGENTIC])
    assert ("head", SIBLING) in reads.blobs  # RCP002 read the sibling
    # a view several files share: its reads go to every file that uses it
    with ctx.reading() as first:
        ctx.memo("view", lambda: ctx.tree.read(SIBLING))
    with ctx.reading() as second:
        ctx.memo("view", lambda: None)
    assert first.blobs == second.blobs == {("head", SIBLING): MemoryTree(files).blob_id(SIBLING)}
    untracked = Context.for_tree(MemoryTree(files), build_config(None))
    with pytest.raises(ValueError), untracked.reading():
        pass


def test_a_cached_finding_is_the_finding_field_for_field() -> None:
    """Every field of a finding survives the cache (a practice or a ratchet dropped there
    made a warm run's findings differ from the cold run's)."""
    import dataclasses

    from bot.app.cache import finding_data, finding_of
    from bot.core.model import Finding, Ratchet, Span, T

    finding = Finding(
        rule="CFG001",
        slug="master-config-entry-violates-schema",
        severity="error",
        path="configs/nvidia-master.yaml",
        span=Span(3, 1, 5, 2),
        title=T(en="t", zh="标"),
        message=T(en="m", zh="信"),
        fix=T(en="f", zh="修"),
        subject="schema x",
        suggestion="x: 1",
        in_diff=True,
        line_text="  x: 2",
        proposal="p",
        comment_lines=(3, 5),
        practice="changelog-pr-link",
        ratchet=Ratchet("enum runner", "dsv4-fp8-b200-vllm", True),
    )
    names = {f.name for f in dataclasses.fields(Finding)}
    set_fields = {n for n in names if getattr(finding, n) != getattr(Finding, n, object())}
    assert set_fields == names  # the test sets every field, so a new one must be added here
    again = finding_of(json.loads(json.dumps(finding_data(finding))))
    assert again == finding
