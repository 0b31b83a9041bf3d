"""RCP003: simulated acceptance differs from the committed golden AL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.conditions import CLAUSES
from bot.core.conditions import of as conditions_of
from bot.core.conditions import when as when_clause
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
    part,
)
from bot.core.suggest import replace_at
from bot.parse import engines, facts
from bot.parse.golden import GoldenCurve, candidates
from bot.parse.recipe import Launch, Recipe

_GQA = (
    "# Source GitHub Actions run: https://github.com/SemiAnalysisAI/InferenceX/actions/runs/29784780049\n"
    '# thinking_on chat_template_kwargs: {"thinking_mode": "enabled"}\n'
    '# thinking_off chat_template_kwargs: {"thinking_mode": "disabled"}\n'
    "minimax-m3:\n  thinking_on:\n    2: 2.35\n    3: 2.78\n  thinking_off:\n    3: 2.90\n"
)
_PLAIN = (
    "# Source GitHub Actions run: https://github.com/SemiAnalysisAI/InferenceX/actions/runs/28061204145\n"
    '# thinking_on chat_template_kwargs: {"thinking_mode": "enabled"}\n'
    "minimax-m3:\n  thinking_on:\n    3: 2.83\n  thinking_off:\n    3: 2.93\n"
)
_QWEN = "qwen3.5-397b-a17b-nvfp4:\n  thinking_on:\n    3: 3.39\n  thinking_off:\n    3: 3.33\n"
_DSV4 = (
    "# Source GitHub Actions run: https://github.com/SemiAnalysisAI/InferenceX/actions/runs/27180633016\n"
    '# thinking_on chat_template_kwargs: {"thinking": true, "reasoning_effort": "high"}\n'
    "deepseek-v4-pro:\n  thinking_on:\n    3: 2.49\n"
)


def _dsv4_recipe(effort: str, marker: str = "") -> str:
    """The shape of InferenceX #2200's MI355X DeepSeek-V4 SGLang AgentX recipe."""
    return (
        "#!/usr/bin/env bash\n"
        "export SGLANG_DEFAULT_THINKING=1\n"
        f"export SGLANG_DSV4_REASONING_EFFORT={effort}{marker}\n"
        'if [ "${EVAL_ONLY:-false}" != "true" ]; then\n'
        "    export SGLANG_SIMULATE_ACC_LEN=2.49\n"
        "    export SGLANG_SIMULATE_ACC_METHOD=match-expected\n"
        "fi\n"
        'python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE \\\n'
        "    --speculative-num-steps 3 --speculative-eagle-topk 1 &\n"
    )


_CURVES = {
    "golden_al_distribution/minimaxm3_eagle3_gqa.yaml": _GQA,
    "golden_al_distribution/minimaxm3_eagle3.yaml": _PLAIN,
    "golden_al_distribution/qwen3.5_mtp.yaml": _QWEN,
}


def _vllm_recipe(draft: str, al: str, marker: str = "") -> str:
    return (
        "#!/usr/bin/env bash\n"
        f'DRAFT_MODEL="{draft}"\n'
        f"SYNTHETIC_ACCEPT_LEN={al}{marker}\n"
        'if [ "$EVAL_ONLY" = "true" ]; then\n'
        '    SPEC_CONFIG="{\\"method\\": \\"eagle3\\", \\"model\\": \\"$DRAFT_MODEL\\", \\"num_speculative_tokens\\": 3}"\n'
        "else\n"
        '    SPEC_CONFIG="{\\"method\\": \\"eagle3\\", \\"model\\": \\"$DRAFT_MODEL\\", \\"num_speculative_tokens\\": 3, '
        '\\"rejection_sample_method\\": \\"synthetic\\", \\"synthetic_acceptance_length\\": $SYNTHETIC_ACCEPT_LEN}"\n'
        "fi\n"
        'vllm serve "$MODEL" --default-chat-template-kwargs \'{"thinking_mode":"enabled"}\' '
        '--speculative-config "$SPEC_CONFIG" &\n'
    )


RULE = Rule(
    id="RCP003",
    slug="golden-al-mismatch",
    severity=ERROR,
    conditions={
        "thinking-inferred": Condition(
            WARNING,
            T(
                en="the value is the golden AL of the other thinking mode and nothing in the "
                "recipe sets the mode (the model's default decides it)",
                zh="该值是另一种思考模式的黄金 AL，且配方中没有设置思考模式（由模型默认值决定）",
            ),
        ),
    },
    target="recipe",
    title=T(en="Simulated acceptance differs from the golden AL", zh="模拟接受长度与黄金 AL 不符"),
    message=T(
        en=(
            "`{setting}` is {actual}, but `{file}` gives `{key}` {mode} K={k} an AL of {al}, "
            "so the engine needs {expected} (thinking {mode_short}: `{source}`){when}"
        ),
        zh=(
            "`{setting}` 为 {actual}，但 `{file}` 中 `{key}` {mode} K={k} 的 AL 为 {al}，"
            "引擎应设为 {expected}（思考模式 {mode_short}：`{source}`）{when}"
        ),
    ),
    fix=T(en="Set `{setting}` to {expected}", zh="将 `{setting}` 设为 {expected}"),
    variant_fixes={
        "effort": T(
            en="Set the reasoning effort to `{curve_effort}` (`{effort_setting}`)",
            zh="将推理强度设为 `{curve_effort}`（`{effort_setting}`）",
        ),
        "thinking_not_set": T(
            en=(
                "Turn thinking {flip_word} explicitly (chat-template kwargs on the server, or "
                "`AIPERF_EXTRA_INPUTS` on the client), or set `{setting}` to {expected}"
            ),
            zh=(
                "显式{flip_word}思考（服务端的 chat 模板参数，或客户端 `AIPERF_EXTRA_INPUTS`），"
                "或将 `{setting}` 设为 {expected}"
            ),
        ),
    },
    variants={
        **CLAUSES,
        # the thinking mode, as a word
        "on": T(en="on", zh="开启"),
        "off": T(en="off", zh="关闭"),
        "model_default": T(
            en=(
                "`{setting}` is {actual}, but `{file}` gives `{key}` {mode} K={k} an AL of {al}, "
                "so the engine needs {expected} (thinking {mode_short}: {model}'s default){when}"
            ),
            zh=(
                "`{setting}` 为 {actual}，但 `{file}` 中 `{key}` {mode} K={k} 的 AL 为 {al}，"
                "引擎应设为 {expected}（思考模式 {mode_short}：{model} 的默认值）{when}"
            ),
        ),
        "thinking_unknown": T(
            en=(
                "`{setting}` is {actual}, but `{file}` gives `{key}` {mode} K={k} an AL of {al}, "
                "so the engine needs {expected} (the recipe sets no thinking mode and the model's "
                "default is unknown){when}"
            ),
            zh=(
                "`{setting}` 为 {actual}，但 `{file}` 中 `{key}` {mode} K={k} 的 AL 为 {al}，"
                "引擎应设为 {expected}（配方未设置思考模式，模型默认值未知）{when}"
            ),
        ),
        "trt_off_by_one": T(
            en=(
                "`TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS={actual}` is the golden AL itself; "
                "it counts accepted draft tokens only, so it must be AL − 1 = {expected} "
                "(`{file}` `{key}` {mode} K={k}){when}"
            ),
            zh=(
                "`TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS={actual}` 直接用了黄金 AL；"
                "该变量只计接受的草稿 token，应为 AL − 1 = {expected}（`{file}` `{key}` {mode} K={k}）{when}"
            ),
        ),
        "thinking_not_set": T(
            en=(
                "`{setting}` is {actual}, the thinking_{flip} value of `{file}` K={k}, but nothing in "
                "the recipe turns thinking {flip_word} and {model} serves thinking {default_word} by "
                "default, where the golden AL is {al} (engine value {expected}){when}"
            ),
            zh=(
                "`{setting}` 为 {actual}，是 `{file}` 中 thinking_{flip}、K={k} 的值，但配方没有{flip_word}思考，"
                "而 {model} 默认{default_word}思考，此时黄金 AL 为 {al}（引擎应设为 {expected}）{when}"
            ),
        ),
        "effort": T(
            en=(
                "The server runs reasoning effort `{effort}` (`{source}`), but `{setting}` "
                "{actual} pins `{file}` `{key}` {mode} K={k}, measured at reasoning effort "
                "`{curve_effort}`{when}"
            ),
            zh=(
                "服务以推理强度 `{effort}` 运行（`{source}`），但 `{setting}` {actual} 对应的 "
                "`{file}` 中 `{key}` {mode} K={k} 是在推理强度 `{curve_effort}` 下测得的{when}"
            ),
        ),
        "wrong_curve": T(
            en=(
                "`{setting}` is {actual}, the value of `{other}`; the draft `{draft}` is measured in "
                "`{file}`, which gives `{key}` {mode} K={k} an AL of {al}, so the engine needs {expected}{when}"
            ),
            zh=(
                "`{setting}` 为 {actual}，取自 `{other}`；草稿模型 `{draft}` 的曲线是 `{file}`，"
                "其中 `{key}` {mode} K={k} 的 AL 为 {al}，引擎应设为 {expected}{when}"
            ),
        ),
    },
    applicability=Applicability(
        UNSAFE,
        T(
            en=(
                "Changing the simulated acceptance changes the throughput the benchmark "
                "reports; the expected value follows the thinking mode and the draft variant "
                "the bot inferred from the recipe (a model's default, a curve file chosen by "
                "the draft's name), which the author confirms."
            ),
            zh=(
                "修改模拟接受长度会改变基准报告的吞吐；"
                "期望值取决于机器人从配方推断出的思考模式与草稿变体（模型的默认值、"
                "按草稿名称选择的曲线文件），需由作者确认。"
            ),
        ),
    ),
    rationale=T(
        en=(
            "AgentX fairness (golden_al_distribution/README.md): once synthetic acceptance is on, "
            "each model, thinking mode and draft length has one committed golden AL, and every "
            "submission must simulate exactly it. The rule finds the golden file for the model and "
            "draft (the EAGLE3-GQA draft has its own curve, distinct from the plain EAGLE3 draft: "
            "2.78 vs 2.83 at thinking_on K=3), the thinking mode (from chat-template kwargs, a "
            "thinking chat template, env switches, or else the model's default), and K, then "
            "compares the engine's knob: vLLM `synthetic_acceptance_length` = AL, SGLang "
            "`SGLANG_SIMULATE_ACC_LEN` = AL, TensorRT-LLM "
            "`TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS` = AL − 1 (it excludes the bonus token), "
            "ATOM `--spec-decode-acceptance-length` = AL or `--spec-decode-acceptance-rate` = "
            "(AL − 1)/K. A value that matches no golden AL of the model at all is an error whatever "
            "the thinking mode. Only a value that is the other thinking mode's golden AL, while "
            "nothing in the recipe sets the mode and it follows from the model's default, is a "
            "warning: a client could still switch the mode. A curve also holds only at the "
            "reasoning effort its header's chat-template kwargs name (the DeepSeek-V4 curves: "
            "`high`): a recipe that pins it while serving thinking at another effort "
            "(`SGLANG_DSV4_REASONING_EFFORT=max`, `reasoning_effort` in the server's or the "
            "client's chat-template kwargs; `knowledge.reasoning_effort`) simulates an AL its "
            'traffic does not have (InferenceX #2200, #2246: "match golden AL reasoning '
            'effort"). A curve whose header names no effort, or a recipe that sets none, is '
            "not compared."
        ),
        zh=(
            "AgentX 公平性规则（golden_al_distribution/README.md）：开启合成接受后，每个模型、思考模式与草稿"
            "长度只有一个已提交的黄金 AL，所有提交必须精确模拟该值。本规则根据模型与草稿模型找到黄金文件"
            "（EAGLE3-GQA 草稿有独立曲线，与普通 EAGLE3 不同：thinking_on、K=3 时为 2.78 与 2.83），确定思考"
            "模式（来自 chat-template kwargs、思考模板、环境变量开关，否则取模型默认值）和 K，再比较引擎参数："
            "vLLM `synthetic_acceptance_length` = AL，SGLang `SGLANG_SIMULATE_ACC_LEN` = AL，TensorRT-LLM "
            "`TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS` = AL − 1（不含 bonus token），ATOM "
            "`--spec-decode-acceptance-length` = AL 或 `--spec-decode-acceptance-rate` = (AL − 1)/K。"
            "与该模型任何黄金 AL 都不符的值，无论思考模式如何都报告为错误；只有当该值恰是另一种思考模式的黄金 AL、"
            "且配方未设置思考模式（由模型默认值推断）时才报告为警告，因为客户端仍可能切换模式。"
            "曲线也只在其文件头 chat-template kwargs 所写的推理强度下成立（DeepSeek-V4 曲线为 `high`）："
            "配方固定该曲线的 AL、却以其他推理强度提供思考服务（`SGLANG_DSV4_REASONING_EFFORT=max`，"
            "或服务端、客户端 chat-template kwargs 中的 `reasoning_effort`；见 "
            "`knowledge.reasoning_effort`），模拟出的 AL 与其流量不符（InferenceX #2200、#2246："
            "“match golden AL reasoning effort”）。文件头未写推理强度的曲线、或未设置推理强度的配方不做比较。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh",
            note="the GQA draft pinned to the plain EAGLE3 curve",
            text=_vllm_recipe("Inferact/MiniMax-M3-EAGLE3-GQA", "2.83", "  # [RCP003]"),
            files=_CURVES,
        ),
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp4_b300_trt_mtp.sh",
            note="TensorRT-LLM counts draft tokens only",
            text=(
                "#!/usr/bin/env bash\n"
                'DRAFT_MODEL="Inferact/MiniMax-M3-EAGLE3-GQA"\n'
                "cat << EOF > ser.yaml\n"
                "speculative_config:\n"
                "    decoding_type: Eagle3\n"
                "    max_draft_len: 3\n"
                "    speculative_model: $DRAFT_MODEL_PATH\n"
                "EOF\n"
                'if [ "$EVAL_ONLY" = "true" ]; then\n'
                "    unset TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS\n"
                "else\n"
                "    export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.78  # [RCP003]\n"
                "fi\n"
                'trtllm-serve "$MODEL_PATH" --chat_template thinking.jinja --config ser.yaml &\n'
            ),
            files=_CURVES,
        ),
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_h100_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'if [ "${EVAL_ONLY}" != "true" ]; then\n'
                "    export SGLANG_SIMULATE_ACC_LEN=3.33  # [RCP003]\n"
                "fi\n"
                'python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE '
                "--speculative-num-steps 3 --speculative-eagle-topk 1 &\n"
            ),
            files=_CURVES,
        ),
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp4_b200_trt_mtp.sh",
            note="the thinking_on value while nothing turns thinking on (MiniMax-M3 defaults to off)",
            text=(
                "#!/usr/bin/env bash\n"
                "cat << EOF > ser.yaml\n"
                "speculative_config:\n"
                "    decoding_type: Eagle3\n"
                "    max_draft_len: 3\n"
                "    speculative_model: Inferact/MiniMax-M3-EAGLE3-GQA\n"
                "EOF\n"
                'if [ "$EVAL_ONLY" != "true" ]; then\n'
                "    export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.78  # [RCP003]\n"
                "fi\n"
                'trtllm-serve "$MODEL_PATH" --chat_template "$MODEL_PATH/chat_template.jinja" --config ser.yaml &\n'
            ),
            files=_CURVES,
        ),
        Example(
            path="benchmarks/single_node/agentic/dsv4_fp4_mi355x_sglang_mtp.sh",
            note="the curve was measured at reasoning effort high (InferenceX #2200)",
            text=_dsv4_recipe("max", "  # [RCP003]"),
            files={"golden_al_distribution/dsv4_mtp.yaml": _DSV4},
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/agentic/dsv4_fp4_mi355x_sglang_mtp.sh",
            text=_dsv4_recipe("high"),
            files={"golden_al_distribution/dsv4_mtp.yaml": _DSV4},
        ),
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh",
            text=_vllm_recipe("Inferact/MiniMax-M3-EAGLE3", "2.83"),
            files=_CURVES,
        ),
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp8_h200_mtp.sh",
            text=_vllm_recipe("Inferact/MiniMax-M3-EAGLE3-GQA", "2.78"),
            files=_CURVES,
        ),
        Example(
            path="benchmarks/single_node/agentic/glm5.2_fp4_mi355x_atom_mtp.sh",
            note="ATOM rate spelling computed by awk: (2.99 - 1) / 3",
            text=(
                "#!/usr/bin/env bash\n"
                "NUM_SPEC_TOKENS=3\n"
                "SIMULATE_ACC_LEN=2.99\n"
                'RATE=$(awk "BEGIN{print ($SIMULATE_ACC_LEN-1)/$NUM_SPEC_TOKENS}")\n'
                'SPEC_ARGS=(--method mtp --num-speculative-tokens "$NUM_SPEC_TOKENS")\n'
                'if [ "$EVAL_ONLY" != "true" ]; then\n'
                '    SPEC_ARGS+=(--spec-decode-acceptance-rate "$RATE")\n'
                "fi\n"
                'python3 -m atom.entrypoints.openai_server --model "$MODEL" "${SPEC_ARGS[@]}" &\n'
            ),
            files={
                "golden_al_distribution/glm5.2_mtp.yaml": "glm-5.2-fp8:\n  thinking_on:\n    3: 2.99\n"
            },
        ),
    ),
)


def _expected(unit: str, al: float, k: int) -> float:
    return engines.engine_value(unit, al, k)


def _same(unit: str, a: float, b: float) -> bool:
    return abs(a - b) <= engines.tolerance(unit)


def _fmt(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".") if abs(x - round(x, 2)) > 1e-9 else f"{x:.2f}"


def _check_launch(
    recipe: Recipe, launch: Launch, ctx: RuleContext, when: Any = ""
) -> Finding | None:
    spec = facts.spec(launch, ctx.knowledge)
    if spec is None or spec.simulation is None or launch.eval_only is True or not launch.decodes:
        return None
    actual = spec.simulation.value
    k = facts.k_value(spec)
    if actual is None or k is None:
        return None
    curves, other = candidates(recipe, spec, ctx)
    if not curves:
        return None
    thinking = facts.thinking(launch, recipe, ctx.knowledge)
    modes = [f"thinking_{thinking.mode}"] if thinking.mode else ["thinking_on", "thinking_off"]
    kind = spec.simulation.unit
    options: list[tuple[GoldenCurve, str, float]] = []
    for curve in curves:
        for mode in modes:
            al = curve.al(mode, k)
            if al is not None:
                options.append((curve, mode, al))
    if not options:
        return None
    if any(_same(kind, actual, _expected(kind, al, k)) for _, _, al in options):
        return None
    curve, mode, al = options[0]
    expected = _expected(kind, al, k)
    setting = spec.simulation.setting
    name = setting.origin.name  # the variable, JSON key or flag
    model = ctx.knowledge.model(recipe.model)
    params: dict[str, Any] = dict(
        setting=name,
        actual=setting.text,
        file=curve.file,
        key=curve.model_key,
        mode=mode,
        mode_short=part(mode.removeprefix("thinking_")),
        k=k,
        al=_fmt(al),
        expected=_fmt(expected),
        source=thinking.source,
        when=when,
    )
    subject = f"{name}={setting.text}"
    lines = recipe.lines
    line = lines[setting.span.line - 1] if 0 < setting.span.line <= len(lines) else ""
    params["suggestion"] = replace_at(line, setting.span.col, setting.text, _fmt(expected))
    if kind == "al_minus_one" and _same(kind, actual, al):
        return RULE.hit(
            recipe.path,
            setting.span,
            subject,
            variant="trt_off_by_one",
            **params,
        )
    for oc in other:
        oal = oc.al(mode, k)
        if oal is not None and _same(kind, actual, _expected(kind, oal, k)):
            draft = facts.draft_identity(spec, recipe, ctx.knowledge) or "?"
            return RULE.hit(
                recipe.path,
                setting.span,
                subject,
                variant="wrong_curve",
                other=oc.file,
                draft=draft,
                **params,
            )
    if thinking.mode and not thinking.explicit:
        flip = "off" if thinking.mode == "on" else "on"
        fal = curve.al(f"thinking_{flip}", k)
        if fal is not None and _same(kind, actual, _expected(kind, fal, k)):
            name_ = model.get("name", recipe.model)
            return RULE.hit(
                recipe.path,
                setting.span,
                subject,
                variant="thinking_not_set",
                condition="thinking-inferred",
                model=name_,
                flip=flip,
                flip_word=part(flip),
                default_word=part(thinking.mode),
                **params,
            )
    if thinking.explicit:
        return RULE.hit(recipe.path, setting.span, subject, **params)
    variant = "model_default" if thinking.mode else "thinking_unknown"
    return RULE.hit(
        recipe.path,
        setting.span,
        subject,
        variant=variant,
        **{**params, "model": model.get("name", recipe.model)},
    )


def _check_effort(
    recipe: Recipe, launch: Launch, ctx: RuleContext, when: Any = ""
) -> Finding | None:
    """A launch that pins a golden curve's thinking_on AL while serving thinking at
    another reasoning effort than the curve was measured at."""
    spec = facts.spec(launch, ctx.knowledge)
    if spec is None or spec.simulation is None or launch.eval_only is True or not launch.decodes:
        return None
    k = facts.k_value(spec)
    actual = spec.simulation.value
    if k is None or actual is None:
        return None
    if facts.thinking(launch, recipe, ctx.knowledge).mode != "on":
        return None  # the effort only shapes thinking
    served = facts.effort(launch, ctx.knowledge)
    if served is None:
        return None
    mode = "thinking_on"
    kind = spec.simulation.unit
    curves, _ = candidates(recipe, spec, ctx)
    measured = [
        (c, e, al)
        for c in curves
        if (al := c.al(mode, k)) is not None
        and (e := facts.curve_effort(c.thinking_kwargs.get(mode), ctx.knowledge)) is not None
    ]
    # the curve the recipe pins (its AL matches); else any curve of the model and draft
    pinned = [m for m in measured if _same(kind, actual, _expected(kind, m[2], k))] or measured
    if not pinned or any(e == served.value for _, e, _ in pinned):
        return None
    curve, curve_effort, al = pinned[0]
    setting = spec.simulation.setting
    return RULE.hit(
        recipe.path,
        served.span or launch.span,
        f"reasoning effort {served.value} for {curve.name} {curve_effort}",
        variant="effort",
        effort=served.value,
        source=served.source,
        setting=setting.origin.name,
        actual=setting.text,
        file=curve.file,
        key=curve.model_key,
        mode=mode,
        k=k,
        al=_fmt(al),
        curve_effort=curve_effort,
        effort_setting=served.setting,
        when=when,
    )


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    # a value written on one line may be computed per path (`RATE=$(awk ...)`): the
    # finding's condition is what the launches that carry the wrong value share
    wrong: dict[int, list[Launch]] = {}
    for launch in recipe.launches:
        finding = _check_launch(recipe, launch, ctx)
        if finding is not None:
            wrong.setdefault(finding.span.line, []).append(launch)
    for group in wrong.values():
        finding = _check_launch(
            recipe, group[0], ctx, when=when_clause(conditions_of(group, recipe.launches))
        )
        if finding is not None:
            yield finding
    efforts: dict[int, list[Launch]] = {}
    for launch in recipe.launches:
        finding = _check_effort(recipe, launch, ctx)
        if finding is not None:
            efforts.setdefault(finding.span.line, []).append(launch)
    for group in efforts.values():
        finding = _check_effort(
            recipe, group[0], ctx, when=when_clause(conditions_of(group, recipe.launches))
        )
        if finding is not None:
            yield finding
