"""A `Tree` (bot.core.tree) read lazily from GitHub through a `Gateway`.

Nothing is fetched until asked for. `paths()` costs one recursive tree listing;
`read()` one contents (or blob) request per file, remembered; `blob_id()` of a
file already read is its git blob SHA computed locally, so asking for the id
of what the engine reads costs no request. Several trees (base and head of one
PR) can share `blobs`, a cache keyed by blob SHA: an unchanged file whose id is
known is then fetched once.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping

from bot.core.tree import Tree, content_id
from bot.github.types import Gateway


class GitHubTree:
    def __init__(
        self,
        gateway: Gateway,
        repo: str,
        ref: str,
        *,
        blobs: MutableMapping[str, bytes] | None = None,
    ) -> None:
        self.gateway = gateway
        self.repo = repo
        self.ref = ref
        self._blobs: MutableMapping[str, bytes] = {} if blobs is None else blobs
        self._paths: list[str] | None = None
        self._path_set: frozenset[str] = frozenset()
        self._data: dict[str, bytes | None] = {}
        self._ids: dict[str, str | None] = {}

    def paths(self) -> Iterable[str]:
        if self._paths is None:
            self._paths = sorted(self.gateway.tree_paths(self.repo, self.ref))
            self._path_set = frozenset(self._paths)
        return list(self._paths)

    def read(self, path: str) -> bytes | None:
        key = path.strip("/")
        if key in self._data:
            return self._data[key]
        if self._paths is not None and key not in self._path_set:
            self._data[key] = None  # the listing says it is not there
            return None
        known = self._ids.get(key)
        data = self._blobs.get(known) if known else None
        if data is None:
            data = self.gateway.read(self.repo, key, self.ref)
        self._data[key] = data
        if data is not None:
            blob = content_id(data)
            self._ids[key] = blob
            self._blobs[blob] = data
        else:
            self._ids[key] = None
        return data

    def blob_id(self, path: str) -> str | None:
        key = path.strip("/")
        if key in self._ids:
            return self._ids[key]
        if key in self._data:  # read as missing
            return None
        blob = self.gateway.blob_id(self.repo, key, self.ref)
        self._ids[key] = blob
        return blob


def _conforms(tree: GitHubTree) -> Tree:
    return tree  # mypy checks that GitHubTree implements the Protocol
