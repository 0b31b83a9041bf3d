"""What the interpreter keeps per path through a script, and the limits on paths.

A `State` is one path: variables, arrays, exported names, heredoc-written files and
the facts (`Assumption`s) the path took on the environment. `Command` is what the
interpreter reports for each executed simple command; `InterpreterProblem` what it could not
follow.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import field
from typing import Any, Literal

from bot.base.records import dataclass
from bot.parse.values import Seg, Str

MAX_PATHS = 64
# Above this many live paths, paths that hold the same values are joined (they
# keep only the conditions they share), so every distinct value stays checkable.
SOFT_PATHS = 6
# Above this many distinct-valued paths, paths that agree on the variant variables
# are joined: values on which they disagree become unknown instead of multiplying.
VALUE_PATHS = 6
# ... but paths that only a value a watched flag reads tells apart are kept up to this many
SEED_PATHS = 16
MAX_ARRAY = 4096
MAX_TRIM = 4096  # ${X%pat} and friends on longer strings stay unknown
VARIANT_VARS = frozenset({"EVAL_ONLY"})
MAX_CALL_DEPTH = 8
MAX_NODE_DEPTH = 400
# statements run, summed over paths: the largest real recipe (InferenceX at 843c6254f)
# runs 2,801; a hostile script stops here, with a problem, in about a second
MAX_STEPS = 20_000

Value = Str | tuple[Str, ...]


@dataclass(frozen=True)
class Assumption:
    """A condition on an unknown (environment) variable taken by one path."""

    var: str
    op: str  # "eq" | "ne" | "in"; in `State.bounds`: "ge" | "le" (an integer bound)
    value: str  # for "in": the values joined by "|" (a case arm `1|4)`)
    line: int


@dataclass
class State:
    vars: dict[str, Value] = field(default_factory=dict)
    exported: frozenset[str] = frozenset()
    files: dict[str, Str] = field(default_factory=dict)
    assumptions: tuple[Assumption, ...] = ()
    # integer bounds a range test (`[ "$CONC" -le 8 ]`) put on a variable: they keep
    # later tests of it consistent; launches and findings read `assumptions` only
    bounds: tuple[Assumption, ...] = ()
    positional: tuple[Str, ...] = ()
    done: bool = False
    returning: bool = False
    breaking: bool = False
    # facts of the path no later text reads (pruned from `assumptions`/`bounds` so
    # paths can merge): not part of `key()`; merged paths keep the ones they share.
    # They still say under which condition a launch runs (`conditions()`).
    history: tuple[Assumption, ...] = ()

    def conditions(self) -> tuple[Assumption, ...]:
        """Every fact this path took on the environment, in order of the script."""
        out: list[Assumption] = []
        for a in (*self.history, *self.assumptions, *self.bounds):
            if a not in out:
                out.append(a)
        return tuple(sorted(out, key=lambda a: a.line))

    def copy(self) -> State:
        # field by field: `dataclasses.replace` costs several times as much, and
        # every branch of every `if` copies a path
        return State(
            vars=dict(self.vars),
            exported=self.exported,
            files=dict(self.files),
            assumptions=self.assumptions,
            bounds=self.bounds,
            positional=self.positional,
            done=self.done,
            returning=self.returning,
            breaking=self.breaking,
            history=self.history,
        )

    def key(self) -> tuple[Any, ...]:
        return (
            tuple(sorted(self.vars.items())),
            self.exported,
            tuple(sorted(self.files.items())),
            frozenset(self.assumptions),
            frozenset(self.bounds),
            self.positional,
            self.done,
            self.returning,
            self.breaking,
        )

    def same(self, other: State) -> bool:
        """`self.key() == other.key()`, without sorting: dictionaries compare as the
        sorted items do, and copied paths share their values (compared by identity)."""
        return (
            self.done == other.done
            and self.returning == other.returning
            and self.breaking == other.breaking
            and self.vars == other.vars
            and self.exported == other.exported
            and self.files == other.files
            and self.positional == other.positional
            and (
                self.assumptions == other.assumptions
                or frozenset(self.assumptions) == frozenset(other.assumptions)
            )
            and (self.bounds == other.bounds or frozenset(self.bounds) == frozenset(other.bounds))
        )

    def eq_value(self, name: str) -> str | None:
        for a in self.assumptions:
            if a.var == name and a.op == "eq":
                return a.value
        return None

    def ne_values(self, name: str) -> set[str]:
        return {a.value for a in self.assumptions if a.var == name and a.op == "ne"}

    def allowed(self, name: str) -> frozenset[str] | None:
        """The only values the path's `eq`/`in` facts leave for `name`, or None."""
        out: frozenset[str] | None = None
        for a in self.assumptions:
            if a.var != name or a.op not in ("eq", "in"):
                continue
            vals = frozenset([a.value] if a.op == "eq" else a.value.split("|"))
            out = vals if out is None else out & vals
        if out is not None:
            out = out - self.ne_values(name)
        return out

    def value_key(self) -> tuple[Any, ...]:
        """`key()` without the path's conditions: paths equal here hold the same values."""
        return (
            tuple(sorted(self.vars.items())),
            self.exported,
            tuple(sorted(self.files.items())),
            self.positional,
            self.done,
            self.returning,
            self.breaking,
        )

    def interval(self, name: str) -> tuple[int | None, int | None]:
        """The integer range the path's range tests leave for `name` (None: unbounded)."""
        lo: int | None = None
        hi: int | None = None
        for b in self.bounds:
            if b.var != name:
                continue
            v = int(b.value)
            if b.op == "ge":
                lo = v if lo is None else max(lo, v)
            else:
                hi = v if hi is None else min(hi, v)
        return lo, hi

    def assume(self, facts: Iterable[Assumption]) -> None:
        """Record what taking an arm tells: range bounds apart from the rest."""
        for a in facts:
            if a.op in ("ge", "le"):
                self.bounds += (a,)
            else:
                self.assumptions += (a,)


@dataclass
class Command:
    """An executed simple command, fully expanded as far as possible."""

    words: list[Str]
    inline_env: dict[str, Str]
    state: State
    line: int
    end_line: int
    background: bool = False
    stdin: Str | None = None  # the heredoc fed to it (`python3 - <<'EOF'`)
    redirect_to: Str | None = None  # the file its stdout is written to (`>`, `>>`)


# what the interpreter reports it could not follow (variants of RCP000)
InterpreterProblem = Literal["too_complex", "too_deep", "too_many_paths", "array_too_long", "eval"]


class Budget(Exception):
    pass


# what the interpreter stores for an input's default (`param_expansion`): text `d`,
# unknown `${V:-d}`; for an alternative, unknown and text `${V:+x}`; for `$V`, `$V`
_HELD = re.compile(r"\$\{([A-Za-z_]\w*)(:?[-=+])(.*)\}", re.S)


def held_input(seg: Seg) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """The input and expansion an unknown value stands for, when it is one of an input's
    defaults or alternatives (`M=${V:-d}` holds `${V:-d}`); else None."""
    unknown = seg.unknown
    if unknown is None or not unknown.startswith("${"):
        return None  # `$V`, `$(...)`: most unknowns, told apart without the pattern
    m = _HELD.fullmatch(unknown)
    if m is None:
        return None
    name, op, arg = m.group(1), m.group(2), m.group(3)
    if op in (":+", "+"):
        # stored as written: only a literal alternative is known
        if seg.text != seg.unknown or any(ch in arg for ch in "$`\"'\\"):
            return None
    elif seg.text != arg:
        return None
    return name, ((op, arg),)


def held_inputs(st: State) -> set[str]:
    """The inputs whose defaults or alternatives the path's variables hold."""
    out: set[str] = set()
    for v in st.vars.values():
        if isinstance(v, Str) and len(v.segs) == 1 and v.segs[0].unknown is not None:
            held = held_input(v.segs[0])
            if held is not None:
                out.add(held[0])
    return out
