"""The gateway method table: a new gateway method touches two files.

The methods are declared once (`bot.github.types`: the Protocols and `WRITES`) and
implemented once (`bot.github.gateway`). The dry run, the call hooks (metrics, job
deadline, shared pacing), the local-clone gateway and the test fake work from the table.
These tests call every declared method through each of them, and add a new read and a
new write at run time to show that nothing else needs code for them.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from webhook_fakes import BOT, REPO, MemoryGitHub, sha

from bot.github import calls
from bot.github.calls import METHODS, OPTIONAL, FallbackGateway, GatewayBase, hooked
from bot.github.gateway import PyGithubGateway
from bot.github.localgit import LocalGitGateway
from bot.github.types import (
    WRITES,
    CheckRun,
    CommitGateway,
    Gateway,
    GitHubError,
    OptionalReads,
    PullInfo,
    ReviewComment,
    SignoffGateway,
    Status,
    TreeChange,
)
from bot.server.dryrun import DryRunGateway

SAMPLE: dict[Any, Any] = {
    str: "x",
    int: 7,
    bool: True,
    ReviewComment: ReviewComment("a.sh", 1, "body"),
    Status: Status("success", "ctx", "ok"),
    bytes: b"x",
    CheckRun: CheckRun("ctx", "a" * 40, status="in_progress"),
    TreeChange: TreeChange("a.sh", "b" * 40),
}


def sample_args(name: str) -> list[Any]:
    """Arguments that fit gateway method `name`'s Protocol signature."""
    out = []
    for p in calls.signature(name).parameters.values():
        hint = p.annotation
        origin = typing.get_origin(hint)
        if origin is not None and hint not in SAMPLE:  # Sequence[ReviewComment]
            out.append([SAMPLE[typing.get_args(hint)[0]]])
        else:
            out.append(SAMPLE[hint])
    return out


class Recorder:
    """A `CallHook` that notes each call it sees."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, bool]] = []
        self.errors: list[tuple[str, int]] = []

    def before(self, name: str, write: bool) -> None:
        self.seen.append(("before", name, write))

    def failed(self, name: str, error: GitHubError) -> None:
        self.errors.append((name, error.status))


class Inner(FallbackGateway):
    """A gateway that answers every read with its empty answer and logs each call."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def fallback(self, name: str) -> Callable[..., Any] | None:
        def answer(*args: Any, **kwargs: Any) -> Any:
            self.log.append(name)
            return None if calls.is_write(name) else calls.empty_answer(name)

        return answer


def test_the_table_lists_every_protocol_method_once() -> None:
    declared = [
        n
        for proto in (Gateway, SignoffGateway, CommitGateway, OptionalReads)
        for n, v in vars(proto).items()
        if callable(v) and not n.startswith("_")
    ]
    assert sorted(METHODS) == sorted(set(declared)) and len(METHODS) == len(declared)
    assert set(METHODS) >= WRITES and {"org_membership"} == OPTIONAL
    assert not WRITES & set(vars(SignoffGateway)), "sign-off methods only read"
    answers = {}
    for name in METHODS:
        if not calls.is_write(name):
            try:
                answers[name] = calls.empty_answer(name)
            except GitHubError as err:  # one object, or GitHub's 404
                answers[name] = err.status
    assert answers["pull"] == 404 and answers["pull_files"] == [] and answers["read"] is None
    with pytest.raises(ValueError):
        calls.empty_answer("set_status")


@pytest.mark.parametrize("name", METHODS)
def test_the_real_gateway_implements_each_method_with_its_protocol_signature(name: str) -> None:
    impl = inspect.signature(getattr(PyGithubGateway, name))
    params = [p.name for p in list(impl.parameters.values())[1:]]
    assert params == list(calls.signature(name).parameters), name
    assert getattr(getattr(PyGithubGateway, name), "__gateway_hooked__", False)


def test_the_generic_gateways_define_no_method_of_their_own() -> None:
    for cls in (DryRunGateway, LocalGitGateway):
        own_writes = [n for n in WRITES if n in vars(cls)]
        assert not own_writes, f"{cls.__name__} spells out {own_writes}"
    assert not [n for n in METHODS if n in vars(DryRunGateway)]


@pytest.mark.parametrize("name", METHODS)
def test_dry_run_passes_each_read_through_and_records_each_write(name: str) -> None:
    inner = Inner()
    dry = DryRunGateway(inner)
    try:
        result = getattr(dry, name)(*sample_args(name))
    except GitHubError as err:
        result = err.status
    if calls.is_write(name):
        assert inner.log == [] and [w.kind for w in dry.writes] == [name]
        assert dry.writes[0].repo == "x"
        fake = (isinstance(result, int) and result < 0) or (
            isinstance(result, str) and result.startswith("0" * 30)
        )
        assert fake == name.startswith("create_")
        assert name in dry.render() or "would" in dry.render()
    else:
        assert inner.log == [name] and dry.writes == []
        assert result == (404 if name == "pull" else calls.empty_answer(name))


@pytest.mark.parametrize("name", METHODS)
def test_the_test_fake_and_hooks_handle_each_method(name: str) -> None:
    hook = Recorder()
    github = hooked(MemoryGitHub(), hook)
    method = getattr(github, name, None)
    if name in OPTIONAL:
        assert method is None  # the fake has no org_membership: callers do without
        return
    assert method is not None
    try:
        method(*sample_args(name))
    except GitHubError as err:
        assert (name, err.status) == ("pull", 404)  # no such pull request in the fake
        assert hook.errors == [("pull", 404)]
    assert hook.seen == [("before", name, calls.is_write(name))]


@pytest.mark.parametrize("name", sorted(WRITES))
def test_the_local_clone_refuses_each_write(name: str, tmp_path: Any) -> None:
    local = LocalGitGateway(tmp_path, {})
    with pytest.raises(GitHubError, match="--dry-run"):
        getattr(local, name)(*sample_args(name))


def test_hooks_run_once_per_call_outermost_last_added_first() -> None:
    order: list[str] = []

    class Named(Recorder):
        def __init__(self, tag: str) -> None:
            super().__init__()
            self.tag = tag

        def before(self, name: str, write: bool) -> None:
            order.append(f"{self.tag}:{name}")

        def failed(self, name: str, error: GitHubError) -> None:
            order.append(f"{self.tag}!{error.status}")

    class Missing(MemoryGitHub):
        def pull(self, repo: str, number: int) -> PullInfo:  # overrides, then calls the base
            return super().pull(repo, number)

    github = hooked(hooked(Missing(), Named("inner")), Named("outer"))
    with pytest.raises(GitHubError):
        github.pull(REPO, 404)
    assert order == ["outer:pull", "inner:pull", "inner!404", "outer!404"]
    order.clear()
    assert github.login() == BOT
    assert order == ["outer:login", "inner:login"]
    with pytest.raises(TypeError, match="GatewayBase"):
        hooked(DryRunGateway(MemoryGitHub()), Named("x"))


def test_a_hooked_copy_shares_the_gateway_state() -> None:
    github = MemoryGitHub()
    copy = hooked(github, Recorder())
    copy.open_pull(3, sha(3))
    copy.create_issue_comment(REPO, 3, "hello")
    assert github.pull(REPO, 3).head_sha == sha(3) and github.comments == [(REPO, 3, "hello")]
    gateway = PyGithubGateway.from_token("t", "http://127.0.0.1:9", login="me")
    twin = hooked(gateway, Recorder())
    assert twin._http is gateway._http and twin._blobs is gateway._blobs
    assert twin.login() == "me"


# ----------------------------------------------------------------------------- a new method


def labels(self: Any, repo: str, number: int) -> list[str]:
    """A new read, declared as it would be in `bot.github.types`."""
    raise NotImplementedError


def lock_conversation(self: Any, repo: str, number: int, reason: str) -> None:
    """A new write."""
    raise NotImplementedError


@pytest.fixture
def two_new_methods(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The table with `labels` and `lock_conversation` added (file one: bot.github.types)."""
    monkeypatch.setitem(calls._METHODS, "labels", labels)
    monkeypatch.setitem(calls._METHODS, "lock_conversation", lock_conversation)
    monkeypatch.setattr(calls, "WRITES", WRITES | {"lock_conversation"})
    calls.signature.cache_clear()
    yield
    calls.signature.cache_clear()


def test_a_new_read_and_write_need_only_the_table_and_the_gateway(two_new_methods: None) -> None:
    # file two: the implementation in the real gateway (here a subclass of it)
    class Extended(PyGithubGateway):
        def labels(self, repo: str, number: int) -> list[str]:
            return ["bug"]

        def lock_conversation(self, repo: str, number: int, reason: str) -> None:
            raise GitHubError("locked out", 403)

    real = Extended.from_token("t", "http://127.0.0.1:9", login="me")
    assert getattr(Extended.labels, "__gateway_hooked__", False)
    hook = Recorder()
    gateway: Any = hooked(real, hook)
    assert gateway.labels(REPO, 1) == ["bug"]
    with pytest.raises(GitHubError):
        gateway.lock_conversation(REPO, 1, "spam")
    assert hook.seen == [("before", "labels", False), ("before", "lock_conversation", True)]
    assert hook.errors == [("lock_conversation", 403)]

    dry: Any = DryRunGateway(real)
    assert dry.labels(REPO, 1) == ["bug"]
    assert dry.lock_conversation(REPO, 1, reason="spam") is None
    (write,) = dry.writes
    assert (write.kind, write.repo, write.number, write.extra) == (
        "lock_conversation",
        REPO,
        1,
        {"reason": "spam"},
    )
    assert "would call lock_conversation on Codertocat/Hello-World (reason='spam')" in dry.render()
    assert '"reason": "spam"' in dry.to_json()
    with pytest.raises(TypeError):
        dry.lock_conversation(REPO)  # bound to the declared signature

    fake: Any = hooked(MemoryGitHub(), hook)
    assert fake.labels(REPO, 1) == []
    assert fake.lock_conversation(REPO, 1, "spam") == 1
    assert fake.other_writes == [("lock_conversation", (REPO, 1, "spam"))]

    with pytest.raises(GitHubError, match="--dry-run"):
        LocalGitGateway(".", {}).lock_conversation(REPO, 1, "spam")
    assert isinstance(real, GatewayBase)
