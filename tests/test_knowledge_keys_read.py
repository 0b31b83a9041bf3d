"""Every key of the shipped knowledge is read by some code (no dead knowledge)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.core.config import default_knowledge_text
from bot.parse.yamlsafe import load_safe

ROOT = Path(__file__).resolve().parents[1]
# sections whose keys are data (model prefixes, engine names, flag names), not settings
DATA_SECTIONS = {
    "models",
    "spec_methods",
    "upstream_engines",
    "primary_engines",
    "frontends",
    "golden",
    "deprecations",
    "model_families",
}


def _sources() -> str:
    parts = []
    for folder in ("bot", "rules"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts.append(path.read_text(encoding="utf-8"))
    return "\n".join(parts)


# nodes whose keys are data (an engine name, a path) but whose children are settings again
DATA_LEVELS = {"engines", "model_tables", "recipe_helpers.command_runners", "practices"}
# nodes whose keys are data all the way down (flag names, env names, client names)
DATA_NODES = {
    "thinking.kwargs",
    "thinking.env_on",
    "thinking.flags",
    "changelog_coverage.renamed",  # old key -> new place
}
DATA_LEAVES = {"commands", "client_chat_flags"}


def _walk(node: object, path: tuple[str, ...], out: list[str]) -> None:
    if not isinstance(node, dict):
        return
    dotted = ".".join(p for p in path if p != "*")
    if path and (path[0] in DATA_SECTIONS or dotted in DATA_NODES or path[-1] in DATA_LEAVES):
        return
    data_level = ".".join(path) in DATA_LEVELS
    for key, inner in node.items():
        if not data_level:
            out.append(".".join((*path, str(key))))
        _walk(inner, (*path, "*" if data_level else str(key)), out)


def _keys() -> list[str]:
    """Every setting key of the shipped knowledge, at any depth."""
    data = load_safe(default_knowledge_text())
    out: list[str] = []
    for top, value in data.items():
        out.append(str(top))
        if top not in DATA_SECTIONS:
            _walk(value, (str(top),), out)
    return out


def test_the_walk_reaches_the_engine_table() -> None:
    keys = _keys()
    # engine names are data; what each engine entry says is read by its adapter
    assert "engines.*.flags.memory" in keys and "engines.*.units.acceptance_length" in keys
    assert "engines.vllm" not in keys
    assert "master_launch.min_eval_conc" in keys


def test_every_knowledge_key_is_read() -> None:
    code = _sources()
    unread = []
    for dotted in _keys():
        name = dotted.rsplit(".", 1)[-1]
        if not re.search(r"[\"']" + re.escape(name) + r"[\"']", code):
            unread.append(dotted)
    assert unread == [], f"knowledge keys no code reads: {unread}"
