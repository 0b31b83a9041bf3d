"""Engine-independent facts about one launch, read from engine-specific flags. Pure.

Rules ask "what is K", "does this launch simulate acceptance", "what turns
thinking on" without knowing that vLLM keeps K in `--speculative-config`
JSON, SGLang in `--speculative-num-steps` and TensorRT-LLM in its YAML.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.base.knowledge import Knowledge
from bot.base.span import Span
from bot.parse.jsonpos import JNode, UnknownValue, parse_json
from bot.parse.recipe import Launch, Origin, Recipe, Setting


@dataclass(frozen=True)
class Simulation:
    """Simulated (synthetic) acceptance as the engine is told it."""

    kind: str  # "vllm" | "sglang" | "trtllm" | "atom-length" | "atom-rate"
    setting: Setting

    @property
    def value(self) -> float | None:
        return number(self.setting.value)


@dataclass(frozen=True)
class Spec:
    method: str | None  # canonical: eagle3 | mtp | dspark | ...
    raw_method: str | None
    anchor: Span  # where the speculative config is written
    draft: Setting | None
    k: Setting | None
    simulation: Simulation | None
    attrs: Mapping[str, str]  # other spec-config keys (draft_sample_method, ...)


@dataclass(frozen=True)
class Thinking:
    mode: str | None  # "on" | "off" | None (unknown)
    explicit: bool  # set by the recipe (True) or the model's default (False)
    source: str  # what decided it, for messages
    span: Span | None


def number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None or isinstance(value, UnknownValue):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int | None:
    f = number(value)
    if f is None or not f.is_integer():
        return None
    return int(f)


def _flag_setting(launch: Launch, *names: str) -> Setting | None:
    f = launch.flag(*names)
    if f is None:
        return None
    if f.value is None:
        return Setting(True, f.span, f.name, Origin("flag", f.name))
    return Setting(f.value.value, f.value_span, f.value.text, Origin("flag", f.name))


def reasoning_parser(launch: Launch) -> Setting | None:
    s = _flag_setting(launch, "--reasoning-parser", "--reasoning_parser")
    if s is None and launch.engine == "trtllm":
        s = launch.yaml_setting("reasoning_parser")
    return s


def tool_call_parser(launch: Launch) -> Setting | None:
    s = _flag_setting(launch, "--tool-call-parser", "--tool_call_parser")
    if s is None and launch.engine == "trtllm":
        s = launch.yaml_setting("tool_call_parser")
    return s


def memory(launch: Launch) -> Setting | None:
    """The fraction of GPU memory the engine may take, in its own knob."""
    if launch.engine in ("vllm", "atom"):
        return _flag_setting(launch, "--gpu-memory-utilization", "--gpu_memory_utilization")
    if launch.engine == "sglang":
        return _flag_setting(launch, "--mem-fraction-static", "--mem_fraction_static")
    if launch.engine == "trtllm":
        return launch.yaml_setting("kv_cache_config", "free_gpu_memory_fraction")
    return None


def _canon(method: Any, knowledge: Knowledge) -> str | None:
    if not isinstance(method, str):
        return None
    return knowledge.spec_methods.get(method.lower(), method.lower())


def spec(launch: Launch, knowledge: Knowledge) -> Spec | None:
    """Speculative decoding as configured for this launch, or None."""
    if launch.engine == "vllm":
        node, flag = launch.flag_json("--speculative-config")
        if flag is None or flag.value is None:
            return None
        value = flag.value
        if node is None or not isinstance(node.value, dict):
            return Spec(None, None, flag.value_span, None, None, None, {})

        def get(key: str) -> Setting | None:
            return launch.json_setting(node, value, key, "--speculative-config")

        method = get("method")
        sim = None
        length = get("synthetic_acceptance_length")
        rsm = get("rejection_sample_method")
        if length is not None or (rsm is not None and rsm.value == "synthetic"):
            sim = Simulation("vllm", length or rsm)  # type: ignore[arg-type]
        attrs = {
            k: str(v.value)
            for k, v in node.value.items()
            if isinstance(v, JNode) and isinstance(v.value, (str, int, float))
        }
        raw = method.value if method else None
        draft = get("model")
        if draft is not None and draft.value is None and not draft.text.strip('"'):
            draft = None
        return Spec(
            _canon(raw, knowledge),
            raw if isinstance(raw, str) else None,
            flag.value_span,
            draft,
            get("num_speculative_tokens"),
            sim,
            attrs,
        )
    if launch.engine == "sglang":
        algo = _flag_setting(launch, "--speculative-algorithm", "--speculative-algo")
        if algo is None:
            return None
        draft = _flag_setting(launch, "--speculative-draft-model-path", "--speculative-draft-model")
        k = _flag_setting(launch, "--speculative-num-steps")
        env = launch.env_setting("SGLANG_SIMULATE_ACC_LEN")
        sim = Simulation("sglang", env) if env is not None else None
        raw = algo.value if isinstance(algo.value, str) else None
        return Spec(_canon(raw, knowledge), raw, algo.span, draft, k, sim, {})
    if launch.engine == "trtllm":
        cfg = launch.yaml_setting("speculative_config")
        if cfg is None:
            return None
        dtype = launch.yaml_setting("speculative_config", "decoding_type")
        draft = launch.yaml_setting(
            "speculative_config", "speculative_model"
        ) or launch.yaml_setting("speculative_config", "speculative_model_dir")
        k = launch.yaml_setting("speculative_config", "max_draft_len") or launch.yaml_setting(
            "speculative_config", "num_nextn_predict_layers"
        )
        env = launch.env_setting("TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS")
        sim = Simulation("trtllm", env) if env is not None else None
        raw = dtype.value if dtype and isinstance(dtype.value, str) else None
        return Spec(_canon(raw, knowledge), raw, (dtype or cfg).span, draft, k, sim, {})
    if launch.engine == "atom":
        method = _flag_setting(launch, "--method")
        k = _flag_setting(launch, "--num-speculative-tokens")
        if method is None and k is None:
            return None
        draft = _flag_setting(launch, "--draft-model")
        length = _flag_setting(launch, "--spec-decode-acceptance-length")
        rate = _flag_setting(launch, "--spec-decode-acceptance-rate")
        sim = None
        if length is not None:
            sim = Simulation("atom-length", length)
        elif rate is not None:
            sim = Simulation("atom-rate", rate)
        raw = method.value if method and isinstance(method.value, str) else None
        anchor = (method or k).span  # type: ignore[union-attr]
        return Spec(_canon(raw, knowledge) or "mtp", raw, anchor, draft, k, sim, {})
    return None


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
    "Simulation",
    "Spec",
    "Thinking",
    "draft_identity",
    "k_value",
    "memory",
    "parse_json",
    "reasoning_parser",
    "recipe_drafts",
    "spec",
    "thinking",
    "tool_call_parser",
]
