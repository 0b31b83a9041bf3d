"""A pull request as a change: base and head views plus per-file hunks. Pure.

The CLI builds it from two git refs, the webhook later from the GitHub API;
rules see only this. Hunks come from difflib over the two texts, so the
model needs no git; line numbers are 1-based on each side.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.core.tree import Tree

MAX_DIFF_LINES = 200_000


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int


@dataclass(frozen=True)
class FileChange:
    path: str
    status: str  # "added" | "modified" | "deleted"
    hunks: tuple[Hunk, ...] = ()
    added_lines: frozenset[int] = frozenset()  # head-side line numbers
    removed_lines: frozenset[int] = frozenset()  # base-side line numbers
    binary: bool = False


@dataclass(frozen=True)
class ChangeSet:
    base: Tree
    head: Tree
    files: tuple[FileChange, ...]
    pr: int | None = None
    author: str | None = None
    # every path the PR names (git's or GitHub's list of changed files), including
    # one whose bytes did not change (a mode change); `files` holds the diffs
    named: frozenset[str] = frozenset()
    _index: dict[str, FileChange] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({f.path: f for f in self.files})

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    @property
    def touched(self) -> frozenset[str]:
        """The paths the PR changes: those it names, and every path with a diff."""
        return self.named | {f.path for f in self.files}

    def file(self, path: str) -> FileChange | None:
        return self._index.get(path)

    def added(self, path: str) -> bool:
        f = self.file(path)
        return f is not None and f.status == "added"

    def touches_line(self, path: str, line: int, last_line: int | None = None) -> bool:
        """Whether head lines [line, last_line] include an added or changed line."""
        f = self.file(path)
        if f is None:
            return False
        if f.status == "added":
            return True
        return any(n in f.added_lines for n in range(line, (last_line or line) + 1))


def _lines(data: bytes | None) -> list[str] | None:
    if data is None:
        return None
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def diff_file(path: str, old: bytes | None, new: bytes | None) -> FileChange | None:
    """The change of one path, or None when both sides are equal."""
    if old == new:
        return None
    if old is None:
        status = "added"
    elif new is None:
        status = "deleted"
    else:
        status = "modified"
    a, b = _lines(old), _lines(new)
    if (old is not None and a is None) or (new is not None and b is None):
        return FileChange(path, status, binary=True)
    a = a or []
    b = b or []
    if len(a) + len(b) > MAX_DIFF_LINES:
        # too large to diff line by line: every head line counts as changed
        return FileChange(
            path,
            status,
            (Hunk(1, len(a), 1, len(b)),),
            frozenset(range(1, len(b) + 1)),
            frozenset(range(1, len(a) + 1)),
        )
    hunks: list[Hunk] = []
    added: set[int] = set()
    removed: set[int] = set()
    # strip the common head and tail first: a typical change is a few lines
    # in a long file, and SequenceMatcher is slow on long repetitive input
    pre = 0
    limit = min(len(a), len(b))
    while pre < limit and a[pre] == b[pre]:
        pre += 1
    post = 0
    while post < limit - pre and a[len(a) - 1 - post] == b[len(b) - 1 - post]:
        post += 1
    mid_a, mid_b = a[pre : len(a) - post], b[pre : len(b) - post]
    matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + pre, i2 + pre, j1 + pre, j2 + pre
        hunks.append(Hunk(i1 + 1, i2 - i1, j1 + 1, j2 - j1))
        removed.update(range(i1 + 1, i2 + 1))
        added.update(range(j1 + 1, j2 + 1))
    return FileChange(path, status, tuple(hunks), frozenset(added), frozenset(removed))


def build_changeset(
    base: Tree,
    head: Tree,
    paths: Iterable[str],
    *,
    pr: int | None = None,
    author: str | None = None,
) -> ChangeSet:
    named = frozenset(paths)
    files = []
    for path in sorted(named):
        change = diff_file(path, base.read(path), head.read(path))
        if change is not None:
            files.append(change)
    return ChangeSet(base=base, head=head, files=tuple(files), pr=pr, author=author, named=named)
