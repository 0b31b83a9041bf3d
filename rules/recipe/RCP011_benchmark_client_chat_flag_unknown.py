"""RCP011: a benchmark client is given another client's chat-template flag."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Join, Rule, T, part
from bot.parse import commands
from bot.parse.recipe import Recipe, Run

RULE = Rule(
    id="RCP011",
    slug="benchmark-client-chat-flag-unknown",
    severity=ERROR,
    target="recipe",
    title=T(
        en="Benchmark client given a chat-template flag it does not know",
        zh="基准测试客户端收到了它不认识的 chat 模板参数",
    ),
    message=T(
        en="`{client}` does not take `{flag}`; its chat-template flag is {expected}",
        zh="`{client}` 不接受 `{flag}`；它的 chat 模板参数是 {expected}",
    ),
    variants={"none": T(en="none", zh="无")},
    fix=T(en="Replace `{flag}` with {expected}", zh="将 `{flag}` 换成 {expected}"),
    rationale=T(
        en=(
            "Each benchmark client spells the chat-template switch its own way: "
            "`run_benchmark_serving` (benchmarks/benchmark_lib.sh) and "
            "`utils/bench_serving/benchmark_serving.py` take `--use-chat-template`, SGLang's "
            "`sglang.bench_serving` and the agentic replay take `--apply-chat-template`. Another "
            "client's flag is rejected (the run fails) or ignored (prompts go out raw, which "
            "spec-decode acceptance depends on). InferenceX's reviewer prompt requires the "
            "client's chat-template flag on speculative-decoding recipes; RCP009 checks that "
            "one is given, this rule that it is the client's own. The flags each client takes "
            "are data (`knowledge.benchmark_client.client_chat_flags`); a helper that runs a "
            "command line kept in a variable (`run_agentic_replay_and_write_outputs` runs "
            "`REPLAY_CMD`) is read through `knowledge.recipe_helpers.command_runners`."
        ),
        zh=(
            "每个基准测试客户端的 chat 模板开关写法不同：`run_benchmark_serving`（benchmarks/benchmark_lib.sh）"
            "与 `utils/bench_serving/benchmark_serving.py` 使用 `--use-chat-template`，SGLang 的 "
            "`sglang.bench_serving` 与智能体回放使用 `--apply-chat-template`。传入其他客户端的参数会被拒绝"
            "（测试失败）或被忽略（提示词按原样发送，而投机解码的接受率依赖于此）。InferenceX 的审查提示要求"
            "投机解码配方为客户端传入 chat 模板参数；RCP009 检查是否传入，本规则检查是否为该客户端自己的参数。"
            "各客户端接受的参数由数据 `knowledge.benchmark_client.client_chat_flags` 决定；"
            "运行变量中命令行的辅助函数（`run_agentic_replay_and_write_outputs` 运行 `REPLAY_CMD`）"
            "通过 `knowledge.recipe_helpers.command_runners` 读取。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "python3 -m sglang.launch_server --speculative-algorithm EAGLE &\n"
                'run_benchmark_serving --model "$MODEL" --port "$PORT" \\\n'
                "    --apply-chat-template  # [RCP011]\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_mi325x_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "python3 -m sglang.launch_server --speculative-algorithm EAGLE &\n"
                'build_replay_cmd "$RESULT_DIR"\n'
                'REPLAY_CMD+=" --use-chat-template"  # [RCP011]\n'
                'run_agentic_replay_and_write_outputs "$RESULT_DIR"\n'
            ),
            note="the replay helper runs REPLAY_CMD (recipe_helpers.command_runners)",
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "python3 -m sglang.launch_server --speculative-algorithm EAGLE &\n"
                'run_benchmark_serving --model "$MODEL" --port "$PORT" --use-chat-template\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_mi325x_mtp.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "python3 -m sglang.launch_server --speculative-algorithm EAGLE &\n"
                'build_replay_cmd "$RESULT_DIR"\n'
                'REPLAY_CMD+=" --apply-chat-template"\n'
                'run_agentic_replay_and_write_outputs "$RESULT_DIR"\n'
            ),
        ),
    ),
)


def _runner_client(run: Run, ctx: RuleContext) -> str | None:
    """The client a runner helper runs (`recipe_helpers.command_runners`), when `run`
    calls one."""
    runner = ctx.knowledge.recipe_helpers.command_runners.get(run.name)
    return runner.client if runner is not None else None


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    table = ctx.knowledge.benchmark_client
    accepted = table.client_chat_flags
    chat_flags = table.chat_flags
    if not accepted or not chat_flags:
        return
    seen: set[tuple[int, int]] = set()
    for run in recipe.commands:
        words: tuple[Any, ...]
        found = commands.client(run.words, accepted)
        if found is not None:
            client, start = found
            words = run.words[start:]
        else:
            # a helper that runs the command line a variable holds (REPLAY_CMD)
            runner = _runner_client(run, ctx) if run.runs else None
            if runner is None or runner not in accepted:
                continue
            client, words = runner, run.runs
        own = accepted.get(client, ())
        for word in words:
            text = word.text.split("=", 1)[0]
            if not word.known or text not in chat_flags or text in own:
                continue
            span = word.span or run.span
            if (span.line, span.col) in seen:
                continue
            seen.add((span.line, span.col))
            expected = Join(tuple(f"`{f}`" for f in own), "or") if own else part("none")
            yield RULE.hit(
                recipe.path,
                span,
                f"{client} {text}",
                client=client,
                flag=text,
                expected=expected,
                # the client's chat-template flags as knowledge lists them, where the base has them
                practice=f"client-chat-flags:{client}",
            )
