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


def _keys() -> list[str]:
    data = load_safe(default_knowledge_text())
    out = []
    for top, value in data.items():
        out.append(str(top))
        if top in DATA_SECTIONS or not isinstance(value, dict):
            continue
        for key, inner in value.items():
            out.append(f"{top}.{key}")
            if isinstance(inner, dict) and key not in (
                "kwargs",
                "env_on",
                "flags",
                "commands",
                "client_chat_flags",
            ):
                out.extend(f"{top}.{key}.{k}" for k in inner)
    return out


def test_every_knowledge_key_is_read() -> None:
    code = _sources()
    unread = []
    for dotted in _keys():
        name = dotted.rsplit(".", 1)[-1]
        if not re.search(r"[\"']" + re.escape(name) + r"[\"']", code):
            unread.append(dotted)
    assert unread == [], f"knowledge keys no code reads: {unread}"
