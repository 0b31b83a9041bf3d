"""Word expansion: what a word of the script expands to on one path.

Parameters (`$V`, `${V:-d}`, `${#A[@]}`, trims, case changes), arrays, quoting,
arithmetic, and the command substitutions whose output is computable (`printf`,
`echo`, `awk 'BEGIN{...}'`). A value not known here stays symbolic and keeps its text.
"""

from __future__ import annotations

import contextlib
import re

from tree_sitter import Node

from bot.parse import argv
from bot.parse.bash.arith import awk_begin_print, eval_arith, first_pos, printf, to_int, trim
from bot.parse.bash.base import Walker
from bot.parse.bash.state import MAX_TRIM, State
from bot.parse.values import Seg, Str


class Expansion(Walker):
    def expand(self, node: Node, st: State) -> list[Str]:
        """Expand one syntactic word into zero or more words (arrays, splitting)."""
        t = node.type
        if t == "string":
            kids = node.named_children
            if len(kids) == 1 and kids[0].type in ("expansion", "simple_expansion"):
                arr = self._array_ref(kids[0], st)
                if arr is not None:
                    return list(arr)
            return [self._concat_children(node, st, unescape=True)]
        if t in ("simple_expansion", "expansion"):
            arr = self._array_ref(node, st)
            if arr is not None:
                out: list[Str] = []
                for e in arr:
                    out.extend(e.split() if e.known else [e])
                return out
            v = self.expand_one(node, st)
            return v.split() if v.known else ([v] if v.segs else [])
        if t == "command_substitution":
            v = self.expand_one(node, st)
            return v.split() if v.known else [v]
        if t == "concatenation":
            return [self.expand_one(node, st)]
        return [self.expand_one(node, st)]

    def _array_ref(self, node: Node, st: State) -> tuple[Str, ...] | None:
        """`${A[@]}`, `${A[*]}`, `$@` -> the elements; else None."""
        if node.type == "simple_expansion":
            name = self.text(node)[1:]
            if name in ("@", "*"):
                return st.positional
            return None
        kids = node.named_children
        if len(kids) == 1 and kids[0].type == "subscript":
            sub = kids[0]
            base = sub.child_by_field_name("name")
            index = sub.child_by_field_name("index")
            if base is None or index is None or self.text(index) not in ("@", "*"):
                return None
            if any(c.type in ("#", "!") for c in node.children):
                return None
            value = st.vars.get(self.text(base))
            if value is None:
                return (
                    Str.unknown_of(
                        self.text(node), self.start(node)[0] + 1, self.start(node)[1] + 1
                    ),
                )
            return value if isinstance(value, tuple) else (value,)
        return None

    def expand_one(self, node: Node, st: State, assignment: bool = False) -> Str:
        t = node.type
        if t in ("word", "number", "extglob_pattern", "regex", "test_operator"):
            # a literal is the same value on every path: built once per node
            span = (node.start_byte, node.end_byte)
            word = self._words.get(span)
            if word is None:
                raw = self.text(node)
                if "\\" in raw:
                    raw = re.sub(r"\\(.)", r"\1", raw)
                row, col = self.start(node)
                word = self._words[span] = Str.lit(raw, row + 1, col + 1)
            return word
        row, col = self.start(node)
        if t == "raw_string":
            raw = self.text(node)[1:-1]
            return lit_segs(raw, row, col + 1)
        if t == "ansi_c_string":
            raw = self.text(node)[2:-1]
            with contextlib.suppress(UnicodeDecodeError):
                raw = raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
            return Str.lit(raw, row + 1, col + 1)
        if t == "string":
            return self._concat_children(node, st, unescape=True)
        if t == "concatenation":
            parts = [
                self.expand_one(c, st) if c.type != "string" else self._concat_children(c, st, True)
                for c in node.named_children
            ]
            return Str.join(parts)
        if t == "simple_expansion":
            name = self.text(node)[1:]
            return self.lookup(name, st, row, col)
        if t == "expansion":
            return self.param_expansion(node, st)
        if t == "arithmetic_expansion":
            return self.arithmetic(node, st)
        if t == "command_substitution":
            return self.command_substitution(node, st)
        if t == "array":
            return Str.join([self.expand_one(c, st) for c in node.named_children], " ")
        if t == "translated_string":
            return self._concat_children(node, st, unescape=True)
        return Str.unknown_of(self.text(node), row + 1, col + 1)

    def _concat_children(self, node: Node, st: State, unescape: bool) -> Str:
        """A double-quoted string or heredoc body: literal gaps plus expansions."""
        parts: list[Str] = []
        start = node.start_byte
        end = node.end_byte
        row, col = self.start(node)
        if node.type == "string":
            start += 1
            end -= 1
            col += 1
        pos = start
        prow, pcol = row, col
        for c in node.children:
            if c.type in ('"',) or c.start_byte < start:
                continue
            if c.type in ("string_content", "heredoc_content") or not c.is_named:
                continue
            if c.start_byte > pos:
                parts.append(self._lit_between(pos, c.start_byte, prow, pcol, unescape))
            if c.type in ("simple_expansion", "expansion"):
                arr = self._array_ref(c, st)
                parts.append(Str.join(arr, " ") if arr is not None else self.expand_one(c, st))
            else:
                parts.append(self.expand_one(c, st))
            pos = c.end_byte
            prow, pcol = self.end(c)
        if end > pos:
            parts.append(self._lit_between(pos, end, prow, pcol, unescape))
        return Str.join(parts)

    def _lit_between(self, a: int, b: int, row: int, col: int, unescape: bool) -> Str:
        raw = self.src[a:b].decode("utf-8", errors="replace")
        return lit_segs(raw, row, col, unescape=unescape)

    def lookup(self, name: str, st: State, row: int = -1, col: int = 0) -> Str:
        if name.isdigit():
            i = int(name)
            if i == 0:
                return Str.unknown_of("$0", row + 1, col + 1)
            if i - 1 < len(st.positional):
                return st.positional[i - 1]
            return Str.unknown_of("$" + name, row + 1, col + 1)
        if name in ("@", "*"):
            return Str.join(st.positional, " ")
        value = st.vars.get(name)
        if value is None:
            eq = st.eq_value(name)
            if eq is not None:
                return Str.lit(eq)
            return Str.unknown_of("$" + name, row + 1, col + 1)
        if isinstance(value, tuple):
            return value[0] if value else Str()
        return value

    def param_expansion(self, node: Node, st: State) -> Str:
        row, col = self.start(node)
        kids = node.named_children
        op_node = node.child_by_field_name("operator")
        op = self.text(op_node) if op_node is not None else None
        raw = self.text(node)
        if not kids:
            return Str.unknown_of(raw, row + 1, col + 1)
        first = kids[0]
        if op == "#" and first.type in ("subscript", "variable_name") and first is kids[-1]:
            return self._length(node, first, st)
        if first.type == "subscript":
            return self._element(node, first, st)
        if first.type != "variable_name":
            return Str.unknown_of(raw, row + 1, col + 1)
        name = self.text(first)
        value = self.lookup(name, st, row, col)
        if value.known is False and value.unknowns == ["$" + name]:
            value = Str.unknown_of(raw if op is None else "$" + name, row + 1, col + 1)
        if op is None:
            return value
        rest = [c for c in kids[1:]]
        arg = Str.join([self.expand_one(c, st) for c in rest]) if rest else Str()
        if op in (":-", "-", ":=", "="):
            return self._default(node, name, op, value, arg, st)
        if op in (":+", "+"):
            if not value.known or (op == "+" and not self._is_set(name, op, st)):
                return Str.unknown_of(raw, row + 1, col + 1)
            return arg if (value.text or op == "+") else Str()
        return self._transform(node, op, value, arg)

    def _length(self, node: Node, first: Node, st: State) -> Str:
        """`${#X}` / `${#A[@]}`."""
        row, col = self.start(node)
        raw = self.text(node)
        if first.type == "subscript":
            base = first.child_by_field_name("name")
            val = st.vars.get(self.text(base)) if base is not None else None
            if isinstance(val, tuple):
                return Str.lit(str(len(val)))
            return Str.unknown_of(raw, row + 1, col + 1)
        v = self.lookup(self.text(first), st, row, col)
        return Str.lit(str(len(v.text))) if v.known else Str.unknown_of(raw, row + 1, col + 1)

    def _element(self, node: Node, first: Node, st: State) -> Str:
        """`${A[@]}` joined, or `${A[i]}`."""
        row, col = self.start(node)
        arr = self._array_ref(node, st)
        if arr is not None:
            return Str.join(arr, " ")
        base = first.child_by_field_name("name")
        index = first.child_by_field_name("index")
        val = st.vars.get(self.text(base)) if base is not None else None
        if isinstance(val, tuple) and index is not None:
            i = to_int(self.expand_one(index, st).value)
            if i is not None and -len(val) <= i < len(val):
                return val[i]
        return Str.unknown_of(self.text(node), row + 1, col + 1)

    @staticmethod
    def _is_set(name: str, op: str, st: State) -> bool:
        # an input with an `eq ""` fact is unset or empty: `${V-d}` may be either
        eq = st.eq_value(name)
        return name in st.vars or (eq is not None and (eq != "" or op.startswith(":")))

    def _default(self, node: Node, name: str, op: str, value: Str, arg: Str, st: State) -> Str:
        """`${V:-d}`, `${V-d}`, `${V:=d}`, `${V=d}` (the `=` forms assign V)."""
        if self._is_set(name, op, st):
            if op.startswith(":") and value.known and value.text == "":
                chosen = arg
            else:
                return value
        elif name not in st.vars:
            # an environment variable: its default is what the script shows
            # but the real value may differ; keep it symbolic, with the default
            # recorded so rules can still read the script's intent.
            row, col = self.start(node)
            chosen = (
                Str(
                    (
                        Seg(
                            arg.text,
                            *first_pos(arg),
                            unknown="${" + name + op + arg.text + "}",
                        ),
                    )
                )
                if arg.known
                # the whole expansion: `$name` would read as the input's own value
                else Str.unknown_of(self.text(node), row + 1, col + 1)
            )
            if op in (":=", "="):
                st.vars[name] = chosen
            return chosen
        else:
            chosen = arg
        if op in (":=", "="):
            st.vars[name] = chosen
        return chosen

    def _transform(self, node: Node, op: str, value: Str, arg: Str) -> Str:
        """Trims (`${V%pat}`, `${V##pat}` ...) and case changes (`${V,,}` ...)."""
        row, col = self.start(node)
        raw = self.text(node)
        if not value.known:
            return Str.unknown_of(raw, row + 1, col + 1)
        text = value.text
        pat = arg.text if arg.known else None
        if pat is None:
            return Str.unknown_of(raw, row + 1, col + 1)
        if op in ("%", "%%", "#", "##"):
            if len(text) > MAX_TRIM:
                return Str.unknown_of(raw, row + 1, col + 1)
            return Str.lit(trim(text, pat, op), *(first_pos(value)))
        if op in (",,", "^^", ",", "^"):
            return Str.lit(
                text.lower() if op.startswith(",") else text.upper(), *(first_pos(value))
            )
        return Str.unknown_of(raw, row + 1, col + 1)

    def arithmetic(self, node: Node, st: State) -> Str:
        row, col = self.start(node)
        raw = self.text(node)
        inner = raw[3:-2] if raw.startswith("$((") else raw

        def var(name: str) -> int | None:
            v = self.lookup(name, st)
            return to_int(v.value)

        result = eval_arith(inner, var)
        if result is None:
            return Str.unknown_of(raw, row + 1, col + 1)
        return Str.lit(str(result), row + 1, col + 1)

    def command_substitution(self, node: Node, st: State) -> Str:
        row, col = self.start(node)
        raw = self.text(node)
        cmds = [c for c in node.named_children if c.type == "command"]
        if len(cmds) == 1:
            words: list[Str] = []
            for c in cmds[0].named_children:
                if c.type == "command_name":
                    words.extend(self.expand(c.named_children[0], st) if c.named_children else [])
                elif c.type not in ("file_redirect", "comment", "variable_assignment"):
                    words.extend(self.expand(c, st))
            head = words[0].value if words else None
            if head == "printf" and len(words) >= 2 and words[1].value != "-v" and words[1].known:
                return printf(words[1], words[2:])
            if head == "echo" and all(w.known for w in words[1:]):
                return Str.join(words[1:], " ")
            if head == "awk":
                awk = argv.parse(words[1:], argv.spec_for("awk"))
                prog = [] if awk.has("-f", "--file") else awk.positionals
                if len(prog) == 1 and prog[0].known:
                    v = awk_begin_print(prog[0].text)
                    if v is not None:
                        return Str((Seg(v, *first_pos(prog[0])),))
        return Str.unknown_of(raw, row + 1, col + 1)


def after_eq(w: Str) -> Str:
    return argv.after(w, w.text.index("=") + 1)


_DQ_ESC = re.compile(r"\\([$`\"\\\n])")


def lit_segs(raw: str, row: int, col: int, unescape: bool = False) -> Str:
    """Literal text starting at 0-based (row, col), split into one segment per line."""
    segs: list[Seg] = []
    if unescape and "\\" in raw:
        raw = _DQ_ESC.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)
    lines = raw.split("\n")
    for i, piece in enumerate(lines):
        text = piece + ("\n" if i < len(lines) - 1 else "")
        if text:
            segs.append(Seg(text, row + 1 + i, (col if i == 0 else 0) + 1))
    return Str(tuple(segs))
