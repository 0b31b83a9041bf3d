"""The one way the backtest lints: a PR commit against its merge-base. An edge (git I/O).

`lint_change` is the single entry point the rest of `bot.backtest` calls; it
does what `bot lint --repo DIR --base BASE --head HEAD --pr N --date D` does
when BASE is already the merge-base (so the base tip is the merge-base too).

Objects are read through git itself (`git ls-tree`, `git cat-file --batch`),
so alternates and shallow clones work, and so do bare mirrors (no work tree
is needed). Unlike `bot.sources.GitTree`, a blob that the tree lists but the
object store lacks raises `MissingObject` instead of reading as an absent
file: a backtest must skip such a commit, not lint a tree with holes.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bot.core.changeset import build_changeset
from bot.core.config import CONFIG_FILENAMES, Config, build_config
from bot.core.context import ParseCache
from bot.core.engine import Context, Report, lint
from bot.core.model import Finding
from bot.core.registry import RuleModule
from bot.sources import SourceError, git

# a file larger than this is not kept between reads of one tree
_MAX_KEPT = 8 * 1024 * 1024


class MissingObject(SourceError):
    """A commit, tree or blob the repository does not hold (pruned, shallow, partial clone)."""


class ObjectReader:
    """One `git cat-file --batch` process for a repository (bare or not)."""

    def __init__(self, repo_dir: str | os.PathLike[str]) -> None:
        self.repo_dir = str(repo_dir)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C", GIT_TERMINAL_PROMPT="0")
            env.pop("GIT_DIR", None)
            self._proc = subprocess.Popen(
                ["git", "-C", self.repo_dir, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        return self._proc

    def read(self, sha: str) -> bytes:
        with self._lock:
            proc = self._start()
            stdin: IO[bytes] | None = proc.stdin
            stdout: IO[bytes] | None = proc.stdout
            assert stdin is not None and stdout is not None
            try:
                stdin.write(sha.encode() + b"\n")
                stdin.flush()
                header = stdout.readline()
            except (OSError, ValueError) as exc:
                raise SourceError(f"git cat-file stopped: {exc}") from exc
            parts = header.split()
            if len(parts) != 3:
                if not header:
                    raise SourceError("git cat-file stopped")
                raise MissingObject(f"missing object {sha}")
            size = int(parts[2])
            chunks: list[bytes] = []
            left = size
            while left > 0:
                chunk = stdout.read(left)
                if not chunk:
                    raise SourceError("git cat-file stopped")
                chunks.append(chunk)
                left -= len(chunk)
            stdout.read(1)  # the newline after the contents
            return b"".join(chunks)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class CommitTree:
    """A commit as a `Tree`: regular files only; a listed blob that is absent raises."""

    def __init__(self, reader: ObjectReader, commit: str) -> None:
        self.commit = commit
        self._reader = reader
        try:
            out = git(reader.repo_dir, "ls-tree", "-r", "-z", "--full-tree", commit)
        except SourceError as exc:
            raise MissingObject(f"cannot list {commit[:12]}: {exc}") from None
        self._blobs: dict[str, str] = {}
        for entry in out.split(b"\x00"):
            meta, _, raw = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) == 3 and fields[1] == b"blob" and fields[0] != b"120000":
                self._blobs[raw.decode("utf-8", "surrogateescape")] = fields[2].decode()
        self._kept: dict[str, bytes] = {}

    def paths(self) -> Iterable[str]:
        return sorted(self._blobs)

    def blob_id(self, path: str) -> str | None:
        return self._blobs.get(path.strip("/"))

    def read(self, path: str) -> bytes | None:
        sha = self.blob_id(path)
        if sha is None:
            return None
        data = self._kept.get(sha)
        if data is None:
            data = self._reader.read(sha)
            if len(data) <= _MAX_KEPT:
                self._kept[sha] = data
        return data


def changed_between(repo_dir: str, base_sha: str, head_sha: str) -> list[str]:
    """Paths that differ between two commits (`base` is the merge-base, so `base...head`)."""
    try:
        out = git(repo_dir, "diff", "--name-only", "-z", "--no-renames", base_sha, head_sha)
    except SourceError as exc:
        raise MissingObject(f"cannot diff {base_sha[:12]}..{head_sha[:12]}: {exc}") from None
    return sorted({p.decode("utf-8", "surrogateescape") for p in out.split(b"\x00") if p})


@functools.lru_cache(maxsize=16)
def _config(text: str | None, label: str) -> Config:
    return build_config(text, source=label)


def config_of(tree: CommitTree, candidate: str | None) -> Config:
    """The candidate configuration when given, else the repository's own at `tree`."""
    if candidate is not None:
        return _config(candidate, "--config")
    for name in CONFIG_FILENAMES:
        data = tree.read(name)
        if data is not None:
            return _config(data.decode("utf-8", "replace"), f"{name} (at the merge-base)")
    return _config(None, "defaults")


@dataclass
class RuleClock:
    """Seconds each rule's `check` took, summed over one lint."""

    seconds: dict[str, float] = field(default_factory=dict)

    def wrap(self, rules: Sequence[RuleModule]) -> list[RuleModule]:
        return [RuleModule(rule=rm.rule, check=self._timed(rm), module=rm.module) for rm in rules]

    def _timed(self, rm: RuleModule) -> Callable[..., Iterator[Finding]]:
        def check(*args: Any) -> Iterator[Finding]:
            start = time.perf_counter()
            found = list(rm.check(*args))
            took = time.perf_counter() - start
            self.seconds[rm.rule.id] = self.seconds.get(rm.rule.id, 0.0) + took
            return iter(found)

        return check


def lint_change(
    repo_dir: str | Path,
    base_sha: str,
    head_sha: str,
    pr: int | None,
    date: datetime.date,
    config: str | None,
    selection: Sequence[RuleModule],
    *,
    repository: str | None = None,
    reader: ObjectReader | None = None,
    cache: ParseCache | None = None,
) -> Report:
    """Lint what `head_sha` changes against `base_sha` (the merge-base), as `bot lint` does.

    `config` is a candidate configuration's text (None: the repository's own,
    read at the merge-base); `selection` the rules to run. `reader` and
    `cache` may be shared by the commits of one PR. A missing object raises
    `MissingObject`.
    """
    own = reader is None
    reader = reader or ObjectReader(repo_dir)
    try:
        base = CommitTree(reader, base_sha)
        head = CommitTree(reader, head_sha)
        changed = changed_between(str(repo_dir), base_sha, head_sha)
        change = build_changeset(base, head, changed, pr=pr)
        ctx = Context.for_change(
            change,
            config_of(base, config),
            review_date=date,
            repository=repository,
            cache=cache,
        )
        return lint(ctx, paths=changed, rules=list(selection))
    finally:
        if own:
            reader.close()
