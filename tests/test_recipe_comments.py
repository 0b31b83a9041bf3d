"""A recipe's comments, found at each `#`, are exactly the `comment` nodes of its tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tree_sitter_bash
from tree_sitter import Language, Query, QueryCursor

from bot.parse.bash.syntax import parse_tree
from bot.parse.recipe import _collect_comments, parse_recipe

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "inferencex"

CASES = [
    b"echo '#x' \"#y\" ${#A} $# a#b # real\n",
    b"cat <<EOF\n# in a heredoc\nEOF\n# after it\n",
    b"x=1 #c1\n#c2\n  # c3 # and more\n",
    b"#!/usr/bin/env bash\n# caf\xc3\xa9 \xe2\x80\x94 note\nvllm serve m \\\n  --tp 8  # the flag\n",
    b"arr=(a # inside an array\n b)\ncase $X in\n  a) # a branch\n    ;;\nesac\n",
    b"echo ${X#prefix} ${X##*/} $((1 # 2))\n",
    b"f() { # a function\n  :\n}\n",
    b"# last line without a newline",
    b"",
]


def _oracle(data: bytes) -> dict[int, str]:
    query = Query(Language(tree_sitter_bash.language()), "(comment) @c")
    root = parse_tree(data).root_node
    return {
        node.start_point.row + 1: data[node.start_byte : node.end_byte].decode("utf-8", "replace")
        for node in QueryCursor(query).captures(root).get("c", [])
    }


class _Comments:
    def __init__(self) -> None:
        self.comments: dict[int, str] = {}


def _ours(data: bytes) -> dict[int, str]:
    found: Any = _Comments()
    _collect_comments(parse_tree(data).root_node, found, data)
    return dict(found.comments)


def _scripts() -> list[bytes]:
    out = list(CASES)
    for base in (ROOT / "examples", SHARED):
        out += [p.read_bytes() for p in sorted(base.rglob("*.sh"))]
    return out


@pytest.mark.parametrize("index", range(len(CASES)))
def test_comments_of_hand_cases_are_the_trees(index: int) -> None:
    assert _ours(CASES[index]) == _oracle(CASES[index])


def test_comments_of_every_script_at_hand_are_the_trees() -> None:
    scripts = _scripts()
    assert len(scripts) > len(CASES)
    for data in scripts:
        assert _ours(data) == _oracle(data), data[:120]


def test_a_recipe_keeps_its_comments_by_line() -> None:
    recipe = parse_recipe("benchmarks/x.sh", "# one\nvllm serve m --tp 8  # two\n")
    assert recipe.comments == {1: "# one", 2: "# two"}
