"""RCP010: expert parallelism hardcoded instead of following `EP_SIZE`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, T
from bot.parse.recipe import Launch, Recipe

RULE = Rule(
    id="RCP010",
    slug="expert-parallel-not-conditional",
    severity=WARNING,
    conditions={
        "ep-size-flag": Condition(
            ERROR,
            T(
                en="a vLLM launch passes SGLang's `--expert-parallel-size`, which vLLM refuses",
                zh="vLLM 启动传入了 SGLang 的 `--expert-parallel-size`，vLLM 会拒绝启动",
            ),
        ),
    },
    target="recipe",
    title=T(
        en="Expert parallelism does not follow `EP_SIZE`",
        zh="专家并行未按 `EP_SIZE` 设置",
    ),
    message=T(
        en="`--enable-expert-parallel` is passed on every path; the config's `EP_SIZE` cannot turn it off",
        zh="`--enable-expert-parallel` 在所有路径上都会传入，配置中的 `EP_SIZE` 无法关闭它",
    ),
    fix=T(
        en='Pass `--enable-expert-parallel` only when `[ "$EP_SIZE" -gt 1 ]`',
        zh='仅在 `[ "$EP_SIZE" -gt 1 ]` 时传入 `--enable-expert-parallel`',
    ),
    variants={
        "ep_size_flag": T(
            en="`--expert-parallel-size {value}` is an SGLang flag; vLLM does not accept it",
            zh="`--expert-parallel-size {value}` 是 SGLang 的参数，vLLM 不接受",
        ),
    },
    variant_fixes={
        "ep_size_flag": T(
            en="Drop `--expert-parallel-size`; vLLM derives the EP size (pass `--enable-expert-parallel` when `EP_SIZE` > 1)",
            zh="删除 `--expert-parallel-size`；vLLM 会自动确定 EP 大小（`EP_SIZE` > 1 时传入 `--enable-expert-parallel`）",
        ),
    },
    rationale=T(
        en=(
            "The master config's search space decides expert parallelism per point (`ep`), and "
            "the runner passes it to the recipe as `EP_SIZE`. vLLM and ATOM take a boolean "
            "`--enable-expert-parallel` (the EP size follows from TP and DP), SGLang an explicit "
            "`--expert-parallel-size N`. A vLLM or ATOM recipe that always passes "
            "`--enable-expert-parallel` runs EP on points configured without it, and "
            "`--expert-parallel-size` makes vLLM refuse to start. InferenceX's own reviewer "
            "prompt (`.github/workflows/claude-pr-review.yml`, Expert Parallelism) states both "
            "checks: a hardcoded `--enable-expert-parallel` is a warning there (a point "
            "configured with `ep` > 1 on every path runs as intended), a flag vLLM refuses "
            "an error. A launch whose flag appears only on some paths is taken to be conditional."
        ),
        zh=(
            "主配置的搜索空间按配置点决定专家并行（`ep`），runner 以 `EP_SIZE` 传给配方。vLLM 与 ATOM 使用"
            "布尔参数 `--enable-expert-parallel`（EP 大小由 TP 与 DP 决定），SGLang 使用显式的 "
            "`--expert-parallel-size N`。总是传入 `--enable-expert-parallel` 的 vLLM 或 ATOM 配方会在未配置 EP "
            "的配置点上也启用 EP；`--expert-parallel-size` 会让 vLLM 无法启动。InferenceX 自己的审查提示"
            "（`.github/workflows/claude-pr-review.yml` 的 Expert Parallelism 一节）规定了这两项检查；"
            "在那里硬编码 `--enable-expert-parallel` 属于警告（每条路径都配置 `ep` > 1 的配置点照常运行），"
            "vLLM 拒绝的参数属于错误。只在部分路径上出现该参数的启动视为有条件启用。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'vllm serve "$MODEL" --tensor-parallel-size "$TP" \\\n'
                "    --enable-expert-parallel &  # [RCP010]\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh",
            note="SGLang's flag on vLLM",
            text=(
                "#!/usr/bin/env bash\n"
                'vllm serve "$MODEL" --tensor-parallel-size "$TP" \\\n'
                '    --expert-parallel-size "$EP_SIZE" &  # [RCP010]\n'
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_vllm.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'EP=""\n'
                'if [ "$EP_SIZE" -gt 1 ]; then\n'
                '    EP=" --enable-expert-parallel"\n'
                "fi\n"
                'vllm serve "$MODEL" --tensor-parallel-size "$TP" $EP &\n'
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp4_b300_sglang.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'python3 -m sglang.launch_server --model-path "$MODEL" --expert-parallel-size "$EP_SIZE" &\n'
            ),
        ),
    ),
)

_ENGINES = ("vllm", "atom")


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if recipe.multi_node or "multi_node" in recipe.path.split("/"):
        return  # multi-node recipes and launchers set EP per role, not from EP_SIZE
    by_line: dict[int, list[Launch]] = defaultdict(list)
    for launch in recipe.launches:
        if launch.engine in _ENGINES:
            by_line[launch.span.line].append(launch)
    seen: set[tuple[int, int]] = set()
    for launches in by_line.values():
        flags = [la.flag("--enable-expert-parallel") for la in launches]
        if flags and all(f is not None for f in flags):
            f = flags[0]
            assert f is not None
            if (f.span.line, f.span.col) not in seen:
                seen.add((f.span.line, f.span.col))
                yield RULE.hit(recipe.path, f.span, "--enable-expert-parallel")
        for la in launches:
            if la.engine != "vllm":
                continue
            eps = la.flag("--expert-parallel-size")
            if eps is not None and (eps.span.line, eps.span.col) not in seen:
                seen.add((eps.span.line, eps.span.col))
                yield RULE.hit(
                    recipe.path,
                    eps.span,
                    "--expert-parallel-size",
                    variant="ep_size_flag",
                    condition="ep-size-flag",
                    value=eps.value.text if eps.value else "",
                )
