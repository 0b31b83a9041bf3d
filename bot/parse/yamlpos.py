"""YAML with the position of every key and value, for hostile input. Pure.

One pass over the C parser's event stream builds the values (plain scalars
resolved like the safe loader, via `yamlsafe.PlainScalars`) and, for every
mapping, the line and column of each key and value. Anchors and aliases
share one Python object, so an alias bomb stays a small graph; its expanded
size is then measured without expanding it (`yamlsafe.check_shape`). Merge
keys (`<<: *anchor`, `<<: [*a, *b]`) copy the anchored keys with their
positions, so a finding about a merged value lands on the line where it is
written. Nothing here raises: a defect is returned as a `YamlError`.

Mappings are `PosMap` (a dict) with an `lc` like ruamel's round-trip nodes
(`lc.line`, `lc.col`, `lc.key(k)`, `lc.value(k)`, 0-based), so code written
against round-trip YAML reads them unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from bot.parse.yamlevents import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from bot.parse.yamlsafe import (
    NOT_RESOLVED,
    PlainScalars,
    YamlError,
    check_shape,
    refused,
    thread_yaml,
    unreadable,
)

try:  # ruamel's C parser, as `YAML(typ="safe", pure=False)` takes it
    from _ruamel_yaml import CParser
except ImportError:  # pragma: no cover - ruamel.yaml.clib not installed
    CParser = None

MAX_BYTES = 1024 * 1024
MAX_EVENTS = 100_000
MAX_DEPTH = 64


class _LC:
    __slots__ = ("col", "keys", "line", "quoted", "raw", "values")

    def __init__(self, line: int, col: int) -> None:
        self.line = line
        self.col = col
        self.keys: dict[Any, tuple[int, int]] = {}
        self.values: dict[Any, tuple[int, int]] = {}
        self.quoted: set[Any] = set()
        self.raw: dict[Any, str] = {}

    def key(self, k: Any) -> tuple[int, int]:
        return self.keys.get(k, (self.line, self.col))

    def value(self, k: Any) -> tuple[int, int]:
        pos = self.values.get(k)  # the key's position only when the value has none
        return pos if pos is not None else self.keys.get(k, (self.line, self.col))


class PosMap(dict[Any, Any]):
    """A mapping that knows where each key and value is written (0-based)."""

    lc: _LC

    def __init__(self, line: int = 0, col: int = 0) -> None:
        # no `dict.__init__`: with no arguments it does nothing (one per mapping read)
        self.lc = _LC(line, col)

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def key_pos(self, k: Any) -> tuple[int, int]:
        """1-based line and column of key `k`."""
        line, col = self.lc.key(k)
        return line + 1, col + 1

    def raw(self, k: Any) -> str | None:
        """The scalar value of `k` as written (quotes removed), or None."""
        return self.lc.raw.get(k)

    def value_pos(self, k: Any) -> tuple[int, int]:
        """1-based line and column of the first character of `k`'s value text."""
        lc = self.lc
        line, col = lc.value(k)
        return line + 1, col + 2 if k in lc.quoted else col + 1


class PosList(list[Any]):
    """A sequence with the position of each item (0-based)."""

    def __init__(self, line: int = 0, col: int = 0) -> None:
        super().__init__()
        self.line = line
        self.col = col
        self.items: list[tuple[int, int]] = []

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


_MERGE = object()


def load_positioned(text: str, *, label: str = "YAML") -> Any:
    """Load one YAML document with positions; raises YamlError on any defect.

    A duplicate key keeps its last value, as PyYAML (which srtctl reads
    recipes with) does.
    """
    try:
        return _load(text, label, None)
    except YamlError as exc:
        if exc.kind not in _INVALID:
            raise
        first = exc
    # libyaml (YAML 1.1) refuses `{ image: repo/name:tag }`; YAML 1.2 readers
    # take it. Quote such scalars on the lines it names (columns after them
    # shift; lines stay), then fall back to ruamel's slower pure parser.
    fixed = text
    for _ in range(_MAX_REQUOTES):
        line = first.line
        # libyaml's own words for a `:` it does not take in a flow mapping
        if line is None or "unexpected ':'" not in first.params.get("detail", ""):
            break
        rows = fixed.split("\n")
        if not 0 < line <= len(rows):
            break
        quoted = _FLOW_COLON.sub(r'\1"\2"', rows[line - 1])
        if quoted == rows[line - 1]:
            break
        rows[line - 1] = quoted
        fixed = "\n".join(rows)
        try:
            return _load(fixed, label, None)
        except YamlError as exc:
            if exc.kind not in _INVALID:
                raise
            first = exc
    # libyaml refuses some plain scalars YAML 1.2 allows in flow mappings
    # (`{ container: lmsysorg/sglang:nightly }`); ruamel's own parser reads them
    return _load(text, label, thread_yaml("pure"))


_MAX_REQUOTES = 16
# the parser refused the text (as opposed to a bound or a shape this reader refuses)
_INVALID = frozenset({"syntax"})
# `key: value` inside a flow mapping where the plain value holds a `:`
_FLOW_COLON = re.compile(r"([{,]\s*[\w.-]+:\s+)([^\s'\"{}\[\],][^\s{}\[\],]*:[^\s{}\[\],]*)")


def _load(text: str, label: str, loader: YAML | None) -> Any:
    """One document's values with positions; `loader`: ruamel's pure parser, or None
    for the C parser (ruamel's `YAML(typ="safe", pure=False).parse` without the
    loader it builds around the parser for every call, which an event walk never uses)."""
    if len(text) > MAX_BYTES:
        raise refused(
            label,
            "too-large",
            f"{len(text):,} characters is over the {MAX_BYTES:,} limit",
            size=f"{len(text):,}",
            limit=f"{MAX_BYTES:,}",
        )
    if "\x00" in text:
        raise refused(
            label, "nul", "contains NUL bytes", text[: text.index("\x00")].count("\n") + 1
        )
    try:
        if loader is None and CParser is not None:
            events: Iterator[Any] = iter(CParser(text).get_event, None)
        else:
            events = iter((loader or thread_yaml("events")).parse(text))
        root, aliased = _walk(events, label)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = int(mark.line) + 1 if mark is not None else None
        detail = "; ".join(str(x) for x in (exc.context, exc.problem) if x)
        message = f"{label}: invalid YAML: {detail[:300]}"
        raise YamlError(message, where, kind="syntax", params={"detail": detail[:300]}) from exc
    except YamlError:
        raise
    except (YAMLError, RecursionError, ValueError, TypeError, OverflowError) as exc:
        raise unreadable(label, exc) from exc
    if aliased:  # only aliases can make the document larger than its events
        check_shape(root, label)
    return root


_QUOTES = frozenset(("'", '"'))


def _walk(events: Iterator[Any], label: str) -> tuple[Any, bool]:
    """One document's positioned values from the parser's events, and whether an alias
    was met. The open collection's state is in locals; `stack` keeps the enclosing ones'."""
    scalars = PlainScalars()
    known, resolve = scalars.known, scalars.resolve
    anchors: dict[str, Any] = {}
    stack: list[tuple[Any, Any, bool, Any, Any, Any]] = []
    # the open collection (None: none yet), a mapping's `lc` (None: a sequence), whether its
    # next event is a key's value, that key and where it is written, its `<<` keys' values
    cont: Any = None
    lc: _LC | None = None
    has_key = False
    key: Any = None
    key_pos = (0, 0)
    merges: list[Any] | None = None
    root: Any = None
    count = documents = 0
    aliased = False
    for event in events:
        count += 1
        if count > MAX_EVENTS:
            raise _too_many(label)
        cls = type(event)
        collection = False
        if cls is ScalarEvent:
            mark = event.start_mark
            pos = (mark.line, mark.column)
            raw = event.value
            quoted = False
            if event.ctag is None and event.implicit[0]:
                value = known.get(raw, NOT_RESOLVED)
                if value is NOT_RESOLVED:
                    value = resolve(raw)
                    if value is NOT_RESOLVED:
                        value = _MERGE if raw == "<<" else raw
            else:
                value = raw
                quoted = event.style in _QUOTES
            if event.anchor is not None:
                anchors[event.anchor] = value
        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            done, done_merges = cont, merges
            cont, lc, has_key, key, key_pos, merges = stack.pop()
            if done_merges:
                _apply_merges(done, done_merges, label)
            continue
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            pos = (event.start_mark.line, event.start_mark.column)
            value = PosMap(*pos) if cls is MappingStartEvent else PosList(*pos)
            if event.anchor is not None:
                anchors[event.anchor] = value
            raw, quoted, collection = None, False, True
        elif cls is AliasEvent:
            aliased = True
            value, pos = _alias(event, anchors, label)
            raw, quoted = None, False
        elif cls is DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise _second_document(label, event.start_mark.line + 1)
            continue
        else:
            continue
        # put the value where the open collection expects it
        if cont is None:
            root = value
        elif lc is None:  # a sequence
            cont.append(value)
            cont.items.append(pos)
        elif not has_key:  # a mapping's key: its value comes next
            if collection:
                raise refused(label, "shape", "a mapping used as a key", pos[0] + 1)
            key = value
            key_pos = pos
            has_key = True
            continue
        else:
            has_key = False
            if key is _MERGE:
                merges = [*(merges or ()), value]
            else:
                try:
                    cont[key] = value
                except TypeError as exc:
                    raise refused(label, "shape", "unusable mapping key", key_pos[0] + 1) from exc
                lc.keys[key] = key_pos
                lc.values[key] = pos
                if quoted:
                    lc.quoted.add(key)
                if raw is not None:
                    lc.raw[key] = raw
        if collection:
            stack.append((cont, lc, has_key, key, key_pos, merges))
            cont = value
            lc = value.lc if cls is MappingStartEvent else None
            has_key, key, merges = False, None, None
            if len(stack) > MAX_DEPTH:
                raise _too_deep(label, pos[0] + 1)
    return root, aliased


def _alias(event: Any, anchors: dict[str, Any], label: str) -> tuple[Any, tuple[int, int]]:
    """The value an alias names, and where the alias is written."""
    mark = event.start_mark
    if event.anchor not in anchors:
        raise refused(label, "shape", f"alias *{event.anchor} names no anchor", mark.line + 1)
    return anchors[event.anchor], (mark.line, mark.column)


def _too_many(label: str) -> YamlError:
    return refused(
        label,
        "too-many-nodes",
        f"more than {MAX_EVENTS:,} YAML events; not analysed",
        limit=f"{MAX_EVENTS:,}",
    )


def _second_document(label: str, line: int) -> YamlError:
    return refused(label, "shape", "more than one YAML document", line)


def _too_deep(label: str, line: int) -> YamlError:
    what = f"nesting deeper than {MAX_DEPTH} levels"
    return refused(label, "too-deep", what, line, limit=str(MAX_DEPTH))


def _apply_merges(target: Any, merges: list[Any], label: str) -> None:
    """`<<` keys: copy keys the mapping does not set itself, first merge wins."""
    if not isinstance(target, PosMap):
        return
    sources: list[Any] = []
    for merged in merges:
        if isinstance(merged, PosList):
            sources.extend(merged)
        else:
            sources.append(merged)
    for src in sources:
        if not isinstance(src, PosMap):
            raise refused(
                label, "shape", "a merge key (`<<`) must name a mapping", target.lc.line + 1
            )
        for k, v in src.items():
            if k in target:
                continue
            target[k] = v
            target.lc.keys[k] = src.lc.key(k)
            target.lc.values[k] = src.lc.value(k)
            if k in src.lc.quoted:
                target.lc.quoted.add(k)
            if k in src.lc.raw:
                target.lc.raw[k] = src.lc.raw[k]
