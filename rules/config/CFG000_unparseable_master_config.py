"""CFG000: a master config cannot be read as a mapping of config keys."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, Span, T
from bot.core.problems import brought_by_change
from bot.parse.master_config import MasterConfig

_ENTRY = """\
dsv4-fp4-b300-sglang:
  image: lmsysorg/sglang:v0.5.14-cu130
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: b300
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, dp-attn: true, conc-start: 4, conc-end: 256 }
"""

RULE = Rule(
    id="CFG000",
    slug="unparseable-master-config",
    severity=ERROR,
    target="master_config",
    title=T(
        en="Master config cannot be parsed",
        zh="主配置文件无法解析",
    ),
    message=T(
        en="Master config is not valid YAML; the parser reports `{detail}`",
        zh="主配置文件不是合法的 YAML；解析器报告 `{detail}`",
    ),
    fix=None,
    rationale=T(
        en=(
            "Sweep generation (`utils/matrix_logic/generate_sweep_configs.py`) loads every "
            "master config with a YAML loader and requires a mapping of config key -> entry "
            "before it validates or runs anything. A YAML error, a duplicate config key (the "
            "second silently replaces the first in most loaders, and is an error in a strict "
            "one), or a file that is not a mapping breaks the sweep of every PR, and no other "
            "master-config check can run until it is fixed. The bot also refuses files that "
            "are too large or too deeply nested to read safely; that is a warning, as the file "
            "itself may be valid. A problem the change does not bring (the base's copy of the "
            "file has one of the same kind) is a warning too."
        ),
        zh=(
            "扫描生成脚本（`utils/matrix_logic/generate_sweep_configs.py`）在校验或运行任何内容之前，"
            "会用 YAML 加载器读取每个主配置文件，并要求其为“配置键 -> 条目”的映射。YAML 错误、重复的"
            "配置键（多数加载器会让后者悄悄覆盖前者，严格的加载器则直接报错），或文件不是映射，都会破坏"
            "所有 PR 的扫描；在修复之前，其他主配置检查也都无法运行。对于过大或嵌套过深、无法安全读取的"
            "文件，机器人同样拒绝处理；这种情况为警告，因为文件本身可能是合法的。并非本次变更引入的问题"
            "（base 中的该文件已有同类问题）同样为警告。"
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
        "not-mapping": T(
            en="Master config top level is of type `{actual}`, not a mapping of config keys",
            zh="主配置文件顶层的类型是 `{actual}`，而不是配置键的映射",
        ),
        "empty": T(
            en="Master config is empty",
            zh="主配置文件为空",
        ),
        "nul": T(
            en="Master config contains a NUL byte",
            zh="主配置文件含有 NUL 字节",
        ),
        "not-utf8": T(
            en="Master config is not valid UTF-8",
            zh="主配置文件不是有效的 UTF-8 编码",
        ),
        "too-large": T(
            en="Master config is {size} characters, over the {limit}-character limit",
            zh="主配置文件共 {size} 个字符，超过 {limit} 个字符的上限",
        ),
        "too-many-nodes": T(
            en="Master config has more than {limit} YAML nodes",
            zh="主配置文件的 YAML 节点数超过 {limit}",
        ),
        "too-deep": T(
            en="Master config nests deeper than {limit} levels",
            zh="主配置文件嵌套层数超过 {limit}",
        ),
    },
    variant_fixes={
        "duplicate-key": T(
            en="Rename one of the two `{key}` keys, or merge them into one",
            zh="将两个 `{key}` 之一改名，或将两者合并为一个",
        ),
        "not-mapping": T(
            en="Write the file as `<config-key>:` lines in column 1, each followed by its indented fields",
            zh="将文件写成第 1 列的 `<config-key>:` 行，每行之后是缩进的字段",
        ),
        "nul": T(en="Remove the NUL byte", zh="删除 NUL 字节"),
        "not-utf8": T(en="Save the file as UTF-8", zh="以 UTF-8 编码保存文件"),
    },
    bad=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_ENTRY
            + """
dsv4-fp4-b300-sglang-mtp:
  image: lmsysorg/sglang:v0.5.14-cu130
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: b300
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, dp-attn: true, spec-decoding: mtp, conc-start: 4, conc-end: 128 }
     - { tp: 4, ep: 4, spec-decoding: mtp, conc-start: 1, conc-end: 32 }  # [CFG000]
""",
            base={"configs/nvidia-master.yaml": _ENTRY},
            note="a search-space item indented by one space less than its siblings",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_ENTRY
            + """
dsv4-fp4-b300-sglang:  # [CFG000]
  image: lmsysorg/sglang:v0.5.15-cu130
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: b300
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, dp-attn: true, conc-start: 4, conc-end: 512 }
""",
            base={"configs/nvidia-master.yaml": _ENTRY},
            note="a copied entry whose config key was not renamed",
        ),
    ),
    good=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_ENTRY
            + """
dsv4-fp4-b300-sglang-mtp:
  image: lmsysorg/sglang:v0.5.14-cu130
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: b300
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, dp-attn: true, spec-decoding: mtp, conc-start: 4, conc-end: 128 }
      - { tp: 4, ep: 4, spec-decoding: mtp, conc-start: 1, conc-end: 32 }
""",
            base={"configs/nvidia-master.yaml": _ENTRY},
        ),
    ),
)


# the bot's own bounds: the file may be valid, the bot does not read further
_BOUNDS = frozenset({"too-large", "too-many-nodes", "too-deep"})


def _condition(kind: str, path: str, ctx: RuleContext) -> str | None:
    if kind in _BOUNDS:
        return "bound"
    if not brought_by_change(ctx, "master_config", path, [kind]):
        return "preexisting"
    return None


def check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    for problem in master.problems:
        variant = problem.kind if problem.kind in RULE.variants else None
        params: dict[str, Any] = dict(problem.params)
        params.setdefault("detail", problem.kind)
        params["detail"] = str(params["detail"]).replace("`", "'")  # a quoted value
        subject = " ".join([problem.kind, *(f"{k}={v}" for k, v in sorted(params.items()))])
        condition = _condition(problem.kind, master.path, ctx)
        yield RULE.hit(
            master.path,
            Span(problem.line),
            subject,
            variant=variant,
            condition=condition,
            **params,
        )
