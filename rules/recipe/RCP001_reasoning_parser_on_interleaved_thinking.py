"""RCP001: a reasoning parser strips an interleaved-thinking model's think block."""

from __future__ import annotations

from collections.abc import Iterator

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
from bot.core.suggest import drop_flag
from bot.parse import facts
from bot.parse.recipe import Recipe

_AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"

RULE = Rule(
    id="RCP001",
    slug="reasoning-parser-on-interleaved-thinking",
    severity=WARNING,
    conditions={
        "multi-turn-evals": Condition(
            ERROR,
            T(
                en="the knowledge says agentic evals are multi-turn by default "
                "(`agentic_eval.multi_turn_by_default`)",
                zh="知识库声明智能体评估默认是多轮的（`agentic_eval.multi_turn_by_default`）",
            ),
        ),
    },
    target="recipe",
    title=T(
        en="Reasoning parser strips interleaved thinking",
        zh="推理解析器剥离了交错思考内容",
    ),
    message=T(
        en=(
            "`{flag} {parser}` moves {model}'s think block out of `message.content`, "
            "so a multi-turn agent loses it on the next turn (harms the EVAL_ONLY run when "
            "{agent} is selected){when}"
        ),
        zh=(
            "`{flag} {parser}` 会把 {model} 的思考块移出 `message.content`，"
            "多轮智能体在下一轮会丢失它（当选择 `{agent}` 时会损害 `EVAL_ONLY` 评估）{when}"
        ),
    ),
    variants={
        **CLAUSES,
        "multi_turn": T(
            en=(
                "`{flag} {parser}` moves {model}'s think block out of `message.content`, "
                "so a multi-turn agent loses it on the next turn (agentic evals here run "
                "{agent} by default){when}"
            ),
            zh=(
                "`{flag} {parser}` 会把 {model} 的思考块移出 `message.content`，"
                "多轮智能体在下一轮会丢失它（此仓库的智能体评估默认运行 `{agent}`）{when}"
            ),
        ),
    },
    fix=T(
        en="Drop `{flag} {parser}`; keep `--tool-call-parser`",
        zh="删除 `{flag} {parser}`，保留 `--tool-call-parser`",
    ),
    applicability=Applicability(
        UNSAFE,
        T(
            en=(
                "Dropping the reasoning parser changes what the server returns to every "
                "client: the think block stays in `message.content` instead of "
                "`reasoning_content`. That is what a multi-turn eval needs, but other evals "
                "and any client that reads `reasoning_content` see different responses, and "
                "the harm depends on how evals run (a warning by default), so the author "
                "decides."
            ),
            zh=(
                "删除推理解析器会改变服务器返回给所有客户端的内容："
                "思考块留在 `message.content` 中，"
                "而不是 `reasoning_content`。这正是多轮评估所需要的，"
                "但其他评估以及读取 `reasoning_content` 的客户端会看到不同的响应；"
                "危害取决于评估的运行方式（默认只是警告），因此由作者决定。"
            ),
        ),
    ),
    rationale=T(
        en=(
            "Interleaved-thinking models such as MiniMax-M3 emit a think block that must come back "
            "in `message.content` on every turn. A reasoning parser moves it into "
            "`reasoning_content`, which agent clients (mini-swe-agent through litellm) do not "
            "resend, so the model loses its own plan each turn and degenerates into repeated "
            "commands and empty patches. InferenceX #2118 dropped the parser from the MI355X "
            "agentic recipe for this reason. Trace replay discards live responses, so the "
            "throughput numbers are unaffected; the harm lands on evaluation through a multi-turn "
            "agent. Since InferenceX #2464 agentic eval-only jobs default to single-turn GSM8K and "
            "run SWE-bench only when selected, so the finding is a warning that names this "
            "condition; a repository whose agentic evals are multi-turn by default sets "
            "`knowledge.agentic_eval.multi_turn_by_default: true` and gets an error. Which models "
            "interleave thinking is data (`knowledge.models.<prefix>.interleaved_thinking`). "
            "Multi-node recipes served through the Dynamo frontend set reasoning parsers on "
            "purpose (`dyn-reasoning-parser`, InferenceX #2663): the rule stays silent behind a "
            "frontend whose `knowledge.frontends.<type>.reasoning_parser_intended` is true."
        ),
        zh=(
            "MiniMax-M3 等交错思考模型输出的思考块必须在每一轮通过 `message.content` 回传。推理解析器会把它"
            "移到 `reasoning_content`，而智能体客户端（经 litellm 的 mini-swe-agent）不会回传该字段，"
            "模型每轮都丢失自己的计划，最终反复执行同一命令、产出空补丁。InferenceX #2118 因此在 MI355X "
            "智能体配方中去掉了该解析器。轨迹回放会丢弃实时响应，吞吐数据不受影响；受损的是经多轮智能体进行的"
            "评估。自 InferenceX #2464 起，智能体 eval-only 任务默认使用单轮 GSM8K，只有选中时才运行 "
            "SWE-bench，因此该问题报告为警告并注明条件；若仓库的智能体评估默认是多轮的，可设置 "
            "`knowledge.agentic_eval.multi_turn_by_default: true`，此时报告为错误。哪些模型使用交错思考"
            "由数据 `knowledge.models.<prefix>.interleaved_thinking` 决定。经 Dynamo 前端服务的多节点配方有意"
            "设置推理解析器（`dyn-reasoning-parser`，InferenceX #2663）：若前端的 "
            "`knowledge.frontends.<type>.reasoning_parser_intended` 为 true，本规则不报告。"
        ),
    ),
    bad=(
        Example(
            path=_AGENTIC,
            text=(
                "#!/usr/bin/env bash\n"
                "VLLM_CMD=(\n"
                '    vllm serve "$MODEL_PATH"\n'
                "    --tool-call-parser minimax_m3\n"
                "    --reasoning-parser minimax_m3  # [RCP001]\n"
                "    --enable-auto-tool-choice\n"
                ")\n"
                '"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &\n'
                'if [ "$EVAL_ONLY" = "true" ]; then\n'
                '    run_eval --port "$PORT"\n'
                "fi\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp4_b300_trt_mtp.sh",
            note="TensorRT-LLM reads the parser from its YAML",
            text=(
                "#!/usr/bin/env bash\n"
                "cat << EOF > ser.yaml\n"
                "max_batch_size: $CONC\n"
                "reasoning_parser: minimax_m3  # [RCP001]\n"
                "EOF\n"
                'trtllm-serve "$MODEL_PATH" --tp_size "$TP" --config ser.yaml &\n'
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "# NOTE: no --reasoning-parser: the <mm:think> block must round-trip in\n"
                "# message.content every turn.\n"
                'vllm serve "$MODEL" --tool-call-parser minimax_m3 --enable-auto-tool-choice &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_h100_mtp.sh",
            note="other models keep their reasoning parser",
            text='#!/usr/bin/env bash\npython3 -m sglang.launch_server --model-path "$MODEL" --reasoning-parser qwen3 &\n',
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100.sh",
            note="single-turn fixed-seq-len runs never resend the conversation",
            text='#!/usr/bin/env bash\nvllm serve "$MODEL" --reasoning-parser minimax_m3 &\n',
        ),
    ),
)


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if not recipe.agentic:
        return
    model = ctx.knowledge.model(recipe.model)
    if not model.get("interleaved_thinking"):
        return
    frontends = ctx.knowledge.section("frontends") or {}
    if recipe.frontend and (frontends.get(recipe.frontend) or {}).get("reasoning_parser_intended"):
        # the frontend parses reasoning itself, on purpose (InferenceX #2663)
        return
    evals = ctx.knowledge.section("agentic_eval") or {}
    multi_turn = bool(evals.get("multi_turn_by_default"))
    agent = evals.get("multi_turn_eval", "a multi-turn agent eval")
    seen: set[tuple[int, int]] = set()
    for launch in recipe.launches:
        parser = facts.reasoning_parser(launch, ctx.knowledge)
        if parser is None or (parser.span.line, parser.span.col) in seen:
            continue
        seen.add((parser.span.line, parser.span.col))
        flag = parser.origin.name if parser.origin.kind == "flag" else "reasoning_parser:"
        lines = recipe.lines
        no = parser.span.line
        line = lines[no - 1] if 0 < no <= len(lines) else ""
        prev = lines[no - 2] if 1 < no <= len(lines) else None
        yield RULE.hit(
            recipe.path,
            parser.span,
            f"{flag} {parser.text}",
            suggestion=drop_flag(line, flag, parser.text, prev),
            variant="multi_turn" if multi_turn else None,
            condition="multi-turn-evals" if multi_turn else None,
            flag=flag,
            parser=parser.text,
            model=model.get("name", recipe.model),
            agent=agent,
            when=clause_at(recipe.launches, parser.span.line),
        )
