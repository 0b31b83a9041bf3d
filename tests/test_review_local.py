"""`bot review --dry-run` and `bot replay --local-repo`: the service's review, from local git.

The same pull request (the seed case) is put on the fake GitHub and into a local
git repository; the review the pipeline would post through PyGithub and the one
`bot review` renders from local git must be the same writes, byte for byte once
the commit SHAs (which differ between the two) are normalised.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from snapshot import check_snapshot

from bot.cli import main
from bot.github.gateway import from_token
from bot.review.pipeline import ReviewSettings, review_pull_request
from bot.server.dryrun import DryRunGateway
from tests.fakegithub import FakeGitHub
from tests.test_e2e_review import REPO, TODAY, base_files, example_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def local_pr(tmp_path: Path, base: dict[str, str], head: dict[str, str]) -> tuple[Path, str]:
    repo = tmp_path / "clone"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for files, message in ((base, "base"), (head, "head")):
        for old in list(repo.rglob("*")):
            if old.is_file() and ".git" not in old.parts:
                old.unlink()
        for rel, text in files.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text, encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", message)
        if message == "base":
            git(repo, "checkout", "-qb", "pr")
    return repo, git(repo, "rev-parse", "HEAD")


STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")  # a check run's started/completed_at


def normalised(writes: list[dict[str, Any]], head_sha: str) -> str:
    text = json.dumps(writes, ensure_ascii=False, sort_keys=True)
    return STAMP.sub(
        "<TIME>",
        text.replace(head_sha, "<HEAD>")
        .replace(head_sha[:12], "<HEAD12>")
        .replace(head_sha[:7], "<HEAD7>"),
    )


def test_local_dry_run_is_the_review_the_service_posts(
    fake_github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = example_files()
    base = base_files(head)
    pull = fake_github.create_pull(REPO, base=base, head=head, number=2423)
    fake_github.add_token("t", "recipe-review[bot]")
    gateway = from_token("t", fake_github.url, seconds_between_writes=0, sleep=lambda s: None)
    dry = DryRunGateway(gateway)
    settings = ReviewSettings(check_run="recipe-review")
    review_pull_request(dry, REPO, 2423, settings=settings, today=TODAY)
    service = json.loads(dry.to_json())
    gateway.close()
    assert [w["kind"] for w in service] == [
        "create_check_run",
        "create_review",
        "create_issue_comment",
        "update_check_run",
        "set_status",
    ]
    assert len(service[1]["comments"]) == 3

    repo, head_sha = local_pr(tmp_path, base, head)
    argv = ["review", "--repo", str(repo), "--pr", "2423", "--base", "main", "--head", "pr"]
    argv += ["--dry-run", "--github-repo", REPO, "--date", TODAY.isoformat()]
    code = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    local = json.loads(out)["writes"]
    assert normalised(local, head_sha) == normalised(service, pull.head_sha)
    # the readable form: every inline comment with its body, the summary, the status
    assert main(argv) == 0
    text, _ = capsys.readouterr()
    # the check run started, three inline comments (RCP001's deletion an empty suggestion
    # block), the summary comment, the check run's payload with its annotations and the
    # failing status, none performed
    readable = STAMP.sub("<TIME>", text.replace(head_sha, "<HEAD>"))
    readable = readable.replace(head_sha[:12], "<HEAD12>")
    check_snapshot("review-dry-run.txt", readable.replace(head_sha[:7], "<HEAD7>"))


def test_replay_reads_local_git_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = example_files()
    repo, head_sha = local_pr(tmp_path, base_files(head), head)
    base_sha = git(repo, "rev-parse", "main")
    payload = {
        "action": "opened",
        "number": 7,
        "pull_request": {
            "number": 7,
            "state": "open",
            "draft": False,
            "updated_at": "2026-11-30T10:00:00Z",
            "head": {"sha": head_sha, "ref": "pr"},
            "base": {"sha": base_sha, "ref": "main", "repo": {"full_name": REPO}},
            "user": {"login": "alice"},
        },
        "repository": {"full_name": REPO},
        "sender": {"login": "alice", "type": "User"},
        "installation": {"id": 1},
    }
    event = tmp_path / "delivery.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    argv = ["replay", str(event), "--event", "pull_request", "--local-repo", str(repo)]
    code = main([*argv, "--dry-run", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    writes = json.loads(out)["writes"]
    assert [w["kind"] for w in writes] == [
        "create_check_run",
        "create_review",
        "create_issue_comment",
        "update_check_run",
        "set_status",
    ]
    assert writes[3]["extra"]["run"]["conclusion"] == "failure"
    assert writes[4]["status"]["state"] == "failure"
    assert "pull/7" in json.dumps(writes)  # the pr-link suggestion names this PR
    code = main(argv)  # without --dry-run there is nowhere to write
    _, err = capsys.readouterr()
    assert code == 2 and "--dry-run" in err
    payload["pull_request"]["head"]["sha"] = "f" * 40
    event.write_text(json.dumps(payload), encoding="utf-8")
    code = main([*argv, "--dry-run"])
    _, err = capsys.readouterr()
    assert code == 2 and "fetch the pull request first" in err


def test_review_needs_dry_run_and_a_git_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["review", "--repo", str(tmp_path), "--pr", "1", "--base", "main"])
    _, err = capsys.readouterr()
    assert code == 2 and "pass --dry-run" in err
    code = main(["review", "--repo", str(tmp_path), "--pr", "1", "--base", "main", "--dry-run"])
    _, err = capsys.readouterr()
    assert code == 2 and err == f"bot: error: not a git repository: {tmp_path}\n"


def test_pr_link_suggestion_names_the_pull_requests_own_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = example_files()
    repo, _ = local_pr(tmp_path, base_files(head), head)
    argv = ["review", "--repo", str(repo), "--pr", "31", "--base", "main", "--head", "pr"]
    code = main([*argv, "--dry-run", "--github-repo", "acme/bench-recipes", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    text = json.dumps(json.loads(out)["writes"], ensure_ascii=False)
    assert "pr-link: https://github.com/acme/bench-recipes/pull/31" in text
    assert "SemiAnalysisAI/InferenceX/pull/31" not in text
    # no --github-repo: the `origin` remote names the repository
    git(repo, "remote", "add", "origin", "https://github.com/fork-owner/InferenceX.git")
    assert main([*argv, "--dry-run", "--format", "json"]) == 0
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert data["pull"].startswith("fork-owner/InferenceX#31")
    assert "https://github.com/fork-owner/InferenceX/pull/31" in json.dumps(data["writes"])
