"""The shipped knowledge is read from its compiled JSON, which must be the YAML's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bot.core.config as config
from bot.knowledge.__main__ import compiled_text, main
from bot.parse.yamlsafe import load_safe

HERE = Path(config.__file__).resolve().parents[1] / "knowledge"


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (1, 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_the_shipped_json_is_compiled_from_the_shipped_yaml() -> None:
    assert (HERE / "default.json").read_text(encoding="utf-8") == compiled_text(), (
        "bot/knowledge/default.json is stale: run `python -m bot.knowledge`"
    )
    assert main(["--check"]) == 0


def test_the_json_reads_as_the_yaml_parses() -> None:
    parsed = load_safe(config.default_knowledge_text())
    assert _same(config.default_knowledge(), parsed)
    assert not _same({"a": 1}, {"a": 1.0}) and not _same([True], [1])


def test_a_yaml_the_json_was_not_compiled_from_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    edited = config.default_knowledge_text() + "\nadded_for_the_test: 1\n"
    monkeypatch.setattr(config, "default_knowledge_text", lambda: edited)
    data = config.default_knowledge()
    assert data["added_for_the_test"] == 1
    assert _same(data, load_safe(edited))


def test_an_unreadable_json_falls_back_to_the_yaml(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "default.yaml").write_text(config.default_knowledge_text(), encoding="utf-8")
    (tmp_path / "default.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(config.resources, "files", lambda package: tmp_path)
    assert _same(config.default_knowledge(), load_safe(config.default_knowledge_text()))
    (tmp_path / "default.json").unlink()
    assert _same(config.default_knowledge(), load_safe(config.default_knowledge_text()))
