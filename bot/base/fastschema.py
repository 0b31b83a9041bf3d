"""A quick "is it valid?" for the project's own JSON Schemas, without jsonschema. Pure.

The master-config (CFG001) and changelog (CHL001) rules validate entries with
`jsonschema` (Draft 2020-12), whose import and validator build cost more than the
lint of a small pull request's entries, which are nearly always valid. `QuickSchema`
answers, for a schema written with the keywords listed here, `True` (valid: jsonschema
yields no error), `False` (invalid) or `None` (cannot tell). A rule takes only `True`
as its answer and asks jsonschema otherwise, which words the errors; so the answer
may only be `True` where jsonschema finds no error.

Each keyword follows jsonschema 4's own code for Draft 2020-12 (its `_keywords` and
type checker): keywords that do not apply to the instance's type pass, `enum` and
`const` compare as its `equal` does (`True` is not `1`), `if` picks `then` or `else`.
Anything it does not model makes the answer `None`:

- a schema with a keyword outside the list below (`$ref`, `patternProperties`,
  `prefixItems`, `format`, `minContains`...), an `$id` below the root, a `$schema`
  other than Draft 2020-12, or a keyword value of an unexpected shape: every answer
  is `None`;
- an instance that is not plain JSON data (exact `dict` with `str` keys, `list`,
  `str`, `bool`, `int`, `float`, `None`; a YAML date, a subclass, a non-string key);
- a float with an integral value judged as `integer` (versions of jsonschema differ).

Three values, not two, because `not`, `if`, `anyOf`, `oneOf` and `contains` turn an
answer about a subschema around: "cannot tell" there stays "cannot tell".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

# keywords that assert nothing (jsonschema ignores them), anywhere in a schema
_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly"}
    | {"writeOnly", "then", "else"}  # `then`/`else` are read by `if`
)
# only at the root
_ROOT_ONLY = frozenset({"$schema", "$id", "$defs"})

_TYPE_NAMES = frozenset({"object", "array", "string", "boolean", "null", "integer", "number"})
# the JSON type of each plain Python type (an `int` is also a `number`)
_KIND: Mapping[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    type(None): "null",
    int: "integer",
    float: "number",
}
_SCALARS = (str, bool, int, float, type(None))

Answer = bool | None


class QuickSchema:
    """`valid(instance)`: True, False, or None (ask jsonschema) for one schema."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self._patterns: dict[str, re.Pattern[str]] = {}
        self.supported = self._supported(schema, root=True)

    def valid(self, instance: Any) -> Answer:
        if not self.supported or not _plain(instance, 0):
            return None
        return self._check(self.schema, instance)

    # -- what the schema may hold ------------------------------------------------

    def _supported(self, schema: Any, root: bool = False) -> bool:
        if isinstance(schema, bool):
            return True
        if not isinstance(schema, dict):
            return False
        for key, value in schema.items():
            if not isinstance(key, str):
                return False
            if key in _ROOT_ONLY:
                if not root or (key == "$schema" and value != DRAFT_2020_12):
                    return False
                continue
            if key in _ANNOTATIONS or key.startswith("x-"):
                if key in ("then", "else") and not self._supported(value):
                    return False
                continue
            shape = _SHAPES.get(key)
            if shape is None or not shape(self, value):
                return False
        return True

    def _subschemas(self, value: Any) -> bool:
        return isinstance(value, list) and bool(value) and all(self._supported(v) for v in value)

    def _pattern(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        try:
            self._patterns[value] = re.compile(value)
        except re.error:
            return False
        return True

    # -- validating -----------------------------------------------------------------

    def _check(self, schema: Any, x: Any) -> Answer:
        if schema is True or schema is False:
            return schema
        answer: Answer = True
        for key, value in schema.items():
            rule = _RULES.get(key)
            if rule is None:
                continue
            got = rule(self, value, x, schema)
            if got is False:
                return False
            if got is None:
                answer = None
        return answer

    def _all(self, schemas: Any, x: Any) -> Answer:
        return _conjoin(self._check(sub, x) for sub in schemas)


def _plain(x: Any, depth: int) -> bool:
    """Whether `x` is plain JSON data (the types jsonschema's checker knows exactly)."""
    t = type(x)
    if t is dict:
        if depth > 200:
            return False
        return all(type(k) is str and _plain(v, depth + 1) for k, v in x.items())
    if t is list:
        if depth > 200:
            return False
        return all(_plain(v, depth + 1) for v in x)
    return t in _SCALARS


def _equal(one: Any, two: Any) -> Answer:
    """jsonschema's `equal` where a string or two scalars are compared (`True` is not
    `1`, `1.0` is `1`); None for two containers."""
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if type(one) not in _SCALARS or type(two) not in _SCALARS:
        return None
    if isinstance(one, bool) or isinstance(two, bool):
        return type(one) is bool and type(two) is bool and one == two
    return bool(one == two)


def _any(answers: Any) -> Answer:
    answer: Answer = False
    for got in answers:
        if got is True:
            return True
        if got is None:
            answer = None
    return answer


# -- each keyword: the shape its value must have, and its check ----------------------


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _type(q: QuickSchema, types: Any, x: Any, schema: Any) -> Answer:
    names = (types,) if isinstance(types, str) else types
    kind = _KIND[type(x)]
    if kind in names:
        return True
    if kind == "integer":
        return "number" in names
    if kind == "number" and "integer" in names and x.is_integer():
        return None  # `1.0`: an integer to jsonschema's Draft 6+ checker, not to every version
    return False


def _enum(q: QuickSchema, values: Any, x: Any, schema: Any) -> Answer:
    return _any(_equal(v, x) for v in values)


def _const(q: QuickSchema, value: Any, x: Any, schema: Any) -> Answer:
    return _equal(value, x)


def _required(q: QuickSchema, names: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not dict or all(n in x for n in names)


def _properties(q: QuickSchema, props: Any, x: Any, schema: Any) -> Answer:
    if type(x) is not dict:
        return True
    answer: Answer = True
    for name, sub in props.items():
        if name in x:
            got = q._check(sub, x[name])
            if got is False:
                return False
            if got is None:
                answer = None
    return answer


def _additional(q: QuickSchema, sub: Any, x: Any, schema: Any) -> Answer:
    if type(x) is not dict:
        return True
    props = schema.get("properties", {})
    extras = [k for k in x if k not in props]
    if sub is False:
        return not extras
    return _each(q, sub, [x[k] for k in extras])


def _each(q: QuickSchema, sub: Any, values: list[Any]) -> Answer:
    return _conjoin(q._check(sub, v) for v in values)


def _conjoin(answers: Iterable[Answer]) -> Answer:
    """All of `answers`, in three values: False at the first False (the rest are not
    computed), else None if any is None, else True."""
    answer: Answer = True
    for got in answers:
        if got is False:
            return False
        if got is None:
            answer = None
    return answer


def _items(q: QuickSchema, sub: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not list or _each(q, sub, x)


def _contains(q: QuickSchema, sub: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not list or _any(q._check(sub, v) for v in x)


def _min_items(q: QuickSchema, n: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not list or len(x) >= n


def _max_items(q: QuickSchema, n: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not list or len(x) <= n


def _min_length(q: QuickSchema, n: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not str or len(x) >= n


def _max_length(q: QuickSchema, n: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not str or len(x) <= n


def _numeric(x: Any) -> bool:
    return type(x) is int or type(x) is float


def _minimum(q: QuickSchema, limit: Any, x: Any, schema: Any) -> Answer:
    return not _numeric(x) or not x < limit


def _maximum(q: QuickSchema, limit: Any, x: Any, schema: Any) -> Answer:
    return not _numeric(x) or not x > limit


def _exclusive_minimum(q: QuickSchema, limit: Any, x: Any, schema: Any) -> Answer:
    return not _numeric(x) or not x <= limit


def _exclusive_maximum(q: QuickSchema, limit: Any, x: Any, schema: Any) -> Answer:
    return not _numeric(x) or not x >= limit


def _pattern(q: QuickSchema, pattern: Any, x: Any, schema: Any) -> Answer:
    return type(x) is not str or q._patterns[pattern].search(x) is not None


def _all_of(q: QuickSchema, subs: Any, x: Any, schema: Any) -> Answer:
    return q._all(subs, x)


def _any_of(q: QuickSchema, subs: Any, x: Any, schema: Any) -> Answer:
    return _any(q._check(sub, x) for sub in subs)


def _one_of(q: QuickSchema, subs: Any, x: Any, schema: Any) -> Answer:
    answers = [q._check(sub, x) for sub in subs]
    if None in answers:
        return None
    return answers.count(True) == 1


def _not(q: QuickSchema, sub: Any, x: Any, schema: Any) -> Answer:
    got = q._check(sub, x)
    return None if got is None else not got


def _if(q: QuickSchema, sub: Any, x: Any, schema: Any) -> Answer:
    got = q._check(sub, x)
    if got is None:
        return None
    branch = "then" if got else "else"
    return q._check(schema[branch], x) if branch in schema else True


Rule = Callable[[QuickSchema, Any, Any, Any], Answer]

_RULES: Mapping[str, Rule] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional,
    "items": _items,
    "contains": _contains,
    "minItems": _min_items,
    "maxItems": _max_items,
    "minLength": _min_length,
    "maxLength": _max_length,
    "minimum": _minimum,
    "maximum": _maximum,
    "exclusiveMinimum": _exclusive_minimum,
    "exclusiveMaximum": _exclusive_maximum,
    "pattern": _pattern,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
}


_SHAPES: Mapping[str, Callable[[QuickSchema, Any], bool]] = {
    "type": lambda q, v: (
        v in _TYPE_NAMES
        if isinstance(v, str)
        else isinstance(v, list) and bool(v) and all(n in _TYPE_NAMES for n in v)
    ),
    "enum": lambda q, v: isinstance(v, list),
    "const": lambda q, v: True,
    "required": lambda q, v: isinstance(v, list) and all(isinstance(n, str) for n in v),
    "properties": lambda q, v: (
        isinstance(v, dict) and all(isinstance(k, str) and q._supported(s) for k, s in v.items())
    ),
    "additionalProperties": lambda q, v: q._supported(v),
    "items": lambda q, v: q._supported(v),
    "contains": lambda q, v: q._supported(v),
    "minItems": lambda q, v: _is_count(v),
    "maxItems": lambda q, v: _is_count(v),
    "minLength": lambda q, v: _is_count(v),
    "maxLength": lambda q, v: _is_count(v),
    "minimum": lambda q, v: _is_number(v),
    "maximum": lambda q, v: _is_number(v),
    "exclusiveMinimum": lambda q, v: _is_number(v),
    "exclusiveMaximum": lambda q, v: _is_number(v),
    "pattern": QuickSchema._pattern,
    "allOf": QuickSchema._subschemas,
    "anyOf": QuickSchema._subschemas,
    "oneOf": QuickSchema._subschemas,
    "not": lambda q, v: q._supported(v),
    "if": lambda q, v: q._supported(v),
}
