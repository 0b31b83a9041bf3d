"""RCP007: a model-config override changes the model architecture."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from bot.core.conditions import CLAUSES, clause_at
from bot.core.context import RuleContext
from bot.core.model import WARNING, Example, Finding, Join, Part, Rule, Span, T, part, render_param
from bot.parse.jsonpos import JNode, UnknownValue
from bot.parse.recipe import Launch, Recipe

RULE = Rule(
    id="RCP007",
    slug="hf-overrides-change-architecture",
    severity=WARNING,
    target="recipe",
    title=T(
        en="Model-config override changes the architecture",
        zh="模型配置覆盖改变了模型架构",
    ),
    message=T(
        en=(
            "{where} sets {found}, which changes {model}'s architecture; the model is not known "
            "to run that way natively{when}"
        ),
        zh="{where} 设置了 {found}，改变了 {model} 的模型架构，而该模型并无已知的原生支持{when}",
    ),
    variants={
        **CLAUSES,
        "the-model": T(en="the model", zh="该模型"),
        "engine-yaml": T(en="`{key}` in the engine YAML", zh="引擎 YAML 中的 `{key}`"),
    },
    fix=T(
        en="Remove {keys} from {where}",
        zh="从 {where} 中删除 {keys}",
    ),
    rationale=T(
        en=(
            "The review checklist rejects benchmark hacks that change the model architecture, such "
            "as an `--hf-overrides` that skips the sparse-attention indexer on most layers of a "
            "model that does not natively do so: making the same computation faster is fair game, "
            "removing architecture FLOPs is not. InferenceX #2037 removed "
            '`{"use_index_cache": true, "index_topk_freq": 4}` from a DeepSeek-V4 recipe for this '
            "reason. The rule reads the JSON merged into the model config (vLLM and ATOM "
            "`--hf-overrides`, also vLLM's dotted `--hf-overrides.<key>` form, SGLang `--json-model-override-args`, TensorRT-LLM `model_kwargs` in "
            "the engine YAML) through variables and nested objects such as `text_config`, and "
            "reports the keys that change what is computed: the architecture class, depth and "
            "width, experts per token and expert counts, attention windows and layer layout, and "
            "sparse-attention indexer settings (`knowledge.arch_overrides.keys`). Overrides that "
            "only change numerics or context length (`rope_scaling`, `max_position_embeddings`, "
            "quantization) are not reported, and neither is a value the bot cannot resolve. Some "
            "models run a setting natively (GLM-5.2's checkpoint ships its own indexer schedule, "
            "which `use_index_cache` + `index_topk_pattern` restate); "
            "`knowledge.models.<prefix>.native_overrides` lists such keys. The finding is a "
            "warning: whether an override reduces FLOPs against the checkpoint's own config needs "
            "a reviewer."
        ),
        zh=(
            "审查清单不接受改变模型架构的基准测试技巧，例如对原生并不如此运行的模型使用 `--hf-overrides`，"
            "让稀疏注意力索引器在大部分层上被跳过：让同样的计算跑得更快是允许的，删减架构本身的 FLOPs 则不允许。"
            'InferenceX #2037 因此从 DeepSeek-V4 配方中删除了 `{"use_index_cache": true, '
            '"index_topk_freq": 4}`。本规则读取合并进模型配置的 JSON（vLLM 与 ATOM 的 '
            "`--hf-overrides`（含 vLLM 的点号形式 `--hf-overrides.<key>`）、SGLang 的 `--json-model-override-args`、TensorRT-LLM 引擎 YAML 中的 "
            "`model_kwargs`），可穿过变量和 `text_config` 等嵌套对象，并报告会改变计算内容的键：架构类、"
            "深度与宽度、每个 token 的专家数与专家数量、注意力窗口与层布局，以及稀疏注意力索引器参数"
            "（`knowledge.arch_overrides.keys`）。只改变数值精度或上下文长度的覆盖（`rope_scaling`、"
            "`max_position_embeddings`、量化）不报告，机器人无法解析的值也不报告。有些模型原生就以某种设置"
            "运行（GLM-5.2 的权重自带索引器调度，`use_index_cache` + `index_topk_pattern` 只是重述它），"
            "这类键列在 `knowledge.models.<prefix>.native_overrides` 中。该问题报告为警告：覆盖是否相对"
            "权重自身的配置减少了 FLOPs，需要审查者判断。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh",
            note="the indexer-skip override removed by InferenceX #2037, nested under text_config",
            text=(
                "#!/usr/bin/env bash\n"
                "VLLM_CMD=(\n"
                '    vllm serve "$MODEL_PATH"\n'
                "    --tool-call-parser minimax_m3\n"
                '    --hf-overrides \'{"text_config": {"use_index_cache": true, "index_topk_freq": 4}}\'  # [RCP007]\n'
                '    --speculative-config "$SPEC_CONFIG"\n'
                ")\n"
                '"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200_sglang.sh",
            note="resolved through a variable: the finding lands where the key is written",
            text=(
                "#!/usr/bin/env bash\n"
                "TOPK=4\n"
                'OVERRIDES="{\\"num_experts_per_tok\\": $TOPK}"  # [RCP007]\n'
                "python3 -m sglang.launch_server \\\n"
                '    --model-path "$MODEL" \\\n'
                '    --json-model-override-args "$OVERRIDES" &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200_trt.sh",
            note="TensorRT-LLM takes config overrides as `model_kwargs` in its YAML",
            text=(
                "#!/usr/bin/env bash\n"
                "cat > config.yml << EOF\n"
                "max_batch_size: $CONC\n"
                "model_kwargs:\n"
                "  num_hidden_layers: 40  # [RCP007]\n"
                "EOF\n"
                'trtllm-serve "$MODEL" --extra_llm_api_options config.yml &\n'
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200.sh",
            note="context extension changes no computed structure",
            text=(
                "#!/usr/bin/env bash\n"
                'vllm serve "$MODEL" --hf-overrides \'{"rope_scaling": {"rope_type": "yarn", '
                '"factor": 4.0}, "max_position_embeddings": 1048576}\' &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/agentic/glm5.2_fp4_rtx6000pro_vllm_mtp.sh",
            note="GLM-5.2 natively runs its checkpoint's indexer schedule (knowledge native_overrides)",
            text=(
                "#!/usr/bin/env bash\n"
                "PATTERN=FFFSSSFSSSFSSS\n"
                'HF_OVERRIDES="$(printf \'{"use_index_cache":true,"index_topk_pattern":"%s"}\' '
                '"$PATTERN")"\n'
                'vllm serve "$MODEL" --hf-overrides "$HF_OVERRIDES" &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsv4_fp4_mi355x_atom.sh",
            note="an override taken from the environment cannot be judged here",
            text=(
                "#!/usr/bin/env bash\n"
                'python3 -m atom.entrypoints.openai_server --model "$MODEL" '
                '--hf-overrides "$EXTRA_HF_OVERRIDES" &\n'
            ),
        ),
    ),
)


def _native(table: Mapping[str, Any]) -> tuple[set[str], set[tuple[str, str]]]:
    """(keys native for any value, (key, value) pairs native for one value)."""
    keys: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for item in table.get("native_overrides", []) or []:
        key, eq, value = str(item).partition("=")
        if eq:
            pairs.add((key.strip(), value.strip().lower()))
        else:
            keys.add(key.strip())
    return keys, pairs


def _json_hits(
    node: JNode, text: str, prefix: str, arch: set[str]
) -> Iterator[tuple[str, str, JNode]]:
    """(dotted key path, value as written, node) for architecture keys, depth first."""
    if not isinstance(node.value, dict):
        return
    for key, child in node.value.items():
        path = f"{prefix}{key}"
        if key in arch:
            raw = text[child.start : child.end]
            if isinstance(child.value, str):
                raw = child.value
            yield path, raw, child
        elif isinstance(child.value, dict):
            yield from _json_hits(child, text, path + ".", arch)


def _yaml_hits(
    node: Any, path: tuple[str, ...], arch: set[str]
) -> Iterator[tuple[tuple[str, ...], Any]]:
    if not isinstance(node, Mapping):
        return
    for key, child in node.items():
        sub = (*path, str(key))
        if str(key) in arch:
            yield sub, child
        elif isinstance(child, Mapping):
            yield from _yaml_hits(child, sub, arch)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, dict)):
        try:
            return json.dumps(value, default=str)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def _overrides(
    launch: Launch, table: Mapping[str, Any], arch: set[str]
) -> Iterator[tuple[str | Part, Span, list[tuple[str, str, Span, bool]]]]:
    """(where, anchor, [(key path, value, span, value known)]) per override."""
    for name in table.get("flags", []) or []:
        # vLLM's dotted form: `--hf-overrides.text_config.index_topk_freq 4`
        for fname, dotted in launch.flags.items():
            path = fname[len(name) + 1 :]
            if not fname.startswith(name + ".") or path.rsplit(".", 1)[-1] not in arch:
                continue
            for f in dotted:
                raw = f.value.text if f.value is not None else "true"
                known = f.value is None or f.value.known
                where = f"`{name}.{path}`"
                yield where, f.span, [(path, raw, f.value_span, known)]
        node, flag = launch.flag_json(name)
        if flag is None or flag.value is None or node is None:
            continue
        value = flag.value
        found = []
        for path, raw, child in _json_hits(node, value.text, "", arch):
            # anchor on the key: that is what a reviewer removes
            key = json.dumps(path.rsplit(".", 1)[-1])
            at = value.text.rfind(key, 0, child.start)
            span = value.span_at(at if at >= 0 else child.start) or flag.value_span
            unknown = isinstance(child.value, UnknownValue) or any(
                s.unknown for s in value.segs_in(child.start, child.end)
            )
            found.append((path, raw, span, not unknown))
        if found:
            where = f"`{flag.name}`"
            yield where, found[0][2], found
    if launch.engine != "trtllm" or launch.engine_yaml is None:
        return
    for ykey in table.get("engine_yaml_keys", []) or []:
        sub = launch.engine_yaml.get(ykey) if hasattr(launch.engine_yaml, "get") else None
        found = []
        for keys, child in _yaml_hits(sub, (ykey,), arch):
            setting = launch.yaml_setting(*keys)
            if setting is None:
                continue
            known = setting.value is not None
            shown = _show(child) if known else setting.text
            found.append((".".join(keys[1:]), shown, setting.span, known))
        if found:
            yield (
                part("engine-yaml", key=ykey),
                found[0][2],
                found,
            )


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    table = ctx.knowledge.section("arch_overrides") or {}
    arch = {str(k) for k in table.get("keys", []) or []}
    if not arch:
        return
    model = ctx.knowledge.model(recipe.model)
    native_keys, native_pairs = _native(model)
    name = model.get("name") or recipe.model
    seen: set[tuple[int, int]] = set()
    for launch in recipe.launches:
        for where, anchor, found in _overrides(launch, table, arch):
            hits = []
            for path, raw, span, known in found:
                leaf = path.rsplit(".", 1)[-1]
                if leaf in native_keys or (known and (leaf, raw.lower()) in native_pairs):
                    continue
                hits.append((path, raw, span))
            if not hits or (anchor.line, anchor.col) in seen:
                continue
            seen.add((anchor.line, anchor.col))
            shown = [f"`{p}={v}`" for p, v, _ in hits]
            keys = [f"`{p}`" for p in dict.fromkeys(p for p, _, _ in hits)]
            yield RULE.hit(
                recipe.path,
                hits[0][2],
                f"{render_param(where, 'en', RULE.variants)} "
                + " ".join(f"{p}={v}" for p, v, _ in hits),
                where=where,
                found=Join(tuple(shown)),
                keys=Join(tuple(keys)),
                model=name or part("the-model"),
                when=clause_at(recipe.launches, hits[0][2].line),
            )
