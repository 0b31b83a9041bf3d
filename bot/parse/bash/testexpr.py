"""Test expressions (`[ ... ]`, `[[ ... ]]`, `test ...`, `(( ... ))`) read as bash reads them.

`Test` is one test as a small tree; `parse_test_words` reads the words of `[`
and `test` by bash's rules; `Operand` is a word that is an input's value through
default or alternative expansions. The helpers here decide comparisons over values
and what a path's facts leave of a variable. Pure.
"""

from __future__ import annotations

import fnmatch
import re

from tree_sitter import Node

from bot.base.records import dataclass
from bot.parse.bash.arith import to_int
from bot.parse.bash.state import Assumption, State

# op -> truth -> (bound, offset): the inclusive bound an arm of `[ "$X" op N ]` puts on X
RANGE: dict[str, dict[bool, tuple[str, int]]] = {
    "-gt": {True: ("ge", 1), False: ("le", 0)},
    "-ge": {True: ("ge", 0), False: ("le", -1)},
    "-lt": {True: ("le", -1), False: ("ge", 0)},
    "-le": {True: ("le", 0), False: ("ge", 1)},
}


def within_bounds(st: State, var: str, op: str, n: int) -> bool | None:
    """`[ "$var" op n ]` on this path, from its range bounds and `-ne` facts; None: either."""
    lo, hi = st.interval(var)
    if lo is None and hi is None:
        return None
    lo_, hi_ = (lo if lo is not None else -(1 << 62)), (hi if hi is not None else 1 << 62)
    if lo_ > hi_:
        return None  # contradictory bounds: leave the path to the other tests
    if op == "-eq":
        return False if not lo_ <= n <= hi_ else (True if lo_ == hi_ == n else None)
    if op == "-ne":
        return True if not lo_ <= n <= hi_ else (False if lo_ == hi_ == n else None)
    if op == "-gt":
        return True if lo_ > n else (False if hi_ <= n else None)
    if op == "-ge":
        return True if lo_ >= n else (False if hi_ < n else None)
    if op == "-lt":
        return True if hi_ < n else (False if lo_ >= n else None)
    return True if hi_ <= n else (False if lo_ > n else None)  # -le


def and_(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return None


def or_(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return None


# ---------------------------------------------------------- test expressions
# (see `conditions.Conditions`) A word of `[`/`test`: its literal text when it
# is a plain word or an operator, and its node when it is an operand.
TestWord = tuple[str | None, Node | None]

# fmt: off
UNARY_TESTS = frozenset({
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-n", "-o", "-p", "-r",
    "-s", "-t", "-u", "-v", "-w", "-x", "-z", "-G", "-L", "-N", "-O", "-R", "-S",
})
# fmt: on
NUMERIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
BINARY_TESTS = frozenset({"=", "==", "!=", "<", ">", "-nt", "-ot", "-ef"}) | NUMERIC_TESTS
# `(( a op b ))` comparisons as test operators
ARITH_TESTS = {"==": "-eq", "!=": "-ne", "<": "-lt", "<=": "-le", ">": "-gt", ">=": "-ge"}
# `a op b` read as `b op' a`
FLIP = {"-eq": "-eq", "-ne": "-ne", "-lt": "-gt", "-le": "-ge", "-gt": "-lt", "-ge": "-le"}
# the expansions an operand may go through: none, a default, an assigned default,
# an alternative (each with `:`: also when the value is empty)
DEFAULT_OPS = frozenset({"", ":-", "-", ":=", "=", ":+", "+"})
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a class of values standing for every value of an input that no literal of the
# test names (so never "", and equal to none of them)
OTHER = "\x00other"


@dataclass(frozen=True)
class Test:
    """One test of `[`, `[[` or `test`, as bash reads it.

    `op` is "!", "&&", "||", "const" (`[ ]`), "" (a lone word: true when not
    empty), or a unary or binary operator over `words` (operand nodes, or literal
    text where an operator word stands as an operand)."""

    op: str
    words: tuple[Node | str, ...] = ()
    parts: tuple[Test, ...] = ()
    double: bool = False  # `[[`: no word splitting; an unquoted right side is a pattern
    # `[`/`test` with this test as all of it: a word that expands to nothing unquoted
    # leaves a shorter test bash still reads (`[ -n $V ]` is `[ -n ]`, true)
    top: bool = False
    value: bool = False  # of "const"
    line: int = 0


@dataclass(frozen=True)
class Operand:
    """A test word that is the value of input `var` through `ops`, innermost first:
    `("", "")` reads it, `(":-", "d")` defaults it, ... (`DEFAULT_OPS`)."""

    var: str
    ops: tuple[tuple[str, str], ...]
    quoted: bool

    def outputs(self, value: str) -> frozenset[str]:
        """What the word expands to when `var` is `value` ("" stands for unset or
        empty, as in `env_domains`; `OTHER` for any value no literal names)."""
        vals: set[str | None] = {None, ""} if value == "" else {value}
        for op, arg in self.ops or (("", ""),):
            vals = {_apply_op(op, arg, v) for v in vals}
        return frozenset("" if v is None else v for v in vals)


def _apply_op(op: str, arg: str, v: str | None) -> str:
    """`${V<op>arg}` when V is `v` (None: unset). The result is a set value."""
    if op in (":-", ":="):
        return v or arg
    if op in ("-", "="):
        return arg if v is None else v
    if op == ":+":
        return arg if v else ""
    if op == "+":
        return "" if v is None else arg
    return v or ""


def normal_ops(ops: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """Drop the expansions that leave every value as it is (`$V`, `${V:-}`)."""
    return tuple((op, arg) for op, arg in ops if op not in ("", ":-", "-", ":=", "=") or arg)


def unquoted(w: Node | str) -> bool:
    return not isinstance(w, str) and w.type not in (
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
    )


def compare(op: str, a: int, b: int) -> bool:
    return {
        "-eq": a == b,
        "-ne": a != b,
        "-lt": a < b,
        "-le": a <= b,
        "-gt": a > b,
        "-ge": a >= b,
    }[op]


def implied(facts: list[Assumption], classes: frozenset[str]) -> frozenset[str]:
    """The classes `facts` leave (`OTHER` stays unless an `eq`/`in` fact pins the value)."""
    out = set(classes)
    for a in facts:
        if a.op == "eq":
            out &= {a.value}
        elif a.op == "ne":
            out.discard(a.value)
        elif a.op == "in":
            out &= set(a.value.split("|"))
        elif a.op in ("ge", "le"):
            n = int(a.value)
            out = {
                k
                for k in out
                if (v := to_int(k)) is None or k == OTHER or (v >= n if a.op == "ge" else v <= n)
            }
    return frozenset(out)


def case_match(out: str, patterns: list[str | None]) -> bool | None:
    """Whether a `case` arm's patterns match the subject `out` (None: may or may not)."""
    got: bool | None = False
    for p in patterns:
        if p is None:
            got = None
        elif out == OTHER:
            if p == "*":
                return True
            if any(ch in p for ch in "*?["):
                got = None
        elif fnmatch.fnmatchcase(out, p):
            return True
    return got


class _Unread(Exception):
    pass


def parse_test_words(words: list[TestWord], line: int) -> Test | None:
    """The `Test` of the words of `[ ... ]` or `test ...`, as bash's `test` reads them:
    by the number of words up to four (POSIX), by precedence (`-o` < `-a` < `!`)
    beyond. None: a test bash would reject, or one this reading does not follow."""
    reader = _TestReader(words, line)
    fixed = reader.positional(0, len(words), True)
    if fixed is not None or len(words) <= 3:
        return fixed
    try:
        out = reader.disjunction()
    except _Unread:
        return None
    return out if reader.pos == len(words) else None


class _TestReader:
    """The words of one `[`/`test`, read by count (`positional`) or by precedence."""

    def __init__(self, words: list[TestWord], line: int) -> None:
        self.words = words
        self.line = line
        self.pos = 0  # the precedence reading's next word

    def lit(self, i: int) -> str | None:
        return self.words[i][0]

    def word(self, i: int) -> Node | str:
        text, node = self.words[i]
        return node if node is not None else (text or "")

    def positional(self, lo: int, hi: int, top: bool) -> Test | None:
        """POSIX's reading of 0 to 4 words, `words[lo:hi]`."""
        lit, word, line = self.lit, self.word, self.line
        n = hi - lo
        if n == 0:
            return Test("const", value=False, line=line)
        if n == 1:
            return Test("", words=(word(lo),), top=top, line=line)
        if n == 2:
            if lit(lo) == "!":
                return self._negated(lo + 1, hi)
            if lit(lo) in UNARY_TESTS:
                return Test(str(lit(lo)), words=(word(lo + 1),), top=top, line=line)
            return None
        if n == 3:
            mid = lit(lo + 1)
            if mid in BINARY_TESTS:
                return Test(mid, words=(word(lo), word(lo + 2)), top=top, line=line)
            if mid in ("-a", "-o"):
                a = Test("", words=(word(lo),), line=line)
                b = Test("", words=(word(lo + 2),), line=line)
                return Test("&&" if mid == "-a" else "||", parts=(a, b), line=line)
            if lit(lo) == "!":
                return self._negated(lo + 1, hi)
            if lit(lo) == "(" and lit(hi - 1) == ")":
                return Test("", words=(word(lo + 1),), line=line)
            return None
        if n == 4:
            if lit(lo) == "!":
                return self._negated(lo + 1, hi)
            if lit(lo) == "(" and lit(hi - 1) == ")":
                return self.positional(lo + 1, hi - 1, False)
        return None

    def _negated(self, lo: int, hi: int) -> Test | None:
        inner = self.positional(lo, hi, False)
        return Test("!", parts=(inner,), line=self.line) if inner is not None else None

    def peek(self) -> str | None:
        return self.lit(self.pos) if self.pos < len(self.words) else None

    def disjunction(self) -> Test:
        left = self.conjunction()
        while self.peek() == "-o":
            self.pos += 1
            left = Test("||", parts=(left, self.conjunction()), line=self.line)
        return left

    def conjunction(self) -> Test:
        left = self.negation()
        while self.peek() == "-a":
            self.pos += 1
            left = Test("&&", parts=(left, self.negation()), line=self.line)
        return left

    def negation(self) -> Test:
        if self.peek() == "!":
            self.pos += 1
            return Test("!", parts=(self.negation(),), line=self.line)
        return self.primary()

    def primary(self) -> Test:
        pos, words, line = self.pos, self.words, self.line
        if pos >= len(words):
            raise _Unread()
        if self.peek() == "(":
            self.pos += 1
            inner = self.disjunction()
            if self.peek() != ")":
                raise _Unread()
            self.pos += 1
            return inner
        if pos + 2 < len(words) and self.lit(pos + 1) in BINARY_TESTS:
            t = Test(str(self.lit(pos + 1)), words=(self.word(pos), self.word(pos + 2)), line=line)
            self.pos += 3
            return t
        if self.peek() in UNARY_TESTS and pos + 1 < len(words):
            t = Test(str(self.peek()), words=(self.word(pos + 1),), line=line)
            self.pos += 2
            return t
        t = Test("", words=(self.word(pos),), line=line)
        self.pos += 1
        return t
