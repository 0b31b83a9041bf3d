"""The master-config walk reads ruamel's C parser directly.

`yaml_events` must give the events `YAML(typ="safe", pure=False).parse` gives (same
kinds, values, tags, anchors, marks, and the same errors), without going through that
generator.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml.main import YAML

from bot.parse import master_config as M
from bot.parse.yamlsafe import thread_yaml

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex"

TRICKY = [
    "",
    "a: 1\n",
    "a: &x 1\nb: *x\n",
    "&a 12: x\n",
    "? [a, b]\n: c\n",
    "a: 1\na: 2\n",
    "<<: {a: 1}\nb: 2\n",
    "%YAML 1.1\n---\na: yes\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
    "a: 1\n---\nb: 2\n...\n",
    "!!str a: b\nc: !!int '3'\n",
    "a: |\n  two\n  lines\nb: >-\n  folded\n  text\n",
    'a: "esc\\x41\\\n  aped"\n',
    "a: [1, {b: c}, 'q''uote']\n",
    "- !!set {a, b}\n- 2001-12-14\n- .nan\n- 0x1F\n",
    "\ufeffa: 1\n",
    "a: [1, 2\n",
    "a: b: c\n",
    "a:\n  - b\n  -c: d\n\tx",
    "key: 'unterminated\n",
    "[" * 70 + "]" * 70,
]


def _event(e: Any) -> tuple[Any, ...]:
    marks = tuple((m.line, m.column, m.index) for m in (e.start_mark, e.end_mark))
    fields = ("anchor", "tag", "implicit", "value", "style", "flow_style", "explicit")
    extra = tuple(repr(getattr(e, name, None)) for name in (*fields, "version", "tags"))
    return (type(e), marks, extra)


def _stream(events: Iterator[Any]) -> tuple[list[tuple[Any, ...]], str | None]:
    out: list[tuple[Any, ...]] = []
    try:
        for e in events:
            out.append(_event(e))
    except Exception as exc:
        return out, f"{type(exc).__name__}: {exc}"
    return out, None


def _texts() -> list[str]:
    texts = list(TRICKY)
    for name in ("configs/nvidia-master.yaml", "configs/amd-master.yaml", "perf-changelog.yaml"):
        path = SHARED / name
        if path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
    return texts


@pytest.mark.parametrize("text", _texts(), ids=lambda t: repr(t[:24]))
def test_the_events_are_those_of_ruamels_parse(text: str) -> None:
    assert _stream(M.yaml_events(text)) == _stream(thread_yaml("events").parse(text))


def test_the_walk_reads_the_c_parser_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not through `YAML.parse` (its generator and a class built per call), when the C
    parser is there."""
    assert M._CParser is not None and thread_yaml("events").Parser is M._CParser

    def refuse(self: Any, stream: Any) -> Any:
        raise AssertionError("YAML.parse was called")

    monkeypatch.setattr(YAML, "parse", refuse)
    walk = M._walk("a:\n  b: [1, 2]\nc: x\n")
    assert not isinstance(walk, M.Problem)
    assert walk.data == {"a": {"b": [1, 2]}, "c": "x"}
    assert walk.lines[("a", "b", 1)] == 2 and walk.top_lines == {"a": 1, "c": 3}
