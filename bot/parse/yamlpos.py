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
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
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
        return self.values.get(k, self.key(k))


class PosMap(dict[Any, Any]):
    """A mapping that knows where each key and value is written (0-based)."""

    lc: _LC

    def __init__(self, line: int = 0, col: int = 0) -> None:
        super().__init__()
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
        line, col = self.lc.value(k)
        return line + 1, col + 1 + (1 if k in self.lc.quoted else 0)


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


class _Frame:
    __slots__ = ("container", "has_key", "key", "key_pos", "merges")

    def __init__(self, container: Any) -> None:
        self.container = container
        self.key: Any = None
        self.key_pos = (0, 0)
        self.has_key = False
        self.merges: list[Any] = []


_MERGE = object()


def load_positioned(text: str, *, label: str = "YAML") -> Any:
    """Load one YAML document with positions; raises YamlError on any defect.

    A duplicate key keeps its last value, as PyYAML (which srtctl reads
    recipes with) does.
    """
    try:
        return _load(text, label, thread_yaml("events"))
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
            return _load(fixed, label, thread_yaml("events"))
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


def _load(text: str, label: str, loader: YAML) -> Any:
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
    anchors: dict[str, Any] = {}
    scalars = PlainScalars()
    stack: list[_Frame] = []
    root: Any = None
    documents = 0
    count = 0
    aliased = False
    try:
        for event in loader.parse(text):
            count += 1
            if count > MAX_EVENTS:
                raise refused(
                    label,
                    "too-many-nodes",
                    f"more than {MAX_EVENTS:,} YAML events; not analysed",
                    limit=f"{MAX_EVENTS:,}",
                )
            cls = type(event)
            if cls is MappingEndEvent:
                frame = stack.pop()
                _apply_merges(frame, label)
                continue
            if cls is SequenceEndEvent:
                stack.pop()
                continue
            if cls is DocumentStartEvent:
                documents += 1
                if documents > 1:
                    line = int(event.start_mark.line) + 1
                    raise refused(label, "shape", "more than one YAML document", line)
                continue
            if cls not in (ScalarEvent, AliasEvent, MappingStartEvent, SequenceStartEvent):
                continue
            pos = (int(event.start_mark.line), int(event.start_mark.column))
            quoted = False
            raw: str | None = None
            value: Any
            if cls is AliasEvent:
                aliased = True
                if event.anchor not in anchors:
                    raise refused(
                        label, "shape", f"alias *{event.anchor} names no anchor", pos[0] + 1
                    )
                value = anchors[event.anchor]
            elif cls is ScalarEvent:
                raw = event.value
                if event.tag is None and event.implicit[0]:
                    value = scalars.resolve(event.value)
                    if value is NOT_RESOLVED:
                        value = _MERGE if event.value == "<<" else event.value
                else:
                    value = event.value
                    quoted = event.style in ("'", '"')
            elif cls is MappingStartEvent:
                value = PosMap(*pos)
            else:
                value = PosList(*pos)
            anchor = getattr(event, "anchor", None) if cls is not AliasEvent else None
            if anchor is not None:
                anchors[anchor] = value
            parent = stack[-1] if stack else None
            if parent is None:
                root = value
            elif isinstance(parent.container, PosMap) and not parent.has_key:
                if isinstance(value, (PosMap, PosList)) and cls is not AliasEvent:
                    raise refused(label, "shape", "a mapping used as a key", pos[0] + 1)
                parent.key = value
                parent.key_pos = pos
                parent.has_key = True
                continue
            elif isinstance(parent.container, PosMap):
                m: PosMap = parent.container
                parent.has_key = False
                if parent.key is _MERGE:
                    parent.merges.append(value)
                else:
                    try:
                        m[parent.key] = value
                    except TypeError as exc:
                        raise refused(
                            label, "shape", "unusable mapping key", parent.key_pos[0] + 1
                        ) from exc
                    m.lc.keys[parent.key] = parent.key_pos
                    m.lc.values[parent.key] = pos
                    if quoted:
                        m.lc.quoted.add(parent.key)
                    if raw is not None:
                        m.lc.raw[parent.key] = raw
            else:
                lst: PosList = parent.container
                lst.append(value)
                lst.items.append(pos)
            if cls in (MappingStartEvent, SequenceStartEvent):
                stack.append(_Frame(value))
                if len(stack) > MAX_DEPTH:
                    raise refused(
                        label,
                        "too-deep",
                        f"nesting deeper than {MAX_DEPTH} levels",
                        pos[0] + 1,
                        limit=str(MAX_DEPTH),
                    )
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


def _apply_merges(frame: _Frame, label: str) -> None:
    """`<<` keys: copy keys the mapping does not set itself, first merge wins."""
    if not frame.merges or not isinstance(frame.container, PosMap):
        return
    target: PosMap = frame.container
    sources: list[Any] = []
    for merged in frame.merges:
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
