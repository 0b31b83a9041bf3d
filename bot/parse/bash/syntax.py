"""tree-sitter-bash for the interpreter: a parser per thread, the queries, node text.

A `Parser` is not safe to share between threads, so each thread gets its own (with
the queries compiled for it); the compiled function query is immutable and shared.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Query


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
    """The syntax tree of `source`. tree-sitter-bash fails on two forms valid bash
    accepts in the default of a parameter expansion: an escaped double quote
    (`"${X:-{\\"a\\": 1}}"`) and parentheses inside an arithmetic expansion
    (`"${X:-$((A / (8 / TP)))}"`). Where the script has an error and the same bytes
    with those escapes and parentheses blanked parse cleanly, that tree is returned.
    The blanked bytes keep their length, so every node's offsets, and the text read
    from `source` through them (arithmetic is evaluated from that text), are the
    script's own."""
    tree = _parser().parse(source)
    if tree.root_node.has_error:
        blanked = _blank_defaults(source)
        if blanked != source:
            other = _parser().parse(blanked)
            if not other.root_node.has_error:
                return other
    return tree


_DEFAULT = re.compile(rb"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=+?]")
_DEFAULT_LIMIT = 4096  # bytes scanned for the end of one expansion


def _blank_defaults(source: bytes) -> bytes:
    """`source` with, inside each expansion default, every `\\"` replaced by `\\\\` and
    every parenthesis nested in a `$(( ))` replaced by a space."""
    out = bytearray(source)
    pos = 0
    while (m := _DEFAULT.search(source, pos)) is not None:
        # a default nested in one already scanned was blanked with it: every byte is
        # scanned once, so a hostile line of `${a:-${a:-...` stays linear
        depth, i = 0, m.end()
        arith = -1  # parentheses open inside the current `$((`, -1 outside one
        end = min(len(source), i + _DEFAULT_LIMIT)
        while i < end:
            c = source[i]
            if c == 0x5C:  # backslash: an escape pair
                if i + 1 < end and source[i + 1] == 0x22:
                    out[i + 1] = 0x5C
                i += 2
                continue
            if c == 0x0A:
                break
            if arith < 0 and source.startswith(b"$((", i):
                arith = 0
                i += 3
                continue
            if arith >= 0 and c == 0x28:  # (
                arith += 1
                out[i] = 0x20
            elif arith > 0 and c == 0x29:  # )
                arith -= 1
                out[i] = 0x20
            elif arith == 0 and source.startswith(b"))", i):
                arith = -1
                i += 2
                continue
            elif c == 0x7B:
                depth += 1
            elif c == 0x7D:
                if depth == 0:
                    break
                depth -= 1
            i += 1
        pos = max(i, m.end())
    return bytes(out)


def relevance_query() -> Query:
    """The query, compiled once per thread (with the thread's parser)."""
    return _THREAD.relevance


def node_text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


@lru_cache(maxsize=1)
def function_query() -> Query:
    return Query(Language(tree_sitter_bash.language()), "(function_definition) @f")


def chars(source: bytes, at: int, byte_col: int) -> int:
    """The character column of byte offset `at`, `byte_col` bytes into its line."""
    return len(source[at - byte_col : at].decode("utf-8", errors="replace"))


def is_arith_command(node: Node) -> bool:
    """`(( ... ))` as a command or condition."""
    return (
        node.type == "compound_statement" and node.child_count > 0 and node.children[0].type == "(("
    )
