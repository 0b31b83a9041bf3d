"""SGLang: the algorithm and K are flags; acceptance is simulated through an env var. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.parse.engines import Simulation, Spec, canon, env_setting, setting, unit
from bot.parse.recipe import Launch


def spec(launch: Launch, entry: Mapping[str, Any], knowledge: Any) -> Spec | None:
    algo = setting(launch, entry, "algorithm")
    if algo is None:
        return None
    draft = setting(launch, entry, "draft")
    k = setting(launch, entry, "k")
    env = env_setting(launch, entry, "acceptance_length")
    sim = Simulation("sglang", env, unit(entry, "acceptance_length")) if env is not None else None
    raw = algo.value if isinstance(algo.value, str) else None
    return Spec(canon(raw, knowledge), raw, algo.span, draft, k, sim, {})
