"""JSON with character offsets, tolerant of bash leftovers. Pure.

Flag values such as `--speculative-config "{\\"model\\": \\"$DRAFT\\", ...}"`
are JSON assembled by bash. Parts bash could not resolve stay as `$NAME`
text; this parser accepts such a bare `$...` token as an unknown value.
Each node keeps [start, end) offsets into the text so a key maps back to the
line where it is written.
"""

from __future__ import annotations

from typing import Any

from bot.base.records import dataclass


class UnknownValue:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Unknown({self.text})"


@dataclass
class JNode:
    value: Any  # dict[str, JNode] | list[JNode] | str | float | int | bool | None | UnknownValue
    start: int
    end: int

    def plain(self) -> Any:
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value


class _Fail(Exception):
    pass


MAX_DEPTH = 64


def parse_json(text: str) -> JNode | None:
    """Parse `text` as one JSON value; None when it is not JSON."""
    p = _P(text)
    try:
        p.ws()
        node = p.value(0)
        p.ws()
        if p.i != len(text):
            return None
        return node
    except (_Fail, IndexError, RecursionError, ValueError):
        return None


class _P:
    def __init__(self, s: str) -> None:
        self.s = s
        self.i = 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def value(self, depth: int) -> JNode:
        if depth > MAX_DEPTH:
            raise _Fail()
        s, i = self.s, self.i
        if i >= len(s):
            raise _Fail()
        c = s[i]
        if c == "{":
            return self.obj(depth)
        if c == "[":
            return self.arr(depth)
        if c == '"':
            start = i
            text = self.string()
            return JNode(text, start, self.i)
        if c == "$":
            start = i
            depth_p = 0
            while self.i < len(s):
                ch = s[self.i]
                if ch in "({":
                    depth_p += 1
                elif ch in ")}":
                    if depth_p == 0:
                        break
                    depth_p -= 1
                elif (ch in ",]" and depth_p == 0) or (ch in " \t\r\n" and depth_p == 0):
                    break
                self.i += 1
            return JNode(UnknownValue(s[start : self.i]), start, self.i)
        for lit, val in (("true", True), ("false", False), ("null", None)):
            if s.startswith(lit, i):
                self.i = i + len(lit)
                return JNode(val, i, self.i)
        start = i
        j = i
        while j < len(s) and s[j] in "+-0123456789.eE":
            j += 1
        if j == i:
            raise _Fail()
        raw = s[i:j]
        self.i = j
        try:
            num: Any = int(raw) if raw.lstrip("-").isdigit() else float(raw)
        except ValueError as exc:
            raise _Fail() from exc
        return JNode(num, start, j)

    def string(self) -> str:
        s = self.s
        assert s[self.i] == '"'
        self.i += 1
        out: list[str] = []
        while True:
            if self.i >= len(s):
                raise _Fail()
            ch = s[self.i]
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch == "\\":
                nxt = s[self.i + 1]
                mapping = {
                    "n": "\n",
                    "t": "\t",
                    '"': '"',
                    "\\": "\\",
                    "/": "/",
                    "b": "\b",
                    "f": "\f",
                    "r": "\r",
                }
                if nxt == "u":
                    out.append(chr(int(s[self.i + 2 : self.i + 6], 16)))
                    self.i += 6
                    continue
                out.append(mapping.get(nxt, nxt))
                self.i += 2
                continue
            out.append(ch)
            self.i += 1

    def obj(self, depth: int) -> JNode:
        start = self.i
        self.i += 1
        out: dict[str, JNode] = {}
        self.ws()
        if self.s[self.i] == "}":
            self.i += 1
            return JNode(out, start, self.i)
        while True:
            self.ws()
            if self.s[self.i] != '"':
                raise _Fail()
            key = self.string()
            self.ws()
            if self.s[self.i] != ":":
                raise _Fail()
            self.i += 1
            self.ws()
            out[key] = self.value(depth + 1)
            self.ws()
            if self.s[self.i] == ",":
                self.i += 1
                continue
            if self.s[self.i] == "}":
                self.i += 1
                return JNode(out, start, self.i)
            raise _Fail()

    def arr(self, depth: int) -> JNode:
        start = self.i
        self.i += 1
        out: list[JNode] = []
        self.ws()
        if self.s[self.i] == "]":
            self.i += 1
            return JNode(out, start, self.i)
        while True:
            self.ws()
            out.append(self.value(depth + 1))
            self.ws()
            if self.s[self.i] == ",":
                self.i += 1
                continue
            if self.s[self.i] == "]":
                self.i += 1
                return JNode(out, start, self.i)
            raise _Fail()
