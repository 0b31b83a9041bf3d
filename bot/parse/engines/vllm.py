"""vLLM: K, draft and synthetic acceptance live in the `--speculative-config` JSON. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.parse.engines import Simulation, Spec, canon, names, unit
from bot.parse.jsonpos import JNode
from bot.parse.recipe import Launch, Setting


def spec(launch: Launch, entry: Mapping[str, Any], knowledge: Any) -> Spec | None:
    flags = names(entry, "flags", "speculative_config")
    if not flags:
        return None
    node, flag = launch.flag_json(flags[0])
    if flag is None or flag.value is None:
        return None
    value = flag.value
    if node is None or not isinstance(node.value, dict):
        return Spec(None, None, flag.value_span, None, None, None, {})
    keys: Mapping[str, str] = entry.get("speculative_config") or {}

    def get(name: str) -> Setting | None:
        key = keys.get(name)
        if not key:
            return None
        return launch.json_setting(node, value, key, f"{flag.name} {key}")

    method = get("method")
    sim = None
    length = get("acceptance_length")
    rsm = get("rejection_method")
    if length is not None or (rsm is not None and rsm.value == keys.get("synthetic_method")):
        sim = Simulation("vllm", length or rsm, unit(entry, "acceptance_length"))  # type: ignore[arg-type]
    attrs = {
        k: str(v.value)
        for k, v in node.value.items()
        if isinstance(v, JNode) and isinstance(v.value, (str, int, float))
    }
    raw = method.value if method else None
    draft = get("draft")
    if draft is not None and draft.value is None and not draft.text.strip('"'):
        draft = None
    return Spec(
        canon(raw, knowledge),
        raw if isinstance(raw, str) else None,
        flag.value_span,
        draft,
        get("k"),
        sim,
        attrs,
    )
