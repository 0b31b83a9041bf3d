"""A symbolic bash interpreter over tree-sitter-bash syntax trees. Pure.

It does not run anything. It walks a recipe script the way bash would and
keeps, for every path through the script that matters, what each variable,
array, exported variable and heredoc-written file holds, as `Str` values
that remember where they were written. Conditions it can decide from known
values pick one arm; conditions on the environment (`EVAL_ONLY`, `CONC`,
`KV_OFFLOADING`, ...) fork the path and record the assumption, so both arms
of `if [ "$EVAL_ONLY" = "true" ]` become separate *variants*, consistent
with later tests of the same variable. Every executed command is reported to
a callback with its expanded words and environment; the recipe model picks
out the engine launches.

Limits keep hostile scripts cheap: a cap on live paths, on function-call
depth and on syntax-tree depth. What cannot be resolved stays symbolic.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import fnmatch
import math
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from bot.base.problem import Problem, problem
from bot.parse import argv
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
# Commands that neither change the shell's state nor launch an engine; their
# words are not expanded (a recipe runs hundreds of them). A target repository's
# own helpers of that kind come from its knowledge (`recipe_helpers.inert`).
INERT_COMMANDS = frozenset(
    {
        "echo",
        "mkdir",
        "sleep",
        "rm",
        "cp",
        "mv",
        "ln",
        "grep",
        "sed",
        "cd",
        "pushd",
        "popd",
        "set",
        "trap",
        "wait",
        "kill",
        "nvidia-smi",
        "rocm-smi",
        "amd-smi",
        "ls",
        "touch",
        "chmod",
        "source",
        ".",
        "hf",
        "huggingface-cli",
        "pip",
        "pip3",
        "curl",
        "wget",
        "git",
        "tail",
        "head",
        "sort",
        "uniq",
        "wc",
        "date",
        "df",
        "free",
        "ps",
        "pkill",
        "flock",
        "true",
        "false",
        ":",
        "shift",
        "sync",
        "ulimit",
        "umask",
        "tar",
        "find",
        "xargs",
        "jq",
    }
)
MAX_CALL_DEPTH = 8
MAX_NODE_DEPTH = 400
MAX_STEPS = 40_000

Value = Str | tuple[Str, ...]


class _ThreadParser(threading.local):
    """A tree-sitter parser per thread: a `Parser` is not safe to share between threads."""

    def __init__(self) -> None:
        language = Language(tree_sitter_bash.language())
        self.parser = Parser(language)
        # the assignments and references the relevance pass reads
        self.relevance = Query(
            language,
            """
            (variable_name) @ref
            (variable_assignment) @assign
            """,
        )


_THREAD = _ThreadParser()


def _parser() -> Parser:
    return _THREAD.parser


def parse_tree(source: bytes) -> Any:
    return _parser().parse(source)


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


class _Budget(Exception):
    pass


class Interpreter:
    def __init__(
        self,
        source: bytes,
        on_command: Callable[[Command], None],
        report: frozenset[str] = frozenset(),
        domains: Mapping[str, frozenset[str]] | None = None,
        watched_flags: frozenset[str] = frozenset(),
        watched_env: frozenset[str] = frozenset(),
        inert: frozenset[str] = frozenset(),
    ) -> None:
        self.inert = INERT_COMMANDS | inert
        self.src = source
        # tree-sitter counts columns in UTF-8 bytes; values carry character columns
        self._ascii = source.isascii()
        # the flags and environment names a caller reads: only values that reach
        # them keep paths apart past SOFT_PATHS (see `_relevant_vars`)
        self.watched_flags = watched_flags
        self.watched_env = watched_env
        self._relevant: frozenset[str] | None = None
        # the variables a watched flag or name reads directly (`--gpu-memory-utilization
        # "$MEM"`): each of their values stays its own path as long as it can
        self._seeds: frozenset[str] = frozenset()
        self._root: Node | None = None
        # the values an environment input can take ("" = unset or empty), from the
        # knowledge data: a test needing another value is false on every path
        self.domains: Mapping[str, frozenset[str]] = domains or {}
        self.on_command = on_command
        # inert commands that are still expanded and reported (their words matter
        # to a caller, e.g. `sed -i` or `pip install`)
        self.report = report
        self.functions: dict[str, Node] = {}
        self.problems: list[Problem[InterpreterProblem]] = []
        self.finished: list[State] = []
        self.steps = 0
        self.call_depth = 0
        self._path_cap_reported = False
        self.last_use: dict[str, int] = {}
        # (start byte, end byte) -> source text, and literal words as values
        self._texts: dict[tuple[int, int], str] = {}
        self._words: dict[tuple[int, int], Str] = {}

    # ----------------------------------------------------------------- driving
    def run(self, root: Node) -> list[State]:
        self.last_use = _last_uses(self.src, root)
        self._root = root
        states = [State()]
        try:
            states = self.block(list(root.named_children), states, 0)
        except _Budget:
            self.problems.append(problem("too_complex"))
        except RecursionError:
            self.problems.append(problem("too_deep"))
        return self.finished + [s for s in states if not s.done]

    def start(self, node: Node) -> tuple[int, int]:
        """0-based row and character column where `node` starts."""
        row, col = node.start_point
        if col and not self._ascii:
            col = _chars(self.src, node.start_byte, col)
        return row, col

    def end(self, node: Node) -> tuple[int, int]:
        """0-based row and character column where `node` ends."""
        row, col = node.end_point
        if col and not self._ascii:
            col = _chars(self.src, node.end_byte, col)
        return row, col

    def text(self, node: Node) -> str:
        # every path reads the same nodes again: decode each span once
        span = (node.start_byte, node.end_byte)
        got = self._texts.get(span)
        if got is None:
            got = self._texts[span] = self.src[span[0] : span[1]].decode("utf-8", errors="replace")
        return got

    def block(self, nodes: list[Node], states: list[State], depth: int) -> list[State]:
        for node in nodes:
            if node.type == "comment":
                continue
            nxt: list[State] = []
            for st in states:
                if st.done or st.returning or st.breaking:
                    nxt.append(st)
                    continue
                nxt.extend(self.stmt(node, st, depth + 1))
            self._prune(nxt, node.end_byte)
            states = self._merge(nxt) if len(nxt) > len(states) else nxt
            if len(states) > SOFT_PATHS:
                states = self._join_by_value(states)
            live = [s for s in states if not s.done]
            self.finished.extend(s for s in states if s.done)
            states = live
            if not states:
                break
        return states

    def _prune(self, states: list[State], pos: int) -> None:
        """Forget variables and assumptions no later text can read.

        Paths that differ only in dead variables then merge, which keeps the
        number of paths close to the number of real launch variants.
        """
        if len(states) < 2:
            return  # dead variables only matter when paths could merge
        last = self.last_use
        for st in states:
            dead = [k for k in st.vars if last.get(k, -1) < pos and k not in st.exported]
            for k in dead:
                del st.vars[k]
            if not any(last.get(a.var, -1) < pos for a in (*st.assumptions, *st.bounds)):
                continue
            # a variable that holds an input's default (`M=${V:-d}`) reads V later
            held = _held_inputs(st)
            gone = [a for a in (*st.assumptions, *st.bounds) if last.get(a.var, -1) < pos]
            gone = [a for a in gone if a.var not in held]
            if gone:
                st.history += tuple(gone)
                st.assumptions = tuple(a for a in st.assumptions if a not in gone)
                st.bounds = tuple(a for a in st.bounds if a not in gone)

    def _join_by_value(self, states: list[State]) -> list[State]:
        """Too many paths: forget the values no rule reads, join paths that then
        hold the same values, and above VALUE_PATHS forget more (`_forget_until`)."""
        if self._relevant is None:
            self._relevant, self._seeds = (
                _relevant_vars(self.src, self._root, self.watched_flags, self.watched_env)
                if self._root is not None
                else (frozenset(), frozenset())
            )
        relevant = self._relevant
        live = [s for s in states if not s.done]
        done = [s for s in states if s.done]
        keep = sorted(set().union(*((s.vars.keys() | s.exported) & relevant for s in live)))
        groups: dict[tuple[Any, ...], list[State]] = {}
        for st in live:
            key = (
                _variant_key(st),
                tuple(st.vars.get(k) for k in keep),
                tuple(k in st.exported for k in keep),
                tuple(sorted(st.files.items())) if st.files else (),
                st.positional,
                st.returning,
                st.breaking,
            )
            groups.setdefault(key, []).append(st)
        out = done + [_join(group) if len(group) > 1 else group[0] for group in groups.values()]
        if len(out) > VALUE_PATHS:
            out = _forget_until(out, VALUE_PATHS, self._seeds)
        return out

    def _join_by_variant(self, states: list[State]) -> list[State]:
        groups: dict[tuple[Any, ...], list[State]] = {}
        for st in states:
            if st.done:
                groups.setdefault(("done", id(st)), []).append(st)
                continue
            key = tuple(
                sorted(
                    (a for a in st.assumptions if a.var in VARIANT_VARS),
                    key=lambda a: (a.var, a.op, a.value, a.line),
                )
            )
            groups.setdefault(key, []).append(st)
        return [_join(group) if len(group) > 1 else group[0] for group in groups.values()]

    def _note_limit(self, node: Node, kind: InterpreterProblem, **params: str) -> None:
        if not any(p.kind == kind and p.params == params for p in self.problems):
            self.problems.append(problem(kind, node.start_point.row + 1, **params))

    def _merge(self, states: list[State]) -> list[State]:
        if len(states) < 2:
            return states
        seen: dict[tuple[Any, ...], State] = {}
        for st in states:
            kept = seen.setdefault(st.key(), st)
            if kept is not st and kept.history != st.history:
                # one path standing for both: only the facts both took still hold
                kept.history = tuple(a for a in kept.history if a in st.history)
        return list(seen.values())

    def _fork_allowed(self, n: int) -> bool:
        if n < MAX_PATHS:
            return True
        if not self._path_cap_reported:
            self._path_cap_reported = True
            self.problems.append(problem("too_many_paths", limit=str(MAX_PATHS)))
        return False

    # -------------------------------------------------------------- statements
    def stmt(self, node: Node, st: State, depth: int) -> list[State]:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget()
        if depth > MAX_NODE_DEPTH:
            raise RecursionError()
        t = node.type
        if t in ("variable_assignment", "variable_assignments"):
            assigns = (
                [node]
                if t == "variable_assignment"
                else [c for c in node.named_children if c.type == "variable_assignment"]
            )
            for a in assigns:
                self.assign(a, st)
            return [st]
        if t == "command":
            return self.command(node, st, depth, background=False)
        if t == "declaration_command":
            self.declaration(node, st)
            return [st]
        if t == "unset_command":
            for c in node.named_children:
                name = self.text(c)
                if not name.startswith("-"):
                    st.vars[name] = Str()
                    st.exported = st.exported - {name}
            return [st]
        if t == "redirected_statement":
            return self.redirected(node, st, depth)
        if t in ("compound_statement", "subshell", "do_group"):
            return self.block(list(node.named_children), [st], depth)
        if t == "if_statement":
            return self.if_statement(node, st, depth)
        if t == "case_statement":
            return self.case_statement(node, st, depth)
        if t in ("for_statement", "c_style_for_statement", "while_statement"):
            return self.loop(node, st, depth)
        if t == "function_definition":
            fname = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if fname is not None and body is not None:
                self.functions[self.text(fname)] = body
            return [st]
        if t == "list":
            return self.list_statement(node, st, depth)
        if t == "pipeline":
            states = [st]
            for c in node.named_children:
                states = self.block([c], states, depth)
            return states
        if t == "negated_command":
            return self.block(list(node.named_children), [st], depth)
        return [st]

    def list_statement(self, node: Node, st: State, depth: int) -> list[State]:
        kids = node.children
        ops = [c.type for c in kids if not c.is_named]
        named = [c for c in kids if c.is_named]
        if len(named) == 2 and ops in (["&&"], ["||"]):
            left, right = named
            is_test = self._is_test(left)
            truth = self.condition(left, st) if is_test else None
            if is_test or ops == ["||"]:
                want = ops == ["&&"]
                if truth is None:
                    if not self._has_effect(right):
                        return self.block([left], [st], depth)
                    states = self.block([left], [st], depth)
                    out: list[State] = []
                    for s in states:
                        taken = s.copy()
                        taken.assume(self.assumptions_for(left, want, s))
                        if self._fork_allowed(len(out) + 2):
                            out.extend(self.block([right], [taken], depth))
                            skipped = s.copy()
                            skipped.assume(self.assumptions_for(left, not want, s))
                            out.append(skipped)
                        else:
                            out.append(s)
                    return out
                if truth == want:
                    return self.block([right], [st], depth)
                return [st]
            return self.block([left, right], [st], depth)
        return self.block(named, [st], depth)

    def _has_effect(self, node: Node) -> bool:
        """Whether running `node` could change state or launch something."""
        if node.type in ("variable_assignment", "declaration_command", "unset_command"):
            return True
        if node.type == "command":
            name = node.child_by_field_name("name")
            word = self.text(name) if name is not None else ""
            if word in ("exit", "return", "echo", "printf", "true", "false", ":", "sleep", "break"):
                return word in ("exit", "return", "break")
            return True
        return any(self._has_effect(c) for c in node.named_children)

    def if_statement(self, node: Node, st: State, depth: int) -> list[State]:
        arms: list[tuple[Node | None, list[Node]]] = []
        cond: Node | None = node.child_by_field_name("condition")
        body: list[Node] = []
        for c in node.named_children:
            if c.type in ("elif_clause", "else_clause"):
                break
            if (
                c is not cond
                and c.type != "comment"
                and (cond is None or c.start_byte >= cond.end_byte)
            ):
                body.append(c)
        arms.append((cond, body))
        for c in node.named_children:
            if c.type == "elif_clause":
                ec = c.child_by_field_name("condition")
                if ec is None:
                    named = [x for x in c.named_children if x.type != "comment"]
                    ec, rest = (named[0], named[1:]) if named else (None, [])
                else:
                    rest = [
                        x
                        for x in c.named_children
                        if x.start_byte >= ec.end_byte and x.type != "comment"
                    ]
                arms.append((ec, rest))
            elif c.type == "else_clause":
                arms.append((None, [x for x in c.named_children if x.type != "comment"]))
        if len(arms) == 1 or arms[-1][0] is not None:
            arms.append((None, []))
        return self._arms(arms, st, depth)

    def _arms(
        self, arms: list[tuple[Node | None, list[Node]]], st: State, depth: int
    ) -> list[State]:
        """Run a chain of (condition, body) arms; a None condition is `else`."""
        out: list[State] = []
        pending = [st]
        for cond, body in arms:
            if not pending:
                break
            nxt_pending: list[State] = []
            for s in pending:
                if cond is None:
                    out.extend(self.block(body, [s], depth))
                    continue
                # commands in the condition run too (e.g. `if patch ...; then`)
                self._condition_commands(cond, s, depth)
                truth = self.condition(cond, s)
                if truth is True:
                    out.extend(self.block(body, [s], depth))
                elif truth is False:
                    nxt_pending.append(s)
                else:
                    if self._fork_allowed(len(out) + len(nxt_pending) + 2):
                        taken = s.copy()
                        taken.assume(self.assumptions_for(cond, True, s))
                        out.extend(self.block(body, [taken], depth))
                        rest = s.copy()
                        rest.assume(self.assumptions_for(cond, False, s))
                        nxt_pending.append(rest)
                    else:
                        out.extend(self.block(body, [s], depth))
            pending = nxt_pending
        return out + pending

    def case_statement(self, node: Node, st: State, depth: int) -> list[State]:
        value_node = node.child_by_field_name("value")
        subject = self.expand_one(value_node, st) if value_node is not None else Str()
        items = []
        for item in (c for c in node.named_children if c.type == "case_item"):
            pats = [
                item.children[i]
                for i in range(item.child_count)
                if item.field_name_for_child(i) == "value"
            ]
            body = [c for c in item.named_children if c not in pats and c.type != "comment"]
            term = next((c.type for c in item.children if c.type in (";;", ";&", ";;&")), ";;")
            items.append(([self._pattern_text(p, st) for p in pats], body, term, item))

        if subject.known:
            states = [st]
            i = 0
            while i < len(items):
                pat_texts = items[i][0]
                if any(p is not None and fnmatch.fnmatchcase(subject.text, p) for p in pat_texts):
                    nodes, i = self._case_run(items, i)
                    states = self.block(nodes, states, depth)
                    # `;;&` in the arm bash ended in: go on testing the arms after it
                    if items[i][2] != ";;&":
                        break
                i += 1
            return states
        opnd = self._operand(value_node, st) if value_node is not None else None
        if opnd is not None and opnd.ops:
            return self._default_arms(items, 0, st, opnd, depth)
        return self._unknown_arms(items, 0, st, opnd.var if opnd else None, depth)

    def _unknown_arms(
        self, items: list[Any], start: int, st: State, var: str | None, depth: int
    ) -> list[State]:
        """The states a `case` on a value not known here can end in, testing the arms
        from `start` on: every arm may match; an arm that ends in `;;&` goes on testing
        the arms after it."""
        out: list[State] = []
        rest = items[start:]
        has_default = any(p == "*" for pat_texts, _, _, _ in rest for p in pat_texts)
        # the values earlier `in`/`eq` facts leave: arms none of them match are not taken
        left = st.allowed(var) if var else None
        for i in range(start, len(items)):
            pat_texts, _, _, item = items[i]
            if not self._fork_allowed(len(out) + 2):
                continue
            literal = all(p and not any(ch in p for ch in "*?[") for p in pat_texts)
            if left is not None:
                hit = {
                    v
                    for v in left
                    if any(p is not None and fnmatch.fnmatchcase(v, p) for p in pat_texts)
                }
                if not hit:
                    continue
                left = left - hit
            branch = st.copy()
            if var and pat_texts and literal:
                values = sorted(set(p for p in pat_texts if p))
                op = "eq" if len(values) == 1 else "in"
                branch.assumptions += (
                    Assumption(var, op, "|".join(values), item.start_point.row + 1),
                )
            nodes, end = self._case_run(items, i)
            ran = self.block(nodes, [branch], depth)
            if items[end][2] == ";;&" and end + 1 < len(items):
                ran = [t for r in ran for t in self._unknown_arms(items, end + 1, r, var, depth)]
            out.extend(ran)
            if left is not None and not left:
                return out
        if not has_default:
            out.append(st)
        return out

    def _default_arms(
        self, items: list[Any], start: int, st: State, opnd: _Operand, depth: int
    ) -> list[State]:
        """`_unknown_arms` for a subject that is an input's default or alternative
        (`case "${V:-d}" in`): an arm is taken for the values of V whose expansion its
        patterns may match, and records them; the path no arm takes, the rest."""
        out: list[State] = []
        literals = {
            p
            for pats, _, _, _ in items[start:]
            for p in pats
            if p and not any(ch in p for ch in "*?[")
        }
        classes, finite = self._classes(opnd, literals | {""}, st)
        left = set(classes)
        for i in range(start, len(items)):
            pat_texts, _, _, item = items[i]
            maybe: set[str] = set()
            sure: set[str] = set()
            for k in left:
                got = {_case_match(o, pat_texts) for o in opnd.outputs(k)}
                if got != {False}:
                    maybe.add(k)
                if got == {True}:
                    sure.add(k)
            if not maybe or not self._fork_allowed(len(out) + 2):
                continue
            branch = st.copy()
            line = item.start_point.row + 1
            branch.assume(self._class_facts(opnd.var, classes, frozenset(maybe), finite, line))
            nodes, end = self._case_run(items, i)
            ran = self.block(nodes, [branch], depth)
            if items[end][2] == ";;&" and end + 1 < len(items):
                ran = [t for r in ran for t in self._default_arms(items, end + 1, r, opnd, depth)]
            out.extend(ran)
            left -= sure
            if not left:
                return out
        rest = st.copy()
        line = items[-1][3].end_point.row + 1 if items else 0
        rest.assume(self._class_facts(opnd.var, classes, frozenset(left), finite, line))
        out.append(rest)
        return out

    @staticmethod
    def _case_run(items: list[Any], i: int) -> tuple[list[Node], int]:
        """The bodies bash runs when arm i matches (`;&` falls through) and the arm
        it ends in, whose terminator decides what happens next."""
        nodes = list(items[i][1])
        while items[i][2] == ";&" and i + 1 < len(items):
            i += 1
            nodes.extend(items[i][1])
        return nodes, i

    def _pattern_text(self, node: Node, st: State) -> str | None:
        if node.type in ("word", "extglob_pattern", "number"):
            return self.text(node)
        s = self.expand_one(node, st)
        return s.value

    def loop(self, node: Node, st: State, depth: int) -> list[State]:
        body = node.child_by_field_name("body")
        if body is None:
            return [st]
        var = node.child_by_field_name("variable")
        if var is not None:
            st.vars[self.text(var)] = Str.unknown_of("$" + self.text(var))
        states = self.block([body], [st], depth)
        for s in states:
            s.breaking = False
        return states

    # ------------------------------------------------------------ assignments
    def assign(self, node: Node, st: State, export: bool = False) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = self.text(name_node)
        if name_node.type == "subscript":
            base = name_node.child_by_field_name("name")
            if base is not None:
                st.vars.pop(self.text(base), None)
            return
        value_node = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        value: Value
        if value_node is None:
            value = Str()
        elif value_node.type == "array":
            elems: list[Str] = []
            for c in value_node.named_children:
                if c.type != "comment":
                    elems.extend(self.expand(c, st))
            value = tuple(elems)
        else:
            value = self.expand_one(value_node, st, assignment=True)
        if isinstance(value, tuple) and len(value) > MAX_ARRAY:
            self._note_limit(node, "array_too_long", name=name, limit=f"{MAX_ARRAY:,}")
            value = Str.unknown_of("$" + name)
        if append:
            old = st.vars.get(name)
            if isinstance(old, tuple) and len(old) >= MAX_ARRAY:
                self._note_limit(node, "array_too_long", name=name, limit=f"{MAX_ARRAY:,}")
                st.vars[name] = Str.unknown_of("$" + name)
                return
            if isinstance(value, tuple):
                prev = (
                    old
                    if isinstance(old, tuple)
                    else ((old,) if isinstance(old, Str) and old.segs else ())
                )
                value = prev + value
            elif isinstance(old, Str):
                value = old + value
            elif old is None:
                value = Str.unknown_of("$" + name) + value
        st.vars[name] = value
        if export:
            st.exported = st.exported | {name}

    def declaration(self, node: Node, st: State) -> None:
        kw = node.children[0].type if node.children else ""
        export = kw == "export"
        for c in node.named_children:
            if c.type == "word" and self.text(c) == "-x":
                export = True
        for c in node.named_children:
            if c.type == "variable_assignment":
                self.assign(c, st, export=export)
            elif c.type == "variable_name" and export:
                st.exported = st.exported | {self.text(c)}

    # ----------------------------------------------------------------- commands
    def command(
        self,
        node: Node,
        st: State,
        depth: int,
        background: bool,
        heredoc: Str | None = None,
        redirect_to: Str | None = None,
    ) -> list[State]:
        inline: dict[str, Str] = {}
        words: list[Str] = []
        name_node = node.child_by_field_name("name")
        if (
            heredoc is None
            and redirect_to is None
            and name_node is not None
            and name_node.named_children
        ):
            head_node = name_node.named_children[0]
            head_text = self.text(head_node)
            if (
                head_node.type == "word"
                and head_text in self.inert
                and head_text not in self.report
            ):
                if head_text == ":" and any(
                    c.type in ("string", "expansion") for c in node.named_children
                ):
                    # `: "${V:=d}"` assigns V: expand its words for that, run nothing
                    for c in node.named_children:
                        if c.type != "command_name":
                            self.expand(c, st)
                return [st]
        for c in node.named_children:
            if c.type == "variable_assignment" and name_node is None:
                self.assign(c, st)
            elif c.type == "variable_assignment":
                nn = c.child_by_field_name("name")
                vn = c.child_by_field_name("value")
                if nn is not None:
                    inline[self.text(nn)] = self.expand_one(vn, st) if vn is not None else Str()
            elif c.type in ("command_name",):
                words.extend(self.expand(c.named_children[0], st) if c.named_children else [])
            elif (
                c.type in ("file_redirect", "herestring_redirect", "comment")
                or c.type == "subscript"
            ):
                continue
            else:
                words.extend(self.expand(c, st))
        if not words:
            return [st]
        head = words[0].value
        if head in ("exit",):
            code = words[1].value if len(words) > 1 else "0"
            st.done = True
            st.vars["?exit"] = Str.lit(code or "?")
            return [st]
        if head == "eval":
            # The evaluated text is not interpreted: every variable it may
            # assign becomes unknown, and an engine launched through it is
            # reported as unanalysed instead of being missed silently.
            evaluated = Str.join(words[1:], " ")
            for m in re.finditer(r"([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=", evaluated.text):
                st.vars[m.group(1)] = Str.unknown_of("$" + m.group(1))
            if not evaluated.known or re.search(
                r"vllm|sglang|trtllm|atom\.entrypoints", evaluated.text
            ):
                self._note_limit(node, "eval")
            return [st]
        if head == "return":
            st.returning = True
            return [st]
        if head in ("break", "continue"):
            st.breaking = True
            return [st]
        if head == "export":
            for w in words[1:]:
                text = w.text
                if "=" in text:
                    k, _, _ = text.partition("=")
                    st.vars[k] = _after_eq(w)
                    st.exported = st.exported | {k}
                elif re.fullmatch(r"[A-Za-z_]\w*", text):
                    st.exported = st.exported | {text}
            return [st]
        if head == "unset":
            for w in words[1:]:
                if w.value and not w.text.startswith("-"):
                    st.vars[w.text] = Str()
                    st.exported = st.exported - {w.text}
            return [st]
        if head == "printf" and len(words) > 2 and words[1].value == "-v":
            target = words[2].value
            if target and len(words) > 3:
                st.vars[target] = printf(words[3], words[4:])
            return [st]
        if head in ("cat", "tee") and heredoc is not None:
            dest = redirect_to
            if head == "tee":
                dests = argv.parse(words[1:], argv.spec_for("tee")).positionals
                dest = dests[0] if dests else dest
            if dest is not None:
                st.files[dest.text] = heredoc
        if head in self.functions and self.call_depth < MAX_CALL_DEPTH:
            body = self.functions[head]
            saved = st.positional
            st.positional = tuple(words[1:])
            self.call_depth += 1
            try:
                states = self.block([body], [st], depth)
            finally:
                self.call_depth -= 1
            for s in states:
                s.positional = saved
                s.returning = False
            return states
        self.on_command(
            Command(
                words=words,
                inline_env=inline,
                state=st,
                line=node.start_point.row + 1,
                end_line=node.end_point.row + 1,
                background=background,
                stdin=heredoc,
                redirect_to=redirect_to,
            )
        )
        return [st]

    def redirected(self, node: Node, st: State, depth: int) -> list[State]:
        body = node.child_by_field_name("body")
        heredoc: Str | None = None
        dest: Str | None = None
        for i in range(node.child_count):
            c = node.children[i]
            if c.type == "heredoc_redirect":
                heredoc = self.heredoc(c, st)
                for cc in c.named_children:
                    if cc.type == "file_redirect":
                        dest = self._redirect_dest(cc, st) or dest
            elif c.type == "file_redirect":
                d = self._redirect_dest(c, st)
                op = c.children[0].type if c.children else ""
                if d is not None and op in (">", ">>", ">|"):
                    dest = d
        if body is None:
            return [st]
        if body.type == "command":
            return self.command(
                node=body, st=st, depth=depth, background=False, heredoc=heredoc, redirect_to=dest
            )
        return self.block([body], [st], depth)

    def _redirect_dest(self, node: Node, st: State) -> Str | None:
        d = node.child_by_field_name("destination")
        if d is None:
            return None
        return self.expand_one(d, st)

    def heredoc(self, node: Node, st: State) -> Str:
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        if body is None:
            return Str()
        quoted = start is not None and any(q in self.text(start) for q in "'\"\\")
        if quoted:
            return _lit_segs(self.text(body), *self.start(body))
        return self._concat_children(body, st, unescape=False)

    # --------------------------------------------------------------- conditions
    # `[ ... ]`, `[[ ... ]]` and `test ...` are read into one small tree (`_Test`)
    # and decided, and the facts each arm tells recorded, the same way for all three.
    # `[` and `test` are read from their words as bash reads them (tree-sitter's tree
    # of `[ "$A" = a -a "$B" = b ]` or `[ ! "$A" = a ]` is not bash's); `[[` from the
    # syntax tree. An operand that is one variable's expansion -- `$V`, `${V:-d}`,
    # `${V-d}`, `${V:=d}`, `${V=d}`, `${V:+x}`, `${V+x}`, quoted or not, or a variable
    # that holds such an expansion of an input (`M=${V:-d}`) -- is decided over the
    # values V can take (`_Operand`, `_classes`): its domain (`env_domains`), or the
    # literals the test names plus "any other value". An arm is taken only for the
    # values that lead to it, and it records what that says about V, so a later test
    # of V (in any form) stays consistent with it.

    def _condition_commands(self, cond: Node, st: State, depth: int) -> None:
        """Report the commands an `if`/`elif` condition runs (`if patch ...; then`). They
        run on a copy: what a condition assigns is not followed, only its commands seen."""
        stack = [cond]
        while stack:
            n = stack.pop()
            if n.type == "command":
                name = n.child_by_field_name("name")
                if name is None or self.text(name) not in ("true", "false", ":"):
                    self.stmt(n, st.copy(), depth + 1)
            elif n.type in ("redirected_statement", "pipeline"):
                self.stmt(n, st.copy(), depth + 1)
            elif n.type in ("list", "negated_command", "compound_statement", "subshell"):
                stack.extend(reversed(n.named_children))

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
                return _and(a, b) if ops == ["&&"] else _or(a, b)
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
        if node.type == "test_command" or _is_arith_command(node):
            return True
        if node.type != "command":
            return False
        name = node.child_by_field_name("name")
        return name is not None and self.text(name) == "test"

    def _test_of(self, node: Node) -> _Test | None:
        """The `_Test` of a `[`, `[[` or `test` node (None: another node, or a test
        this reading does not follow)."""
        line = node.start_point.row + 1
        if node.type == "test_command":
            if node.children and node.children[0].type == "[[":
                kids = [c for c in node.named_children if c.type != "comment"]
                return self._double_test(kids[0], line) if len(kids) == 1 else None
            return _parse_test_words(self._bracket_words(node), line)
        if _is_arith_command(node):
            kids = [c for c in node.named_children if c.type != "comment"]
            return self._arith_test(kids[0], line) if len(kids) == 1 else None
        if not self._is_test(node):
            return None
        words: list[_TestWord] = []
        for c in node.named_children:
            if c.type in ("command_name", "comment", "variable_assignment"):
                continue
            if c.type in ("file_redirect", "herestring_redirect"):
                continue
            words.append((self.text(c) if c.type == "word" else None, c))
        return _parse_test_words(words, line)

    def _bracket_words(self, node: Node) -> list[_TestWord]:
        """The words of `[ ... ]` in order, as `test` would get them."""
        out: list[_TestWord] = []
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

    def _double_test(self, node: Node, line: int) -> _Test | None:
        """The `_Test` of the expression inside `[[ ... ]]`."""
        t = node.type
        kids = [c for c in node.named_children if c.type != "comment"]
        if t == "parenthesized_expression":
            return self._double_test(kids[0], line) if kids else None
        if t == "unary_expression":
            if node.children and node.children[0].type == "!":
                inner = self._double_test(kids[0], line) if kids else None
                return _Test("!", parts=(inner,), line=line) if inner is not None else None
            op_n = node.child_by_field_name("operator")
            operands = [c for c in kids if c.type != "test_operator"]
            if op_n is None or len(operands) != 1:
                return None
            return _Test(self.text(op_n), words=(operands[0],), double=True, line=line)
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
                return _Test("&&" if op in ("&&", "-a") else "||", parts=(a, b), line=line)
            if op not in _BINARY_TESTS:
                return None
            if (
                left.type == "unary_expression"
                and left.children
                and left.children[0].type == "!"
                and left.named_children
            ):
                # `[[ ! $V == x ]]` is `! ($V == x)`; tree-sitter reads `(! $V) == x`
                inner = _Test(op, words=(left.named_children[0], right), double=True, line=line)
                return _Test("!", parts=(inner,), line=line)
            return _Test(op, words=(left, right), double=True, line=line)
        return _Test("", words=(node,), double=True, line=line)

    def _arith_test(self, node: Node, line: int) -> _Test | None:
        """The `_Test` of an arithmetic command's comparisons (`(( TP == 4 ))`, joined
        by `&&`/`||`, negated by `!`); None for any other arithmetic."""
        t = node.type
        kids = [c for c in node.named_children if c.type != "comment"]
        if t == "parenthesized_expression":
            return self._arith_test(kids[0], line) if len(kids) == 1 else None
        if t == "unary_expression" and node.children and node.children[0].type == "!":
            inner = self._arith_test(kids[0], line) if len(kids) == 1 else None
            return _Test("!", parts=(inner,), line=line) if inner is not None else None
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
            return _Test(op, parts=(a, b), line=line)
        simple = ("variable_name", "simple_expansion", "expansion", "number")
        if op not in _ARITH_TESTS or left.type not in simple or right.type not in simple:
            return None
        return _Test(_ARITH_TESTS[op], words=(left, right), double=True, line=line)

    def _truth(self, t: _Test, st: State) -> bool | None:
        if t.op == "const":
            return t.value
        if t.op == "!":
            inner = self._truth(t.parts[0], st)
            return None if inner is None else not inner
        if t.op == "&&":
            return _and(self._truth(t.parts[0], st), self._truth(t.parts[1], st))
        if t.op == "||":
            return _or(self._truth(t.parts[0], st), self._truth(t.parts[1], st))
        return self._judge(t, st, None)[0]

    def _test_facts(self, t: _Test, truth: bool, st: State) -> Iterator[Assumption]:
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

    def _judge(
        self, t: _Test, st: State, want: bool | None
    ) -> tuple[bool | None, list[Assumption]]:
        """A primary test (a word, a unary or a binary operator) on this path: its
        truth, and, for `want`, the facts on an input that taking that arm tells."""
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
            return self._judge_values(t, values), []
        other = values[1 - side] if len(values) == 2 else None
        literals = {""} | ({other.text} if other is not None else set())
        classes, finite = self._classes(opnd, literals, st)
        if t.op in _NUMERIC_TESTS and not opnd.ops and len(classes) > 1:
            # a numeric test of an empty `$V` is an error bash only reports (and
            # `check_env_vars` rejects): it is decided, and recorded, by the numbers
            classes = classes - {""}
        truths = {k: self._class_truth(t, opnd, side, k, other, st) for k in classes}
        found = set(truths.values())
        truth = found.pop() if len(found) == 1 else None
        if want is None or not classes:
            return truth, []
        taken = frozenset(k for k, v in truths.items() if v is None or v == want)
        return truth, self._arm_facts(t, opnd, side, other, classes, taken, finite, want)

    def _operand(self, node: Node, st: State) -> _Operand | None:
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
            if op not in _DEFAULT_OPS or (not op and len(kids) > 1):
                return None
            name = self.text(kids[0])
            value = Str.join([self.expand_one(c, st) for c in kids[1:]])
            if not value.known:
                return None
            arg = value.text
        else:
            return None
        if not _IDENT_RE.fullmatch(name):
            return None
        held = self._input_of(name, st)
        if held is None:
            return None
        var, ops = held
        return _Operand(var, _normal_ops((*ops, (op, arg))), quoted)

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
        return _held_input(value.segs[0]) or (name, ())

    def _classes(
        self, opnd: _Operand, literals: set[str], st: State
    ) -> tuple[frozenset[str], bool]:
        """The classes of values the input can take on this path, and whether they are
        all its values (its domain or an `eq`/`in` fact) or `_OTHER` stands for the
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
            values = frozenset(literals - ne) | {_OTHER}
        lo, hi = st.interval(var)
        if lo is not None or hi is not None:
            values = frozenset(
                k
                for k in values
                if (n := _to_int(k)) is None
                or k == _OTHER
                or ((lo is None or n >= lo) and (hi is None or n <= hi))
            )
        return frozenset(values), finite

    def _class_truth(
        self, t: _Test, opnd: _Operand, side: int, cls: str, other: Str | None, st: State
    ) -> bool | None:
        got = {self._output_truth(t, opnd, side, o, other, st) for o in opnd.outputs(cls)}
        return got.pop() if len(got) == 1 else None

    def _output_truth(
        self, t: _Test, opnd: _Operand, side: int, out: str, other: Str | None, st: State
    ) -> bool | None:
        """The test when the operand expands to `out` (`_OTHER`: a value no literal names)."""
        if out == "" and not opnd.quoted and not t.double:
            # `[ $V = x ]` with V empty is `[ = x ]`: the word is gone and bash errs
            # (false); `[ -n $V ]` is `[ -n ]`, true; `[ $V ]` is `[ ]`, false
            if not t.top:
                return None
            return t.op in _UNARY_TESTS
        if t.op in ("", "-n"):
            return out != ""
        if t.op == "-z":
            return out == ""
        if other is None:
            return None
        c = other.text
        if t.op in ("=", "==", "!="):
            # in `[[`, an unquoted right side is a pattern
            pattern = t.double and side == 0 and _unquoted(t.words[1])
            if side == 1 and t.double and not opnd.quoted:
                # the operand itself is the pattern
                if out == _OTHER:
                    return None
                same = fnmatch.fnmatchcase(c, out)
            elif out == _OTHER:
                if pattern and any(ch in c for ch in "*?["):
                    return None
                same = False
            else:
                glob = pattern and any(ch in c for ch in "*?[")
                same = fnmatch.fnmatchcase(out, c) if glob else out == c
            return same if t.op != "!=" else not same
        if t.op in _NUMERIC_TESTS:
            n = _to_int(c)
            if n is None:
                return None
            op = t.op if side == 0 else _FLIP[t.op]
            if out == _OTHER:
                within = _within(st, opnd.var, op, n)
                if within is None and op in ("-eq", "-ne"):
                    return op == "-ne"  # a value no literal names is not n
                return within
            v = 0 if out == "" and t.double else _to_int(out)
            if v is None:
                # `[ "" -eq 1 ]`, `[ abc -eq 1 ]`: bash errs (false); `[[` evaluates it
                return False if not t.double else None
            return _compare(op, v, n)
        return None

    def _arm_facts(
        self,
        t: _Test,
        opnd: _Operand,
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
        numeric = t.op in _NUMERIC_TESTS and other is not None and _to_int(other.text) is not None
        if numeric and t.op not in ("-eq", "-ne"):
            n = _to_int(other.text) if other is not None else None
            assert n is not None
            op = t.op if side == 0 else _FLIP[t.op]
            bound, offset = _RANGE[op][want]
            facts = [Assumption(var, bound, str(n + offset), line)] if _OTHER in taken else []
            if opnd.ops and "" in classes and "" not in taken:
                facts.append(Assumption(var, "ne", "", line))
            return facts
        if taken == classes:
            return []
        if not opnd.ops:
            # no facts (`-n "$V"` of an input without a domain) is a choice that keeps
            # launch conditions short; facts that say more than `taken` are not used
            natural = self._natural_facts(t, opnd, other, want)
            if natural is not None and (not natural or _implied(natural, classes) == taken):
                return natural
        return self._class_facts(var, classes, taken, finite, line)

    @staticmethod
    def _class_facts(
        var: str, classes: frozenset[str], taken: frozenset[str], finite: bool, line: int
    ) -> list[Assumption]:
        """Facts that leave `var` only the classes `taken` of `classes`: `V!=x` for each
        value left out when those say it (the rest is `_OTHER` or the domain), else
        `V=x` for one value, `V` in `x|y` for several."""
        if taken == classes or not taken:
            return []
        if _OTHER in taken or (finite and len(taken) > 1):
            return [Assumption(var, "ne", k, line) for k in sorted(classes - taken)]
        if len(taken) == 1:
            return [Assumption(var, "eq", next(iter(taken)), line)]
        return [Assumption(var, "in", "|".join(sorted(taken)), line)]

    def _natural_facts(
        self, t: _Test, opnd: _Operand, other: Str | None, want: bool
    ) -> list[Assumption] | None:
        """The facts a plain `$V` test has always recorded: `V=c` / `V!=c`; `V` empty
        or not for `-z`/`-n` of an input with a domain (none without one)."""
        var, line = opnd.var, t.line
        if t.op in ("=", "==", "!=", "-eq", "-ne") and other is not None:
            c = other.text
            if t.op in ("-eq", "-ne"):
                n = _to_int(c)
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

    def _judge_values(self, t: _Test, values: list[Str]) -> bool | None:
        """A primary test over its expanded words, none of them an input's expansion."""
        for w, v in zip(t.words, values, strict=True):
            if v.known and v.text == "" and not t.double and _unquoted(w):
                return t.op in _UNARY_TESTS if t.top else None
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
            glob = t.double and _unquoted(t.words[1]) and any(ch in rv.text for ch in "*?[")
            same = fnmatch.fnmatchcase(lv.text, rv.text) if glob else lv.text == rv.text
            return same if t.op != "!=" else not same
        if t.op in _NUMERIC_TESTS:
            a, b = _to_int(lv.value), _to_int(rv.value)
            if a is None or b is None:
                return None
            return _compare(t.op, a, b)
        return None

    # -------------------------------------------------------------- expansions
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
        row, col = self.start(node)
        if t in ("word", "number", "extglob_pattern", "regex", "test_operator"):
            # a literal is the same value on every path: built once per node
            span = (node.start_byte, node.end_byte)
            word = self._words.get(span)
            if word is None:
                raw = self.text(node)
                if "\\" in raw:
                    raw = re.sub(r"\\(.)", r"\1", raw)
                word = self._words[span] = Str.lit(raw, row + 1, col + 1)
            return word
        if t == "raw_string":
            raw = self.text(node)[1:-1]
            return _lit_segs(raw, row, col + 1)
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
        return _lit_segs(raw, row, col, unescape=unescape)

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
            # ${#X} / ${#A[@]}
            if first.type == "subscript":
                base = first.child_by_field_name("name")
                val = st.vars.get(self.text(base)) if base is not None else None
                if isinstance(val, tuple):
                    return Str.lit(str(len(val)))
                return Str.unknown_of(raw, row + 1, col + 1)
            v = self.lookup(self.text(first), st, row, col)
            return Str.lit(str(len(v.text))) if v.known else Str.unknown_of(raw, row + 1, col + 1)
        if first.type == "subscript":
            arr = self._array_ref(node, st)
            if arr is not None:
                return Str.join(arr, " ")
            base = first.child_by_field_name("name")
            index = first.child_by_field_name("index")
            val = st.vars.get(self.text(base)) if base is not None else None
            if isinstance(val, tuple) and index is not None:
                i = _to_int(self.expand_one(index, st).value)
                if i is not None and -len(val) <= i < len(val):
                    return val[i]
            return Str.unknown_of(raw, row + 1, col + 1)
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
        # an input with an `eq ""` fact is unset or empty: `${V-d}` may be either
        eq = st.eq_value(name)
        is_set = name in st.vars or (eq is not None and (eq != "" or op.startswith(":")))
        if op in (":-", "-", ":=", "="):
            if is_set:
                if op.startswith(":") and value.known and value.text == "":
                    chosen = arg
                else:
                    return value
            elif name not in st.vars:
                # an environment variable: its default is what the script shows
                # but the real value may differ; keep it symbolic, with the default
                # recorded so rules can still read the script's intent.
                chosen = (
                    Str(
                        (
                            Seg(
                                arg.text,
                                *_first_pos(arg),
                                unknown="${" + name + op + arg.text + "}",
                            ),
                        )
                    )
                    if arg.known
                    # the whole expansion: `$name` would read as the input's own value
                    else Str.unknown_of(raw, row + 1, col + 1)
                )
                if op in (":=", "="):
                    st.vars[name] = chosen
                return chosen
            else:
                chosen = arg
            if op in (":=", "="):
                st.vars[name] = chosen
            return chosen
        if op in (":+", "+"):
            if not value.known or (op == "+" and not is_set):
                return Str.unknown_of(raw, row + 1, col + 1)
            return arg if (value.text or op == "+") else Str()
        if not value.known:
            return Str.unknown_of(raw, row + 1, col + 1)
        text = value.text
        pat = arg.text if arg.known else None
        if pat is None:
            return Str.unknown_of(raw, row + 1, col + 1)
        if op in ("%", "%%", "#", "##"):
            if len(text) > MAX_TRIM:
                return Str.unknown_of(raw, row + 1, col + 1)
            return Str.lit(_trim(text, pat, op), *(_first_pos(value)))
        if op in (",,", "^^", ",", "^"):
            return Str.lit(
                text.lower() if op.startswith(",") else text.upper(), *(_first_pos(value))
            )
        return Str.unknown_of(raw, row + 1, col + 1)

    def arithmetic(self, node: Node, st: State) -> Str:
        row, col = self.start(node)
        raw = self.text(node)
        inner = raw[3:-2] if raw.startswith("$((") else raw

        def var(name: str) -> int | None:
            v = self.lookup(name, st)
            return _to_int(v.value)

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
                        return Str((Seg(v, *_first_pos(prog[0])),))
        return Str.unknown_of(raw, row + 1, col + 1)


# ------------------------------------------------------------------- helpers
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_FOREVER = 1 << 62


def _last_uses(source: bytes, root: Node | None = None) -> dict[str, int]:
    """Byte offset of the last textual mention of each identifier.

    Names mentioned inside function bodies live forever (a function may be
    called after its definition), and so does EVAL_ONLY, which names variants.
    Function bodies come from the syntax tree; nested ones are merged into
    intervals so each byte is scanned once.
    """
    seen: dict[bytes, int] = {}
    for m in _IDENT.finditer(source):
        seen[m.group()] = m.end()
    spans: list[tuple[int, int]] = []
    if root is not None:
        for node in QueryCursor(_function_query()).captures(root).get("f", []):
            spans.append((node.start_byte, node.end_byte))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    for start, end in merged:
        for name in _IDENT.findall(source, start, end):
            seen[name] = _FOREVER
    last = {name.decode(): pos for name, pos in seen.items()}
    last["EVAL_ONLY"] = _FOREVER
    return last


@lru_cache(maxsize=1)
def _function_query() -> Query:
    return Query(Language(tree_sitter_bash.language()), "(function_definition) @f")


def _variant_key(st: State) -> tuple[Any, ...]:
    return tuple(
        sorted(
            (a for a in st.assumptions if a.var in VARIANT_VARS),
            key=lambda a: (a.var, a.op, a.value, a.line),
        )
    )


def _relevant_vars(
    source: bytes, root: Node, flags: frozenset[str], env: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """Variables whose values the rules read: they keep paths apart past SOFT_PATHS;
    and the seeds among them, which a watched flag or name reads directly.

    Static and by name: a variable written right after a watched flag
    (`--gpu-memory-utilization "$MEM"`, `--spec-decode-acceptance-rate=$R`), a
    variable whose assigned text carries a watched flag (`SPEC_ARGS=(... --method
    dspark ...)`), a watched environment name, and, to a fixed point, whatever
    the assignments of those variables (but not of flag carriers) read.
    """
    text = source.decode("utf-8", errors="replace")
    seeds: set[str] = set()
    for m in _AFTER_FLAG.finditer(text):
        if m.group(1) in flags:
            seeds.add(m.group(2))
    caps = QueryCursor(_relevance_query()).captures(root)
    refs = sorted((n.start_byte, _node_text(source, n)) for n in caps.get("ref", []))
    starts = [r[0] for r in refs]
    deps: dict[str, set[str]] = {}
    carriers: set[str] = set()
    for node in caps.get("assign", []):
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None:
            continue
        var = _node_text(source, name).split("[", 1)[0]
        if var in env:
            seeds.add(var)
        if value is None:
            continue
        if any(tok in flags for tok in _FLAG_TOKEN.findall(_node_text(source, value))):
            carriers.add(var)
            continue
        lo = bisect.bisect_left(starts, value.start_byte)
        hi = bisect.bisect_left(starts, value.end_byte)
        deps.setdefault(var, set()).update(name for _, name in refs[lo:hi])
    relevant: set[str] = set(carriers)
    todo = list(seeds)
    while todo:
        var = todo.pop()
        if var not in relevant:
            relevant.add(var)
            todo.extend(deps.get(var, ()))
    return frozenset(relevant), frozenset(seeds | carriers)


_AFTER_FLAG = re.compile(r"(--[\w-]+)(?:=|[\s\\]+)[\"']?\$\{?([A-Za-z_]\w*)")
_FLAG_TOKEN = re.compile(r"--[\w-]+")


def _relevance_query() -> Query:
    """The query, compiled once per thread (with the thread's parser)."""
    return _THREAD.relevance


def _node_text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _holds_known(v: Value | None) -> bool:
    if v is None:
        return False
    if isinstance(v, tuple):
        return any(e.known for e in v)
    return v.known and v.text != ""


def _path_key(st: State, drop: set[str]) -> tuple[Any, ...]:
    """What tells paths apart once the variables in `drop` are forgotten."""
    return (
        _variant_key(st),
        tuple(sorted((k, v) for k, v in st.vars.items() if k not in drop)),
        st.exported - drop,
        tuple(sorted(st.files.items())),
        st.positional,
        st.returning,
        st.breaking,
    )


def _forget_until(
    states: list[State], cap: int, seeds: frozenset[str] = frozenset()
) -> list[State]:
    """Join paths until at most `cap` are left, forgetting as few values as possible.

    Values that always change together (one `case` arm sets `AL` and `K`) form a
    group, forgotten together or not at all, so the values of one arm stay
    together. Groups that hold no known value on any path (`MODEL_PATH` unset or
    `$MODEL`, an exported `$ROCR_VISIBLE_DEVICES`) go first, then the group whose
    forgetting joins the most paths. Paths of different variants (`EVAL_ONLY`)
    are never joined here. A value a watched flag reads directly (`seeds`: a
    memory fraction set per branch, `0.98` when `TP == 4`) is forgotten last, and
    the paths it alone tells apart are kept beyond `cap` (up to SEED_PATHS), so
    a rule sees every branch's value with its condition.
    """
    live = [s for s in states if not s.done]
    done = [s for s in states if s.done]
    # one row per path: what no variable accounts for, then one id per variable
    base_ids: dict[Any, int] = {}
    base = [
        base_ids.setdefault(
            (
                _variant_key(s),
                tuple(sorted(s.files.items())),
                s.positional,
                s.returning,
                s.breaking,
            ),
            len(base_ids),
        )
        for s in live
    ]
    names = sorted(set().union(*(set(s.vars) | s.exported for s in live)))
    groups: dict[tuple[int, ...], list[str]] = {}
    for name in names:
        ids: dict[Any, int] = {}
        col = tuple(ids.setdefault((s.vars.get(name), name in s.exported), len(ids)) for s in live)
        if len(ids) > 1:
            groups.setdefault(col, []).append(name)
    cols = list(groups)
    known = [any(_holds_known(s.vars.get(n)) for n in groups[c] for s in live) for c in cols]
    seeded = [known[i] and any(n in seeds for n in groups[c]) for i, c in enumerate(cols)]
    kept = list(range(len(cols)))
    forgotten: set[str] = set()

    def count(keep: list[int]) -> int:
        return len({(base[i], *(cols[k][i] for k in keep)) for i in range(len(live))})

    limit = min(max(cap, count([k for k in kept if seeded[k]])), SEED_PATHS)
    while count(kept) > limit and kept:
        best: tuple[tuple[int, int, int, int], int] | None = None
        for k in kept:
            cost = (
                int(seeded[k]),
                int(known[k]),
                count([j for j in kept if j != k]),
                len(groups[cols[k]]),
            )
            if best is None or cost < best[0]:
                best = (cost, k)
        assert best is not None
        kept.remove(best[1])
        forgotten.update(groups[cols[best[1]]])
    by_key: dict[tuple[Any, ...], list[State]] = {}
    for i, s in enumerate(live):
        key = (base[i], *(cols[k][i] for k in kept))
        by_key.setdefault(key, []).append(s)
    live = [_join(g) if len(g) > 1 else g[0] for g in by_key.values()]
    if len(live) > limit:
        # what is left differs in files, positional words or control flow only
        by_variant: dict[tuple[Any, ...], list[State]] = {}
        for s in live:
            by_variant.setdefault(_variant_key(s), []).append(s)
        live = [_join(g) if len(g) > 1 else g[0] for g in by_variant.values()]
    return done + live


def _join(states: list[State]) -> State:
    """One state standing for several: disagreeing values become unknown."""
    first = states[0]
    out = first.copy()
    names = set().union(*(s.vars.keys() for s in states))
    for name in names:
        values = [s.vars.get(name) for s in states]
        if all(v == values[0] for v in values[1:]):
            continue
        out.vars[name] = Str.unknown_of("$" + name)
    out.exported = frozenset().union(*(s.exported for s in states))
    for path in list(out.files):
        if any(s.files.get(path) != out.files[path] for s in states[1:]):
            del out.files[path]
    common = set(first.assumptions)
    for s in states[1:]:
        common &= set(s.assumptions)
    out.assumptions = tuple(a for a in first.assumptions if a in common)
    # a joined path keeps a bound only when every path has it
    kept = set(first.bounds)
    for s in states[1:]:
        kept &= set(s.bounds)
    out.bounds = tuple(a for a in first.bounds if a in kept)
    facts = set(first.conditions())
    for s in states[1:]:
        facts &= set(s.conditions())
    out.history = tuple(
        a for a in first.conditions() if a in facts and a not in out.assumptions and a not in kept
    )
    return out


def _first_pos(s: Str) -> tuple[int, int]:
    for seg in s.segs:
        if seg.line > 0:
            return seg.line, seg.col
    return 0, 1


def _after_eq(w: Str) -> Str:
    return argv.after(w, w.text.index("=") + 1)


_DQ_ESC = re.compile(r"\\([$`\"\\\n])")


def _chars(source: bytes, at: int, byte_col: int) -> int:
    """The character column of byte offset `at`, `byte_col` bytes into its line."""
    return len(source[at - byte_col : at].decode("utf-8", errors="replace"))


def _lit_segs(raw: str, row: int, col: int, unescape: bool = False) -> Str:
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


# op -> truth -> (bound, offset): the inclusive bound an arm of `[ "$X" op N ]` puts on X
_RANGE: dict[str, dict[bool, tuple[str, int]]] = {
    "-gt": {True: ("ge", 1), False: ("le", 0)},
    "-ge": {True: ("ge", 0), False: ("le", -1)},
    "-lt": {True: ("le", -1), False: ("ge", 0)},
    "-le": {True: ("le", 0), False: ("ge", 1)},
}


def _within(st: State, var: str, op: str, n: int) -> bool | None:
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


def _to_int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip(), 0) if text.strip() else None
    except ValueError:
        return None


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return None


def _or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return None


# ---------------------------------------------------------- test expressions
# (see "conditions" in `Interpreter`) A word of `[`/`test`: its literal text when it
# is a plain word or an operator, and its node when it is an operand.
_TestWord = tuple[str | None, Node | None]

# fmt: off
_UNARY_TESTS = frozenset({
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-n", "-o", "-p", "-r",
    "-s", "-t", "-u", "-v", "-w", "-x", "-z", "-G", "-L", "-N", "-O", "-R", "-S",
})
# fmt: on
_NUMERIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_BINARY_TESTS = frozenset({"=", "==", "!=", "<", ">", "-nt", "-ot", "-ef"}) | _NUMERIC_TESTS
# `(( a op b ))` comparisons as test operators
_ARITH_TESTS = {"==": "-eq", "!=": "-ne", "<": "-lt", "<=": "-le", ">": "-gt", ">=": "-ge"}
# `a op b` read as `b op' a`
_FLIP = {"-eq": "-eq", "-ne": "-ne", "-lt": "-gt", "-le": "-ge", "-gt": "-lt", "-ge": "-le"}
# the expansions an operand may go through: none, a default, an assigned default,
# an alternative (each with `:`: also when the value is empty)
_DEFAULT_OPS = frozenset({"", ":-", "-", ":=", "=", ":+", "+"})
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a class of values standing for every value of an input that no literal of the
# test names (so never "", and equal to none of them)
_OTHER = "\x00other"


@dataclass(frozen=True)
class _Test:
    """One test of `[`, `[[` or `test`, as bash reads it.

    `op` is "!", "&&", "||", "const" (`[ ]`), "" (a lone word: true when not
    empty), or a unary or binary operator over `words` (operand nodes, or literal
    text where an operator word stands as an operand)."""

    op: str
    words: tuple[Node | str, ...] = ()
    parts: tuple[_Test, ...] = ()
    double: bool = False  # `[[`: no word splitting; an unquoted right side is a pattern
    # `[`/`test` with this test as all of it: a word that expands to nothing unquoted
    # leaves a shorter test bash still reads (`[ -n $V ]` is `[ -n ]`, true)
    top: bool = False
    value: bool = False  # of "const"
    line: int = 0


@dataclass(frozen=True)
class _Operand:
    """A test word that is the value of input `var` through `ops`, innermost first:
    `("", "")` reads it, `(":-", "d")` defaults it, ... (`_DEFAULT_OPS`)."""

    var: str
    ops: tuple[tuple[str, str], ...]
    quoted: bool

    def outputs(self, value: str) -> frozenset[str]:
        """What the word expands to when `var` is `value` ("" stands for unset or
        empty, as in `env_domains`; `_OTHER` for any value no literal names)."""
        vals: set[str | None] = {None, ""} if value == "" else {value}
        for op, arg in self.ops or (("", ""),):
            vals = {_apply_op(op, arg, v) for v in vals}
        return frozenset("" if v is None else v for v in vals)


def _is_arith_command(node: Node) -> bool:
    """`(( ... ))` as a command or condition."""
    return (
        node.type == "compound_statement" and node.child_count > 0 and node.children[0].type == "(("
    )


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


def _normal_ops(ops: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """Drop the expansions that leave every value as it is (`$V`, `${V:-}`)."""
    return tuple((op, arg) for op, arg in ops if op not in ("", ":-", "-", ":=", "=") or arg)


# what the interpreter stores for an input's default (`param_expansion`): text `d`,
# unknown `${V:-d}`; for an alternative, unknown and text `${V:+x}`; for `$V`, `$V`
_HELD = re.compile(r"\$\{([A-Za-z_]\w*)(:?[-=+])(.*)\}", re.S)


def _held_input(seg: Seg) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """The input and expansion an unknown value stands for, when it is one of an input's
    defaults or alternatives (`M=${V:-d}` holds `${V:-d}`); else None."""
    m = _HELD.fullmatch(seg.unknown or "")
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


def _unquoted(w: Node | str) -> bool:
    return not isinstance(w, str) and w.type not in (
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
    )


def _compare(op: str, a: int, b: int) -> bool:
    return {
        "-eq": a == b,
        "-ne": a != b,
        "-lt": a < b,
        "-le": a <= b,
        "-gt": a > b,
        "-ge": a >= b,
    }[op]


def _implied(facts: list[Assumption], classes: frozenset[str]) -> frozenset[str]:
    """The classes `facts` leave (`_OTHER` stays unless an `eq`/`in` fact pins the value)."""
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
                if (v := _to_int(k)) is None or k == _OTHER or (v >= n if a.op == "ge" else v <= n)
            }
    return frozenset(out)


def _held_inputs(st: State) -> set[str]:
    """The inputs whose defaults or alternatives the path's variables hold."""
    out: set[str] = set()
    for v in st.vars.values():
        if isinstance(v, Str) and len(v.segs) == 1 and v.segs[0].unknown is not None:
            held = _held_input(v.segs[0])
            if held is not None:
                out.add(held[0])
    return out


def _case_match(out: str, patterns: list[str | None]) -> bool | None:
    """Whether a `case` arm's patterns match the subject `out` (None: may or may not)."""
    got: bool | None = False
    for p in patterns:
        if p is None:
            got = None
        elif out == _OTHER:
            if p == "*":
                return True
            if any(ch in p for ch in "*?["):
                got = None
        elif fnmatch.fnmatchcase(out, p):
            return True
    return got


class _Unread(Exception):
    pass


def _parse_test_words(words: list[_TestWord], line: int) -> _Test | None:
    """The `_Test` of the words of `[ ... ]` or `test ...`, as bash's `test` reads them:
    by the number of words up to four (POSIX), by precedence (`-o` < `-a` < `!`)
    beyond. None: a test bash would reject, or one this reading does not follow."""

    def lit(i: int) -> str | None:
        return words[i][0]

    def word(i: int) -> Node | str:
        text, node = words[i]
        return node if node is not None else (text or "")

    def positional(lo: int, hi: int, top: bool) -> _Test | None:
        n = hi - lo
        if n == 0:
            return _Test("const", value=False, line=line)
        if n == 1:
            return _Test("", words=(word(lo),), top=top, line=line)
        if n == 2:
            if lit(lo) == "!":
                inner = positional(lo + 1, hi, False)
                return _Test("!", parts=(inner,), line=line) if inner is not None else None
            if lit(lo) in _UNARY_TESTS:
                return _Test(str(lit(lo)), words=(word(lo + 1),), top=top, line=line)
            return None
        if n == 3:
            mid = lit(lo + 1)
            if mid in _BINARY_TESTS:
                return _Test(mid, words=(word(lo), word(lo + 2)), top=top, line=line)
            if mid in ("-a", "-o"):
                a = _Test("", words=(word(lo),), line=line)
                b = _Test("", words=(word(lo + 2),), line=line)
                return _Test("&&" if mid == "-a" else "||", parts=(a, b), line=line)
            if lit(lo) == "!":
                inner = positional(lo + 1, hi, False)
                return _Test("!", parts=(inner,), line=line) if inner is not None else None
            if lit(lo) == "(" and lit(hi - 1) == ")":
                return _Test("", words=(word(lo + 1),), line=line)
            return None
        if n == 4:
            if lit(lo) == "!":
                inner = positional(lo + 1, hi, False)
                return _Test("!", parts=(inner,), line=line) if inner is not None else None
            if lit(lo) == "(" and lit(hi - 1) == ")":
                return positional(lo + 1, hi - 1, False)
        return None

    fixed = positional(0, len(words), True)
    if fixed is not None or len(words) <= 3:
        return fixed
    pos = 0

    def peek() -> str | None:
        return lit(pos) if pos < len(words) else None

    def disjunction() -> _Test:
        nonlocal pos
        left = conjunction()
        while peek() == "-o":
            pos += 1
            left = _Test("||", parts=(left, conjunction()), line=line)
        return left

    def conjunction() -> _Test:
        nonlocal pos
        left = negation()
        while peek() == "-a":
            pos += 1
            left = _Test("&&", parts=(left, negation()), line=line)
        return left

    def negation() -> _Test:
        nonlocal pos
        if peek() == "!":
            pos += 1
            return _Test("!", parts=(negation(),), line=line)
        return primary()

    def primary() -> _Test:
        nonlocal pos
        if pos >= len(words):
            raise _Unread()
        if peek() == "(":
            pos += 1
            inner = disjunction()
            if peek() != ")":
                raise _Unread()
            pos += 1
            return inner
        if pos + 2 < len(words) and lit(pos + 1) in _BINARY_TESTS:
            t = _Test(str(lit(pos + 1)), words=(word(pos), word(pos + 2)), line=line)
            pos += 3
            return t
        if peek() in _UNARY_TESTS and pos + 1 < len(words):
            t = _Test(str(peek()), words=(word(pos + 1),), line=line)
            pos += 2
            return t
        t = _Test("", words=(word(pos),), line=line)
        pos += 1
        return t

    try:
        out = disjunction()
    except _Unread:
        return None
    return out if pos == len(words) else None


def _trim(text: str, pat: str, op: str) -> str:
    n = len(text)
    if op in ("%", "%%"):
        rng = range(n, -1, -1) if op == "%" else range(0, n + 1)
        for i in rng:
            if fnmatch.fnmatchcase(text[i:], pat):
                return text[:i]
        return text
    rng = range(0, n + 1) if op == "#" else range(n, -1, -1)
    for i in rng:
        if fnmatch.fnmatchcase(text[:i], pat):
            return text[i:]
    return text


_ARITH_TOKEN = re.compile(
    r"\s*(?:(\d+\.\d*|\d+)|(\$\{?[A-Za-z_]\w*\}?|[A-Za-z_]\w*)|(\*\*|<=|>=|==|!=|&&|\|\||[-+*/%()<>?:!]))"
)


def eval_arith(expr: str, var: Callable[[str], int | None]) -> int | None:
    """Evaluate bash integer arithmetic over known variables; None when unknown."""
    out: list[str] = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _ARITH_TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            return None
        pos = m.end()
        num, name, op = m.groups()
        if num:
            if "." in num or len(num) > 30:
                return None
            out.append(str(int(num)))
        elif name:
            v = var(name.strip("${}"))
            if v is None:
                return None
            out.append(f"({v})")
        elif op:
            out.append({"&&": " and ", "||": " or ", "!": " not ", "/": "//"}.get(op, op))
    if "?" in out or ":" in out:
        return None
    try:
        tree = ast.parse("".join(out), mode="eval")
    except SyntaxError:
        return None
    return _eval_node(tree.body)


def _eval_node(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return int(node.value)
    if isinstance(node, ast.UnaryOp):
        v = _eval_node(node.operand)
        if v is None:
            return None
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            return int(not v)
        return None
    if isinstance(node, ast.BinOp):
        a, b = _eval_node(node.left), _eval_node(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b if abs(a + b) < 2**63 else None
        if isinstance(node.op, ast.Sub):
            return a - b if abs(a - b) < 2**63 else None
        if isinstance(node.op, ast.Mult):
            return a * b if abs(a * b) < 2**63 else None
        if isinstance(node.op, ast.FloorDiv):
            if b == 0:
                return None
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b >= 0) else -q
        if isinstance(node.op, ast.Mod):
            if b == 0:
                return None
            return int(math.fmod(a, b))
        if isinstance(node.op, ast.Pow):
            return a**b if 0 <= b <= 64 and abs(a) < 2**16 else None
        return None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _eval_node(node.left), _eval_node(node.comparators[0])
        if a is None or b is None:
            return None
        op = node.ops[0]
        table = {
            ast.Lt: a < b,
            ast.LtE: a <= b,
            ast.Gt: a > b,
            ast.GtE: a >= b,
            ast.Eq: a == b,
            ast.NotEq: a != b,
        }
        for k, v in table.items():
            if isinstance(op, k):
                return int(v)
        return None
    if isinstance(node, ast.BoolOp):
        vals = [_eval_node(v) for v in node.values]
        if any(v is None for v in vals):
            return None
        if isinstance(node.op, ast.And):
            return int(all(vals))
        return int(any(vals))
    return None


_PRINTF_SPEC = re.compile(r"%(%|[-+ #0]*\d{0,3}(?:\.\d{1,2})?[sdifgeExXc])")


def printf(fmt: Str, args: list[Str]) -> Str:
    """bash `printf FORMAT ARGS` over Str values (position kept for each piece)."""
    if not fmt.known:
        return Str.unknown_of("$(printf ...)")
    text = fmt.text.replace("\\n", "\n").replace("\\t", "\t")
    line, col = _first_pos(fmt)
    parts: list[Str] = []
    pos = 0
    i = 0
    for m in _PRINTF_SPEC.finditer(text):
        if m.start() > pos:
            parts.append(Str.lit(text[pos : m.start()], line, col + pos))
        spec = m.group(1)
        pos = m.end()
        if spec == "%":
            parts.append(Str.lit("%"))
            continue
        arg = args[i] if i < len(args) else Str()
        i += 1
        conv = spec[-1]
        if conv == "s":
            parts.append(arg)
            continue
        if not arg.known:
            parts.append(Str.unknown_of(arg.text, *_first_pos(arg)))
            continue
        try:
            if conv in "di":
                val = "%" + spec[:-1] + "d"
                out = val % int(float(arg.text or "0"))
            else:
                out = ("%" + spec) % float(arg.text or "0")
        except (ValueError, TypeError):
            return Str.unknown_of("$(printf ...)", line, col)
        parts.append(Str((Seg(out, *_first_pos(arg)),)))
    if pos < len(text):
        parts.append(Str.lit(text[pos:], line, col + pos))
    return Str.join(parts)


_AWK = re.compile(r"^\s*BEGIN\s*\{\s*print(f?)\s*(.*?)\s*;?\s*\}\s*$", re.S)


def awk_begin_print(prog: str) -> str | None:
    """`awk 'BEGIN{print EXPR}'` or `BEGIN{printf "%.2f", EXPR}` over numbers."""
    m = _AWK.match(prog)
    if not m:
        return None
    is_printf, body = m.groups()
    fmt = "%.6g"
    if is_printf:
        fm = re.match(r'^"([^"]*)"\s*,\s*(.*)$', body, re.S)
        if not fm:
            return None
        fmt, body = fm.group(1).replace("\\n", ""), fm.group(2)
        if not re.fullmatch(r"%[-+ #0]*\d{0,3}(?:\.\d{1,2})?[dfgeis]", fmt):
            return None
    if not re.fullmatch(r"[\d\s.+\-*/()]+", body):
        return None
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError:
        return None
    val = _eval_float(tree.body)
    if val is None:
        return None
    if fmt == "%.6g" and float(val).is_integer():
        return str(int(val))
    try:
        return fmt % val
    except (TypeError, ValueError):
        return None


def _eval_float(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _eval_float(node.operand)
        return None if v is None else -v
    if isinstance(node, ast.BinOp):
        a, b = _eval_float(node.left), _eval_float(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            return a / b if b else None
    return None
