"""A pull request as a change: base and head views plus per-file hunks. Pure.

The one diff model of the bot. The CLI builds it from two git refs, the review
pipeline from the GitHub API; rules see only this. For each file it knows which
head lines the change adds or changes (`added_lines`) and which head lines the
diff shows (`shown_lines`: the added lines and the context lines around them,
the lines a pull-request review comment can sit on). Both come from one set of
hunks: GitHub's `patch` of the file when the caller has it (`patches`), else
difflib over the two texts with three lines of context, as `git diff` and
GitHub show them, so the model needs no git. Line numbers are 1-based on each
side.

`ChangeSet.place()` is the one answer every surface reads about a finding's
lines: whether the change touches them (the gate, the text report's `+` mark,
the annotations' order) and where an inline review comment on them can sit
(the review's inline/summary split). The engine stores it on each finding
(`Finding.in_diff`, `Finding.comment_lines`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import field, replace
from typing import Literal

from bot.base.records import dataclass
from bot.core.tree import Tree

MAX_DIFF_LINES = 200_000
# lines of context around each change, as `git diff` and GitHub's patches show them
CONTEXT = 3


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int


@dataclass(frozen=True)
class Placement:
    """Where a finding's head lines stand in the change."""

    # an added or changed line is among them
    changed: bool
    # the head lines (first, last) an inline review comment on them covers: every line
    # when the diff shows them all, the first alone when only it is shown; None when the
    # diff does not show the first (the finding belongs in the summary)
    comment: tuple[int, int] | None


FileStatus = Literal["added", "modified", "deleted"]


@dataclass(frozen=True)
class FileChange:
    path: str
    status: FileStatus
    hunks: tuple[Hunk, ...] = ()
    added_lines: frozenset[int] = frozenset()  # head-side line numbers
    removed_lines: frozenset[int] = frozenset()  # base-side line numbers
    binary: bool = False
    # head-side lines the diff shows (added and context lines): where comments can sit
    shown_lines: frozenset[int] = frozenset()

    @classmethod
    def from_patch(cls, path: str, patch: str, status: FileStatus = "modified") -> FileChange:
        """The change a unified diff without its header (GitHub's `patch`) describes."""
        hunks, added, removed, shown = patch_hunks(patch)
        return cls(path, status, hunks, added, removed, shown_lines=shown)

    def touches(self, line: int, last_line: int | None = None) -> bool:
        """Whether head lines [line, last_line] include an added or changed line."""
        if self.status == "added":
            return True
        return any(n in self.added_lines for n in range(line, (last_line or line) + 1))

    def comment_lines(self, line: int, last_line: int | None = None) -> tuple[int, int] | None:
        """The head lines an inline comment on [line, last_line] covers (`Placement.comment`)."""
        if line not in self.shown_lines:
            return None
        last = last_line or line
        if last > line and all(n in self.shown_lines for n in range(line, last + 1)):
            return (line, last)
        return (line, line)

    def place(self, line: int, last_line: int | None = None) -> Placement:
        return Placement(self.touches(line, last_line), self.comment_lines(line, last_line))


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
        return f is not None and f.touches(line, last_line)

    def place(self, path: str, line: int, last_line: int | None = None) -> Placement:
        """Whether the change touches head lines [line, last_line] of `path`, and where an
        inline review comment on them can sit: the one answer the gate, the review and
        the reporters read."""
        f = self.file(path)
        return f.place(line, last_line) if f is not None else _UNTOUCHED


_UNTOUCHED = Placement(changed=False, comment=None)


def _lines(data: bytes | None) -> list[str] | None:
    if data is None:
        return None
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def _shown(hunks: Iterable[Hunk], head_lines: int) -> frozenset[int]:
    """The head lines a unified diff with `CONTEXT` lines of context shows for `hunks`
    (hunks whose context overlaps merge, as in `git diff`; the union is the same)."""
    out: set[int] = set()
    for h in hunks:
        first = max(1, h.new_start - CONTEXT)
        last = min(head_lines, h.new_start + h.new_count - 1 + CONTEXT)
        out.update(range(first, last + 1))
    return frozenset(out)


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def patch_hunks(
    patch: str,
) -> tuple[tuple[Hunk, ...], frozenset[int], frozenset[int], frozenset[int]]:
    """(hunks, added head lines, removed base lines, shown head lines) of a unified diff
    without its `---`/`+++` header: GitHub's `patch` of a file."""
    hunks: list[Hunk] = []
    added: set[int] = set()
    removed: set[int] = set()
    shown: set[int] = set()
    old = new = 0
    for raw in patch.split("\n"):
        m = _HUNK.match(raw)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            hunks.append(
                Hunk(
                    old,
                    int(m.group(2)) if m.group(2) is not None else 1,
                    new,
                    int(m.group(4)) if m.group(4) is not None else 1,
                )
            )
            continue
        if not hunks or not raw or raw.startswith("\\"):  # "\ No newline at end of file"
            continue
        if raw.startswith("-"):
            removed.add(old)
            old += 1
        elif raw.startswith("+"):
            added.add(new)
            shown.add(new)
            new += 1
        else:  # " " (context)
            shown.add(new)
            old += 1
            new += 1
    return tuple(hunks), frozenset(added), frozenset(removed), frozenset(shown)


def diff_file(
    path: str, old: bytes | None, new: bytes | None, patch: str | None = None
) -> FileChange | None:
    """The change of one path, or None when both sides are equal.

    `patch`: the file's unified diff as GitHub shows it; when given, its hunks are the
    change's (what the pull request's page shows is what the bot calls changed)."""
    if old == new:
        return None
    status: FileStatus
    if old is None:
        status = "added"
    elif new is None:
        status = "deleted"
    else:
        status = "modified"
    a, b = _lines(old), _lines(new)
    if (old is not None and a is None) or (new is not None and b is None):
        return FileChange(path, status, binary=True)
    if patch is not None:
        return FileChange.from_patch(path, patch, status)
    a = a or []
    b = b or []
    if len(a) + len(b) > MAX_DIFF_LINES:
        # too large to diff line by line: every head line counts as changed
        every = frozenset(range(1, len(b) + 1))
        return FileChange(
            path,
            status,
            (Hunk(1, len(a), 1, len(b)),),
            every,
            frozenset(range(1, len(a) + 1)),
            shown_lines=every,
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
    return FileChange(
        path,
        status,
        tuple(hunks),
        frozenset(added),
        frozenset(removed),
        shown_lines=_shown(hunks, len(b)),
    )


def build_changeset(
    base: Tree,
    head: Tree,
    paths: Iterable[str],
    *,
    pr: int | None = None,
    author: str | None = None,
    patches: Mapping[str, str | None] | None = None,
    statuses: Mapping[str, FileStatus] | None = None,
) -> ChangeSet:
    """The change from `base` to `head` over `paths`.

    `patches`: GitHub's `patch` of each file of a pull request. A file with a patch
    takes its hunks from it; a file GitHub shows no patch for (binary, too large, a
    pure rename) keeps difflib's changed lines and shows no line a comment can sit on;
    without `patches` (local git) difflib decides both. `statuses` (added, deleted or
    modified, as the head's path compares with the base's) of files with a patch spare
    reading them: a file no rule reads costs no request however large the PR."""
    named = frozenset(paths)
    files = []
    for path in sorted(named):
        patch = patches.get(path) if patches is not None else None
        status = statuses.get(path) if statuses is not None and patch is not None else None
        if patch and status is not None:
            files.append(FileChange.from_patch(path, patch, status))
            continue
        change = diff_file(path, base.read(path), head.read(path), patch)
        if change is not None and patches is not None and patch is None:
            change = replace(change, shown_lines=frozenset())
        if change is not None:
            files.append(change)
    return ChangeSet(base=base, head=head, files=tuple(files), pr=pr, author=author, named=named)
