"""Resolved strings that remember where each character was written. Pure.

A value such as a `--speculative-config` JSON is assembled by bash from
several places: the assignment of `SPEC_CONFIG`, the assignment of
`SYNTHETIC_ACCEPT_LEN`, a literal in a `VLLM_CMD=( ... )` array. A `Str`
keeps those pieces as segments, each with the line and column where its text
is written, so a finding about any part of the value lands on the line a
reviewer would edit. Parts that cannot be resolved stay symbolic (`unknown`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar, overload

from bot.base.records import dataclass
from bot.base.span import Span

_T = TypeVar("_T")


class _once(Generic[_T]):
    """`functools.cached_property` without its per-instance lock (Python 3.11 takes
    one on every first read, a third of the cost on hot recipe paths)."""

    def __init__(self, fn: Callable[[Any], _T]) -> None:
        self.fn = fn
        self.name = fn.__name__

    @overload
    def __get__(self, obj: None, cls: type) -> _once[_T]: ...
    @overload
    def __get__(self, obj: object, cls: type) -> _T: ...
    def __get__(self, obj: object | None, cls: type) -> _once[_T] | _T:
        if obj is None:
            return self
        value = self.fn(obj)
        obj.__dict__[self.name] = value
        return value


@dataclass(frozen=True, init=False)
class Seg:
    text: str
    line: int = 0  # 1-based; 0 when the text is synthesized (no source position)
    col: int = 1
    unknown: str | None = None  # the unresolved expression, e.g. "$MODEL_PATH"

    # written out, as `Str.__init__`: a frozen dataclass's own sets each field through
    # `object.__setattr__`, twice the cost (a whole-tree lint makes ~90,000 of each)
    def __init__(self, text: str, line: int = 0, col: int = 1, unknown: str | None = None) -> None:
        d = self.__dict__
        d["text"] = text
        d["line"] = line
        d["col"] = col
        d["unknown"] = unknown


@dataclass(frozen=True, eq=False, init=False)
class Str:
    segs: tuple[Seg, ...] = ()

    def __init__(self, segs: tuple[Seg, ...] = ()) -> None:
        self.__dict__["segs"] = segs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Str) and (self is other or self.segs == other.segs)

    def __hash__(self) -> int:
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(self.segs)
            object.__setattr__(self, "_hash", cached)
        return cached

    @staticmethod
    def lit(text: str, line: int = 0, col: int = 1) -> Str:
        return Str((Seg(text, line, col),)) if text else Str()

    @staticmethod
    def unknown_of(expr: str, line: int = 0, col: int = 1) -> Str:
        return Str((Seg(expr, line, col, unknown=expr),))

    @staticmethod
    def join(parts: Iterable[Str], sep: str = "") -> Str:
        segs: list[Seg] = []
        for i, part in enumerate(parts):
            if i and sep:
                segs.append(Seg(sep))
            segs.extend(part.segs)
        return Str(tuple(segs))

    def __add__(self, other: Str) -> Str:
        return Str(self.segs + other.segs)

    # computed once: after the first read the instance's own attribute answers
    @_once
    def text(self) -> str:
        return "".join(s.text for s in self.segs)

    def placeholder_text(self) -> str:
        """The text with each unknown part replaced by `$___` of the same length.

        Offsets stay the same, so positions found in the placeholder text map
        back through `span_at`; use `segs_in` to tell a placeholder apart.
        """
        return "".join(
            ("$" + "_" * (len(s.text) - 1)) if s.unknown is not None and s.text else s.text
            for s in self.segs
        )

    @_once
    def known(self) -> bool:
        return all(s.unknown is None for s in self.segs)

    @property
    def value(self) -> str | None:
        return self.text if self.known else None

    @property
    def unknowns(self) -> list[str]:
        return [s.unknown for s in self.segs if s.unknown is not None]

    @property
    def span(self) -> Span | None:
        """The span of the first positioned segment that carries text."""
        placed = [s for s in self.segs if s.line > 0 and s.text.strip()]
        if not placed:
            placed = [s for s in self.segs if s.line > 0]
        if not placed:
            return None
        first, last = placed[0], placed[-1]
        end_line = last.line if last.line != first.line else None
        return Span(first.line, first.col, end_line, None)

    def span_at(self, start: int, end: int | None = None) -> Span | None:
        """The span of the text at offsets [start, end) of `self.text`."""
        pos = 0
        hit: Seg | None = None
        hit_off = 0
        for seg in self.segs:
            nxt = pos + len(seg.text)
            # synthesized text (line 0) falls through to the next placed segment
            if (start < nxt or (start == nxt and seg is self.segs[-1])) and seg.line > 0:
                hit, hit_off = seg, start - pos
                break
            pos = nxt
        if hit is None:
            # fall back to any placed segment after start, then before
            pos = 0
            for seg in self.segs:
                if seg.line > 0 and pos + len(seg.text) >= start:
                    return Span(seg.line, seg.col)
                pos += len(seg.text)
            return self.span
        if hit.unknown is not None:
            return Span(hit.line, hit.col)
        return Span(hit.line, hit.col + max(0, hit_off))

    def segs_in(self, start: int, end: int) -> list[Seg]:
        out = []
        pos = 0
        for seg in self.segs:
            nxt = pos + len(seg.text)
            if nxt > start and pos < end:
                out.append(seg)
            pos = nxt
        return out

    def split(self) -> list[Str]:
        """Bash word splitting on whitespace of known text (unknown parts never split)."""
        words: list[list[Seg]] = [[]]
        for seg in self.segs:
            if seg.unknown is not None:
                words[-1].append(seg)
                continue
            col = seg.col
            buf = ""
            buf_col = col
            for ch in seg.text:
                if ch in " \t\n":
                    if buf:
                        words[-1].append(Seg(buf, seg.line, buf_col))
                        buf = ""
                    if words[-1]:
                        words.append([])
                    col += 1
                    buf_col = col
                    continue
                if not buf:
                    buf_col = col
                buf += ch
                col += 1
            if buf:
                words[-1].append(Seg(buf, seg.line, buf_col))
        return [Str(tuple(w)) for w in words if w]

    def __repr__(self) -> str:
        return f"Str({self.text!r})"
