"""RCP005: the EVAL_ONLY run forces acceptance instead of verifying."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Rule, T
from bot.parse import facts, master_launch
from bot.parse.recipe import Recipe

RULE = Rule(
    id="RCP005",
    slug="synthetic-acceptance-on-eval-path",
    severity=ERROR,
    target="recipe",
    title=T(en="Synthetic acceptance on the eval path", zh="评估路径上使用了合成接受"),
    message=T(
        en="`{setting}` forces acceptance on the EVAL_ONLY run, which then scores drafted tokens the target never verified",
        zh="`{setting}` 在 EVAL_ONLY 评估中强制接受，评估的将是目标模型从未验证过的草稿 token",
    ),
    fix=T(
        en="Set `{setting}` only when `EVAL_ONLY` is not `true`",
        zh="仅在 `EVAL_ONLY` 不为 `true` 时设置 `{setting}`",
    ),
    rationale=T(
        en=(
            "Synthetic acceptance commits drafted tokens regardless of the target's logits. That is "
            "what a throughput run wants (a prescribed AL), but an accuracy eval through it scores "
            "garbage, near zero. Every agentic spec-decode recipe branches on `EVAL_ONLY` and keeps "
            "real verification there; a value set before the branch, or in both arms, leaks into "
            "the eval."
        ),
        zh=(
            "合成接受会无视目标模型的 logits 直接提交草稿 token。吞吐测试需要这样（固定 AL），但精度评估在此"
            "模式下得分接近 0。所有智能体投机解码配方都按 `EVAL_ONLY` 分支并在评估时保留真实验证；在分支之前"
            "或两个分支中都设置该值，会泄漏到评估中。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/agentic/glm5.2_fp8_mi325x_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "export SGLANG_SIMULATE_ACC_LEN=2.99  # [RCP005]\n"
                "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
                'if [ "$EVAL_ONLY" = "true" ]; then\n'
                '    run_eval --port "$PORT"\n'
                "fi\n"
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/agentic/glm5.2_fp8_mi325x_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'if [ "$EVAL_ONLY" != "true" ]; then\n'
                "    export SGLANG_SIMULATE_ACC_LEN=2.99\n"
                "fi\n"
                "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
                'if [ "$EVAL_ONLY" = "true" ]; then\n'
                '    run_eval --port "$PORT"\n'
                "fi\n"
            ),
        ),
    ),
)


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if "EVAL_ONLY" not in recipe.text and not recipe.multi_node:
        return
    seen: set[int] = set()
    eval_twin: bool | None = None
    for launch in recipe.launches:
        if not launch.decodes:
            continue
        if launch.eval_only is False:
            if not recipe.multi_node:
                continue
            if eval_twin is None:  # a master-config point runs it as EVAL_CONFIG_FILE
                runs = master_launch.master_launches(ctx).get(recipe.path, [])
                eval_twin = any(r.role == "eval" for r in runs)
            if not eval_twin:
                continue
        spec = facts.spec(launch, ctx.knowledge)
        if spec is None or spec.simulation is None:
            continue
        setting = spec.simulation.setting
        if setting.span.line in seen:
            continue
        seen.add(setting.span.line)
        name = setting.origin.name  # the variable, JSON key or flag
        yield RULE.hit(recipe.path, setting.span, f"{name}={setting.text}", setting=name)
