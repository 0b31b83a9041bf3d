"""TensorRT-LLM: speculative config in the engine YAML; acceptance forced through an env
var that counts accepted draft tokens only (AL - 1, `units`). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.parse.engines import Simulation, Spec, canon, env_setting, setting, unit
from bot.parse.recipe import Launch


def spec(launch: Launch, entry: Mapping[str, Any], knowledge: Any) -> Spec | None:
    cfg = setting(launch, entry, "speculative_config")
    if cfg is None:
        return None
    dtype = setting(launch, entry, "method")
    draft = setting(launch, entry, "draft")
    k = setting(launch, entry, "k")
    env = env_setting(launch, entry, "acceptance_length")
    sim = Simulation("trtllm", env, unit(entry, "acceptance_length")) if env is not None else None
    raw = dtype.value if dtype and isinstance(dtype.value, str) else None
    return Spec(canon(raw, knowledge), raw, (dtype or cfg).span, draft, k, sim, {})
