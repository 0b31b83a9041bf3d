"""CFG001's validator for a reference-free schema keeps each subschema's validator
(`_reference_free_validator`): it must yield the stock Draft 2020-12 errors, in order."""

from __future__ import annotations

from typing import Any

import jsonschema

from bot.core.config import load_schema
from rules.config import CFG001_master_config_entry_violates_schema as cfg001


def _errors(validator: Any, instance: Any) -> list[tuple[Any, ...]]:
    return [
        (
            tuple(e.absolute_path),
            tuple(e.absolute_schema_path),
            e.message,
            e.validator,
            [(tuple(c.absolute_path), tuple(c.absolute_schema_path), c.message) for c in e.context],
        )
        for e in validator.iter_errors(instance)
    ]


def test_the_kept_validators_yield_the_stock_errors() -> None:
    schema = load_schema(cfg001.SCHEMA_NAME)
    inlined = cfg001._inline(schema, schema.get("$defs", {}))
    assert not cfg001._refers(inlined, root=True)
    fast, stock = cfg001._schema(), jsonschema.Draft202012Validator(inlined)
    assert not isinstance(fast, jsonschema.Draft202012Validator)
    entries: list[Any] = [
        {},
        {"image": 3, "model": "m", "multinode": "yes", "scenarios": {"x": [{"search-space": [1]}]}},
        {
            "image": "i",
            "model": "m",
            "model-prefix": "p",
            "runner": "r",
            "precision": "fp4",
            "framework": "vllm",
            "multinode": False,
            "scenarios": {
                "fixed-seq-len": [{"isl": "1k", "search-space": [{"tp": "8"}, {"tp": 8}]}]
            },
        },
    ]
    for entry in entries * 2:  # twice: the second pass runs on the kept validators
        assert _errors(fast, entry) == _errors(stock, entry)
    assert any(_errors(stock, e) for e in entries)


def test_a_schema_that_resolves_references_gets_the_stock_validator() -> None:
    assert cfg001._refers({"$id": "x", "properties": {"a": {"$ref": "#/b"}}}, root=True)
    assert cfg001._refers({"items": [{"$dynamicRef": "#n"}]}, root=True)
    assert cfg001._refers({"properties": {"a": {"$id": "y"}}}, root=True)
    assert not cfg001._refers({"$id": "x", "$schema": "s", "$comment": "c"}, root=True)
