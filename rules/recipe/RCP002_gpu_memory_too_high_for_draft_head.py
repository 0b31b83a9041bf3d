"""RCP002: the memory fraction leaves no room for a separate draft model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.conditions import CLAUSES, clause_at
from bot.core.context import RuleContext
from bot.core.model import (
    ERROR,
    UNSAFE,
    WARNING,
    Applicability,
    Condition,
    Example,
    Finding,
    Rule,
    T,
)
from bot.core.suggest import replace_at
from bot.parse import engines, facts
from bot.parse.recipe import Origin, Recipe, Setting, describe_path

_SIBLING = (
    "#!/usr/bin/env bash\n"
    'SPEC_CONFIG=\'{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", "num_speculative_tokens": 3}\'\n'
    'vllm serve "$MODEL" --gpu-memory-utilization 0.90 --speculative-config "$SPEC_CONFIG" &\n'
)

RULE = Rule(
    id="RCP002",
    slug="gpu-memory-too-high-for-draft-head",
    severity=ERROR,
    conditions={
        "no-base": Condition(
            WARNING,
            T(
                en="there is no PR base to tell whether the recipe already ran at this value "
                "(a lone file or a whole tree), and the limit is the engine default or the "
                "recipe is multi-node",
                zh="没有 PR 基线可判断该配方是否已按此值运行过（单个文件或整个目录树），"
                "且上限取引擎默认值或该配方为多节点配方",
            ),
        ),
    },
    target="recipe",
    title=T(
        en="Memory fraction too high for a draft head",
        zh="显存占用比例过高，草稿头没有余量",
    ),
    message=T(
        en="`{flag} {value}` leaves no headroom for the draft model `{draft}`; the proven "
        "spec-decode sibling `{sibling}` runs {limit}{when}",
        zh="`{flag} {value}` 没有为草稿模型 `{draft}` 留出显存余量；已验证的投机解码配方 "
        "`{sibling}` 使用 {limit}{when}",
    ),
    variants={
        **CLAUSES,
        "default_limit": T(
            en="`{flag} {value}` leaves no headroom for the draft model `{draft}`; with a "
            "separate draft model the `{engine}` limit is {limit}{when}",
            zh="`{flag} {value}` 没有为草稿模型 `{draft}` 留出显存余量；使用独立草稿模型时 "
            "`{engine}` 的上限为 {limit}{when}",
        ),
        "no_base": T(
            en="`{flag} {value}` leaves no headroom for the draft model `{draft}`; the proven "
            "spec-decode sibling `{sibling}` runs {limit}; without a PR base, whether this "
            "recipe already ran at this value is unknown{when}",
            zh="`{flag} {value}` 没有为草稿模型 `{draft}` 留出显存余量；已验证的投机解码配方 "
            "`{sibling}` 使用 {limit}；没有 PR 基线，无法判断该配方是否已按此值运行过{when}",
        ),
        "default_limit_no_base": T(
            en="`{flag} {value}` leaves no headroom for the draft model `{draft}`; with a "
            "separate draft model the `{engine}` limit is {limit}; without a PR base, whether "
            "this recipe already ran at this value is unknown{when}",
            zh="`{flag} {value}` 没有为草稿模型 `{draft}` 留出显存余量；使用独立草稿模型时 "
            "`{engine}` 的上限为 {limit}；没有 PR 基线，无法判断该配方是否已按此值运行过{when}",
        ),
    },
    fix=T(en="Set `{flag} {limit}`", zh="将其设为 `{flag} {limit}`"),
    applicability=Applicability(
        UNSAFE,
        T(
            en=(
                "Lowering the memory fraction shrinks the KV cache the engine allocates, "
                "which changes the throughput and latency the benchmark measures; the limit "
                "comes from a sibling recipe or an engine default, not from this recipe's own"
                " run, so the author confirms it."
            ),
            zh=(
                "降低显存占用比例会缩小引擎分配的 KV 缓存，从而改变基准测得的吞吐与延迟；"
                "该上限取自同类配方或引擎默认值，而非本配方自己的运行，因此需由作者确认。"
            ),
        ),
    ),
    rationale=T(
        en=(
            "A separate draft model (EAGLE/EAGLE3/DSpark head) needs GPU memory of its own for "
            "weights, KV cache and CUDA graphs. A spec-decode recipe that inherits "
            "`--gpu-memory-utilization 0.95` from a non-spec sibling OOMs in warmup "
            "(InferenceX #2423: all 8 ranks 96 MiB short). The limit is the value the proven "
            "spec-decode sibling for the same model and SKU uses in the same repository (the "
            "file is named; a sibling that sets no fraction runs its engine's default), else "
            "the engine's own limit in `knowledge.memory.default_limit`, each what the "
            "repository's proven recipes with a separate draft run in that engine's knob: "
            "vLLM and ATOM `--gpu-memory-utilization` 0.90 (it caps everything the engine "
            "allocates), SGLang `--mem-fraction-static` 0.85 (its static pool holds weights "
            "and KV of target and draft; an EAGLE3 draft OOMed capturing CUDA graphs at 0.90, "
            "InferenceX #2289), TensorRT-LLM `kv_cache_config.free_gpu_memory_fraction` 0.94 "
            "(the share of the memory left after both models load). A value set per branch "
            "(`0.95`, or `0.98` when `TP == 4`) is checked on every branch, and the finding "
            "names the branch's condition. Multi-node workers compare only with the recipes "
            "of their own directory. Native MTP heads that live inside the target checkpoint "
            "(no separate draft model) are out of scope."
        ),
        zh=(
            "独立的草稿模型（EAGLE/EAGLE3/DSpark 头）需要自己的显存来存放权重、KV 缓存和 CUDA graph。"
            "从非投机版本沿用 `--gpu-memory-utilization 0.95` 的投机解码配方会在预热阶段 OOM"
            "（InferenceX #2423：8 个 rank 全部仅差 96 MiB）。上限取同一仓库中同模型、同 SKU 的已验证投机"
            "解码配方所用的值（并指明文件；未设置比例的配方按其引擎默认值运行），否则取 "
            "`knowledge.memory.default_limit` 中该引擎的上限，即仓库中带独立草稿模型的已验证配方在该引擎参数上"
            "所用的值：vLLM 与 ATOM 的 `--gpu-memory-utilization` 为 0.90（限制引擎的全部显存分配），"
            "SGLang 的 `--mem-fraction-static` 为 0.85（其静态池容纳目标与草稿模型的权重和 KV；EAGLE3 草稿"
            "在 0.90 时捕获 CUDA graph 即 OOM，InferenceX #2289），TensorRT-LLM 的 "
            "`kv_cache_config.free_gpu_memory_fraction` 为 0.94（两个模型加载后剩余显存中分给 KV 的比例）。"
            "按分支设置的值（`0.95`，`TP == 4` 时为 `0.98`）在每个分支上都会检查，发现会注明该分支的条件。"
            "多节点 worker 只与同目录的配方比较。内置于目标模型权重中的原生 MTP 头（无独立草稿模型）不在本规则"
            "范围内。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'DRAFT_MODEL="Inferact/MiniMax-M3-EAGLE3"\n'
                'SPEC_CONFIG="{\\"method\\": \\"eagle3\\", \\"model\\": \\"$DRAFT_MODEL\\", \\"num_speculative_tokens\\": 3}"\n'
                "VLLM_CMD=(\n"
                '    vllm serve "$MODEL_PATH"\n'
                "    --gpu-memory-utilization 0.95  # [RCP002]\n"
                '    --speculative-config "$SPEC_CONFIG"\n'
                ")\n"
                '"${VLLM_CMD[@]}" &\n'
            ),
            files={"benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh": _SIBLING},
        ),
        Example(
            path="benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh",
            note="no sibling: the configured vLLM limit applies",
            text=(
                "#!/usr/bin/env bash\n"
                "GPU_MEM=0.93  # [RCP002]\n"
                'vllm serve "$MODEL" --gpu-memory-utilization "$GPU_MEM" \\\n'
                '    --speculative-config \'{"method": "dspark", "model": "Inferact/Kimi-K3-DSpark", "num_speculative_tokens": 3}\' &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp8_mi325x_mtp.sh",
            note="a value set per branch is checked on each branch (InferenceX #2426)",
            text=(
                "#!/usr/bin/env bash\n"
                'SPEC_CONFIG=\'{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", "num_speculative_tokens": 3}\'\n'
                "GPU_MEMORY_UTILIZATION=0.95  # [RCP002]\n"
                "if (( TP == 4 )); then\n"
                "    GPU_MEMORY_UTILIZATION=0.98  # [RCP002]\n"
                "fi\n"
                'vllm serve "$MODEL_PATH" --gpu-memory-utilization "$GPU_MEMORY_UTILIZATION" \\\n'
                '    --speculative-config "$SPEC_CONFIG" &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/minimaxm2.7_fp4_b200_sglang_mtp.sh",
            note="SGLang with a separate EAGLE3 draft: 0.90 OOMed in CUDA-graph capture (InferenceX #2289)",
            text=(
                "#!/usr/bin/env bash\n"
                "SGLANG_CMD=(\n"
                '    python3 -m sglang.launch_server --model-path "$MODEL"\n'
                "    --speculative-algorithm EAGLE3\n"
                "    --speculative-draft-model-path asherszhang/MiniMax-M2.7-EAGLE3-draft-vocab200k\n"
                "    --speculative-num-steps 3\n"
                "    --mem-fraction-static 0.90  # [RCP002]\n"
                ")\n"
                '"${SGLANG_CMD[@]}" &\n'
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'SPEC_CONFIG=\'{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", "num_speculative_tokens": 3}\'\n'
                'vllm serve "$MODEL_PATH" --gpu-memory-utilization 0.90 --speculative-config "$SPEC_CONFIG" &\n'
            ),
            files={"benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh": _SIBLING},
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsv4_fp4_b300_vllm_mtp.sh",
            note="native MTP: no separate draft model",
            text=(
                "#!/usr/bin/env bash\n"
                'vllm serve "$MODEL" --gpu-memory-utilization 0.95 '
                '--speculative-config \'{"method": "mtp", "num_speculative_tokens": 3}\' &\n'
            ),
        ),
    ),
)


_PARALLEL = (
    "tensor-parallel-size",
    "data-parallel-size",
    "pipeline-parallel-size",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "moe_expert_parallel_size",
)


def _layout(recipe: Recipe) -> frozenset[tuple[str, str, str]]:
    """Each role's parallel layout: a sibling proves a fraction only for the same deployment."""
    out = set()
    for launch in recipe.launches:
        for name in _PARALLEL:
            f = launch.flag("--" + name)
            if f is not None:
                out.add((launch.role, name, f.value.text if f.value else "true"))
            if isinstance(launch.engine_yaml, dict) and name in launch.engine_yaml:
                out.add((launch.role, name, str(launch.engine_yaml[name])))
    return frozenset(out)


def _multi_node_limit(recipe: Recipe, engine: str, ctx: RuleContext) -> tuple[float, str] | None:
    """The highest fraction a spec-decode recipe of the same directory, SKU and parallel
    layout runs; a single-node sibling says nothing about a disaggregated worker, and
    neither does the single-node default."""
    source = ctx.base if ctx.base is not None else ctx.tree
    folder = recipe.path.rsplit("/", 1)[0] + "/"

    def proven() -> list[tuple[str, str | None, frozenset[Any], str, float]]:
        out = []
        for path in ctx.recipes(source):
            if not path.startswith(folder) or "/" in path[len(folder) :]:
                continue
            sibling = ctx.parsed("recipe", path, tree=source)
            if sibling is None:
                continue
            layout = _layout(sibling)
            for launch in sibling.launches:
                mem = facts.memory(launch, ctx.knowledge)
                value = facts.number(mem.value) if mem is not None else None
                s = facts.spec(launch, ctx.knowledge)
                if value is not None and s is not None and s.draft is not None:
                    out.append((path, sibling.sku, layout, launch.engine, value))
        return out

    rows = ctx.memo(f"rcp002-multinode:{id(source)}:{folder}", proven)
    layout = _layout(recipe)
    best: tuple[float, str] | None = None
    for path, sku, lay, eng, value in rows:
        if path == recipe.path or sku != recipe.sku or lay != layout or eng != engine:
            continue
        if best is None or value > best[0]:
            best = (value, path)
    return best


def _limit_from_siblings(recipe: Recipe, engine: str, ctx: RuleContext) -> tuple[float, str] | None:
    if recipe.multi_node:
        return _multi_node_limit(recipe, engine, ctx)
    source = ctx.base if ctx.base is not None else ctx.tree
    best: tuple[tuple[int, int, str], float, str] | None = None
    # the spec-decode scripts and their names, listed once per run and tree
    named = ctx.memo(
        f"rcp002-mtp:{id(source)}",
        lambda: [(p, describe_path(p)) for p in ctx.recipes(source) if p.endswith("_mtp.sh")],
    )
    for path, name in named:
        if path == recipe.path:
            continue
        if name.model != recipe.model or name.sku != recipe.sku:
            continue
        sibling = ctx.parsed("recipe", path, tree=source)
        if sibling is None:
            continue
        values = []
        for launch in sibling.launches:
            if launch.engine != engine:
                continue
            s = facts.spec(launch, ctx.knowledge)
            if s is None:
                continue
            mem = facts.memory(launch, ctx.knowledge)
            if mem is None:
                # no flag: the sibling runs its engine's own default (vLLM's 0.90)
                default = ctx.knowledge.memory.engine_default.get(engine)
                if default is not None and launch.role == "server":
                    values.append(float(default))
                continue
            if facts.number(mem.value) is None:
                continue
            values.append(float(mem.value))
        if not values:
            continue
        rank = (
            0 if name.precision == recipe.precision else 1,
            0 if name.kind == "fixed_seq_len" else 1,
            path,
        )
        if best is None or rank < best[0]:
            best = (rank, max(values), path)
    return (best[1], best[2]) if best else None


def _established(recipe: Recipe, ctx: RuleContext) -> bool | None:
    """Whether the recipe is already merged (it has run at its value); None without a base.

    Only a PR's base can tell: a lone file and a whole tree get the same answer.
    """
    if ctx.base is not None:
        return ctx.base.read(recipe.path) is not None
    return None


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    seen: set[int] = set()
    for launch in recipe.launches:
        s = facts.spec(launch, ctx.knowledge)
        if s is None or not facts.uses_separate_draft(s):
            continue
        mem = facts.memory(launch, ctx.knowledge)
        if mem is None:
            # the flag is absent: the engine's own default applies, at the launch
            default = ctx.knowledge.memory.engine_default.get(launch.engine)
            if default is None or launch.role != "server":
                continue
            mem = Setting(
                float(default),
                launch.span,
                f"{float(default):.2f}",
                Origin(
                    "default",
                    next(
                        iter(
                            engines.names(
                                engines.table(ctx.knowledge, launch.engine), "flags", "memory"
                            )
                        ),
                        "memory fraction",
                    ),
                ),
            )
        value = facts.number(mem.value)
        if value is None or mem.span.line in seen:
            continue
        established = _established(recipe, ctx)
        if recipe.multi_node and established:
            continue
        sibling = _limit_from_siblings(recipe, launch.engine, ctx)
        if sibling is not None:
            limit, where = sibling
            variant: str | None = None
        else:
            where = ""
            variant = "default_limit"
            defaults = ctx.knowledge.memory.default_limit
            if recipe.multi_node or launch.engine not in defaults or established:
                continue
            limit = float(defaults[launch.engine])
        if value <= limit + 1e-9:
            continue
        condition: str | None = None
        if established is None and (recipe.multi_node or sibling is None):
            # no PR base decides whether this recipe already ran at this value
            condition = "no-base"
            variant = f"{variant}_no_base" if variant else "no_base"
        seen.add(mem.span.line)
        draft = facts.draft_identity(s, recipe, ctx.knowledge) or (s.draft.text if s.draft else "?")
        flag = mem.origin.name  # the flag, the engine-YAML key path or the default's knob
        lines = recipe.lines
        line = lines[mem.span.line - 1] if 0 < mem.span.line <= len(lines) else ""
        yield RULE.hit(
            recipe.path,
            mem.span,
            f"{flag} {value:g}",
            suggestion=replace_at(line, mem.span.col, mem.text, f"{limit:.2f}"),
            flag=flag,
            value=mem.text,
            draft=draft,
            limit=f"{limit:.2f}",
            variant=variant,
            condition=condition,
            sibling=where,
            engine=launch.engine,
            when=clause_at(recipe.launches, mem.span.line),
        )
