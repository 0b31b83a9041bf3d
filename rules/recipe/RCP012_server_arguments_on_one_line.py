"""RCP012: several server arguments written on one line of an SGLang/vLLM launch."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import INFO, WARNING, Condition, Example, Finding, Rule, Span, T
from bot.parse.recipe import Launch, Recipe

# the reviewer prompt's section InferenceX #647 added: a base that has it is one the style
# rule is in force in (`knowledge.practices.server-args-style`)
_STYLE = {".github/workflows/claude-pr-review.yml": "## Benchmark Script Code Style Guidelines:\n"}

RULE = Rule(
    id="RCP012",
    slug="server-arguments-on-one-line",
    severity=WARNING,
    # the style rule arrived with InferenceX #647 in the reviewer prompt
    # (`knowledge.practices.server-args-style`)
    practice="server-args-style",
    conditions={
        "preexisting": Condition(
            INFO,
            T(
                en="the change does not touch the launch command (it predates the PR, or a "
                "whole tree is linted)",
                zh="本次变更未改动该启动命令（早于本 PR，或检查的是整棵树）",
            ),
        ),
    },
    target="recipe",
    title=T(
        en="Server arguments not one per line",
        zh="服务器参数未逐行书写",
    ),
    message=T(
        en="{count} server arguments share this line of the `{engine}` launch",
        zh="`{engine}` 启动命令的这一行写了 {count} 个服务器参数",
    ),
    fix=T(
        en="Put each argument of the server command on its own line, ending lines with ` \\`",
        zh="服务器命令的每个参数各占一行，行尾用 ` \\` 续行",
    ),
    rationale=T(
        en=(
            "InferenceX's own reviewer prompt (`.github/workflows/claude-pr-review.yml`, "
            "Benchmark Script Code Style Guidelines) asks that every `sglang.launch_server` and "
            "`vllm serve` command have its arguments on separate lines, so that a diff shows "
            "each changed setting on its own line and a reviewer can read it. A flag and its "
            "value are one argument; flags that arrive through a variable are counted where the "
            "variable is expanded, not where it is set. The repository's reviewer words it as a "
            "warning; a command the change does not touch is reported for information only."
        ),
        zh=(
            "InferenceX 自己的审查提示（`.github/workflows/claude-pr-review.yml` 的 Benchmark Script "
            "Code Style Guidelines 一节）要求每条 `sglang.launch_server` 与 `vllm serve` 命令的参数分行"
            "书写，这样 diff 中每个改动的设置各占一行，便于审查。参数名与其取值算一个参数；经变量传入的"
            "参数按变量展开处计，不按赋值处计。该仓库的审查将其定为警告；本次变更未改动的命令只作提示。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh",
            base=_STYLE,  # the PR adds the recipe: it writes the command
            files=_STYLE,
            text=(
                "#!/usr/bin/env bash\n"
                "python3 -m sglang.launch_server --model-path $MODEL --tp $TP --port $PORT &"
                "  # [RCP012]\n"
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh",
            text=(
                "#!/usr/bin/env bash\n"
                "python3 -m sglang.launch_server \\\n"
                "    --model-path $MODEL \\\n"
                "    --tp $TP \\\n"
                "    --port $PORT &\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200_vllm.sh",
            note="the model and one flag on the command's line",
            text=(
                "#!/usr/bin/env bash\n"
                'vllm serve "$MODEL" --port $PORT \\\n'
                "    --tensor-parallel-size $TP &\n"
            ),
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh",
            base={},
            note="a base from before the style rule (InferenceX #647)",
            text=(
                "#!/usr/bin/env bash\n"
                "python3 -m sglang.launch_server --model-path $MODEL --tp $TP --port $PORT &\n"
            ),
        ),
    ),
)

_ENGINES = ("sglang", "vllm")


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if recipe.path.endswith((".yaml", ".yml")):
        return  # srt-slurm recipes write one key per line by construction
    seen: set[int] = set()
    for launch in recipe.launches:
        if launch.engine not in _ENGINES:
            continue
        crowded = _crowded_line(launch)
        if crowded is None or crowded[0] in seen:
            continue
        line, count = crowded
        seen.add(line)
        span = launch.span
        touched = ctx.change is not None and ctx.change.touches_line(
            recipe.path, span.line, span.last_line
        )
        yield RULE.hit(
            recipe.path,
            Span(line),
            f"{launch.engine} line {line}",
            condition=None if touched else "preexisting",
            engine=launch.engine,
            count=count,
        )


def _crowded_line(launch: Launch) -> tuple[int, int] | None:
    """The first line of the launch command with two or more flags written on it."""
    first, last = launch.span.line, launch.span.last_line
    places = {
        (f.span.line, f.span.col)
        for flags in launch.flags.values()
        for f in flags
        if first <= f.span.line <= last
    }
    per_line = Counter(line for line, _ in places)
    crowded = sorted(line for line, n in per_line.items() if n >= 2)
    return (crowded[0], per_line[crowded[0]]) if crowded else None
