"""`bot replay` and `DryRunGateway`: a recorded payload reviewed once, printed or posted."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from snapshot import check_snapshot
from webhook_fakes import (
    REPO,
    SHARED_WEBHOOKS,
    IdempotentReviewer,
    MemoryGitHub,
    pr_payload,
    sha,
)

from bot.cli import main
from bot.github.types import GitHubError, ReviewComment, Status
from bot.server.dryrun import DryRunGateway
from bot.server.replay import ReplayError, ReplayOptions, replay

ENV = {"GITHUB_TOKEN": "t"}


def write(tmp_path: Path, payload: object, name: str = "delivery.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


def run(
    options: ReplayOptions, github: MemoryGitHub, reviewer: IdempotentReviewer | None = None
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = replay(
        options,
        ENV,
        out,
        err,
        gateways=lambda installation: github,
        reviewer=reviewer or IdempotentReviewer(),
    )
    return code, out.getvalue(), err.getvalue()


def test_dry_run_reads_but_writes_nothing(tmp_path: Path) -> None:
    github = MemoryGitHub()
    github.open_pull(2, sha(1))
    path = write(tmp_path, pr_payload("synchronize", 2, sha(1)))
    code, out, _ = run(ReplayOptions(path, "pull_request", dry_run=True), github)
    assert code == 0
    assert github.reviews_posted == [] and github.statuses == []
    assert "pull" in github.calls  # reads went through
    assert f"would create a review on {REPO}#2 at {sha(1)}" in out
    assert "would set status 'recipe-review'" in out
    assert "2 write(s) recorded, none performed" in out


def test_dry_run_json(tmp_path: Path) -> None:
    github = MemoryGitHub()
    github.open_pull(2, sha(1))
    path = write(tmp_path, pr_payload("opened", 2, sha(1)))
    code, out, _ = run(ReplayOptions(path, "pull_request", dry_run=True, format="json"), github)
    data = json.loads(out)
    assert code == 0 and [w["kind"] for w in data["writes"]] == ["create_review", "set_status"]
    assert data["writes"][0]["id"] < 0


def test_replay_posts_and_is_idempotent(tmp_path: Path) -> None:
    github = MemoryGitHub()
    github.open_pull(2, sha(1))
    path = write(tmp_path, pr_payload("opened", 2, sha(1)))
    for _ in range(2):
        code, out, _ = run(ReplayOptions(path, "pull_request"), github)
        assert code == 0 and "review 1" in out
    assert github.reviewed_heads(2) == [sha(1)]


def test_ignored_delivery_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, pr_payload("closed", 2, sha(1)))
    code, out, _ = run(ReplayOptions(path, "pull_request"), MemoryGitHub())
    assert (code, out) == (0, "ignored: action closed\n")


def test_github_failure_is_exit_1(tmp_path: Path) -> None:
    path = write(tmp_path, pr_payload("opened", 2, sha(1)))
    reviewer = IdempotentReviewer(error=GitHubError("Bad credentials", 401))
    github = MemoryGitHub()
    github.open_pull(2, sha(1))
    code, _, err = run(ReplayOptions(path, "pull_request"), github, reviewer)
    assert code == 1 and "Bad credentials (status 401)" in err


@pytest.mark.parametrize(
    ("payload", "options", "message"),
    [
        ([1, 2], {}, "holds 2 payloads; choose one with --index"),
        ([pr_payload("opened", 2, sha(1))], {"index": 3}, "out of range"),
        (pr_payload("opened", 2, "zzz"), {}, "head.sha"),
        (pr_payload("opened", 2, sha(1)), {"event": "Not An Event"}, "not a webhook event"),
    ],
)
def test_bad_input_is_a_replay_error(
    tmp_path: Path, payload: object, options: dict[str, object], message: str
) -> None:
    path = write(tmp_path, payload)
    kwargs: dict[str, object] = {"event": "pull_request", **options}
    with pytest.raises(ReplayError, match=message):
        run(ReplayOptions(path, **kwargs), MemoryGitHub())  # type: ignore[arg-type]


@pytest.mark.skipif(not SHARED_WEBHOOKS.is_dir(), reason="../shared/webhooks absent")
def test_recorded_example_with_index(tmp_path: Path) -> None:
    github = MemoryGitHub()
    github.open_pull(2, "ec26c3e57ca3a959ca5aad62de7213c562f8c821")
    source = str(SHARED_WEBHOOKS / "pull_request.json")
    payloads = json.loads(Path(source).read_text(encoding="utf-8"))
    index = next(i for i, p in enumerate(payloads) if p["action"] == "synchronize")
    code, out, _ = run(ReplayOptions(source, "pull_request", dry_run=True, index=index), github)
    assert code == 0 and "would create a review on Codertocat/Hello-World#2" in out


# ----------------------------------------------------------------------------- the CLI


def test_cli_replay_of_an_ignored_delivery_needs_no_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_APP_ID", "BOT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    path = write(tmp_path, pr_payload("labeled", 2, sha(1)))
    assert main(["replay", path, "--event", "pull_request", "--dry-run"]) == 0
    assert capsys.readouterr().out == "ignored: action labeled\n"
    path = write(tmp_path, pr_payload("opened", 2, sha(1)))
    assert main(["replay", path, "--event", "pull_request", "--dry-run"]) == 2
    assert "no GitHub credentials" in capsys.readouterr().err


def test_cli_replay_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/x.json", "--event", "pull_request"]) == 2
    assert capsys.readouterr().err.startswith("bot: error: /nonexistent/x.json")


# ----------------------------------------------------------------------------- DryRunGateway


def test_dry_run_gateway_delegates_reads_and_records_writes() -> None:
    github = MemoryGitHub()
    github.open_pull(2, sha(1))
    dry = DryRunGateway(github)
    assert dry.pull(REPO, 2).head_sha == sha(1) and dry.login() == "recipe-review[bot]"
    assert dry.pull_files(REPO, 2) == [] and dry.read(REPO, "x", "main") is None
    comment = ReviewComment("a.sh", 3, "bad flag\n中文", start_line=1)
    assert dry.create_review(REPO, 2, sha(1), "summary", [comment]) == -1
    assert dry.create_issue_comment(REPO, 2, "hello") == -2
    dry.edit_issue_comment(REPO, 7, "edited")
    dry.edit_review_comment(REPO, 8, "edited too")
    dry.set_status(REPO, sha(1), Status("failure", "recipe-review", "1 error", "https://x"))
    assert [w.kind for w in dry.writes] == [
        "create_review",
        "create_issue_comment",
        "edit_issue_comment",
        "edit_review_comment",
        "set_status",
    ]
    assert github.reviews_posted == [] and github.comments == [] and github.statuses == []
    check_snapshot("dry-run-writes.txt", dry.render())
    assert DryRunGateway(github).render() == "dry run: nothing would be written\n"
