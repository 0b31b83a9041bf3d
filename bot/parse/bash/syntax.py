"""tree-sitter-bash for the interpreter: a parser per thread, the queries, node text.

A `Parser` is not safe to share between threads, so each thread gets its own (with
the queries compiled for it); the compiled function query is immutable and shared.
"""

from __future__ import annotations

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
    return _parser().parse(source)


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
