"""Where something is written in a file. Pure.

Columns are 1-based and count characters (Unicode code points) of the line, the
unit of text output, GitHub annotations and the JSON report. The parsers convert
their own units once, where they read positions (tree-sitter counts UTF-8 bytes);
a reporter whose format counts another unit converts with `column_in`.
"""

from __future__ import annotations

from typing import Literal

from bot.base.records import dataclass


@dataclass(frozen=True, init=False)
class Span:
    """Where something is written: 1-based line and column, inclusive end line."""

    line: int
    col: int = 1
    end_line: int | None = None
    end_col: int | None = None

    # written out: a frozen dataclass's own __init__ sets each field through
    # `object.__setattr__`, twice the cost, and a whole-tree lint makes ~60,000 spans
    def __init__(
        self, line: int, col: int = 1, end_line: int | None = None, end_col: int | None = None
    ) -> None:
        d = self.__dict__
        d["line"] = line
        d["col"] = col
        d["end_line"] = end_line
        d["end_col"] = end_col

    @property
    def last_line(self) -> int:
        return self.end_line or self.line


ColumnUnit = Literal["utf16", "utf8"]


def column_in(line: str | None, col: int, unit: ColumnUnit) -> int:
    """The 1-based character column `col` of `line` counted in `unit`: UTF-16 code
    units (SARIF's `utf16CodeUnits`: a character outside the BMP counts two) or UTF-8
    bytes (reviewdog's rdjson). Characters past the end of `line` (a line that is not
    known, or quoted only in part) count one unit each."""
    if col <= 1 or line is None:
        return max(1, col)
    before = line[: col - 1]
    if before.isascii():
        return col
    beyond = col - 1 - len(before)
    if unit == "utf16":
        units = len(before.encode("utf-16-le", "surrogatepass")) // 2
    else:
        units = len(before.encode("utf-8", "surrogatepass"))
    return units + beyond + 1
