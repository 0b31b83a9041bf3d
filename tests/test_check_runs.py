"""The review's check run, its Re-run button and "Apply safe fixes", through the service:
a signed webhook in, the worker, PyGithub as a GitHub App, the contract-checked fake
GitHub on loopback out.

- a defective PR gets a check run created `in_progress` when the review starts and
  completed with the gate's conclusion, a title with the counts, the bilingual summary,
  per-rule details, and an annotation on the exact lines of each finding; 120 findings
  go out in three updates (GitHub takes 50 annotations per request);
- "Re-run" (`check_run.rerequested`, `check_suite.rerequested`) gives one new review of
  the same head, with a run of its own and no duplicate comment or status;
- "Apply safe fixes" makes exactly one commit whose files are what `bot lint --fix`
  writes on that head; none on a fork, none after the head moved (also when it moves
  between the bot's last read and its ref update), none twice;
- a status-only configuration writes what the review wrote before check runs; a token
  (no App) degrades to it.
"""

from __future__ import annotations

import datetime
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.cli import main
from bot.review import render
from bot.server.app import create_app
from bot.server.queue import SQLiteQueue
from bot.server.settings import load_settings
from tests.fakegithub import FakeGitHub
from tests.test_e2e_review import RECIPE, REPO, base_files, example_files
from tests.test_review_local import git, local_pr
from tests.webhook_fakes import LiveServer, encode, service_env, signed_headers, wait_for

SECRET = b"check run secret"
NAME = "recipe-review"
CHANGELOG = "perf-changelog.yaml"


@dataclass
class AppRig:
    """The fake GitHub, the service acting as its GitHub App, and the service's queue."""

    fake: FakeGitHub
    server: LiveServer
    queue: SQLiteQueue
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30))

    def post(self, event: str, payload: Any) -> httpx.Response:
        raw = encode(payload)
        headers = signed_headers(raw, event, str(uuid.uuid4()), secret=SECRET)
        return self.http.post(self.server.url + "/webhook", content=raw, headers=headers)

    def deliver(self, event: str, payload: Any) -> httpx.Response:
        r = self.post(event, payload)
        assert r.status_code in (200, 202), r.text
        self.settle()
        return r

    def settle(self, timeout: float = 120) -> None:
        wait_for(
            lambda: all(j["state"] not in ("queued", "running") for j in self.queue.jobs()),
            timeout=timeout,
        )

    def opened(self, number: int, action: str = "opened", sender: str = "carol") -> Any:
        pull = self.fake.repo(REPO).pulls[number]
        return {
            "action": action,
            "number": number,
            "pull_request": {
                "number": number,
                "state": "open",
                "draft": False,
                "updated_at": self.fake._now(),
                "head": {"sha": pull.head_sha, "ref": pull.head_ref},
                "base": {"sha": pull.base_sha, "ref": "main", "repo": {"full_name": REPO}},
                "user": {"login": pull.user},
            },
            "repository": {"full_name": REPO},
            "sender": {"login": sender, "type": "Bot" if sender.endswith("[bot]") else "User"},
            "installation": {"id": 1},
        }

    def runs(self, sha: str) -> list[dict[str, Any]]:
        """The App's check runs on `sha`, oldest first."""
        return [
            r
            for r in self.fake.repo(REPO).check_runs.get(sha, [])
            if r["app"]["slug"] == self.fake.app_slug
        ]

    def run(self, sha: str) -> dict[str, Any]:
        (run,) = self.runs(sha)
        return run

    def statuses(self, sha: str) -> list[dict[str, Any]]:
        return [s for s in self.fake.repo(REPO).statuses.get(sha, []) if s["context"] == NAME]


@pytest.fixture
def app_rig(tmp_path: Path) -> Iterator[Callable[..., AppRig]]:
    """`app_rig(**env)`: the seed repository on a fake GitHub, the service as its App."""
    made: list[tuple[AppRig, LiveServer]] = []

    def make(*, token: bool = False, **env: str) -> AppRig:
        fake = FakeGitHub().start()
        fake.app_permissions["contents"] = "write"  # the App may commit its fixes
        fake.create_repo(REPO, base_files(example_files()))
        values = service_env(fake.url, tmp_path / f"q{len(made)}.sqlite3", secret=SECRET)
        if token:
            fake.add_token("e2e-token", "recipe-bot")
            values["BOT_LOGIN"] = "recipe-bot"
        else:
            del values["GITHUB_TOKEN"]
            values.update(
                GITHUB_APP_ID=str(fake.app_id),
                GITHUB_APP_PRIVATE_KEY=fake.app_private_key_pem,
                GITHUB_APP_SLUG=fake.app_slug,
            )
        settings = load_settings({**values, **env})
        queue = SQLiteQueue(settings.db_path)
        server = LiveServer(create_app(settings, queue=queue))
        server.__enter__()
        rig = AppRig(fake, server, queue)
        made.append((rig, server))
        return rig

    yield make
    for rig, server in made:
        rig.http.close()
        server.__exit__(None, None, None)
        rig.queue.close()
        rig.fake.stop()
        rig.fake.assert_contract()
        assert not rig.fake.crashes


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


# ------------------------------------------------------------------ the check run


def test_a_defective_pr_gets_a_completed_check_run_with_annotations_on_the_exact_lines(
    app_rig: Callable[..., AppRig],
) -> None:
    r = app_rig()
    head = example_files()
    pull = r.fake.create_pull(REPO, head=head, number=1)
    r.deliver("pull_request", r.opened(1))

    # created in_progress when the review started, before anything else was written
    writes = [q for q in r.fake.writes() if "/access_tokens" not in q.path]
    assert writes[0].method == "POST" and writes[0].path.endswith("/check-runs")
    assert writes[0].json["status"] == "in_progress" and writes[0].json["external_id"] == "1"
    run = r.run(pull.head_sha)
    assert (run["status"], run["conclusion"], run["name"]) == ("completed", "failure", NAME)
    title = run["output"]["title"]
    assert title.startswith("Blocked / 阻止合并") and "2 error(s), 1 warning(s), 0 info" in title
    summary = run["output"]["summary"]
    assert "Gate: BLOCKED" in summary and "门禁：阻止合并" in summary
    assert "recipe-review:state" not in summary  # the comment's hidden markers stay out
    text = run["output"]["text"]
    for rule in ("RCP001", "RCP002", "CHL002"):
        assert f"[`{rule}`" in text
    assert "<summary>Why / 原因</summary>" in text

    found = {
        (a["title"].split()[0], a["path"], a["start_line"], a["end_line"], a["annotation_level"])
        for a in r.fake.annotations(run["id"])
    }
    recipe, log = head[RECIPE], head[CHANGELOG]
    entry = log[log.rindex("\n- config-keys:") + 1 :]
    first = log.count("\n", 0, log.rindex("\n- config-keys:")) + 2
    parser = line_of(recipe, "--reasoning-parser")
    memory = line_of(recipe, "--gpu-memory-utilization 0.95")
    assert found == {
        ("RCP001", RECIPE, parser, parser, "warning"),
        ("RCP002", RECIPE, memory, memory, "failure"),
        ("CHL002", CHANGELOG, *2 * [first + entry.count("\n") - 1], "failure"),  # the entry's end
    }
    # the safe fix (CHL002's pr-link) is offered: same-repository branch, contents: write
    assert run["actions"] == [
        {
            "label": "Apply safe fixes",
            "description": "Commit 1 safe fix(es) to the branch",
            "identifier": "apply-safe-fixes",
        }
    ]
    # the commit status stays, with the same verdict
    assert [s["state"] for s in r.statuses(pull.head_sha)] == ["failure"]


def test_120_findings_are_annotated_in_three_updates(app_rig: Callable[..., AppRig]) -> None:
    r = app_rig()
    head = example_files()
    head[CHANGELOG] += "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2\n"
    for n in range(59):  # each copy of the seed recipe: RCP001 and RCP002
        head[RECIPE.replace("_mtp.sh", f"_mtp{n}.sh")] = head[RECIPE]
    pull = r.fake.create_pull(REPO, head=head, number=2)
    r.deliver("pull_request", r.opened(2))
    run = r.run(pull.head_sha)
    updates = r.fake.calls("PATCH", rf"/check-runs/{run['id']}$")
    sent = [len(u.json["output"].get("annotations", [])) for u in updates]
    assert sent == [50, 50, 20]
    assert "conclusion" not in updates[0].json and updates[-1].json["conclusion"] == "failure"
    assert run["output"]["annotations_count"] == 120 == len(r.fake.annotations(run["id"]))
    assert "120 finding(s) on changed lines are annotations" in run["output"]["summary"]


def test_a_51st_annotation_in_one_request_is_refused_by_github(fake_github: FakeGitHub) -> None:
    """The fake holds the bot to GitHub's limit: 50 annotations per request, 422 beyond."""
    pull = fake_github.create_pull(REPO, head={"a.sh": "echo\n"}, number=3)
    token = fake_github._issue_token(1)["token"]
    url = f"{fake_github.url}/repos/{REPO}/check-runs"
    headers = {
        "Authorization": f"token {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    note = {"path": "a.sh", "start_line": 1, "end_line": 1, "annotation_level": "notice"}
    body = {
        "name": NAME,
        "head_sha": pull.head_sha,
        "output": {"title": "t", "summary": "s", "annotations": [{**note, "message": "m"}] * 51},
    }
    assert httpx.post(url, json=body, headers=headers).status_code == 422
    body["output"]["annotations"] = body["output"]["annotations"][:50]  # type: ignore[index]
    assert httpx.post(url, json=body, headers=headers).status_code == 201
    assert any("body at output/annotations" in v for v in fake_github.contract_violations)
    fake_github.clear_requests()  # the 51 were sent on purpose


def test_nothing_to_check_is_neutral_and_a_warning_needs_a_human(
    app_rig: Callable[..., AppRig],
) -> None:
    r = app_rig()
    head = example_files()
    only_docs = r.fake.create_pull(REPO, head={**base_files(head), "notes.txt": "x\n"}, number=5)
    r.deliver("pull_request", r.opened(5))
    assert r.run(only_docs.head_sha)["conclusion"] == "neutral"
    warned = dict(head)
    warned[RECIPE] = head[RECIPE].replace(
        "--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.90"
    )
    warned[CHANGELOG] += "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/6\n"
    pull = r.fake.create_pull(REPO, head=warned, number=6)
    r.deliver("pull_request", r.opened(6))
    run = r.run(pull.head_sha)
    assert run["conclusion"] == "action_required" and "Needs a human" in run["output"]["title"]
    assert [s["state"] for s in r.statuses(pull.head_sha)] == ["pending"]


# ------------------------------------------------------------------ re-run


def test_rerun_gives_one_new_review_of_the_same_head(app_rig: Callable[..., AppRig]) -> None:
    r = app_rig()
    pull = r.fake.create_pull(REPO, head=example_files(), number=1)
    r.deliver("pull_request", r.opened(1))
    (first,) = r.runs(pull.head_sha)
    reviews = len(r.fake.repo(REPO).reviews[1])
    comments = len(r.fake.repo(REPO).review_comments[1])

    answer = r.deliver("check_run", r.fake.check_run_event(REPO, first["id"], "rerequested"))
    assert answer.json()["outcome"] == "queued"
    runs = r.runs(pull.head_sha)
    assert len(runs) == 2 and runs[0]["id"] == first["id"]
    rerun = runs[1]
    assert (rerun["status"], rerun["conclusion"]) == ("completed", "failure")
    assert rerun["external_id"].startswith("1:rerun-")
    assert len(r.fake.annotations(rerun["id"])) == 3
    # the same head: nothing new inline, no second review, the status not written again
    assert len(r.fake.repo(REPO).reviews[1]) == reviews
    assert len(r.fake.repo(REPO).review_comments[1]) == comments
    assert len(r.statuses(pull.head_sha)) == 1

    # "Re-run all checks": the suite's rerequest, the same again
    r.deliver("check_suite", r.fake.check_suite_event(REPO, pull.head_sha))
    assert len(r.runs(pull.head_sha)) == 3
    # a delivery for the same head that is no re-run (a reopen) reuses the newest run
    r.deliver("pull_request", r.opened(1, "reopened"))
    assert len(r.runs(pull.head_sha)) == 3
    assert [j["kind"] for j in r.queue.jobs()].count("review") == 4


def test_a_rerun_of_a_fork_prs_run_finds_its_pull_request_by_external_id(
    app_rig: Callable[..., AppRig],
) -> None:
    """GitHub lists no pull request in a fork PR's check run payload."""
    r = app_rig()
    pull = r.fake.create_pull(REPO, head=example_files(), number=9, fork="someone/bench")
    r.deliver("pull_request", r.opened(9))
    (run,) = r.runs(pull.head_sha)
    assert run["actions"] == []  # never a fix offered on a fork
    event = r.fake.check_run_event(REPO, run["id"], "rerequested")
    assert event["check_run"]["pull_requests"] == []
    r.deliver("check_run", event)
    assert len(r.runs(pull.head_sha)) == 2


def test_rerun_requests_collapse_like_pushes(tmp_path: Path) -> None:
    """Two re-run requests for one head before a worker takes them: one review."""
    from bot.server.queue import DeliveryRecord
    from bot.server.webhook import PullEvent

    queue = SQLiteQueue(str(tmp_path / "q.sqlite3"))
    head = "a" * 40
    ids = []
    for n, (event, stamp) in enumerate((("check_run", 10.0), ("check_suite", 11.0))):
        pull = PullEvent(REPO, 1, head, stamp, 1, "maintainer", False)
        record = DeliveryRecord(f"d{n}", event, "rerequested", "review", "rerun", pull)
        ids.append(queue.ingest(record))
    assert [i.outcome for i in ids] == ["queued", "collapsed"]
    (job,) = [j for j in queue.jobs() if j["state"] == "queued"]
    claimed = queue.claim("w")
    assert claimed is not None and claimed.id == job["id"] and queue.rerun_requested(claimed)
    queue.close()


# ------------------------------------------------------------------ apply safe fixes


def press(r: AppRig, sha: str) -> httpx.Response:
    run = r.runs(sha)[-1]
    event = r.fake.check_run_event(REPO, run["id"], "requested_action", "apply-safe-fixes")
    return r.deliver("check_run", event)


def local_fix(tmp_path: Path, base: dict[str, str], head: dict[str, str], pr: int) -> Path:
    """`bot lint --fix` on a checkout of the same head, against the same base."""
    repo, _ = local_pr(tmp_path, base, head)
    argv = ["lint", "--repo", str(repo), "--base", "main", "--fix", "--pr", str(pr)]
    argv += ["--github-repo", REPO, "--fail-on", "never"]
    assert main(argv) == 0
    return repo


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_apply_safe_fixes_commits_exactly_bot_lint_fix(
    app_rig: Callable[..., AppRig], tmp_path: Path
) -> None:
    r = app_rig()
    base, head = base_files(example_files()), example_files()
    pull = r.fake.create_pull(REPO, head=head, number=1)
    old_head = pull.head_sha
    r.deliver("pull_request", r.opened(1))
    assert r.run(old_head)["actions"][0]["label"] == "Apply safe fixes"

    answer = press(r, old_head)
    assert answer.json()["outcome"] == "queued"
    repo = r.fake.repo(REPO)
    ((name, branch, before, after),) = r.fake.ref_updates
    assert (name, branch, before) == (REPO, "feature", old_head)
    assert repo.pulls[1].head_sha == after == repo.branches["feature"]
    commit = repo.commits[after]
    assert commit["parents"] == [old_head] and commit["author"] == r.fake.bot_login
    assert commit["message"].startswith("Apply safe fixes: CHL002\n")

    # the commit's files are exactly what `bot lint --fix` writes on a checkout of the head
    local = local_fix(tmp_path, base, head, 1)
    fixed = {p for p, e in repo.files(after).items() if e.sha != repo.files(old_head)[p].sha}
    changed = git(local, "diff", "--name-only").splitlines()
    assert sorted(fixed) == sorted(changed) == [CHANGELOG]
    for path in fixed:
        assert repo.blobs[repo.files(after)[path].sha] == (local / path).read_bytes()
    # only the safe fix: the unsafe ones (RCP001, RCP002) stay for a human
    assert repo.blobs[repo.files(after)[RECIPE].sha].decode() == head[RECIPE]
    assert "pull/1" in repo.blobs[repo.files(after)[CHANGELOG].sha].decode()

    # the push is the bot's own synchronize: the new head gets a normal review
    r.deliver("pull_request", r.opened(1, "synchronize", sender=r.fake.bot_login))
    run = r.run(after)
    assert run["conclusion"] == "failure" and run["actions"] == []  # nothing safe is left
    assert "CHL002" not in {a["title"].split()[0] for a in r.fake.annotations(run["id"])}

    # never twice for one head: another press on the old head's run starts nothing
    again = press(r, old_head)
    assert again.json()["outcome"] == "superseded" and len(r.fake.ref_updates) == 1


def test_no_fix_commit_on_a_fork(app_rig: Callable[..., AppRig]) -> None:
    r = app_rig()
    pull = r.fake.create_pull(REPO, head=example_files(), number=2, fork="someone/bench")
    r.deliver("pull_request", r.opened(2))
    assert r.run(pull.head_sha)["actions"] == []
    press(r, pull.head_sha)  # a forged press (the button is not there)
    assert r.fake.ref_updates == [] and not r.fake.calls("POST", r"/git/")
    (job,) = [j for j in r.queue.jobs() if j["kind"] == "fix"]
    assert "fork" in str(job["detail"])


def test_no_fix_commit_after_the_head_moved(app_rig: Callable[..., AppRig]) -> None:
    r = app_rig()
    head = example_files()
    pull = r.fake.create_pull(REPO, head=head, number=3)
    old_head = pull.head_sha
    r.deliver("pull_request", r.opened(3))
    r.fake.push(REPO, 3, {**head, "notes.txt": "more\n"})  # a push the bot has not seen
    press(r, old_head)
    assert r.fake.ref_updates == [] and not r.fake.calls("POST", r"/git/")
    (job,) = [j for j in r.queue.jobs() if j["kind"] == "fix"]
    assert "moved" in str(job["detail"])


def test_no_fix_commit_when_the_head_moves_just_before_the_ref_update(
    app_rig: Callable[..., AppRig],
) -> None:
    """The compare-and-swap: the branch moves between the bot's last read and its ref
    update; GitHub refuses the update (not a fast-forward) and nothing lands."""
    r = app_rig()
    head = example_files()
    pull = r.fake.create_pull(REPO, head=head, number=4)
    old_head = pull.head_sha
    r.deliver("pull_request", r.opened(4))
    r.fake.before("PATCH", r"/git/refs/", lambda f: f.push(REPO, 4, {**head, "x.txt": "x\n"}))
    press(r, old_head)
    (update,) = r.fake.calls("PATCH", r"/git/refs/")
    assert update.status == 422 and update.json == {"sha": update.json["sha"], "force": False}
    assert r.fake.ref_updates == []
    tip = r.fake.repo(REPO).branches["feature"]
    assert r.fake.repo(REPO).commits[tip]["parents"] == [old_head]  # the other push only
    (job,) = [j for j in r.queue.jobs() if j["kind"] == "fix"]
    assert "moved" in str(job["detail"]) and job["state"] == "done"


def test_no_fix_action_without_contents_write(app_rig: Callable[..., AppRig]) -> None:
    r = app_rig()
    r.fake.app_permissions["contents"] = "read"
    pull = r.fake.create_pull(REPO, head=example_files(), number=5)
    r.deliver("pull_request", r.opened(5))
    assert r.run(pull.head_sha)["actions"] == []


# ------------------------------------------------------------------ compatibility


def test_status_only_configuration_writes_what_the_review_wrote_before(
    app_rig: Callable[..., AppRig],
) -> None:
    r = app_rig(BOT_CHECK_RUNS="false")
    pull = r.fake.create_pull(REPO, head=example_files(), number=1)
    r.deliver("pull_request", r.opened(1))
    assert not r.fake.calls(None, r"/check-runs")
    writes = [(q.method, q.path.split("/")[-1]) for q in r.fake.writes() if "/app/" not in q.path]
    assert writes == [("POST", "reviews"), ("POST", "comments"), ("POST", pull.head_sha)]
    # a check run event is not the service's to act on then
    assert (
        r.post("check_suite", r.fake.check_suite_event(REPO, pull.head_sha)).json()["outcome"]
        == "ignored"
    )


def test_the_summary_comment_can_be_left_to_the_check_run(
    app_rig: Callable[..., AppRig],
) -> None:
    r = app_rig(BOT_SUMMARY_COMMENT="false", BOT_COMMIT_STATUS="false")
    pull = r.fake.create_pull(REPO, head=example_files(), number=1)
    r.deliver("pull_request", r.opened(1))
    assert not r.fake.repo(REPO).issue_comments.get(1)
    assert not r.statuses(pull.head_sha)
    run = r.run(pull.head_sha)
    assert run["conclusion"] == "failure" and "Gate: BLOCKED" in run["output"]["summary"]
    assert len(r.fake.repo(REPO).review_comments[1]) == 3  # inline comments stay


def test_a_token_cannot_write_check_runs_and_the_review_still_lands(
    app_rig: Callable[..., AppRig],
) -> None:
    r = app_rig(token=True)
    pull = r.fake.create_pull(REPO, head=example_files(), number=1)
    r.deliver("pull_request", r.opened(1))
    (attempt,) = r.fake.calls("POST", r"/check-runs$")
    assert attempt.status == 403
    assert [s["state"] for s in r.statuses(pull.head_sha)] == ["failure"]
    assert any(render.SUMMARY_MARK in c["body"] for c in r.fake.repo(REPO).issue_comments[1])
    # the process remembers it: the next review does not ask again
    other = r.fake.create_pull(REPO, head=example_files(), number=2, head_ref="other")
    r.deliver("pull_request", r.opened(2))
    assert len(r.fake.calls("POST", r"/check-runs$")) == 1
    assert [s["state"] for s in r.statuses(other.head_sha)] == ["failure"]


def test_settings_refuse_a_review_with_nothing_to_carry_its_verdict() -> None:
    from bot.server.settings import SettingsError

    env = service_env("http://127.0.0.1:9", "q.sqlite3", secret=SECRET)
    with pytest.raises(SettingsError, match="BOT_CHECK_RUNS=false"):
        load_settings({**env, "BOT_CHECK_RUNS": "false", "BOT_COMMIT_STATUS": "false"})
    with pytest.raises(SettingsError, match="BOT_SIGNOFF_STATUS_CONTEXT"):
        load_settings({**env, "BOT_CHECK_RUN_NAME": "codeowner-signoff-verify"})
    assert load_settings(env).check_run == NAME
    assert datetime.date.today()  # (the fix job reviews with today's date, as the CLI)


# ------------------------------------------------------------------ GitHub's own payloads

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "webhooks"
needs_shared = pytest.mark.skipif(
    not (SHARED / "check_run.json").exists(), reason="../shared/webhooks is absent"
)


@needs_shared
def test_githubs_check_run_and_check_suite_payloads_are_classified() -> None:
    import copy
    import json

    from bot.server.webhook import classify

    runs = json.loads((SHARED / "check_run.json").read_text(encoding="utf-8"))
    suites = json.loads((SHARED / "check_suite.json").read_text(encoding="utf-8"))
    (pressed,) = [p for p in runs if p["action"] == "requested_action"]
    name = pressed["check_run"]["name"]
    # another App's identifier: not ours to act on
    other = classify("check_run", pressed, check_run=name)
    assert other.kind == "ignore" and "does not offer" in other.reason
    ours = copy.deepcopy(pressed)
    ours["requested_action"]["identifier"] = "apply-safe-fixes"
    fix = classify("check_run", ours, check_run=name)
    assert fix.kind == "fix" and fix.pull is not None
    assert (fix.pull.number, fix.pull.head_sha) == (26764, pressed["check_run"]["head_sha"])
    assert fix.pull.repo == pressed["repository"]["full_name"]
    assert classify("check_run", ours, check_run="recipe-review").reason == "another check run"
    assert classify("check_run", ours).kind == "ignore"  # check runs off

    for payload in [p for p in runs if p["action"] == "rerequested"]:
        # these runs name no pull request and carry no external_id: nothing to review
        d = classify("check_run", payload, check_run=payload["check_run"]["name"])
        assert d.kind == "ignore" and "names no pull request" in d.reason
        mine = copy.deepcopy(payload)
        mine["check_run"]["external_id"] = "12:rerun-3"
        d = classify("check_run", mine, check_run=payload["check_run"]["name"])
        assert d.kind == "review" and d.pull is not None and d.pull.number == 12
    for payload in suites:
        d = classify("check_suite", payload, check_run="recipe-review")
        if payload["action"] != "rerequested":
            assert d.kind == "ignore"
        else:
            assert d.kind == "review" and d.pull is not None and d.pull.number == 2
            assert d.pull.head_sha == payload["check_suite"]["head_sha"]
            assert d.pull.updated_at is not None


# ------------------------------------------------------------------ the payload, pure


def _finding(line: int, end: int | None = None, col: int = 5, end_col: int | None = 9) -> Any:
    from bot.core.model import ERROR, Finding, Span, T

    return Finding(
        rule="RCP002",
        slug="s",
        severity=ERROR,
        path="a.sh",
        span=Span(line, col, end, end_col),
        title=T("t", "标题"),
        message=T("m " + "x" * 70_000, "消息"),
        fix=None,
        subject=f"s{line}",
        in_diff=True,
    )


def test_annotations_carry_columns_only_on_one_line_and_respect_githubs_limits() -> None:
    from bot.review import checkrun

    one = checkrun.annotation(_finding(3))
    assert (one.start_line, one.end_line, one.start_column, one.end_column) == (3, 3, 5, 9)
    assert one.annotation_level == "failure" and len(one.message.encode()) <= 64 * 1024
    many = checkrun.annotation(_finding(3, 5))
    assert (many.start_line, many.end_line, many.start_column, many.end_column) == (
        3,
        5,
        None,
        None,
    )
    assert "start_column" not in many.to_json()
    kept, left = checkrun.annotations_for([_finding(n) for n in range(1, 620)])
    assert (len(kept), left) == (checkrun.MAX_ANNOTATIONS, 119)
    assert [len(b) for b in checkrun.batches(kept)] == [50] * 10
    assert checkrun.batches([]) == [()]
    text = checkrun.summary("## recipe-review\n" + "y" * 70_000, len(kept), left)
    assert len(text) <= 65_535 and text.endswith("已按 GitHub 长度限制截断)")
    action = checkrun.fix_action(123456)
    assert len(action.label) <= 20 and len(action.description) <= 40
    assert len(action.identifier) <= 20
