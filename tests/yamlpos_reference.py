"""The event walk of `bot.parse.yamlpos` as it was before the walk was rewritten for
speed (commit b5e351b), kept as the oracle `tests/test_yamlpos_walk.py` holds the new
walk to: the same values, positions, source texts and errors on every input.

It drives ruamel's parser through `YAML.parse` and builds values with its own
`PosMap` / `PosList` (read through their public methods when compared). Not used by
the bot.
"""

from __future__ import annotations

import re
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
    builder = _Builder(label)
    try:
        for event in loader.parse(text):
            builder.feed(event)
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
    if builder.aliased:  # only aliases can make the document larger than its events
        check_shape(builder.root, label)
    return builder.root


_NODE_EVENTS = (ScalarEvent, AliasEvent, MappingStartEvent, SequenceStartEvent)


class _Builder:
    """Builds one document's positioned values from the parser's events."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.anchors: dict[str, Any] = {}
        self.scalars = PlainScalars()
        self.stack: list[_Frame] = []
        self.root: Any = None
        self.documents = 0
        self.count = 0
        self.aliased = False

    def feed(self, event: Any) -> None:
        self.count += 1
        if self.count > MAX_EVENTS:
            raise refused(
                self.label,
                "too-many-nodes",
                f"more than {MAX_EVENTS:,} YAML events; not analysed",
                limit=f"{MAX_EVENTS:,}",
            )
        cls = type(event)
        if cls is MappingEndEvent:
            _apply_merges(self.stack.pop(), self.label)
            return
        if cls is SequenceEndEvent:
            self.stack.pop()
            return
        if cls is DocumentStartEvent:
            self.documents += 1
            if self.documents > 1:
                line = int(event.start_mark.line) + 1
                raise refused(self.label, "shape", "more than one YAML document", line)
            return
        if cls not in _NODE_EVENTS:
            return
        pos = (int(event.start_mark.line), int(event.start_mark.column))
        value, quoted, raw = self._value(event, cls, pos)
        anchor = getattr(event, "anchor", None) if cls is not AliasEvent else None
        if anchor is not None:
            self.anchors[anchor] = value
        if not self._attach(value, cls is AliasEvent, pos, quoted, raw):
            return
        if cls in (MappingStartEvent, SequenceStartEvent):
            self.stack.append(_Frame(value))
            if len(self.stack) > MAX_DEPTH:
                raise refused(
                    self.label,
                    "too-deep",
                    f"nesting deeper than {MAX_DEPTH} levels",
                    pos[0] + 1,
                    limit=str(MAX_DEPTH),
                )

    def _value(self, event: Any, cls: type, pos: tuple[int, int]) -> tuple[Any, bool, str | None]:
        """The event's value, whether it is a quoted scalar, and its source text."""
        if cls is AliasEvent:
            self.aliased = True
            if event.anchor not in self.anchors:
                raise refused(
                    self.label, "shape", f"alias *{event.anchor} names no anchor", pos[0] + 1
                )
            return self.anchors[event.anchor], False, None
        if cls is ScalarEvent:
            if event.tag is None and event.implicit[0]:
                value = self.scalars.resolve(event.value)
                if value is NOT_RESOLVED:
                    value = _MERGE if event.value == "<<" else event.value
                return value, False, event.value
            return event.value, event.style in ("'", '"'), event.value
        if cls is MappingStartEvent:
            return PosMap(*pos), False, None
        return PosList(*pos), False, None

    def _attach(
        self, value: Any, alias: bool, pos: tuple[int, int], quoted: bool, raw: str | None
    ) -> bool:
        """Put `value` where the open collection expects it; False when it is a key
        (whose value comes next)."""
        parent = self.stack[-1] if self.stack else None
        if parent is None:
            self.root = value
            return True
        container = parent.container
        if isinstance(container, PosMap) and not parent.has_key:
            if isinstance(value, (PosMap, PosList)) and not alias:
                raise refused(self.label, "shape", "a mapping used as a key", pos[0] + 1)
            parent.key = value
            parent.key_pos = pos
            parent.has_key = True
            return False
        if isinstance(container, PosMap):
            parent.has_key = False
            if parent.key is _MERGE:
                parent.merges.append(value)
            else:
                self._set(container, parent, value, pos, quoted, raw)
            return True
        container.append(value)
        container.items.append(pos)
        return True

    def _set(
        self,
        m: PosMap,
        parent: _Frame,
        value: Any,
        pos: tuple[int, int],
        quoted: bool,
        raw: str | None,
    ) -> None:
        try:
            m[parent.key] = value
        except TypeError as exc:
            raise refused(
                self.label, "shape", "unusable mapping key", parent.key_pos[0] + 1
            ) from exc
        m.lc.keys[parent.key] = parent.key_pos
        m.lc.values[parent.key] = pos
        if quoted:
            m.lc.quoted.add(parent.key)
        if raw is not None:
            m.lc.raw[parent.key] = raw


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
