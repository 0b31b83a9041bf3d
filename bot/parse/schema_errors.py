"""JSON Schema errors as typed problems, for the rules that validate YAML against a schema.

`jsonschema` reports an error per failed keyword with a message in its own words.
The changelog-entry (CHL001) and master-config-entry (CFG001) rules word theirs from
their records, in both languages; what they share is here: which keyword failed,
where in the document, and the values a message names (the key, the YAML type
names, the allowed values), read once from the error. A rule maps a problem's
`kind` to a variant of its record and places it on a line.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal

from bot.base.records import dataclass

if TYPE_CHECKING:
    import jsonschema

from bot.parse.yamlsafe import type_name

# JSON Schema type names as YAML (and the sweep's error messages) call them
JSON_TO_YAML: Mapping[str, str] = {
    "array": "list",
    "object": "mapping",
    "string": "string",
    "boolean": "boolean",
    "integer": "integer",
    "number": "number",
    "null": "null",
}

Kind = Literal[
    "missing",  # `required`: one problem per absent key (`name`)
    "unknown",  # `additionalProperties: false`: one per unknown key (`name`, `allowed`)
    "not-mapping",  # `type` at the document's top: it is not a mapping
    "type",  # `type`: `expected` YAML type names, `actual` the value's
    "enum",  # `enum` / `const`: `value` is not one of `allowed`
    "minimum",
    "maximum",
    "exclusive-minimum",  # `limit` is the bound
    "empty-list",  # `minItems`
    "empty-string",  # `minLength`
    "other",  # any other keyword: `detail` is jsonschema's message
]

_BOUNDS: Mapping[str, Kind] = {
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive-minimum",
}


@dataclass(frozen=True)
class SchemaProblem:
    kind: Kind
    # where the offending value is: keys and list indices from the document's top
    path: tuple[Hashable, ...]
    name: str | None = None
    expected: tuple[str, ...] = ()
    actual: str | None = None
    # the value the failed keyword judged (for `missing`/`unknown`: the mapping)
    value: Any = None
    limit: Any = None
    allowed: tuple[Any, ...] = ()
    # jsonschema's own message (the fallback wording for a keyword no variant names)
    detail: str = ""
    # the schema's own wording for this keyword (`x-messages: {<keyword>: {en, zh}}`)
    custom: Mapping[str, str] | None = None
    # raised inside an `if`/`then` branch: a cross-field condition, not a field's own shape
    conditional: bool = False
    keyword: str = ""
    schema_path: tuple[Hashable, ...] = field(default=(), repr=False)


def problems(error: jsonschema.ValidationError) -> Iterator[SchemaProblem]:
    """The problems one jsonschema error stands for (a `required` or
    `additionalProperties` error names several keys: one problem each)."""
    path = tuple(error.absolute_path)
    instance = error.instance
    keyword = str(error.validator)
    schema: Any = error.schema
    custom = schema.get("x-messages", {}).get(keyword) if isinstance(schema, dict) else None
    common: dict[str, Any] = {
        "path": path,
        "custom": custom,
        "conditional": "then" in error.schema_path,
        "keyword": keyword,
        "schema_path": tuple(error.schema_path),
        "detail": error.message,
        "value": instance,
    }
    if keyword == "required" and isinstance(instance, dict):
        required: Any = error.validator_value
        for name in required:
            if name not in instance:
                yield SchemaProblem("missing", name=str(name), **common)
        return
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = tuple(schema.get("properties", {})) if isinstance(schema, dict) else ()
        for name in instance:
            if name not in allowed:
                yield SchemaProblem("unknown", name=str(name), allowed=allowed, **common)
        return
    if keyword == "type":
        value: Any = error.validator_value
        types = (value,) if isinstance(value, str) else tuple(value)
        yield SchemaProblem(
            "not-mapping" if not path else "type",
            expected=tuple(JSON_TO_YAML.get(t, t) for t in types),
            actual=type_name(instance),
            **common,
        )
    elif keyword in ("enum", "const"):
        allowed_values: Any = (
            error.validator_value if keyword == "enum" else [error.validator_value]
        )
        yield SchemaProblem("enum", allowed=tuple(allowed_values), **common)
    elif keyword in _BOUNDS:
        yield SchemaProblem(_BOUNDS[keyword], limit=error.validator_value, **common)
    elif keyword == "minItems":
        yield SchemaProblem("empty-list", **common)
    elif keyword == "minLength":
        yield SchemaProblem("empty-string", **common)
    else:
        yield SchemaProblem("other", **common)


def backticked(names: Iterable[Any]) -> str:
    """`a`, `b`, `c`: names for a message."""
    return ", ".join(f"`{n}`" for n in names)


def types_text(expected: Iterable[str], *, nullable: bool = True) -> str:
    """`list | mapping`; without `nullable`, a `null` the schema allows is left out."""
    shown = [t for t in expected if nullable or t != "null"]
    return " | ".join(shown) or "null"


def show(value: Any) -> str:
    """A value as YAML writes it (`true`, `null`), cut to 80 characters."""
    text = (
        "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    )
    return text if len(text) <= 80 else text[:77] + "..."
