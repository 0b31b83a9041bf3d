"""End to end: a signed webhook -> the service -> the review pipeline -> PyGithub
-> the fake GitHub on loopback. Asserts the exact review, comments and status.

The PR is the seed case (examples/inferencex-mini = InferenceX PR #2423 as
first pushed): a new agentic MiniMax-M3 recipe with a reasoning parser and
--gpu-memory-utilization 0.95 beside an fp8 MTP sibling at 0.90, and a new
changelog entry without pr-link.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.github.gateway import from_token
from bot.review import render
from bot.review.pipeline import ReviewSettings, review_pull_request
from bot.server.app import create_app
from bot.server.settings import load_settings
from tests.fakegithub import FakeGitHub
from tests.webhook_fakes import LiveServer, encode, service_env, signed_headers, wait_for

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inferencex-mini"
RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
REPO = "SemiAnalysisAI/InferenceX"
SECRET = b"It's a Secret to Everybody"
TODAY = datetime.date(2026, 11, 30)


def example_files() -> dict[str, str]:
    return {
        p.relative_to(EXAMPLE).as_posix(): p.read_text(encoding="utf-8")
        for p in EXAMPLE.rglob("*")
        if p.is_file()
    }


def base_files(head: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in head.items() if k != RECIPE}
    log = head["perf-changelog.yaml"]
    base["perf-changelog.yaml"] = log[: log.rindex("\n- config-keys:")] + "\n"
    return base


def fixed_files(head: dict[str, str]) -> dict[str, str]:
    out = dict(head)
    out[RECIPE] = (
        head[RECIPE]
        .replace("--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.90")
        .replace("    --reasoning-parser minimax_m3\n", "")
    )
    out["perf-changelog.yaml"] = (
        head["perf-changelog.yaml"]
        + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
    )
    return out


def payload(fake: FakeGitHub, action: str, number: int) -> dict[str, Any]:
    pull = fake.repo(REPO).pulls[number]
    return {
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "state": "open",
            "draft": False,
            "updated_at": f"2026-11-30T10:00:{len(fake.requests) % 60:02d}Z",
            "head": {"sha": pull.head_sha, "ref": pull.head_ref},
            "base": {"sha": pull.base_sha, "ref": "main", "repo": {"full_name": REPO}},
            "user": {"login": pull.user},
        },
        "repository": {"full_name": REPO},
        "sender": {"login": pull.user, "type": "User"},
        "installation": {"id": 1},
    }


@pytest.fixture
def service(fake_github: FakeGitHub, tmp_path: Path) -> Iterator[tuple[FakeGitHub, LiveServer]]:
    fake_github.add_token("e2e-token", "recipe-bot")
    settings = load_settings(
        service_env(fake_github.url, tmp_path / "queue.sqlite3", secret=SECRET)
    )
    with LiveServer(create_app(settings)) as server:
        yield fake_github, server


def deliver(server: LiveServer, event: str, body: dict[str, Any], delivery: str) -> int:
    raw = encode(body)
    headers = signed_headers(raw, event, delivery, secret=SECRET)
    return httpx.post(server.url + "/webhook", content=raw, headers=headers, timeout=10).status_code


def test_signed_webhook_gives_one_bilingual_review(
    service: tuple[FakeGitHub, LiveServer],
) -> None:
    fake, server = service
    head = example_files()
    pull = fake.create_pull(REPO, base=base_files(head), head=head, number=1)
    opened = payload(fake, "opened", 1)
    assert deliver(server, "pull_request", opened, "d-1") == 202
    repo = fake.repo(REPO)
    wait_for(lambda: bool(repo.statuses.get(pull.head_sha)), timeout=20)

    reviews = repo.reviews[1]
    assert len(reviews) == 1 and reviews[0]["user"]["login"] == "recipe-bot"
    inline = repo.review_comments[1]
    rules = sorted(c["body"].split("`")[1] for c in inline)
    assert rules == ["CHL002", "RCP001", "RCP002"]
    by_rule = {c["body"].split("`")[1]: c for c in inline}
    lines = head[RECIPE].splitlines()
    assert "--reasoning-parser minimax_m3" in lines[by_rule["RCP001"]["line"] - 1]
    assert "--gpu-memory-utilization 0.95" in lines[by_rule["RCP002"]["line"] - 1]
    gmu = by_rule["RCP002"]["body"]
    assert "```suggestion\n    --gpu-memory-utilization 0.90\n```" in gmu
    assert "没有为草稿模型" in gmu and "<details>" in gmu and render.fingerprints_in(gmu)
    summaries = [c for c in repo.issue_comments[1] if render.SUMMARY_MARK in c["body"]]
    assert len(summaries) == 1
    status = repo.statuses[pull.head_sha][-1]
    assert status["state"] == "failure" and status["context"] == "recipe-review"
    assert len(status["description"]) < 140

    # the same delivery again, and a second delivery for the same head: nothing new
    assert deliver(server, "pull_request", opened, "d-1") in (200, 202)
    assert deliver(server, "pull_request", payload(fake, "reopened", 1), "d-2") == 202
    # the second review reads the head's status, finds its own, identical, and writes none
    status_reads = f"/commits/{pull.head_sha}/statuses"
    wait_for(lambda: len(fake.calls("GET", status_reads)) >= 2, timeout=20)
    time.sleep(0.2)
    assert len(repo.reviews[1]) == 1 and len(repo.review_comments[1]) == 3
    assert len(repo.statuses[pull.head_sha]) == 1

    # the author fixes everything: comments resolved, summary says so, status green
    new_head = fake.push(REPO, 1, fixed_files(head))
    assert deliver(server, "pull_request", payload(fake, "synchronize", 1), "d-3") == 202
    wait_for(lambda: bool(repo.statuses.get(new_head)), timeout=20)
    assert repo.statuses[new_head][-1]["state"] == "success"
    assert all(render.RESOLVED_MARK in c["body"] for c in repo.review_comments[1])
    assert len(repo.reviews[1]) == 1  # nothing new to say inline
    summary = [c for c in repo.issue_comments[1] if render.SUMMARY_MARK in c["body"]]
    assert len(summary) == 1 and "Fixed since the last push" in summary[0]["body"]


def test_5xx_after_the_review_was_created_gives_no_duplicate(fake_github: FakeGitHub) -> None:
    head = example_files()
    fake_github.create_pull(REPO, base=base_files(head), head=head, number=7)
    fake_github.add_token("t", "recipe-bot")
    gateway = from_token("t", fake_github.url, seconds_between_writes=0, sleep=lambda s: None)
    fake_github.fail_next("POST", r"/pulls/7/reviews$", 502, after_effect=True)
    from bot.github.types import GitHubError

    with pytest.raises(GitHubError):
        review_pull_request(gateway, REPO, 7, settings=ReviewSettings(), today=TODAY)
    posted = review_pull_request(gateway, REPO, 7, settings=ReviewSettings(), today=TODAY)
    repo = fake_github.repo(REPO)
    assert len(repo.reviews[7]) == 1 and len(repo.review_comments[7]) == 3
    assert posted.review_id is None and posted.inline == 0
    gateway.close()


def test_a_marker_from_another_account_is_not_trusted(fake_github: FakeGitHub) -> None:
    head = example_files()
    fake_github.create_pull(REPO, base=base_files(head), head=head, number=8)
    fake_github.add_token("t", "recipe-bot")
    fake_github.add_token("mallory-token", "mallory")
    mallory = from_token("mallory-token", fake_github.url, seconds_between_writes=0)
    mallory.create_issue_comment(REPO, 8, "pwned\n" + render.SUMMARY_MARK)
    gateway = from_token("t", fake_github.url, seconds_between_writes=0, sleep=lambda s: None)
    review_pull_request(gateway, REPO, 8, settings=ReviewSettings(), today=TODAY)
    comments = fake_github.repo(REPO).issue_comments[8]
    assert comments[0]["body"].startswith("pwned")  # never edited
    mine = [c for c in comments if c["user"]["login"] == "recipe-bot"]
    assert len(mine) == 1 and render.SUMMARY_MARK in mine[0]["body"]
    gateway.close()
    mallory.close()


SHARED = ROOT.parent / "shared" / "webhooks"


def _event_validator(action: str) -> Any:
    import json

    import jsonschema

    schema = json.loads((SHARED / "octokit-webhooks-schema.json").read_text(encoding="utf-8"))
    schema = {**schema, "$ref": f"#/definitions/pull_request${action}"}
    schema.pop("oneOf", None)
    return jsonschema.Draft7Validator(schema)


def _real_example(action: str) -> dict[str, Any]:
    """The first recorded example of `action` that is valid against the octokit schema
    (some recorded examples predate fields the schema now requires)."""
    import json

    validator = _event_validator(action)
    for example in json.loads((SHARED / "pull_request.json").read_text(encoding="utf-8")):
        if example.get("action") == action and validator.is_valid(example):
            return dict(example)
    pytest.skip(f"no schema-valid {action} example in the shared payloads")


@pytest.mark.skipif(
    not (SHARED / "octokit-webhooks-schema.json").exists(), reason="../shared absent"
)
@pytest.mark.parametrize("action", ["opened", "reopened", "synchronize", "ready_for_review"])
def test_real_payload_shapes_drive_a_review(
    service: tuple[FakeGitHub, LiveServer], action: str
) -> None:
    """A real recorded payload (from ../shared), re-pointed at the fake repository and still
    valid against the octokit schema, produces one review on the PR's head."""
    import copy

    fake, server = service
    head = example_files()
    pull = fake.create_pull(REPO, base=base_files(head), head=head, number=3)
    body = copy.deepcopy(_real_example(action))
    owner, name = REPO.split("/")
    body["number"] = 3
    pr = body["pull_request"]
    pr["number"] = 3
    pr["draft"] = False
    pr["head"]["sha"] = pull.head_sha
    pr["base"]["sha"] = pull.base_sha
    for repo_obj in (body["repository"], pr["base"]["repo"], pr["head"]["repo"]):
        if repo_obj:
            repo_obj["full_name"] = REPO
            repo_obj["name"] = name
            repo_obj["owner"]["login"] = owner
    body["installation"] = {"id": 1, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="}
    _event_validator(action).validate(body)

    assert deliver(server, "pull_request", body, f"real-{action}") == 202
    repo = fake.repo(REPO)
    wait_for(lambda: bool(repo.statuses.get(pull.head_sha)), timeout=20)
    assert len(repo.reviews[3]) == 1
    assert sorted(c["body"].split("`")[1] for c in repo.review_comments[3]) == [
        "CHL002",
        "RCP001",
        "RCP002",
    ]
