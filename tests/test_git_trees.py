"""Commits read through git (`bot.sources.GitTree`, `ObjectReader`, `bot.app.local`): bare
mirrors and alternates need no work tree, a missing object is an error and never an absent
(deleted) file, and one `git cat-file` process and one opened tree serve many changes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from bot.app import lint_change
from bot.app.local import LocalRepository, MissingObject, open_local_change
from bot.cli import main
from bot.sources import GitTree, ObjectReader, SourceError
from tests.test_app import AGENTIC, OPTIONS, _git
from tests.test_app import clone as clone  # the fixture: main, and a PR adding a recipe


def bare_mirror(src: Path, dst: Path) -> Path:
    """A bare repository holding `src`'s refs and borrowing its objects (alternates), as a
    mirror set up with `git clone --reference` or a CI cache is."""
    subprocess.run(["git", "init", "-q", "--bare", str(dst)], check=True)
    (dst / "objects" / "info" / "alternates").write_text(str(src / ".git" / "objects") + "\n")
    refs = _git(src, "for-each-ref", "--format=%(objectname) %(refname)")
    for line in refs.splitlines():
        sha, ref = line.split(" ", 1)
        _git(dst, "update-ref", ref, sha)
    return dst


def _lint(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["lint", *argv, "--format", "json", "--date", "2026-08-20", "--allow-empty"])
    out, err = capsys.readouterr()
    return code, out, err


def _findings(out: str) -> list[tuple[str, str, int]]:
    return [(f["rule"], f["path"], f["line"]) for f in json.loads(out)["findings"]]


def test_bot_lint_reads_a_bare_mirror_with_alternates(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`bot lint --repo MIRROR --base --head` on a bare repository (no work tree), its
    objects borrowed through alternates: the same findings as in the clone.

    Without the fix: "bot: error: not a git repository" (the trees asked git for a work
    tree's top)."""
    mirror = bare_mirror(clone, tmp_path / "mirror.git")
    code, out, err = _lint(capsys, "--repo", str(clone), "--base", "main", "--head", "pr")
    assert code == 1, err
    expected = _findings(out)
    assert {r for r, _, _ in expected} == {"RCP001", "RCP002"}
    code, out, err = _lint(capsys, "--repo", str(mirror), "--base", "main", "--head", "pr")
    assert (code, err) == (1, "")
    assert _findings(out) == expected
    with GitTree(mirror, "pr") as tree:
        assert AGENTIC in tree.paths() and tree.read(AGENTIC) == (clone / AGENTIC).read_bytes()


def _drop_blob(repo: Path, ref: str, path: str) -> str:
    blob = _git(repo, "rev-parse", f"{ref}:{path}")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    return blob


def test_a_missing_blob_is_an_error_not_a_deleted_file(
    clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The PR's recipe blob is gone from the object store (a pruned or partial clone).
    `bot lint --base --head` stops with an error naming the file and the commit.

    Without the fix the blob read as an absent file: the recipe the PR adds looked
    deleted, and the lint passed (exit 0, no finding) on a recipe with two defects."""
    blob = _drop_blob(clone, "pr", AGENTIC)
    head = _git(clone, "rev-parse", "pr")
    code, out, err = _lint(capsys, "--repo", str(clone), "--base", "main", "--head", "pr")
    assert (code, out) == (2, "")
    assert err == (
        f"bot: error: {AGENTIC} at {head[:12]}: blob {blob[:12]} is missing from {clone}\n"
    )
    with GitTree(clone, "pr") as tree:
        assert tree.blob_id(AGENTIC) == blob  # listed by the tree, absent from the store
        with pytest.raises(MissingObject):
            tree.read(AGENTIC)
        assert tree.read("no/such/file.sh") is None  # a path the tree lacks is absent


def test_one_reader_serves_many_trees_and_a_forked_child_starts_its_own(clone: Path) -> None:
    with LocalRepository(clone) as repo:
        main_tree, pr_tree = repo.tree("main"), repo.tree("pr")
        assert repo.tree(_git(clone, "rev-parse", "main")) is main_tree  # listed once
        assert main_tree._reader is pr_tree._reader is repo.reader  # type: ignore[attr-defined]
        recipe = pr_tree.read(AGENTIC)
        assert recipe is not None and main_tree.read("perf-changelog.yaml") is not None
        proc = repo.reader._proc  # type: ignore[attr-defined]
        assert proc is not None
        main_tree.close()  # a tree does not stop the reader it borrows
        assert repo.reader._proc is proc  # type: ignore[attr-defined]

        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the parent's pipe to git is not its own
            code = 1
            try:
                os.close(read_fd)
                fresh = GitTree(clone, "pr", reader=repo.reader)
                data = fresh.read(AGENTIC) or b""
                child = repo.reader._proc  # type: ignore[attr-defined]
                ok = data == recipe and child is not None and child.pid != proc.pid
                os.write(write_fd, b"ok" if ok else b"no")
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            answer = pipe.read()
        os.waitpid(pid, 0)
        assert answer == b"ok"
        assert proc.poll() is None  # the child left the parent's process alone
        fresh = GitTree(clone, "pr", reader=repo.reader)
        assert fresh.read(AGENTIC) == recipe
        assert repo.reader._proc is proc  # type: ignore[attr-defined]
    assert proc.poll() is not None  # closing the repository stops it


def test_a_reader_whose_process_stopped_says_so_and_starts_again(clone: Path) -> None:
    blob = _git(clone, "rev-parse", f"pr:{AGENTIC}")
    reader = ObjectReader(clone)
    try:
        data = reader.read(blob)
        proc = reader._proc  # type: ignore[attr-defined]
        assert proc is not None
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with pytest.raises(SourceError, match="git cat-file stopped"):
            reader.read(blob)
        assert reader.read(blob) == data
        with pytest.raises(MissingObject, match=f"object {'0' * 40} is missing"):
            reader.read("0" * 40)
        assert reader.read(blob) == data
    finally:
        reader.close()


def test_changes_opened_within_a_repository_share_its_trees(clone: Path) -> None:
    """Two commits forking from one merge-base: one base tree, one process, and the same
    findings as changes that open their own trees."""
    base = _git(clone, "rev-parse", "main")
    first = _git(clone, "rev-parse", "pr")
    (clone / "README.md").write_text("more\n")
    _git(clone, "add", "-A")
    _git(clone, "commit", "-qm", "second")
    second = _git(clone, "rev-parse", "HEAD")

    def report(**within: LocalRepository) -> list[list[tuple[str, str, int]]]:
        out = []
        for head in (first, second):
            with open_local_change(clone, base, head, pr=3, **within) as change:
                assert bool(change.closers) is not bool(within)  # borrowed trees: not its own
                found = lint_change(change, options=OPTIONS).report.findings
                out.append([(f.rule, f.path, f.line) for f in found])
        return out

    with LocalRepository(clone) as repo:
        shared = report(within=repo)
        with (
            open_local_change(clone, base, first, within=repo) as a,
            open_local_change(clone, base, second, within=repo) as b,
        ):
            assert a.base is b.base and a.head is not b.head
    assert shared == report()
    assert {r for r, _, _ in shared[0]} == {"RCP001", "RCP002"}
    assert shared[1] == shared[0]


def test_a_full_commit_sha_is_confirmed_through_the_open_reader(
    clone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within a `LocalRepository` a change between two full SHAs asks git's commands only
    for what it must (the merge-base, the trees' listings, the diff): the SHAs are
    confirmed through the open `git cat-file` process, not one `rev-parse` each."""
    import bot.sources

    base, head = _git(clone, "rev-parse", "main"), _git(clone, "rev-parse", "pr")
    blob = _git(clone, "rev-parse", f"pr:{AGENTIC}")
    calls: list[str] = []
    real = bot.sources.git

    def counted(repo_dir: object, *args: str) -> bytes:
        calls.append(args[0])
        return real(repo_dir, *args)  # type: ignore[arg-type]

    bot.sources.git_toplevel(clone)  # asked once per process and directory
    monkeypatch.setattr(bot.sources, "git", counted)
    monkeypatch.setattr(bot.sources, "_COMMITS", {})
    with LocalRepository(clone) as repo:
        with open_local_change(clone, base, head, within=repo) as change:
            assert change.head.read(AGENTIC) is not None
        assert sorted(calls) == ["diff", "ls-tree", "ls-tree", "merge-base", "remote"]
        with pytest.raises(SourceError, match="unknown ref"):
            repo.tree(blob)  # a blob's SHA is no commit
