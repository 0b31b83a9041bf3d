"""The contract check itself (`tests/github_contract.py`): it knows the operations the bot
and the fake use, it rejects what GitHub's REST description rejects (an invalid answer of
the fake, an invalid request of the bot), and it accepts the nulls GitHub really sends.

Every other test runs with the check on (`tests/conftest.py`); these prove it can fail.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from fakegithub import FakeGitHub

from bot.github.gateway import from_token
from bot.github.types import GitHubError
from tests.github_contract import (
    API_VERSION,
    GITHUB_HEADERS,
    KNOWN_INACCURACIES,
    MEDIA_TYPE,
    OPERATIONS,
    SPEC_PATH,
    Contract,
    ContractError,
    subset,
)

REPO = "octo/bench"
TOKEN = "contract-token"


@pytest.fixture
def contract() -> Contract:
    return Contract.load()


@pytest.fixture
def fake() -> Any:
    fake = FakeGitHub().start()
    fake.add_token(TOKEN, "recipe-bot")
    fake.create_pull(REPO, base={"a.sh": "x\n"}, head={"a.sh": "y\n"}, number=1, user="alice")
    yield fake
    fake.stop()
    fake.contract_checked = True  # each test asserts on the violations it provoked


def gateway(fake: FakeGitHub) -> Any:
    return from_token(TOKEN, fake.url, seconds_between_writes=0, sleep=lambda s: None)


# ------------------------------------------------------------------ the vendored description


def test_the_vendored_description_is_pinned_and_complete(contract: Contract) -> None:
    source = contract.source
    assert source["package"] == "@octokit/openapi" and source["version"] == "23.0.2"
    assert re.fullmatch(r"[0-9a-f]{64}", source["sha256"])
    ids = {op.id for op in contract.operations}
    assert ids == set(OPERATIONS)
    # the subset is self-contained: every reference resolves inside it
    text = SPEC_PATH.read_text(encoding="utf-8")
    for ref in set(re.findall(r'"\$ref": "([^"]+)"', text)):
        assert contract.resolve({"$ref": ref}) is not None, ref


def test_subset_takes_operations_and_what_they_reference() -> None:
    document = {
        "openapi": "3.0.3",
        "info": {"version": "1"},
        "paths": {
            "/a": {"get": {"operationId": "x/a", "responses": {"200": {"$ref": "#/c/r"}}}},
            "/b": {"get": {"operationId": "x/b", "responses": {}}},
        },
        "components": {},
    }
    document["components"] = {
        "responses": {"ok": {"content": {"application/json": {"schema": {"$ref": "#/s"}}}}},
        "schemas": {"thing": {"type": "object", "example": {"big": 1}}, "unused": {}},
    }
    document["paths"]["/a"]["get"]["responses"]["200"] = {"$ref": "#/components/responses/ok"}
    document["components"]["responses"]["ok"]["content"]["application/json"]["schema"] = {
        "$ref": "#/components/schemas/thing"
    }
    out = subset(document, ["x/a"], {"package": "p"})
    assert list(out["paths"]) == ["/a"]
    assert out["components"] == {
        "responses": document["components"]["responses"],
        "schemas": {"thing": {"type": "object"}},  # examples are dropped
    }
    with pytest.raises(SystemExit, match="x/c"):
        subset(document, ["x/a", "x/c"], {})


def test_every_route_of_the_fake_is_a_github_operation(contract: Contract) -> None:
    """A route the fake serves must be one GitHub has (a new endpoint: add its operation id
    to OPERATIONS and regenerate, and its requests and answers are judged from then on)."""
    samples = [
        (r"(?:/(.*))?", "/docs/a.md"),
        (r"(.+?)\.\.\.(.+)", "abc...def"),
        (r"(\d+)", "7"),
        (r"([0-9a-f]+)", "abc123"),
        (r"([^/]+)", "abc"),
        (r"(.+)", "abc"),
    ]
    with FakeGitHub(contract=False) as bare:
        routes = bare._routes()
    assert routes
    for pattern, verb, _ in routes:
        path = pattern
        for regex, sample in samples:
            path = path.replace(regex, sample)
        found = contract.operation(verb, f"/repos/o/r{path}")
        assert found is not None, (verb, pattern)


def test_paths_pick_the_most_specific_operation(contract: Contract) -> None:
    cases = {
        ("GET", "/repos/o/r/commits/abc"): "repos/get-commit",
        ("GET", "/repos/o/r/commits/abc/status"): "repos/get-combined-status-for-ref",
        ("GET", "/repos/o/r/commits/abc/check-runs"): "checks/list-for-ref",
        ("GET", "/repos/o/r/pulls/comments/5"): "pulls/get-review-comment",
        ("GET", "/repos/o/r/pulls/5/comments"): "pulls/list-review-comments",
        ("GET", "/repos/o/r/contents/a/b%20c.sh"): "repos/get-content",
        ("GET", "/repos/o/r/compare/aaa...bbb"): "repos/compare-commits",
    }
    for (method, path), op_id in cases.items():
        found = contract.operation(method, path)
        assert found is not None and found[0].id == op_id, path
    found = contract.operation("GET", "/repos/o/r/contents/a/b%20c.sh")
    assert found is not None and found[1]["path"] == "a/b c.sh"
    assert contract.operation("POST", "/repos/o/r/pulls/5/files") is None


# ------------------------------------------------------------------ requests the bot sends


def test_the_bot_sends_the_api_version_and_media_type_on_every_request(fake: FakeGitHub) -> None:
    gw = gateway(fake)
    gw.pull(REPO, 1)
    gw.pull_files(REPO, 1)
    gw.create_issue_comment(REPO, 1, "hello")
    gw.close()
    assert fake.requests
    for r in fake.requests:
        assert r.headers["x-github-api-version"] == API_VERSION
        assert r.headers["accept"] == MEDIA_TYPE
    assert fake.contract_violations == []


def test_an_invalid_request_body_of_the_bot_is_rejected(fake: FakeGitHub) -> None:
    gw = gateway(fake)
    url = f"/repos/{REPO}/pulls/1/reviews"
    with pytest.raises(GitHubError):  # the fake refuses the event too (422)
        gw._http.write(REPO, "POST", url, {"event": "COMMENTED", "body": "x"})
    gw.close()
    (problem,) = fake.contract_violations
    assert "pulls/create-review" in problem and "'COMMENTED' is not one of" in problem
    with pytest.raises(ContractError, match="COMMENTED"):
        fake.assert_contract()


def test_an_unknown_query_parameter_or_a_bad_path_parameter_is_rejected(
    fake: FakeGitHub,
) -> None:
    gw = gateway(fake)
    gw._http.get(REPO, f"/repos/{REPO}/pulls/1/files", {"per_page": 100, "sort": "name"})
    with pytest.raises(GitHubError):
        gw._http.get(REPO, f"/repos/{REPO}/pulls/one")
    gw.close()
    problems = fake.contract_violations
    assert any("unknown query parameter 'sort'" in p for p in problems)
    assert any("pull_number='one' is not an integer" in p for p in problems)


def test_a_request_without_the_headers_or_to_no_operation_is_rejected(fake: FakeGitHub) -> None:
    auth = {"Authorization": f"token {TOKEN}"}
    httpx.get(f"{fake.url}/repos/{REPO}/pulls/1", headers=auth)
    preview = {
        **auth,
        **GITHUB_HEADERS,
        "Accept": "application/vnd.github.machine-man-preview+json",
    }
    httpx.get(f"{fake.url}/repos/{REPO}/pulls/1", headers=preview)
    httpx.post(f"{fake.url}/repos/{REPO}/pulls/1/files", headers={**auth, **GITHUB_HEADERS})
    problems = fake.contract_violations
    assert any("X-GitHub-Api-Version is None" in p for p in problems)
    assert any("machine-man-preview" in p and "retired" in p for p in problems)
    assert any("no such operation in GitHub's REST description" in p for p in problems)


# ------------------------------------------------------------------ answers the fake gives


def test_an_invalid_answer_of_the_fake_is_rejected(fake: FakeGitHub) -> None:
    fake.repo(REPO).pulls[1].title = None  # type: ignore[assignment]  # title is a string
    fake.users["alice"].pop("login")  # a user without its login
    gw = gateway(fake)
    assert gw.pull(REPO, 1).author == "ghost"  # the bot reads on; the contract does not
    gw.close()
    problems = "\n".join(fake.contract_violations)
    assert "pulls/get) answered 200 at title: None is not of type 'string'" in problems
    assert "'login' is a required property" in problems


def test_an_undeclared_status_or_a_body_where_none_is_sent_is_rejected(
    contract: Contract,
) -> None:
    member = "/orgs/octo/members/alice"
    assert contract.check_response("GET", member, 204, None, {}, has_body=False) == []
    (wrong,) = contract.check_response("GET", member, 200, {"a": 1}, {}, has_body=True)
    assert "status not declared for this operation (declared: 204, 302, 404)" in wrong
    (no_location,) = contract.check_response("GET", member, 302, None, {}, has_body=False)
    assert "no Location header" in no_location
    (body,) = contract.check_response("GET", member, 204, {}, {}, has_body=True)
    assert "GitHub sends no body here" in body
    # an error GitHub documents for every request, with GitHub's error body
    assert (
        contract.check_response("GET", member, 502, {"message": "Server Error"}, {}, has_body=True)
        == []
    )
    (bad_error,) = contract.check_response("GET", member, 502, {"oops": 1}, {}, has_body=True)
    assert "'message' is a required property" in bad_error


def test_the_fake_answers_membership_302_with_its_location(fake: FakeGitHub) -> None:
    fake.add_org_member("octo", "alice", public=True)
    fake.hide_org_members("octo")
    r = httpx.get(
        f"{fake.url}/orgs/octo/members/alice",
        headers={"Authorization": f"token {TOKEN}", **GITHUB_HEADERS},
    )
    assert r.status_code == 302 and r.headers["location"].endswith("/public_members/alice")
    assert fake.contract_violations == []


def test_the_nulls_github_sends_are_allowed_and_no_others(contract: Contract) -> None:
    get = contract.by_id("pulls/get-review-comment")
    schema = contract.resolve(get.spec["responses"]["200"])["content"]["application/json"]
    comment = {
        "url": "u",
        "id": 1,
        "node_id": "n",
        "pull_request_review_id": 2,
        "diff_hunk": "@@ -1 +1 @@",
        "path": "a.sh",
        "commit_id": "c",
        "original_commit_id": "c",
        "user": None,  # a deleted account
        "body": "b",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "html_url": "h",
        "pull_request_url": "p",
        "author_association": "NONE",
        "_links": {"self": {"href": "s"}, "html": {"href": "h"}, "pull_request": {"href": "p"}},
        "line": None,  # outdated
        "position": None,
        "original_line": 3,
        "original_position": 2,
    }
    assert contract._schema_errors("t", schema["schema"], comment, "c") == []
    broken = {**comment, "original_line": None}  # never null: where the comment was made
    (problem,) = contract._schema_errors("t", schema["schema"], broken, "c")
    assert "original_line: None is not of type 'integer'" in problem
    assert {name for name, _, _ in KNOWN_INACCURACIES} <= set(
        contract.document["components"]["schemas"]
    )


def test_the_vendored_file_is_what_regenerating_from_its_source_gives(tmp_path: Any) -> None:
    """Regenerating from the package file named in `x-vendored` reproduces the subset
    (checked when that file is at hand: `GITHUB_OPENAPI_JSON`, or the npm cache of CI)."""
    import os

    source = os.environ.get("GITHUB_OPENAPI_JSON")
    if not source or not os.path.exists(source):
        pytest.skip("no api.github.com.json at hand (set GITHUB_OPENAPI_JSON)")
    raw = Path(source).read_bytes()
    vendored = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    assert hashlib.sha256(raw).hexdigest() == vendored["x-vendored"]["sha256"]
    again = subset(json.loads(raw), OPERATIONS, vendored["x-vendored"])
    assert again == vendored
