"""Multi-node (srt-slurm) recipes as launches. Pure, never raises.

A recipe under `benchmarks/multi_node/srt-slurm-recipes/<engine>/<model>/...`
is one YAML document: `model`, `resources`, a `frontend` (dynamo or the
engine's own server), a `backend` with per-role engine settings
(`vllm_config` / `sglang_config` flags, `trtllm_config` engine YAML, each
with `prefill`, `decode` or `aggregated` maps) and per-role environment
(`prefill_environment`, ...), and a `benchmark` with the client's `env`.
A template recipe has a `base:` document and `zip_override_*` sweeps; each
sweep point becomes its own set of launches.

Each role becomes a `Launch` in the same model as a bash recipe's engine
launch: flags named `--<key>` whose values remember the line and column
where they are written (anchors and merge keys resolved to the place a
reviewer would edit), the role's environment, the TensorRT-LLM engine YAML.
An eval twin (a file named `...-eval-...`) is the EVAL_ONLY path; any other
file is the throughput path (the runner chooses the eval twin, or strips
synthetic acceptance, for EVAL_ONLY). Whatever cannot be read becomes a
`Problem` (reported as RCP000), never an exception and never silence.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.base.problem import problem
from bot.base.span import Span
from bot.parse.recipe import (
    ClientBlock,
    Flag,
    Launch,
    Origin,
    Recipe,
    RecipeProblemKind,
    Setting,
    yaml_problem,
)
from bot.parse.values import Seg, Str
from bot.parse.yamlpos import PosList, PosMap, load_positioned
from bot.parse.yamlsafe import YamlError, type_name

ROLES = ("prefill", "decode", "aggregated")
ENGINES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "trtllm", "trt": "trtllm"}
CONFIG_KEYS = {"vllm": "vllm_config", "sglang": "sglang_config", "trtllm": "trtllm_config"}
_PRECISIONS = {"fp4", "fp8", "mxfp8", "mxfp4", "nvfp4", "bf16", "fp16", "int4", "int8", "w4a8"}
_SKU_RE = re.compile(r"^(g?b\d{3}|h\d{3}|mi\d{3}x?|gb\d{3}x?)$")
_EVAL_RE = re.compile(r"(^|[-_.])eval([-_.]|$)")
_MAX_SWEEP = 64
# top-level keys of an srt-slurm recipe (a `base:` template or a plain recipe)
_RECIPE_KEYS = ("backend", "base", "model", "resources", "frontend", "benchmark")


def is_eval_twin(path: str) -> bool:
    """A recipe file that exists to run the EVAL_ONLY job (`...-eval-agentic.yaml`)."""
    return bool(_EVAL_RE.search(path.rsplit("/", 1)[-1].rsplit(".", 1)[0]))


def model_dir_prefix(name: str) -> str:
    """`minimax-m3-gb300-fp8` -> `minimaxm3`; `kimi-k2.5-fp4` -> `kimik2.5`."""
    parts = [p for p in name.lower().split("-") if p not in _PRECISIONS and not _SKU_RE.match(p)]
    return "".join(parts) or name.lower()


def parse_srt_recipe(path: str, text: str) -> Recipe:
    parts = path.split("/")
    engine_dir = None
    model_dir = None
    if "srt-slurm-recipes" in parts:
        i = parts.index("srt-slurm-recipes")
        engine_dir = parts[i + 1] if i + 1 < len(parts) - 1 else None
        model_dir = parts[i + 2] if i + 2 < len(parts) - 1 else None
    recipe = Recipe(
        path=path,
        text=text,
        kind="other",
        model=model_dir_prefix(model_dir) if model_dir else None,
        precision=None,
        sku=None,
        mtp=False,
        multi_node=True,
    )
    try:
        _parse(recipe, engine_dir, parts)
    except Exception as exc:  # pragma: no cover - the last line of defence
        recipe.problems.append(problem("crashed", error=type(exc).__name__))
    return recipe


def _problem(recipe: Recipe, line: int, kind: RecipeProblemKind, **params: str) -> None:
    recipe.problems.append(problem(kind, line, **params))


def _parse(recipe: Recipe, engine_dir: str | None, parts: list[str]) -> None:
    text = recipe.text
    if "\ufffd" in text:
        line = text[: text.index("\ufffd")].count("\n") + 1
        _problem(recipe, line, "not_utf8")
    try:
        doc = load_positioned(text, label="recipe")
    except YamlError as exc:
        recipe.problems.append(yaml_problem(exc))
        return
    if doc is None:
        _problem(recipe, 1, "empty")
        return
    if not isinstance(doc, PosMap):
        _problem(recipe, 1, "recipe_not_mapping", type=type_name(doc))
        return
    if not any(k in doc for k in _RECIPE_KEYS):
        # a helper file beside the recipes (an EPLB table, a kernel config): no launch
        recipe.kind = "other"
        return
    variants: list[PosMap] = []
    if "base" in doc and "backend" not in doc:
        base = doc["base"]
        if not isinstance(base, PosMap):
            _problem(
                recipe, doc.key_pos("base")[0], "not_mapping", key="base", type=type_name(base)
            )
            return
        variants.append(base)
        for key, over in doc.items():
            if isinstance(key, str) and key.startswith("zip_override"):
                if not isinstance(over, PosMap):
                    _problem(
                        recipe, doc.key_pos(key)[0], "not_mapping", key=key, type=type_name(over)
                    )
                    continue
                names = over.get("name")
                n = len(names) if isinstance(names, PosList) else 1
                for i in range(min(n, _MAX_SWEEP)):
                    variants.append(_overlay(base, over, i))
    else:
        variants.append(doc)
    first = variants[0]
    _describe(recipe, first, engine_dir, parts)
    eval_only = is_eval_twin(recipe.path)
    for variant in variants:
        _launches(recipe, variant, engine_dir, eval_only)
        block = _client_block(recipe, variant, eval_only)
        if block is not None and block not in recipe.clients:
            recipe.clients.append(block)
    if len(variants) > 1:
        recipe.launches = _distinct(recipe.launches)
    recipe.mtp = any(_has_spec(la) for la in recipe.launches)


def _distinct(launches: list[Launch]) -> list[Launch]:
    """Variants repeat most launches: one per distinct content. (One variant's
    launches are distinct already: one per role, and a role is a mapping key.)"""
    seen: set[Any] = set()
    unique = []
    for la in launches:
        key = (
            la.role,
            tuple(
                sorted(
                    (k, f[-1].value.text if f[-1].value else "", f[-1].span.line)
                    for k, f in la.flags.items()
                )
            ),
            tuple(sorted((k, v.text, v.span.line if v.span else 0) for k, v in la.env.items())),
            id(la.engine_yaml),
        )
        if key not in seen:
            seen.add(key)
            unique.append(la)
    return unique


def _overlay(base: PosMap, over: PosMap, i: int) -> PosMap:
    """`base` with sweep point `i` of a zip override laid over it (lists zip by index)."""
    out = PosMap(base.lc.line, base.lc.col)
    for k, v in base.items():
        _copy(out, base, k, v)
    for k, v in over.items():
        cur = out.get(k)
        if isinstance(v, PosMap) and isinstance(cur, PosMap):
            out[k] = _overlay(cur, v, i)
            out.lc.keys[k] = over.lc.key(k)
        elif isinstance(v, PosList) and not isinstance(cur, PosList):
            if i < len(v):
                out[k] = v[i]
                out.lc.keys[k] = over.lc.key(k)
                out.lc.values[k] = v.items[i]
                out.lc.raw.pop(k, None)
                out.lc.quoted.discard(k)
        else:
            _copy(out, over, k, v)
    return out


def _copy(out: PosMap, src: PosMap, k: Any, v: Any) -> None:
    out[k] = v
    out.lc.keys[k] = src.lc.key(k)
    out.lc.values[k] = src.lc.value(k)
    if k in src.lc.raw:
        out.lc.raw[k] = src.lc.raw[k]
    else:
        out.lc.raw.pop(k, None)
    if k in src.lc.quoted:
        out.lc.quoted.add(k)
    else:
        out.lc.quoted.discard(k)


def _section(recipe: Recipe, doc: PosMap, key: str) -> PosMap | None:
    value = doc.get(key)
    if value is None:
        return None
    if not isinstance(value, PosMap):
        _problem(recipe, doc.key_pos(key)[0], "not_mapping", key=key, type=type_name(value))
        return None
    return value


def _describe(recipe: Recipe, doc: PosMap, engine_dir: str | None, parts: list[str]) -> None:
    model = _section(recipe, doc, "model")
    if model is not None and isinstance(model.get("precision"), str):
        recipe.precision = model["precision"].lower()
    resources = _section(recipe, doc, "resources")
    if resources is not None and isinstance(resources.get("gpu_type"), str):
        recipe.sku = resources["gpu_type"].lower()
    frontend = _section(recipe, doc, "frontend")
    if frontend is not None and isinstance(frontend.get("type"), str):
        recipe.frontend = frontend["type"].lower()
    bench = _section(recipe, doc, "benchmark")
    env = bench.get("env") if bench is not None else None
    if isinstance(env, PosMap) and isinstance(env.get("MODEL_PREFIX"), str):
        recipe.model = env["MODEL_PREFIX"]
    command = str(bench.get("command", "")) if bench is not None else ""
    lowered = [p.lower() for p in parts[:-1]]
    if (
        "agentic" in command
        or any(("agentic" in p or "agentx" in p) for p in lowered)
        or "agentic" in parts[-1].lower()
        or "agentx" in parts[-1].lower()
    ):
        recipe.kind = "agentic"
    elif bench is not None and (bench.get("type") == "sa-bench" or "isl" in bench):
        recipe.kind = "fixed_seq_len"


def _scalar_str(m: PosMap, k: Any) -> Str | None:
    """`m[k]` as written, at the first character of its text (`PosMap.value_pos`,
    read from `m.lc` here: this runs for every flag and environment entry)."""
    v = m[k]
    lc = m.lc
    raw = lc.raw.get(k)
    if v is None or (isinstance(v, bool) and not raw):
        return None
    pos = lc.values.get(k)
    if pos is None:
        pos = lc.keys.get(k, (lc.line, lc.col))
    line = pos[0] + 1
    col = pos[1] + (2 if k in lc.quoted else 1)
    if isinstance(v, (PosMap, PosList)):
        return Str((Seg(json.dumps(_plain_data(v)), line, col),))
    return Str((Seg(raw if raw is not None else str(v), line, col),))


def _plain_data(v: Any, depth: int = 0) -> Any:
    if depth > 32:
        return None
    if isinstance(v, dict):
        return {str(k): _plain_data(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain_data(x, depth + 1) for x in v]
    return v


def _env(recipe: Recipe, holder: PosMap, key: str) -> dict[str, Str]:
    m = _section(recipe, holder, key)
    out: dict[str, Str] = {}
    if m is None:
        return out
    for name, value in m.items():
        if isinstance(value, (PosMap, PosList)):
            line = m.key_pos(name)[0]
            _problem(recipe, line, "not_string", key=f"{key}.{name}", type=type_name(value))
            continue
        s = _scalar_str(m, name)
        if s is not None:
            out[str(name)] = s
        elif value is not None:  # `false`
            line, col = m.value_pos(name)
            out[str(name)] = Str((Seg(str(value).lower(), line, col),))
    return out


def _launches(recipe: Recipe, doc: PosMap, engine_dir: str | None, eval_only: bool) -> None:
    backend = _section(recipe, doc, "backend")
    if backend is None:
        if "backend" not in doc:
            _problem(recipe, 1, "no_section", section="backend")
        return
    btype = backend.get("type")
    engine = ENGINES.get(str(btype).lower()) if btype is not None else ENGINES.get(engine_dir or "")
    if engine is None:
        line = backend.key_pos("type")[0] if "type" in backend else backend.lc.line + 1
        _problem(recipe, line, "unknown_backend", backend=str(btype))
        return
    cfg_key = CONFIG_KEYS[engine]
    configs = backend.get(cfg_key)
    if configs is None:
        line = doc.key_pos("backend")[0]
        _problem(recipe, line, "no_section", section=f"backend.{cfg_key}")
        return
    if not isinstance(configs, PosMap):
        _problem(
            recipe,
            backend.key_pos(cfg_key)[0],
            "roles_not_mapping",
            section=f"backend.{cfg_key}",
            type=type_name(configs),
        )
        return
    common = _env(recipe, doc, "environment") if "environment" in doc else {}
    bench = doc.get("benchmark")
    client = _env(recipe, bench, "env") if isinstance(bench, PosMap) and "env" in bench else {}
    frontend = doc.get("frontend")
    if isinstance(frontend, PosMap) and "env" in frontend:
        client = {**_env(recipe, frontend, "env"), **client}
    # the whole text as one value, line by line: only TensorRT-LLM roles carry it
    whole = _whole_text(recipe) if engine == "trtllm" else None
    for role, settings in configs.items():
        line = configs.key_pos(role)[0]
        if role not in ROLES:
            _problem(recipe, line, "unknown_role", role=str(role), section=f"backend.{cfg_key}")
            continue
        if settings is None:
            continue
        if not isinstance(settings, PosMap):
            _problem(
                recipe,
                line,
                "not_mapping",
                key=f"backend.{cfg_key}.{role}",
                type=type_name(settings),
            )
            continue
        env = dict(common)
        env_key = f"{role}_environment"
        if env_key in backend:
            env.update(_env(recipe, backend, env_key))
        flags: dict[str, list[Flag]] = {}
        engine_yaml = None
        if engine == "trtllm":
            engine_yaml = settings
        else:
            # one flag per key (keys are distinct), at the key (`settings.key_pos`)
            lc = settings.lc
            keys, here = lc.keys, (lc.line, lc.col)
            for name, value in settings.items():
                if not isinstance(name, str) or value is False or value is None:
                    continue
                kline, kcol = keys.get(name, here)
                flag = "--" + name
                text = None if value is True else _scalar_str(settings, name)
                flags[flag] = [Flag(flag, text, Span(kline + 1, kcol + 1))]
        recipe.launches.append(
            Launch(
                engine=engine,
                words=[],
                flags=flags,
                env=env,
                engine_yaml=engine_yaml,
                engine_yaml_text=whole if engine_yaml is not None else None,
                span=Span(line),
                assumptions=(),
                eval_only=eval_only,
                role=role,
                client_env=client,
            )
        )
    if not any(la for la in recipe.launches):
        _problem(recipe, configs.lc.line + 1, "no_roles", section=f"backend.{cfg_key}")


def _client_block(recipe: Recipe, doc: PosMap, eval_only: bool) -> ClientBlock | None:
    """The `benchmark:` block: its client type and each scalar setting as written."""
    if "benchmark" not in doc:
        return None
    bench = _section(recipe, doc, "benchmark")
    if bench is None:
        return None
    line, col = doc.key_pos("benchmark")
    settings: dict[str, Setting] = {}
    for key, value in bench.items():
        if not isinstance(key, str) or isinstance(value, (PosMap, PosList)) or value is None:
            continue
        vline, vcol = bench.value_pos(key)
        raw = bench.raw(key)
        text = raw if raw is not None else str(value)
        settings[key] = Setting(value, Span(vline, vcol), text, Origin("yaml", f"benchmark.{key}"))
    btype = bench.get("type")
    span = Span(*bench.key_pos("type")) if "type" in bench else Span(line, col)
    return ClientBlock(
        type=str(btype) if isinstance(btype, str) else None,
        span=span,
        settings=settings,
        eval_only=eval_only,
    )


def _whole_text(recipe: Recipe) -> Str:
    cached = getattr(recipe, "_whole", None)
    if cached is None:
        segs = tuple(
            Seg(line, no, 1) for no, line in enumerate(recipe.text.splitlines(keepends=True), 1)
        )
        cached = Str(segs)
        object.__setattr__(recipe, "_whole", cached)
    return cached


def _has_spec(la: Launch) -> bool:
    if la.engine == "trtllm":
        return isinstance(la.engine_yaml, dict) and "speculative_config" in la.engine_yaml
    return any(f in la.flags for f in ("--speculative-config", "--speculative-algorithm"))
