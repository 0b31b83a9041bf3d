"""The GitHub gateway, through PyGithub, against the fake GitHub on loopback."""

from __future__ import annotations

import base64
import time
from typing import Any

import jwt
import pytest
from fakegithub import FakeGitHub, commentable_lines, git_blob_sha, unified_patch
from github import GithubException

from bot.core.tree import content_id
from bot.github.gateway import PyGithubGateway, from_app, from_token, to_github_error
from bot.github.tree import GitHubTree
from bot.github.types import GitHubError, ReviewComment, Status

REPO = "octo/bench"
TOKEN = "ghp_test_token"


class Clock:
    """A monotonic clock that only moves when slept on; records every sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


def token_gateway(fake: FakeGitHub, clock: Clock, **options: Any) -> PyGithubGateway:
    fake.add_token(TOKEN, "recipe-bot")
    options.setdefault("seconds_between_writes", 0)
    return from_token(TOKEN, fake.url, sleep=clock.sleep, clock=clock, **options)


def app_gateway(
    fake: FakeGitHub, clock: Clock, installation_id: int | None = None, **options: Any
) -> PyGithubGateway:
    options.setdefault("seconds_between_writes", 0)
    return from_app(
        fake.app_id,
        fake.app_private_key_pem,
        installation_id,
        fake.url,
        sleep=clock.sleep,
        clock=clock,
        **options,
    )


BASE = {
    "benchmarks/single_node/a.sh": "#!/bin/bash\nvllm serve m \\\n  --tp 8\n",
    "perf-changelog.yaml": "- config-keys: [a]\n  description: [x]\n",
    "docs/readme.md": "hello\n",
}
HEAD = {
    **BASE,
    "benchmarks/single_node/a.sh": "#!/bin/bash\nvllm serve m \\\n  --tp 8 \\\n  --gpu-memory-utilization 0.95\n",
    "benchmarks/single_node/b_mtp.sh": "#!/bin/bash\necho new\n",
}


def simple_pr(fake: FakeGitHub) -> Any:
    return fake.create_pull(REPO, base=BASE, head=HEAD, user="alice")


# --------------------------------------------------------------------------- auth


def test_token_login_comes_from_get_user_and_is_cached(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    gw = token_gateway(fake_github, clock)
    assert gw.login() == "recipe-bot"
    assert gw.login() == "recipe-bot"
    calls = fake_github.calls("GET", r"^/user$")
    assert len(calls) == 1
    assert calls[0].headers["authorization"] == f"token {TOKEN}"
    assert calls[0].headers["user-agent"] == "recipe-review-bot"


def test_login_can_be_given(fake_github: FakeGitHub, clock: Clock) -> None:
    gw = token_gateway(fake_github, clock, login="github-actions[bot]")
    assert gw.login() == "github-actions[bot]"
    assert fake_github.calls() == []


def test_app_login_is_slug_bot_from_get_app_with_a_verified_jwt(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    gw = app_gateway(fake_github, clock)
    assert gw.login() == "recipe-review[bot]"
    (call,) = fake_github.calls("GET", r"^/app$")
    scheme, token = call.headers["authorization"].split()
    assert scheme == "Bearer"
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["iss"] == str(fake_github.app_id)
    assert call.status == 200


def test_app_looks_up_installation_and_caches_the_token(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    simple_pr(fake_github)
    gw = app_gateway(fake_github, clock)
    assert gw.pull(REPO, 1).author == "alice"
    assert gw.pull_files(REPO, 1)
    assert len(fake_github.calls("GET", r"/installation$")) == 1
    assert len(fake_github.calls("POST", r"/access_tokens$")) == 1
    assert fake_github.issued_tokens == ["ghs_fake0001"]
    pull_call = fake_github.calls("GET", r"/pulls/1$")[0]
    assert pull_call.headers["authorization"] == "token ghs_fake0001"


def test_app_with_installation_id_skips_the_lookup(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    gw = app_gateway(fake_github, clock, installation_id=1)
    gw.pull(REPO, 1)
    assert fake_github.calls("GET", r"/installation$") == []
    (token_call,) = fake_github.calls("POST", r"/access_tokens$")
    assert token_call.path == "/app/installations/1/access_tokens"


def test_app_token_is_refreshed_when_it_expires(fake_github: FakeGitHub, clock: Clock) -> None:
    # PyGithub renews a token 20 s before `expires_at`: a 10 s token is stale at once.
    fake_github.token_ttl = 10
    simple_pr(fake_github)
    gw = app_gateway(fake_github, clock, installation_id=1)
    gw.pull(REPO, 1)
    gw.pull(REPO, 1)
    assert len(fake_github.calls("POST", r"/access_tokens$")) == 2
    tokens = [c.headers["authorization"] for c in fake_github.calls("GET", r"/pulls/1$")]
    assert tokens == ["token ghs_fake0001", "token ghs_fake0002"]


def test_app_bot_cannot_use_get_user(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    gw = app_gateway(fake_github, clock, installation_id=1)
    gw.pull(REPO, 1)
    # the login of an app never asks /user (an installation token gets 403 there)
    assert gw.login() == "recipe-review[bot]"
    assert fake_github.calls("GET", r"^/user$") == []


def test_a_jwt_signed_with_another_key_is_refused(fake_github: FakeGitHub, clock: Clock) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = other.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    gw = from_app(fake_github.app_id, pem, None, fake_github.url, sleep=clock.sleep, clock=clock)
    with pytest.raises(GitHubError) as caught:
        gw.login()
    assert caught.value.status == 401
    assert not caught.value.transient


def test_unknown_installation_is_a_404(fake_github: FakeGitHub, clock: Clock) -> None:
    fake_github.create_repo("octo/other", {"a": "b"}, installation_id=None)
    gw = app_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.pull("octo/other", 1)
    assert caught.value.status == 404


def test_bad_token_maps_to_401(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    gw = from_token("nope", fake_github.url, sleep=clock.sleep, clock=clock)
    with pytest.raises(GitHubError) as caught:
        gw.pull(REPO, 1)
    assert caught.value.status == 401
    assert "Bad credentials" in str(caught.value)


# --------------------------------------------------------------------------- pull requests


def test_pull_info(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = fake_github.create_pull(REPO, base=BASE, head=HEAD, user="alice", draft=True)
    info = token_gateway(fake_github, clock).pull(REPO, pr.number)
    assert info.repo == REPO
    assert info.number == pr.number
    assert (info.head_sha, info.base_sha) == (pr.head_sha, pr.base_sha)
    assert (info.base_ref, info.head_ref) == ("main", "feature")
    assert info.author == "alice"
    assert info.draft is True
    assert info.state == "open"
    assert info.html_url.endswith(f"/pull/{pr.number}")


def test_pull_files_statuses_and_patches(fake_github: FakeGitHub, clock: Clock) -> None:
    head = dict(HEAD)
    del head["docs/readme.md"]
    head["docs/moved.yaml"] = head.pop("perf-changelog.yaml")
    fake_github.create_pull(REPO, base=BASE, head=head)
    files = {f.path: f for f in token_gateway(fake_github, clock).pull_files(REPO, 1)}
    assert files["benchmarks/single_node/a.sh"].status == "modified"
    assert files["benchmarks/single_node/b_mtp.sh"].status == "added"
    assert files["docs/readme.md"].status == "removed"
    moved = files["docs/moved.yaml"]
    assert (moved.status, moved.previous_path, moved.patch) == (
        "renamed",
        "perf-changelog.yaml",
        None,
    )
    patch = files["benchmarks/single_node/a.sh"].patch
    assert patch is not None and patch.startswith("@@ -1,3 +1,4 @@")
    assert "+  --gpu-memory-utilization 0.95" in patch


@pytest.mark.parametrize(("count", "pages"), [(150, 2), (3005, 30)])
def test_pull_files_are_paginated_up_to_3000(
    fake_github: FakeGitHub, clock: Clock, count: int, pages: int
) -> None:
    head = {f"benchmarks/f{i:04d}.sh": f"echo {i}\n" for i in range(count)}
    fake_github.create_pull(REPO, base={"README": "x\n"}, head={"README": "x\n", **head})
    files = token_gateway(fake_github, clock).pull_files(REPO, 1)
    assert len(files) == min(count, 3000)
    assert files[0].path == "benchmarks/f0000.sh"
    calls = fake_github.calls("GET", r"/pulls/1/files$")
    assert len(calls) == pages
    assert [c.query.get("page", "1") for c in calls] == [str(p) for p in range(1, pages + 1)]
    assert all(c.query["per_page"] == "100" for c in calls)


def test_enterprise_style_base_url_with_a_prefix(clock: Clock) -> None:
    with FakeGitHub(prefix="/api/v3") as fake:
        head = {f"f{i:03d}": "x\n" for i in range(120)}
        fake.create_pull(REPO, base={}, head=head)
        gw = token_gateway(fake, clock)
        assert fake.url.endswith("/api/v3")
        assert len(gw.pull_files(REPO, 1)) == 120
        assert len(fake.calls("GET", r"/files$")) == 2
        assert not fake.crashes


def test_merge_base_after_the_base_branch_moved(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    fork_point = pr.base_sha
    new_base = fake_github.commit(REPO, {**BASE, "other": "x\n"}, branch="main")
    gw = token_gateway(fake_github, clock)
    assert gw.merge_base(REPO, new_base, pr.head_sha) == fork_point
    assert gw.merge_base(REPO, new_base, pr.head_sha) == fork_point
    calls = fake_github.calls("GET", r"/compare/")
    assert len(calls) == 1  # cached: both are SHAs
    assert calls[0].path == f"/repos/{REPO}/compare/{new_base}...{pr.head_sha}"
    assert gw.merge_base(REPO, "main", "feature") == fork_point


# --------------------------------------------------------------------------- trees and files


def test_tree_paths_leave_out_symlinks_and_are_cached_by_sha(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    fake_github.create_repo(REPO, {"a/b/c.sh": "1\n", "a/d.sh": "2\n", "e": "3\n", "link": "e"})
    sha = fake_github.commit(
        REPO, {"a/b/c.sh": "1\n", "e": "3\n", "link": "e"}, branch="main", modes={"link": "120000"}
    )
    gw = token_gateway(fake_github, clock)
    assert gw.tree_paths(REPO, sha) == ["a/b/c.sh", "e"]
    assert gw.tree_paths(REPO, sha) == ["a/b/c.sh", "e"]
    assert len(fake_github.calls("GET", r"/git/trees/")) == 1
    assert gw.blob_id(REPO, "a/b/c.sh", sha) == git_blob_sha(b"1\n")
    assert gw.blob_id(REPO, "missing", sha) is None
    assert len(fake_github.calls("GET", r"/git/trees/")) == 1


def test_truncated_tree_is_walked_by_subtree(fake_github: FakeGitHub, clock: Clock) -> None:
    files = {
        f"d{i}/s{j}/f{k}.txt": f"{i}{j}{k}\n" for i in range(3) for j in range(3) for k in range(3)
    }
    files["top.txt"] = "t\n"
    fake_github.create_repo(REPO, files)
    sha = fake_github.repo(REPO).branches["main"]
    fake_github.tree_entry_limit = 10
    gw = token_gateway(fake_github, clock)
    assert gw.tree_paths(REPO, sha) == sorted(files)
    # root (truncated), root alone, each d* (truncated), each d* alone, each d*/s* (whole)
    assert len(fake_github.calls("GET", r"/git/trees/")) == 2 + 3 * 2 + 9


def test_read_text_binary_missing_and_directories(fake_github: FakeGitHub, clock: Clock) -> None:
    binary = bytes(range(256)) * 3
    fake_github.create_repo(
        REPO, {"a.sh": "echo hi\n", "bin/blob.dat": binary, "dir ü/x y.txt": "spaced\n"}
    )
    gw = token_gateway(fake_github, clock)
    assert gw.read(REPO, "a.sh", "main") == b"echo hi\n"
    assert gw.read(REPO, "bin/blob.dat", "main") == binary
    assert gw.read(REPO, "dir ü/x y.txt", "main") == b"spaced\n"
    assert gw.read(REPO, "missing.sh", "main") is None
    assert gw.read(REPO, "bin", "main") is None
    before = len(fake_github.requests)
    assert gw.read(REPO, "../../user", "main") is None
    assert gw.read(REPO, "a//b", "main") is None
    assert len(fake_github.requests) == before  # impossible paths ask nothing


def test_files_over_1mb_are_read_through_the_blobs_api(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    big = (b"x" * 1023 + b"\n") * 1100  # 1.1 MB
    fake_github.create_repo(REPO, {"configs/big-master.yaml": big})
    gw = token_gateway(fake_github, clock)
    assert gw.read(REPO, "configs/big-master.yaml", "main") == big
    assert len(fake_github.calls("GET", r"/contents/")) == 1
    (blob_call,) = fake_github.calls("GET", r"/git/blobs/")
    assert blob_call.path.endswith(git_blob_sha(big))
    # cached by blob SHA
    assert gw.read(REPO, "configs/big-master.yaml", "main") == big
    assert len(fake_github.calls("GET", r"/git/blobs/")) == 1


def test_file_size_limit(fake_github: FakeGitHub, clock: Clock) -> None:
    fake_github.create_repo(REPO, {"huge": b"y" * (2 * 1024 * 1024)})
    gw = token_gateway(fake_github, clock, max_file_bytes=1024 * 1024)
    with pytest.raises(GitHubError) as caught:
        gw.read(REPO, "huge", "main")
    assert caught.value.status == 413
    assert fake_github.calls("GET", r"/git/blobs/") == []


def test_reads_use_a_cached_listing_and_share_blobs(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    gw.tree_paths(REPO, pr.base_sha)
    gw.tree_paths(REPO, pr.head_sha)
    fake_github.clear_requests()
    for sha in (pr.base_sha, pr.head_sha):
        assert gw.read(REPO, "docs/readme.md", sha) == b"hello\n"
        assert gw.read(REPO, "nope", sha) is None
    # one blob request for the unchanged file, none for the missing one, no contents API
    assert [c.path.rsplit("/", 1)[-1] for c in fake_github.requests] == [git_blob_sha(b"hello\n")]


# --------------------------------------------------------------------------- GitHubTree


def test_github_tree_is_lazy_and_caches(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    blobs: dict[str, bytes] = {}
    base = GitHubTree(gw, REPO, pr.base_sha, blobs=blobs)
    head = GitHubTree(gw, REPO, pr.head_sha, blobs=blobs)
    assert fake_github.requests == []
    path = "benchmarks/single_node/a.sh"
    # the engine's pattern: blob id first (parse cache), then the text
    assert head.blob_id(path) == git_blob_sha(HEAD[path].encode())
    assert head.read(path) == HEAD[path].encode()
    assert head.read(path) == HEAD[path].encode()
    assert base.read(path) == BASE[path].encode()
    assert base.blob_id(path) == content_id(BASE[path].encode())
    assert sorted(head.paths()) == sorted(HEAD)
    count = len(fake_github.requests)
    assert head.read("not/there.sh") is None
    assert head.blob_id("not/there.sh") is None
    assert len(fake_github.requests) == count
    assert base.read("benchmarks/single_node/b_mtp.sh") is None


# --------------------------------------------------------------------------- reviews and comments


def test_review_with_inline_comments(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    review_id = gw.create_review(
        REPO,
        pr.number,
        pr.head_sha,
        "summary",
        [
            ReviewComment("benchmarks/single_node/a.sh", 4, "too high"),
            ReviewComment("benchmarks/single_node/b_mtp.sh", 2, "span", start_line=1),
            ReviewComment("benchmarks/single_node/a.sh", 3, "old side", side="LEFT"),
        ],
    )
    (post,) = fake_github.calls("POST", r"/pulls/1/reviews$")
    assert post.json["event"] == "COMMENT"
    assert post.json["commit_id"] == pr.head_sha
    assert post.json["comments"][1] == {
        "path": "benchmarks/single_node/b_mtp.sh",
        "line": 2,
        "side": "RIGHT",
        "body": "span",
        "start_line": 1,
        "start_side": "RIGHT",
    }
    inline = gw.review_comments(REPO, pr.number)
    assert [(c.path, c.line, c.author, c.kind) for c in inline] == [
        ("benchmarks/single_node/a.sh", 4, "recipe-bot", "review"),
        ("benchmarks/single_node/b_mtp.sh", 2, "recipe-bot", "review"),
        ("benchmarks/single_node/a.sh", 3, "recipe-bot", "review"),
    ]
    (summary,) = gw.reviews(REPO, pr.number)
    assert (summary.id, summary.body, summary.kind) == (review_id, "summary", "review_summary")


def test_review_line_outside_the_diff_is_422_and_posted_once(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    fake_github.create_pull(
        REPO,
        base={"a.sh": "".join(f"line {i}\n" for i in range(1, 40))},
        head={"a.sh": "".join(f"line {i}\n" if i != 20 else "changed\n" for i in range(1, 40))},
    )
    gw = token_gateway(fake_github, clock)
    head_sha = fake_github.repo(REPO).pulls[1].head_sha
    with pytest.raises(GitHubError) as caught:
        gw.create_review(REPO, 1, head_sha, "s", [ReviewComment("a.sh", 2, "far away")])
    assert caught.value.status == 422
    assert not caught.value.transient
    assert "part of the diff" in str(caught.value)
    assert len(fake_github.calls("POST")) == 1
    # lines 17-23 are the hunk: context lines are commentable too
    gw.create_review(REPO, 1, head_sha, "s", [ReviewComment("a.sh", 17, "context")])
    assert len(fake_github.repo(REPO).review_comments[1]) == 1


def test_issue_comments_create_list_edit(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    cid = gw.create_issue_comment(REPO, pr.number, "<!-- marker --> hello")
    gw.edit_issue_comment(REPO, cid, "<!-- marker --> edited")
    (comment,) = gw.issue_comments(REPO, pr.number)
    assert (comment.id, comment.body, comment.author, comment.kind) == (
        cid,
        "<!-- marker --> edited",
        "recipe-bot",
        "issue",
    )
    assert fake_github.calls("PATCH")[0].path == f"/repos/{REPO}/issues/comments/{cid}"


def test_edit_review_comment(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    gw.create_review(
        REPO, 1, pr.head_sha, "s", [ReviewComment("benchmarks/single_node/a.sh", 4, "a")]
    )
    (c,) = gw.review_comments(REPO, 1)
    gw.edit_review_comment(REPO, c.id, "resolved")
    assert gw.review_comments(REPO, 1)[0].body == "resolved"


def test_many_comments_are_paginated(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    for i in range(105):
        gw.create_issue_comment(REPO, pr.number, f"c{i}")
    assert [c.body for c in gw.issue_comments(REPO, pr.number)] == [f"c{i}" for i in range(105)]


def test_set_status_truncates_the_description(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    gw.set_status(REPO, pr.head_sha, Status("failure", "recipe-review", "x" * 300, "https://e/x"))
    (status,) = fake_github.repo(REPO).statuses[pr.head_sha]
    assert status["state"] == "failure"
    assert status["context"] == "recipe-review"
    assert len(status["description"]) == 140
    assert status["target_url"] == "https://e/x"


# --------------------------------------------------------------------------- failures and retries


def test_5xx_on_get_is_retried(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    fake_github.fail_next("GET", r"/pulls/1$", 502, times=2)
    gw = token_gateway(fake_github, clock)
    assert gw.pull(REPO, 1).number == 1
    assert [c.status for c in fake_github.calls("GET", r"/pulls/1$")] == [502, 502, 200]
    assert clock.sleeps == [1.0]  # urllib3 backoff: 0, then 2 * 0.5


def test_get_gives_up_after_the_retries(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    fake_github.fail_next("GET", r"/pulls/1$", 503, times=10)
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.pull(REPO, 1)
    assert caught.value.status == 503
    assert caught.value.transient
    assert len(fake_github.calls("GET", r"/pulls/1$")) == 4  # 1 + 3 retries


def test_post_is_not_retried_and_a_late_5xx_makes_no_duplicate(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    pr = simple_pr(fake_github)
    fake_github.fail_next("POST", r"/issues/\d+/comments$", 502, after_effect=True)
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.create_issue_comment(REPO, pr.number, "<!-- m --> summary")
    assert caught.value.status == 502 and caught.value.transient
    assert len(fake_github.calls("POST")) == 1
    # the comment exists: a caller re-reading before re-posting finds it
    assert [c.body for c in gw.issue_comments(REPO, pr.number)] == ["<!-- m --> summary"]


def test_post_failing_before_effect_creates_nothing(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    fake_github.fail_next("POST", r"/reviews$", 500)
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError):
        gw.create_review(REPO, pr.number, pr.head_sha, "s", [])
    assert len(fake_github.calls("POST")) == 1
    assert gw.reviews(REPO, pr.number) == []


def test_retry_after_is_honoured_on_get(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    fake_github.fail_next("GET", r"/pulls/1$", 503, retry_after=7)
    gw = token_gateway(fake_github, clock)
    gw.pull(REPO, 1)
    assert clock.sleeps == [7.0]


@pytest.mark.parametrize(("retry_after", "slept"), [(3, 3.0), (None, 60.0)])
def test_secondary_rate_limit_on_get_waits_then_retries(
    fake_github: FakeGitHub, clock: Clock, retry_after: float | None, slept: float
) -> None:
    simple_pr(fake_github)
    fake_github.rate_limit_next("GET", r"/pulls/1$", retry_after=retry_after)
    gw = token_gateway(fake_github, clock)
    gw.pull(REPO, 1)
    assert [c.status for c in fake_github.calls("GET", r"/pulls/1$")] == [403, 200]
    assert clock.sleeps == [slept]


def test_a_retry_after_beyond_the_max_wait_is_not_slept(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    simple_pr(fake_github)
    fake_github.rate_limit_next("GET", r"/pulls/1$", retry_after=600, status=429)
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.pull(REPO, 1)
    err = caught.value
    assert (err.status, err.retry_after, err.transient) == (429, 600.0, True)
    assert clock.sleeps == []
    assert len(fake_github.calls("GET", r"/pulls/1$")) == 1


def test_primary_rate_limit_beyond_max_wait(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    fake_github.rate_limit_next("GET", r"/pulls/1$", retry_after=3600, secondary=False)
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.pull(REPO, 1)
    assert caught.value.status == 403
    assert caught.value.retry_after is not None and 3500 < caught.value.retry_after < 3700
    assert caught.value.transient
    assert clock.sleeps == []


def test_rate_limited_write_is_sent_again_after_the_wait(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    pr = simple_pr(fake_github)
    fake_github.rate_limit_next("POST", r"/issues/\d+/comments$", retry_after=5)
    gw = token_gateway(fake_github, clock)
    gw.create_issue_comment(REPO, pr.number, "hello")
    assert [c.status for c in fake_github.calls("POST")] == [403, 201]
    assert clock.sleeps == [5.0]
    assert len(gw.issue_comments(REPO, pr.number)) == 1


def test_rate_limited_write_with_a_long_wait_fails_with_retry_after(
    fake_github: FakeGitHub, clock: Clock
) -> None:
    pr = simple_pr(fake_github)
    fake_github.rate_limit_next("POST", r"/statuses/", retry_after=900)
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.set_status(REPO, pr.head_sha, Status("success", "ctx", "ok"))
    assert (caught.value.status, caught.value.retry_after) == (403, 900.0)
    assert len(fake_github.calls("POST")) == 1
    assert clock.sleeps == []


def test_writes_are_paced(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    gw = token_gateway(fake_github, clock, seconds_between_writes=1.0)
    for i in range(3):
        gw.create_issue_comment(REPO, pr.number, f"c{i}")
    gw.issue_comments(REPO, pr.number)  # reads are not paced
    assert clock.sleeps == [1.0, 1.0]


def test_permission_403_is_not_retried_nor_transient(fake_github: FakeGitHub, clock: Clock) -> None:
    pr = simple_pr(fake_github)
    fake_github.fail_next(
        "GET", r"/pulls/1$", 403, message="Resource not accessible by integration"
    )
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.pull(REPO, pr.number)
    assert (caught.value.status, caught.value.retry_after) == (403, None)
    assert not caught.value.transient
    assert len(fake_github.calls("GET", r"/pulls/1$")) == 1


def test_not_found(fake_github: FakeGitHub, clock: Clock) -> None:
    simple_pr(fake_github)
    gw = token_gateway(fake_github, clock)
    with pytest.raises(GitHubError) as caught:
        gw.pull(REPO, 99)
    assert caught.value.status == 404 and not caught.value.transient


def test_no_server_is_status_0_and_transient(clock: Clock) -> None:
    with FakeGitHub() as fake:
        url = fake.url
    gw = from_token(TOKEN, url, sleep=clock.sleep, clock=clock, read_retries=0, timeout=2)
    with pytest.raises(GitHubError) as caught:
        gw.pull(REPO, 1)
    assert caught.value.status == 0 and caught.value.transient


def test_error_mapping_of_pygithub_exceptions() -> None:
    err = to_github_error(GithubException(502, {"message": "Server Error"}, {}), "GET /x")
    assert (err.status, err.retry_after, err.transient) == (502, None, True)
    assert str(err) == "GET /x: 502 Server Error"
    err = to_github_error(
        GithubException(403, {"message": "You have exceeded a secondary rate limit."}, {}), "w"
    )
    assert (err.status, err.retry_after, err.transient) == (403, 60.0, True)
    err = to_github_error(GithubException(403, {"message": "x"}, {"Retry-After": "12"}), "w")
    assert err.retry_after == 12.0
    reset = str(int(time.time()) + 100)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    err = to_github_error(GithubException(403, {"message": "API rate limit exceeded"}, headers))
    assert err.retry_after is not None and 90 < err.retry_after <= 100
    err = to_github_error(
        GithubException(422, {"message": "Validation Failed", "errors": [{"message": "bad"}]}, {})
    )
    assert (err.status, str(err)) == (422, "GitHub request: 422 Validation Failed (bad)")
    assert not err.transient


# --------------------------------------------------------------------------- the fake's own helpers


def test_fake_patch_and_commentable_lines() -> None:
    patch = unified_patch(b"a\nb\nc\n", b"a\nB\nc\nd\n")
    assert patch == "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d"
    lines = commentable_lines(patch)
    assert lines == {"RIGHT": {1, 2, 3, 4}, "LEFT": {1, 2, 3}}
    assert unified_patch(b"\x00\x01", b"\x00\x02") is None


def test_fake_contents_wraps_base64_like_github(fake_github: FakeGitHub) -> None:
    fake_github.add_token(TOKEN, "recipe-bot")
    fake_github.create_repo(REPO, {"a.txt": "z" * 200})
    import httpx

    r = httpx.get(
        f"{fake_github.url}/repos/{REPO}/contents/a.txt",
        headers={
            "Authorization": f"token {TOKEN}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        },
    )
    body = r.json()
    assert "\n" in body["content"]
    assert base64.b64decode(body["content"]) == b"z" * 200
    assert body["sha"] == git_blob_sha(b"z" * 200)
