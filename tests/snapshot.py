"""Snapshot files (not a test module): `check_snapshot(name, text)` compares `text` with
`tests/snapshots/<name>`.

Rendered findings, comment bodies, reports and dry-run output are compared whole instead
of by substrings. Refresh deliberately with `UPDATE_SNAPSHOTS=1 python -m pytest ...` and
review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing; run with UPDATE_SNAPSHOTS=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} changed; review and run with UPDATE_SNAPSHOTS=1"
