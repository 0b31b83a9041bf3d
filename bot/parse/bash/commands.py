"""Commands on one path: assignments, declarations, simple commands and redirections.

A simple command's words are expanded; the builtins that change the shell's state
(`export`, `unset`, `printf -v`, `exit`, `return`, `eval`, ...) are followed; a call
of a function defined in the script runs its body; every other command is reported
to the caller (`Command`). Heredocs written with `cat`/`tee` become files of the path.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from bot.parse import argv
from bot.parse.bash.arith import printf
from bot.parse.bash.conditions import Conditions
from bot.parse.bash.expand import after_eq, lit_segs
from bot.parse.bash.state import MAX_ARRAY, MAX_CALL_DEPTH, Command, State, Value
from bot.parse.values import Str


class Commands(Conditions):
    if TYPE_CHECKING:

        def block(self, nodes: list[Node], states: list[State], depth: int) -> list[State]: ...

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

    def command(
        self,
        node: Node,
        st: State,
        depth: int,
        background: bool,
        heredoc: Str | None = None,
        redirect_to: Str | None = None,
    ) -> list[State]:
        if heredoc is None and redirect_to is None and self._inert(node, st):
            return [st]
        words, inline = self._command_words(node, st)
        if not words or self._builtin(node, words, st):
            return [st]
        head = words[0].value
        if head in ("cat", "tee") and heredoc is not None:
            dest = redirect_to
            if head == "tee":
                dests = argv.parse(words[1:], argv.spec_for("tee")).positionals
                dest = dests[0] if dests else dest
            if dest is not None:
                st.files[dest.text] = heredoc
        if head in self.functions and self.call_depth < MAX_CALL_DEPTH:
            return self._call(self.functions[head], words, st, depth)
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

    def _inert(self, node: Node, st: State) -> bool:
        """Whether `node` runs an inert command (`INERT_COMMANDS`): nothing to follow
        and no words to expand, except the assignments in `: "${V:=d}"`."""
        name_node = node.child_by_field_name("name")
        if name_node is None or not name_node.named_children:
            return False
        head_node = name_node.named_children[0]
        head_text = self.text(head_node)
        if head_node.type != "word" or head_text not in self.inert or head_text in self.report:
            return False
        if head_text == ":" and any(c.type in ("string", "expansion") for c in node.named_children):
            # `: "${V:=d}"` assigns V: expand its words for that, run nothing
            for c in node.named_children:
                if c.type != "command_name":
                    self.expand(c, st)
        return True

    def _command_words(self, node: Node, st: State) -> tuple[list[Str], dict[str, Str]]:
        """The command's words, expanded, and its inline environment (`A=b cmd`); the
        assignments of a command without a name are made on the path."""
        inline: dict[str, Str] = {}
        words: list[Str] = []
        name_node = node.child_by_field_name("name")
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
        return words, inline

    def _builtin(self, node: Node, words: list[Str], st: State) -> bool:
        """Follow a builtin that changes the path (`exit`, `eval`, `return`, `break`,
        `export`, `unset`, `printf -v`); False when `words` run no such builtin."""
        head = words[0].value
        if head == "exit":
            code = words[1].value if len(words) > 1 else "0"
            st.done = True
            st.vars["?exit"] = Str.lit(code or "?")
        elif head == "eval":
            self._eval(node, words, st)
        elif head == "return":
            st.returning = True
        elif head in ("break", "continue"):
            st.breaking = True
        elif head == "export":
            for w in words[1:]:
                text = w.text
                if "=" in text:
                    k, _, _ = text.partition("=")
                    st.vars[k] = after_eq(w)
                    st.exported = st.exported | {k}
                elif re.fullmatch(r"[A-Za-z_]\w*", text):
                    st.exported = st.exported | {text}
        elif head == "unset":
            for w in words[1:]:
                if w.value and not w.text.startswith("-"):
                    st.vars[w.text] = Str()
                    st.exported = st.exported - {w.text}
        elif head == "printf" and len(words) > 2 and words[1].value == "-v":
            target = words[2].value
            if target and len(words) > 3:
                st.vars[target] = printf(words[3], words[4:])
        else:
            return False
        return True

    def _eval(self, node: Node, words: list[Str], st: State) -> None:
        """The evaluated text is not interpreted: every variable it may assign becomes
        unknown, and an engine launched through it is reported as unanalysed instead
        of being missed silently."""
        evaluated = Str.join(words[1:], " ")
        for m in re.finditer(r"([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=", evaluated.text):
            st.vars[m.group(1)] = Str.unknown_of("$" + m.group(1))
        if not evaluated.known or re.search(
            r"vllm|sglang|trtllm|atom\.entrypoints", evaluated.text
        ):
            self._note_limit(node, "eval")

    def _call(self, body: Node, words: list[Str], st: State, depth: int) -> list[State]:
        """A function of the script called with `words[1:]` as its arguments."""
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
            return lit_segs(self.text(body), *self.start(body))
        return self._concat_children(body, st, unescape=False)
