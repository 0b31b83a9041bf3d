"""Engine adapters: each engine's spelling of the settings the rules read. Pure.

The names come from the knowledge table `engines.<engine>` (flags in every
spelling, engine-YAML key paths, environment names, the keys of the
speculative config and the unit of the synthetic-acceptance knob); one module
per engine (`vllm`, `sglang`, `trtllm`, `atom`) reads its entry and builds the
engine-independent `Spec`. `bot.parse.facts` asks the adapter of a launch's
engine and never names a flag itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from bot.base.records import dataclass
from bot.base.span import Span
from bot.parse.jsonpos import UnknownValue
from bot.parse.recipe import RULE_FLAGS, Launch, Origin, RecipeInputs, Setting


@dataclass(frozen=True)
class Simulation:
    """Simulated (synthetic) acceptance as the engine is told it."""

    kind: Literal["vllm", "sglang", "trtllm", "atom-length", "atom-rate"]
    setting: Setting
    # what the value means (`engines.<e>.units`): "al" | "al_minus_one" | "rate_per_draft_token"
    unit: str = "al"

    @property
    def value(self) -> float | None:
        return to_float(self.setting.value)


@dataclass(frozen=True)
class Spec:
    method: str | None  # canonical: eagle3 | mtp | dspark | ...
    raw_method: str | None
    anchor: Span  # where the speculative config is written
    draft: Setting | None
    k: Setting | None
    simulation: Simulation | None
    attrs: Mapping[str, str]  # other spec-config keys (draft_sample_method, ...)


def to_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None or isinstance(value, UnknownValue):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def table(knowledge: Any, engine: str) -> Mapping[str, Any]:
    """`engines.<engine>` of the knowledge ({} when the engine is not described)."""
    engines = knowledge.section("engines") or {}
    entry = engines.get(engine) if isinstance(engines, Mapping) else None
    return entry if isinstance(entry, Mapping) else {}


def names(entry: Mapping[str, Any], group: str, name: str) -> list[str]:
    """The spellings `entry[group][name]` lists (flags, env names)."""
    got = (entry.get(group) or {}).get(name)
    if isinstance(got, str):
        return [got]
    return [str(x) for x in got] if isinstance(got, Sequence) else []


def yaml_paths(entry: Mapping[str, Any], name: str) -> list[tuple[str, ...]]:
    """The engine-YAML key paths `entry.yaml[name]` lists: one path, or several."""
    got = (entry.get("yaml") or {}).get(name)
    if not isinstance(got, Sequence) or not got:
        return []
    if all(isinstance(x, str) for x in got):
        return [tuple(str(x) for x in got)]
    return [tuple(str(y) for y in x) for x in got if isinstance(x, Sequence)]


def flag_setting(launch: Launch, *flags: str) -> Setting | None:
    if not flags:
        return None
    f = launch.flag(*flags)
    if f is None:
        return None
    if f.value is None:
        return Setting(True, f.span, f.name, Origin("flag", f.name))
    return Setting(f.value.value, f.value_span, f.value.text, Origin("flag", f.name))


def setting(launch: Launch, entry: Mapping[str, Any], name: str) -> Setting | None:
    """The launch's `name` setting: a flag in any spelling, else an engine-YAML key."""
    found = flag_setting(launch, *names(entry, "flags", name))
    if found is not None:
        return found
    for path in yaml_paths(entry, name):
        found = launch.yaml_setting(*path)
        if found is not None:
            return found
    return None


def env_setting(launch: Launch, entry: Mapping[str, Any], name: str) -> Setting | None:
    for env in names(entry, "env", name):
        found = launch.env_setting(env)
        if found is not None:
            return found
    return None


def unit(entry: Mapping[str, Any], name: str) -> str:
    return str((entry.get("units") or {}).get(name, "al"))


def engine_value(unit_: str, al: float, k: int) -> float:
    """The value a synthetic-acceptance knob in `unit_` needs for golden AL `al`."""
    if unit_ == "al_minus_one":  # TensorRT-LLM: accepted draft tokens, no bonus token
        return al - 1
    if unit_ == "rate_per_draft_token":  # ATOM: acceptance rate per drafted token
        return (al - 1) / k
    return al


def tolerance(unit_: str) -> float:
    """How far a written value may be from the exact one (a rate is printed rounded)."""
    return 5e-4 if unit_ == "rate_per_draft_token" else 1e-6


def canon(method: Any, knowledge: Any) -> str | None:
    if not isinstance(method, str):
        return None
    spec_methods: Mapping[str, str] = knowledge.spec_methods
    return spec_methods.get(method.lower(), method.lower())


def spec(launch: Launch, knowledge: Any) -> Spec | None:
    """Speculative decoding as the launch's engine is told it, or None.

    Every rule asks it of every launch: the answer is kept on the launch, with the
    knowledge it was read with."""
    memo = launch.spec_memo
    if memo is not None and memo[0] is knowledge:
        return memo[1]  # type: ignore[no-any-return]
    adapter = ADAPTERS.get(launch.engine)
    found: Spec | None = None
    if adapter is not None:
        found = adapter.spec(launch, table(knowledge, launch.engine), knowledge)
    launch.spec_memo = (knowledge, found)
    return found


def watched(knowledge: Any) -> tuple[frozenset[str], frozenset[str]]:
    """Every flag and environment name the table gives: the values rules read."""
    flags: set[str] = set()
    env: set[str] = set()
    engines = knowledge.section("engines") or {}
    for entry in engines.values() if isinstance(engines, Mapping) else ():
        if not isinstance(entry, Mapping):
            continue
        for group, out in (("flags", flags), ("env", env)):
            for name in entry.get(group) or {}:
                out.update(names(entry, group, name))
    return frozenset(flags), frozenset(env)


def recipe_inputs(knowledge: Any) -> RecipeInputs:
    """The interpreter's inputs from the knowledge: the names whose values the rules
    read (the engines table, the thinking switches, RULE_FLAGS) and the target
    repository's state-free helpers (`recipe_helpers.inert`)."""
    flags, env = watched(knowledge)
    thinking = knowledge.thinking
    env |= frozenset(thinking.env_on)
    flags |= frozenset(thinking.flags)
    env |= {"AIPERF_EXTRA_INPUTS"}
    helpers = knowledge.recipe_helpers
    inert = helpers.inert
    runners = {n: r.variable for n, r in helpers.command_runners.items() if r.variable}
    # a runner's variable is read when the runner is called: keep its value apart
    env |= frozenset(runners.values())
    return RecipeInputs(flags | RULE_FLAGS, env, inert, runners)


# The adapters read this package's helpers above: imported last, so that either side may
# be imported first (a cycle, not a lazy import).
from bot.parse.engines import atom, sglang, trtllm, vllm  # noqa: E402

ADAPTERS: dict[str, Any] = {"vllm": vllm, "sglang": sglang, "trtllm": trtllm, "atom": atom}
