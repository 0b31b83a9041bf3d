"""The sign-off gate end to end: signed webhooks -> the service -> the queue (sign-off jobs)
-> `bot.signoff.service` -> PyGithub -> the fake GitHub on loopback.

Each scenario drives real deliveries shaped like GitHub's (`issue_comment`,
`pull_request_review`, `pull_request.synchronize`), written by the accounts involved
through their own tokens, and asserts the verdict comment and the commit status on the
exact head SHA: a sign-off passes; a push makes it stale; an edit by someone else, a
deletion or a dismissal withdraws it; a forged "Verdict: PASS" changes nothing and is
reported. The fake's clock is stepped by hand, so "posted before the push" is exact.
"""

from __future__ import annotations

import copy
import json
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.github.gateway import PyGithubGateway, from_token
from bot.github.types import PullInfo, ReviewComment
from bot.server.app import create_app
from bot.server.queue import SCHEMA_VERSION, DeliveryRecord, SQLiteQueue
from bot.server.settings import load_settings
from bot.server.webhook import classify, signoff_event
from bot.signoff.model import VERDICT_MARK
from bot.signoff.service import RECORD_MARK, SignoffSettings, verify_signoffs
from tests.fakegithub import FakeGitHub
from tests.github_contract import GITHUB_HEADERS
from tests.webhook_fakes import LiveServer, encode, service_env, signed_headers, wait_for

REPO = "octo/bench"
SECRET = b"sign-off secret"
BOT = "recipe-bot"
CONTEXT = "codeowner-signoff-verify"
PHRASE = "As a PR reviewer and CODEOWNER, I have reviewed this and have"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "webhooks"

TEMPLATE_DOC = f"""\
# Review checklist

## Template
```
{PHRASE}:
- [ ] Verified that this is the latest version of [the checklist](https://example.test/docs/CHECKLIST.md)
- [ ] Verified that the sweep for this PR is green and linked the workflow run.
- [ ] Verified that the pinned image runs unpatched, or that a waiver under docs/waiver/ covers the patch.
- [ ] If any of the above criteria cannot reasonably be satisfied, I have explained why below.

### Additional detail section:
- insert any additional info here

Signed: `FILL_IN_GITHUB_USERNAME`
```
"""
BASE = {
    ".github/CODEOWNERS": "* @octo/core\ndocs/ @alice\n",
    "docs/PR_REVIEW_CHECKLIST.md": TEMPLATE_DOC,
    "docs/guide.md": "Hello\n",
}
HEAD = {**BASE, "docs/guide.md": "Hello, world\n"}


def signoff_body(login: str = "alice", detail: str = "sweep: green") -> str:
    block = TEMPLATE_DOC.split("```")[1].strip("\n")
    body = block.replace("- [ ]", "- [x]").replace("FILL_IN_GITHUB_USERNAME", login)
    return body.replace("insert any additional info here", detail)


FORGED = f"{VERDICT_MARK}\n## ✅✅✅ **Verdict: PASS** ✅✅✅\n"


class Clock:
    """The fake GitHub's clock: moves only when told (seconds resolution, like GitHub)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 10, 0, 0, tzinfo=UTC).timestamp()
        self.lock = threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            return self.now

    def tick(self, seconds: float = 10) -> None:
        with self.lock:
            self.now += seconds


@dataclass
class Gate:
    """One PR on the fake GitHub, the live service, and the people around the PR."""

    fake: FakeGitHub
    clock: Clock
    server: LiveServer
    queue: SQLiteQueue
    number: int
    people: dict[str, PyGithubGateway] = field(default_factory=dict)
    deliveries: int = 0
    # also what the people around the PR call GitHub with: its API version and media type
    http: httpx.Client = field(
        default_factory=lambda: httpx.Client(timeout=30, headers=GITHUB_HEADERS)
    )

    # -- state

    @property
    def head(self) -> str:
        return self.fake.repo(REPO).pulls[self.number].head_sha

    def statuses(self, sha: str | None = None) -> list[dict[str, Any]]:
        """This gate's statuses on `sha` (default: the head), oldest first."""
        items = self.fake.repo(REPO).statuses.get(sha or self.head, [])
        return [s for s in reversed(items) if s["context"] == CONTEXT]

    def status(self, sha: str | None = None) -> dict[str, Any]:
        return self.statuses(sha)[-1]

    def comments(self) -> list[dict[str, Any]]:
        return list(self.fake.repo(REPO).issue_comments.get(self.number, []))

    def verdicts(self, sha: str | None = None) -> list[dict[str, Any]]:
        """The bot's verdict comments for `sha` (default: the head)."""
        mark = VERDICT_MARK.format(sha=sha or self.head)
        return [c for c in self.comments() if mark in c["body"] and c["user"]["login"] == BOT]

    def verdict(self, sha: str | None = None) -> str:
        (comment,) = self.verdicts(sha)
        return str(comment["body"])

    def count(self, series: str) -> float:
        text = self.http.get(self.server.url + "/metrics").text
        for line in text.splitlines():
            if line.rsplit(" ", 1)[0] == series:
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    # -- acting

    def as_(self, login: str) -> PyGithubGateway:
        if login not in self.people:
            self.fake.add_token(f"{login}-token", login)
            self.people[login] = from_token(
                f"{login}-token", self.fake.url, seconds_between_writes=0
            )
        return self.people[login]

    def deliver(self, event: str, payload: dict[str, Any], delivery: str | None = None) -> Any:
        """Send one signed delivery and wait until every job it started has finished."""
        self.deliveries += 1
        raw = encode(payload)
        headers = signed_headers(raw, event, delivery or f"d-{self.deliveries}", secret=SECRET)
        r = self.http.post(self.server.url + "/webhook", content=raw, headers=headers)
        assert r.status_code in (200, 202), r.text
        self.settle()
        return r.json()

    def settle(self) -> None:
        wait_for(
            lambda: all(j["state"] not in ("queued", "running") for j in self.queue.jobs()),
            timeout=30,
        )

    # -- payloads (the shapes of ../shared/webhooks)

    def _common(self, sender: str) -> dict[str, Any]:
        return {
            "repository": {"full_name": REPO, "name": "bench", "owner": {"login": "octo"}},
            "sender": copy.deepcopy(self.fake.user(sender)),
            "installation": {"id": 1},
        }

    def comment_event(
        self, action: str, comment: dict[str, Any], sender: str, before: str | None = None
    ) -> dict[str, Any]:
        pull = self.fake.repo(REPO).pulls[self.number]
        payload = {
            "action": action,
            "issue": {
                "number": self.number,
                "state": "open",
                "user": self.fake.user(pull.user),
                "pull_request": {"url": f"{self.fake.url}/repos/{REPO}/pulls/{self.number}"},
            },
            "comment": copy.deepcopy(comment),
            **self._common(sender),
        }
        if before is not None:
            payload["changes"] = {"body": {"from": before}}
        return payload

    def review_event(self, action: str, review: dict[str, Any], sender: str) -> dict[str, Any]:
        return {
            "action": action,
            "review": copy.deepcopy(review),
            "pull_request": self._pull_json(),
            **self._common(sender),
        }

    def _pull_json(self) -> dict[str, Any]:
        pull = self.fake.repo(REPO).pulls[self.number]
        return {
            "number": self.number,
            "state": "open",
            "draft": False,
            "updated_at": self.fake._now(),
            "head": {"sha": pull.head_sha, "ref": pull.head_ref},
            "base": {"sha": pull.base_sha, "ref": "main", "repo": {"full_name": REPO}},
            "user": self.fake.user(pull.user),
        }

    def push_event(self) -> dict[str, Any]:
        return {
            "action": "synchronize",
            "number": self.number,
            "pull_request": self._pull_json(),
            **self._common("carol"),
        }

    # -- scenario steps

    def sign(self, login: str = "alice", body: str | None = None) -> dict[str, Any]:
        """`login` posts a sign-off comment; its `issue_comment.created` is delivered."""
        self.clock.tick()
        cid = self.as_(login).create_issue_comment(REPO, self.number, body or signoff_body(login))
        comment = self._comment(cid)
        self.deliver("issue_comment", self.comment_event("created", comment, login))
        return comment

    def edit(self, comment: dict[str, Any], login: str, body: str) -> dict[str, Any]:
        self.clock.tick()
        before = comment["body"]
        self.as_(login).edit_issue_comment(REPO, comment["id"], body)
        fresh = self._comment(comment["id"])
        self.deliver("issue_comment", self.comment_event("edited", fresh, login, before))
        return fresh

    def delete(self, comment: dict[str, Any], login: str) -> None:
        self.as_(login)
        self.clock.tick()
        r = self.http.delete(
            f"{self.fake.url}/repos/{REPO}/issues/comments/{comment['id']}",
            headers={"Authorization": f"token {login}-token"},
        )
        assert r.status_code == 204, r.text
        self.deliver("issue_comment", self.comment_event("deleted", comment, login))

    def push(self, files: dict[str, str] | None = None) -> str:
        self.clock.tick()
        sha = self.fake.push(
            REPO, self.number, files or {**HEAD, "docs/guide.md": f"v{self.clock()}\n"}
        )
        self.deliver("pull_request", self.push_event())
        return sha

    def _comment(self, cid: int) -> dict[str, Any]:
        return next(c for c in self.comments() if c["id"] == cid)


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[Gate]:
    clock = Clock()
    with FakeGitHub(clock=clock) as fake:
        fake.add_token("e2e-token", BOT)
        pull = fake.create_pull(REPO, base=BASE, head=HEAD, user="carol", number=5)
        fake.set_permission(REPO, "alice", "write")  # a CODEOWNER (docs/ @alice)
        fake.set_permission(REPO, "max", "maintain")  # a maintainer in @octo/core
        fake.set_permission(REPO, "mallory", "write")  # may edit other people's comments
        fake.add_team("octo", "core", ["max"])
        fake.add_check_run(REPO, pull.head_sha, "single-node 1k1k / dsr1")
        fake.add_check_run(REPO, pull.head_sha, "eval / gsm8k")
        settings = load_settings(
            service_env(fake.url, tmp_path / "queue.sqlite3", secret=SECRET, login=BOT)
        )
        assert settings.signoff_enabled  # on by default
        queue = SQLiteQueue(settings.db_path)
        with LiveServer(create_app(settings, queue=queue)) as server:
            g = Gate(fake, clock, server, queue, pull.number)
            g.as_("max").create_issue_comment(REPO, pull.number, "/reuse-sweep-run")
            yield g
            g.http.close()
            for person in g.people.values():
                person.close()
        queue.close()
        assert not fake.crashes


# ----------------------------------------------------------------------------- scenarios


def test_a_signoff_gives_a_verdict_comment_and_a_status_on_the_head(gate: Gate) -> None:
    head = gate.head
    answer = gate.deliver(
        "issue_comment",
        gate.comment_event(
            "created", {"id": 1, "body": "LGTM", "user": gate.fake.user("bob")}, "bob"
        ),
    )
    assert answer["outcome"] == "ignored" and answer["reason"] == "not a sign-off"

    signoff = gate.sign("alice")
    status = gate.status()
    assert (status["state"], status["creator"]["login"]) == ("success", BOT)
    assert status["description"] == f"Sign-off by @alice verified for {head[:7]}"
    assert status["target_url"].endswith(f"#issuecomment-{gate.verdicts()[0]['id']}")
    body = gate.verdict()
    assert body.startswith(VERDICT_MARK.format(sha=head))
    assert "**Verdict: PASS**" in body and "@alice" in body and RECORD_MARK in body
    assert gate.count('bot_signoff_verdicts_total{result="pass"}') == 1

    # the same delivery again (its id), and another delivery for the same sign-off: one
    # comment, left as it is, and the same verdict
    same = f"d-{gate.deliveries}"
    answer = gate.deliver("issue_comment", gate.comment_event("created", signoff, "alice"), same)
    assert answer["outcome"] == "duplicate"
    gate.deliver("issue_comment", gate.comment_event("created", signoff, "alice"), "again")
    assert len(gate.verdicts()) == 1
    assert [s["state"] for s in gate.statuses()] == ["success"]  # identical: not written again


def test_a_push_invalidates_until_the_signer_signs_again(gate: Gate) -> None:
    signoff = gate.sign("alice")
    old = gate.head
    assert gate.status(old)["state"] == "success"

    new = gate.push()
    assert new != old
    status = gate.status(new)
    assert status["state"] == "failure"
    assert status["description"].startswith("sign-off is for an older commit")
    assert [s["state"] for s in gate.statuses(old)] == ["success"]  # the old head keeps its own
    body = gate.verdict(new)
    assert "REJECTED" in body and "@alice" in body and "before this commit was pushed" in body
    assert len(gate.verdicts(old)) == 1  # one comment per head

    # the signer re-confirms by editing the sign-off: re-verification on the new head
    gate.edit(signoff, "alice", signoff_body("alice", detail="re-checked after the push"))
    assert gate.status(new)["state"] == "success"
    assert "**Verdict: PASS**" in gate.verdict(new)
    assert [s["state"] for s in gate.statuses(new)] == ["failure", "success"]


def test_a_forged_pass_from_another_account_is_ignored_and_reported(gate: Gate) -> None:
    gate.sign("alice")
    new = gate.push()  # the sign-off is now for an older commit: failure
    assert gate.status(new)["state"] == "failure"
    gate.clock.tick()
    forged = FORGED.replace(VERDICT_MARK, VERDICT_MARK.format(sha=new))
    cid = gate.as_("mallory").create_issue_comment(REPO, gate.number, forged)
    answer = gate.deliver(
        "issue_comment", gate.comment_event("created", gate._comment(cid), "mallory")
    )
    assert answer["outcome"] == "queued"
    assert gate.status(new)["state"] == "failure"  # stays failure
    assert all(s["state"] == "failure" for s in gate.statuses(new))
    body = gate.verdict(new)
    assert f"Ignored: comment {cid} by @mallory" in body
    assert gate.count('bot_signoff_tamper_total{kind="forged_verdict"}') == 1
    assert gate._comment(cid)["body"] == forged  # never edited, never taken as a verdict
    marked = [c for c in gate.comments() if VERDICT_MARK.format(sha=new) in c["body"]]
    assert {c["user"]["login"] for c in marked} == {BOT, "mallory"}


def test_a_forged_pass_on_a_pr_without_a_signoff_gives_failure(gate: Gate) -> None:
    gate.clock.tick()
    cid = gate.as_("mallory").create_issue_comment(
        REPO, gate.number, FORGED.replace(VERDICT_MARK, VERDICT_MARK.format(sha=gate.head))
    )
    gate.deliver("issue_comment", gate.comment_event("created", gate._comment(cid), "mallory"))
    status = gate.status()
    assert (status["state"], status["description"]) == ("failure", "no CODEOWNER sign-off")
    assert f"Ignored: comment {cid} by @mallory" in gate.verdict()


def test_an_edit_by_another_user_withdraws_success(gate: Gate) -> None:
    signoff = gate.sign("alice")
    head = gate.head
    assert gate.status()["state"] == "success"
    # mallory (write access) edits alice's sign-off; the text still reads as a sign-off
    tampered = signoff_body("alice", detail="all good, trust me")
    gate.edit(signoff, "mallory", tampered)
    status = gate.status(head)
    assert status["state"] == "failure"
    body = gate.verdict(head)
    assert "REJECTED" in body and "@mallory" in body and "not its author @alice" in body
    assert gate.count('bot_signoff_tamper_total{kind="edited_by_other"}') == 1
    # a later, unrelated run keeps the record (it lives in the verdict comment)
    gate.clock.tick()
    cid = gate.as_("max").create_issue_comment(REPO, gate.number, "/reuse-sweep-run")
    gate.deliver("issue_comment", gate.comment_event("created", gate._comment(cid), "max"))
    assert gate.status(head)["state"] == "failure"
    assert gate.count('bot_signoff_tamper_total{kind="edited_by_other"}') == 1  # counted once
    # the author saves it again herself: her words again, verified again
    gate.edit(gate._comment(signoff["id"]), "alice", signoff_body("alice", detail="mine"))
    assert gate.status(head)["state"] == "success"


def test_a_deleted_signoff_withdraws_success(gate: Gate) -> None:
    first = gate.sign("alice")
    gate.delete(first, "alice")
    status = gate.status()
    assert status["state"] == "failure"
    assert status["description"].startswith("sign-off withdrawn (deleted)")
    body = gate.verdict()
    assert f"Withdrawn: comment {first['id']} (deleted) by @alice" in body
    assert gate.count('bot_signoff_tamper_total{kind="deleted"}') == 1
    # a new sign-off counts again
    gate.sign("alice")
    assert gate.status()["state"] == "success"


def test_an_older_signoff_does_not_come_back_after_the_newest_is_deleted(gate: Gate) -> None:
    gate.sign("alice")
    second = gate.sign("alice", signoff_body("alice", detail="second look"))
    gate.delete(second, "mallory")  # someone else deletes it
    assert gate.status()["state"] == "failure"
    assert "by @mallory" in gate.verdict()


def test_a_review_signoff_and_its_dismissal(gate: Gate) -> None:
    gate.clock.tick()
    alice = gate.as_("alice")
    review_id = alice.create_review(REPO, gate.number, gate.head, signoff_body("alice"), [])
    review = next(r for r in gate.fake.repo(REPO).reviews[gate.number] if r["id"] == review_id)
    gate.deliver("pull_request_review", gate.review_event("submitted", review, "alice"))
    assert gate.status()["state"] == "success"

    gate.clock.tick()
    gate.as_("max")
    r = gate.http.put(
        f"{gate.fake.url}/repos/{REPO}/pulls/{gate.number}/reviews/{review_id}/dismissals",
        json={"message": "needs another look"},
        headers={"Authorization": "token max-token"},
    )
    assert r.status_code == 200, r.text
    gate.deliver("pull_request_review", gate.review_event("dismissed", r.json(), "max"))
    status = gate.status()
    assert status["state"] == "failure" and "review dismissed" in status["description"]


def test_an_inline_comment_signoff_counts(gate: Gate) -> None:
    gate.clock.tick()
    body = signoff_body("alice")
    gate.as_("alice").create_review(
        REPO, gate.number, gate.head, "", [ReviewComment("docs/guide.md", 1, body)]
    )
    (comment,) = gate.fake.repo(REPO).review_comments[gate.number]
    payload = {
        "action": "created",
        "comment": copy.deepcopy(comment),
        "pull_request": gate._pull_json(),
        **gate._common("alice"),
    }
    assert gate.deliver("pull_request_review_comment", payload)["outcome"] == "queued"
    assert gate.status()["state"] == "success"
    assert f"inline comment {comment['id']}" not in gate.verdict()  # nothing to record


def test_the_status_is_set_on_the_head_sha_only(gate: Gate) -> None:
    """A push between the decision and the status: the status never lands on the old head,
    and the new head is judged instead (its sign-off is for an older commit)."""
    gate.sign("alice")
    assert gate.status()["state"] == "success"
    old = gate.head
    gate.clock.tick()
    alice_edit = signoff_body("alice", detail="edited once more")
    signoff = next(c for c in gate.comments() if c["user"]["login"] == "alice")
    gate.as_("alice").edit_issue_comment(REPO, signoff["id"], alice_edit)

    class PushDuringVerification:
        """A gateway whose second `pull()` finds a new head: a push mid-verification."""

        def __init__(self, inner: PyGithubGateway) -> None:
            self.inner, self.pulls, self.pushed = inner, 0, ""

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def pull(self, repo: str, number: int) -> PullInfo:
            self.pulls += 1
            if self.pulls == 2:
                gate.clock.tick()
                self.pushed = gate.fake.push(REPO, number, {**HEAD, "docs/guide.md": "later\n"})
            return self.inner.pull(repo, number)

    bot = from_token("e2e-token", gate.fake.url, seconds_between_writes=0)
    gw = PushDuringVerification(bot)
    posted = verify_signoffs(gw, REPO, gate.number, settings=SignoffSettings(bot_login=BOT))  # type: ignore[arg-type]
    bot.close()
    new = gw.pushed
    assert posted.head_sha == new and posted.result == "stale"
    assert [s["state"] for s in gate.statuses(old)] == ["success"]  # nothing more on the old head
    assert [s["state"] for s in gate.statuses(new)] == ["failure"]
    every = [
        (sha, s["state"])
        for sha, items in gate.fake.repo(REPO).statuses.items()
        for s in items
        if s["context"] == CONTEXT
    ]
    assert sorted(every) == sorted([(old, "success"), (new, "failure")])


def test_signoffs_by_bots_and_quoted_ones_do_not_count(gate: Gate) -> None:
    quoted = "\n".join("> " + line for line in signoff_body("alice").splitlines())
    gate.sign("alice", quoted)  # a quote is someone else's words
    assert gate.statuses() == [] and gate.verdicts() == []  # nothing to judge, nothing written


def test_disabled_gate_ignores_its_events(tmp_path: Path, fake_github: FakeGitHub) -> None:
    settings = load_settings(
        {
            "BOT_WEBHOOK_SECRET": SECRET.decode(),
            "GITHUB_API_URL": fake_github.url,
            "GITHUB_TOKEN": "t",
            "BOT_DB": str(tmp_path / "q.sqlite3"),
            "BOT_SIGNOFF_ENABLED": "false",
        }
    )
    payload = {
        "action": "created",
        "issue": {"number": 1, "state": "open", "pull_request": {}},
        "comment": {"id": 9, "body": signoff_body(), "user": {"login": "alice"}},
        "repository": {"full_name": REPO},
        "sender": {"login": "alice"},
    }
    with LiveServer(create_app(settings, start_workers=False)) as server:
        raw = encode(payload)
        r = httpx.post(
            server.url + "/webhook",
            content=raw,
            headers=signed_headers(raw, "issue_comment", "d-off", secret=SECRET),
        )
    assert r.json()["outcome"] == "ignored"


# ----------------------------------------------------------------------------- classification


def _sample(event: str, action: str) -> dict[str, Any]:
    for example in json.loads((SHARED / f"{event}.json").read_text(encoding="utf-8")):
        if example.get("action") == action:
            return dict(example)
    pytest.skip(f"no recorded {event}.{action}")


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared absent")
def test_recorded_payload_shapes_are_routed() -> None:
    """The recorded deliveries (none is a sign-off) are ignored for the right reason; the same
    shapes carrying a sign-off become sign-off jobs with the summary the service reads."""
    for event, action in [
        ("issue_comment", "created"),
        ("issue_comment", "edited"),
        ("issue_comment", "deleted"),
        ("pull_request_review", "submitted"),
        ("pull_request_review", "dismissed"),
        ("pull_request_review_comment", "created"),
        ("pull_request_review_comment", "edited"),
        ("pull_request_review_comment", "deleted"),
    ]:
        payload = _sample(event, action)
        decision = classify(event, payload, signoff=True)
        assert decision.kind == "ignore", (event, action, decision)
        assert classify(event, payload).reason == f"event {event}"  # gate off: as before
        key = "review" if event == "pull_request_review" else "comment"
        payload = copy.deepcopy(payload)
        payload[key]["body"] = signoff_body("Codertocat")
        if event == "issue_comment":
            payload["issue"]["pull_request"] = {"url": "https://api.github.com/x"}
        decision = classify(event, payload, signoff=True)
        assert decision.kind == "signoff", (event, action, decision.reason)
        assert decision.signoff is not None
        summary = decision.signoff.event
        assert summary["signoff"] and summary["by_author"] and summary["author"] == "Codertocat"
        assert summary["id"] == payload[key]["id"]
        assert decision.signoff.repo == payload["repository"]["full_name"]
        json.dumps(summary)  # stored in the queue as JSON


def test_classification_of_signoff_events() -> None:
    base = {
        "action": "edited",
        "issue": {"number": 3, "state": "open", "pull_request": {}},
        "comment": {
            "id": 7,
            "body": "LGTM",
            "user": {"login": "alice", "type": "User"},
            "updated_at": "2026-11-30T10:00:00Z",
        },
        "changes": {"body": {"from": signoff_body()}},
        "repository": {"full_name": REPO},
        "sender": {"login": "mallory", "type": "User"},
    }
    d = classify("issue_comment", base, signoff=True)
    assert d.kind == "signoff" and d.signoff is not None
    e = d.signoff.event
    assert (e["was_signoff"], e["signoff"], e["by_author"], e["sender"]) == (
        True,
        False,
        False,
        "mallory",
    )
    # a comment by the bot itself: ignored; the bot's comment edited by someone else: kept
    mine = copy.deepcopy(base)
    mine["comment"]["user"] = {"login": BOT, "type": "User"}
    mine["sender"] = {"login": BOT, "type": "User"}
    is_self = lambda login, kind: login == BOT  # noqa: E731
    assert classify("issue_comment", mine, signoff=True, is_self=is_self).kind == "ignore"
    mine["sender"] = {"login": "mallory", "type": "User"}
    d = classify("issue_comment", mine, signoff=True, is_self=is_self)
    assert d.kind == "signoff" and d.signoff is not None and d.signoff.event["forged"]
    # "Verdict: PASS" from anyone: a forgery to report
    forged = copy.deepcopy(base)
    forged["action"], forged["comment"]["body"] = "created", FORGED
    del forged["changes"]
    d = classify("issue_comment", forged, signoff=True)
    assert d.kind == "signoff" and d.signoff is not None and d.signoff.event["forged"]
    # drafts and closed PRs, comments on plain issues
    closed = copy.deepcopy(base)
    closed["issue"]["state"] = "closed"
    assert classify("issue_comment", closed, signoff=True).reason == "pull request is not open"
    issue = copy.deepcopy(base)
    del issue["issue"]["pull_request"]
    assert "not a pull request" in classify("issue_comment", issue, signoff=True).reason
    # no summary keeps the body
    assert "LGTM" not in json.dumps(signoff_event("issue_comment", base))


def test_a_push_adds_a_signoff_request_to_the_review() -> None:
    payload = {
        "action": "synchronize",
        "number": 2,
        "pull_request": {
            "number": 2,
            "state": "open",
            "updated_at": "2026-11-30T10:00:05Z",
            "head": {"sha": "a" * 40},
            "base": {"sha": "b" * 40, "repo": {"full_name": REPO}},
        },
        "repository": {"full_name": REPO},
        "sender": {"login": "carol"},
    }
    d = classify("pull_request", payload, signoff=True)
    assert d.kind == "review" and d.signoff is not None
    assert d.signoff.event["head_at"] == "2026-11-30T10:00:05Z"
    assert classify("pull_request", payload).signoff is None
    draft = copy.deepcopy(payload)
    draft["pull_request"]["draft"] = True
    assert classify("pull_request", draft, signoff=True, review_drafts=True).signoff is None
    opened = {**payload, "action": "opened"}
    assert classify("pull_request", opened, signoff=True).signoff is None


# ----------------------------------------------------------------------------- the queue


def _signoff_record(delivery: str, event: dict[str, Any], number: int = 4) -> DeliveryRecord:
    from bot.server.webhook import SignoffRequest

    return DeliveryRecord(
        delivery,
        "issue_comment",
        "created",
        "signoff",
        "issue_comment.created",
        signoff=SignoffRequest(REPO, number, 1, "", event),
    )


def test_signoff_jobs_collapse_per_pr_and_keep_every_event(tmp_path: Path) -> None:
    now = [1000.0]
    queue = SQLiteQueue(str(tmp_path / "q.sqlite3"), clock=lambda: now[0], max_attempts=3)
    a = queue.ingest(_signoff_record("d1", {"id": 1}))
    b = queue.ingest(_signoff_record("d2", {"id": 2}))
    assert (a.outcome, b.outcome, a.job_id) == ("queued", "collapsed", b.job_id)
    job = queue.claim("w")
    assert job is not None and job.kind == "signoff"
    assert [e["id"] for e in job.events] == [1, 2]
    # a delivery while it runs queues a second job; if the first fails, the second takes
    # over and carries the first one's events, so no tampering report is lost
    c = queue.ingest(_signoff_record("d3", {"id": 3}))
    assert c.outcome == "queued" and c.job_id != job.id
    assert queue.fail(job, "boom", delay=0, permanent=False) == "superseded"
    nxt = queue.claim("w")
    assert nxt is not None and sorted(e["id"] for e in nxt.events) == [1, 2, 3]
    # review and sign-off jobs of one PR are separate
    queue.close()


def test_a_version_1_queue_file_is_migrated(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE jobs (id INTEGER PRIMARY KEY, repo TEXT NOT NULL, number INTEGER NOT NULL,
            head_sha TEXT NOT NULL, installation_id INTEGER, state TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0, run_after REAL NOT NULL, lease_owner TEXT,
            lease_token TEXT, lease_until REAL, deliveries INTEGER NOT NULL DEFAULT 1,
            created_at REAL NOT NULL, updated_at REAL NOT NULL, finished_at REAL,
            last_error TEXT NOT NULL DEFAULT '', detail TEXT NOT NULL DEFAULT '');
        CREATE UNIQUE INDEX jobs_one_queued ON jobs(repo, number) WHERE state = 'queued';
        CREATE UNIQUE INDEX jobs_one_running ON jobs(repo, number) WHERE state = 'running';
        INSERT INTO jobs (repo, number, head_sha, state, run_after, created_at, updated_at)
            VALUES ('octo/bench', 4, 'abc', 'queued', 0, 0, 0);
        PRAGMA user_version = 1;
        """
    )
    db.close()
    queue = SQLiteQueue(path)
    (job,) = queue.jobs()
    assert (job["kind"], job["events"]) == ("review", "[]")
    assert queue.ingest(_signoff_record("d1", {"id": 1})).outcome == "queued"  # beside it
    claimed = queue.claim("w")
    assert claimed is not None and claimed.kind == "review"
    queue.close()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    check.close()
