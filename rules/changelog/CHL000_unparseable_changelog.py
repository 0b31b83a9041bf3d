"""CHL000: the changelog file cannot be read, or breaks a file-level rule."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, Span, T
from bot.core.problems import brought_by_change
from bot.parse.changelog import Changelog

_BASE = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add MiniMax-M3 MXFP8 AgentX on H100 with vLLM v0.27.1 and Mooncake DRAM offload"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412
"""

RULE = Rule(
    id="CHL000",
    slug="unparseable-changelog",
    severity=ERROR,
    target="changelog",
    title=T(
        en="Changelog cannot be parsed",
        zh="changelog 无法解析",
    ),
    message=T(
        en="Changelog is not valid YAML; the parser reports `{detail}`",
        zh="changelog 不是合法的 YAML；解析器报告 `{detail}`",
    ),
    fix=None,
    rationale=T(
        en=(
            "The sweep setup reads `perf-changelog.yaml` with a strict loader before it "
            "generates any job, and `utils/validate_perf_changelog.py` refuses the whole "
            "file for invalid YAML, a duplicate key, tabs, CR characters, NUL bytes, "
            "non-UTF-8 bytes, a missing final newline, or an entry that does not start "
            "with `- config-keys:` in column 1. One such defect blocks every PR's sweep, "
            "and no other changelog check can run until it is fixed. The bot also refuses "
            "files that are too large or too deeply nested to read safely; that is a warning, "
            "as the file itself may be valid. A problem the change does not bring (the base's "
            "copy of the file has one of the same kind) is a warning too."
            "files that are too large or too deeply nested to read safely."
        ),
        zh=(
            "扫描任务在生成任何作业前都会用严格的加载器读取 `perf-changelog.yaml`，"
            "`utils/validate_perf_changelog.py` 遇到非法 YAML、重复键、制表符、CR 字符、"
            "NUL 字节、非 UTF-8 字节、末尾缺少换行符，或条目未以第 1 列的 "
            "`- config-keys:` 开头时，会拒绝整个文件。任何一处这类问题都会阻断所有 PR 的"
            "扫描，且在修复之前其他 changelog 检查都无法运行。对于过大或嵌套过深、"
            "无法安全读取的文件，机器人同样拒绝处理；这种情况为警告，因为文件本身可能是合法的。"
            "并非本次变更引入的问题（base 中的该文件已有同类问题）同样为警告。"
        ),
    ),
    conditions={
        "bound": Condition(
            WARNING,
            T(
                en="the file is beyond a bound the bot reads within (its size, its number of "
                "YAML nodes, its nesting): the file itself may be valid",
                zh="文件超出了机器人读取的上限（大小、YAML 节点数或嵌套层数）：文件本身可能是合法的",
            ),
        ),
        "preexisting": Condition(
            WARNING,
            T(
                en="the change does not bring the problem: it leaves the file as it is, or the "
                "base's copy of the file has a problem of the same kind",
                zh="问题并非本次变更引入：变更未修改该文件，或 base 中的该文件已有同类问题",
            ),
        ),
    },
    variants={
        "duplicate-key": T(
            en="Key `{key}` appears twice in the same mapping",
            zh="键 `{key}` 在同一映射中重复出现",
        ),
        "tab": T(
            en="Changelog contains a tab character (lines with tabs: {count})",
            zh="changelog 含有制表符（含制表符的行数：{count}）",
        ),
        "cr": T(
            en="Changelog contains a CR character (lines with CR: {count})",
            zh="changelog 含有 CR 字符（含 CR 的行数：{count}）",
        ),
        "nul": T(
            en="Changelog contains a NUL byte",
            zh="changelog 含有 NUL 字节",
        ),
        "not-utf8": T(
            en="Changelog is not valid UTF-8",
            zh="changelog 不是有效的 UTF-8 编码",
        ),
        "no-final-newline": T(
            en="Changelog does not end with a newline",
            zh="changelog 末尾缺少换行符",
        ),
        "empty": T(
            en="Changelog is empty",
            zh="changelog 为空",
        ),
        "not-list": T(
            en="Changelog top level is of type `{actual}`, not a list of entries",
            zh="changelog 顶层的类型是 `{actual}`，而不是条目列表",
        ),
        "entry-layout": T(
            en="Entry does not start with `- config-keys:` in column 1",
            zh="条目没有以第 1 列的 `- config-keys:` 开头",
        ),
        "too-large": T(
            en="Changelog is {size} characters, over the {limit}-character limit",
            zh="changelog 共 {size} 个字符，超过 {limit} 个字符的上限",
        ),
        "too-many-nodes": T(
            en="Changelog has more than {limit} YAML nodes",
            zh="changelog 的 YAML 节点数超过 {limit}",
        ),
        "too-deep": T(
            en="Changelog nests deeper than {limit} levels",
            zh="changelog 嵌套层数超过 {limit}",
        ),
    },
    variant_fixes={
        "duplicate-key": T(
            en="Keep one `{key}` and merge the values into it",
            zh="只保留一个 `{key}`，并把两处的值合并到其中",
        ),
        "tab": T(en="Replace every tab with spaces", zh="将所有制表符替换为空格"),
        "cr": T(en="Convert the line endings to LF", zh="将换行符转换为 LF"),
        "nul": T(en="Remove the NUL byte", zh="删除 NUL 字节"),
        "not-utf8": T(en="Save the file as UTF-8", zh="以 UTF-8 编码保存文件"),
        "no-final-newline": T(
            en="Add a newline after the last line",
            zh="在最后一行之后添加换行符",
        ),
        "entry-layout": T(
            en="Start the entry with the line `- config-keys:` and indent its other keys by two spaces",
            zh="以 `- config-keys:` 这一行开始条目，其余键缩进两个空格",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423  # [CHL000]
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="a duplicate key makes the strict loader refuse the whole file",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  description:
    - "Add the EAGLE3 MTP variant: golden AL 2.83 at K=3, thinking_on"
   pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423  # [CHL000]
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="`pr-link` indented by three spaces instead of two",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  description:
\t- "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"  # [CHL000]
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="a tab: the repository refuses it, and here it also breaks the YAML",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
  config-keys:  # [CHL000]
    - minimaxm3-fp8-h100-vllm-agentic-mtp
""",
            note="an entry written without its leading `- ` merges into the entry above it",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
    - "Synthetic acceptance pinned to golden AL 2.83 (minimaxm3_eagle3.yaml, thinking_on, K=3)"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
        ),
    ),
)


# the bot's own bounds: the file may be valid, the bot does not read further
_BOUNDS = frozenset({"too-large", "too-many-nodes", "too-deep"})


def _condition(kind: str, path: str, ctx: RuleContext) -> str | None:
    if kind in _BOUNDS:
        return "bound"
    if not brought_by_change(ctx, "changelog", path, [kind]):
        return "preexisting"
    return None


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    for problem in changelog.problems:
        variant = problem.kind if problem.kind in RULE.variants else None
        params: dict[str, Any] = dict(problem.params)
        params.setdefault("detail", problem.kind)
        params["detail"] = str(params["detail"]).replace("`", "'")  # a quoted value
        subject = " ".join([problem.kind, *(f"{k}={v}" for k, v in sorted(params.items()))])
        condition = _condition(problem.kind, changelog.path, ctx)
        yield RULE.hit(
            changelog.path,
            Span(problem.line),
            subject,
            variant=variant,
            condition=condition,
            **params,
        )
