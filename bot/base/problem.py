"""What a parser could not read, as data: a kind, its parameters and where. Pure.

Every parser reports the defects of its input this way (the recipe parsers, the
bash interpreter, the changelog and master-config parsers): `kind` names a variant
of the rule that reports the problem (RCP000, CHL000, CFG000) and `params` fill
that variant's placeholders with values, never with sentences. The rule words the
problem from its record in both languages; nothing reads a problem back from prose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Generic, TypeVar

from bot.base.records import dataclass
from bot.base.span import Span

K = TypeVar("K", bound=str, covariant=True)
Kind = TypeVar("Kind", bound=str)

_EMPTY: Mapping[str, str] = {}
_FIRST_LINE = Span(1)


@dataclass(frozen=True)
class Problem(Generic[K]):
    """A defect a parser found. `params` hold values only (a token, a limit, a size,
    the YAML loader's own words as `detail`)."""

    kind: K
    params: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    span: Span = _FIRST_LINE

    @property
    def line(self) -> int:
        return self.span.line

    def key(self) -> tuple[str, int, tuple[tuple[str, str], ...]]:
        """What makes two problems the same report: kind, line and parameters."""
        return (self.kind, self.span.line, tuple(sorted(self.params.items())))


def problem(kind: Kind, line: int = 1, /, **params: str) -> Problem[Kind]:
    """`Problem(kind, params, Span(line))`: the form parsers write."""
    return Problem(kind, params, Span(line))
