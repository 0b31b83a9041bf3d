"""Conditions on one path: whether a test holds, and what taking an arm tells."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from typing import Any

from tree_sitter import Node

from bot.parse.bash.arith import to_int
from bot.parse.bash.expand import Expansion
from bot.parse.bash.state import Assumption, State, held_input
from bot.parse.bash.syntax import is_arith_command
from bot.parse.bash.testexpr import (
    ARITH_TESTS,
    BINARY_TESTS,
    DEFAULT_OPS,
    FLIP,
    IDENT_RE,
    NUMERIC_TESTS,
    OTHER,
    RANGE,
    UNARY_TESTS,
    Operand,
    Test,
    TestWord,
    and_,
    compare,
    implied,
    normal_ops,
    or_,
    parse_test_words,
    unquoted,
    within_bounds,
)
from bot.parse.values import Str

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Conditions(Expansion):
    # --------------------------------------------------------------- conditions
    # `[ ... ]`, `[[ ... ]]` and `test ...` are read into one small tree (`Test`)
    # and decided, and the facts each arm tells recorded, the same way for all three.
    # `[` and `test` are read from their words as bash reads them (tree-sitter's tree
    # of `[ "$A" = a -a "$B" = b ]` or `[ ! "$A" = a ]` is not bash's); `[[` from the
    # syntax tree. An operand that is one variable's expansion -- `$V`, `${V:-d}`,
    # `${V-d}`, `${V:=d}`, `${V=d}`, `${V:+x}`, `${V+x}`, quoted or not, or a variable
    # that holds such an expansion of an input (`M=${V:-d}`) -- is decided over the
    # values V can take (`Operand`, `_classes`): its domain (`env_domains`), or the
    # literals the test names plus "any other value". An arm is taken only for the
    # values that lead to it, and it records what that says about V, so a later test
    # of V (in any form) stays consistent with it.

    def condition(self, node: Node, st: State) -> bool | None:
        t = node.type
        test = self._test_of(node)
        if test is not None:
            return self._truth(test, st)
        if t == "test_command":
            return None
        if t == "negated_command":
            kids = node.named_children
            inner = self.condition(kids[0], st) if kids else None
            return None if inner is None else not inner
        if t == "list":
            named = node.named_children
            ops = [c.type for c in node.children if not c.is_named]
            if len(named) == 2 and ops in (["&&"], ["||"]):
                a = self.condition(named[0], st)
                b = self.condition(named[1], st)
                return and_(a, b) if ops == ["&&"] else or_(a, b)
            return None
        if t == "command":
            name = node.child_by_field_name("name")
            word = self.text(name) if name is not None else ""
            if word == "true":
                return True
            if word == "false":
                return False
            return None
        if t in ("compound_statement", "subshell") and node.named_children:
            return self.condition(node.named_children[-1], st)
        return None

    def assumptions_for(self, node: Node, truth: bool, st: State) -> Iterator[Assumption]:
        """What taking this arm of `node` tells about environment variables."""
        t = node.type
        test = self._test_of(node)
        if test is not None:
            yield from self._test_facts(test, truth, st)
        elif t == "negated_command" and node.named_children:
            yield from self.assumptions_for(node.named_children[0], not truth, st)
        elif t == "list":
            named = node.named_children
            ops = [c.type for c in node.children if not c.is_named]
            if len(named) == 2 and ((ops == ["&&"] and truth) or (ops == ["||"] and not truth)):
                yield from self.assumptions_for(named[0], truth, st)
                yield from self.assumptions_for(named[1], truth, st)

    def _is_test(self, node: Node) -> bool:
        """`[ ... ]`, `[[ ... ]]`, `(( ... ))` or a `test ...` command."""
        if node.type == "test_command" or is_arith_command(node):
            return True
        if node.type != "command":
            return False
        name = node.child_by_field_name("name")
        return name is not None and self.text(name) == "test"

    def _test_of(self, node: Node) -> Test | None:
        """The `Test` of a `[`, `[[` or `test` node (None: another node, or a test
        this reading does not follow); read once per node."""
        key = node.id
        if key in self._tests:
            return self._tests[key]  # type: ignore[no-any-return]
        got = self._tests[key] = self._read_test(node)
        return got

    def _read_test(self, node: Node) -> Test | None:
        line = node.start_point.row + 1
        if node.type == "test_command":
            if node.children and node.children[0].type == "[[":
                kids = [c for c in node.named_children if c.type != "comment"]
                return self._double_test(kids[0], line) if len(kids) == 1 else None
            return parse_test_words(self._bracket_words(node), line)
        if is_arith_command(node):
            kids = [c for c in node.named_children if c.type != "comment"]
            return self._arith_test(kids[0], line) if len(kids) == 1 else None
        if not self._is_test(node):
            return None
        words: list[TestWord] = []
        for c in node.named_children:
            if c.type in ("command_name", "comment", "variable_assignment"):
                continue
            if c.type in ("file_redirect", "herestring_redirect"):
                continue
            words.append((self.text(c) if c.type == "word" else None, c))
        return parse_test_words(words, line)

    def _bracket_words(self, node: Node) -> list[TestWord]:
        """The words of `[ ... ]` in order, as `test` would get them."""
        out: list[TestWord] = []
        stack = list(reversed(node.children[1:-1] if node.child_count >= 2 else []))
        while stack:
            n = stack.pop()
            if n.type in ("binary_expression", "unary_expression", "parenthesized_expression"):
                stack.extend(reversed(n.children))
            elif n.type == "comment":
                continue
            elif n.type == "test_operator" or not n.is_named:
                out.append((self.text(n), None))
            else:
                out.append((self.text(n) if n.type == "word" else None, n))
        return out

    def _double_test(self, node: Node, line: int) -> Test | None:
        """The `Test` of the expression inside `[[ ... ]]`."""
        t = node.type
        kids = [c for c in node.named_children if c.type != "comment"]
        if t == "parenthesized_expression":
            return self._double_test(kids[0], line) if kids else None
        if t == "unary_expression":
            if node.children and node.children[0].type == "!":
                inner = self._double_test(kids[0], line) if kids else None
                return Test("!", parts=(inner,), line=line) if inner is not None else None
            op_n = node.child_by_field_name("operator")
            operands = [c for c in kids if c.type != "test_operator"]
            if op_n is None or len(operands) != 1:
                return None
            return Test(self.text(op_n), words=(operands[0],), double=True, line=line)
        if t == "binary_expression":
            op_n = node.child_by_field_name("operator")
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if op_n is None or left is None or right is None:
                return None
            op = self.text(op_n)
            if op in ("&&", "||", "-a", "-o"):
                a, b = self._double_test(left, line), self._double_test(right, line)
                if a is None or b is None:
                    return None
                return Test("&&" if op in ("&&", "-a") else "||", parts=(a, b), line=line)
            if op not in BINARY_TESTS:
                return None
            if (
                left.type == "unary_expression"
                and left.children
                and left.children[0].type == "!"
                and left.named_children
            ):
                # `[[ ! $V == x ]]` is `! ($V == x)`; tree-sitter reads `(! $V) == x`
                inner = Test(op, words=(left.named_children[0], right), double=True, line=line)
                return Test("!", parts=(inner,), line=line)
            return Test(op, words=(left, right), double=True, line=line)
        return Test("", words=(node,), double=True, line=line)

    def _arith_test(self, node: Node, line: int) -> Test | None:
        """The `Test` of an arithmetic command's comparisons (`(( TP == 4 ))`, joined
        by `&&`/`||`, negated by `!`); None for any other arithmetic."""
        t = node.type
        kids = [c for c in node.named_children if c.type != "comment"]
        if t == "parenthesized_expression":
            return self._arith_test(kids[0], line) if len(kids) == 1 else None
        if t == "unary_expression" and node.children and node.children[0].type == "!":
            inner = self._arith_test(kids[0], line) if len(kids) == 1 else None
            return Test("!", parts=(inner,), line=line) if inner is not None else None
        if t != "binary_expression":
            return None
        op_n = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op_n is None or left is None or right is None:
            return None
        op = self.text(op_n)
        if op in ("&&", "||"):
            a, b = self._arith_test(left, line), self._arith_test(right, line)
            if a is None or b is None:
                return None
            return Test(op, parts=(a, b), line=line)
        simple = ("variable_name", "simple_expansion", "expansion", "number")
        if op not in ARITH_TESTS or left.type not in simple or right.type not in simple:
            return None
        return Test(ARITH_TESTS[op], words=(left, right), double=True, line=line)

    def _truth(self, t: Test, st: State) -> bool | None:
        if t.op == "const":
            return t.value
        if t.op == "!":
            inner = self._truth(t.parts[0], st)
            return None if inner is None else not inner
        if t.op == "&&":
            return and_(self._truth(t.parts[0], st), self._truth(t.parts[1], st))
        if t.op == "||":
            return or_(self._truth(t.parts[0], st), self._truth(t.parts[1], st))
        return self._judge(t, st, None)[0]

    def _test_facts(self, t: Test, truth: bool, st: State) -> Iterator[Assumption]:
        if t.op == "!":
            yield from self._test_facts(t.parts[0], not truth, st)
        elif t.op in ("&&", "||"):
            # both sides are known only when `&&` holds or `||` fails
            if truth == (t.op == "&&"):
                yield from self._test_facts(t.parts[0], truth, st)
                yield from self._test_facts(t.parts[1], truth, st)
        elif t.op != "const":
            yield from self._judge(t, st, truth)[1]

    def _word_value(self, w: Node | str, st: State) -> Str:
        if isinstance(w, str):
            return Str.lit(w)
        if w.type == "variable_name":  # `TP` inside `(( ... ))`
            return self.lookup(self.text(w), st, w.start_point.row, w.start_point.column)
        return self.expand_one(w, st)

    def _judge(self, t: Test, st: State, want: bool | None) -> tuple[bool | None, list[Assumption]]:
        """A primary test (a word, a unary or a binary operator) on this path: its
        truth, and, for `want`, the facts on an input that taking that arm tells.

        While a condition that assigns nothing is decided for `st` (`Interpreter._arms`),
        its words are read once: the truth and the facts of both arms use that reading."""
        memo = self.verdicts[-1][1] if self.verdicts and self.verdicts[-1][0] == id(st) else None
        reading = memo.get(id(t)) if memo is not None else None
        if reading is None:
            reading = self._shared_read(t, st)
            if memo is not None:
                memo[id(t)] = reading
        if reading[0] == "values":
            return reading[1], []
        _, opnd, side, other, classes, finite, truths, truth = reading
        if want is None or not classes:
            return truth, []
        taken = frozenset(k for k, v in truths.items() if v is None or v == want)
        return truth, self._arm_facts(t, opnd, side, other, classes, taken, finite, want)

    def _shared_read(self, t: Test, st: State) -> tuple[Any, ...]:
        """`_read(t, st)`, read once for all the paths that hold the very same values of
        what it reads: the variables its words name, the positional words, and the
        facts and bounds on those names and on the inputs their values hold (`M` holds
        `${V:-d}`: the test is decided over V). The key names each by identity, and
        the entry keeps them alive, so no other object takes an identity it names.
        Tests whose words may assign (`${V:=d}`) are read on every path."""
        names = self._test_names.get(id(t))
        if names is None:
            names = self._test_names[id(t)] = self._names_read(t)
        if names is False:
            return self._read(t, st)
        assert isinstance(names, tuple)
        values = tuple(map(st.vars.get, names))
        inputs = set(names)
        for v in values:
            if isinstance(v, tuple):
                v = v[0] if v else None
            if v is not None and len(v.segs) == 1 and v.segs[0].unknown is not None:
                held = held_input(v.segs[0])
                if held is not None:
                    inputs.add(held[0])
        key = (
            id(t),
            id(st.positional),
            *map(id, values),
            *[id(a) for a in st.assumptions if a.var in inputs],
            None,
            *[id(a) for a in st.bounds if a.var in inputs],
        )
        got = self._readings.get(key)
        if got is None:
            got = self._readings[key] = (
                self._read(t, st),
                (t, values, st.positional, st.assumptions, st.bounds),
            )
        else:
            self.shared_readings += 1
        return got[0]

    def _names_read(self, t: Test) -> tuple[str, ...] | bool:
        """The variables the words of `t` read, sorted: parameters (`$V`, `${V:-d}`,
        `$1`, `$@`), `TP` in `(( TP == 4 ))`, every identifier of an arithmetic
        expansion; False when a word may assign or reads through `${!V}`."""
        names: set[str] = set()
        for w in t.words:
            if isinstance(w, str):
                continue
            if self._assigns(w) or "${!" in self.text(w):
                return False
            stack = [w]
            while stack:
                n = stack.pop()
                if n.type in ("variable_name", "special_variable_name"):
                    names.add(self.text(n))
                elif n.type == "arithmetic_expansion":
                    names.update(_IDENT.findall(self.text(n)))
                stack.extend(n.children)
        return tuple(sorted(names))

    def _read(self, t: Test, st: State) -> tuple[Any, ...]:
        """What `_judge` decides from: ("values", truth) for a test of plain values; else
        ("operand", the operand, its side, the other word's value, the operand's classes,
        whether they are all its values, the truth for each class, the truth)."""
        # every word is expanded first, as bash does (`${V:=d}` assigns V here)
        values = [self._word_value(w, st) for w in t.words]
        side, opnd = -1, None
        for i, w in enumerate(t.words):
            if isinstance(w, str):
                continue
            o = self._operand(w, st)
            if o is not None and (len(values) == 1 or values[1 - i].known):
                side, opnd = i, o
                break
        if opnd is None:
            return ("values", self._judge_values(t, values))
        other = values[1 - side] if len(values) == 2 else None
        literals = {""} | ({other.text} if other is not None else set())
        classes, finite = self._classes(opnd, literals, st)
        if t.op in NUMERIC_TESTS and not opnd.ops and len(classes) > 1:
            # a numeric test of an empty `$V` is an error bash only reports (and
            # `check_env_vars` rejects): it is decided, and recorded, by the numbers
            classes = classes - {""}
        truths = {k: self._class_truth(t, opnd, side, k, other, st) for k in classes}
        found = set(truths.values())
        truth = found.pop() if len(found) == 1 else None
        return ("operand", opnd, side, other, classes, finite, truths, truth)

    def _operand(self, node: Node, st: State) -> Operand | None:
        """The input whose value this word is, through which expansions; else None."""
        n, quoted = node, False
        if n.type == "string":
            kids = n.named_children
            if len(kids) != 1 or kids[0].type not in ("simple_expansion", "expansion"):
                return None
            if n.end_byte - n.start_byte != kids[0].end_byte - kids[0].start_byte + 2:
                return None  # `"x$V"`: more than the expansion
            n, quoted = kids[0], True
        op, arg = "", ""
        if n.type == "variable_name":  # `TP` inside `(( ... ))`: no word splitting
            name, quoted = self.text(n), True
        elif n.type == "simple_expansion":
            name = self.text(n)[1:]
        elif n.type == "expansion":
            kids = n.named_children
            if not kids or kids[0].type != "variable_name":
                return None
            if any(c.type in ("!", "#") for c in n.children):
                return None  # `${!V}`, `${#V}`
            op_n = n.child_by_field_name("operator")
            op = self.text(op_n) if op_n is not None else ""
            if op not in DEFAULT_OPS or (not op and len(kids) > 1):
                return None
            name = self.text(kids[0])
            value = Str.join([self.expand_one(c, st) for c in kids[1:]])
            if not value.known:
                return None
            arg = value.text
        else:
            return None
        if not IDENT_RE.fullmatch(name):
            return None
        held = self._input_of(name, st)
        if held is None:
            return None
        var, ops = held
        return Operand(var, normal_ops((*ops, (op, arg))), quoted)

    def _input_of(self, name: str, st: State) -> tuple[str, tuple[tuple[str, str], ...]] | None:
        """The input `$name` reads, and the expansions applied to it: the input `V` when
        `name` holds `${V:-d}` and the like (`M=${V:-d}`, `export V=${V:-d}`); `name`
        itself when it is not assigned or holds one unknown value (the facts of a test
        of it are on its own name, as they always were); None when it holds a known
        value or one with known parts (the test then reads the value itself)."""
        value = st.vars.get(name)
        if value is None:
            return name, ()
        if isinstance(value, tuple):
            value = value[0] if value else Str()
        if len(value.segs) != 1 or value.segs[0].unknown is None:
            return None
        return held_input(value.segs[0]) or (name, ())

    def _classes(self, opnd: Operand, literals: set[str], st: State) -> tuple[frozenset[str], bool]:
        """The classes of values the input can take on this path, and whether they are
        all its values (its domain or an `eq`/`in` fact) or `OTHER` stands for the
        rest. A range a test put on the input leaves only the numbers inside it."""
        var = opnd.var
        ne = st.ne_values(var)
        allowed = st.allowed(var)
        domain = self.domains.get(var)
        finite = domain is not None or allowed is not None
        if domain is not None:
            values = (domain if allowed is None else domain & allowed) - ne
        elif allowed is not None:
            values = allowed
        else:
            values = frozenset(literals - ne) | {OTHER}
        lo, hi = st.interval(var)
        if lo is not None or hi is not None:
            values = frozenset(
                k
                for k in values
                if (n := to_int(k)) is None
                or k == OTHER
                or ((lo is None or n >= lo) and (hi is None or n <= hi))
            )
        return frozenset(values), finite

    def _class_truth(
        self, t: Test, opnd: Operand, side: int, cls: str, other: Str | None, st: State
    ) -> bool | None:
        got = {self._output_truth(t, opnd, side, o, other, st) for o in opnd.outputs(cls)}
        return got.pop() if len(got) == 1 else None

    def _output_truth(
        self, t: Test, opnd: Operand, side: int, out: str, other: Str | None, st: State
    ) -> bool | None:
        """The test when the operand expands to `out` (`OTHER`: a value no literal names)."""
        if out == "" and not opnd.quoted and not t.double:
            # `[ $V = x ]` with V empty is `[ = x ]`: the word is gone and bash errs
            # (false); `[ -n $V ]` is `[ -n ]`, true; `[ $V ]` is `[ ]`, false
            if not t.top:
                return None
            return t.op in UNARY_TESTS
        if t.op in ("", "-n"):
            return out != ""
        if t.op == "-z":
            return out == ""
        if other is None:
            return None
        c = other.text
        if t.op in ("=", "==", "!="):
            # in `[[`, an unquoted right side is a pattern
            pattern = t.double and side == 0 and unquoted(t.words[1])
            if side == 1 and t.double and not opnd.quoted:
                # the operand itself is the pattern
                if out == OTHER:
                    return None
                same = fnmatch.fnmatchcase(c, out)
            elif out == OTHER:
                if pattern and any(ch in c for ch in "*?["):
                    return None
                same = False
            else:
                glob = pattern and any(ch in c for ch in "*?[")
                same = fnmatch.fnmatchcase(out, c) if glob else out == c
            return same if t.op != "!=" else not same
        if t.op in NUMERIC_TESTS:
            n = to_int(c)
            if n is None:
                return None
            op = t.op if side == 0 else FLIP[t.op]
            if out == OTHER:
                within = within_bounds(st, opnd.var, op, n)
                if within is None and op in ("-eq", "-ne"):
                    return op == "-ne"  # a value no literal names is not n
                return within
            v = 0 if out == "" and t.double else to_int(out)
            if v is None:
                # `[ "" -eq 1 ]`, `[ abc -eq 1 ]`: bash errs (false); `[[` evaluates it
                return False if not t.double else None
            return compare(op, v, n)
        return None

    def _arm_facts(
        self,
        t: Test,
        opnd: Operand,
        side: int,
        other: Str | None,
        classes: frozenset[str],
        taken: frozenset[str],
        finite: bool,
        want: bool,
    ) -> list[Assumption]:
        """The facts of taking the `want` arm: the input is one of `taken`. A plain
        `$V` says it as it always has (`V=x` / `V!=x`, a bound for a range) when that
        covers every value of `taken`; else the facts name `taken` itself."""
        var, line = opnd.var, t.line
        if not taken:
            return []
        numeric = t.op in NUMERIC_TESTS and other is not None and to_int(other.text) is not None
        if numeric and t.op not in ("-eq", "-ne"):
            n = to_int(other.text) if other is not None else None
            assert n is not None
            op = t.op if side == 0 else FLIP[t.op]
            bound, offset = RANGE[op][want]
            facts = [Assumption(var, bound, str(n + offset), line)] if OTHER in taken else []
            if opnd.ops and "" in classes and "" not in taken:
                facts.append(Assumption(var, "ne", "", line))
            return facts
        if taken == classes:
            return []
        if not opnd.ops:
            # no facts (`-n "$V"` of an input without a domain) is a choice that keeps
            # launch conditions short; facts that say more than `taken` are not used
            natural = self._natural_facts(t, opnd, other, want)
            if natural is not None and (not natural or implied(natural, classes) == taken):
                return natural
        return self._class_facts(var, classes, taken, finite, line)

    @staticmethod
    def _class_facts(
        var: str, classes: frozenset[str], taken: frozenset[str], finite: bool, line: int
    ) -> list[Assumption]:
        """Facts that leave `var` only the classes `taken` of `classes`: `V!=x` for each
        value left out when those say it (the rest is `OTHER` or the domain), else
        `V=x` for one value, `V` in `x|y` for several."""
        if taken == classes or not taken:
            return []
        if OTHER in taken or (finite and len(taken) > 1):
            return [Assumption(var, "ne", k, line) for k in sorted(classes - taken)]
        if len(taken) == 1:
            return [Assumption(var, "eq", next(iter(taken)), line)]
        return [Assumption(var, "in", "|".join(sorted(taken)), line)]

    def _natural_facts(
        self, t: Test, opnd: Operand, other: Str | None, want: bool
    ) -> list[Assumption] | None:
        """The facts a plain `$V` test has always recorded: `V=c` / `V!=c`; `V` empty
        or not for `-z`/`-n` of an input with a domain (none without one)."""
        var, line = opnd.var, t.line
        if t.op in ("=", "==", "!=", "-eq", "-ne") and other is not None:
            c = other.text
            if t.op in ("-eq", "-ne"):
                n = to_int(c)
                if n is None:
                    return None
                c = str(n)
            elif t.double and any(ch in c for ch in "*?["):
                return []  # a pattern: no single value
            positive = want if t.op in ("=", "==", "-eq") else not want
            return [Assumption(var, "eq" if positive else "ne", c, line)]
        if t.op in ("-z", "-n", ""):
            if var not in self.domains:
                return []
            empty = want if t.op == "-z" else not want
            return [Assumption(var, "eq" if empty else "ne", "", line)]
        return None

    def _judge_values(self, t: Test, values: list[Str]) -> bool | None:
        """A primary test over its expanded words, none of them an input's expansion."""
        for w, v in zip(t.words, values, strict=True):
            if v.known and v.text == "" and not t.double and unquoted(w):
                return t.op in UNARY_TESTS if t.top else None
        if t.op in ("", "-n", "-z"):
            v = values[0]
            if v.known:
                return (v.text == "") == (t.op == "-z")
            if v.text and any(s.unknown is None and s.text for s in v.segs):
                return t.op != "-z"
            return None
        if len(values) != 2:
            return None
        lv, rv = values
        if t.op in ("=", "==", "!="):
            if not (lv.known and rv.known):
                return None
            glob = t.double and unquoted(t.words[1]) and any(ch in rv.text for ch in "*?[")
            same = fnmatch.fnmatchcase(lv.text, rv.text) if glob else lv.text == rv.text
            return same if t.op != "!=" else not same
        if t.op in NUMERIC_TESTS:
            a, b = to_int(lv.value), to_int(rv.value)
            if a is None or b is None:
                return None
            return compare(t.op, a, b)
        return None
