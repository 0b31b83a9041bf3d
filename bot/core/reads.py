"""What a lint of one file read, for a cache of lint results. Pure.

A lint of a file reads more than the file: siblings, the master configs and the
recipes their points run, golden curves, the tree's list of paths. A result can be
reused only while all of that is unchanged, so a context that tracks reads
(`Context.for_tree(..., track=True)`) hands rules its trees wrapped in a
`TrackedTree`, which notes each file read (by blob id, or its absence) and each
listing of the tree in the `Reads` being recorded. Views several files share
(`Context.memo`) keep the reads that built them and add them to every file that
uses them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from bot.base.records import dataclass
from bot.base.tree import Tree


@dataclass
class Reads:
    """The inputs a lint read besides the configuration and the code."""

    # (tree name, path) -> blob id, None when the file was absent
    blobs: dict[tuple[str, str], str | None] = field(default_factory=dict)
    # the trees whose list of paths was read (a file added or removed changes it)
    listed: set[str] = field(default_factory=set)
    # whether the review date was read (dated knowledge: deprecations)
    date: bool = False

    def merge(self, other: Reads) -> None:
        self.blobs.update(other.blobs)
        self.listed |= other.listed
        self.date = self.date or other.date


class Recorder:
    """The reads being recorded: innermost first, every level sees what it reads."""

    def __init__(self) -> None:
        self.stack: list[Reads] = []

    def note_blob(self, tree: str, path: str, blob: str | None) -> None:
        for reads in self.stack:
            reads.blobs[(tree, path)] = blob

    def note_listing(self, tree: str) -> None:
        for reads in self.stack:
            reads.listed.add(tree)

    def note_date(self) -> None:
        for reads in self.stack:
            reads.date = True

    def add(self, reads: Reads) -> None:
        for outer in self.stack:
            outer.merge(reads)


class TrackedTree:
    """A tree that notes what is read of it in a `Recorder`, under a name ("head",
    "base", "tip"). Everything else is the inner tree's."""

    def __init__(self, inner: Tree, name: str, recorder: Recorder) -> None:
        self.inner = inner
        self.name = name
        self.recorder = recorder

    def __repr__(self) -> str:
        return f"TrackedTree({self.inner!r}, {self.name!r})"

    def read(self, path: str) -> bytes | None:
        data = self.inner.read(path)
        if self.recorder.stack:
            blob = self.inner.blob_id(path) if data is not None else None
            self.recorder.note_blob(self.name, path, blob)
        return data

    def blob_id(self, path: str) -> str | None:
        blob = self.inner.blob_id(path)
        if self.recorder.stack:
            self.recorder.note_blob(self.name, path, blob)
        return blob

    def paths(self) -> Iterable[str]:
        if self.recorder.stack:
            self.recorder.note_listing(self.name)
        return self.inner.paths()

    def __getattr__(self, name: str) -> Any:
        # `root`, `after_fork`, `close`, ... of the tree it wraps
        return getattr(self.inner, name)


def untracked(tree: Tree) -> Tree:
    """The tree a `TrackedTree` wraps (any other tree as it is)."""
    return tree.inner if isinstance(tree, TrackedTree) else tree
