"""The C parser's events, made by `bot.parse.yamlevents`' flat constructors, are ruamel's
events: the same classes to `isinstance`, the same value in every slot."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from ruamel.yaml import events as stock
from ruamel.yaml.error import YAMLError

from bot.parse import yamlevents
from bot.parse.yamlsafe import load_safe, yaml_events

_c = pytest.importorskip("_ruamel_yaml")
ROOT = Path(__file__).resolve().parents[1]
NAMES = (
    "ScalarEvent",
    "MappingStartEvent",
    "SequenceStartEvent",
    "MappingEndEvent",
    "SequenceEndEvent",
)

DOCS = [
    "a: 1\n",
    "- x\n- {k: v, 'q': \"w\"}\n- [1, 2.5, null, true]\n",
    "%YAML 1.2\n---\nroot: &anc {a: !!str 1, b: !custom x}\nother: *anc\n...\n",
    "# comment\nkey: |\n  block\n  text\nfolded: >-\n  a\n  b\n",
    "? complex\n: value\n<<: {merged: 1}\n",
    "a: [unclosed\n",
    "just a scalar",
    "",
    "--- 1\n--- 2\n",
]


def _random_doc(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(["1", "x", "'q q'", '"e\\n"', "null", "2026-01-01", "~", "-3.5", "yes"])
    if rng.random() < 0.5:
        items = [f"k{i}: {_random_doc(rng, depth + 1)}" for i in range(rng.randint(0, 3))]
        return "{" + ", ".join(items) + "}"
    return "[" + ", ".join(_random_doc(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"


def _texts() -> Iterator[str]:
    yield from DOCS
    rng = random.Random(7)
    for _ in range(200):
        yield f"top: {_random_doc(rng)}\nlist:\n- {_random_doc(rng)}\n"
    for path in sorted((ROOT / "tests" / "rule_cases").rglob("*.y*ml"))[:200]:
        yield path.read_text(encoding="utf-8", errors="replace")
    yield (ROOT / "bot" / "knowledge" / "default.yaml").read_text(encoding="utf-8")
    # the target repository's own files, where ../shared holds them
    for path in sorted((ROOT.parent / "shared" / "inferencex").rglob("*.yaml"))[:60]:
        yield path.read_text(encoding="utf-8", errors="replace")


def _slots(event: Any) -> tuple[Any, ...]:
    names = [n for cls in type(event).__mro__ for n in getattr(cls, "__slots__", ())]
    marks = [getattr(event, n) for n in ("start_mark", "end_mark")]
    where = tuple((m.line, m.column, m.index) if m is not None else None for m in marks)
    values = tuple(
        (n, getattr(event, n, "<unset>")) for n in sorted(set(names)) if not n.endswith("_mark")
    )
    return (type(event).__name__, values, where)


def _events(text: str) -> list[Any]:
    out: list[Any] = []
    try:
        for event in yaml_events(text):
            out.append(_slots(event))
    except YAMLError as exc:
        out.append(("error", str(exc)))
    return out


def test_the_fast_constructors_are_installed_on_this_python() -> None:
    assert yamlevents.INSTALLED
    for name in NAMES:
        fast = getattr(_c, name)
        assert fast is getattr(yamlevents, name)
        assert fast is not getattr(stock, name) and issubclass(fast, getattr(stock, name))


def test_events_equal_those_of_ruamels_own_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = list(_texts())
    ours = [_events(t) for t in texts]
    for name in NAMES:
        monkeypatch.setattr(_c, name, getattr(stock, name))
    theirs = [_events(t) for t in texts]
    assert len(texts) > 230
    for text, a, b in zip(texts, ours, theirs, strict=True):
        assert a == b, text[:200]


def test_the_safe_loader_reads_what_it_read(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [t for t in _texts() if t][:150]

    def loads() -> list[Any]:
        out = []
        for t in texts:
            try:
                out.append(load_safe(t))
            except Exception as exc:
                out.append(("error", type(exc).__name__, str(exc)))
        return out

    ours = loads()
    for name in NAMES:
        monkeypatch.setattr(_c, name, getattr(stock, name))
    assert loads() == ours
    assert YAML(typ="safe").load("a: [1, {b: c}]\n") == {"a": [1, {"b": "c"}]}


def test_a_constructor_of_another_shape_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NAMES:
        monkeypatch.setattr(_c, name, getattr(stock, name))

    def other(self: Any, value: Any, anchor: Any, tag: Any, implicit: Any) -> None:
        raise AssertionError("not called")

    monkeypatch.setattr(stock.ScalarEvent, "__init__", other)
    assert yamlevents._install() is False
    assert all(getattr(_c, name) is getattr(stock, name) for name in NAMES)


def test_a_parser_that_does_not_build_them_keeps_ruamels_classes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A C parser that looked its classes up elsewhere would hand the walkers events they no
    longer recognise: the install checks what the parser builds and undoes itself."""
    for name in NAMES:
        monkeypatch.setattr(_c, name, getattr(stock, name))

    class Parser:
        def __init__(self, text: str) -> None:
            self.events = iter([stock.ScalarEvent(None, None, (True, False), "a")])

        def get_event(self) -> Any:
            return next(self.events, None)

    monkeypatch.setattr(_c, "CParser", Parser)
    assert yamlevents._install() is False
    assert all(getattr(_c, name) is getattr(stock, name) for name in NAMES)
