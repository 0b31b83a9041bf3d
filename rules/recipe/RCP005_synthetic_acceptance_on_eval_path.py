"""RCP005: the EVAL_ONLY run forces acceptance instead of verifying."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.conditions import CLAUSES, clause_at
from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, T
from bot.parse import facts, master_launch
from bot.parse.recipe import Recipe

RULE = Rule(
    id="RCP005",
    slug="synthetic-acceptance-on-eval-path",
    severity=ERROR,
    target="recipe",
    title=T(en="Synthetic acceptance on the eval path", zh="评估路径上使用了合成接受"),
    message=T(
        en="`{setting}` forces acceptance on the EVAL_ONLY run, which then scores drafted tokens the target never verified{when}",
        zh="`{setting}` 在 EVAL_ONLY 评估中强制接受，评估的将是目标模型从未验证过的草稿 token{when}",
    ),
    fix=T(
        en="Set `{setting}` only when `EVAL_ONLY` is not `true`",
        zh="仅在 `EVAL_ONLY` 不为 `true` 时设置 `{setting}`",
    ),
    variants={
        **CLAUSES,
        "reused_config": T(
            en=(
                "`{setting}` forces acceptance on the EVAL_ONLY run of `{key}` (`{config}:{line}`, "
                "concurrency up to {conc}): with no `EVAL_CONFIG_FILE` the runner evaluates this "
                "`CONFIG_FILE`, scoring drafted tokens the target never verified"
            ),
            zh=(
                "`{setting}` 会在 `{key}`（`{config}:{line}`，并发最高 {conc}）的 EVAL_ONLY 评估中强制接受："
                "该点没有 `EVAL_CONFIG_FILE`，运行器评估的就是这个 `CONFIG_FILE`，评估的将是目标模型从未验证过的草稿 token"
            ),
        ),
    },
    variant_fixes={
        "reused_config": T(
            en=(
                "Keep real verification in the recipe and let the runner inject acceptance "
                "(`SYNTHETIC_ACCEPTANCE=true` on the point), or name a real-verification "
                "`EVAL_CONFIG_FILE`"
            ),
            zh=(
                "配方中保留真实验证，由运行器注入接受（在该点设置 `SYNTHETIC_ACCEPTANCE=true`），"
                "或指定一个真实验证的 `EVAL_CONFIG_FILE`"
            ),
        ),
    },
    conditions={
        "agentic-eval-opt-in": Condition(
            WARNING,
            T(
                en=(
                    "an agentic point reuses its CONFIG_FILE for evals: agentic evals run only "
                    "when a sweep opts in"
                ),
                zh="智能体点在评估时沿用其 CONFIG_FILE：只有扫描选择开启时才会运行智能体评估",
            ),
        ),
    },
    rationale=T(
        en=(
            "Synthetic acceptance commits drafted tokens regardless of the target's logits. That is "
            "what a throughput run wants (a prescribed AL), but an accuracy eval through it scores "
            "garbage, near zero. Every agentic spec-decode recipe branches on `EVAL_ONLY` and keeps "
            "real verification there; a value set before the branch, or in both arms, leaks into "
            "the eval. A multi-node point without an `EVAL_CONFIG_FILE` is evaluated with its "
            "`CONFIG_FILE` (on the points the sweep generator picks for evals), so that recipe "
            "must keep real verification too (InferenceX #2665)."
        ),
        zh=(
            "合成接受会无视目标模型的 logits 直接提交草稿 token。吞吐测试需要这样（固定 AL），但精度评估在此"
            "模式下得分接近 0。所有智能体投机解码配方都按 `EVAL_ONLY` 分支并在评估时保留真实验证；在分支之前"
            "或两个分支中都设置该值，会泄漏到评估中。没有 `EVAL_CONFIG_FILE` 的多节点点会用其 `CONFIG_FILE` "
            "做评估（在扫描生成器选中评估的点上），因此该配方也必须保留真实验证（InferenceX #2665）。"
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


def _rewritten_for_evals(recipe: Recipe, ctx: RuleContext) -> bool:
    """A model table whose launcher rewrites the synthetic setting for EVAL_ONLY runs."""
    entry = ctx.knowledge.model_tables.get(recipe.path)
    if entry is None or entry.eval_rewrite is None or entry.launcher is None:
        return False
    launcher = ctx.text(entry.launcher)
    return launcher is not None and entry.eval_rewrite in launcher


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if "EVAL_ONLY" not in recipe.text and not recipe.multi_node:
        return
    if recipe.kind == "model_table" and _rewritten_for_evals(recipe, ctx):
        return
    seen: set[int] = set()
    evals: list[master_launch.MasterLaunch] | None = None
    for launch in recipe.launches:
        if not launch.decodes:
            continue
        reused: master_launch.MasterLaunch | None = None
        if launch.eval_only is False:
            if not recipe.multi_node:
                continue
            if evals is None:  # master-config points that run it for EVAL_ONLY
                runs = master_launch.master_launches(ctx).get(recipe.path, [])
                evals = [r for r in runs if r.role == "eval"]
            if not evals:
                continue
            named = [r for r in evals if not r.reused]
            reused = None if named else evals[0]
        spec = facts.spec(launch, ctx.knowledge)
        if spec is None or spec.simulation is None:
            continue
        setting = spec.simulation.setting
        if setting.span.line in seen:
            continue
        seen.add(setting.span.line)
        name = setting.origin.name  # the variable, JSON key or flag
        if reused is not None:
            agentic = reused.scenario == "agentic-coding"
            yield RULE.hit(
                recipe.path,
                setting.span,
                f"{name}={setting.text}",
                variant="reused_config",
                condition="agentic-eval-opt-in" if agentic else None,
                # multi-node agentic points get evals only since InferenceX #2309
                practice="multi-node-agentic-eval" if agentic else None,
                setting=name,
                key=reused.key,
                config=reused.config,
                line=reused.line,
                conc=reused.max_conc if reused.max_conc is not None else "?",
            )
            continue
        yield RULE.hit(
            recipe.path,
            setting.span,
            f"{name}={setting.text}",
            setting=name,
            # the EVAL_ONLY arm is what the message is about
            when=clause_at(recipe.launches, setting.span.line, skip=("EVAL_ONLY",)),
        )
