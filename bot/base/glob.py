"""Path globs as the target repository's configuration writes them. Pure."""

from __future__ import annotations

import fnmatch


def glob_match(path: str, pattern: str) -> bool:
    """gitignore-ish glob: `**` spans directories, `*` does not cross `/`."""
    if "**" not in pattern:
        return fnmatch.fnmatchcase(path, pattern) and path.count("/") == pattern.count("/")
    return _match_parts(path.split("/"), pattern.split("/"))


def _match_parts(parts: list[str], pats: list[str]) -> bool:
    if not pats:
        return not parts
    if pats[0] == "**":
        return any(_match_parts(parts[i:], pats[1:]) for i in range(len(parts) + 1))
    if not parts:
        return False
    return fnmatch.fnmatchcase(parts[0], pats[0]) and _match_parts(parts[1:], pats[1:])
