"""Mechanical fixes as replacement lines (GitHub suggestion blocks). Pure.

A suggestion replaces the finding's line(s); an empty string deletes the line.
Each helper returns None when the edit is not safely mechanical.
"""

from __future__ import annotations

import re


def replace_at(line: str, col: int, old: str, new: str) -> str | None:
    """`line` with `old` at 1-based `col` replaced by `new`."""
    i = col - 1
    if i < 0 or not old or line[i : i + len(old)] != old:
        return None
    return line[:i] + new + line[i + len(old) :]


def drop_flag(line: str, flag: str, value: str | None, prev: str | None = None) -> str | None:
    """`line` without `flag [value]` (or `flag=value`, or a YAML `key: value`).

    Returns "" when nothing but a line continuation would remain, so the
    suggestion deletes the line. `prev` is the line above: when it ends with a
    continuation `\\` and this line, the command's last, does not, deleting this
    line would continue the command into the next one, so that is not mechanical
    (None). Inside a bash array (no continuations) the line is simply deleted.
    """
    val = re.escape(value) if value else ""
    patterns = [
        rf"\s*{re.escape(flag)}(?:=|\s+){val}(?=\s|$|\\)"
        if value
        else rf"\s*{re.escape(flag)}(?=\s|$)",
    ]
    if flag.endswith(":"):
        patterns = [rf"^\s*{re.escape(flag)}\s*{val}\s*$"]
    for pat in patterns:
        m = re.search(pat, line)
        if not m:
            continue
        rest = line[: m.start()] + line[m.end() :]
        if rest.strip() == "\\":
            return ""
        if not rest.strip():
            continued = prev is not None and prev.rstrip().endswith("\\")
            return None if continued else ""
        return rest
    return None
