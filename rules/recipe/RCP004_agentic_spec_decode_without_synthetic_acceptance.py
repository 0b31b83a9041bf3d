"""RCP004: an agentic spec-decode throughput run measures real acceptance."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.conditions import CLAUSES, clause_at
from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Rule, T
from bot.parse import facts, master_launch
from bot.parse.recipe import Recipe

_KNOB = {
    "vllm": '`"rejection_sample_method": "synthetic"` with `synthetic_acceptance_length`',
    "sglang": "`SGLANG_SIMULATE_ACC_LEN` (with `SGLANG_SIMULATE_ACC_METHOD=match-expected`)",
    "trtllm": "`TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS` (golden AL − 1)",
    "atom": "`--spec-decode-acceptance-length`",
}

RULE = Rule(
    id="RCP004",
    slug="agentic-spec-decode-without-synthetic-acceptance",
    severity=ERROR,
    target="recipe",
    variants=dict(CLAUSES),
    title=T(
        en="Agentic spec-decode throughput run without synthetic acceptance",
        zh="智能体投机解码吞吐测试未使用合成接受",
    ),
    message=T(
        en="The throughput launch uses speculative decoding (`{method}`) but does not simulate the golden acceptance length{when}",
        zh="吞吐测试启动使用了投机解码（`{method}`），但没有模拟黄金接受长度{when}",
    ),
    fix=T(
        en="Set {knob} to the golden AL on the non-EVAL_ONLY path",
        zh="在非 EVAL_ONLY 路径上设置 {knob} 为黄金 AL",
    ),
    rationale=T(
        en=(
            "AgentX compares systems at a prescribed acceptance rate, not draft heads "
            "(golden_al_distribution/README.md). An agentic spec-decode throughput run that "
            "measures its own draft's acceptance is not comparable with other submissions. "
            "Only the EVAL_ONLY accuracy run keeps real verification."
        ),
        zh=(
            "AgentX 在规定的接受率下比较系统，而不是比较草稿头（见 golden_al_distribution/README.md）。"
            "智能体投机解码吞吐测试若使用草稿模型的真实接受率，结果无法与其他提交比较。"
            "只有 EVAL_ONLY 精度评估保留真实验证。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'python3 -m sglang.launch_server --model-path "$MODEL" \\\n'
                "    --speculative-algorithm EAGLE --speculative-num-steps 3 &  # [RCP004]\n"
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'if [ "$EVAL_ONLY" != "true" ]; then\n'
                "    export SGLANG_SIMULATE_ACC_LEN=3.39\n"
                "fi\n"
                'python3 -m sglang.launch_server --model-path "$MODEL" \\\n'
                "    --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200_mtp.sh",
            note="fixed-seq-len runs measure real acceptance",
            text="#!/usr/bin/env bash\npython3 -m sglang.launch_server --speculative-algorithm EAGLE &\n",
        ),
    ),
)


def _injected_by_runner(recipe: Recipe, ctx: RuleContext) -> bool:
    """A multi-node recipe whose runs get synthetic acceptance from the runner.

    Only master-config points run a multi-node recipe; when every point that
    runs it as the throughput job sets `SYNTHETIC_ACCEPTANCE=true`, the runner
    injects the AL (and none runs it otherwise, nothing runs it at all).
    """
    runs = [
        r for r in master_launch.master_launches(ctx).get(recipe.path, []) if r.role == "throughput"
    ]
    return all(r.injects_acceptance for r in runs)


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if not recipe.agentic:
        return
    seen: set[int] = set()
    injected: bool | None = None
    for launch in recipe.launches:
        if launch.eval_only is True or not launch.decodes:
            continue
        spec = facts.spec(launch, ctx.knowledge)
        if (
            spec is None
            or spec.raw_method is None
            or spec.simulation is not None
            or spec.anchor.line in seen
        ):
            continue
        if recipe.multi_node:
            if injected is None:
                injected = _injected_by_runner(recipe, ctx)
            if injected:
                return
        seen.add(spec.anchor.line)
        yield RULE.hit(
            recipe.path,
            spec.anchor,
            f"{launch.engine} {spec.raw_method}",
            method=spec.raw_method or "speculative decoding",
            knob=_KNOB.get(launch.engine, "the engine's synthetic-acceptance knob"),
            when=clause_at(recipe.launches, spec.anchor.line),
        )
