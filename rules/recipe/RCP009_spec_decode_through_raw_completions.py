"""RCP009: a speculative-decoding recipe is benchmarked through raw completions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from bot.base.knowledge import BenchmarkClient
from bot.core.conditions import CLAUSES
from bot.core.conditions import when as when_clause
from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Part, Rule, T, part
from bot.parse import argv, commands, facts
from bot.parse.recipe import Recipe, Run
from bot.parse.values import Str

_SERVE = (
    "#!/usr/bin/env bash\n"
    'python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE \\\n'
    "    --speculative-num-steps 3 --speculative-eagle-topk 1 &\n"
)

_SRT_PATH = (
    "benchmarks/multi_node/srt-slurm-recipes/trtllm/qwen3.5/gb300-fp4/disagg/8k1k/mtp/"
    "ctx1dep2_gen4tp16_mtp3_c4.yaml"
)


def _srt_recipe(chat: str) -> str:
    """A TensorRT-LLM MTP recipe of the shape InferenceX #2218 merged."""
    return (
        "name: ctx1dep2_gen4tp16_mtp3_c4\n"
        "model: {path: qwen3.5-fp4, container: nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc18, "
        "precision: fp4}\n"
        "resources: {gpu_type: gb300, gpus_per_node: 4, prefill_workers: 1, decode_workers: 4}\n"
        "backend:\n"
        "  type: trtllm\n"
        "  trtllm_config:\n"
        "    prefill:\n"
        "      tensor_parallel_size: 2\n"
        "      speculative_config: {decoding_type: MTP, max_draft_len: 3}\n"
        "    decode:\n"
        "      tensor_parallel_size: 16\n"
        "      speculative_config: {decoding_type: MTP, max_draft_len: 3}\n"
        "frontend:\n"
        "  type: dynamo\n"
        "benchmark:\n"
        '  type: "sa-bench"\n'
        "  isl: 8192\n"
        "  osl: 1024\n"
        '  concurrencies: "4"\n'
        f"{chat}"
    )


RULE = Rule(
    id="RCP009",
    slug="spec-decode-through-raw-completions",
    severity=ERROR,
    target="recipe",
    title=T(
        en="Speculative decoding benchmarked through raw completions",
        zh="投机解码以原始 completions 方式测试",
    ),
    message=T(
        en=(
            "`{client}` sends prompts without a chat template (no chat flag) to a server running "
            "{method}, so the measured acceptance length is not what chat "
            "traffic gets{when}"
        ),
        zh=(
            "`{client}` 向运行{method}的服务发送未套用聊天模板的提示词（没有 chat 参数），"
            "测得的接受长度与真实对话流量不符{when}"
        ),
    ),
    variants={
        **CLAUSES,
        # what the server runs: the method as the launch writes it, or none it names (an
        # input's default spells it: `${VLLM_SPEC_CONFIG:-{...}}`)
        "method": T(en="`{method}` speculative decoding", zh=" `{method}` 投机解码"),
        "unnamed-method": T(en="speculative decoding", zh="投机解码"),
        "backend": T(
            en=(
                "`{client}` sends prompts without a chat template (`{value}` backend) to a server "
                "running {method}, so the measured acceptance length is not "
                "what chat traffic gets{when}"
            ),
            zh=(
                "`{client}` 向运行{method}的服务发送未套用聊天模板的提示词"
                "（`{value}` 后端），测得的接受长度与真实对话流量不符{when}"
            ),
        ),
        "endpoint": T(
            en=(
                "`{client}` sends prompts without a chat template (`{value}` endpoint) to a server "
                "running {method}, so the measured acceptance length is not "
                "what chat traffic gets{when}"
            ),
            zh=(
                "`{client}` 向运行{method}的服务发送未套用聊天模板的提示词"
                "（`{value}` 端点），测得的接受长度与真实对话流量不符{when}"
            ),
        ),
        "setting": T(
            en=(
                "`{client}` sends prompts without a chat template (`{value}` in `benchmark`) to "
                "servers running {method}, so the measured acceptance "
                "length is not what chat traffic gets{when}"
            ),
            zh=(
                "`{client}` 向运行{method}的服务发送未套用聊天模板的提示词"
                "（`benchmark` 中的 `{value}`），测得的接受长度与真实对话流量不符{when}"
            ),
        ),
    },
    fix=T(en="Add `{flag}` to `{client}`", zh="为 `{client}` 加上 `{flag}`"),
    variant_fixes={
        "setting": T(
            en="Set `{flag}` in the `benchmark` block", zh="在 `benchmark` 块中设置 `{flag}`"
        ),
    },
    rationale=T(
        en=(
            "Draft heads (EAGLE, MTP, DSpark) are trained on chat-formatted text. On raw random "
            "tokens sent to `/v1/completions` their acceptance silently drops, so the benchmark "
            "measures a different acceptance-length distribution than production traffic. The "
            "review checklist requires speculative-decoding PRs to benchmark through chat "
            "templates, and InferenceX's AGENTS.md requires every `*_mtp.sh` to pass "
            "`--use-chat-template` to `run_benchmark_serving` (InferenceX #1554 and #1555 added "
            "it where it was missing). The rule finds the throughput benchmark the recipe runs "
            "(`run_benchmark_serving`, `benchmark_serving.py`, `sglang.bench_serving`, "
            "`vllm bench serve`, `aiperf`; `knowledge.benchmark_client`) and reports it on a "
            "speculative-decoding recipe when no chat flag (`--use-chat-template`, "
            "`--apply-chat-template`, `--dsv4`) and no chat backend or endpoint "
            "(`--backend openai-chat`, `--endpoint-type chat`, `/v1/chat/completions`) and no "
            "dataset the client renders through the chat template (vLLM's `speed_bench`) "
            "reaches it on any path. Agentic trace replay goes through `build_replay_cmd`, which always "
            "uses `--endpoint-type chat`. Arguments the bot cannot resolve (an array from the "
            "environment) keep it silent, and so does the EVAL_ONLY arm, which runs no throughput "
            "benchmark. A multi-node (srt-slurm) recipe names its client in its `benchmark` block: "
            "`sa-bench` applies the chat template unless the block sets `use_chat_template: false` "
            "(srt-slurm's default is true; `knowledge.benchmark_client.srt_benchmarks`), so the "
            "rule reports that setting on a speculative-decoding recipe; the eval twin "
            "(`...-eval-...`) runs no throughput benchmark."
        ),
        zh=(
            "草稿头（EAGLE、MTP、DSpark）是在对话格式文本上训练的。对发往 `/v1/completions` 的原始随机 "
            "token，其接受率会悄然下降，基准测得的接受长度分布与生产流量不同。审查清单要求投机解码 PR 通过 "
            "chat template 进行基准测试，InferenceX 的 AGENTS.md 要求每个 `*_mtp.sh` 都向 "
            "`run_benchmark_serving` 传入 `--use-chat-template`（InferenceX #1554 与 #1555 为缺少它的配方"
            "补上了）。本规则找到配方运行的吞吐基准客户端（`run_benchmark_serving`、"
            "`benchmark_serving.py`、`sglang.bench_serving`、`vllm bench serve`、`aiperf`；"
            "`knowledge.benchmark_client`），若投机解码配方在所有路径上都没有给它 chat 参数"
            "（`--use-chat-template`、`--apply-chat-template`、`--dsv4`），也没有使用 chat 后端或端点"
            "（`--backend openai-chat`、`--endpoint-type chat`、`/v1/chat/completions`），也没有使用由客户端套用 "
            "chat template 的数据集（vLLM 的 `speed_bench`），则报告问题。"
            "智能体轨迹回放经由 `build_replay_cmd`，它始终使用 `--endpoint-type chat`。机器人无法解析的"
            "参数（来自环境的数组）以及不运行吞吐基准的 EVAL_ONLY 分支不会触发本规则。多节点（srt-slurm）配方在 "
            "`benchmark` 块中指定客户端：`sa-bench` 会套用聊天模板，除非该块设置了 "
            "`use_chat_template: false`（srt-slurm 的默认值为 true；见 "
            "`knowledge.benchmark_client.srt_benchmarks`），因此本规则在投机解码配方上报告该设置；"
            "评测配方（`...-eval-...`）不运行吞吐基准。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x_mtp.sh",
            note="the MTP recipe InferenceX #1554 fixed",
            text=(
                _SERVE + 'run_benchmark_serving --model "$MODEL" --port "$PORT" --backend vllm '
                '--input-len "$ISL" --output-len "$OSL"  # [RCP009]\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h200_mtp.sh",
            note="vLLM's own client on the completions backend, chosen through a variable",
            text=(
                "#!/usr/bin/env bash\n"
                'SPEC=\'{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", '
                '"num_speculative_tokens": 3}\'\n'
                'vllm serve "$MODEL" --speculative-config "$SPEC" &\n'
                "BACKEND=openai\n"
                'vllm bench serve --backend "$BACKEND" --dataset-name random  # [RCP009]\n'
            ),
        ),
        Example(
            path=_SRT_PATH,
            note="a multi-node MTP recipe that turns sa-bench's chat template off",
            text=_srt_recipe("  use_chat_template: false  # [RCP009]\n"),
        ),
    ),
    good=(
        Example(
            path=_SRT_PATH,
            note="sa-bench applies the chat template unless told otherwise (srt-slurm's default)",
            text=_srt_recipe(""),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x_mtp.sh",
            text=(
                _SERVE + "run_benchmark_serving \\\n"
                '    --model "$MODEL" --port "$PORT" --backend vllm \\\n'
                '    --input-len "$ISL" --output-len "$OSL" --random-range-ratio 0.8 \\\n'
                '    --num-prompts "$((CONC * 10))" --max-concurrency "$CONC" \\\n'
                '    --result-filename "$RESULT_FILENAME" --result-dir /workspace/ \\\n'
                "    --use-chat-template\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsv4_fp4_b300_sglang_mtp.sh",
            note="--dsv4 implies the chat template; flags may come through an array",
            text=(
                _SERVE + "BENCH_ARGS=(--trust-remote-code --dsv4)\n"
                'run_benchmark_serving --model "$MODEL" --port "$PORT" --backend vllm \\\n'
                '    --input-len "$ISL" --output-len "$OSL" "${BENCH_ARGS[@]}"\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh",
            note="agentic trace replay always uses the chat endpoint",
            text=(
                _SERVE + 'if [ "$EVAL_ONLY" = "true" ]; then\n'
                '    run_eval --port "$PORT"\n'
                "else\n"
                '    build_replay_cmd "$RESULT_DIR"\n'
                '    run_agentic_replay_and_write_outputs "$RESULT_DIR"\n'
                "fi\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200.sh",
            note="no speculative decoding: raw completions are fine",
            text=(
                "#!/usr/bin/env bash\n"
                'python3 -m sglang.launch_server --model-path "$MODEL" &\n'
                'run_benchmark_serving --model "$MODEL" --port "$PORT" --backend vllm\n'
            ),
        ),
    ),
)


def _spec(recipe: Recipe, ctx: RuleContext) -> str | None:
    """The speculative-decoding method served (as written), or None."""
    for launch in recipe.launches:
        if launch.eval_only is True:
            continue
        s = facts.spec(launch, ctx.knowledge)
        if s is not None:
            return s.raw_method or s.method or ""
    return "MTP" if recipe.mtp else None


def _last(args: argv.Args, *names: str) -> tuple[bool, Str | None]:
    """(given, value) of the last occurrence of a flag."""
    found = [o for o in args.opts if o.name in names]
    return (True, found[-1].value) if found else (False, None)


def _verdict(run: Run, client: str, start: int, table: BenchmarkClient) -> tuple[bool, str] | None:
    """(chat-templated, how it was decided), or None when the arguments are not resolved."""
    words = run.words[start:]
    chat_flags = table.chat_flags
    for w in words:
        if w.known and w.text in chat_flags:
            return True, w.text
    client_spec = argv.spec_for("benchmark-client")
    args = argv.parse(words, replace(client_spec, bools=client_spec.bools | chat_flags))
    # an unresolved word that is not a flag's value may be a chat flag, and so may a
    # flag whose name is unresolved (`--$FLAG=1`)
    if any(not w.known for w in args.positionals) or any(
        any(s.unknown for s in args.words[o.index].segs_in(0, len(o.written))) for o in args.opts
    ):
        return None
    _, dataset = _last(args, "--dataset-name")
    if dataset is not None and dataset.text in table.chat_datasets:
        return True, dataset.text
    endpoints = table.chat_endpoints
    ep_given, endpoint = _last(args, "--endpoint")
    if ep_given and (endpoint is None or not endpoint.known):
        return None
    if endpoint is not None and endpoint.text in endpoints:
        return True, endpoint.text
    given, backend = _last(args, "--backend", "--endpoint-type")
    if given:
        if backend is None or not backend.known:
            return None
        if backend.text in table.chat_backends:
            return True, backend.text
        return False, f"`{backend.text}` backend"
    if ep_given and endpoint is not None:
        return False, f"`{endpoint.text}` endpoint"
    if client in table.chat_by_default:
        return True, "default"
    return False, ""


def _served(method: str) -> Part:
    return part("method", method=method) if method else part("unnamed-method")


def _multi_node(recipe: Recipe, table: BenchmarkClient, method: str) -> Iterator[Finding]:
    """The `benchmark` block of a multi-node recipe: a client that turns its chat template
    off (or leaves a default that is off)."""
    for block in recipe.clients:
        entry = table.srt_benchmarks.get(block.type or "")
        if block.eval_only or entry is None:
            continue
        key = entry.chat_key
        setting = block.settings.get(key)
        on = entry.default if setting is None else _truthy(setting.value)
        if on is not False:
            continue
        yield RULE.hit(
            recipe.path,
            setting.span if setting is not None else block.span,
            f"{block.type} {key} off",
            client=block.type,
            method=_served(method),
            variant="setting" if setting is not None else None,
            value=f"{key}: {setting.text}" if setting is not None else "",
            flag=f"{key}: true",
            when="",
        )


def _truthy(value: Any) -> bool | None:
    """A YAML switch as srt-slurm reads it (None: not a boolean)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in ("true", "yes", "on", "1") else False if text in _OFF else None


_OFF = ("false", "no", "off", "0")


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    table = ctx.knowledge.benchmark_client
    if recipe.multi_node:
        spec = _spec(recipe, ctx)
        if spec is not None:
            yield from _multi_node(recipe, table, spec)
        return
    if not recipe.commands:
        return
    clients = table.commands
    if not clients:
        return
    spec = _spec(recipe, ctx)
    if spec is None:
        return
    method = spec
    by_line: dict[int, list[tuple[Run, str, tuple[bool, str] | None]]] = {}
    for run in recipe.commands:
        if run.eval_only is True:
            continue
        found = commands.client(run.words, clients)
        if found is None:
            continue
        client, start = found
        by_line.setdefault(run.span.line, []).append(
            (run, client, _verdict(run, client, start, table))
        )
    for items in by_line.values():
        if not all(v is not None and v[0] is False for _, _, v in items):
            continue
        run, client, verdict = items[0]
        how = verdict[1] if verdict is not None else ""
        variant = next((v for v in ("backend", "endpoint") if how.endswith(f"` {v}")), None)
        value = how.split("`")[1] if variant is not None and how.count("`") >= 2 else ""
        yield RULE.hit(
            recipe.path,
            run.span,
            f"{client} raw completions",
            client=client,
            method=_served(method),
            variant=variant,
            value=value,
            flag=str(clients.get(client, "--use-chat-template")),
            when=when_clause(run.assumptions),
            # the client's chat-template flag as knowledge names it, where the base has it
            practice=f"client-chat-flags:{client}",
        )
