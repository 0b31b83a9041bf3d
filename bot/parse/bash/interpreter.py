"""The interpreter: statements, control flow and the paths through a script.

`Interpreter.run` walks the script's statements with every live path; `if`,
`case`, `&&`/`||` fork a path when the condition is on the environment, and the
path bookkeeping (`bot.parse.bash.paths`) keeps the number of paths small.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from tree_sitter import Node

from bot.base.problem import problem
from bot.parse.bash import paths
from bot.parse.bash.commands import Commands
from bot.parse.bash.state import (
    MAX_NODE_DEPTH,
    MAX_STEPS,
    SOFT_PATHS,
    Assumption,
    Budget,
    State,
)
from bot.parse.bash.testexpr import Operand, case_match
from bot.parse.values import Str


class Interpreter(Commands):
    # ----------------------------------------------------------------- driving
    def run(self, root: Node) -> list[State]:
        self.last_use = paths.last_uses(self.src, root)
        self._root = root
        states = [State()]
        try:
            states = self.block(list(root.named_children), states, 0)
        except Budget:
            self.problems.append(problem("too_complex"))
        except RecursionError:
            self.problems.append(problem("too_deep"))
        return self.finished + [s for s in states if not s.done]

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
            paths.prune(nxt, node.end_byte, self.last_use)
            states = paths.merge(nxt) if len(nxt) > len(states) else nxt
            if len(states) > SOFT_PATHS:
                states = self._join_by_value(states)
            live = [s for s in states if not s.done]
            self.finished.extend(s for s in states if s.done)
            states = live
            if not states:
                break
        return states

    # -------------------------------------------------------------- statements
    def stmt(self, node: Node, st: State, depth: int) -> list[State]:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Budget()
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
                truth, arms_facts = self._decide(cond, s, len(out) + len(nxt_pending) + 2)
                if truth is True:
                    out.extend(self.block(body, [s], depth))
                elif truth is False:
                    nxt_pending.append(s)
                elif arms_facts is not None:
                    taken = s.copy()
                    taken.assume(arms_facts[0])
                    out.extend(self.block(body, [taken], depth))
                    rest = s.copy()
                    rest.assume(arms_facts[1])
                    nxt_pending.append(rest)
                else:
                    out.extend(self.block(body, [s], depth))
            pending = nxt_pending
        return out + pending

    def _decide(
        self, cond: Node, s: State, paths: int
    ) -> tuple[bool | None, tuple[tuple[Assumption, ...], tuple[Assumption, ...]] | None]:
        """`cond` on path `s`: its truth and, when it depends on the environment and
        `paths` live paths may still fork, the facts of taking and of skipping the arm.

        The condition's words are read once for the path (`Conditions._judge`) when
        reading them assigns nothing (no `${V:=d}`); nothing runs on `s` meanwhile."""
        deciding = not self._assigns(cond)
        if deciding:
            self.verdicts.append((id(s), {}))
        try:
            truth = self.condition(cond, s)
            if truth is not None or not self._fork_allowed(paths):
                return truth, None
            taken = tuple(self.assumptions_for(cond, True, s))
            return None, (taken, tuple(self.assumptions_for(cond, False, s)))
        finally:
            if deciding:
                self.verdicts.pop()

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
        self, items: list[Any], start: int, st: State, opnd: Operand, depth: int
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
                got = {case_match(o, pat_texts) for o in opnd.outputs(k)}
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

    def _join_by_value(self, states: list[State]) -> list[State]:
        """`paths.join_by_value` with the variables the rules read (found once per run)."""
        if self._relevant is None:
            self._relevant, self._seeds = (
                paths.relevant_vars(self.src, self._root, self.watched_flags, self.watched_env)
                if self._root is not None
                else (frozenset(), frozenset())
            )
        return paths.join_by_value(states, self._relevant, self._seeds)
