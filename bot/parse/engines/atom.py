"""ATOM: method, K and draft are flags; acceptance is simulated as a length or as a
rate per drafted token (the two flags are exclusive). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.parse.engines import Simulation, Spec, canon, setting, unit
from bot.parse.recipe import Launch


def spec(launch: Launch, entry: Mapping[str, Any], knowledge: Any) -> Spec | None:
    method = setting(launch, entry, "method")
    k = setting(launch, entry, "k")
    if method is None and k is None:
        return None
    draft = setting(launch, entry, "draft")
    length = setting(launch, entry, "acceptance_length")
    rate = setting(launch, entry, "acceptance_rate")
    sim = None
    if length is not None:
        sim = Simulation("atom-length", length, unit(entry, "acceptance_length"))
    elif rate is not None:
        sim = Simulation("atom-rate", rate, unit(entry, "acceptance_rate"))
    raw = method.value if method and isinstance(method.value, str) else None
    anchor = (method or k).span  # type: ignore[union-attr]
    default = entry.get("default_method")
    return Spec(
        canon(raw, knowledge) or (str(default) if default else None), raw, anchor, draft, k, sim, {}
    )
