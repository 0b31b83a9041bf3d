"""RCP000: the recipe could not be read completely."""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import WARNING, Example, Finding, Rule, Span, T
from bot.parse.recipe import Recipe

RULE = Rule(
    id="RCP000",
    slug="unparseable-recipe",
    severity=WARNING,
    target="recipe",
    title=T(en="Recipe could not be fully analysed", zh="配方脚本无法完整分析"),
    message=T(
        en="The script could not be fully analysed: bash syntax the parser cannot read, so "
        "values after it may be missed",
        zh="脚本无法完整分析：此处有解析器无法读取的 bash 语法，之后的取值可能缺失",
    ),
    # every problem the recipe parser reports, by name (see `_VARIANTS` below)
    variants={
        "too_large": T(
            en="The script is {size} bytes, over the {limit}-byte limit, and is not analysed",
            zh="脚本大小为 {size} 字节，超过 {limit} 字节的上限，未作分析",
        ),
        "syntax_unclosed": T(
            en="The script has a bash syntax error on line {line}: missing `{token}` to close the "
            "{construct} that starts here; values after it may be missed",
            zh="脚本第 {line} 行有 bash 语法错误：从此处开始的 `{construct}` 缺少闭合的 `{token}`，"
            "之后的取值可能缺失",
        ),
        "syntax_missing": T(
            en="The script has a bash syntax error on line {line}: missing `{token}` here; values "
            "after it may be missed",
            zh="脚本第 {line} 行有 bash 语法错误：此处缺少 `{token}`，之后的取值可能缺失",
        ),
        "syntax_unexpected": T(
            en="The script has a bash syntax error on line {line}: unexpected `{near}`; values "
            "after it may be missed",
            zh="脚本第 {line} 行有 bash 语法错误：出现了意外的 `{near}`，之后的取值可能缺失",
        ),
        "syntax": T(
            en="The script has a bash syntax error on line {line} that the parser cannot place; "
            "values after it may be missed",
            zh="脚本第 {line} 行有解析器无法定位的 bash 语法错误，之后的取值可能缺失",
        ),
        "unknown_role": T(
            en="Unknown role `{role}` in `{section}` (expected prefill, decode or aggregated); "
            "its settings were not analysed",
            zh="`{section}` 中的角色 `{role}` 未知（应为 prefill、decode 或 aggregated）；"
            "其设置未作分析",
        ),
        "no_section": T(
            en="There is no `{section}` section, so the engine launches are unknown",
            zh="缺少 `{section}` 部分，因此无法得知引擎的启动方式",
        ),
        "unknown_backend": T(
            en="Unknown backend type `{backend}`; no launch was analysed",
            zh="后端类型 `{backend}` 未知；未分析任何启动",
        ),
        "not_mapping": T(
            en="`{key}` is a {type}, not a mapping; its settings were not read",
            zh="`{key}` 是 {type}，不是映射；其设置未被读取",
        ),
        "not_string": T(
            en="`{key}` is a {type}, not a string; the variable was not read",
            zh="`{key}` 是 {type}，不是字符串；该变量未被读取",
        ),
        "no_roles": T(
            en="`{section}` names no prefill, decode or aggregated role; nothing to analyse",
            zh="`{section}` 没有 prefill、decode 或 aggregated 角色；没有可分析的内容",
        ),
        "empty": T(
            en="The recipe is empty; no launch was analysed",
            zh="配方为空；未分析任何启动",
        ),
        "binary": T(
            en="Not a text file: the file holds binary content and is not analysed",
            zh="不是文本文件：文件包含二进制内容，未作分析",
        ),
        "not_utf8": T(
            en="The script is not valid UTF-8 (or contains U+FFFD), so values on this line may "
            "be wrong",
            zh="脚本不是合法的 UTF-8（或包含 U+FFFD），此行的取值可能有误",
        ),
        "too_complex": T(
            en="The script is too complex to analyse fully; the analysis stopped early",
            zh="脚本过于复杂，无法完整分析；分析已提前停止",
        ),
        "too_deep": T(
            en="The script is nested too deeply to analyse",
            zh="脚本嵌套过深，无法分析",
        ),
        "too_many_paths": T(
            en="More than {limit} paths run through the script; some branches are not analysed",
            zh="脚本中的执行路径超过 {limit} 条；部分分支未作分析",
        ),
        "array_too_long": T(
            en="The array `{name}` grows past {limit} elements, so its value is not tracked",
            zh="数组 `{name}` 超过 {limit} 个元素，其取值不再跟踪",
        ),
        "eval": T(
            en="`eval` runs text the bot does not interpret, so values after it may be missed",
            zh="`eval` 执行的文本机器人不作解释，之后的取值可能缺失",
        ),
        "other": T(
            en="The script could not be fully analysed; the parser reports `{detail}`",
            zh="脚本无法完整分析；解析器报告 `{detail}`",
        ),
    },
    fix=T(
        en="Fix the bash syntax, or split unusual constructs out of the launch path",
        zh="修正 bash 语法，或将特殊写法移出服务启动路径",
    ),
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


# the recipe parser's problems (bot/parse/recipe.py, bot/parse/bash/) -> a variant and
# its value-only parameters; anything else is `other`, quoting the parser
_VARIANTS: tuple[tuple[str | None, re.Pattern[str]], ...] = (
    (None, re.compile(r"^bash syntax the parser cannot read")),
    (
        "syntax_unclosed",
        re.compile(
            r"^bash syntax error on line (?P<line>\d+): missing `(?P<token>[^`]+)` to close the "
            r"(?P<construct>[a-z ]+) that starts here"
        ),
    ),
    (
        "syntax_missing",
        re.compile(r"^bash syntax error on line (?P<line>\d+): missing `(?P<token>[^`]+)` here"),
    ),
    (
        "syntax_unexpected",
        re.compile(r"^bash syntax error on line (?P<line>\d+): unexpected `(?P<near>[^`]*)`;"),
    ),
    ("syntax", re.compile(r"^bash syntax error on line (?P<line>\d+):")),
    # multi-node recipes (bot/parse/srt_recipe.py)
    ("unknown_role", re.compile(r"^unknown role `(?P<role>[^`]+)` in `(?P<section>[^`]+)`")),
    ("no_section", re.compile(r"^no `(?P<section>[^`]+)` section")),
    ("unknown_backend", re.compile(r"^unknown backend type `(?P<backend>[^`]*)`")),
    (
        "not_mapping",
        re.compile(r"^`(?P<key>[^`]+)` is an? (?P<type>[\w ]+?), not a mapping(?!$| of roles)"),
    ),
    ("not_string", re.compile(r"^`(?P<key>[^`]+)` is an? (?P<type>[\w ]+?), not a string")),
    ("no_roles", re.compile(r"^`(?P<section>[^`]+)` names no prefill, decode or aggregated")),
    ("empty", re.compile(r"^recipe is empty")),
    (
        "too_large",
        re.compile(r"^script is (?P<size>[\d,]+) bytes, over the (?P<limit>[\d,]+)-byte"),
    ),
    ("not_utf8", re.compile(r"^script is not valid UTF-8")),
    ("too_complex", re.compile(r"^script too complex")),
    ("too_deep", re.compile(r"^script nested too deeply")),
    ("too_many_paths", re.compile(r"^more than (?P<limit>[\d,]+) paths through the script")),
    ("array_too_long", re.compile(r"^array `(?P<name>[^`]+)` grows past (?P<limit>[\d,]+)")),
    ("eval", re.compile(r"^`eval` runs text")),
)


def _variant(message: str) -> tuple[str | None, dict[str, str]]:
    for variant, rx in _VARIANTS:
        m = rx.match(message)
        if m:
            return variant, m.groupdict()
    return "other", {"detail": message.replace("`", "'")[:300]}


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    for problem in recipe.problems:
        variant: str | None
        params: dict[str, str]
        if problem.kind == "binary":
            variant, params = "binary", {}
        else:
            variant, params = _variant(problem.message)
        yield RULE.hit(recipe.path, Span(problem.line), problem.message, variant=variant, **params)
