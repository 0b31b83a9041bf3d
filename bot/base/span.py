"""Where something is written in a file. Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """Where something is written: 1-based line and column, inclusive end line."""

    line: int
    col: int = 1
    end_line: int | None = None
    end_col: int | None = None

    @property
    def last_line(self) -> int:
        return self.end_line or self.line
