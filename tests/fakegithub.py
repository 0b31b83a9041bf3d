"""A fake GitHub REST API on loopback, for tests that exercise PyGithub itself.

    with FakeGitHub() as fake:
        fake.add_token("t0ken", "recipe-bot")
        pr = fake.create_pull("octo/bench", base={"a.sh": "x\n"}, head={"a.sh": "y\n"})
        gateway = from_token("t0ken", fake.url, seconds_between_writes=0)

It speaks HTTP/1.1 on 127.0.0.1 (a `ThreadingHTTPServer` in a thread) and
keeps everything in memory: repositories with real git object ids (blobs,
trees, commits, branches), pull requests, their files (diffed from the two
trees, with unified-diff `patch` fields), issue and review comments, reviews,
commit statuses, check runs, collaborator roles (`set_permission`: a user with
write access may edit or delete other people's comments, as on GitHub), org
teams (`add_team`, `hide_teams` for a 403), a GitHub App (JWTs are verified with
the app's public key) with installations and expiring installation tokens.

Every request is recorded in `fake.requests` (method, path, query, json body,
headers, status answered). Failures are injected with `fail_next` (any status,
optionally after applying the request), `rate_limit_next` (403/429 with a
rate-limit message and `Retry-After`) and `chaos` (a fraction of all writes
answered 502 after being applied).

Only what the bot uses is implemented; shapes follow the real API closely
enough for PyGithub and for code reading the JSON.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import itertools
import json
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

try:  # imported as `tests.fakegithub` (benchmarks) or as `fakegithub` (conftest)
    from tests.github_contract import API_VERSION, Contract, ContractError
except ImportError:  # pragma: no cover - depends on sys.path
    from github_contract import API_VERSION, Contract, ContractError  # type: ignore[no-redef]

JSON = dict[str, Any]
Files = Mapping[str, str | bytes]

LARGE_FILE = 1024 * 1024  # the contents API sends no content above 1 MB
MAX_PR_FILES = 3000
MAX_PR_COMMITS = 250  # GitHub lists at most 250 commits of a pull request
MAX_BODY = 65536  # GitHub refuses comment and review bodies longer than this
SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
PRIMARY_MESSAGE = "API rate limit exceeded for installation."
APP_PERMISSIONS = {
    "contents": "read",
    "metadata": "read",
    "pull_requests": "write",
    "statuses": "write",
    "checks": "write",
    "members": "read",
}

_EPOCH = "2026-01-01T00:00:00Z"
_KEY_LOCK = threading.Lock()
_KEY: rsa.RSAPrivateKey | None = None


def app_private_key() -> rsa.RSAPrivateKey:
    """One RSA key per test session (generating one takes ~50 ms)."""
    global _KEY
    with _KEY_LOCK:
        if _KEY is None:
            _KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return _KEY


def app_private_key_pem() -> str:
    return (
        app_private_key()
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
        .decode()
    )


# --------------------------------------------------------------------------- records


@dataclass
class Request:
    method: str
    path: str  # without the API prefix, still percent-encoded
    query: dict[str, str]
    json: Any
    headers: dict[str, str]  # lower-case names
    status: int = 0  # what the fake answered
    violations: list[str] = field(default_factory=list)  # what GitHub's contract rejects

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} {self.query or ''} -> {self.status}>"


@dataclass
class Failure:
    method: str
    path_regex: str
    status: int
    after_effect: bool
    headers: dict[str, str]
    body: JSON
    times: int

    def matches(self, method: str, path: str) -> bool:
        return (self.method in ("*", method)) and re.search(self.path_regex, path) is not None


@dataclass
class Hook:
    method: str
    path_regex: str
    action: Callable[[FakeGitHub], None]
    times: int

    def matches(self, method: str, path: str) -> bool:
        return (self.method in ("*", method)) and re.search(self.path_regex, path) is not None

    def run(self, fake: FakeGitHub) -> None:
        self.action(fake)


@dataclass
class Stall:
    method: str
    path_regex: str
    seconds: float
    times: int

    def matches(self, method: str, path: str) -> bool:
        return (self.method in ("*", method)) and re.search(self.path_regex, path) is not None


class HTTPError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body: JSON = {
            "message": message,
            "documentation_url": "https://docs.github.com/rest",
            **extra,
        }


# --------------------------------------------------------------------------- git objects


def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def _as_bytes(value: str | bytes) -> bytes:
    return value.encode() if isinstance(value, str) else value


@dataclass
class TreeEntry:
    name: str
    mode: str  # "100644" file, "100755" executable, "120000" symlink, "040000" tree
    type: str  # "blob" | "tree"
    sha: str


@dataclass
class FakeRepo:
    owner: str
    name: str
    id: int
    default_branch: str = "main"
    installation_id: int | None = 1
    private: bool = False
    blobs: dict[str, bytes] = field(default_factory=dict)
    trees: dict[str, list[TreeEntry]] = field(default_factory=dict)
    commits: dict[str, JSON] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    pulls: dict[int, FakePull] = field(default_factory=dict)
    issue_comments: dict[int, list[JSON]] = field(default_factory=dict)
    review_comments: dict[int, list[JSON]] = field(default_factory=dict)
    reviews: dict[int, list[JSON]] = field(default_factory=dict)
    statuses: dict[str, list[JSON]] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)  # login -> role_name
    check_runs: dict[str, list[JSON]] = field(default_factory=dict)  # commit sha -> runs
    fork_of: str | None = None  # the parent's full name, for a fork

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    # -- objects

    def put_tree(self, files: Files, modes: Mapping[str, str] | None = None) -> str:
        """Store a tree for {path: content} and return its (real git) SHA."""
        root: dict[str, Any] = {}
        for path, content in files.items():
            parts = path.strip("/").split("/")
            node = root
            for part in parts[:-1]:
                node = node.setdefault(part, {})
                if not isinstance(node, dict):
                    raise ValueError(f"{path}: a parent is a file")
            node[parts[-1]] = (path.strip("/"), _as_bytes(content))
        return self._put_node(root, modes or {})

    def put_tree_shas(self, files: Mapping[str, tuple[str, str]]) -> str:
        """Store a tree for {path: (mode, blob sha)} (blobs already stored)."""
        root: dict[str, Any] = {}
        for path, (_mode, sha) in files.items():
            parts = path.strip("/").split("/")
            node = root
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            node[parts[-1]] = (path, self.blobs[sha])
        return self._put_node(root, {p: m for p, (m, _) in files.items()})

    def _put_node(self, node: dict[str, Any], modes: Mapping[str, str]) -> str:
        entries: list[TreeEntry] = []
        for name, child in node.items():
            if isinstance(child, dict):
                entries.append(TreeEntry(name, "040000", "tree", self._put_node(child, modes)))
            else:
                path, data = child
                sha = git_blob_sha(data)
                self.blobs[sha] = data
                entries.append(TreeEntry(name, modes.get(path, "100644"), "blob", sha))
        entries.sort(key=lambda e: e.name + ("/" if e.type == "tree" else ""))
        raw = b"".join(
            f"{e.mode.lstrip('0')} {e.name}".encode() + b"\x00" + bytes.fromhex(e.sha)
            for e in entries
        )
        sha = hashlib.sha1(b"tree %d\x00" % len(raw) + raw).hexdigest()
        self.trees[sha] = entries
        return sha

    def walk(self, tree_sha: str, prefix: str = "") -> Iterator[tuple[str, TreeEntry]]:
        """(path, entry) of every entry under a tree, depth first, trees included."""
        for e in self.trees[tree_sha]:
            path = prefix + e.name
            yield path, e
            if e.type == "tree":
                yield from self.walk(e.sha, path + "/")

    def files(self, commit_sha: str) -> dict[str, TreeEntry]:
        tree = self.commits[commit_sha]["tree"]
        return {p: e for p, e in self.walk(tree) if e.type == "blob"}

    def lookup(self, commit_sha: str, path: str) -> TreeEntry | None:
        """The entry at `path` in a commit (path "" is the root tree)."""
        entry = TreeEntry("", "040000", "tree", self.commits[commit_sha]["tree"])
        for part in [p for p in path.strip("/").split("/") if p]:
            if entry.type != "tree":
                return None
            found = [e for e in self.trees[entry.sha] if e.name == part]
            if not found:
                return None
            entry = found[0]
        return entry

    def resolve(self, ref: str) -> str | None:
        """A commit SHA for a SHA, a SHA prefix, a branch name or `heads/<branch>`."""
        if ref in self.commits:
            return ref
        for name in (ref, ref.removeprefix("refs/").removeprefix("heads/")):
            if name in self.branches:
                return self.branches[name]
        if re.fullmatch(r"[0-9a-f]{7,39}", ref):
            found = [s for s in self.commits if s.startswith(ref)]
            if len(found) == 1:
                return found[0]
        return None

    def ancestors(self, sha: str) -> list[str]:
        """`sha` and its ancestors, nearest first (breadth first)."""
        seen: dict[str, None] = {}
        queue = [sha]
        while queue:
            s = queue.pop(0)
            if s in seen:
                continue
            seen[s] = None
            queue.extend(self.commits[s]["parents"])
        return list(seen)

    def merge_base(self, base: str, head: str) -> str | None:
        base_set = set(self.ancestors(base))
        for s in self.ancestors(head):
            if s in base_set:
                return s
        return None


@dataclass
class FakePull:
    number: int
    user: str
    base_ref: str
    head_ref: str
    base_sha: str
    head_sha: str
    title: str = "A pull request"
    body: str = ""
    draft: bool = False
    state: str = "open"
    id: int = 0
    merged: bool = False
    head_repo: str | None = None  # a fork's full name; None: the base repository


# --------------------------------------------------------------------------- diffs


def unified_patch(old: bytes | None, new: bytes | None) -> str | None:
    """GitHub's `patch` field: hunks only (no ---/+++ header); None for binary files."""
    if (old and b"\x00" in old) or (new and b"\x00" in new):
        return None
    try:
        a = (old or b"").decode("utf-8").splitlines()
        b = (new or b"").decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    lines = list(difflib.unified_diff(a, b, n=3, lineterm=""))[2:]
    return "\n".join(lines) if lines else None


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def commentable_lines(patch: str | None) -> dict[str, set[int]]:
    """Lines a review comment may target: {"RIGHT": new-side lines, "LEFT": old-side lines}."""
    sides: dict[str, set[int]] = {"RIGHT": set(), "LEFT": set()}
    old = new = 0
    for line in (patch or "").split("\n"):
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            continue
        if line.startswith("+"):
            sides["RIGHT"].add(new)
            new += 1
        elif line.startswith("-"):
            sides["LEFT"].add(old)
            old += 1
        elif line.startswith("\\"):
            continue
        else:
            sides["RIGHT"].add(new)
            sides["LEFT"].add(old)
            old += 1
            new += 1
    return sides


def _hunks(patch: str | None) -> Iterator[tuple[int, int, int, str]]:
    """(position, old line, new line, text) of each line of a patch; position 0 is a
    hunk header (counted, as GitHub counts positions through later headers)."""
    old = new = 0
    for position, text in enumerate((patch or "").split("\n")):
        m = _HUNK.match(text)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            yield position, 0, 0, text
            continue
        if text.startswith("+"):
            yield position, 0, new, text
            new += 1
        elif text.startswith("-"):
            yield position, old, 0, text
            old += 1
        elif text.startswith("\\"):
            yield position, 0, 0, text
        else:
            yield position, old, new, text
            old += 1
            new += 1


def diff_position(patch: str | None, line: int, side: str = "RIGHT") -> int | None:
    """The review comment `position` of `line`: lines down from the first hunk header."""
    for position, old, new, _ in _hunks(patch):
        if position and (new if side == "RIGHT" else old) == line:
            return position
    return None


def hunk_of(patch: str | None, line: int, side: str = "RIGHT") -> int | None:
    """The index of the hunk holding `line` (a comment range must stay in one hunk)."""
    hunk = -1
    for _, old, new, text in _hunks(patch):
        if _HUNK.match(text):
            hunk += 1
        elif (new if side == "RIGHT" else old) == line:
            return hunk
    return None


def hunk_text(patch: str | None, line: int, side: str = "RIGHT") -> str:
    """A review comment's `diff_hunk`: its hunk's header down to the commented line."""
    out: list[str] = []
    for _, old, new, text in _hunks(patch):
        if _HUNK.match(text):
            out = []
        out.append(text)
        if (new if side == "RIGHT" else old) == line and not _HUNK.match(text):
            return "\n".join(out)
    return ""


def _similarity(a: bytes, b: bytes) -> float:
    """How much of two files' lines they share (0..1), as git's rename detection asks."""
    try:
        x, y = a.decode("utf-8").splitlines(), b.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return 1.0 if a == b else 0.0
    if not x and not y:
        return 1.0
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()


def _b64(data: bytes) -> str:
    text = base64.b64encode(data).decode()
    return "\n".join(text[i : i + 60] for i in range(0, len(text), 60)) + "\n"


# --------------------------------------------------------------------------- the server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _any(self) -> None:
        self.server.fake._serve(self)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _any


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeGitHub

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client killed mid-request (the SIGKILL battery): nothing to report
        super().handle_error(request, client_address)


class FakeGitHub:
    """The fake. Use as a context manager (or `start()`/`stop()`): leaving the block
    raises `ContractError` when a request or an answer broke GitHub's REST contract
    (and `tests/conftest.py` checks every fake a test made, however it was stopped)."""

    live: ClassVar[weakref.WeakSet[FakeGitHub]] = weakref.WeakSet()

    def __init__(
        self,
        *,
        prefix: str = "",
        app_id: int = 4242,
        app_slug: str = "recipe-review",
        token_ttl: float = 3600.0,
        clock: Callable[[], float] = time.time,
        contract: bool = True,
    ) -> None:
        self.prefix = prefix.rstrip("/")
        # every request and answer is judged by GitHub's REST description (tests/github_contract)
        self.contract: Contract | None = Contract.load() if contract else None
        self._hooks: list[Hook] = []
        self._stalls: list[Stall] = []
        FakeGitHub.live.add(self)
        self.app_id = app_id
        self.app_slug = app_slug
        self.token_ttl = token_ttl  # seconds an installation token lives
        self.clock = clock
        self.tree_entry_limit: int | None = None  # recursive trees above this are truncated
        self.requests: list[Request] = []
        self.repos: dict[str, FakeRepo] = {}
        self.users: dict[str, JSON] = {}
        self.tokens: dict[str, JSON] = {}  # token -> {"login", "installation", "expires"}
        self.issued_tokens: list[str] = []
        self.failures: list[Failure] = []
        self.teams: dict[tuple[str, str], dict[str, str]] = {}  # (org, slug) -> login -> state
        self.hidden_team_orgs: set[str] = set()  # membership reads answer 403
        # org -> login -> public?; orgs whose members the requester may not see answer 302
        self.org_members: dict[str, dict[str, bool]] = {}
        self.outside_orgs: set[str] = set()
        self.forbidden_orgs: set[str] = set()  # membership checks answer 403
        self.deleted_users: set[str] = set()
        self.crashes: list[Exception] = []  # exceptions inside the fake (tests may assert none)
        self._chaos: tuple[float, Any, int, tuple[str, ...], str] | None = None
        self.chaos_hits = 0
        self._lock = threading.RLock()
        self._ids = itertools.count(1001)
        self._token_ids = itertools.count(1)
        self._diff_cache: dict[tuple[str, str, str], list[JSON]] = {}
        self._refused: dict[tuple[str, int, str], set[int]] = {}
        # what the App's installation may do (its tokens carry it); `contents: write` lets
        # it commit (the "Apply safe fixes" action), `checks: write` write check runs
        self.app_permissions: dict[str, str] = dict(APP_PERMISSIONS)
        self._caller = threading.local()  # the identity of the request being answered
        self._annotations: dict[int, list[JSON]] = {}  # check run id -> its annotations
        self.ref_updates: list[tuple[str, str, str, str]] = []  # (repo, branch, old, new)
        self.patch_limit: int | None = None  # changed lines above which `patch` is left out
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeGitHub:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fakegithub",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, kind: object, *exc: object) -> None:
        self.stop()
        if kind is None:
            self.assert_contract()

    @property
    def port(self) -> int:
        assert self._server is not None, "start the fake first"
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The API base URL to give PyGithub (`base_url`)."""
        return self.origin + self.prefix

    # ------------------------------------------------------------------ identities

    def user(self, login: str, type: str = "User") -> JSON:
        """The account `login` as GitHub shows it (`simple-user`), created on first use."""
        if login not in self.users:
            uid = next(self._ids)
            base = f"{self.url}/users/{login}"
            self.users[login] = {
                "login": login,
                "id": uid,
                "node_id": f"U_{uid}",
                "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
                "gravatar_id": "",
                "url": base,
                "html_url": f"https://github.com/{login}",
                "followers_url": f"{base}/followers",
                "following_url": f"{base}/following{{/other_user}}",
                "gists_url": f"{base}/gists{{/gist_id}}",
                "starred_url": f"{base}/starred{{/owner}}{{/repo}}",
                "subscriptions_url": f"{base}/subscriptions",
                "organizations_url": f"{base}/orgs",
                "repos_url": f"{base}/repos",
                "events_url": f"{base}/events{{/privacy}}",
                "received_events_url": f"{base}/received_events",
                "type": type,
                "user_view_type": "public",
                "site_admin": False,
            }
        return self.users[login]

    def delete_user(self, login: str) -> None:
        """The account is deleted, as GitHub shows it afterwards: its comments, reviews
        and statuses keep their text with `user: null`, and what it authored that must
        name someone (a pull request) names the `ghost` account."""
        with self._lock:
            self.user("ghost")
            for repo in self.repos.values():
                for table in (repo.issue_comments, repo.review_comments, repo.reviews):
                    for items in table.values():
                        for item in items:
                            if (item.get("user") or {}).get("login") == login:
                                item["user"] = None
                for statuses in repo.statuses.values():
                    for status in statuses:
                        if (status.get("creator") or {}).get("login") == login:
                            status["creator"] = None
                for pull in repo.pulls.values():
                    if pull.user == login:
                        pull.user = "ghost"
            self.deleted_users.add(login)

    def add_token(self, token: str, login: str, type: str = "User") -> None:
        """A personal (or bot-account) token acting as `login`."""
        self.user(login, type)
        self.tokens[token] = {"login": login, "installation": None, "expires": None}

    @property
    def app_private_key_pem(self) -> str:
        return app_private_key_pem()

    @property
    def bot_login(self) -> str:
        return f"{self.app_slug}[bot]"

    # ------------------------------------------------------------------ repositories

    def repo(self, full_name: str) -> FakeRepo:
        return self.repos[full_name]

    def create_repo(
        self,
        full_name: str,
        files: Files | None = None,
        *,
        branch: str = "main",
        installation_id: int | None = 1,
    ) -> FakeRepo:
        """A repository with one commit of `files` on `branch`."""
        with self._lock:
            owner, name = full_name.split("/")
            self.user(owner, "Organization")
            repo = FakeRepo(owner, name, next(self._ids), branch, installation_id)
            self.repos[full_name] = repo
            self.commit(full_name, files or {}, branch=branch, parents=[], message="initial")
            return repo

    def commit(
        self,
        full_name: str,
        files: Files,
        *,
        branch: str | None = None,
        parents: list[str] | None = None,
        message: str = "change",
        modes: Mapping[str, str] | None = None,
    ) -> str:
        """A commit whose tree is exactly `files`; parents default to the branch tip."""
        with self._lock:
            repo = self.repos[full_name]
            if parents is None:
                parents = [repo.branches[branch]] if branch in repo.branches else []
            tree = repo.put_tree(files, modes)
            text = f"tree {tree}\n" + "".join(f"parent {p}\n" for p in parents)
            text += f"\n{message} #{next(self._ids)}\n"
            sha = hashlib.sha1(f"commit {len(text)}\x00{text}".encode()).hexdigest()
            repo.commits[sha] = {
                "tree": tree,
                "parents": list(parents),
                "message": message,
                "date": self._now(),
            }
            if branch is not None:
                repo.branches[branch] = sha
            return sha

    def create_pull(
        self,
        full_name: str,
        *,
        head: Files,
        base: Files | None = None,
        number: int | None = None,
        user: str = "contributor",
        base_ref: str = "main",
        head_ref: str = "feature",
        draft: bool = False,
        title: str = "Update recipes",
        body: str = "",
        head_modes: Mapping[str, str] | None = None,
        fork: str | None = None,
    ) -> FakePull:
        """A PR whose head commit holds exactly `head`, branched from `base_ref`.

        With `base` the base branch first gets a commit holding `base` (the
        repository is created when missing). With `fork` ("someone/bench") the head
        branch lives in that fork, which the base repository's installation cannot
        read; its commits are readable through the base repository, as on GitHub
        (`refs/pull/N/head`)."""
        with self._lock:
            if full_name not in self.repos:
                self.create_repo(full_name, base or {}, branch=base_ref)
            elif base is not None:
                self.commit(full_name, base, branch=base_ref)
            repo = self.repos[full_name]
            self.user(user)
            base_sha = repo.branches[base_ref]
            head_sha = self.commit(
                full_name,
                head,
                branch=None if fork else head_ref,
                parents=[base_sha],
                modes=head_modes,
            )
            if fork is not None:
                self._fork(repo, fork)
            if number is None:
                number = max([0, *repo.pulls, *repo.issue_comments]) + 1
            pull = FakePull(number, user, base_ref, head_ref, base_sha, head_sha, title, body)
            pull.draft = draft
            pull.id = next(self._ids)
            pull.head_repo = fork
            repo.pulls[number] = pull
            return pull

    def _fork(self, parent: FakeRepo, full_name: str) -> FakeRepo:
        if full_name in self.repos:
            return self.repos[full_name]
        owner, name = full_name.split("/")
        self.user(owner)
        fork = FakeRepo(owner, name, next(self._ids), parent.default_branch, None)
        fork.fork_of = parent.full_name
        fork.private = True  # the base repository's installation cannot read it
        self.repos[full_name] = fork
        return fork

    def delete_fork(self, full_name: str) -> None:
        """The fork a PR comes from is deleted: its pulls show `head.repo: null`."""
        with self._lock:
            del self.repos[full_name]

    def push(self, full_name: str, number: int, head: Files) -> str:
        """A new commit on the PR's head branch (a `synchronize`)."""
        with self._lock:
            repo = self.repos[full_name]
            pull = repo.pulls[number]
            branch = None if pull.head_repo else pull.head_ref
            pull.head_sha = self.commit(full_name, head, branch=branch, parents=[pull.head_sha])
            self._reanchor(repo, pull)
            return pull.head_sha

    def force_push(self, full_name: str, number: int, head: Files) -> str:
        """The head branch rewritten: a new head that does not descend from the old one."""
        with self._lock:
            repo = self.repos[full_name]
            pull = repo.pulls[number]
            branch = None if pull.head_repo else pull.head_ref
            pull.head_sha = self.commit(
                full_name, head, branch=branch, parents=[pull.base_sha], message="rewritten"
            )
            self._reanchor(repo, pull)
            return pull.head_sha

    def retarget(self, full_name: str, number: int, base_ref: str) -> None:
        """The PR's base branch is changed (an `edited` with `changes.base`)."""
        with self._lock:
            repo = self.repos[full_name]
            pull = repo.pulls[number]
            pull.base_ref, pull.base_sha = base_ref, repo.branches[base_ref]
            self._reanchor(repo, pull)

    def set_permission(self, full_name: str, login: str, role: str) -> None:
        """`login`'s role on the repository: admin | maintain | write | triage | read."""
        with self._lock:
            self.user(login)
            self.repos[full_name].permissions[login] = role

    def add_team(
        self, org: str, slug: str, members: list[str], *, pending: list[str] | None = None
    ) -> None:
        with self._lock:
            team = self.teams.setdefault((org, slug), {})
            for login in members:
                self.user(login)
                team[login] = "active"
            for login in pending or []:
                self.user(login)
                team[login] = "pending"

    def hide_teams(self, org: str) -> None:
        """Team memberships in `org` answer 403 (a token without `members: read`)."""
        self.hidden_team_orgs.add(org)

    def add_org_member(self, org: str, login: str, *, public: bool = False) -> None:
        """`login` is a member of `org` (a public member: `public`)."""
        with self._lock:
            self.user(login)
            self.org_members.setdefault(org, {})[login] = public

    def hide_org_members(self, org: str) -> None:
        """The requester is not a member of `org`: `GET /orgs/{org}/members/{user}`
        answers 302 to the public-membership check, as GitHub documents."""
        self.outside_orgs.add(org)

    def forbid_org_members(self, org: str) -> None:
        """Membership checks in `org` answer 403 (a credential without `members: read`)."""
        self.forbidden_orgs.add(org)

    def is_org_member(self, org: str, login: str) -> bool:
        """A member of `org`: added as one, or in one of its teams (active or pending)."""
        if login in self.org_members.get(org, {}):
            return True
        return any(o == org and login in team for (o, _), team in self.teams.items())

    def add_check_run(
        self,
        full_name: str,
        sha: str,
        name: str,
        conclusion: str | None = "success",
        *,
        status: str = "completed",
        details_url: str | None = None,
    ) -> JSON:
        """A check run on commit `sha` (`check-run`): a run that has not completed has no
        conclusion and no completion time (`null`, as on GitHub)."""
        with self._lock:
            repo = self.repos[full_name]
            rid = next(self._ids)
            api = self._repo_url(repo)
            done = status == "completed"
            run = {
                "id": rid,
                "node_id": f"CR_{rid}",
                "head_sha": sha,
                "external_id": "",
                "url": f"{api}/check-runs/{rid}",
                "html_url": f"https://github.com/{full_name}/runs/{rid}",
                "details_url": details_url
                or f"https://github.com/{full_name}/actions/runs/{rid}/job/{rid}",
                "name": name,
                "status": status,
                "conclusion": conclusion if done else None,
                "started_at": self._now(),
                "completed_at": self._now() if done else None,
                "output": {
                    "title": None,
                    "summary": None,
                    "text": None,
                    "annotations_count": 0,
                    "annotations_url": f"{api}/check-runs/{rid}/annotations",
                },
                "check_suite": {"id": rid + 1},
                "app": self._actions_app(),
                "pull_requests": [],
            }
            repo.check_runs.setdefault(sha, []).append(run)
            return run

    def _actions_app(self) -> JSON:
        return {
            "id": 15368,
            "slug": "github-actions",
            "node_id": "MDM6QXBwMTUzNjg=",
            "owner": self.user("github", "Organization"),
            "name": "GitHub Actions",
            "description": "Automate your workflow from idea to production",
            "external_url": "https://help.github.com/en/actions",
            "html_url": "https://github.com/apps/github-actions",
            "created_at": "2018-07-30T09:30:17Z",
            "updated_at": "2019-12-10T19:04:12Z",
            "permissions": {"checks": "write", "contents": "write", "statuses": "write"},
            "events": ["check_run", "pull_request", "push"],
        }

    def pull_commits(self, full_name: str, number: int) -> list[str]:
        """The PR's commits as GitHub lists them: in head, not in base; oldest first."""
        repo = self.repos[full_name]
        pull = repo.pulls[number]
        base = set(repo.ancestors(pull.base_sha))
        return list(reversed([s for s in repo.ancestors(pull.head_sha) if s not in base]))

    # ------------------------------------------------------------------ failure injection

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int = 502,
        *,
        after_effect: bool = False,
        retry_after: float | None = None,
        times: int = 1,
        message: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer the next `times` requests matching `method` ("*" for any) and
        `path_regex` (searched in the path without the API prefix) with `status`.

        after_effect=False: the request is not applied. after_effect=True: it is
        applied (a comment gets created) and the answer is still the error, as
        when GitHub times out after doing the work.
        """
        extra = dict(headers or {})
        if retry_after is not None:
            extra["Retry-After"] = f"{retry_after:g}"
        text = message or ("Server Error" if status >= 500 else "Injected failure")
        with self._lock:
            self.failures.append(
                Failure(
                    method.upper(),
                    path_regex,
                    status,
                    after_effect,
                    extra,
                    {"message": text},
                    times,
                )
            )

    def chaos(
        self,
        fraction: float,
        *,
        seed: int = 0,
        status: int = 502,
        methods: tuple[str, ...] = ("POST", "PATCH", "PUT", "DELETE"),
        path_regex: str = ".*",
    ) -> None:
        """From now on answer `fraction` of the matching writes with `status` *after*
        applying them (GitHub did the work; the response was lost). Deterministic for
        a seed; `chaos(0)` stops it. Each injected answer is counted in `chaos_hits`."""
        import random

        with self._lock:
            self._chaos = (fraction, random.Random(seed), status, methods, path_regex)

    def rate_limit_next(
        self,
        method: str = "*",
        path_regex: str = ".*",
        *,
        retry_after: float | None = 60,
        secondary: bool = True,
        status: int = 403,
        times: int = 1,
    ) -> None:
        """Answer like GitHub's rate limiter (request not applied).

        secondary=True: "You have exceeded a secondary rate limit" with
        `Retry-After` (omitted when retry_after is None). secondary=False: the
        primary limit, `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` at
        now + retry_after."""
        extra: dict[str, str] = {}
        if secondary:
            text = SECONDARY_MESSAGE
            if retry_after is not None:
                extra["Retry-After"] = f"{retry_after:g}"
        else:
            text = PRIMARY_MESSAGE
            extra["X-RateLimit-Limit"] = "5000"
            extra["X-RateLimit-Remaining"] = "0"
            extra["X-RateLimit-Reset"] = str(int(self.clock() + (retry_after or 60)))
        self.fail_next(method, path_regex, status, message=text, headers=extra, times=times)

    # ------------------------------------------------------------------ inspection

    def calls(self, method: str | None = None, path_regex: str | None = None) -> list[Request]:
        with self._lock:
            return [
                r
                for r in self.requests
                if (method is None or r.method == method.upper())
                and (path_regex is None or re.search(path_regex, r.path))
            ]

    def writes(self) -> list[Request]:
        return [r for r in self.calls() if r.method in ("POST", "PATCH", "PUT", "DELETE")]

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    # ------------------------------------------------------------------ HTTP plumbing

    def _serve(self, h: _Handler) -> None:
        split = urlsplit(h.path)
        raw_path = split.path
        queries = parse_qs(split.query, keep_blank_values=True)
        query = {k: v[-1] for k, v in queries.items()}
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in h.headers.items()}
        body: Any = None
        bad_json = False
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                bad_json = True
        path = raw_path[len(self.prefix) :] if raw_path.startswith(self.prefix) else raw_path
        record = Request(h.command, path, query, body, headers)
        if self.contract is not None and not bad_json:
            record.violations += self.contract.check_request(
                h.command, path, queries, body, headers
            )
        with self._lock:
            self.requests.append(record)
            stall = [d for d in self._stalls if d.matches(h.command, path)]
            for d in stall:
                d.times -= 1
                if d.times <= 0:
                    self._stalls.remove(d)
        for d in stall:  # a slow answer, outside the lock: other requests go on
            time.sleep(d.seconds)
        with self._lock:
            failure = self._take_failure(h.command, path)
            hooks = [hk for hk in self._hooks if hk.matches(h.command, path)]
            for hk in hooks:
                hk.times -= 1
                if hk.times <= 0:
                    self._hooks.remove(hk)
        if failure is not None and not failure.after_effect:
            self._send(h, record, failure.status, failure.body, failure.headers)
            return
        extra: dict[str, str] = {}
        try:
            if not raw_path.startswith(self.prefix):
                raise HTTPError(404, "Not Found")
            if bad_json:
                raise HTTPError(400, "Problems parsing JSON")
            with self._lock:
                for hk in hooks:
                    hk.run(self)
                status, payload, extra = self._route(h.command, path, query, body, headers)
        except HTTPError as err:
            status, payload = err.status, err.body
        except Exception as exc:  # a bug in the fake: answer, do not hang the client
            status, payload = 500, {"message": f"fake GitHub crashed: {exc!r}"}
            self.crashes.append(exc)
        if failure is not None:
            self._send(h, record, failure.status, failure.body, failure.headers)
        else:
            self._send(h, record, status, payload, extra)

    def stall_next(self, method: str, path_regex: str, seconds: float, times: int = 1) -> None:
        """Answer the next `times` matching requests `seconds` late (GitHub being slow)."""
        with self._lock:
            self._stalls.append(Stall(method.upper(), path_regex, seconds, times))

    def before(
        self, method: str, path_regex: str, action: Callable[[FakeGitHub], None], times: int = 1
    ) -> None:
        """Run `action(fake)` just before the next `times` requests matching `method`
        ("*" for any) and `path_regex` are answered: someone acting on GitHub at that
        very moment (a push between the bot's read and its write, say)."""
        with self._lock:
            self._hooks.append(Hook(method.upper(), path_regex, action, times))

    # ------------------------------------------------------------------ the contract

    @property
    def contract_violations(self) -> list[str]:
        """Every request and answer GitHub's REST description rejected, in order."""
        with self._lock:
            return [v for r in self.requests for v in r.violations]

    def assert_contract(self) -> None:
        """Fail (`ContractError`) when a request or an answer broke GitHub's contract."""
        self.contract_checked = True
        problems = self.contract_violations
        if problems:
            shown = "\n  ".join(problems[:20])
            more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
            raise ContractError(f"GitHub's REST description rejects:\n  {shown}{more}")

    def _take_failure(self, method: str, path: str) -> Failure | None:
        if self._chaos is not None:
            fraction, rng, status, methods, regex = self._chaos
            if method in methods and re.search(regex, path) and rng.random() < fraction:
                self.chaos_hits += 1
                return Failure(method, regex, status, True, {}, {"message": "Server Error"}, 1)
        for f in self.failures:
            if f.matches(method, path):
                f.times -= 1
                if f.times <= 0:
                    self.failures.remove(f)
                return f
        return None

    def _send(
        self, h: _Handler, record: Request, status: int, payload: Any, headers: Mapping[str, str]
    ) -> None:
        record.status = status
        data = b"" if payload is None else json.dumps(payload).encode()
        if self.contract is not None:
            record.violations += self.contract.check_response(
                h.command, record.path, status, payload, headers, has_body=payload is not None
            )
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        h.send_header("X-GitHub-Api-Version-Selected", API_VERSION)
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(data)

    # ------------------------------------------------------------------ auth

    def _bearer(self, headers: Mapping[str, str]) -> str:
        auth = headers.get("authorization", "")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not value:
            raise HTTPError(401, "Requires authentication")
        return value.strip()

    def _app_jwt(self, headers: Mapping[str, str]) -> None:
        """Check a GitHub App JWT like GitHub: RS256, our app id, at most 10 minutes long."""
        token = self._bearer(headers)
        try:
            claims = jwt.decode(
                token,
                app_private_key().public_key(),
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"]},
                leeway=60,
            )
        except jwt.PyJWTError as exc:
            raise HTTPError(401, f"A JSON web token could not be decoded ({exc})") from exc
        if str(claims["iss"]) != str(self.app_id):
            raise HTTPError(401, "'Issuer' claim ('iss') must be an Integer")
        if int(claims["exp"]) - int(claims["iat"]) > 660:
            raise HTTPError(401, "'Expiration time' claim ('exp') is too far in the future")

    def _identity(self, headers: Mapping[str, str]) -> JSON:
        token = self._bearer(headers)
        info = self.tokens.get(token)
        if info is None or (info["expires"] is not None and info["expires"] <= self.clock()):
            raise HTTPError(401, "Bad credentials")
        return info

    def _repo_for(self, identity: JSON, owner: str, name: str) -> FakeRepo:
        repo = self.repos.get(f"{owner}/{name}")
        if repo is None:
            raise HTTPError(404, "Not Found")
        if (
            identity["installation"] is not None
            and identity["installation"] != repo.installation_id
        ):
            raise HTTPError(404, "Not Found")
        if repo.fork_of is not None and repo.private and identity["login"] != repo.owner:
            raise HTTPError(404, "Not Found")  # someone's private fork
        return repo

    # ------------------------------------------------------------------ routing

    def _route(
        self, method: str, path: str, query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> tuple[int, Any, dict[str, str]]:
        m = re.fullmatch(r"/app", path)
        if m and method == "GET":
            self._app_jwt(headers)
            return 200, self._app_json(), {}
        m = re.fullmatch(r"/app/installations/(\d+)/access_tokens", path)
        if m and method == "POST":
            self._app_jwt(headers)
            return 201, self._issue_token(int(m.group(1))), {}
        m = re.fullmatch(r"/repos/([^/]+)/([^/]+)/installation", path)
        if m and method == "GET":
            self._app_jwt(headers)
            repo = self.repos.get(f"{unquote(m.group(1))}/{unquote(m.group(2))}")
            if repo is None or repo.installation_id is None:
                raise HTTPError(404, "Not Found")
            return 200, self._installation_json(repo), {}

        identity = self._identity(headers)
        self._caller.identity = identity
        if path == "/user" and method == "GET":
            if identity["installation"] is not None:
                raise HTTPError(403, "Resource not accessible by integration")
            public = {
                k: None for k in ("name", "company", "blog", "location", "email", "hireable", "bio")
            }
            counts = dict.fromkeys(("followers", "following", "public_gists", "public_repos"), 0)
            return (
                200,
                {
                    **self.users[identity["login"]],
                    **public,
                    **counts,
                    "created_at": _EPOCH,
                    "updated_at": _EPOCH,
                },
                {},
            )
        m = re.fullmatch(r"/orgs/([^/]+)/teams/([^/]+)/memberships/([^/]+)", path)
        if m and method == "GET":
            return self._team_membership(*(unquote(g) for g in m.groups()))
        m = re.fullmatch(r"/orgs/([^/]+)/members/([^/]+)", path)
        if m and method == "GET":
            org, login = (unquote(g) for g in m.groups())
            if org in self.forbidden_orgs:
                raise HTTPError(403, "Resource not accessible by integration")
            if org in self.outside_orgs:
                # documented: "Response if requester is not an organization member"
                where = f"{self.url}/orgs/{m.group(1)}/public_members/{m.group(2)}"
                return 302, None, {"Location": where}
            if self.is_org_member(org, login):
                return 204, None, {}
            raise HTTPError(404, "Not Found")
        m = re.fullmatch(r"/orgs/([^/]+)/public_members/([^/]+)", path)
        if m and method == "GET":
            org, login = (unquote(g) for g in m.groups())
            if self.org_members.get(org, {}).get(login) is True:
                return 204, None, {}
            raise HTTPError(404, "Not Found")

        m = re.fullmatch(r"/repos/([^/]+)/([^/]+)(/.*)?", path)
        if not m:
            raise HTTPError(404, "Not Found")
        repo = self._repo_for(identity, unquote(m.group(1)), unquote(m.group(2)))
        rest = m.group(3) or ""
        actor = identity["login"]
        for pattern, verb, handler in self._routes():
            mm = re.fullmatch(pattern, rest)
            if mm and verb == method:
                return handler(
                    repo, [unquote(g) if g else g for g in mm.groups()], query, body, actor
                )
        if any(re.fullmatch(p, rest) for p, _, _ in self._routes()):
            raise HTTPError(405, "Method Not Allowed")
        raise HTTPError(404, "Not Found")

    def _routes(self) -> list[tuple[str, str, Callable[..., tuple[int, Any, dict[str, str]]]]]:
        return [
            (r"", "GET", self._get_repo),
            (r"/pulls/(\d+)", "GET", self._get_pull),
            (r"/pulls/(\d+)/files", "GET", self._list_pull_files),
            (r"/pulls/(\d+)/comments", "GET", self._list_review_comments),
            (r"/pulls/(\d+)/reviews", "GET", self._list_reviews),
            (r"/pulls/(\d+)/reviews", "POST", self._create_review),
            (r"/pulls/(\d+)/reviews/(\d+)", "GET", self._get_review),
            (r"/pulls/(\d+)/reviews/(\d+)/comments", "GET", self._list_comments_for_review),
            (r"/pulls/(\d+)/reviews/(\d+)", "PUT", self._update_review),
            (r"/pulls/(\d+)/reviews/(\d+)/dismissals", "PUT", self._dismiss_review),
            (r"/pulls/(\d+)/commits", "GET", self._list_pull_commits),
            (r"/collaborators/([^/]+)/permission", "GET", self._collaborator_permission),
            (r"/commits/([^/]+)/check-runs", "GET", self._list_check_runs),
            (r"/check-runs", "POST", self._create_check_run),
            (r"/check-runs/(\d+)", "GET", self._get_check_run),
            (r"/check-runs/(\d+)", "PATCH", self._update_check_run),
            (r"/check-runs/(\d+)/annotations", "GET", self._list_annotations),
            (r"/git/blobs", "POST", self._create_blob),
            (r"/git/trees", "POST", self._create_tree),
            (r"/git/commits", "POST", self._create_git_commit),
            (r"/git/commits/([0-9a-f]{40})", "GET", self._get_git_commit),
            (r"/git/ref/(.+)", "GET", self._get_ref),
            (r"/git/refs/(.+)", "PATCH", self._update_ref),
            (r"/pulls/(\d+)/comments/(\d+)/replies", "POST", self._reply_review_comment),
            (r"/pulls/comments/(\d+)", "GET", self._get_review_comment),
            (r"/pulls/comments/(\d+)", "PATCH", self._edit_review_comment),
            (r"/pulls/comments/(\d+)", "DELETE", self._delete_review_comment),
            (r"/issues/(\d+)/comments", "GET", self._list_issue_comments),
            (r"/issues/(\d+)/comments", "POST", self._create_issue_comment),
            (r"/issues/comments/(\d+)", "GET", self._get_issue_comment),
            (r"/issues/comments/(\d+)", "PATCH", self._edit_issue_comment),
            (r"/issues/comments/(\d+)", "DELETE", self._delete_issue_comment),
            (r"/statuses/([^/]+)", "POST", self._create_status),
            (r"/commits/([^/]+)/statuses", "GET", self._list_statuses),
            (r"/commits/([^/]+)/status", "GET", self._combined_status),
            (r"/commits/([^/]+)", "GET", self._get_commit),
            (r"/compare/(.+?)\.\.\.(.+)", "GET", self._compare),
            (r"/git/trees/(.+)", "GET", self._get_tree),
            (r"/git/blobs/([0-9a-f]+)", "GET", self._get_blob),
            (r"/contents(?:/(.*))?", "GET", self._get_contents),
        ]

    # ------------------------------------------------------------------ JSON shapes

    def _now(self) -> str:
        return datetime.fromtimestamp(self.clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def _repo_url(self, repo: FakeRepo) -> str:
        return f"{self.url}/repos/{repo.full_name}"

    def _repo_json(self, repo: FakeRepo) -> JSON:
        """The repository as GitHub shows it (`repository`)."""
        api = self._repo_url(repo)
        urls = {
            f"{name}_url": f"{api}/{path}"
            for name, path in (
                ("archive", "{archive_format}{/ref}"),
                ("assignees", "assignees{/user}"),
                ("blobs", "git/blobs{/sha}"),
                ("branches", "branches{/branch}"),
                ("collaborators", "collaborators{/collaborator}"),
                ("comments", "comments{/number}"),
                ("commits", "commits{/sha}"),
                ("compare", "compare/{base}...{head}"),
                ("contents", "contents/{+path}"),
                ("contributors", "contributors"),
                ("deployments", "deployments"),
                ("downloads", "downloads"),
                ("events", "events"),
                ("forks", "forks"),
                ("git_commits", "git/commits{/sha}"),
                ("git_refs", "git/refs{/sha}"),
                ("git_tags", "git/tags{/sha}"),
                ("hooks", "hooks"),
                ("issue_comment", "issues/comments{/number}"),
                ("issue_events", "issues/events{/number}"),
                ("issues", "issues{/number}"),
                ("keys", "keys{/key_id}"),
                ("labels", "labels{/name}"),
                ("languages", "languages"),
                ("merges", "merges"),
                ("milestones", "milestones{/number}"),
                ("notifications", "notifications{?since,all,participating}"),
                ("pulls", "pulls{/number}"),
                ("releases", "releases{/id}"),
                ("stargazers", "stargazers"),
                ("statuses", "statuses/{sha}"),
                ("subscribers", "subscribers"),
                ("subscription", "subscription"),
                ("tags", "tags"),
                ("teams", "teams"),
                ("trees", "git/trees{/sha}"),
            )
        }
        web = f"https://github.com/{repo.full_name}"
        return {
            "id": repo.id,
            "node_id": f"R_{repo.id}",
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "owner": self.user(repo.owner, "Organization"),
            "html_url": web,
            "description": None,
            "fork": repo.fork_of is not None,
            "url": api,
            **urls,
            "git_url": f"git://github.com/{repo.full_name}.git",
            "ssh_url": f"git@github.com:{repo.full_name}.git",
            "clone_url": f"{web}.git",
            "svn_url": web,
            "mirror_url": None,
            "homepage": None,
            "language": "Shell",
            "forks": 0,
            "forks_count": 0,
            "stargazers_count": 0,
            "watchers": 0,
            "watchers_count": 0,
            "size": 0,
            "default_branch": repo.default_branch,
            "open_issues": len(repo.pulls),
            "open_issues_count": len(repo.pulls),
            "is_template": False,
            "topics": [],
            "has_issues": True,
            "has_projects": True,
            "has_wiki": False,
            "has_pages": False,
            "has_downloads": True,
            "has_discussions": False,
            "archived": False,
            "disabled": False,
            "visibility": "private" if repo.private else "public",
            "pushed_at": "2026-01-01T00:00:00Z",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "allow_forking": True,
            "web_commit_signoff_required": False,
            "license": None,
        }

    def _app_json(self) -> JSON:
        return {
            "id": self.app_id,
            "slug": self.app_slug,
            "node_id": f"A_{self.app_id}",
            "client_id": f"Iv1.{self.app_id:016x}",
            "name": self.app_slug.replace("-", " ").title(),
            "owner": self.user("app-owner", "Organization"),
            "description": None,
            "external_url": "https://example.invalid",
            "html_url": f"https://github.com/apps/{self.app_slug}",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "permissions": dict(self.app_permissions),
            "events": ["pull_request", "issue_comment"],
        }

    def _installation_json(self, repo: FakeRepo) -> JSON:
        iid = repo.installation_id
        return {
            "id": iid,
            "account": self.user(repo.owner, "Organization"),
            "repository_selection": "all",
            "access_tokens_url": f"{self.url}/app/installations/{iid}/access_tokens",
            "repositories_url": f"{self.url}/installation/repositories",
            "html_url": f"https://github.com/organizations/{repo.owner}/settings/installations/{iid}",
            "app_id": self.app_id,
            "app_slug": self.app_slug,
            "target_id": self.user(repo.owner, "Organization")["id"],
            "target_type": "Organization",
            "permissions": dict(self.app_permissions),
            "events": ["pull_request", "issue_comment"],
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "single_file_name": None,
            "suspended_by": None,
            "suspended_at": None,
        }

    def _issue_token(self, installation: int) -> JSON:
        if not any(r.installation_id == installation for r in self.repos.values()):
            raise HTTPError(404, "Not Found")
        token = f"ghs_fake{next(self._token_ids):04d}"
        expires = self.clock() + self.token_ttl
        self.user(self.bot_login, "Bot")
        self.tokens[token] = {
            "login": self.bot_login,
            "installation": installation,
            "expires": expires,
        }
        self.issued_tokens.append(token)
        return {
            "token": token,
            "expires_at": datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "permissions": dict(self.app_permissions),
            "repository_selection": "all",
        }

    def _pull_json(self, repo: FakeRepo, pull: FakePull) -> JSON:
        """The pull request as GitHub shows it (`pull-request`): a head in a fork names the
        fork, and `repo: null` once the fork is deleted."""
        api = self._repo_url(repo)
        url = f"{api}/pulls/{pull.number}"
        web = f"https://github.com/{repo.full_name}/pull/{pull.number}"

        def side(where: FakeRepo | None, owner: str, ref: str, sha: str) -> JSON:
            return {
                "label": f"{owner}:{ref}",
                "ref": ref,
                "sha": sha,
                "user": self.user(owner, "Organization" if where is repo else "User"),
                "repo": None if where is None else self._repo_json(where),
            }

        if pull.head_repo is None:
            head = side(repo, repo.owner, pull.head_ref, pull.head_sha)
        else:
            fork = self.repos.get(pull.head_repo)
            head = side(fork, pull.head_repo.split("/")[0], pull.head_ref, pull.head_sha)
        files = self._all_pull_files(repo, pull)
        adds = sum(f["additions"] for f in files)
        dels = sum(f["deletions"] for f in files)
        issue = f"{api}/issues/{pull.number}"
        return {
            "url": url,
            "id": pull.id,
            "node_id": f"PR_{pull.id}",
            "html_url": web,
            "diff_url": f"{web}.diff",
            "patch_url": f"{web}.patch",
            "issue_url": issue,
            "commits_url": f"{url}/commits",
            "review_comments_url": f"{url}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{issue}/comments",
            "statuses_url": f"{api}/statuses/{pull.head_sha}",
            "number": pull.number,
            "state": pull.state,
            "locked": False,
            "title": pull.title,
            "user": self.user(pull.user),
            "body": pull.body or None,
            "labels": [],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": self._now(),
            "closed_at": None if pull.state == "open" else self._now(),
            "merged_at": None,
            "merge_commit_sha": None,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": head,
            "base": side(repo, repo.owner, pull.base_ref, pull.base_sha),
            "_links": {
                "self": {"href": url},
                "html": {"href": web},
                "issue": {"href": issue},
                "comments": {"href": f"{issue}/comments"},
                "review_comments": {"href": f"{url}/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": f"{url}/commits"},
                "statuses": {"href": f"{api}/statuses/{pull.head_sha}"},
            },
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
            "draft": pull.draft,
            "merged": pull.merged,
            "mergeable": None,
            "rebaseable": None,
            "mergeable_state": "unknown",
            "merged_by": None,
            "comments": len(repo.issue_comments.get(pull.number, [])),
            "review_comments": len(repo.review_comments.get(pull.number, [])),
            "maintainer_can_modify": False,
            "commits": len(self.pull_commits(repo.full_name, pull.number)),
            "additions": adds,
            "deletions": dels,
            "changed_files": len(files),
        }

    # ------------------------------------------------------------------ pagination

    def _paginate(
        self, path: str, items: list[Any], query: Mapping[str, str]
    ) -> tuple[list[Any], dict[str, str]]:
        try:
            per_page = max(1, min(int(query.get("per_page", "30")), 100))
            page = max(1, int(query.get("page", "1")))
        except ValueError as exc:
            raise HTTPError(422, "Invalid pagination") from exc
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        others = {k: v for k, v in query.items() if k != "page"}

        def link(n: int, rel: str) -> str:
            q = urlencode({**others, "page": n})
            return f'<{self.url}/repos{path}?{q}>; rel="{rel}"'

        links = []
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(page - 1, "prev")]
        return chunk, ({"Link": ", ".join(links)} if links else {})

    def _list(
        self, repo: FakeRepo, rest: str, items: list[Any], query: Mapping[str, str]
    ) -> tuple[int, Any, dict[str, str]]:
        chunk, headers = self._paginate(f"/{repo.full_name}{rest}", items, query)
        return 200, chunk, headers

    # ------------------------------------------------------------------ handlers: repo, pulls

    def _get_repo(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        return 200, self._repo_json(repo), {}

    def _pull(self, repo: FakeRepo, number: str) -> FakePull:
        pull = repo.pulls.get(int(number))
        if pull is None:
            raise HTTPError(404, "Not Found")
        return pull

    def _get_pull(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        return 200, self._pull_json(repo, self._pull(repo, g[0])), {}

    def pull_files(self, full_name: str, number: int) -> list[JSON]:
        """The PR's files as GitHub lists them (merge-base...head), capped at 3,000."""
        repo = self.repos[full_name]
        return self._all_pull_files(repo, repo.pulls[number])[:MAX_PR_FILES]

    def _all_pull_files(self, repo: FakeRepo, pull: FakePull) -> list[JSON]:
        """Every changed file of the PR (its `changed_files`), beyond the list's cap."""
        base = repo.merge_base(pull.base_sha, pull.head_sha) or pull.base_sha
        return self._diff_files(repo, base, pull.head_sha)

    def _diff_files(self, repo: FakeRepo, base: str, head: str) -> list[JSON]:
        key = (repo.full_name, base, head)
        if key not in self._diff_cache:
            self._diff_cache[key] = self._compute_diff(repo, base, head)
        return self._diff_cache[key]

    def _compute_diff(self, repo: FakeRepo, base: str, head: str) -> list[JSON]:
        old, new = repo.files(base), repo.files(head)
        gone: dict[str, list[str]] = {}  # blob sha -> removed paths holding it
        for p in sorted(p for p in old if p not in new):
            gone.setdefault(old[p].sha, []).append(p)
        renames: dict[str, str] = {}  # new path -> old path
        for p in sorted(p for p in new if p not in old):
            if gone.get(new[p].sha):
                renames[p] = gone[new[p].sha].pop(0)
        # renames with changes: git's rule, at least half of the content kept
        removed = sorted(p for p in old if p not in new and p not in renames.values())
        for p in sorted(p for p in new if p not in old and p not in renames):
            best, score = None, 0.5
            for q in removed:
                ratio = _similarity(repo.blobs[old[q].sha], repo.blobs[new[p].sha])
                if ratio >= score:
                    best, score = q, ratio
            if best is not None:
                renames[p] = best
                removed.remove(best)
        renamed_from = set(renames.values())
        files: list[JSON] = []
        for path in sorted(set(old) | set(new)):
            if path in renamed_from:
                continue
            before, after = old.get(renames.get(path, path)), new.get(path)
            if (
                before
                and after
                and path not in renames
                and (before.sha, before.mode) == (after.sha, after.mode)
            ):
                continue
            if path in renames:
                status = "renamed"
            elif before is None:
                status = "added"
            elif after is None:
                status = "removed"
            else:
                status = "modified"
            old_data = repo.blobs[before.sha] if before else None
            new_data = repo.blobs[after.sha] if after else None
            patch = unified_patch(old_data, new_data) if old_data != new_data else None
            lines = (patch or "").split("\n")
            adds = sum(1 for ln in lines if ln.startswith("+"))
            dels = sum(1 for ln in lines if ln.startswith("-"))
            if self.patch_limit is not None and adds + dels > self.patch_limit:
                patch = None  # GitHub leaves out the patch of a diff too large to show
            blob = after or before
            item: JSON = {
                "sha": blob.sha if blob else None,
                "filename": path,
                "status": status,
                "additions": adds,
                "deletions": dels,
                "changes": adds + dels,
                "blob_url": f"https://github.com/{repo.full_name}/blob/{head}/{path}",
                "raw_url": f"https://github.com/{repo.full_name}/raw/{head}/{path}",
                "contents_url": f"{self._repo_url(repo)}/contents/{path}?ref={head}",
            }
            if patch is not None:
                item["patch"] = patch
            if path in renames:
                item["previous_filename"] = renames[path]
            files.append(item)
        return files

    def _list_pull_files(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        pull = self._pull(repo, g[0])
        return self._list(
            repo, f"/pulls/{pull.number}/files", self.pull_files(repo.full_name, pull.number), q
        )

    # ------------------------------------------------------------------ handlers: reviews

    def _list_reviews(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        pull = self._pull(repo, g[0])
        return self._list(
            repo, f"/pulls/{pull.number}/reviews", repo.reviews.get(pull.number, []), q
        )

    def _get_review(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        return 200, self._find_review(repo, g[0], g[1]), {}

    def _list_review_comments(
        self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str
    ) -> Any:
        pull = self._pull(repo, g[0])
        items = repo.review_comments.get(pull.number, [])
        return self._list(repo, f"/pulls/{pull.number}/comments", items, q)

    def _list_comments_for_review(
        self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str
    ) -> Any:
        review = self._find_review(repo, g[0], g[1])
        items = [
            c
            for c in repo.review_comments.get(int(g[0]), [])
            if c.get("pull_request_review_id") == review["id"]
        ]
        return self._list(repo, f"/pulls/{g[0]}/reviews/{g[1]}/comments", items, q)

    def refuse_lines(self, full_name: str, number: int, path: str, lines: set[int]) -> None:
        """GitHub cannot place a review comment on these lines of `path` although the
        listed patch shows them (its own diff of the PR differs: a base retarget, a diff
        GitHub renders differently); a review that comments on one is refused whole."""
        with self._lock:
            self._refused.setdefault((full_name, number, path), set()).update(lines)

    def _create_review(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        pull = self._pull(repo, g[0])
        if not isinstance(body, dict):
            raise HTTPError(400, "Problems parsing JSON")
        event = body.get("event")
        if event not in (None, "COMMENT", "APPROVE", "REQUEST_CHANGES"):
            raise HTTPError(422, "Unprocessable Entity", errors=[f"Invalid event {event!r}"])
        commit_id = body.get("commit_id") or pull.head_sha
        if commit_id not in repo.commits:
            raise HTTPError(
                422, "Unprocessable Entity", errors=["No commit found for SHA: " + str(commit_id)]
            )
        comments = body.get("comments") or []
        text = body.get("body") or ""
        if event in ("COMMENT", "REQUEST_CHANGES") and not text and not comments:
            raise HTTPError(422, "Unprocessable Entity", errors=["Review body is required"])
        if len(text) > MAX_BODY:
            raise HTTPError(422, "Unprocessable Entity", errors=["Body is too long"])
        files = {f["filename"]: f for f in self.pull_files(repo.full_name, pull.number)}
        # GitHub refuses the whole review when any one comment cannot be placed, and does
        # not say which (documented: "Pull request review thread line must be part of the
        # diff" / "Line could not be resolved")
        for c in comments:
            self._check_review_comment(repo, pull, c, files)
        review_id = next(self._ids)
        state = {None: "PENDING", "COMMENT": "COMMENTED", "APPROVE": "APPROVED"}.get(
            event, "CHANGES_REQUESTED"
        )
        web = f"https://github.com/{repo.full_name}/pull/{pull.number}"
        review = {
            "id": review_id,
            "node_id": f"PRR_{review_id}",
            "user": self.users[actor],
            "body": text,
            "state": state,
            "commit_id": commit_id,
            "html_url": f"{web}#pullrequestreview-{review_id}",
            "pull_request_url": f"{self._repo_url(repo)}/pulls/{pull.number}",
            "_links": {
                "html": {"href": f"{web}#pullrequestreview-{review_id}"},
                "pull_request": {"href": f"{self._repo_url(repo)}/pulls/{pull.number}"},
            },
            "author_association": "NONE",
        }
        if event:
            review["submitted_at"] = self._now()
        repo.reviews.setdefault(pull.number, []).append(review)
        for c in comments:
            self._add_review_comment(repo, pull, actor, c, commit_id, review_id, files)
        return 200, review, {}

    def _check_review_comment(
        self, repo: FakeRepo, pull: FakePull, c: Any, files: Mapping[str, JSON]
    ) -> None:
        if not isinstance(c, dict) or not isinstance(c.get("body"), str):
            raise HTTPError(422, "Unprocessable Entity", errors=["comments need a body"])
        path = c.get("path")
        if not isinstance(path, str) or path not in files:
            raise HTTPError(422, "Unprocessable Entity", errors=["Path could not be resolved"])
        line = c.get("line")
        side = c.get("side") or "RIGHT"
        if "position" in c and line is None:
            return  # the deprecated diff position: accepted as is
        if not isinstance(line, int) or side not in ("LEFT", "RIGHT"):
            raise HTTPError(422, "Unprocessable Entity", errors=["Line could not be resolved"])
        lines = commentable_lines(files[path].get("patch"))
        refused = self._refused.get((repo.full_name, pull.number, path), set())
        if line not in lines[side] or line in refused:
            raise HTTPError(
                422,
                "Unprocessable Entity",
                errors=["Pull request review thread line must be part of the diff"],
            )
        start = c.get("start_line")
        if start is not None:
            start_side = c.get("start_side") or side
            if (
                not isinstance(start, int)
                or start >= line
                or start not in lines.get(start_side, set())
                or hunk_of(files[path].get("patch"), start, start_side)
                != hunk_of(files[path].get("patch"), line, side)
            ):
                raise HTTPError(
                    422,
                    "Unprocessable Entity",
                    errors=["Pull request review thread start line must be part of the diff"],
                )

    def _add_review_comment(
        self,
        repo: FakeRepo,
        pull: FakePull,
        actor: str,
        c: JSON,
        commit_id: str,
        review_id: int | None,
        files: Mapping[str, JSON],
        in_reply_to: int | None = None,
    ) -> JSON:
        cid = next(self._ids)
        api = self._repo_url(repo)
        web = f"https://github.com/{repo.full_name}/pull/{pull.number}#discussion_r{cid}"
        side = c.get("side") or "RIGHT"
        line = c.get("line")
        start = c.get("start_line")
        patch = (files.get(str(c.get("path"))) or {}).get("patch")
        position = diff_position(patch, line, side) if isinstance(line, int) else None
        if position is None and isinstance(c.get("position"), int):
            position = c["position"]
        comment: JSON = {
            "id": cid,
            "node_id": f"PRRC_{cid}",
            "url": f"{api}/pulls/comments/{cid}",
            "pull_request_review_id": review_id,
            "diff_hunk": hunk_text(patch, line, side) if isinstance(line, int) else "",
            "path": c.get("path"),
            "position": position,
            "original_position": position,
            "commit_id": commit_id,
            "original_commit_id": commit_id,
            "user": self.users[actor],
            "body": c["body"],
            "created_at": self._now(),
            "updated_at": self._now(),
            "html_url": web,
            "pull_request_url": f"{api}/pulls/{pull.number}",
            "author_association": "NONE",
            "_links": {
                "self": {"href": f"{api}/pulls/comments/{cid}"},
                "html": {"href": web},
                "pull_request": {"href": f"{api}/pulls/{pull.number}"},
            },
            "start_line": start,
            "original_start_line": start,
            "start_side": (c.get("start_side") or side) if start else None,
            "line": line,
            "original_line": line,
            "side": side,
            "subject_type": "line",
        }
        if in_reply_to is not None:
            comment["in_reply_to_id"] = in_reply_to
        repo.review_comments.setdefault(pull.number, []).append(comment)
        return comment

    def _reply_review_comment(
        self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str
    ) -> Any:
        pull = self._pull(repo, g[0])
        parent = self._find_review_comment(repo, int(g[1]))
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            raise HTTPError(422, "Unprocessable Entity")
        c = {
            "body": body["body"],
            "path": parent["path"],
            "line": parent["line"],
            "side": parent["side"],
        }
        files = {f["filename"]: f for f in self.pull_files(repo.full_name, pull.number)}
        comment = self._add_review_comment(
            repo, pull, actor, c, pull.head_sha, None, files, in_reply_to=parent["id"]
        )
        return 201, comment, {}

    def _find_review_comment(self, repo: FakeRepo, cid: int) -> JSON:
        for items in repo.review_comments.values():
            for c in items:
                if c["id"] == cid:
                    return c
        raise HTTPError(404, "Not Found")

    def _get_review_comment(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        return 200, self._find_review_comment(repo, int(g[0])), {}

    def _edit_review_comment(
        self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str
    ) -> Any:
        c = self._find_review_comment(repo, int(g[0]))
        self._edit(c, body, actor, repo)
        return 200, c, {}

    def _delete_review_comment(
        self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str
    ) -> Any:
        c = self._find_review_comment(repo, int(g[0]))
        self._own(c, actor, repo)
        for items in repo.review_comments.values():
            if c in items:
                items.remove(c)
        return 204, None, {}

    def _own(self, c: JSON, actor: str, repo: FakeRepo | None = None) -> None:
        """The author, or (as on GitHub) anyone with write access to the repository."""
        if (c.get("user") or {}).get("login") == actor:
            return
        if repo is not None and repo.permissions.get(actor) in ("admin", "maintain", "write"):
            return
        raise HTTPError(403, "Resource not accessible by integration")

    def _edit(self, c: JSON, body: Any, actor: str, repo: FakeRepo | None = None) -> None:
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            raise HTTPError(422, "Unprocessable Entity", errors=["body is required"])
        if len(body["body"]) > MAX_BODY:
            raise HTTPError(422, "Unprocessable Entity", errors=["Body is too long"])
        self._own(c, actor, repo)
        c["body"] = body["body"]
        c["updated_at"] = self._now()

    def _reanchor(self, repo: FakeRepo, pull: FakePull) -> None:
        """After the PR's head or base moved: each current review comment follows its
        line to the new head when that line is unchanged and still in the PR's diff
        (GitHub moves a displaced comment), and otherwise goes outdated: `line` and
        `position` become null, the `original_*` fields keep where it was made."""
        files = {f["filename"]: f for f in self._all_pull_files(repo, pull)}
        for c in repo.review_comments.get(pull.number, []):
            line = c.get("line")
            if line is None or c.get("side") != "RIGHT":
                continue
            moved = self._follow(repo, c, pull.head_sha, files)
            if moved is None:
                c.update(line=None, position=None, start_line=None, start_side=None)
            elif moved != line or c["commit_id"] != pull.head_sha:
                delta = moved - line
                patch = files[c["path"]].get("patch")
                c.update(
                    line=moved,
                    position=diff_position(patch, moved, "RIGHT"),
                    commit_id=pull.head_sha,
                    start_line=c["start_line"] + delta if c.get("start_line") else None,
                )

    def _follow(self, repo: FakeRepo, c: JSON, head: str, files: Mapping[str, JSON]) -> int | None:
        path = c.get("path")
        if path not in files or files[path].get("patch") is None:
            return None
        old_entry = repo.lookup(c["commit_id"], path)
        new_entry = repo.lookup(head, path)
        if old_entry is None or new_entry is None:
            return None
        try:
            old = repo.blobs[old_entry.sha].decode("utf-8").splitlines()
            new = repo.blobs[new_entry.sha].decode("utf-8").splitlines()
        except UnicodeDecodeError:
            return None
        line = int(c["line"])
        # the commented line follows the file's changes; changed or gone, it is outdated
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        moved = None
        for tag, i1, i2, j1, _ in matcher.get_opcodes():
            if tag == "equal" and i1 < line <= i2:
                moved = j1 + (line - i1)
                break
        if moved is None or moved not in commentable_lines(files[path]["patch"])["RIGHT"]:
            return None
        return moved

    # ------------------------------------------------------------------ handlers: issue comments

    def _list_issue_comments(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        number = int(g[0])
        return self._list(
            repo, f"/issues/{number}/comments", repo.issue_comments.get(number, []), q
        )

    def _create_issue_comment(
        self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str
    ) -> Any:
        number = int(g[0])
        if number not in repo.pulls:
            raise HTTPError(404, "Not Found")
        if not isinstance(body, dict) or not isinstance(body.get("body"), str) or not body["body"]:
            raise HTTPError(422, "Unprocessable Entity", errors=["body is required"])
        if len(body["body"]) > MAX_BODY:
            raise HTTPError(422, "Unprocessable Entity", errors=["Body is too long"])
        cid = next(self._ids)
        comment = {
            "id": cid,
            "node_id": f"IC_{cid}",
            "url": f"{self._repo_url(repo)}/issues/comments/{cid}",
            "html_url": f"https://github.com/{repo.full_name}/pull/{number}#issuecomment-{cid}",
            "issue_url": f"{self._repo_url(repo)}/issues/{number}",
            "user": self.users[actor],
            "body": body["body"],
            "created_at": self._now(),
            "updated_at": self._now(),
            "author_association": "NONE",
        }
        repo.issue_comments.setdefault(number, []).append(comment)
        return 201, comment, {}

    def _find_issue_comment(self, repo: FakeRepo, cid: int) -> JSON:
        for items in repo.issue_comments.values():
            for c in items:
                if c["id"] == cid:
                    return c
        raise HTTPError(404, "Not Found")

    def _get_issue_comment(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        return 200, self._find_issue_comment(repo, int(g[0])), {}

    def _edit_issue_comment(
        self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str
    ) -> Any:
        c = self._find_issue_comment(repo, int(g[0]))
        self._edit(c, body, actor, repo)
        return 200, c, {}

    def _delete_issue_comment(
        self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str
    ) -> Any:
        c = self._find_issue_comment(repo, int(g[0]))
        self._own(c, actor, repo)
        for items in repo.issue_comments.values():
            if c in items:
                items.remove(c)
        return 204, None, {}

    # ------------------------------------------------------------------ handlers: sign-off reads

    def _find_review(self, repo: FakeRepo, number: str, rid: str) -> JSON:
        pull = self._pull(repo, number)
        for r in repo.reviews.get(pull.number, []):
            if r["id"] == int(rid):
                return r
        raise HTTPError(404, "Not Found")

    def _update_review(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        review = self._find_review(repo, g[0], g[1])
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            raise HTTPError(422, "Unprocessable Entity", errors=["body is required"])
        if (review["user"] or {}).get("login") != actor:  # only its author may edit a review
            raise HTTPError(403, "Resource not accessible by integration")
        review["body"] = body["body"]
        return 200, review, {}

    def _dismiss_review(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        review = self._find_review(repo, g[0], g[1])
        if repo.permissions.get(actor) not in ("admin", "maintain", "write"):
            raise HTTPError(403, "Resource not accessible by integration")
        if not isinstance(body, dict) or not isinstance(body.get("message"), str):
            raise HTTPError(422, "Unprocessable Entity", errors=["message is required"])
        review["state"] = "DISMISSED"
        return 200, review, {}

    def _list_pull_commits(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        pull = self._pull(repo, g[0])
        shas = self.pull_commits(repo.full_name, pull.number)[:MAX_PR_COMMITS]
        items = [self._commit_json(repo, s) for s in shas]
        return self._list(repo, f"/pulls/{pull.number}/commits", items, q)

    def _collaborator_permission(
        self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str
    ) -> Any:
        login = g[0]
        if login not in self.users:
            raise HTTPError(404, "Not Found")
        role = repo.permissions.get(login, "none" if repo.private else "read")
        folded = {"maintain": "write", "triage": "read"}.get(role, role)
        rank = ("none", "read", "triage", "write", "maintain", "admin").index(role)
        flags = {
            "pull": rank >= 1,
            "triage": rank >= 2,
            "push": rank >= 3,
            "maintain": rank >= 4,
            "admin": rank >= 5,
        }
        user = {**self.users[login], "role_name": role, "permissions": flags}
        return 200, {"permission": folded, "role_name": role, "user": user}, {}

    def _list_check_runs(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        sha = repo.resolve(g[0])
        if sha is None:
            raise HTTPError(422, "No commit found for SHA: " + g[0])
        runs = repo.check_runs.get(sha, [])
        chunk, headers = self._paginate(f"/{repo.full_name}/commits/{g[0]}/check-runs", runs, q)
        return 200, {"total_count": len(runs), "check_runs": chunk}, headers

    # ------------------------------------------------------------------ handlers: check runs

    def _app_caller(self, permission: str) -> None:
        """Only a GitHub App's installation writes check runs (GitHub: "You must
        authenticate via a GitHub App."), and only with `permission: write`."""
        identity = getattr(self._caller, "identity", None)
        if identity is None or identity["installation"] is None:
            raise HTTPError(403, "You must authenticate via a GitHub App.")
        if self.app_permissions.get(permission) != "write":
            raise HTTPError(403, "Resource not accessible by integration")

    @staticmethod
    def _invalid(why: str) -> HTTPError:
        """GitHub's 422 for invalid input to the Checks and Git Data APIs: the reason as
        the message ("Update is not a fast forward")."""
        return HTTPError(422, why)

    def _check_output(self, output: Any) -> list[JSON]:
        """Validate a check run's `output` as GitHub does; its annotations as stored."""
        if not isinstance(output, dict):
            raise self._invalid("output must be an object")
        if not isinstance(output.get("title"), str) or not isinstance(output.get("summary"), str):
            raise self._invalid("output needs a title and a summary")
        for key in ("summary", "text"):
            value = output.get(key)
            if isinstance(value, str) and len(value) > 65535:
                raise self._invalid(f"output.{key} is too long (maximum is 65535 characters)")
        annotations = output.get("annotations") or []
        if not isinstance(annotations, list):
            raise self._invalid("output.annotations must be an array")
        if len(annotations) > 50:
            # GitHub: "a maximum of 50 per API request"
            raise self._invalid("Only 50 annotations are allowed per request")
        stored = []
        for a in annotations:
            if not isinstance(a, dict):
                raise self._invalid("an annotation must be an object")
            start, end = a.get("start_line"), a.get("end_line")
            if not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end):
                raise self._invalid("annotation lines must satisfy 1 <= start_line <= end_line")
            columns = [a.get("start_column"), a.get("end_column")]
            if any(c is not None for c in columns) and start != end:
                raise self._invalid("start_column and end_column only on one line")
            if a.get("annotation_level") not in ("notice", "warning", "failure"):
                raise self._invalid("annotation_level must be notice, warning or failure")
            if len(str(a.get("title") or "")) > 255:
                raise self._invalid("annotation title is too long (maximum is 255 characters)")
            for key in ("message", "raw_details"):
                if len(str(a.get(key) or "").encode()) > 64 * 1024:
                    raise self._invalid(f"annotation {key} is too long (maximum is 64 KB)")
            stored.append(
                {
                    "path": str(a.get("path")),
                    "start_line": start,
                    "end_line": end,
                    "start_column": a.get("start_column"),
                    "end_column": a.get("end_column"),
                    "annotation_level": a["annotation_level"],
                    "title": a.get("title"),
                    "message": a.get("message"),
                    "raw_details": a.get("raw_details"),
                }
            )
        return stored

    def _check_actions(self, actions: Any) -> list[JSON]:
        if not isinstance(actions, list) or len(actions) > 3:
            raise self._invalid("at most three actions")
        for a in actions:
            if not isinstance(a, dict):
                raise self._invalid("an action must be an object")
            limits = {"label": 20, "description": 40, "identifier": 20}
            for key, most in limits.items():
                if not isinstance(a.get(key), str) or len(a[key]) > most:
                    raise self._invalid(f"action {key} is missing or longer than {most}")
        return [dict(a) for a in actions]

    def _apply_check_run(self, repo: FakeRepo, run: JSON, body: JSON) -> None:
        """Fields of a create or update request applied to a stored run (annotations
        appended, as GitHub does)."""
        status = body.get("status")
        conclusion = body.get("conclusion")
        if status is not None and status not in ("queued", "in_progress", "completed"):
            raise self._invalid(f"status {status!r} is not valid")
        if conclusion is not None and conclusion not in (
            "action_required",
            "cancelled",
            "failure",
            "neutral",
            "success",
            "skipped",
            "stale",
            "timed_out",
        ):
            raise self._invalid(f"conclusion {conclusion!r} is not valid")
        if status == "completed" and conclusion is None and run.get("conclusion") is None:
            raise self._invalid("conclusion is required when status is completed")
        if conclusion is not None:
            status = "completed"  # GitHub: a conclusion completes the run
        annotations = self._check_output(body["output"]) if "output" in body else None
        actions = self._check_actions(body["actions"]) if "actions" in body else None
        for key in ("name", "details_url", "external_id", "started_at"):
            if isinstance(body.get(key), str):
                run[key] = body[key]
        if status is not None:
            run["status"] = status
        if conclusion is not None:
            run["conclusion"] = conclusion
        if run["status"] == "completed":
            run["completed_at"] = body.get("completed_at") or run["completed_at"] or self._now()
        if annotations is not None:
            out = run["output"]
            for key in ("title", "summary", "text"):
                if key in body["output"]:
                    out[key] = body["output"][key]
            stored = self._annotations.setdefault(run["id"], [])
            head = run["head_sha"]
            for a in annotations:
                a["blob_href"] = f"https://github.com/{repo.full_name}/blob/{head}/{a['path']}"
                stored.append(a)
            out["annotations_count"] = len(stored)
        if actions is not None:
            run["actions"] = actions

    def _pull_requests_at(self, repo: FakeRepo, sha: str) -> list[JSON]:
        """The open pull requests whose head is `sha` in this repository (a fork's are
        never listed, as on GitHub), as `pull-request-minimal`."""
        api = self._repo_url(repo)
        mini = {"id": repo.id, "url": api, "name": repo.name}
        return [
            {
                "id": p.id,
                "number": p.number,
                "url": f"{api}/pulls/{p.number}",
                "head": {"ref": p.head_ref, "sha": p.head_sha, "repo": mini},
                "base": {"ref": p.base_ref, "sha": p.base_sha, "repo": mini},
            }
            for p in repo.pulls.values()
            if p.head_sha == sha and p.head_repo is None and p.state == "open"
        ]

    def _create_check_run(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        self._app_caller("checks")
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise self._invalid("name is required")
        sha = body.get("head_sha")
        if not isinstance(sha, str) or sha not in repo.commits:
            raise HTTPError(422, f"No commit found for SHA: {sha}")
        rid = next(self._ids)
        api = self._repo_url(repo)
        run: JSON = {
            "id": rid,
            "node_id": f"CR_{rid}",
            "head_sha": sha,
            "external_id": "",
            "url": f"{api}/check-runs/{rid}",
            "html_url": f"https://github.com/{repo.full_name}/runs/{rid}",
            "details_url": f"https://github.com/apps/{self.app_slug}",
            "name": body["name"],
            "status": "queued",
            "conclusion": None,
            "started_at": self._now(),
            "completed_at": None,
            "output": {
                "title": None,
                "summary": None,
                "text": None,
                "annotations_count": 0,
                "annotations_url": f"{api}/check-runs/{rid}/annotations",
            },
            "check_suite": {"id": rid + 1},
            "app": self._app_json(),
            "pull_requests": [],
        }
        self._apply_check_run(repo, run, body)
        repo.check_runs.setdefault(sha, []).append(run)
        return 201, self._check_run_answer(repo, run), {}

    def _check_run_answer(self, repo: FakeRepo, run: JSON) -> JSON:
        out = {k: v for k, v in run.items() if k != "actions"}
        out["pull_requests"] = self._pull_requests_at(repo, run["head_sha"])
        return out

    def find_check_run(self, full_name: str, run_id: int) -> JSON:
        for runs in self.repos[full_name].check_runs.values():
            for run in runs:
                if run["id"] == run_id:
                    return run
        raise KeyError(run_id)

    def _stored_run(self, repo: FakeRepo, rid: str) -> JSON:
        try:
            return self.find_check_run(repo.full_name, int(rid))
        except KeyError:
            raise HTTPError(404, "Not Found") from None

    def _get_check_run(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        return 200, self._check_run_answer(repo, self._stored_run(repo, g[0])), {}

    def _update_check_run(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        self._app_caller("checks")
        run = self._stored_run(repo, g[0])
        if (run.get("app") or {}).get("slug") != self.app_slug:
            raise HTTPError(403, "Resource not accessible by integration")  # another App's
        if not isinstance(body, dict):
            raise HTTPError(400, "Problems parsing JSON")
        self._apply_check_run(repo, run, body)
        return 200, self._check_run_answer(repo, run), {}

    def _list_annotations(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        run = self._stored_run(repo, g[0])
        items = self._annotations.get(run["id"], [])
        return self._list(repo, f"/check-runs/{g[0]}/annotations", items, q)

    def annotations(self, run_id: int) -> list[JSON]:
        """The annotations a check run carries (every request's, in order)."""
        return list(self._annotations.get(run_id, []))

    def check_run_event(
        self, full_name: str, run_id: int, action: str, identifier: str | None = None
    ) -> JSON:
        """The `check_run` webhook GitHub sends for one of the App's runs (`rerequested`,
        `requested_action` with the action's `identifier`), in the shape of GitHub's
        payloads (../shared/webhooks/check_run.json)."""
        repo = self.repos[full_name]
        run = self.find_check_run(full_name, run_id)
        payload: JSON = {
            "action": action,
            "check_run": {
                **self._check_run_answer(repo, run),
                "check_suite": {
                    "id": run["check_suite"]["id"],
                    "head_sha": run["head_sha"],
                    "pull_requests": self._pull_requests_at(repo, run["head_sha"]),
                    "app": self._app_json(),
                },
            },
            "repository": self._repo_json(repo),
            "sender": self.user("maintainer"),
            "installation": {"id": repo.installation_id, "node_id": "I_1"},
        }
        if identifier is not None:
            payload["requested_action"] = {"identifier": identifier}
        return payload

    def check_suite_event(self, full_name: str, sha: str, action: str = "rerequested") -> JSON:
        """The `check_suite` webhook for the App's suite on commit `sha`."""
        repo = self.repos[full_name]
        runs = [r for r in repo.check_runs.get(sha, []) if r["app"]["slug"] == self.app_slug]
        suite_id = runs[-1]["check_suite"]["id"] if runs else next(self._ids)
        return {
            "action": action,
            "check_suite": {
                "id": suite_id,
                "head_sha": sha,
                "head_branch": None,
                "status": "completed",
                "conclusion": runs[-1]["conclusion"] if runs else None,
                "pull_requests": self._pull_requests_at(repo, sha),
                "app": self._app_json(),
                "created_at": _EPOCH,
                "updated_at": self._now(),
            },
            "repository": self._repo_json(repo),
            "sender": self.user("maintainer"),
            "installation": {"id": repo.installation_id, "node_id": "I_1"},
        }

    # ------------------------------------------------------------------ handlers: git writes

    def _contents_writer(self, repo: FakeRepo, actor: str) -> None:
        identity = getattr(self._caller, "identity", None)
        if identity is not None and identity["installation"] is not None:
            if self.app_permissions.get("contents") != "write":
                raise HTTPError(403, "Resource not accessible by integration")
        elif repo.permissions.get(actor) not in ("admin", "maintain", "write"):
            raise HTTPError(403, "Resource not accessible by integration")

    def _create_blob(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        self._contents_writer(repo, actor)
        if not isinstance(body, dict) or not isinstance(body.get("content"), str):
            raise self._invalid("content is required")
        encoding = body.get("encoding", "utf-8")
        if encoding == "base64":
            try:
                data = base64.b64decode(body["content"], validate=True)
            except ValueError:
                raise self._invalid("content is not valid base64") from None
        elif encoding == "utf-8":
            data = body["content"].encode()
        else:
            raise self._invalid(f"encoding {encoding!r} is not supported")
        sha = git_blob_sha(data)
        repo.blobs[sha] = data
        return 201, {"url": f"{self._repo_url(repo)}/git/blobs/{sha}", "sha": sha}, {}

    def _create_tree(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        self._contents_writer(repo, actor)
        if not isinstance(body, dict) or not isinstance(body.get("tree"), list):
            raise self._invalid("tree is required")
        files: dict[str, tuple[str, str]] = {}
        base = body.get("base_tree")
        if base is not None:
            if base not in repo.trees:
                raise self._invalid(f"base_tree {base} does not exist")
            files = {p: (e.mode, e.sha) for p, e in repo.walk(base) if e.type == "blob"}
        for entry in body["tree"]:
            path = str(entry.get("path") or "").strip("/")
            if not path:
                raise self._invalid("tree.path is required")
            if "content" in entry:
                data = str(entry["content"]).encode()
                sha = git_blob_sha(data)
                repo.blobs[sha] = data
            else:
                sha = entry.get("sha")
            if sha is None:
                files.pop(path, None)  # GitHub: a null sha deletes the file
                continue
            if entry.get("type", "blob") != "blob" or sha not in repo.blobs:
                raise self._invalid(f"tree.sha {sha} is not a valid blob")
            files[path] = (str(entry.get("mode") or "100644"), sha)
        tree = repo.put_tree_shas(files)
        top = [
            {
                "path": e.name,
                "mode": e.mode,
                "type": e.type,
                "sha": e.sha,
                "url": f"{self._repo_url(repo)}/git/{e.type}s/{e.sha}",
            }
            for e in repo.trees[tree]
        ]
        url = f"{self._repo_url(repo)}/git/trees/{tree}"
        return 201, {"sha": tree, "url": url, "truncated": False, "tree": top}, {}

    def _git_commit_json(self, repo: FakeRepo, sha: str) -> JSON:
        c = repo.commits[sha]
        api = self._repo_url(repo)
        login = c.get("author") or "A"
        who = {
            "name": login,
            "email": f"{login}@users.noreply.github.com",
            "date": c.get("date", _EPOCH),
        }
        return {
            "sha": sha,
            "node_id": f"C_{sha[:12]}",
            "url": f"{api}/git/commits/{sha}",
            "html_url": f"https://github.com/{repo.full_name}/commit/{sha}",
            "author": dict(who),
            "committer": dict(who),
            "tree": {"sha": c["tree"], "url": f"{api}/git/trees/{c['tree']}"},
            "message": c["message"],
            "parents": [
                {
                    "sha": p,
                    "url": f"{api}/git/commits/{p}",
                    "html_url": f"https://github.com/{repo.full_name}/commit/{p}",
                }
                for p in c["parents"]
            ],
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        }

    def _create_git_commit(
        self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str
    ) -> Any:
        self._contents_writer(repo, actor)
        if not isinstance(body, dict) or not isinstance(body.get("message"), str):
            raise self._invalid("message is required")
        tree = body.get("tree")
        if tree not in repo.trees:
            raise self._invalid(f"Tree SHA {tree} does not exist")
        parents = body.get("parents") or []
        if any(p not in repo.commits for p in parents):
            raise self._invalid("Parent SHA does not exist or is not a commit object")
        # no author given: the authenticated identity (an App's bot account) and now
        author = (body.get("author") or {}).get("name") or actor
        text = f"tree {tree}\n" + "".join(f"parent {p}\n" for p in parents)
        text += f"author {author}\n\n{body['message']} #{next(self._ids)}\n"
        sha = hashlib.sha1(f"commit {len(text)}\x00{text}".encode()).hexdigest()
        repo.commits[sha] = {
            "tree": tree,
            "parents": list(parents),
            "message": body["message"],
            "date": self._now(),
            "author": author,
        }
        return 201, self._git_commit_json(repo, sha), {}

    def _get_git_commit(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        if g[0] not in repo.commits:
            raise HTTPError(404, "Not Found")
        return 200, self._git_commit_json(repo, g[0]), {}

    def _ref_json(self, repo: FakeRepo, branch: str) -> JSON:
        api = self._repo_url(repo)
        sha = repo.branches[branch]
        return {
            "ref": f"refs/heads/{branch}",
            "node_id": f"REF_{branch}",
            "url": f"{api}/git/refs/heads/{branch}",
            "object": {"type": "commit", "sha": sha, "url": f"{api}/git/commits/{sha}"},
        }

    def _get_ref(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        branch = g[0].removeprefix("heads/")
        if not g[0].startswith("heads/") or branch not in repo.branches:
            raise HTTPError(404, "Not Found")
        return 200, self._ref_json(repo, branch), {}

    def _update_ref(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        self._contents_writer(repo, actor)
        branch = g[0].removeprefix("refs/").removeprefix("heads/")
        if branch not in repo.branches:
            raise self._invalid("Reference does not exist")
        if not isinstance(body, dict) or not isinstance(body.get("sha"), str):
            raise self._invalid("sha is required")
        sha = body["sha"]
        if sha not in repo.commits:
            raise self._invalid("Object does not exist")
        old = repo.branches[branch]
        if not body.get("force") and old not in repo.ancestors(sha):
            raise self._invalid("Update is not a fast forward")
        repo.branches[branch] = sha
        for pull in repo.pulls.values():  # the pull requests whose head branch this is
            if pull.head_repo is None and pull.head_ref == branch and pull.state == "open":
                pull.head_sha = sha
                self._reanchor(repo, pull)
        self.ref_updates.append((repo.full_name, branch, old, sha))
        return 200, self._ref_json(repo, branch), {}

    def _team_membership(self, org: str, slug: str, login: str) -> tuple[int, Any, dict[str, str]]:
        if org in self.hidden_team_orgs:
            raise HTTPError(403, "Resource not accessible by integration")
        state = self.teams.get((org, slug), {}).get(login)
        if state is None:
            raise HTTPError(404, "Not Found")  # GitHub: "if user has no team membership"
        return (
            200,
            {
                "url": f"{self.url}/orgs/{org}/teams/{slug}/memberships/{login}",
                "role": "member",
                "state": state,
            },
            {},
        )

    # ------------------------------------------------------------------ handlers: statuses

    def _create_status(self, repo: FakeRepo, g: list[str], q: Any, body: Any, actor: str) -> Any:
        sha = g[0]
        if sha not in repo.commits:
            raise HTTPError(422, "Unprocessable Entity", errors=[f"No commit found for SHA: {sha}"])
        if not isinstance(body, dict) or body.get("state") not in (
            "error",
            "failure",
            "pending",
            "success",
        ):
            raise HTTPError(
                422, "Validation Failed", errors=[{"field": "state", "code": "invalid"}]
            )
        description = body.get("description")
        if isinstance(description, str) and len(description) > 140:
            raise HTTPError(
                422, "Validation Failed", errors=[{"field": "description", "code": "custom"}]
            )
        sid = next(self._ids)
        status = {
            "id": sid,
            "node_id": f"SC_{sid}",
            "url": f"{self._repo_url(repo)}/statuses/{sha}",
            "avatar_url": self.users[actor]["avatar_url"],
            "state": body["state"],
            # a status written without a description has `description: null`
            "description": description,
            "target_url": body.get("target_url"),
            "context": body.get("context") or "default",
            "creator": self.users[actor],
            "created_at": self._now(),
            "updated_at": self._now(),
        }
        repo.statuses.setdefault(sha, []).insert(0, status)  # newest first, like GitHub
        return 201, status, {}

    def _list_statuses(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        sha = repo.resolve(g[0])
        if sha is None:
            raise HTTPError(404, "No commit found for SHA: " + g[0])
        return self._list(repo, f"/commits/{g[0]}/statuses", repo.statuses.get(sha, []), q)

    def _combined_status(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        sha = repo.resolve(g[0])
        if sha is None:
            raise HTTPError(404, "No commit found for SHA: " + g[0])
        latest: dict[str, JSON] = {}
        for s in repo.statuses.get(sha, []):
            latest.setdefault(s["context"], s)
        states = {s["state"] for s in latest.values()}
        state = (
            "failure"
            if states & {"failure", "error"}
            else "pending"
            if "pending" in states or not states
            else "success"
        )
        api = self._repo_url(repo)
        simple = [{k: v for k, v in st.items() if k != "creator"} for st in latest.values()]
        return (
            200,
            {
                "state": state,
                "sha": sha,
                "total_count": len(latest),
                "statuses": simple,
                "repository": self._repo_json(repo),
                "commit_url": f"{api}/commits/{sha}",
                "url": f"{api}/commits/{sha}/status",
            },
            {},
        )

    # ------------------------------------------------------------------ handlers: git data

    def _commit_json(self, repo: FakeRepo, sha: str) -> JSON:
        """A commit as GitHub lists it (`commit`); its author and committer are people
        GitHub cannot match to an account (`author: null`), as for most bot commits."""
        c = repo.commits[sha]
        api = self._repo_url(repo)
        who = {"name": "A", "email": "a@example.invalid", "date": c.get("date", _EPOCH)}
        return {
            "sha": sha,
            "node_id": f"C_{sha[:12]}",
            "url": f"{api}/commits/{sha}",
            "html_url": f"https://github.com/{repo.full_name}/commit/{sha}",
            "comments_url": f"{api}/commits/{sha}/comments",
            "commit": {
                "url": f"{api}/git/commits/{sha}",
                "message": c["message"],
                "comment_count": 0,
                "tree": {"sha": c["tree"], "url": f"{api}/git/trees/{c['tree']}"},
                "author": dict(who),
                "committer": dict(who),
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
            "author": None,
            "committer": None,
            "parents": [
                {
                    "sha": p,
                    "url": f"{api}/commits/{p}",
                    "html_url": f"https://github.com/{repo.full_name}/commit/{p}",
                }
                for p in c["parents"]
            ],
        }

    def _get_commit(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        sha = repo.resolve(g[0])
        if sha is None:
            raise HTTPError(422, "No commit found for SHA: " + g[0])
        return 200, self._commit_json(repo, sha), {}

    def _compare(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        base, head = repo.resolve(g[0]), repo.resolve(g[1])
        if base is None or head is None:
            raise HTTPError(404, "Not Found")
        merge_base = repo.merge_base(base, head)
        if merge_base is None:
            raise HTTPError(404, f"No common ancestor between {g[0]} and {g[1]}.")
        base_anc, head_anc = set(repo.ancestors(base)), repo.ancestors(head)
        ahead = [s for s in head_anc if s not in base_anc]
        behind = [s for s in repo.ancestors(base) if s not in set(head_anc)]
        status = (
            "identical"
            if not ahead and not behind
            else "ahead"
            if not behind
            else "behind"
            if not ahead
            else "diverged"
        )
        commits, headers = self._paginate(
            f"/{repo.full_name}/compare/{g[0]}...{g[1]}", list(reversed(ahead)), q
        )
        return (
            200,
            {
                "url": f"{self._repo_url(repo)}/compare/{g[0]}...{g[1]}",
                "html_url": f"https://github.com/{repo.full_name}/compare/{g[0]}...{g[1]}",
                "permalink_url": f"https://github.com/{repo.full_name}/compare/{base}...{head}",
                "diff_url": f"https://github.com/{repo.full_name}/compare/{g[0]}...{g[1]}.diff",
                "patch_url": f"https://github.com/{repo.full_name}/compare/{g[0]}...{g[1]}.patch",
                "status": status,
                "ahead_by": len(ahead),
                "behind_by": len(behind),
                "total_commits": len(ahead),
                "base_commit": self._commit_json(repo, base),
                "merge_base_commit": self._commit_json(repo, merge_base),
                "commits": [self._commit_json(repo, s) for s in commits],
                "files": self._diff_files(repo, merge_base, head)[:300],
            },
            headers,
        )

    def _get_tree(
        self, repo: FakeRepo, g: list[str], q: Mapping[str, str], b: Any, actor: str
    ) -> Any:
        ref = g[0]
        if ref in repo.trees:
            tree = ref
        else:
            sha = repo.resolve(ref)
            if sha is None:
                raise HTTPError(404, "Not Found")
            tree = repo.commits[sha]["tree"]
        if "recursive" in q:
            walked = list(repo.walk(tree))
        else:
            walked = [(e.name, e) for e in repo.trees[tree]]
        entries = []
        for path, e in walked:
            item: JSON = {
                "path": path,
                "mode": e.mode,
                "type": e.type,
                "sha": e.sha,
                "url": f"{self._repo_url(repo)}/git/{e.type}s/{e.sha}",
            }
            if e.type == "blob":
                item["size"] = len(repo.blobs[e.sha])
            entries.append(item)
        truncated = False
        if (
            "recursive" in q
            and self.tree_entry_limit is not None
            and len(entries) > self.tree_entry_limit
        ):
            entries, truncated = entries[: self.tree_entry_limit], True
        return (
            200,
            {
                "sha": tree,
                "url": f"{self._repo_url(repo)}/git/trees/{tree}",
                "tree": entries,
                "truncated": truncated,
            },
            {},
        )

    def _get_blob(self, repo: FakeRepo, g: list[str], q: Any, b: Any, actor: str) -> Any:
        data = repo.blobs.get(g[0])
        if data is None:
            raise HTTPError(404, "Not Found")
        return (
            200,
            {
                "sha": g[0],
                "node_id": f"B_{g[0][:12]}",
                "size": len(data),
                "url": f"{self._repo_url(repo)}/git/blobs/{g[0]}",
                "content": _b64(data),
                "encoding": "base64",
            },
            {},
        )

    def _get_contents(
        self, repo: FakeRepo, g: list[str], q: Mapping[str, str], b: Any, actor: str
    ) -> Any:
        path = (g[0] or "").strip("/")
        ref = q.get("ref") or repo.default_branch
        sha = repo.resolve(ref)
        if sha is None:
            raise HTTPError(404, f"No commit found for the ref {ref}")
        entry = repo.lookup(sha, path)
        if entry is None:
            raise HTTPError(404, "Not Found")

        def describe(p: str, e: TreeEntry) -> JSON:
            kind = "dir" if e.type == "tree" else "symlink" if e.mode == "120000" else "file"
            url = f"{self._repo_url(repo)}/contents/{p}?ref={ref}"
            git_url = f"{self._repo_url(repo)}/git/{e.type}s/{e.sha}"
            html_url = f"https://github.com/{repo.full_name}/blob/{ref}/{p}"
            item: JSON = {
                "type": kind,
                "name": p.rsplit("/", 1)[-1],
                "path": p,
                "sha": e.sha,
                "size": len(repo.blobs[e.sha]) if e.type == "blob" else 0,
                "url": url,
                "git_url": git_url,
                "html_url": html_url,
                "download_url": None,
                "_links": {"self": url, "git": git_url, "html": html_url},
            }
            return item

        if entry.type == "tree":
            prefix = f"{path}/" if path else ""
            return 200, [describe(prefix + e.name, e) for e in repo.trees[entry.sha]], {}
        item = describe(path, entry)
        data = repo.blobs[entry.sha]
        if entry.mode == "120000":
            item["target"] = data.decode("utf-8", "replace")
        elif len(data) > LARGE_FILE:
            item.update(content="", encoding="none")
        else:
            item.update(content=_b64(data), encoding="base64")
        return 200, item, {}
