"""Trees backed by the file system and by git objects. An edge: all the CLI's file and git I/O.

- `FsTree(root)`: a directory on disk (the working tree). `.git` is skipped,
  symlinks that leave the root are ignored, file contents are read only when
  asked for.
- `GitTree(repo_dir, ref, reader=None)`: a commit. Paths and blob ids come from one
  `git ls-tree`, contents from one long-lived `git cat-file --batch` process
  (`ObjectReader`), which several trees may share (the commits of a pull request).
  No work tree is needed: bare mirrors and alternates work. `blob_id` is the git blob
  SHA, so the engine caches parses by content. An object the tree lists but the
  repository lacks (a pruned blob, a shallow cut, a partial clone) raises
  `MissingObject`: it is never read as an absent (deleted) file.
- `changed_paths(repo_dir, base, head)`: the paths a PR from `base` to `head`
  touches (`git diff base...head`: from the merge-base to head), or to the
  working tree when `head` is None.

Every failure a user can cause (not a repository, unknown ref, no git) is a
`SourceError` with a one-line message.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from bot.core.tree import Tree, content_id

# Files larger than this are never cached in memory; they are read again on demand.
MAX_CACHED_FILE = 32 * 1024 * 1024
# Total bytes of file contents a tree keeps cached.
CACHE_BUDGET = 256 * 1024 * 1024

REPO_MARKERS = (".git", "perf-changelog.yaml", ".recipe-bot.yml")
# the lint cache's directory (`bot.app.cache`): never part of a tree, as `.git` is not
CACHE_DIR_NAME = ".recipe_bot_cache"
SKIPPED_DIRS = frozenset({".git", CACHE_DIR_NAME})


class SourceError(Exception):
    """A repository, ref or file the user named cannot be read. One-line message."""


class MissingObject(SourceError):
    """A commit, tree or blob the repository does not hold (pruned, a shallow cut, a partial
    clone). Raised rather than read as an absent file, which would make a missing blob of
    a changed file look deleted."""


# --------------------------------------------------------------------------- plain files


def read_file(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes; OSError (with the file name) when it cannot be read."""
    return Path(path).read_bytes()


def write_file(path: str | os.PathLike[str], text: str) -> None:
    Path(path).write_text(text, encoding="utf-8")


def find_repo_root(start: str | os.PathLike[str]) -> Path | None:
    """The nearest directory at or above `start` holding `.git`, `perf-changelog.yaml`
    or `.recipe-bot.yml`; None when there is none."""
    here = Path(os.path.abspath(start))
    if not here.is_dir():
        here = here.parent
    for candidate in (here, *here.parents):
        if any((candidate / marker).exists() for marker in REPO_MARKERS):
            return candidate
    return None


def locate(path: str | os.PathLike[str]) -> tuple[Path, str, bool]:
    """(repository root, `/`-separated path relative to it, is a directory) for a PATH argument.

    The root is the nearest directory holding a repository marker; without one,
    the current directory when `path` is inside it, else the path's own directory.
    """
    given = Path(path)
    if not given.exists():
        raise FileNotFoundError(2, "No such file or directory", str(path))
    full = Path(os.path.realpath(given))
    is_dir = full.is_dir()
    root = find_repo_root(full)
    if root is None:
        cwd = Path(os.path.realpath(Path.cwd()))
        root = cwd if full == cwd or cwd in full.parents else (full if is_dir else full.parent)
    root = Path(os.path.realpath(root))
    rel = "" if full == root else full.relative_to(root).as_posix()
    return root, rel, is_dir


class _ByteCache:
    """A small LRU of file contents bounded by total size."""

    def __init__(self, budget: int = CACHE_BUDGET) -> None:
        self._data: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._budget = budget

    def get(self, key: str) -> bytes | None:
        data = self._data.get(key)
        if data is not None:
            self._data.move_to_end(key)
        return data

    def put(self, key: str, data: bytes) -> None:
        if len(data) > MAX_CACHED_FILE or key in self._data:
            return
        self._data[key] = data
        self._size += len(data)
        while self._size > self._budget and self._data:
            _, old = self._data.popitem(last=False)
            self._size -= len(old)


# --------------------------------------------------------------------------- FsTree


class FsTree:
    """A directory on disk as a `Tree`. Paths are `/`-separated, relative to `root`."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        path = Path(root)
        if not path.is_dir():
            raise SourceError(f"not a directory: {root}")
        self.root = Path(os.path.realpath(path))
        self._top = str(self.root)
        self._cache = _ByteCache()
        # real file (str) -> (size, mtime_ns, blob id)
        self._ids: dict[str, tuple[int, int, str]] = {}
        # path -> its real file inside the root (None: outside it or not a usable name)
        self._reals: dict[str, str | None] = {}
        # directory (relative, "" for the root) -> its real path, symlinks resolved
        self._dirs: dict[str, str] = {"": self._top}

    def __repr__(self) -> str:
        return f"FsTree({str(self.root)!r})"

    def _resolve(self, path: str) -> str | None:
        """The real file behind `path`, or None if it is outside the root or not a file."""
        found = self._stat(path)
        return found[0] if found is not None else None

    def _real(self, path: str) -> str | None:
        """`path` with every symlink resolved, inside the root; None outside it.

        Resolved once per path and tree (a whole-tree lint reads each recipe several
        times: its blob id, its text, and again as a sibling of other recipes), its
        directory once per directory: `realpath` of the directory, then of the name
        only when it is a link, is `realpath` of the whole path."""
        if path in self._reals:
            return self._reals[path]
        rel = path.replace("\\", "/").strip("/")
        parts = rel.split("/")
        full: str | None = None
        if rel and not any(p in ("", ".", "..") for p in parts) and ".git" not in parts:
            folder = "/".join(parts[:-1])
            where = self._dirs.get(folder)
            if where is None:
                where = self._dirs[folder] = os.path.realpath(os.path.join(self._top, *parts[:-1]))
            full = os.path.join(where, parts[-1])
            if os.path.islink(full):
                full = os.path.realpath(full)
            if full != self._top and not full.startswith(self._top.rstrip(os.sep) + os.sep):
                full = None
        self._reals[path] = full
        return full

    def _stat(self, path: str) -> tuple[str, os.stat_result] | None:
        """The real regular file behind `path` and its status, or None."""
        full = self._real(path)
        if full is None:
            return None
        try:
            # not followed: the cached real path is no link unless it became one
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                del self._reals[path]
                self._dirs = {"": self._top}
                full = self._real(path)
                if full is None:
                    return None
                st = os.stat(full)
        except OSError:
            return None
        return (full, st) if stat.S_ISREG(st.st_mode) else None

    def read(self, path: str) -> bytes | None:
        found = self._stat(path)
        if found is None:
            return None
        return self._read(*found)

    def _read(self, full: str, st: os.stat_result) -> bytes | None:
        # keyed by size and mtime too, so an edit during a long run is seen
        key = f"{full}\x00{st.st_size}\x00{st.st_mtime_ns}"
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        try:
            with open(full, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        self._cache.put(key, data)
        return data

    def blob_id(self, path: str) -> str | None:
        found = self._stat(path)
        if found is None:
            return None
        full, st = found
        known = self._ids.get(full)
        if known and known[0] == st.st_size and known[1] == st.st_mtime_ns:
            return known[2]
        if st.st_size > MAX_CACHED_FILE:
            blob = _hash_file(Path(full), st.st_size)
        else:
            data = self._read(full, st)
            if data is None:
                return None
            blob = content_id(data)
        if blob is not None:
            self._ids[full] = (st.st_size, st.st_mtime_ns, blob)
        return blob

    def paths(self) -> Iterable[str]:
        return self.files_under("")

    def files_under(self, rel_dir: str) -> list[str]:
        """Every file under `rel_dir` ('' for the whole tree), sorted."""
        rel_dir = rel_dir.replace("\\", "/").strip("/")
        start = os.path.join(self._top, *rel_dir.split("/")) if rel_dir else self._top
        skip = len(self._top.rstrip(os.sep)) + 1
        out: list[str] = []
        for dirpath, dirnames, filenames in os.walk(start, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
            base = dirpath[skip:].replace(os.sep, "/") if dirpath != self._top else ""
            prefix = base + "/" if base else ""
            for name in filenames:
                rel = prefix + name
                if os.path.islink(os.path.join(dirpath, name)) and self._resolve(rel) is None:
                    continue
                out.append(rel)
        out.sort()
        return out


def _hash_file(full: Path, size: int) -> str | None:
    digest = hashlib.sha1(b"blob %d\x00" % size)
    try:
        with full.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


# --------------------------------------------------------------------------- git plumbing


def _git_exe() -> str:
    exe = shutil.which("git")
    if exe is None:
        raise SourceError("git is not installed or not on PATH")
    return exe


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    return env


def git(repo_dir: str | os.PathLike[str], *args: str) -> bytes:
    """Run one git command; SourceError with git's first line of complaint on failure."""
    try:
        proc = subprocess.run(
            [_git_exe(), "-C", str(repo_dir), *args],
            capture_output=True,
            env=_git_env(),
            check=False,
        )
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from exc
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = lines[0] if lines else f"exit status {proc.returncode}"
        raise SourceError(f"git {args[0]} failed in {repo_dir}: {detail}")
    return proc.stdout


# Answers of git that cannot change while the process runs, so one `bot lint`
# asks each once (it asked for the work tree's top 13 times): a directory's
# work-tree top (keyed by the directory's identity), a full commit id's commit.
_TOPLEVEL: dict[tuple[str, int, int], Path] = {}
_COMMITS: dict[tuple[Path, str], str] = {}
_FULL_SHA = re.compile(r"[0-9a-f]{40}")


def git_toplevel(repo_dir: str | os.PathLike[str]) -> Path:
    """The top directory of the git work tree holding `repo_dir`."""
    try:
        st = os.stat(repo_dir)
    except OSError:
        st = None
    if st is None or not Path(repo_dir).is_dir():
        raise SourceError(f"not a directory: {repo_dir}")
    key = (os.path.realpath(repo_dir), st.st_dev, st.st_ino)
    known = _TOPLEVEL.get(key)
    if known is not None and known.is_dir():
        return known
    try:
        out = git(repo_dir, "rev-parse", "--show-toplevel")
    except SourceError:
        raise SourceError(f"not a git repository: {repo_dir}") from None
    top = out.decode("utf-8", "surrogateescape").strip()
    if not top:  # a bare repository
        raise SourceError(f"not a git work tree: {repo_dir}")
    if len(_TOPLEVEL) >= 1024:
        _TOPLEVEL.clear()
    _TOPLEVEL[key] = Path(top)
    return Path(top)


def _prefix(repo_dir: str | os.PathLike[str]) -> str:
    """`repo_dir` relative to the work tree's top, '' or ending in '/'."""
    top = Path(os.path.realpath(git_toplevel(repo_dir)))
    here = Path(os.path.realpath(repo_dir))
    rel = here.relative_to(top).as_posix()
    return "" if rel == "." else rel + "/"


_LOCATIONS: dict[tuple[str, int, int], tuple[Path, str]] = {}


def _location(repo_dir: str | os.PathLike[str]) -> tuple[Path, str]:
    """(where git runs, the prefix of `repo_dir`'s paths in a commit's tree): the work
    tree's top and `repo_dir` relative to it; or, for a bare repository (or a `.git`
    directory), `repo_dir` itself and '', since reading commits needs no work tree."""
    try:
        return git_toplevel(repo_dir), _prefix(repo_dir)
    except SourceError:
        if not os.path.isdir(repo_dir):
            raise
        st = os.stat(repo_dir)
        key = (os.path.realpath(repo_dir), st.st_dev, st.st_ino)
        known = _LOCATIONS.get(key)
        if known is not None:
            return known
        try:
            inside = git(repo_dir, "rev-parse", "--is-inside-git-dir").strip() == b"true"
        except SourceError:
            inside = False
        if not inside:
            raise
        if len(_LOCATIONS) >= 1024:
            _LOCATIONS.clear()
        _LOCATIONS[key] = (Path(key[0]), "")
        return _LOCATIONS[key]


def resolve_ref(
    repo_dir: str | os.PathLike[str], ref: str, *, reader: ObjectReader | None = None
) -> str:
    """The commit SHA `ref` names in `repo_dir` (a work tree or a bare repository).

    `reader` (an open `ObjectReader` of `repo_dir`) confirms a full commit SHA without
    starting a process."""
    top = _location(repo_dir)[0]
    if not ref or ref.startswith("-"):
        raise SourceError(f"unknown ref {ref!r} in {repo_dir}")
    known = _COMMITS.get((top, ref))
    if known is not None:
        return known
    if reader is not None and _FULL_SHA.fullmatch(ref):
        try:
            kind = reader.read_object(ref)[0]
        except MissingObject:
            kind = ""
        if kind == "commit":
            if len(_COMMITS) >= 4096:
                _COMMITS.clear()
            _COMMITS[(top, ref)] = ref
            return ref
    try:
        out = git(
            repo_dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"
        )
    except SourceError:
        raise SourceError(f"unknown ref {ref!r} in {repo_dir}") from None
    sha = out.decode().strip()
    if _FULL_SHA.fullmatch(sha):
        # a full commit SHA names that commit for ever: the next lookup of it, as
        # the trees and the merge-base of a change make, starts no process
        if len(_COMMITS) >= 4096:
            _COMMITS.clear()
        _COMMITS[(top, sha)] = sha
    return sha


def merge_base(
    repo_dir: str | os.PathLike[str],
    base: str,
    head: str | None = None,
    *,
    reader: ObjectReader | None = None,
    resolved: tuple[str, str] | None = None,
) -> str:
    """The commit a PR from `base` to `head` (default HEAD) forks from; `resolved`
    gives the two commits the caller already resolved the refs to."""
    if resolved is not None:
        base_sha, head_sha = resolved
    else:
        base_sha = resolve_ref(repo_dir, base, reader=reader)
        head_sha = resolve_ref(repo_dir, head or "HEAD", reader=reader)
    try:
        out = git(repo_dir, "merge-base", base_sha, head_sha)
    except SourceError:
        raise SourceError(
            f"{base!r} and {head or 'HEAD'!r} have no common ancestor in {repo_dir}"
            " (a shallow clone? fetch the full history, e.g. actions/checkout fetch-depth: 0)"
        ) from None
    return out.decode().strip()


def _split_z(data: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in data.split(b"\x00") if p]


def changed_paths(
    repo_dir: str | os.PathLike[str], base: str, head: str | None = None
) -> list[str]:
    """Paths changed from the merge-base of `base` and `head` to `head`, sorted.

    With `head` None the head is the working tree: committed, staged and unstaged
    changes since the merge-base of `base` and HEAD, plus untracked files that are
    not ignored (this needs a work tree; two commits do not). Deleted files are
    included. Paths are relative to `repo_dir`.
    """
    if head is not None:
        top, prefix = _location(repo_dir)
        b, h = resolve_ref(repo_dir, base), resolve_ref(repo_dir, head)
        out = git(top, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", f"{b}...{h}")
        paths = set(_split_z(out))
    else:
        top, prefix = git_toplevel(repo_dir), _prefix(repo_dir)
        mb = merge_base(repo_dir, base)
        out = git(top, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", mb)
        paths = set(_split_z(out))
        untracked = git(top, "ls-files", "--others", "--exclude-standard", "-z", "--full-name")
        paths.update(_split_z(untracked))
    return sorted(p[len(prefix) :] for p in paths if p.startswith(prefix))


# --------------------------------------------------------------------------- GitTree


class ObjectReader:
    """One `git cat-file --batch` process for a repository (bare or not), fed object ids one
    at a time. Started on the first read, and again in a forked child (the parent's pipe is
    not its own) or after the process stopped; several trees may share one (the commits
    of a pull request). An object the repository lacks raises `MissingObject`."""

    def __init__(self, repo_dir: str | os.PathLike[str]) -> None:
        self.repo_dir = Path(repo_dir)
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = 0  # the process that started `_proc`
        self._finalizer: weakref.finalize[Any, ObjectReader] | None = None
        self._lock = threading.Lock()

    def _running(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._pid != os.getpid() and self._finalizer is not None:
            self._finalizer.detach()  # a forked child: the parent's process is not ours to stop
            self._proc = None
        if self._proc is None:
            try:
                self._proc = subprocess.Popen(
                    [_git_exe(), "-C", str(self.repo_dir), "cat-file", "--batch"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=_git_env(),
                )
            except OSError as exc:
                raise SourceError(f"cannot run git: {exc}") from exc
            self._pid = os.getpid()
            self._finalizer = weakref.finalize(self, _stop, self._proc)
        return self._proc

    def _stopped(self, why: str) -> SourceError:
        """The process stopped: the next read starts another."""
        self.close()
        return SourceError(f"git cat-file stopped unexpectedly{why}")

    def read(self, sha: str) -> bytes:
        """The contents of object `sha`."""
        return self.read_object(sha)[1]

    def read_object(self, sha: str) -> tuple[str, bytes]:
        """(type, contents) of object `sha`: `blob`, `tree`, `commit` or `tag`."""
        with self._lock:
            proc = self._running()
            stdin: IO[bytes] | None = proc.stdin
            stdout: IO[bytes] | None = proc.stdout
            if stdin is None or stdout is None or proc.poll() is not None:
                raise self._stopped("")
            try:
                stdin.write(sha.encode() + b"\n")
                stdin.flush()
                header = stdout.readline()
            except (OSError, ValueError) as exc:
                raise self._stopped(f": {exc}") from exc
            parts = header.split()
            if len(parts) != 3:
                if not header:
                    raise self._stopped("")
                # "<sha> missing" / "<sha> ambiguous"
                raise MissingObject(f"object {sha} is missing from {self.repo_dir}")
            try:
                data = _read_exact(stdout, int(parts[2]))
                stdout.read(1)  # the newline after the contents
            except SourceError:
                raise self._stopped("") from None
            return parts[1].decode(), data

    def close(self) -> None:
        if self._finalizer is not None:
            if self._pid == os.getpid():
                self._finalizer()
            else:  # a forked child leaves its parent's process alone
                self._finalizer.detach()
        self._finalizer = None
        self._proc = None


def _read_exact(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            raise SourceError("git cat-file stopped unexpectedly")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class GitTree:
    """A commit of a git repository (a work tree's or a bare one's) as a `Tree`; `blob_id`
    is the git blob SHA.

    Regular files only: symlinks and submodules are left out. Contents are read through
    `reader` when given (shared with other trees, which close it), else through a
    `git cat-file` process of its own: use the tree as a context manager (or call `close`)
    to stop it early. A listed blob the repository lacks raises `MissingObject`.
    """

    def __init__(
        self, repo_dir: str | os.PathLike[str], ref: str, *, reader: ObjectReader | None = None
    ) -> None:
        self.repo_dir = Path(repo_dir)
        self.ref = ref
        self.commit = resolve_ref(repo_dir, ref)
        self._top, prefix = _location(repo_dir)
        try:
            out = git(self._top, "ls-tree", "-r", "-z", "--full-tree", self.commit)
        except SourceError as exc:
            raise MissingObject(f"cannot list {self.commit[:12]}: {exc}") from None
        self._blobs: dict[str, str] = {}
        for entry in out.split(b"\x00"):
            if not entry:
                continue
            meta, _, raw_path = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) != 3 or fields[1] != b"blob" or fields[0] == b"120000":
                continue
            path = raw_path.decode("utf-8", "surrogateescape")
            if path.startswith(prefix):
                self._blobs[path[len(prefix) :]] = fields[2].decode()
        self._reader = reader
        self._owns_reader = reader is None
        self._cache = _ByteCache()

    def __repr__(self) -> str:
        return f"GitTree({str(self.repo_dir)!r}, {self.ref!r})"

    def __enter__(self) -> GitTree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the tree's own `git cat-file` process (a shared reader is its owner's)."""
        if self._owns_reader and self._reader is not None:
            self._reader.close()
            self._reader = None

    def after_fork(self) -> None:
        """In a forked child: nothing to do, a reader starts its own process there."""

    def paths(self) -> Iterable[str]:
        return sorted(self._blobs)

    def blob_id(self, path: str) -> str | None:
        return self._blobs.get(path.strip("/"))

    def read(self, path: str) -> bytes | None:
        sha = self.blob_id(path)
        if sha is None:
            return None
        cached = self._cache.get(sha)
        if cached is not None:
            return cached
        if self._reader is None:
            self._reader = ObjectReader(self._top)
        try:
            data = self._reader.read(sha)
        except MissingObject:
            raise MissingObject(
                f"{path.strip('/')} at {self.commit[:12]}: blob {sha[:12]} is missing"
                f" from {self.repo_dir}"
            ) from None
        self._cache.put(sha, data)
        return data


def close_all(trees: Sequence[object]) -> None:
    for tree in trees:
        closer = getattr(tree, "close", None)
        if callable(closer):
            closer()


# --------------------------------------------------------------------------- overlay, remote


class OverlayTree:
    """`inner` with some files replaced by given bytes (`bot lint -` reads one from stdin)."""

    def __init__(self, inner: Tree, files: dict[str, bytes]) -> None:
        self.inner = inner
        self.files = {p.strip("/"): data for p, data in files.items()}

    def read(self, path: str) -> bytes | None:
        key = path.strip("/")
        return self.files[key] if key in self.files else self.inner.read(path)

    def blob_id(self, path: str) -> str | None:
        key = path.strip("/")
        return content_id(self.files[key]) if key in self.files else self.inner.blob_id(path)

    def paths(self) -> Iterable[str]:
        return sorted(set(self.inner.paths()) | set(self.files))


_GITHUB_REMOTE = re.compile(
    r"^(?:https?://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
    r"(?P<repo>[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+?)(?:\.git)?/?$"
)


def github_repository(repo_dir: str | os.PathLike[str], remote: str = "origin") -> str | None:
    """`owner/name` of the GitHub repository `remote` points to, or None."""
    try:
        url = git(repo_dir, "remote", "get-url", "--", remote).decode().strip()
    except (SourceError, UnicodeDecodeError):
        return None
    m = _GITHUB_REMOTE.match(url)
    return m.group("repo") if m else None
