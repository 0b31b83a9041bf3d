"""A read-only view of a repository at one revision. Pure interface.

The CLI backs it with the file system or git objects (`bot.sources`), tests
with a dict, the webhook later with the GitHub API. Rules see only this.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Protocol


class Tree(Protocol):
    def read(self, path: str) -> bytes | None:
        """The file's bytes, or None when it does not exist."""

    def paths(self) -> Iterable[str]:
        """Every file path, `/`-separated, relative to the repository root."""

    def blob_id(self, path: str) -> str | None:
        """A content id (git blob SHA when known) used to cache parses."""


def content_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


class MemoryTree:
    """A tree held in memory: tests, rule examples, and PR views."""

    def __init__(self, files: Mapping[str, str | bytes]) -> None:
        self._files = {
            p.strip("/"): (v.encode() if isinstance(v, str) else v) for p, v in files.items()
        }

    def read(self, path: str) -> bytes | None:
        return self._files.get(path.strip("/"))

    def paths(self) -> Iterable[str]:
        return sorted(self._files)

    def blob_id(self, path: str) -> str | None:
        data = self.read(path)
        return None if data is None else content_id(data)
