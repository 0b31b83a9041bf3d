"""RCP000: the recipe could not be read completely."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.engine import Context
from bot.core.model import WARNING, Example, Finding, Rule, Span, T
from bot.parse.recipe import Recipe

RULE = Rule(
    id="RCP000",
    slug="unparseable-recipe",
    severity=WARNING,
    target="recipe",
    title=T(en="Recipe could not be fully analysed", zh="配方脚本无法完整分析"),
    message=T(
        en="The script could not be fully analysed: {problem}",
        zh="脚本无法完整分析：{problem}",
    ),
    fix=T(
        en="Fix the bash syntax, or split unusual constructs out of the launch path",
        zh="修正 bash 语法，或将特殊写法移出服务启动路径",
    ),
    variants={
        "binary": T(
            en="Not a text file: {problem}",
            zh="不是文本文件：{problem}",
        ),
    },
    variant_fixes={
        "binary": T(
            en="Commit the recipe as a UTF-8 bash script, or move this file out of the recipe paths",
            zh="将配方提交为 UTF-8 编码的 bash 脚本，或将此文件移出配方路径",
        ),
    },
    rationale=T(
        en=(
            "Every other recipe rule reads the launch command the bot resolves from the script. "
            "When part of the script cannot be parsed, or the script is too large or too branchy "
            "to analyse, values after that point may be missed, so the other rules can stay silent "
            "on a real defect. The bot says so instead of guessing."
        ),
        zh=(
            "其他配方规则都依赖从脚本中解析出的启动命令。脚本某处无法解析，或脚本过大、分支过多时，"
            "该处之后的取值可能缺失，其他规则可能因此漏报。机器人会明确指出这一点，而不是猜测。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'if [ "$EVAL_ONLY" = "true" ; then  # [RCP000]\n'
                '  vllm serve "$MODEL" --gpu-memory-utilization 0.9\n'
                "fi\n"
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh",
            text=(
                "#!/usr/bin/env bash\n"
                'if [ "$EVAL_ONLY" = "true" ]; then\n'
                '  vllm serve "$MODEL" --gpu-memory-utilization 0.9\n'
                "fi\n"
            ),
        ),
    ),
)


def check(recipe: Recipe, ctx: Context) -> Iterator[Finding]:
    for problem in recipe.problems:
        yield RULE.hit(
            recipe.path,
            Span(problem.line),
            problem.message,
            variant="binary" if problem.kind == "binary" else None,
            problem=problem.message,
        )
