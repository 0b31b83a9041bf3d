"""The interpreter's base: the script, its options and the state one run builds up.

The layers of the interpreter build on `Walker`: expansions (`expand.Expansion`),
test expressions (`conditions.Conditions`), commands (`commands.Commands`) and
statements and paths (`interpreter.Interpreter`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from tree_sitter import Node

from bot.base.problem import Problem, problem
from bot.parse.bash.state import MAX_PATHS, Command, InterpreterProblem, State
from bot.parse.bash.syntax import chars
from bot.parse.values import Str

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


class Walker:
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
        # them keep paths apart past SOFT_PATHS (see `paths.relevant_vars`)
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
        # node id -> source text; (start byte, end byte) -> literal words as values
        self._texts: dict[int, str] = {}
        self._words: dict[tuple[int, int], Str] = {}
        # the test read from each condition node (by node id), and the readings of
        # the tests of the condition being decided for one path (`Conditions._judge`)
        self._tests: dict[int, Any] = {}
        self.verdicts: list[tuple[int, dict[int, Any]]] = []
        self._assigning: dict[int, bool] = {}
        # a test's reading shared by the paths that read the same (`Conditions._shared_read`):
        # the names each test reads (by the test's id; False: read on every path), the
        # readings by key, and how many were taken from another path's reading
        self._test_names: dict[int, tuple[str, ...] | bool] = {}
        self._readings: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}
        self.shared_readings = 0

    def start(self, node: Node) -> tuple[int, int]:
        """0-based row and character column where `node` starts."""
        row, col = node.start_point
        if col and not self._ascii:
            col = chars(self.src, node.start_byte, col)
        return row, col

    def end(self, node: Node) -> tuple[int, int]:
        """0-based row and character column where `node` ends."""
        row, col = node.end_point
        if col and not self._ascii:
            col = chars(self.src, node.end_byte, col)
        return row, col

    def text(self, node: Node) -> str:
        # every path reads the same nodes again: decode each node's text once
        got = self._texts.get(node.id)
        if got is None:
            got = self._texts[node.id] = self.src[node.start_byte : node.end_byte].decode(
                "utf-8", errors="replace"
            )
        return got

    def _note_limit(self, node: Node, kind: InterpreterProblem, **params: str) -> None:
        if not any(p.kind == kind and p.params == params for p in self.problems):
            self.problems.append(problem(kind, node.start_point.row + 1, **params))

    def _fork_allowed(self, n: int) -> bool:
        if n < MAX_PATHS:
            return True
        if not self._path_cap_reported:
            self._path_cap_reported = True
            self.problems.append(problem("too_many_paths", limit=str(MAX_PATHS)))
        return False

    def _assigns(self, node: Node) -> bool:
        """Whether expanding `node`'s words may assign (`${V:=d}`, `${V=d}`)."""
        got = self._assigning.get(node.id)
        if got is None:
            got = self._assigning[node.id] = bool(_ASSIGNING.search(self.text(node)))
        return got


# `=` inside a `${...}` expansion: `${V:=d}`, `${V=d}` assign V when read
_ASSIGNING = re.compile(r"\$\{[^}]*=")
