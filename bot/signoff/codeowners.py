"""`.github/CODEOWNERS`: who owns a path. Pure.

GitHub's rules, as its documentation states them:

- one pattern and its owners per line; `#` starts a comment (also after the
  owners); owners are `@user`, `@org/team` or an e-mail address;
- the LAST matching line wins and owners never accumulate; a matching line
  without owners leaves the path without an owner;
- patterns are gitignore-style and case-sensitive: a leading `/` or a `/`
  inside anchors the pattern at the root, otherwise it matches at any depth;
  a pattern naming a directory owns everything under it; `*` does not cross
  `/`, `**` does; `docs/*` owns the files directly in `docs/` but not
  `docs/a/b.md` (GitHub departs from gitignore here); `!` negation and
  `[...]` ranges are not supported by GitHub, so such lines never match.

A "catch-all" line is one whose pattern matches every path (`*`, `**`, `/**`,
`/`). A path whose owning line is the catch-all has no specific owner: any
CODEOWNER may sign for it. A path owned by any other line is *specific*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from bot.base.records import dataclass

MAX_LINES = 5_000
CATCH_ALL = frozenset({"*", "**", "/*", "/**", "/"})
_OWNER = re.compile(r"^@[A-Za-z0-9](?:[A-Za-z0-9_.-]*)(?:/[A-Za-z0-9_.-]+)?$|^[^@\s]+@[^@\s]+$")


@dataclass(frozen=True)
class Rule:
    line: int
    pattern: str
    owners: tuple[str, ...]  # as written: "@user", "@org/team", "a@b.c"

    @property
    def catch_all(self) -> bool:
        return self.pattern in CATCH_ALL

    @property
    def teams(self) -> tuple[str, ...]:
        return tuple(o for o in self.owners if o.startswith("@") and "/" in o)

    @property
    def users(self) -> tuple[str, ...]:
        return tuple(o[1:] for o in self.owners if o.startswith("@") and "/" not in o)


@dataclass(frozen=True)
class Codeowners:
    rules: tuple[Rule, ...]

    def rule_for(self, path: str) -> Rule | None:
        """The line that owns `path` (the last matching one), or None."""
        for rule in reversed(self.rules):
            if matches(rule.pattern, path):
                return rule
        return None

    def owners_of(self, path: str) -> tuple[str, ...]:
        rule = self.rule_for(path)
        return rule.owners if rule else ()

    def all_users(self) -> set[str]:
        return {u.lower() for r in self.rules for u in r.users}

    def all_teams(self) -> list[str]:
        return _unique(t for r in self.rules for t in r.teams)


def parse_codeowners(text: str) -> Codeowners:
    rules: list[Rule] = []
    for no, raw in enumerate(text.splitlines()[:MAX_LINES], 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"\s#.*$", "", line)  # an inline comment
        parts = line.split()
        pattern, owners = parts[0], tuple(p for p in parts[1:] if _OWNER.match(p))
        rules.append(Rule(no, pattern, owners))
    return Codeowners(tuple(rules))


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str] | None:
    if pattern.startswith("!") or "[" in pattern or "\\" in pattern:
        return None  # unsupported by GitHub: the line matches nothing
    if pattern in CATCH_ALL:
        return re.compile(r"^.+$", re.S)
    directory = pattern.endswith("/")
    body = pattern.strip("/")
    anchored = pattern.startswith("/") or "/" in body
    parts = body.split("/")
    out: list[str] = []
    for i, part in enumerate(parts):
        final = i == len(parts) - 1
        if part == "**":
            if final:
                out.append(".*")
            else:
                out.append("(?:[^/]+/)*")
            continue
        piece = "".join(
            "[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in part
        )
        out.append(piece if final else piece + "/")
    regex = "".join(out)
    last = parts[-1]
    wild_last = last != "**" and ("*" in last or "?" in last) and len(parts) > 1
    if directory:
        tail = "/.+"
    elif wild_last:
        tail = ""  # `docs/*`: direct children only
    else:
        tail = "(?:/.+)?"
    prefix = "^" if anchored else "^(?:.+/)?"
    return re.compile(prefix + regex + tail + "$", re.S)


def matches(pattern: str, path: str) -> bool:
    regex = _regex(pattern)
    return regex is not None and regex.match(path.strip("/")) is not None


# ------------------------------------------------------------------ for the service


def required_teams(
    codeowners_text: str, paths: Iterable[str], *, signer: str | None = None
) -> set[str]:
    """The teams (`@org/team`, as written) whose membership decides who may sign for `paths`.

    The teams on each path's owning line; and when a path is owned only by the
    catch-all (or by no line), every team named anywhere in the file, since a
    member of any of them is a CODEOWNER. With `signer`, lines that list the
    signer directly need no team: a caller asks only what it must.
    """
    owners = parse_codeowners(codeowners_text)
    me = signer.lower() if signer else None
    out: list[str] = []
    needs_any = False
    for path in paths:
        rule = owners.rule_for(path)
        if rule is None or rule.catch_all or not rule.owners:
            needs_any = True
            continue
        if me is not None and me in {u.lower() for u in rule.users}:
            continue
        out.extend(rule.teams)
    if needs_any and not (me is not None and me in owners.all_users()):
        out.extend(owners.all_teams())
    return set(_unique(out))
