"""The gateway's sign-off reads, through PyGithub, against the fake GitHub on loopback:
collaborator roles, team memberships, a PR's commits and a commit's check runs, and the
comment fields the sign-off service orders and trusts by (timestamps, author type,
review state and commit)."""

from __future__ import annotations

from typing import Any

import pytest
from fakegithub import FakeGitHub

from bot.github.gateway import PyGithubGateway, from_app, from_token
from bot.github.types import CheckRunInfo, GitHubError, SignoffGateway

REPO = "octo/bench"
FILES = {"a.sh": "echo a\n"}


def gateway(fake: FakeGitHub, **options: Any) -> PyGithubGateway:
    fake.add_token("t0ken", "recipe-bot")
    options.setdefault("seconds_between_writes", 0)
    options.setdefault("sleep", lambda s: None)
    return from_token("t0ken", fake.url, **options)


def test_the_real_gateway_is_a_signoff_gateway(fake_github: FakeGitHub) -> None:
    gw: SignoffGateway = gateway(fake_github)
    for name in ("collaborator_permission", "team_membership", "pull_commits", "check_runs"):
        assert callable(getattr(gw, name))


def test_collaborator_permission_reads_the_role_name(fake_github: FakeGitHub) -> None:
    fake_github.create_pull(REPO, base=FILES, head={"a.sh": "echo b\n"})
    for login, role in [("ann", "admin"), ("max", "maintain"), ("wes", "write"), ("tri", "triage")]:
        fake_github.set_permission(REPO, login, role)
    fake_github.user("rita")
    gw = gateway(fake_github)
    assert gw.collaborator_permission(REPO, "ann") == "admin"
    assert gw.collaborator_permission(REPO, "max") == "maintain"  # not folded into write
    assert gw.collaborator_permission(REPO, "wes") == "write"
    assert gw.collaborator_permission(REPO, "tri") == "triage"
    assert gw.collaborator_permission(REPO, "rita") == "read"  # public repository
    assert gw.collaborator_permission(REPO, "nobody-here") == "none"  # 404
    assert gw.collaborator_permission(REPO, "../../x") == "none"  # never sent
    assert not fake_github.calls("GET", r"/collaborators/\.\.")


def test_collaborator_permission_forbidden_is_unknown_and_5xx_raises(
    fake_github: FakeGitHub,
) -> None:
    fake_github.create_repo(REPO, FILES)
    fake_github.set_permission(REPO, "ann", "admin")
    gw = gateway(fake_github, read_retries=0)
    fake_github.fail_next("GET", r"/collaborators/ann/permission", 403)
    assert gw.collaborator_permission(REPO, "ann") is None
    fake_github.fail_next("GET", r"/collaborators/ann/permission", 502)
    with pytest.raises(GitHubError) as err:
        gw.collaborator_permission(REPO, "ann")
    assert err.value.transient


def test_team_membership(fake_github: FakeGitHub) -> None:
    fake_github.create_repo(REPO, FILES)
    fake_github.add_team("InferenceX", "core", ["ann"], pending=["pat"])
    gw = gateway(fake_github)
    assert gw.team_membership(REPO, "InferenceX", "core", "ann") is True
    assert gw.team_membership(REPO, "InferenceX", "core", "pat") is False  # pending
    assert gw.team_membership(REPO, "InferenceX", "core", "bob") is False  # 404
    assert gw.team_membership(REPO, "InferenceX", "nope", "ann") is False
    assert gw.team_membership(REPO, "Inference/X", "core", "ann") is None  # not a slug
    fake_github.hide_teams("InferenceX")
    assert gw.team_membership(REPO, "InferenceX", "core", "ann") is None  # 403: cannot read
    calls = fake_github.calls("GET", r"^/orgs/InferenceX/teams/core/memberships/ann$")
    assert [c.status for c in calls] == [200, 403]


def test_team_membership_through_an_app_installation(fake_github: FakeGitHub) -> None:
    fake_github.create_repo(REPO, FILES)
    fake_github.add_team("octo", "owners", ["ann"])
    gw = from_app(
        fake_github.app_id,
        fake_github.app_private_key_pem,
        None,
        fake_github.url,
        seconds_between_writes=0,
    )
    assert gw.team_membership(REPO, "octo", "owners", "ann") is True
    assert fake_github.calls("GET", r"/repos/octo/bench/installation$")


def test_pull_commits_are_paginated_oldest_first(fake_github: FakeGitHub) -> None:
    pull = fake_github.create_pull(REPO, base=FILES, head={"a.sh": "echo 0\n"})
    shas = [pull.head_sha]
    for n in range(1, 130):
        shas.append(fake_github.push(REPO, pull.number, {"a.sh": f"echo {n}\n"}))
    gw = gateway(fake_github)
    assert gw.pull_commits(REPO, pull.number) == shas
    assert len(fake_github.calls("GET", r"/pulls/\d+/commits$")) == 2  # 100 a page


def test_check_runs_are_paginated_and_typed(fake_github: FakeGitHub) -> None:
    pull = fake_github.create_pull(REPO, base=FILES, head={"a.sh": "echo b\n"})
    for n in range(120):
        fake_github.add_check_run(REPO, pull.head_sha, f"single-node 1k1k / c{n}")
    fake_github.add_check_run(REPO, pull.head_sha, "eval / gsm8k", "skipped")
    fake_github.add_check_run(REPO, pull.head_sha, "eval / swe", None, status="in_progress")
    gw = gateway(fake_github)
    runs = gw.check_runs(REPO, pull.head_sha)
    assert len(runs) == 122
    assert len(fake_github.calls("GET", r"/check-runs$")) == 2
    assert runs[0] == CheckRunInfo(
        name="single-node 1k1k / c0",
        status="completed",
        conclusion="success",
        head_sha=pull.head_sha,
        details_url=runs[0].details_url,
        id=runs[0].id,
        external_id="",
        app_slug="github-actions",
    )
    assert "/actions/runs/" in runs[0].details_url
    assert (runs[-2].conclusion, runs[-1].status, runs[-1].conclusion) == (
        "skipped",
        "in_progress",
        None,
    )
    assert gw.check_runs(REPO, pull.base_sha) == []


def test_comments_carry_times_author_type_state_and_commit(fake_github: FakeGitHub) -> None:
    pull = fake_github.create_pull(REPO, base=FILES, head={"a.sh": "echo b\n"})
    gw = gateway(fake_github)
    gw.create_issue_comment(REPO, pull.number, "hello")
    gw.create_review(REPO, pull.number, pull.head_sha, "looks fine", [])
    (comment,) = gw.issue_comments(REPO, pull.number)
    assert comment.created_at.endswith("Z") and comment.updated_at == comment.created_at
    assert comment.author_type == "User"
    (review,) = gw.reviews(REPO, pull.number)
    assert review.state == "COMMENTED" and review.commit_id == pull.head_sha
    assert review.created_at == review.updated_at != ""


def test_a_writer_may_edit_and_delete_other_peoples_comments_in_the_fake(
    fake_github: FakeGitHub,
) -> None:
    """On GitHub anyone with write access edits others' comments: the sign-off gate must
    not trust an edited comment to still be its author's words."""
    pull = fake_github.create_pull(REPO, base=FILES, head={"a.sh": "echo b\n"})
    gw = gateway(fake_github)
    cid = gw.create_issue_comment(REPO, pull.number, "mine")
    fake_github.add_token("m-token", "mallory")
    mallory = from_token("m-token", fake_github.url, seconds_between_writes=0)
    with pytest.raises(GitHubError) as err:
        mallory.edit_issue_comment(REPO, cid, "hers")
    assert err.value.status == 403
    fake_github.set_permission(REPO, "mallory", "write")
    mallory.edit_issue_comment(REPO, cid, "hers")
    assert gw.issue_comments(REPO, pull.number)[0].body == "hers"
