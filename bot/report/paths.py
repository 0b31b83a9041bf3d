"""How a reporter prints a path: a map from the report's paths to the printed ones. Pure.

A report carries paths as the core gives them (relative to the repository root);
the caller decides how to show them (the CLI prints them from the current
directory, as ruff does) and passes the map to the reporters that print paths
for people: text, concise, github, rdjson, junit. JSON and SARIF keep the report's.
"""

from __future__ import annotations

from collections.abc import Callable

PathMap = Callable[[str], str]


def as_given(path: str) -> str:
    return path
