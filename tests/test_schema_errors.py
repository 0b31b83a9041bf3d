"""The shared JSON Schema error translator (bot/parse/schema_errors.py)."""

from __future__ import annotations

from typing import Any

import jsonschema

from bot.parse.schema_errors import SchemaProblem, backticked, problems, show, types_text

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["a", "b"],
    "additionalProperties": False,
    "properties": {
        "a": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "b": {"type": ["integer", "null"], "minimum": 1},
        "c": {"enum": ["x", "y"], "x-messages": {"enum": {"en": "`{where}` odd", "zh": "奇怪"}}},
        "d": {"const": True},
        "e": {"exclusiveMinimum": 0, "maximum": 9},
        "f": {"pattern": "^z"},
    },
    "if": {"properties": {"a": {"const": ["only"]}}, "required": ["a"]},
    "then": {"properties": {"b": {"const": None}}},
}


def found(data: Any) -> list[SchemaProblem]:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(e.absolute_path), e.message))
    return [p for e in errors for p in problems(e)]


def kinds(data: Any) -> list[tuple[str, tuple[Any, ...]]]:
    return [(p.kind, p.path) for p in found(data)]


def test_each_keyword_becomes_a_typed_problem() -> None:
    got = {(p.kind, p.path, p.name) for p in found({"a": [], "zz": 1, "yy": 2})}
    assert ("missing", (), "b") in got
    assert ("unknown", (), "zz") in got and ("unknown", (), "yy") in got
    assert ("empty-list", ("a",), None) in got
    (t,) = [p for p in found({"a": ["x"], "b": "two"}) if p.kind == "type"]
    assert (t.path, t.expected, t.actual) == (("b",), ("integer", "null"), "string")
    assert kinds([1]) == [("not-mapping", ())]
    assert ("empty-string", ("a", 0)) in kinds({"a": [""], "b": 2})
    assert ("minimum", ("b",)) in kinds({"a": ["x"], "b": 0})
    assert ("exclusive-minimum", ("e",)) in kinds({"a": ["x"], "b": 2, "e": 0})
    assert ("maximum", ("e",)) in kinds({"a": ["x"], "b": 2, "e": 10})
    assert ("other", ("f",)) in kinds({"a": ["x"], "b": 2, "f": "a"})


def test_enum_const_custom_and_conditional() -> None:
    (enum,) = [p for p in found({"a": ["x"], "b": 2, "c": "q"}) if p.path == ("c",)]
    assert enum.kind == "enum" and enum.allowed == ("x", "y") and enum.value == "q"
    assert enum.custom == {"en": "`{where}` odd", "zh": "奇怪"}
    (const,) = [p for p in found({"a": ["x"], "b": 2, "d": False}) if p.path == ("d",)]
    assert (const.kind, const.allowed, const.keyword) == ("enum", (True,), "const")
    (cond,) = [p for p in found({"a": ["only"], "b": 3}) if p.path == ("b",)]
    assert cond.conditional and not enum.conditional


def test_an_unknown_key_names_the_allowed_ones() -> None:
    (p,) = [p for p in found({"a": ["x"], "b": 1, "zz": 0}) if p.kind == "unknown"]
    assert p.allowed == ("a", "b", "c", "d", "e", "f")
    assert p.value == {"a": ["x"], "b": 1, "zz": 0}


def test_text_helpers() -> None:
    assert backticked(["a", "b"]) == "`a`, `b`"
    assert types_text(("integer", "null")) == "integer | null"
    assert types_text(("integer", "null"), nullable=False) == "integer"
    assert types_text(("null",), nullable=False) == "null"
    assert (show(True), show(None), show(3)) == ("true", "null", "3")
    assert show("x" * 100) == "x" * 77 + "..."
