"""RCP000: the recipe could not be read completely."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, Span, T
from bot.core.problems import brought_by_change
from bot.parse.recipe import Recipe, RecipeProblem

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
    # every problem the recipe parsers report, by kind (`bot.parse.recipe.RecipeProblemKind`)
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
        "syntax_end": T(
            en="The script has a bash syntax error on line {line}: it ends inside a construct "
            "that is never closed; values after it may be missed",
            zh="脚本第 {line} 行有 bash 语法错误：脚本在未闭合的结构中结束，之后的取值可能缺失",
        ),
        "syntax": T(
            en="The script has a bash syntax error on line {line} that the parser cannot place; "
            "values after it may be missed",
            zh="脚本第 {line} 行有解析器无法定位的 bash 语法错误，之后的取值可能缺失",
        ),
        "binary": T(
            en="Not a text file: the file holds binary content and is not analysed",
            zh="不是文本文件：文件包含二进制内容，未作分析",
        ),
        "not_utf8": T(
            en="The file is not valid UTF-8 (or contains U+FFFD), so values on this line may "
            "be wrong",
            zh="文件不是合法的 UTF-8（或包含 U+FFFD），此行的取值可能有误",
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
        "engine_yaml": T(
            en="The engine YAML this script writes cannot be read (`{detail}`); its settings "
            "were not analysed",
            zh="脚本写出的引擎 YAML 无法读取（`{detail}`）；其设置未作分析",
        ),
        # YAML recipes (multi-node) and model tables
        "yaml": T(
            en="The file is not valid YAML; the YAML parser reports `{detail}`; no launch was "
            "analysed",
            zh="文件不是合法的 YAML；YAML 解析器报告 `{detail}`；未分析任何启动",
        ),
        "yaml_unreadable": T(
            en="The YAML reader failed on the file (`{detail}`); no launch was analysed",
            zh="YAML 读取器无法读取该文件（`{detail}`）；未分析任何启动",
        ),
        "yaml_too_large": T(
            en="The file is {size} characters, over the {limit}-character limit, and is not "
            "analysed",
            zh="文件共 {size} 个字符，超过 {limit} 个字符的上限，未作分析",
        ),
        "yaml_too_many_nodes": T(
            en="The file has more than {limit} YAML nodes (or expands past them through "
            "aliases) and is not analysed",
            zh="文件的 YAML 节点数超过 {limit}（或经别名展开后超过），未作分析",
        ),
        "yaml_too_deep": T(
            en="The file nests deeper than {limit} levels and is not analysed",
            zh="文件嵌套层数超过 {limit}，未作分析",
        ),
        "crashed": T(
            en="The recipe parser failed on this file (`{error}`); nothing was analysed",
            zh="配方解析器处理此文件时出错（`{error}`）；未作任何分析",
        ),
        "empty": T(
            en="The recipe is empty; no launch was analysed",
            zh="配方为空；未分析任何启动",
        ),
        "recipe_not_mapping": T(
            en="The recipe is a {type}, not a mapping; no launch was analysed",
            zh="配方是 {type}，不是映射；未分析任何启动",
        ),
        "not_mapping": T(
            en="`{key}` is a {type}, not a mapping; its settings were not read",
            zh="`{key}` 是 {type}，不是映射；其设置未被读取",
        ),
        "not_string": T(
            en="`{key}` is a {type}, not a string; the variable was not read",
            zh="`{key}` 是 {type}，不是字符串；该变量未被读取",
        ),
        "no_section": T(
            en="There is no `{section}` section, so the engine launches are unknown",
            zh="缺少 `{section}` 部分，因此无法得知引擎的启动方式",
        ),
        "unknown_backend": T(
            en="Unknown backend type `{backend}`; no launch was analysed",
            zh="后端类型 `{backend}` 未知；未分析任何启动",
        ),
        "roles_not_mapping": T(
            en="`{section}` is a {type}, not a mapping of roles; no launch was analysed",
            zh="`{section}` 是 {type}，不是角色映射；未分析任何启动",
        ),
        "unknown_role": T(
            en="Unknown role `{role}` in `{section}` (expected prefill, decode or aggregated); "
            "its settings were not analysed",
            zh="`{section}` 中的角色 `{role}` 未知（应为 prefill、decode 或 aggregated）；"
            "其设置未作分析",
        ),
        "no_roles": T(
            en="`{section}` names no prefill, decode or aggregated role; nothing to analyse",
            zh="`{section}` 没有 prefill、decode 或 aggregated 角色；没有可分析的内容",
        ),
        "table_not_mapping": T(
            en="The model table is not a mapping of models; no launch was analysed",
            zh="模型表不是模型的映射；未分析任何启动",
        ),
        "table_engine_unknown": T(
            en="The file name does not name the table's engine (`models_<engine>.yaml`); no "
            "launch was analysed",
            zh="文件名没有写明该表的引擎（`models_<engine>.yaml`）；未分析任何启动",
        ),
        "not_word_list": T(
            en="`{key}` is not a bash word list (its quotes are unbalanced); its flags were not "
            "read",
            zh="`{key}` 不是 bash 词列表（引号不成对）；其参数未被读取",
        ),
    },
    # `eval`, and whatever has no fix of its own, takes this one
    fix=T(
        en="Fix the bash syntax, or split unusual constructs out of the launch path",
        zh="修正 bash 语法，或将特殊写法移出服务启动路径",
    ),
    variant_fixes={
        **dict.fromkeys(
            ("syntax_unclosed", "syntax_missing", "syntax_unexpected", "syntax_end", "syntax"),
            T(
                en="Fix the bash syntax on this line (`bash -n` reports it too)",
                zh="修正此行的 bash 语法（`bash -n` 同样会报告）",
            ),
        ),
        "too_large": T(
            en="Keep the launch script under {limit} bytes: move data and helper code into "
            "files it sources",
            zh="将启动脚本控制在 {limit} 字节以内：把数据和辅助代码移到它 `source` 的文件中",
        ),
        "binary": T(
            en="Commit the recipe as a UTF-8 bash script, or move this file out of the recipe paths",
            zh="将配方提交为 UTF-8 编码的 bash 脚本，或将此文件移出配方路径",
        ),
        "not_utf8": T(en="Save the file as UTF-8", zh="以 UTF-8 编码保存文件"),
        "too_complex": T(
            en="Simplify the way to the launch: fewer loops and nested branches before the "
            "engine starts",
            zh="简化到达服务启动的流程：在引擎启动前减少循环和嵌套分支",
        ),
        "too_deep": T(
            en="Flatten the nesting around the launch (fewer nested functions, subshells and "
            "branches)",
            zh="减少服务启动周围的嵌套（嵌套的函数、子 shell 和分支）",
        ),
        "too_many_paths": T(
            en="Reduce the branches that reach the launch, for example by setting each value "
            "in one `case` instead of nested `if` blocks",
            zh="减少到达服务启动的分支，例如在一个 `case` 中设置各个取值，而不是嵌套的 `if` 块",
        ),
        "array_too_long": T(
            en="Build `{name}` with fewer elements, or read the values from a file",
            zh="减少 `{name}` 的元素数量，或从文件中读取这些取值",
        ),
        "engine_yaml": T(
            en="Make the YAML the heredoc writes valid once its variables are filled in",
            zh="确保 heredoc 写出的 YAML 在变量替换后是合法的 YAML",
        ),
        "yaml": T(
            en="Fix the YAML syntax: the file must load with a YAML parser such as "
            "`yaml.safe_load`",
            zh="修正 YAML 语法：文件必须能被 `yaml.safe_load` 等 YAML 解析器加载",
        ),
        "yaml_unreadable": T(
            en="Write the construct on this line with plain mappings, lists and scalars",
            zh="将此行的写法改为普通的映射、列表和标量",
        ),
        "yaml_too_large": T(
            en="Split the file into smaller recipes",
            zh="将文件拆分为更小的配方",
        ),
        "yaml_too_many_nodes": T(
            en="Write the file without aliases that multiply its size, or split it into "
            "smaller recipes",
            zh="去掉使文件体积成倍增长的别名，或将其拆分为更小的配方",
        ),
        "yaml_too_deep": T(
            en="Flatten the file's nesting",
            zh="减少文件的嵌套层数",
        ),
        "crashed": T(
            en="Review the launch by hand and report the file to the bot's maintainers",
            zh="人工审查该启动，并将此文件报告给机器人维护者",
        ),
        "empty": T(
            en="Write the recipe's sections, or delete the empty file",
            zh="补全配方的各个部分，或删除该空文件",
        ),
        "recipe_not_mapping": T(
            en="Write the recipe as a mapping with `model`, `resources`, `backend` and "
            "`benchmark` sections",
            zh="将配方写成包含 `model`、`resources`、`backend` 和 `benchmark` 部分的映射",
        ),
        "not_mapping": T(en="Write `{key}` as a mapping", zh="将 `{key}` 写成映射"),
        "not_string": T(en="Write `{key}` as a string", zh="将 `{key}` 写成字符串"),
        "no_section": T(en="Add the `{section}` section", zh="添加 `{section}` 部分"),
        "unknown_backend": T(
            en="Set `backend.type` to `vllm`, `sglang` or `trtllm`",
            zh="将 `backend.type` 设为 `vllm`、`sglang` 或 `trtllm`",
        ),
        "roles_not_mapping": T(
            en="Write `{section}` as a mapping of roles (prefill, decode or aggregated)",
            zh="将 `{section}` 写成角色映射（prefill、decode 或 aggregated）",
        ),
        "unknown_role": T(
            en="Rename `{role}` to prefill, decode or aggregated",
            zh="将 `{role}` 改名为 prefill、decode 或 aggregated",
        ),
        "no_roles": T(
            en="Add a prefill, decode or aggregated role under `{section}`",
            zh="在 `{section}` 下添加 prefill、decode 或 aggregated 角色",
        ),
        "table_not_mapping": T(
            en="Write the table as a mapping of model names to their flags",
            zh="将模型表写成模型名到其参数的映射",
        ),
        "table_engine_unknown": T(
            en="Name the file `models_<engine>.yaml` with `vllm`, `sglang`, `atom` or `trtllm`",
            zh="将文件命名为 `models_<engine>.yaml`，引擎为 `vllm`、`sglang`、`atom` 或 `trtllm`",
        ),
        "not_word_list": T(
            en="Balance the quotes in `{key}`",
            zh="使 `{key}` 中的引号成对",
        ),
    },
    conditions={
        "unreadable": Condition(
            ERROR,
            T(
                en="bash or YAML itself cannot read the file (a bash syntax error, binary "
                "content, bytes that are not UTF-8, invalid YAML) and the change adds or edits "
                "it while its base copy has no such problem; without a base (a whole tree, "
                "files named by hand) every such file counts",
                zh="bash 或 YAML 本身无法读取该文件（bash 语法错误、二进制内容、非 UTF-8 字节、"
                "非法 YAML），且本次变更新增或修改了它，而 base 中的该文件没有同类问题；"
                "没有 base 时（检查整棵树或手动指定的文件）所有此类文件都计入",
            ),
        ),
    },
    rationale=T(
        en=(
            "Every other recipe rule reads the launch command the bot resolves from the script. "
            "When part of the script cannot be parsed, or the script is too large or too branchy "
            "to analyse, values after that point may be missed, so the other rules can stay silent "
            "on a real defect. The bot says so instead of guessing. A file that bash or YAML "
            "itself cannot read (a syntax error, binary content, bytes that are not UTF-8) also "
            "fails when the benchmark runs, so a change that brings one is an error, as in ruff "
            "and shellcheck; one whose base copy was already unreadable stays a warning. What "
            "the bot cannot follow in a valid file (its size, its branches, `eval`) is a warning."
        ),
        zh=(
            "其他配方规则都依赖从脚本中解析出的启动命令。脚本某处无法解析，或脚本过大、分支过多时，"
            "该处之后的取值可能缺失，其他规则可能因此漏报。机器人会明确指出这一点，而不是猜测。"
            "bash 或 YAML 本身无法读取的文件（语法错误、二进制内容、非 UTF-8 字节）在基准运行时同样"
            "会失败，因此引入此类文件的变更是错误，与 ruff 和 shellcheck 一致；base 中该文件已无法"
            "读取时仍为警告。机器人在合法文件中无法跟踪的内容（文件大小、分支数量、`eval`）为警告。"
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


# What bash or YAML itself cannot read: an error when the change brings it (as ruff and
# shellcheck fail on a file they cannot parse). The rest is what the bot cannot follow
# in valid input (a bound, an unusual construct): a warning. Kinds of one group are one
# problem when the base is compared (a syntax error that moves is the same defect).
_UNREADABLE: dict[str, str] = {
    **dict.fromkeys(
        ("syntax_unclosed", "syntax_missing", "syntax_unexpected", "syntax_end", "syntax"),
        "syntax",
    ),
    "binary": "binary",
    "not_utf8": "not_utf8",
    "yaml": "yaml",
}
# parameters shown as code; a backtick in one cannot be (the `syntax` wording names none)
_TOKENS = ("token", "near")

# A finding's subject (with the rule and path, its fingerprint) for the kinds the bash
# parser reported as sentences before its problems were typed: those sentences, so that
# review comments already posted keep their fingerprints. Other kinds use their data.
_SUBJECTS: dict[str, str] = {
    "too_complex": "script too complex to analyse fully; stopped early",
    "too_deep": "script nested too deeply to analyse",
    "too_many_paths": "more than {limit} paths through the script; some branches not analysed",
    "array_too_long": "array `{name}` grows past {limit} elements; its value is not tracked",
    "eval": "`eval` runs text the bot does not interpret; values after it may be missed",
    "too_large": "script is {size} bytes, over the {limit}-byte limit; not analysed",
    "binary": "the file is not a text file (binary content); not analysed",
    "not_utf8": "script is not valid UTF-8 (or contains U+FFFD); values on this line may be wrong",
    "syntax_unclosed": "bash syntax error on line {line}: missing `{token}` to close the "
    "{construct} that starts here; values after it may be missed",
    "syntax_missing": "bash syntax error on line {line}: missing `{token}` here; values after "
    "it may be missed",
    "syntax_unexpected": "bash syntax error on line {line}: unexpected `{near}`; values after "
    "it may be missed",
    "syntax_end": "bash syntax error on line {line}: unexpected end of the script; values after "
    "it may be missed",
    "syntax": "bash syntax error on line {line}: unreadable construct; values after it may be "
    "missed",
}


def _subject(problem: RecipeProblem) -> str:
    template = _SUBJECTS.get(problem.kind)
    if template is not None:
        return template.format_map(problem.params)
    return " ".join([problem.kind, *(f"{k}={v}" for k, v in sorted(problem.params.items()))])


def _wording(problem: RecipeProblem) -> tuple[str, dict[str, Any]]:
    """The variant and parameters a problem is worded with."""
    params = dict(problem.params)
    if any("`" in params.get(k, "") for k in _TOKENS):
        return "syntax", {"line": params["line"]}
    return problem.kind, {k: v.replace("`", "'") for k, v in params.items()}


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    for problem in recipe.problems:
        variant, params = _wording(problem)
        group = _UNREADABLE.get(problem.kind)
        same = [kind for kind, g in _UNREADABLE.items() if g == group]
        unreadable = group is not None and brought_by_change(ctx, "recipe", recipe.path, same)
        yield RULE.hit(
            recipe.path,
            Span(problem.line),
            _subject(problem),
            variant=variant,
            condition="unreadable" if unreadable else None,
            **params,
        )
