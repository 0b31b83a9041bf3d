"""The application layer (`bot.app`): one way to load a configuration and to lint a change,
whatever the trees are read from, and one diff model for the gate and the review."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path

import pytest

from bot.app import Change, LintOptions, lint_change, lint_paths, load_repo_config
from bot.app.local import open_local_change
from bot.app.pull import lint_pull, local_pull, pull_change
from bot.base.tree import MemoryTree
from bot.core.changeset import Placement, build_changeset
from bot.core.config import ConfigError
from bot.core.gate import decide
from bot.github.localgit import LocalGitGateway
from bot.report import json_report
from tests.example_copy import copy_example

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "inferencex-mini"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
TODAY = datetime.date(2026, 8, 20)
OPTIONS = LintOptions(review_date=TODAY, workers=1)


def _files() -> dict[str, bytes]:
    return {
        p.relative_to(EXAMPLE).as_posix(): p.read_bytes() for p in EXAMPLE.rglob("*") if p.is_file()
    }


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip()


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """The example before its recipe was added (main), and the PR adding it (pr)."""
    repo = tmp_path / "bench"
    copy_example(repo)
    recipe = (repo / AGENTIC).read_text()
    (repo / AGENTIC).unlink()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "checkout", "-qb", "pr")
    (repo / AGENTIC).write_text(recipe)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "add the agentic recipe")
    return repo


# --------------------------------------------------------------------------- configuration


def test_load_repo_config_names_the_file_and_the_ref() -> None:
    tree = MemoryTree({".recipe-bot.yml": "rules:\n  disable: [RCP012]\n"})
    assert load_repo_config(tree).disabled == {"RCP012"}
    assert load_repo_config(tree, ref="main").source == ".recipe-bot.yml (at main)"
    assert load_repo_config(MemoryTree({})).source == "defaults"
    bad = MemoryTree({".recipe-bot.yml": b"rules:\n  disable: [\xff]\n"})
    with pytest.raises(ConfigError, match=r"^\.recipe-bot\.yml \(at main\): not valid UTF-8"):
        load_repo_config(bad, ref="main")
    with pytest.raises(ConfigError, match=r"\.recipe-bot\.yml \(at main\): .*NOPE"):
        load_repo_config(MemoryTree({".recipe-bot.yml": "rules:\n  disable: [NOPE]\n"}), ref="main")


def test_every_entry_point_reads_the_config_the_same_way(
    clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An invalid `.recipe-bot.yml` on the base: the CLI and the service say the same."""
    _git(clone, "checkout", "-q", "main")
    (clone / ".recipe-bot.yml").write_text("rules:\n  disable: [NOPE]\n")
    _git(clone, "add", "-A")
    _git(clone, "commit", "-qm", "config")
    _git(clone, "checkout", "-q", "pr")
    _git(clone, "rebase", "-q", "main")
    from bot.cli import main

    code = main(["lint", "--repo", str(clone), "--base", "main", "--head", "pr"])
    _, err = capsys.readouterr()
    assert code == 2
    message = err.removeprefix("bot: error: ").strip()
    assert message.startswith(".recipe-bot.yml (at main): ")
    pull = local_pull(clone, 3, "main", "pr", repository="acme/bench")
    gw = LocalGitGateway(clone, {3: pull})
    try:
        outcome = lint_pull(gw, pull, gw.pull_files("acme/bench", 3), TODAY)
    finally:
        gw.close()
    assert outcome.config_error == message
    assert outcome.result is None and outcome.report.findings == []


# --------------------------------------------------------------------------- one use case


def _report(result: object) -> dict[str, object]:
    data = json.loads(json_report.render(result.report))  # type: ignore[attr-defined]
    data.pop("tool")
    return data


def test_lint_change_reads_local_git_and_the_gateway_alike(clone: Path) -> None:
    """The CLI's change (local git trees, difflib) and the service's (gateway trees and
    GitHub's patches) give the same findings, byte for byte."""
    with open_local_change(clone, "main", "pr", pr=3, repository="acme/bench") as change:
        local = _report(lint_change(change, options=OPTIONS))
    pull = local_pull(clone, 3, "main", "pr", repository="acme/bench", author="alice")
    gw = LocalGitGateway(clone, {3: pull})
    try:
        files = gw.pull_files("acme/bench", 3)
        change = pull_change(gw, pull, files)
        assert change.patches is not None and change.patches[AGENTIC]
        service = _report(lint_change(change, options=OPTIONS))
    finally:
        gw.close()
    assert service == local
    assert sorted(f["rule"] for f in local["findings"]) == ["RCP001", "RCP002"]  # type: ignore[index]


def test_a_change_closes_the_trees_it_opened(clone: Path) -> None:
    change = open_local_change(clone, "main", "pr")
    trees = list(change.closers)
    assert len(trees) == 2  # the merge-base and the head (the base tip is the merge-base)
    lint_change(change, options=OPTIONS)
    change.close()
    assert change.closers == [] and all(t._reader is None for t in trees)  # type: ignore[attr-defined]


def test_lint_paths_of_two_repositories_merge_under_their_common_directory(
    tmp_path: Path,
) -> None:
    for name in ("one", "two"):
        copy_example(tmp_path / name)
    result = lint_paths([tmp_path / "one" / AGENTIC, tmp_path / "two" / "perf-changelog.yaml"])
    assert [run.root for run in result.runs] == [tmp_path / "one", tmp_path / "two"]
    # each run's paths are as the core gives them; the merged report tells them apart
    assert [f.path for f in result.runs[1].report.findings] == ["perf-changelog.yaml"]
    assert result.root == tmp_path
    assert [f.path for f in result.report.findings] == [
        f"one/{AGENTIC}",
        f"one/{AGENTIC}",
        "two/perf-changelog.yaml",
    ]


# --------------------------------------------------------------------------- one diff model


BASE = "x\na\ny\nz\n"
HEAD = "x\na\ny\na\ny\nz\n"
# a valid diff of BASE -> HEAD that adds lines 2-3 (difflib adds lines 4-5)
PATCH = "@@ -1,4 +1,6 @@\n x\n+a\n+y\n a\n y\n z"


def test_the_change_set_takes_its_hunks_from_githubs_patch() -> None:
    base, head = MemoryTree({"f.sh": BASE}), MemoryTree({"f.sh": HEAD})
    own = build_changeset(base, head, ["f.sh"])
    assert own.file("f.sh").added_lines == {4, 5}  # type: ignore[union-attr]
    assert own.place("f.sh", 2) == Placement(changed=False, comment=(2, 2))
    assert own.place("f.sh", 4, 5) == Placement(changed=True, comment=(4, 5))
    github = build_changeset(base, head, ["f.sh"], patches={"f.sh": PATCH})
    assert github.file("f.sh").added_lines == {2, 3}  # type: ignore[union-attr]
    assert github.place("f.sh", 2) == Placement(changed=True, comment=(2, 2))
    assert github.place("f.sh", 4, 5) == Placement(changed=False, comment=(4, 5))
    # GitHub shows no patch (binary, too large): changed by difflib, no comment can sit
    none = build_changeset(base, head, ["f.sh"], patches={"f.sh": None})
    assert none.place("f.sh", 4) == Placement(changed=True, comment=None)
    assert none.place("elsewhere.sh", 1) == Placement(changed=False, comment=None)


def test_difflib_shows_three_lines_of_context_as_git_does() -> None:
    base = "".join(f"{n}\n" for n in range(1, 21))
    head = base.replace("10\n", "ten\n")
    change = build_changeset(MemoryTree({"f": base}), MemoryTree({"f": head}), ["f"])
    assert change.file("f").shown_lines == set(range(7, 14))  # type: ignore[union-attr]
    # a multi-line finding reaching outside the shown lines is commented on its first line
    assert change.place("f", 12, 15) == Placement(changed=False, comment=(12, 12))
    added = build_changeset(MemoryTree({}), MemoryTree({"f": head}), ["f"])
    assert added.place("f", 20) == Placement(changed=True, comment=(20, 20))


def test_the_gate_and_the_inline_split_read_the_same_answer() -> None:
    """The engine stores `ChangeSet.place` on each finding: the gate (in_diff) and the
    review (comment_lines) follow GitHub's patch, not a diff of their own."""
    files = _files()
    lines = files[AGENTIC].decode().split("\n")
    i = lines.index("    --reasoning-parser minimax_m3")  # 0-based: line i + 1
    doubled = dict(files)
    doubled[AGENTIC] = "\n".join([*lines[: i + 1], lines[i], *lines[i + 1 :]]).encode()
    # the second copy (line i + 2) is the one RCP001 reports; GitHub's diff adds the first
    patch = f"@@ -{i},2 +{i},3 @@\n {lines[i - 1]}\n+{lines[i]}\n {lines[i]}\n {lines[i + 1]}"

    def rcp001(patches: dict[str, str | None] | None) -> tuple[bool | None, object, str]:
        change = Change(
            MemoryTree(files), MemoryTree(doubled), frozenset([AGENTIC]), pr=1, patches=patches
        )
        (f,) = [
            f for f in lint_change(change, options=OPTIONS).report.findings if f.rule == "RCP001"
        ]
        assert f.line == i + 2
        return f.in_diff, f.comment_lines, decide([f]).state

    assert rcp001(None) == (True, (i + 2, i + 2), "human")
    assert rcp001({AGENTIC: patch}) == (False, (i + 2, i + 2), "pass")
