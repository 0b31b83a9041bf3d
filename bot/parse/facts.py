"""Engine-independent facts about one launch, read from engine-specific flags. Pure.

Rules ask "what is K", "does this launch simulate acceptance", "what turns
thinking on" without knowing that vLLM keeps K in `--speculative-config`
JSON, SGLang in `--speculative-num-steps` and TensorRT-LLM in its YAML: the
engine adapters (`bot.parse.engines`) read those names from the knowledge.
"""

from __future__ import annotations

import re
from typing import Any

from bot.base.knowledge import Knowledge
from bot.base.records import dataclass
from bot.base.span import Span
from bot.parse.engines import Simulation, Spec, flag_setting, setting, table, to_float
from bot.parse.engines import spec as engine_spec
from bot.parse.jsonpos import parse_json
from bot.parse.recipe import Launch, Origin, Recipe, Setting

__all__ = ["Simulation", "Spec", "Thinking", "memory", "reasoning_parser", "spec", "thinking"]


@dataclass(frozen=True)
class Thinking:
    mode: str | None  # "on" | "off" | None (unknown)
    explicit: bool  # set by the recipe (True) or the model's default (False)
    source: str  # what decided it, for messages
    span: Span | None


number = to_float


def _int(value: Any) -> int | None:
    f = number(value)
    if f is None or not f.is_integer():
        return None
    return int(f)


_flag_setting = flag_setting


def reasoning_parser(launch: Launch, knowledge: Any) -> Setting | None:
    return setting(launch, table(knowledge, launch.engine), "reasoning_parser")


def tool_call_parser(launch: Launch, knowledge: Any) -> Setting | None:
    return setting(launch, table(knowledge, launch.engine), "tool_call_parser")


def memory(launch: Launch, knowledge: Any) -> Setting | None:
    """The fraction of GPU memory the engine may take, in its own knob."""
    return setting(launch, table(knowledge, launch.engine), "memory")


def spec(launch: Launch, knowledge: Knowledge) -> Spec | None:
    """Speculative decoding as configured for this launch, or None."""
    return engine_spec(launch, knowledge)


def k_value(s: Spec) -> int | None:
    return _int(s.k.value) if s.k is not None else None


_BOOLS = {"true": "true", "false": "false", "1": "true", "0": "false"}


def thinking(launch: Launch, recipe: Recipe, knowledge: Knowledge) -> Thinking:
    """Whether the engine serves with thinking on, and what decided it."""
    switches = knowledge.thinking
    kwargs_map = switches.kwargs
    for name in ("--default-chat-template-kwargs", "--chat-template-kwargs"):
        node, flag = launch.flag_json(name)
        if flag is None or flag.value is None or node is None or not isinstance(node.value, dict):
            continue
        for key, child in node.value.items():
            if key in kwargs_map:
                raw = child.value
                text = (
                    str(raw).lower() if not isinstance(raw, bool) else ("true" if raw else "false")
                )
                mode = kwargs_map[key].get(text)
                if mode:
                    span = flag.value.span_at(child.start) or flag.value_span
                    return Thinking(mode, True, f"{name} {key}={text}", span)
    for name, modes in switches.flags.items():
        fs = _flag_setting(launch, name)
        if fs is not None and isinstance(fs.value, str):
            mode = modes.get(fs.value.lower())
            if mode:
                return Thinking(mode, True, f"{name} {fs.value}", fs.span)
    for var, on_values in switches.env_on.items():
        env = launch.env_setting(var)
        if env is None and var in launch.client_env and launch.client_env[var].known:
            c = launch.client_env[var]
            env = Setting(c.text, c.span or launch.span, c.text, Origin("client", var))
        if env is not None and env.value is not None:
            val = str(env.value).lower()
            return Thinking(
                "on" if val in on_values else "off", True, f"env {var}={env.value}", env.span
            )
    extra = launch.env_setting("AIPERF_EXTRA_INPUTS")
    client = launch.client_env.get("AIPERF_EXTRA_INPUTS")
    if extra is None and client is not None and client.known:
        extra = Setting(
            client.text,
            client.span or launch.span,
            client.text,
            Origin("client", "AIPERF_EXTRA_INPUTS"),
        )
    if extra is not None and isinstance(extra.value, str):
        m = re.search(r"\b(thinking|enable_thinking)\s*:\s*(true|false)", extra.value, re.I)
        if m:
            return Thinking(
                "on" if m.group(2).lower() == "true" else "off",
                True,
                f"env AIPERF_EXTRA_INPUTS {m.group(0)}",
                extra.span,
            )
    tmpl = _flag_setting(launch, "--chat-template", "--chat_template")
    if tmpl is not None and isinstance(tmpl.text, str):
        name = tmpl.text.rsplit("/", 1)[-1].lower()
        if any(word in name for word in switches.chat_template_on):
            return Thinking("on", True, f"--chat-template {name}", tmpl.span)
    default = knowledge.model(recipe.model).get("default_thinking")
    if default in ("on", "off"):
        name = knowledge.model(recipe.model).get("name", recipe.model)
        return Thinking(default, False, f"{name} serves thinking {default} by default", None)
    return Thinking(None, False, "unknown", None)


@dataclass(frozen=True)
class Effort:
    """The reasoning effort a launch serves thinking requests at, and where it is set."""

    value: str  # lower case: "high", "max", ...
    source: str  # what set it, for messages
    setting: str  # the knob to edit: an env name or `<flag> <kwarg>`
    span: Span | None


def effort(launch: Launch, knowledge: Knowledge) -> Effort | None:
    """The reasoning effort the launch's requests get: the client's request inputs,
    else the server's chat-template kwargs, else its environment default; None when
    nothing sets it (the model's own default, not known here)."""
    table = knowledge.reasoning_effort
    keys = table.kwargs
    if not keys:
        return None
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in keys) + r")\s*:\s*\"?([\w-]+)")
    for var in ("AIPERF_EXTRA_INPUTS",):
        value = launch.client_env.get(var) or launch.env.get(var)
        if value is not None and value.known and (m := pattern.search(value.text)):
            span = value.span_at(m.start(2)) or value.span or launch.span
            return Effort(m.group(2).lower(), f"{var} {m.group(0)}", var, span)
    for name in ("--default-chat-template-kwargs", "--chat-template-kwargs"):
        node, flag = launch.flag_json(name)
        if flag is None or flag.value is None or node is None or not isinstance(node.value, dict):
            continue
        for key in keys:
            child = node.value.get(key)
            if child is not None and isinstance(child.value, str):
                span = flag.value.span_at(child.start) or flag.value_span
                text = child.value.lower()
                return Effort(text, f"{name} {key}={text}", f"{name} {key}", span)
    for var in table.env:
        env = launch.env_setting(var)
        if env is not None and isinstance(env.value, str) and env.value.strip():
            return Effort(env.value.strip().lower(), f"env {var}={env.value}", var, env.span)
    return None


def curve_effort(kwargs_text: str | None, knowledge: Knowledge) -> str | None:
    """The reasoning effort a golden curve's header names for one thinking mode (its
    chat-template kwargs), or None when it names none."""
    if not kwargs_text:
        return None
    node = parse_json(kwargs_text)
    if node is None or not isinstance(node.value, dict):
        return None
    for key in knowledge.reasoning_effort.kwargs:
        child = node.value.get(key)
        if child is not None and isinstance(child.value, str) and child.value.strip():
            return child.value.strip().lower()
    return None


def recipe_drafts(recipe: Recipe, knowledge: Knowledge) -> list[str]:
    """Known draft-model repositories the recipe text names, longest first."""
    drafts: set[str] = set()
    for entry in knowledge.golden:
        drafts.update(entry.drafts)
    code = "\n".join(line for line in recipe.lines if not line.lstrip().startswith("#"))
    found = []
    for d in sorted(drafts, key=len, reverse=True):
        if re.search(re.escape(d) + r"(?![\w-])", code):
            found.append(d)
    return found


def draft_identity(s: Spec, recipe: Recipe, knowledge: Knowledge) -> str | None:
    """The draft model repository, from the launch when known, else the recipe text."""
    known: set[str] = set()
    for entry in knowledge.golden:
        known.update(entry.drafts)
    if s.draft is not None and isinstance(s.draft.value, str):
        if s.draft.value in known:
            return s.draft.value
        base = s.draft.value.rstrip("/").rsplit("/", 1)[-1]
        by_base = [d for d in known if d.rsplit("/", 1)[-1] == base]
        if len(by_base) == 1:
            return by_base[0]
    found = recipe_drafts(recipe, knowledge)
    if len(found) == 1:
        return found[0]
    return None


def uses_separate_draft(s: Spec) -> bool:
    return s.draft is not None


__all__ = [
    "Effort",
    "Simulation",
    "Spec",
    "Thinking",
    "curve_effort",
    "draft_identity",
    "effort",
    "k_value",
    "memory",
    "parse_json",
    "reasoning_parser",
    "recipe_drafts",
    "spec",
    "thinking",
    "tool_call_parser",
]
