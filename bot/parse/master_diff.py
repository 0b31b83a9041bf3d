"""What a pull request changes inside one master-config entry. Pure.

`entry_diff(before, after, fields)` compares the parsed values of an entry in
the base and the head and sorts every difference into one of three kinds:

- `removed`: points, scenarios or list items the head no longer has, and
  nothing else about them changed (the sweep cannot select what is gone);
- `benchmark`: a value under a field that can change benchmark results (one of
  `fields`, the target repository's list), or a point or scenario the head adds;
- `metadata`: any other field's value (descriptive metadata such as a worker's
  `hardware` or a `router` version).

List items are paired in order (difflib over their canonical texts); items of a
replaced run are compared pairwise, so a field added to every point of a list
is a change of that field, not a new point.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection, Hashable, Iterator, Mapping
from typing import Any, Literal

from bot.base.records import dataclass

Kind = Literal["removed", "benchmark", "metadata"]

MAX_DEPTH = 32
MAX_ITEMS = 5000


@dataclass(frozen=True)
class Difference:
    kind: Kind
    path: tuple[Hashable, ...]  # from the entry's top: keys and list indices (head side)

    @property
    def field(self) -> str | None:
        """The field whose value differs: the keys after the path's last list index
        (`router.version`, `prefill.hardware`, `image`); None for a list item itself."""
        keys: list[str] = []
        for step in reversed(self.path):
            if not isinstance(step, str):
                break
            keys.append(step)
        return ".".join(reversed(keys)) or None

    @property
    def scenario(self) -> str | None:
        """The scenario (`fixed-seq-len`, `agentic-coding`) it lies in; None above them."""
        if len(self.path) >= 2 and self.path[0] == "scenarios":
            return str(self.path[1])
        return None


@dataclass(frozen=True)
class _Rules:
    fields: frozenset[str]
    point_lists: frozenset[str]


def entry_diff(
    before: Any,
    after: Any,
    fields: Collection[str],
    point_lists: Collection[str] = (),
    renamed: Mapping[str, str] | None = None,
) -> list[Difference]:
    """Every difference between an entry's base value and its head value.

    `fields`: the keys whose values can change benchmark results; `point_lists`:
    lists of plain values whose items are points (dropping one removes a point);
    `renamed`: entry keys the repository moved (old key -> new dotted path), whose
    value at the old place is compared as the same value at the new one.
    """
    if renamed:
        before, after = _moved(before, renamed), _moved(after, renamed)
    out: list[Difference] = []
    _diff(before, after, (), _Rules(frozenset(fields), frozenset(point_lists)), out, 0)
    return out


def _moved(entry: Any, renamed: Mapping[str, str]) -> Any:
    """`entry` with each renamed key's value at its new place (where that is free)."""
    if not isinstance(entry, dict):
        return entry
    out = dict(entry)
    for old, new in renamed.items():
        *parents, last = new.split(".")
        node: Any = out
        for step in parents:
            node = node.get(step, {}) if isinstance(node, dict) else None
        if old not in out or not isinstance(node, dict) or last in node:
            continue
        node = out
        for step in parents:  # copy the path down, so the parsed entry stays as it was
            node[step] = dict(node.get(step, {}))
            node = node[step]
        node[last] = out.pop(old)
    return out


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _listed(path: tuple[Hashable, ...], rules: _Rules) -> bool:
    return any(isinstance(step, str) and step in rules.fields for step in path)


def _mentions(value: Any, rules: _Rules, depth: int = 0) -> bool:
    """Whether a value added or dropped as a whole holds a benchmark field."""
    if depth > MAX_DEPTH:
        return True
    if isinstance(value, dict):
        return any(
            (isinstance(k, str) and k in rules.fields) or _mentions(v, rules, depth + 1)
            for k, v in value.items()
        )
    if isinstance(value, list):
        return any(_mentions(v, rules, depth + 1) for v in value[:MAX_ITEMS])
    return False


def _changed(path: tuple[Hashable, ...], rules: _Rules, *values: Any) -> Difference:
    """A changed value at `path` (`values`: what was there or is there now, when a
    whole mapping or list came or went)."""
    touches = _listed(path, rules) or any(_mentions(v, rules) for v in values)
    return Difference("benchmark" if touches else "metadata", path)


def _added(path: tuple[Hashable, ...], value: Any, rules: _Rules) -> Difference:
    """A value the head adds at `path`: a new point or scenario, or a new field."""
    if isinstance(value, (dict, list)) and not _is_field(path):
        return Difference("benchmark", path)  # a point, a seq-len block, a scenario
    return _changed(path, rules, value)


def _is_field(path: tuple[Hashable, ...]) -> bool:
    """Whether `path` names a field of a point or an entry (a key, not a list item
    or a scenario name)."""
    if not path or not isinstance(path[-1], str):
        return False
    return not (len(path) == 2 and path[0] == "scenarios")


def _diff(
    a: Any,
    b: Any,
    path: tuple[Hashable, ...],
    rules: _Rules,
    out: list[Difference],
    depth: int,
) -> None:
    if a == b and type(a) is type(b):
        return
    if depth > MAX_DEPTH:
        out.append(_changed(path, rules))
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key not in b:
                out.append(
                    Difference("removed", (*path, key))
                    if not _is_field((*path, key))
                    else _changed((*path, key), rules, a[key])
                )
        for key, value in b.items():
            if key not in a:
                out.append(_added((*path, key), value, rules))
            else:
                _diff(a[key], value, (*path, key), rules, out, depth + 1)
        return
    if isinstance(a, list) and isinstance(b, list):
        out.extend(_list_diff(a, b, path, rules, depth))
        return
    out.append(_changed(path, rules, a, b))


def _list_diff(
    a: list[Any],
    b: list[Any],
    path: tuple[Hashable, ...],
    rules: _Rules,
    depth: int,
) -> Iterator[Difference]:
    if len(a) + len(b) > MAX_ITEMS:
        yield _changed(path, rules)
        return
    matcher = difflib.SequenceMatcher(None, [_canonical(x) for x in a], [_canonical(x) for x in b])
    if not any(isinstance(x, (dict, list)) for x in (*a, *b)):
        # a list of plain values is one field's value (`additional-settings`); only
        # dropping items of a list of points (`conc-list`) removes points
        points = bool(path) and path[-1] in rules.point_lists
        for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes():
            if tag == "delete" and points:
                yield Difference("removed", (*path, j1))
            elif tag != "equal":
                yield _changed(path, rules)
        return
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        # pair the items of a replaced run in order; the rest are added or removed
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(pairs):
            nested: list[Difference] = []
            _diff(a[i1 + k], b[j1 + k], (*path, j1 + k), rules, nested, depth + 1)
            yield from nested
        for j in range(j1 + pairs, j2):
            yield _added((*path, j), b[j], rules)
        if i2 - i1 > pairs:
            yield Difference("removed", (*path, j1 + pairs))
