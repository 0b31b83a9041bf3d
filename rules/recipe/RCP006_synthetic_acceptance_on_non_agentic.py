"""RCP006: a fixed-seq-len recipe simulates acceptance."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.conditions import CLAUSES, clause_at
from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Rule, T
from bot.parse import facts
from bot.parse.recipe import Recipe

RULE = Rule(
    id="RCP006",
    slug="synthetic-acceptance-on-non-agentic",
    severity=ERROR,
    target="recipe",
    variants=dict(CLAUSES),
    title=T(en="Synthetic acceptance outside agentic recipes", zh="非智能体配方使用了合成接受"),
    message=T(
        en="`{setting}` simulates acceptance in a {kind} recipe; only agentic runs pin the golden AL{when}",
        zh="`{setting}` 在 {kind} 配方中模拟接受；只有智能体测试才固定黄金 AL{when}",
    ),
    fix=T(
        en="Remove `{setting}` and measure real acceptance", zh="删除 `{setting}`，使用真实接受率"
    ),
    rationale=T(
        en=(
            "The golden-AL policy applies to the AgentX scenario only. Fixed-seq-len benchmarks "
            "report the acceptance the draft really achieves on their ISL/OSL pairs; a simulated "
            "value there inflates or deflates published throughput."
        ),
        zh=(
            "黄金 AL 规则只适用于 AgentX 场景。固定序列长度基准测试报告草稿模型在给定 ISL/OSL 上的真实接受率；"
            "在这里模拟接受会使公布的吞吐量失真。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "export SGLANG_SIMULATE_ACC_LEN=3.39  # [RCP006]\n"
                "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100_mtp.sh",
            text="#!/usr/bin/env bash\npython3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 &\n",
        ),
    ),
)


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if recipe.kind != "fixed_seq_len":
        return
    seen: set[int] = set()
    for launch in recipe.launches:
        if not launch.decodes:
            continue
        spec = facts.spec(launch, ctx.knowledge)
        if spec is None or spec.simulation is None:
            continue
        setting = spec.simulation.setting
        if setting.span.line in seen:
            continue
        seen.add(setting.span.line)
        name = setting.origin.name  # the variable, JSON key or flag
        yield RULE.hit(
            recipe.path,
            setting.span,
            f"{name}={setting.text}",
            setting=name,
            kind=recipe.kind.replace("_", "-"),
            when=clause_at(recipe.launches, setting.span.line),
        )
