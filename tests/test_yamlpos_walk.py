"""`yamlpos.load_positioned`'s event walk, held to the walk it replaced.

The walk drives ruamel's C parser directly (not through `YAML.parse`) and keeps the open
collection's state in locals. `tests/yamlpos_reference.py` is the walk as it was; both
must give the same values, the same position of every key and value, the same source
texts, the same sharing of aliased values and the same errors, on handwritten edge cases,
on every YAML text of the rule cases, on the InferenceX reference files when they are
present, and on random documents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.yamlpos_reference as reference
from bot.parse import yamlpos
from bot.parse.yamlsafe import YamlError
from tests.rulecases import load_cases

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex"


def dump(value: Any, merge: object, seen: dict[int, int] | None = None) -> Any:
    """A comparable form of a loaded value, positions read through the public API;
    a value met again (an alias) is named by the order it was first met in."""
    seen = {} if seen is None else seen
    if value is merge:
        return "<merge key>"
    if isinstance(value, (dict, list)):
        if id(value) in seen:
            return ["seen", seen[id(value)]]
        seen[id(value)] = len(seen)
    if isinstance(value, dict):
        lc = value.lc  # type: ignore[attr-defined]
        return [
            "map",
            lc.line,
            lc.col,
            [
                [
                    dump(k, merge, seen),
                    dump(v, merge, seen),
                    lc.key(k),
                    lc.value(k),
                    value.key_pos(k),  # type: ignore[attr-defined]
                    value.value_pos(k),  # type: ignore[attr-defined]
                    value.raw(k),  # type: ignore[attr-defined]
                ]
                for k, v in value.items()
            ],
        ]
    if isinstance(value, list):
        return [
            "list",
            value.line,  # type: ignore[attr-defined]
            value.col,  # type: ignore[attr-defined]
            [dump(v, merge, seen) for v in value],
            list(value.items),  # type: ignore[attr-defined]
        ]
    return [type(value).__name__, repr(value)]


def outcome(module: Any, text: str) -> Any:
    try:
        value = module.load_positioned(text, label="doc")
    except YamlError as exc:
        return ["error", exc.kind, exc.line, sorted(exc.params.items()), str(exc)]
    return ["value", dump(value, module._MERGE)]


def assert_same(text: str) -> None:
    assert outcome(yamlpos, text) == outcome(reference, text), text[:400]


EDGE_CASES = [
    "",
    "# only a comment\n",
    "a: 1\n",
    "just a scalar\n",
    "- 1\n- two\n- [3, {x: 4}]\n",
    "a:\nb: ~\nc: null\nd: ''\ne: \"\"\n",
    "a: \"quoted\"\nb: 'single'\nc: plain\nd: |\n  block\n  text\ne: >\n  folded\n",
    "a: 1\na: '2'\na: 3\n",  # duplicate keys: last value, first place in order
    "a: '1'\na: 2\n",
    "a: &x 1\na: *x\n",
    "k: 010\nl: 0o10\nm: 0x1F\nn: 1e3\no: .inf\np: -.nan\nq: 2001-12-14\nr: 2001-12-14t21:59:43.10-05:00\n",
    "t: true\nu: True\nv: yes\nw: off\nx: 1_000\n",
    "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n",
    "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nc: {<<: [*a, *b], w: 4}\n",
    "a: &a {x: 1}\nc:\n  w: 0\n  <<: *a\n  x: 9\n",
    "a: &a 5\nc: {<<: *a}\n",  # a merge of a scalar
    "a: &a [1]\nc: {<<: [*a]}\n",
    "c: {<<: {p: 1, q: 'r'}}\n",
    "c: {'<<': 1}\n",
    "- <<\n- =\n- a: =\n",
    "a: *nope\n",
    "a: &x 1\nb: &x 2\nc: *x\n",  # an anchor defined twice: the later one
    "a: &x [1, 2]\nb: *x\nc: *x\n",
    "a: &r [1, *r]\n",  # an alias inside its own anchor
    "a: &m {b: *m}\n",
    "? [1, 2]\n: x\n",
    "{[a]: b}\n",
    "? {a: 1}\n: x\n",
    "a: &k [1]\n*k : v\n",  # an aliased sequence as a key
    "a: &k 1\n*k : v\n",
    "a: !!str 5\nb: !!int '7'\nc: ! 5\nd: !custom x\ne: !!binary aGk=\n",
    "%YAML 1.1\n---\na: 010\nb: yes\n",
    "--- a\n--- b\n",
    "a: 1\n---\nb: 2\n",
    "a: 1\n...\n",
    "a: [1, 2\n",
    "a: b: c\n",
    "a:\n  - b\n  c: d\n",
    "{ image: repo/name:tag, x: 1 }\n",
    "model: { container: lmsysorg/sglang:nightly }\n",
    "a: { b: c:d, e: f:g }\n",
    "a: \t1\n",
    "a: 'x\n",
    "\ufeffa: 1\n",
    "a: 中文\nb: {x: 中文, y: 😀😀, z: 1}\n",
    "a: \x00\n",
    "a: 1\r\nb: 'two'\r\n",
    "[" * 64 + "]" * 64 + "\n",
    "[" * 65 + "]" * 65 + "\n",
    "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 70)),
    "[" + ", ".join(["1"] * 60_000) + "]\n",
    "a: " + "x" * (yamlpos.MAX_BYTES + 1) + "\n",
    "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
    ),
]


@pytest.mark.parametrize("text", EDGE_CASES, ids=range(len(EDGE_CASES)))
def test_edge_cases_read_as_the_old_walk_read_them(text: str) -> None:
    assert_same(text)


def test_every_yaml_text_of_the_rule_cases() -> None:
    texts = {
        text
        for case in load_cases()
        for files in (case.files, case.base or {})
        for path, text in files.items()
        if path.endswith((".yaml", ".yml"))
    }
    assert len(texts) > 50
    for text in sorted(texts):
        assert_same(text)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/inferencex is absent")
def test_the_reference_repository_files() -> None:
    for path in sorted(SHARED.rglob("*.y*ml")):
        assert_same(path.read_text(encoding="utf-8", errors="replace"))


_KEYS = ["a", "b", "<<", "'q'", '"d"', "1", "true", "null", "~", "2001-12-14", "=", "x y", "? k"]
_VALUES = [
    "",
    "1",
    "'s'",
    '"d"',
    "&A 1",
    "*A",
    "&B {a: 1, b: 'x'}",
    "*B",
    "[1, *A]",
    "{<<: *B, c: 2}",
    "[*B, *B]",
    "|\n    block",
    "!!str 5",
    "! 5",
    "0x1F",
    "[",
    "{a: [b, {c: d}]}",
    "*Z",
    "&C",
    "a: b",
    "-1.5e3",
    "yes",
    "<<",
]


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        indent = "  " * draw(st.integers(0, 3))
        shape = draw(st.sampled_from(["pair", "item", "open", "merge"]))
        value = draw(st.sampled_from(_VALUES))
        if shape == "pair":
            lines.append(f"{indent}{draw(st.sampled_from(_KEYS))}: {value}")
        elif shape == "item":
            lines.append(f"{indent}- {value}")
        elif shape == "open":
            lines.append(f"{indent}{draw(st.sampled_from(_KEYS))}:")
        else:
            lines.append(f"{indent}<<: {draw(st.sampled_from(['*A', '*B', '[*B]', '{m: 1}']))}")
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_random_documents_read_as_the_old_walk_read_them(text: str) -> None:
    assert_same(text)


def test_the_walk_drives_the_c_parser_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not through `YAML.parse`, which builds a loader class around the parser per call."""
    made: list[str] = []
    c_parser = yamlpos.CParser
    assert c_parser is not None

    class Counting(c_parser):  # type: ignore[misc, valid-type]
        def __init__(self, text: str) -> None:
            made.append(text)
            super().__init__(text)

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("YAML.parse used")

    monkeypatch.setattr(yamlpos, "CParser", Counting)
    monkeypatch.setattr(type(yamlpos.thread_yaml("events")), "parse", no_parse)
    doc = yamlpos.load_positioned("a: [1, {b: 'c'}]\n")
    assert doc["a"][1]["b"] == "c"
    assert doc["a"][1].value_pos("b") == (1, 13)  # the `c` inside the quotes
    assert made == ["a: [1, {b: 'c'}]\n"]


def test_plain_scalars_resolved_before_are_not_resolved_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The walk answers a plain scalar from `PlainScalars.known` when it can."""
    text = "true_key: 1\nnull_key: 2.5\nf: 2001-12-14\n"
    yamlpos.load_positioned(text)  # every scalar here is one the thread keeps
    calls: list[str] = []
    resolve = yamlpos.PlainScalars.resolve

    def counting(self: object, value: str) -> object:
        calls.append(value)
        return resolve(self, value)  # type: ignore[arg-type]

    monkeypatch.setattr(yamlpos.PlainScalars, "resolve", counting)
    doc = yamlpos.load_positioned(text)
    assert calls == []
    assert doc["null_key"] == 2.5 and str(doc["f"]) == "2001-12-14"
