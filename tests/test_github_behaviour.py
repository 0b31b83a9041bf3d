"""What GitHub really does, one behaviour a test, through the service: a signed webhook
in, the worker, PyGithub, the contract-checked fake GitHub on loopback out.

Each behaviour is documented GitHub behaviour the fake models (`tests/fakegithub.py`);
each test states what the bot must do about it (the table "What GitHub does, and what
the bot does about it" in `docs/deployment.md` lists them):

- a review with one comment GitHub cannot place is refused whole (422);
- two pushes in the same second, their `synchronize` deliveries newest first;
- a head left without a review and without a job (an outage outlasting the attempts);
- comments go outdated after a push (`line: null`);
- a PR over GitHub's 3,000-file list;
- event names with digits (`projects_v2_item`);
- a failed installation-token exchange;
- a delivery id reused with another body;
- a fork (unreadable head repository, then deleted: `head.repo: null`), a rename with
  changes, files without `patch` (binary, too large), a force-push;
- every request carries the API version and media type; every real example payload is
  answered.

The sign-off side (302 membership answers, reopen and ready_for_review after a PASS,
PRs over 250 commits) is in `tests/test_github_signoff_behaviour.py`, the leases in
`tests/test_leases.py`.
"""

from __future__ import annotations

import copy
import json
import logging
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.review import render
from bot.server.app import create_app
from bot.server.backends import open_queue
from bot.server.queue import SQLiteQueue
from bot.server.settings import load_settings
from tests.fakegithub import FakeGitHub
from tests.test_e2e_review import RECIPE, REPO, base_files, example_files
from tests.test_signoff_service import Clock
from tests.webhook_fakes import LiveServer, encode, service_env, signed_headers, wait_for

SECRET = b"behaviour secret"
BOT = "recipe-bot"
CONTEXT = "recipe-review"
CHANGELOG = "perf-changelog.yaml"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "webhooks"


@dataclass
class Rig:
    """The fake GitHub, its clock, the live service and its queue."""

    fake: FakeGitHub
    clock: Clock
    server: LiveServer
    queue: SQLiteQueue
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30))

    def post(self, event: str, payload: Any, delivery: str | None = None) -> httpx.Response:
        raw = encode(payload)
        headers = signed_headers(raw, event, delivery or str(uuid.uuid4()), secret=SECRET)
        return self.http.post(self.server.url + "/webhook", content=raw, headers=headers)

    def deliver(self, event: str, payload: Any, delivery: str | None = None) -> httpx.Response:
        """One delivery, then wait until every job it started has finished."""
        r = self.post(event, payload, delivery)
        self.settle()
        return r

    def settle(self, timeout: float = 60) -> None:
        wait_for(
            lambda: all(j["state"] not in ("queued", "running") for j in self.queue.jobs()),
            timeout=timeout,
        )

    def pull_event(self, action: str, number: int, **extra: Any) -> dict[str, Any]:
        """A `pull_request` delivery for the PR as the fake holds it (GitHub's fields the
        service reads; `tests/test_e2e_review.py` drives real recorded payloads)."""
        pull = self.fake.repo(REPO).pulls[number]
        body = {
            "action": action,
            "number": number,
            "pull_request": {
                "number": number,
                "state": pull.state,
                "draft": pull.draft,
                "updated_at": self.fake._now(),
                "head": {"sha": pull.head_sha, "ref": pull.head_ref},
                "base": {"sha": pull.base_sha, "ref": pull.base_ref, "repo": {"full_name": REPO}},
                "user": {"login": pull.user},
            },
            "repository": {"full_name": REPO},
            "sender": {"login": pull.user, "type": "User"},
            "installation": {"id": 1},
        }
        body.update(extra)
        return body

    def statuses(self, sha: str) -> list[dict[str, Any]]:
        """The review's statuses on `sha`, oldest first."""
        items = self.fake.repo(REPO).statuses.get(sha, [])
        return [s for s in reversed(items) if s["context"] == CONTEXT]

    def summary(self, number: int) -> str:
        (body,) = [
            c["body"]
            for c in self.fake.repo(REPO).issue_comments.get(number, [])
            if render.SUMMARY_MARK in c["body"]
        ]
        return str(body)

    def inline(self, number: int) -> list[dict[str, Any]]:
        return [
            c
            for c in self.fake.repo(REPO).review_comments.get(number, [])
            if (c["user"] or {}).get("login") == BOT
        ]

    def reviews(self, number: int) -> list[dict[str, Any]]:
        return list(self.fake.repo(REPO).reviews.get(number, []))


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    """`rig(**env)`: a fake GitHub with the seed repository and the service on it."""
    stack: list[Any] = []

    def make(**env: str) -> Rig:
        clock = Clock()
        fake = FakeGitHub(clock=clock).start()
        fake.add_token("e2e-token", BOT)
        fake.create_repo(REPO, base_files(example_files()))
        settings = load_settings(
            service_env(
                fake.url, tmp_path / f"q{len(stack)}.sqlite3", secret=SECRET, login=BOT, **env
            )
        )
        queue = open_queue(settings)  # the service's own: lease, attempts
        server = LiveServer(create_app(settings, queue=queue)).__enter__()
        r = Rig(fake, clock, server, queue)
        stack.append(r)
        return r

    yield make
    for r in stack:
        r.http.close()
        r.server.__exit__(None, None, None)
        r.queue.close()
        r.fake.stop()
        assert not r.fake.crashes, r.fake.crashes
        r.fake.assert_contract()


def _rule(comment: dict[str, Any]) -> str:
    return str(comment["body"]).split("`")[1]


# ------------------------------------------------------------------ 422 on a review


def test_a_review_github_refuses_for_one_comment_lands_without_that_comment(
    rig: Callable[..., Rig],
) -> None:
    """GitHub refuses a whole review (422, "Pull request review thread line must be part
    of the diff") when one comment cannot be placed, and does not say which. Here the PR is
    retargeted to a branch that already has its changelog entry, between the bot's read of
    the files and its review: the changelog comment no longer fits. The bot places its
    comments again against the diff GitHub lists now, posts the review without that one,
    lists it in the review and the summary, and always writes the summary and the status.

    Without the fix the 422 killed the job: no review, no summary, no status."""
    r = rig()
    head = example_files()
    # the head branch starts from `release`, which has the changelog entry already; the
    # PR is opened against main, and retargeted to release while the bot reviews it
    release = {**base_files(head), CHANGELOG: head[CHANGELOG]}
    r.fake.commit(REPO, release, branch="release", parents=[r.fake.repo(REPO).branches["main"]])
    pull = r.fake.create_pull(REPO, head=head, number=1, user="carol", base_ref="release")
    r.fake.retarget(REPO, 1, "main")
    r.fake.before("POST", r"/pulls/1/reviews$", lambda f: f.retarget(REPO, 1, "release"))

    r.deliver("pull_request", r.pull_event("opened", 1))

    (status,) = r.statuses(pull.head_sha)
    assert status["state"] == "failure"  # RCP001 and RCP002 are errors on changed lines
    posts = r.fake.calls("POST", r"/pulls/1/reviews$")
    assert [p.status for p in posts] == [422, 200]
    assert sorted(_rule(c) for c in r.inline(1)) == ["RCP001", "RCP002"]
    (review,) = r.reviews(1)
    assert "GitHub could not place 1 comment(s)" in review["body"]
    assert "`CHL002`" in review["body"]
    summary = r.summary(1)
    assert "GitHub could not place 1 inline comment(s)" in summary and "`CHL002`" in summary

    # a redelivery neither posts the refused comment inline nor a second review
    r.deliver("pull_request", r.pull_event("reopened", 1))
    assert len(r.reviews(1)) == 1 and len(r.inline(1)) == 2
    assert len(r.fake.calls("POST", r"/pulls/1/reviews$")) == 2


def test_a_review_github_refuses_whatever_the_diff_says_lands_without_inline_comments(
    rig: Callable[..., Rig],
) -> None:
    """When the diff GitHub lists still shows every line (GitHub's own diff of the PR
    differs from its file list), the last resort is the review without inline comments:
    every finding is in the review body and the summary, and the status is written.

    Without the fix the job died on the 422."""
    r = rig()
    pull = r.fake.create_pull(REPO, head=example_files(), number=2, user="carol")
    r.fake.refuse_lines(REPO, 2, RECIPE, set(range(1, 100)))

    r.deliver("pull_request", r.pull_event("opened", 2))

    assert [p.status for p in r.fake.calls("POST", r"/pulls/2/reviews$")] == [422, 200]
    assert r.inline(2) == []
    (review,) = r.reviews(2)
    assert "GitHub could not place 3 comment(s)" in review["body"]
    assert all(f"`{rule}`" in review["body"] for rule in ("RCP001", "RCP002", "CHL002"))
    assert "GitHub could not place 3 inline comment(s)" in r.summary(2)
    assert r.statuses(pull.head_sha)[-1]["state"] == "failure"


# ------------------------------------------------------------------ deliveries out of order


def test_two_pushes_delivered_newest_first_in_the_same_second_review_the_newest_head(
    rig: Callable[..., Rig], tmp_path: Path
) -> None:
    """Two pushes in the same second: both `synchronize` deliveries carry the same
    `updated_at`, and GitHub delivers the newest first. The queue cannot tell which head
    is newer; the worker asks GitHub and reviews the PR's current head.

    Without the fix the queued job moved to the older head, the worker skipped it ("a
    newer review covers it") and the newest head never got a review or a status."""
    r = rig(BOT_WORKERS="0")  # this replica only acknowledges: both deliveries queue first
    r.fake.create_pull(REPO, head=example_files(), number=3, user="carol")
    first = r.fake.push(REPO, 3, {**example_files(), "docs/a.md": "one\n"})
    older = r.pull_event("synchronize", 3)
    newest = r.fake.push(REPO, 3, {**example_files(), "docs/a.md": "two\n"})
    newer = r.pull_event("synchronize", 3)
    assert older["pull_request"]["updated_at"] == newer["pull_request"]["updated_at"]
    assert r.post("pull_request", newer).status_code == 202
    assert r.post("pull_request", older).status_code == 202

    # a second replica on the same queue does the reviewing
    settings = load_settings(service_env(r.fake.url, r.queue.path, secret=SECRET, login=BOT))
    queue = SQLiteQueue(settings.db_path)
    with LiveServer(create_app(settings, queue=queue)):
        r.settle()
    queue.close()
    assert r.statuses(first) == []
    assert r.statuses(newest) and r.statuses(newest)[-1]["state"] == "failure"
    (review,) = r.reviews(3)
    assert review["commit_id"] == newest


def test_a_head_left_without_a_review_or_a_job_is_swept_and_reviewed(
    rig: Callable[..., Rig],
) -> None:
    """An outage that outlasts a job's attempts dead-letters it, and GitHub does not
    redeliver by itself: the PR's newest head would wait forever for its status (a required
    check never reports). A sweeper queues a review of every head left without a review and
    without a job for `BOT_SWEEP_SECONDS`.

    Without the fix the head never got a status."""
    r = rig(BOT_MAX_ATTEMPTS="1", BOT_SWEEP_SECONDS="1", BOT_LEASE_SECONDS="1")
    pull = r.fake.create_pull(REPO, head=example_files(), number=4, user="carol")
    r.fake.fail_next("POST", r"/issues/4/comments$", 502)  # the summary's write fails once

    r.post("pull_request", r.pull_event("opened", 4))
    wait_for(lambda: any(j["state"] == "dead" for j in r.queue.jobs()), timeout=30)
    assert r.statuses(pull.head_sha) == []

    wait_for(lambda: bool(r.statuses(pull.head_sha)), timeout=30)
    r.settle()
    jobs = r.queue.jobs()
    assert [j["state"] for j in jobs] == ["dead", "done"] and jobs[1]["detail"] == ""
    assert len(r.reviews(4)) == 1  # the review written before the failure is not repeated
    assert len(r.inline(4)) == 3
    assert r.statuses(pull.head_sha)[-1]["state"] == "failure"


# ------------------------------------------------------------------ outdated comments


def test_a_finding_whose_comment_went_outdated_is_posted_again_on_its_current_line(
    rig: Callable[..., Rig],
) -> None:
    """After a push GitHub nulls `line` (and `position`) of a comment whose line moved
    away (here the `--reasoning-parser` flag moves up, past the others): the comment is
    outdated and the diff no longer shows it. The finding is posted again on its current
    line; the outdated one stays as it is.

    Without the fix the outdated comment counted as posted and the live finding had no
    comment on the diff."""
    r = rig()
    files = example_files()
    r.fake.create_pull(REPO, head=files, number=5, user="carol")
    r.deliver("pull_request", r.pull_event("opened", 5))
    (old,) = [c for c in r.inline(5) if _rule(c) == "RCP001"]

    parser = "    --reasoning-parser minimax_m3\n"
    moved = (
        files[RECIPE]
        .replace(parser, "")
        .replace(
            '    --served-model-name "$MODEL"\n', '    --served-model-name "$MODEL"\n' + parser
        )
    )
    new_head = r.fake.push(REPO, 5, {**files, RECIPE: moved})
    r.deliver("pull_request", r.pull_event("synchronize", 5))

    assert old["line"] is None and old["position"] is None  # outdated by GitHub
    current = [c for c in r.inline(5) if _rule(c) == "RCP001" and c["line"] is not None]
    (again,) = current
    assert moved.splitlines()[again["line"] - 1] == parser.rstrip("\n")
    assert again["commit_id"] == new_head
    assert render.fingerprints_in(again["body"]) == render.fingerprints_in(old["body"])
    # the two findings whose comments followed their lines are not posted again
    assert len(r.inline(5)) == 4


# ------------------------------------------------------------------ large PRs


def test_a_pr_over_githubs_3000_file_list_is_reviewed_as_partial_never_success(
    rig: Callable[..., Rig],
) -> None:
    """GitHub lists at most 3,000 files of a pull request (documented) while
    `changed_files` counts them all. The summary says the review is partial and the
    status is never `success` (here nothing else is found: "Needs a human").

    Without the fix the summary and a `success` status claimed a full review."""
    r = rig()
    head = {**base_files(example_files())}
    head.update({f"data/f{n:04d}.txt": f"{n}\n" for n in range(3005)})
    pull = r.fake.create_pull(REPO, head=head, number=6, user="carol")

    r.deliver("pull_request", r.pull_event("opened", 6))

    status = r.statuses(pull.head_sha)[-1]
    assert status["state"] == "pending", status
    assert status["description"] == (
        "Needs a human: partial review, GitHub lists 3000 of 3005 files"
    )
    summary = r.summary(6)
    assert "**Partial review**: GitHub lists 3,000 of the 3,005 files" in summary
    assert "其余 5 个未审查" in summary


# ------------------------------------------------------------------ deliveries


def test_event_names_with_digits_are_answered(rig: Callable[..., Rig]) -> None:
    """GitHub's event names have digits (`projects_v2_item`, `projects_v2`): such a
    delivery is answered 202 and ignored. Without the fix it was answered 400 "missing or
    invalid X-GitHub-Event", and GitHub marked the delivery failed."""
    r = rig()
    payload = {"action": "edited", "projects_v2_item": {"id": 1}, "installation": {"id": 1}}
    for event in ("projects_v2_item", "projects_v2", "projects_v2_status_update"):
        answer = r.post(event, payload)
        assert answer.status_code == 202, answer.text
        assert answer.json()["outcome"] == "ignored"


def test_a_reused_delivery_id_with_another_body_is_logged_and_answered_409(
    rig: Callable[..., Rig], caplog: pytest.LogCaptureFixture
) -> None:
    """GitHub redelivers a delivery with the same body under the same id. Another body
    under a known id is not a redelivery: it is logged and answered 409, and nothing of
    it is stored. Without the fix it was answered 202 "duplicate" and dropped silently."""
    r = rig(BOT_WORKERS="0")
    r.fake.create_pull(REPO, head=example_files(), number=7, user="carol")
    body = r.pull_event("opened", 7)
    assert r.post("pull_request", body, "d-7").status_code == 202
    again = r.post("pull_request", body, "d-7")  # a redelivery
    assert again.status_code == 202 and again.json()["outcome"] == "duplicate"
    other = copy.deepcopy(body)
    other["action"] = "reopened"
    with caplog.at_level(logging.WARNING, logger="bot.server"):
        answer = r.post("pull_request", other, "d-7")
    assert answer.status_code == 409, answer.text
    assert answer.json()["outcome"] == "conflict"
    assert any(
        "d-7" in rec.getMessage() and "another body" in rec.getMessage() for rec in caplog.records
    )
    stored = r.queue.delivery("d-7")
    assert stored is not None and stored["action"] == "opened" and stored["redeliveries"] == 1
    metrics = r.http.get(r.server.url + "/metrics").text
    assert 'bot_webhook_deliveries_total{event="pull_request",outcome="conflict"} 1' in metrics


def test_a_failed_installation_token_exchange_names_the_call_that_failed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """When GitHub refuses an App's installation-token exchange, the job's error, the log
    and the metrics name `POST /app/installations/1/access_tokens`. Without the fix they
    named the call the token was for (`GET .../pulls/8: 404`), which was never sent."""
    fake = FakeGitHub().start()  # its contract is checked after the test (conftest)
    try:
        fake.create_pull(REPO, head=example_files(), base=base_files(example_files()), number=8)
        fake.fail_next("POST", r"/access_tokens$", 404, message="Not Found")
        env = service_env(fake.url, tmp_path / "q.sqlite3", secret=SECRET)
        del env["GITHUB_TOKEN"]
        env.update(GITHUB_APP_ID=str(fake.app_id), GITHUB_APP_PRIVATE_KEY=fake.app_private_key_pem)
        settings = load_settings(env)
        queue = SQLiteQueue(settings.db_path)
        payload = {
            "action": "opened",
            "number": 8,
            "pull_request": {
                "number": 8,
                "state": "open",
                "updated_at": "2026-11-30T10:00:00Z",
                "head": {"sha": fake.repo(REPO).pulls[8].head_sha},
                "base": {"repo": {"full_name": REPO}},
            },
            "repository": {"full_name": REPO},
            "sender": {"login": "carol", "type": "User"},
            "installation": {"id": 1},
        }
        with caplog.at_level(logging.INFO), LiveServer(create_app(settings, queue=queue)) as srv:
            raw = encode(payload)
            httpx.post(
                srv.url + "/webhook", content=raw, headers=signed_headers(raw, secret=SECRET)
            )
            wait_for(lambda: any(j["state"] == "dead" for j in queue.jobs()), timeout=30)
            metrics = httpx.get(srv.url + "/metrics").text
        (job,) = queue.jobs()
        queue.close()
    finally:
        fake.stop()
    call = "POST /app/installations/1/access_tokens: 404"
    assert call in str(job["last_error"])
    assert "pulls/8" not in str(job["last_error"])
    assert any(call in rec.getMessage() for rec in caplog.records)
    assert 'bot_github_errors_total{method="installation_token",status="404"} 1' in metrics
    assert fake.calls("GET", r"/pulls/8$") == []  # never sent


def test_every_request_carries_the_api_version_and_the_current_media_type(
    tmp_path: Path,
) -> None:
    """Every request, the App's JWT calls and the token exchange included, carries
    `X-GitHub-Api-Version: 2022-11-28` and `Accept: application/vnd.github+json` (no
    retired preview type). Without the fix none carried the version, and the App's calls
    asked for `application/vnd.github.machine-man-preview+json`."""
    with FakeGitHub() as fake:
        pull = fake.create_pull(
            REPO, head=example_files(), base=base_files(example_files()), number=9
        )
        env = service_env(fake.url, tmp_path / "q.sqlite3", secret=SECRET)
        del env["GITHUB_TOKEN"]
        env.update(GITHUB_APP_ID=str(fake.app_id), GITHUB_APP_PRIVATE_KEY=fake.app_private_key_pem)
        settings = load_settings(env)
        queue = SQLiteQueue(settings.db_path)
        with LiveServer(create_app(settings, queue=queue)) as srv:
            raw = encode(
                {
                    "action": "opened",
                    "number": 9,
                    "pull_request": {
                        "number": 9,
                        "state": "open",
                        "head": {"sha": pull.head_sha},
                        "base": {"repo": {"full_name": REPO}},
                    },
                    "repository": {"full_name": REPO},
                    "installation": {"id": 1},
                }
            )
            httpx.post(
                srv.url + "/webhook", content=raw, headers=signed_headers(raw, secret=SECRET)
            )
            wait_for(lambda: bool(fake.repo(REPO).statuses.get(pull.head_sha)), timeout=30)
        queue.close()
        assert fake.calls("POST", r"/access_tokens$") and fake.calls("GET", r"^/app$")
        for request in fake.requests:
            assert request.headers.get("x-github-api-version") == "2022-11-28", request
            assert request.headers.get("accept") == "application/vnd.github+json", request


# ------------------------------------------------------------------ forks, renames, big files


def test_a_pr_from_a_fork_is_reviewed_through_the_base_repository(
    rig: Callable[..., Rig],
) -> None:
    """A fork's head repository is not readable by the base repository's installation;
    GitHub serves the PR's commits through the base repository. The review reads nothing
    from the fork, and still lands once the fork is deleted (`head.repo: null`)."""
    r = rig()
    pull = r.fake.create_pull(
        REPO, head=example_files(), number=10, user="outsider", fork="outsider/InferenceX"
    )
    r.deliver("pull_request", r.pull_event("opened", 10))
    assert sorted(_rule(c) for c in r.inline(10)) == ["CHL002", "RCP001", "RCP002"]
    assert r.statuses(pull.head_sha)[-1]["state"] == "failure"
    assert not r.fake.calls(path_regex="^/repos/outsider/")

    r.fake.delete_fork("outsider/InferenceX")
    fixed = example_files()
    fixed[RECIPE] = fixed[RECIPE].replace("    --reasoning-parser minimax_m3\n", "")
    new_head = r.fake.push(REPO, 10, fixed)
    r.deliver("pull_request", r.pull_event("synchronize", 10))
    answer = [c for c in r.fake.calls("GET", r"/pulls/10$") if c.status == 200][-1]
    assert answer.status == 200
    assert r.statuses(new_head)[-1]["state"] == "failure"  # RCP002 is still there
    (resolved,) = [c for c in r.inline(10) if render.RESOLVED_MARK in c["body"]]
    assert "RCP001" in resolved["body"]


def test_a_renamed_recipe_with_changes_is_reviewed_on_its_new_path(
    rig: Callable[..., Rig],
) -> None:
    """A rename with changes comes as `status: renamed` with `previous_filename` and a
    patch of the changes. The findings on the changed lines land on the new path."""
    r = rig()
    files = {**base_files(example_files()), RECIPE: example_files()[RECIPE]}
    r.fake.commit(REPO, files, branch="main")
    renamed = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_eagle3.sh"
    head = {k: v for k, v in files.items() if k != RECIPE}
    head[renamed] = files[RECIPE].replace("--kv-cache-dtype fp8", "--kv-cache-dtype auto")
    pull = r.fake.create_pull(REPO, head=head, number=11, user="carol")
    (listed,) = r.fake.pull_files(REPO, 11)
    assert (listed["status"], listed["previous_filename"]) == ("renamed", RECIPE)

    r.deliver("pull_request", r.pull_event("opened", 11))

    (status,) = r.statuses(pull.head_sha)
    assert status["state"] in ("success", "failure", "pending")
    for c in r.inline(11):
        assert c["path"] == renamed  # never the old path, which the PR's diff no longer has
    summary = r.summary(11)
    assert RECIPE not in summary.replace(renamed, "")


def test_files_without_a_patch_are_reviewed_outside_the_diff(rig: Callable[..., Rig]) -> None:
    """GitHub leaves `patch` out for a binary file and for a diff too large to show. No
    inline comment is aimed at such a file (GitHub would refuse the review); its findings
    are in the summary, and the status is written."""
    r = rig()
    r.fake.patch_limit = 20  # this recipe's diff is "too large" here
    head = {**example_files(), "docs/plot.png": b"\x89PNG\r\n\x1a\n\x00\x00binary"}
    pull = r.fake.create_pull(REPO, head=head, number=12, user="carol")
    listed = {f["filename"]: f for f in r.fake.pull_files(REPO, 12)}
    assert "patch" not in listed[RECIPE] and "patch" not in listed["docs/plot.png"]

    r.deliver("pull_request", r.pull_event("opened", 12))

    assert [p.status for p in r.fake.calls("POST", r"/pulls/12/reviews$")] == [200]
    assert [_rule(c) for c in r.inline(12)] == ["CHL002"]  # the changelog has a patch
    summary = r.summary(12)
    assert "`RCP001`" in summary and "`RCP002`" in summary
    assert r.statuses(pull.head_sha)[-1]["state"] == "failure"


def test_a_force_push_is_reviewed_on_the_rewritten_head(rig: Callable[..., Rig]) -> None:
    """A force-push replaces the head with one that does not descend from it: the old
    comments go outdated, the ones whose finding is gone are marked resolved, and the new
    head gets its own review and status."""
    r = rig()
    pull = r.fake.create_pull(REPO, head=example_files(), number=13, user="carol")
    r.deliver("pull_request", r.pull_event("opened", 13))
    first = pull.head_sha

    fixed = example_files()
    fixed[RECIPE] = (
        fixed[RECIPE]
        .replace("--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.90")
        .replace("    --reasoning-parser minimax_m3\n", "")
    )
    rewritten = r.fake.force_push(REPO, 13, fixed)
    assert first not in r.fake.repo(REPO).ancestors(rewritten)
    r.deliver("pull_request", r.pull_event("synchronize", 13, before=first, after=rewritten))

    assert r.statuses(rewritten)[-1]["state"] == "failure"  # CHL002 is left
    assert r.statuses(first)[-1]["state"] == "failure"  # the old head keeps its own
    resolved = [c["body"] for c in r.inline(13) if render.RESOLVED_MARK in c["body"]]
    assert any("`RCP001`" in body for body in resolved)
    assert any("`RCP002`" in body for body in resolved)
    assert "Fixed since the last push" in r.summary(13)


# ------------------------------------------------------------------ real payloads


def _examples() -> list[tuple[str, dict[str, Any]]]:
    """Every example of every event: ../shared/webhooks (recorded payloads) and, when CI
    fetched it, npm `@octokit/webhooks-examples` (`BOT_WEBHOOK_EXAMPLES`)."""
    import os

    out: list[tuple[str, dict[str, Any]]] = []
    if SHARED.is_dir():
        for path in sorted(SHARED.glob("*.json")):
            if "schema" in path.name:
                continue
            out += [(path.stem, e) for e in json.loads(path.read_text(encoding="utf-8"))]
    npm = os.environ.get("BOT_WEBHOOK_EXAMPLES")
    if npm and Path(npm).is_file():
        for entry in json.loads(Path(npm).read_text(encoding="utf-8")):
            out += [(entry["name"], e) for e in entry["examples"]]
    return out


def test_every_real_example_payload_is_answered(tmp_path: Path) -> None:
    """Every recorded example of every event GitHub sends is answered 200 (ping) or 202:
    no 4xx or 5xx, so GitHub never marks one of them failed."""
    from bot.server.app import Service
    from bot.server.metrics import Metrics
    from bot.server.webhook import sign
    from bot.server.worker import Identity

    examples = _examples()
    if not examples:
        pytest.skip("no example payloads (../shared absent, BOT_WEBHOOK_EXAMPLES unset)")
    settings = load_settings(
        {"BOT_WEBHOOK_SECRET": "s", "GITHUB_TOKEN": "t", "BOT_DB": str(tmp_path / "q.sqlite3")}
    )
    queue = SQLiteQueue(settings.db_path)
    service = Service(settings, queue, Metrics(), Identity(), None)
    answered: dict[int, int] = {}
    for n, (event, example) in enumerate(examples):
        body = json.dumps(example).encode()
        headers = {
            "x-hub-signature-256": sign(b"s", body),
            "x-github-event": event,
            "x-github-delivery": f"example-{n}",
            "content-type": "application/json",
        }
        status, answer = service.handle_webhook(headers, body)
        answered[status] = answered.get(status, 0) + 1
        assert status in (200, 202), (event, example.get("action"), answer)
    queue.close()
    assert answered.get(202, 0) > 0


def test_nulls_github_sends_are_read_deleted_accounts_and_unset_descriptions(
    rig: Callable[..., Rig],
) -> None:
    """GitHub shows a deleted account's comments, reviews and statuses with `user: null`
    (`creator: null`) and its pull requests as `ghost`'s, and a status written without a
    description has `description: null`. The review reads all of them and lands."""
    r = rig()
    pull = r.fake.create_pull(REPO, head=example_files(), number=14, user="leaver")
    r.fake.add_token("leaver-token", "leaver")
    from bot.github.gateway import from_token
    from bot.github.types import ReviewComment

    leaver = from_token("leaver-token", r.fake.url, seconds_between_writes=0)
    leaver.create_issue_comment(REPO, 14, "I will be gone soon")
    leaver.create_review(REPO, 14, pull.head_sha, "self-review", [ReviewComment(RECIPE, 30, "x")])
    leaver._http.write(
        REPO,
        "POST",
        f"/repos/{REPO}/statuses/{pull.head_sha}",
        {"state": "pending", "context": "ci"},
    )
    leaver.close()
    r.fake.delete_user("leaver")
    (ci,) = [s for s in r.fake.repo(REPO).statuses[pull.head_sha] if s["context"] == "ci"]
    assert ci["creator"] is None and ci["description"] is None

    r.deliver("pull_request", r.pull_event("opened", 14))

    assert r.fake.repo(REPO).pulls[14].user == "ghost"
    assert r.statuses(pull.head_sha)[-1]["state"] == "failure"
    assert sorted(_rule(c) for c in r.inline(14)) == ["CHL002", "RCP001", "RCP002"]
    others = [c for c in r.fake.repo(REPO).review_comments[14] if c["user"] is None]
    assert len(others) == 1  # the deleted account's inline comment, still there
