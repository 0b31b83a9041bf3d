"""`bot signoff check`: the same checks offline, against a local git checkout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_cli import git, write
from test_signoff_core import TEMPLATE_DOC, TEMPLATE_DOC_ZH, filled

from bot.cli import main

RECIPE = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi355x_vllm.sh"
RECIPE_TEXT = """\
#!/usr/bin/env bash
source benchmark_lib.sh
vllm serve "$MODEL" --tensor-parallel-size 8 &
"""
OWNERS = "* @org/core\nconfigs/amd-master.yaml @alice\nbenchmarks/ @alice @org/amd\n"
LINK = "https://github.com/vllm-project/recipes/pull/321"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """`main` with CODEOWNERS and the checklist; branch `pr` adds a vLLM recipe in two commits."""
    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, ".github/CODEOWNERS", OWNERS)
    write(root, "docs/PR_REVIEW_CHECKLIST.md", TEMPLATE_DOC)
    write(root, "docs/PR_REVIEW_CHECKLIST_zh.md", TEMPLATE_DOC_ZH)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    write(root, RECIPE, RECIPE_TEXT.replace(" 8 ", " 4 "))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add recipe")
    write(root, RECIPE, RECIPE_TEXT)
    git(root, "commit", "-q", "-am", "tp 8")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def body_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "comment.md"
    path.write_text(text, encoding="utf-8")
    return str(path)


def runs_file(tmp_path: Path, sha: str, eval_conclusion: str = "success") -> str:
    path = tmp_path / "runs.json"
    data = {
        "total_count": 2,
        "check_runs": [
            {"name": "single-node 8k1k / dsr1", "status": "completed", "conclusion": "success"},
            {"name": "eval / dsr1", "status": "completed", "conclusion": eval_conclusion},
        ],
    }
    for run in data["check_runs"]:  # type: ignore[attr-defined]
        run["head_sha"] = sha
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def base_args(repo: Path, body: str) -> list[str]:
    return [
        "signoff",
        "check",
        "--body",
        body,
        "--author",
        "alice",
        "--repo",
        str(repo),
        "--base",
        "main",
        "--head",
        "pr",
        "--pr",
        "2600",
    ]


def checks(out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out)
    return {c["name"]: c for c in data["checks"]}


def test_offline_facts_are_unverified_and_fail_the_verdict(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = body_file(tmp_path, filled(detail=LINK))
    code, out, err = run(capsys, *base_args(repo, body), "--format", "json")
    assert code == 1, err
    data = json.loads(out)
    assert data["verdict"] == "fail"
    assert data["sha"] == git(repo, "rev-parse", "pr")
    rows = checks(out)
    assert {n for n, c in rows.items() if c["status"] in ("fail", "unknown")} == {
        "owner",
        "ci-green",
        "reuse-sweep",
    }
    assert {rows[n]["status"] for n in ("owner", "ci-green", "reuse-sweep")} == {"unknown"}
    assert rows["owner"]["reason"]["en"] == "could not verify @alice's permission on the repository"
    assert rows["template"]["status"] == "pass"
    assert rows["recipe-link"]["status"] == "pass"
    assert set(rows["template"]["reason"]) == {"en", "zh"}


def test_the_filled_template_passes_with_the_facts_given(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = git(repo, "rev-parse", "pr")
    body = body_file(tmp_path, filled(detail=LINK))
    argv = [
        *base_args(repo, body),
        "--permission",
        "write",
        "--check-runs",
        runs_file(tmp_path, head),
        "--reuse-sweep",
        "maintainer:admin",
    ]
    code, out, err = run(capsys, *argv)
    assert code == 0, out + err
    assert out.startswith(f"<!-- codeowner-signoff-verify sha={head} -->\n")
    assert "## ✅✅✅ **Verdict: PASS** ✅✅✅" in out
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert code == 0 and json.loads(out)["verdict"] == "pass"
    # a sweep on the first commit of the PR counts as well
    first = git(repo, "rev-parse", "pr~1")
    argv[argv.index("--check-runs") + 1] = runs_file(tmp_path, first)
    assert run(capsys, *argv)[0] == 0
    # ... one on a commit outside the PR does not
    argv[argv.index("--check-runs") + 1] = runs_file(tmp_path, git(repo, "rev-parse", "main"))
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert code == 1 and checks(out)["ci-green"]["status"] == "fail"


def test_a_defect_is_reported_with_the_signer_mentioned(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = git(repo, "rev-parse", "pr")
    body = body_file(tmp_path, filled(login="bob", detail=LINK))
    argv = [
        *base_args(repo, body),
        "--permission",
        "write",
        "--check-runs",
        runs_file(tmp_path, head, "failure"),
        "--reuse-sweep",
        "none",
        "--lang",
        "en",
    ]
    code, out, _ = run(capsys, *argv)
    assert code == 1
    assert "## ❌❌❌ **REJECTED** ❌❌❌" in out
    assert "@alice this sign-off does not count yet; failed: Signature, Sweep and evals, " in out
    assert "❌ **Signature**: FAIL — `Signed:` names @bob, but the comment is by @alice" in out


def test_team_membership_given_on_the_command_line(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = git(repo, "rev-parse", "pr")
    body = body_file(tmp_path, filled(login="carol", detail=LINK))
    argv = [
        *base_args(repo, body),
        "--permission",
        "write",
        "--check-runs",
        runs_file(tmp_path, head),
        "--reuse-sweep",
        "maintainer:admin",
        "--format",
        "json",
    ]
    argv[argv.index("--author") + 1] = "carol"
    code, out, _ = run(capsys, *argv)
    assert code == 1 and checks(out)["owner"]["status"] == "unknown"
    code, out, _ = run(capsys, *argv, "--teams", "@org/amd")
    assert code == 0, out
    code, out, _ = run(capsys, *argv, "--teams", "")
    assert code == 1 and checks(out)["owner"]["status"] == "fail"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--head", "no-such-ref"], "no-such-ref"),
        (["--reuse-sweep", "alice"], "--reuse-sweep wants LOGIN:PERMISSION"),
        (["--check-runs", "/nonexistent/runs.json"], "/nonexistent/runs.json"),
    ],
)
def test_unusable_input_exits_2(
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    body = body_file(tmp_path, filled(detail=LINK))
    code, _, err = run(capsys, *base_args(repo, body), *extra)
    assert code == 2
    assert err.startswith("bot: error: ") and message in err


def test_unreadable_body_and_bad_json_exit_2(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *base_args(repo, str(tmp_path / "missing.md")))
    assert code == 2 and "missing.md" in err
    bad = tmp_path / "latin1.md"
    bad.write_bytes(b"caf\xe9")
    code, _, err = run(capsys, *base_args(repo, str(bad)))
    assert code == 2 and "not valid UTF-8" in err
    runs = tmp_path / "runs.json"
    runs.write_text("{nope", encoding="utf-8")
    body = body_file(tmp_path, filled(detail=LINK))
    code, _, err = run(capsys, *base_args(repo, body), "--check-runs", str(runs))
    assert code == 2 and "not JSON" in err
    code, _, err = run(capsys, "signoff")
    assert code == 2 and "name a signoff command" in err


def test_a_body_without_a_signoff_is_a_rejection_not_an_error(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = body_file(tmp_path, "> " + filled(detail=LINK).replace("\n", "\n> "))
    code, out, _ = run(capsys, *base_args(repo, body), "--format", "json")
    assert code == 1
    assert [c["name"] for c in json.loads(out)["checks"]] == ["signoff"]


def test_several_signoffs_and_other_comments_reproduce_the_service_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Repeated --body/--author pairs combine CODEOWNERS groups; --comment pairs carry
    `/reuse-sweep-run` in the repository's exact syntax."""
    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("git is not installed")
    root = tmp_path / "two"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, ".github/CODEOWNERS", "* @org/core\nbenchmarks/ @alice\ntools/ @bob\n")
    write(root, "docs/PR_REVIEW_CHECKLIST.md", TEMPLATE_DOC)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    write(root, RECIPE, RECIPE_TEXT)
    write(root, "tools/report.py", "print('x')\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "recipe and a tool")
    head = git(root, "rev-parse", "pr")
    alice = tmp_path / "alice.md"
    alice.write_text(filled(detail=LINK), encoding="utf-8")
    bob = tmp_path / "bob.md"
    bob.write_text(filled(login="bob", detail=LINK), encoding="utf-8")
    reuse = tmp_path / "reuse.md"
    reuse.write_text("/reuse-sweep-run 29784780049\n", encoding="utf-8")
    chatter = tmp_path / "chatter.md"
    chatter.write_text("/reuse-sweep-run now please\n", encoding="utf-8")
    common = [
        "--repo", str(root), "--base", "main", "--head", "pr", "--pr", "2600",
        "--permission", "write", "--teams", "", "--check-runs", runs_file(tmp_path, head),
        "--format", "json",
    ]  # fmt: skip

    def verdict(*extra: str) -> dict[str, Any]:
        code, out, err = run(capsys, "signoff", "check", *extra, *common)
        assert code in (0, 1), err
        return checks(out)

    only_alice = verdict(
        "--body", str(alice), "--author", "alice",
        "--comment", str(reuse), "--comment-author", "max:maintain",
    )  # fmt: skip
    assert only_alice["owner"]["status"] == "fail"
    assert "`tools/report.py`" in only_alice["owner"]["reason"]["en"]
    assert only_alice["reuse-sweep"]["status"] == "pass"

    both = verdict(
        "--body", str(bob), "--author", "bob:write",
        "--body", str(alice), "--author", "alice",
        "--comment", str(reuse), "--comment-author", "max:maintain",
    )  # fmt: skip
    assert both["owner"]["status"] == "pass" and "@bob" in both["owner"]["reason"]["en"]
    assert all(c["status"] in ("pass", "na", "human") for c in both.values()), both

    wrong = verdict(
        "--body", str(bob), "--author", "bob:write",
        "--body", str(alice), "--author", "alice",
        "--comment", str(chatter), "--comment-author", "max:maintain",
    )  # fmt: skip
    assert wrong["reuse-sweep"]["status"] == "fail"

    code, _, err = run(
        capsys, "signoff", "check", "--body", str(alice), "--body", str(bob),
        "--author", "alice", *common,
    )  # fmt: skip
    assert code == 2 and "one --author per --body" in err
