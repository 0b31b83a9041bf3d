"""What GitHub really does, for the CODEOWNER sign-off gate, through the service (signed
webhooks in, the sign-off job, PyGithub, the contract-checked fake GitHub out):

- `GET /orgs/{org}/members/{user}` answers 302 to a requester outside the org
  (documented): that is never "a member", and an unreadable membership stays unknown;
- reopening a PR, marking it ready for review or editing it keeps its head: a PASS on
  that head stays a PASS;
- GitHub lists at most 250 commits of a PR: the head's check runs are read by its ref.
- GitHub lists at most 3,000 files of a PR: the CODEOWNER row (and every row judged from
  the changed files) is unverified past that, never a pass.

The review side is in `tests/test_github_behaviour.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_gate_e2e import open_gate
from tests.test_signoff_service import BASE, HEAD, REPO, Gate, signoff_body
from tests.test_signoff_service import gate as gate  # the fixture: one PR, the live service

CORE_ONLY = {**BASE, "README.md": "A change only @octo/core owns\n"}


@pytest.fixture
def core_gate(tmp_path: Path) -> Iterator[Gate]:
    """A PR changing a file that only the team @octo/core owns (CODEOWNERS `*`)."""
    it = open_gate(tmp_path, BASE, CORE_ONLY)
    gate = next(it)
    gate.fake.set_permission(REPO, "bob", "write")  # write access, in no team
    yield gate
    for _ in it:
        pass


def test_a_302_membership_answer_is_not_a_member(core_gate: Gate) -> None:
    """With team reads refused (403) the gate falls back to organization membership
    (`unreadable_teams: org-member`). GitHub answers `GET /orgs/{org}/members/{user}` with
    302 when the requester is not an organization member; the bot follows it to the
    public-membership check, and a user who is not a public member is not a member there.

    Without the fix the 302 counted as "member": bob, with write access and no team, got
    a passing CODEOWNER row, a PASS verdict and a `success` status."""
    gate = core_gate
    gate.fake.hide_teams("octo")
    gate.fake.hide_org_members("octo")

    signoff = gate.sign("bob")

    status = gate.status()
    assert status["state"] == "failure", status
    body = gate.verdict()
    assert "Verdict: PASS" not in body
    (members,) = gate.fake.calls("GET", r"^/orgs/octo/members/bob$")
    assert members.status == 302
    (public,) = gate.fake.calls("GET", r"^/orgs/octo/public_members/bob$")
    assert public.status == 404

    # a public member of the organization is a member, through the same 302
    gate.fake.add_org_member("octo", "bob", public=True)
    gate.edit(signoff, "bob", signoff_body("bob", detail="public member now"))
    assert gate.status()["state"] == "success", gate.verdict()


def test_an_unreadable_membership_stays_unknown_never_a_pass(core_gate: Gate) -> None:
    """Team and organization membership both refused (403): the CODEOWNER row is
    unknown, and unknown is never a pass."""
    gate = core_gate
    gate.fake.hide_teams("octo")
    gate.fake.forbid_org_members("octo")

    gate.sign("bob")

    assert gate.status()["state"] == "failure"
    assert "Verdict: PASS" not in gate.verdict()
    assert [c.status for c in gate.fake.calls("GET", r"^/orgs/octo/members/bob$")] == [403]


def _pull_event(gate: Gate, action: str) -> dict[str, Any]:
    event = gate.push_event()
    event["action"] = action
    if action == "edited":  # a base change: the only edit that asks for a new judgement
        event["changes"] = {"base": {"ref": {"from": "release"}, "sha": {"from": "0" * 40}}}
    return event


@pytest.mark.parametrize("action", ["reopened", "ready_for_review", "edited"])
def test_a_pass_survives_reopen_ready_for_review_and_edits_of_its_head(
    gate: Gate, action: str
) -> None:
    """A sign-off binds to the head SHA it was verified for. Reopening the PR, marking it
    ready for review or editing it (its base) leaves the head as it was: its PASS stays.

    Without the fix the event's `pull_request.updated_at` was taken as the head's push
    time, so the sign-off looked older than the head: "sign-off is for an older commit",
    `failure`."""
    gate.sign("alice")
    head = gate.head
    assert gate.status()["state"] == "success"

    gate.clock.tick(60)
    gate.deliver("pull_request", _pull_event(gate, action))

    assert gate.head == head
    assert [s["state"] for s in gate.statuses()] == ["success"]
    assert "**Verdict: PASS**" in gate.verdict()


def test_a_push_after_the_pass_still_makes_it_stale(gate: Gate) -> None:
    """The binding is to the SHA: a new head is still judged by its own push time."""
    gate.sign("alice")
    new = gate.push()
    assert gate.status(new)["state"] == "failure"
    assert gate.status(new)["description"].startswith("sign-off is for an older commit")


@pytest.fixture
def long_gate(tmp_path: Path) -> Iterator[Gate]:
    """A PR with 252 commits whose head alone has green check runs."""
    it = open_gate(tmp_path, BASE, HEAD)
    gate = next(it)
    for n in range(251):
        gate.fake.push(REPO, gate.number, {**HEAD, "docs/guide.md": f"Hello, v{n}\n"})
    gate.fake.add_check_run(REPO, gate.head, "single-node 1k1k / dsr1")
    gate.fake.add_check_run(REPO, gate.head, "eval / dsr1")
    gate.clock.tick()
    gate.deliver("pull_request", gate.push_event())
    yield gate
    for _ in it:
        pass


def test_check_runs_of_a_pr_over_250_commits_are_read_for_its_head(long_gate: Gate) -> None:
    """GitHub lists the first 250 commits of a pull request (documented); a longer PR's
    head is not among them. The head's check runs are read by its ref
    (`GET /repos/{o}/{r}/commits/{ref}/check-runs`), so a green sweep on the head counts.

    Without the fix the runs were read for the newest listed commits only: "not green"."""
    gate = long_gate
    assert len(gate.fake.pull_commits(REPO, gate.number)) == 252
    listed = gate.fake.calls("GET", rf"/pulls/{gate.number}/commits$")
    assert listed == [] or all(c.status == 200 for c in listed)

    gate.sign("alice")

    assert gate.status()["state"] == "success", gate.verdict()
    assert gate.fake.calls("GET", rf"/commits/{gate.head}/check-runs$")


@pytest.fixture
def large_gate(tmp_path: Path) -> Iterator[Gate]:
    """A PR changing 3,001 files: the 3,000 GitHub lists are under `docs/` (alice's), the
    one it leaves out is under `zz/`, which only max owns."""
    base = {**BASE, ".github/CODEOWNERS": "* @octo/core\ndocs/ @alice\nzz/ @max\n"}
    head = {**base, "docs/guide.md": "Hello, world\n"}
    head.update({f"docs/notes/n{n:04d}.md": f"note {n}\n" for n in range(2999)})
    head["zz/owned-by-max.txt"] = "max's file\n"
    it = open_gate(tmp_path, base, head)
    yield next(it)
    for _ in it:
        pass


def test_a_pr_over_githubs_3000_file_list_never_passes_the_signoff(large_gate: Gate) -> None:
    """GitHub lists at most 3,000 files of a pull request (documented) while
    `changed_files` counts them all. The CODEOWNER row cannot be verified from part of
    the list (here the unlisted file belongs to someone else): it is UNVERIFIED, saying
    how many files were listed, and the status is never `success`.

    Without the fix the owner row judged the 3,000 listed files only: alice owns every
    one of them, so the verdict was PASS and the status `success`."""
    gate = large_gate
    listed = gate.fake.pull_files(REPO, gate.number)
    assert len(listed) == 3000 and "zz/owned-by-max.txt" not in {f["filename"] for f in listed}

    gate.sign("alice")

    status = gate.status()
    assert status["state"] == "failure", gate.verdict()
    assert "owner" in status["description"]
    body = gate.verdict()
    assert "Verdict: PASS" not in body
    (owner,) = [line for line in body.splitlines() if "CODEOWNER" in line and "3,001" in line]
    assert "UNVERIFIED" in owner
    assert "GitHub lists 3,000 of the 3,001 files" in owner
    assert "GitHub 只列出了本 PR 修改的 3,001 个文件中的 3,000 个" in body


def test_files_no_rule_reads_cost_no_request(large_gate: Gate) -> None:
    """A file GitHub lists with its patch and status is placed from them: the lint behind
    the sign-off reads neither side of the 3,000 notes no rule routes to. Without the
    fix every listed file was fetched on base and head: 5,998 contents requests for one
    sign-off, more than an installation's hourly budget of 5,000."""
    gate = large_gate
    gate.sign("alice")
    reads = [r.path for r in gate.fake.requests if "/contents/docs/notes/" in r.path]
    assert reads == []
    assert gate.verdict()  # the sign-off was judged
