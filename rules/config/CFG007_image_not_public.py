"""CFG007: a master-config entry runs an image that is not on a public registry."""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import (
    ERROR,
    WARNING,
    Condition,
    Example,
    Finding,
    Part,
    Rule,
    Span,
    T,
    part,
)
from bot.parse.master_config import MasterConfig, MasterEntry
from bot.parse.master_sets import base_master_configs, entry_changes

_ENTRY = """\
dsr1-fp8-h200-sglang:
  image: {image}
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: h200
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - {{ tp: 8, conc-start: 4, conc-end: 64 }}
"""

RULE = Rule(
    id="CFG007",
    slug="image-not-public",
    severity=ERROR,
    conditions={
        "merged-tree": Condition(
            WARNING,
            T(
                en="a merged tree is linted (no base): the entry is history, not this change",
                zh="检查的是已合并的整棵树（没有 base）：该条目是历史记录，不属于本次变更",
            ),
        ),
    },
    target="master_config",
    title=T(en="Image is not on a public registry", zh="镜像不在公开的镜像仓库中"),
    variants={
        # what the image is, in the message
        "squashfs": T(en="a squashfs file", zh="squashfs 文件"),
        "local-path": T(en="a local path", zh="本地路径"),
    },
    message=T(
        en="`image: {image}` is {why}; others cannot pull it to reproduce the run",
        zh="`image: {image}` 是{why}，其他人无法拉取它来复现测试",
    ),
    fix=T(
        en="Push the container to a public registry (NGC `nvcr.io/nvidia/...`, Docker Hub, `ghcr.io`, `quay.io`) and reference it here",
        zh="将容器推送到公开仓库（NGC `nvcr.io/nvidia/...`、Docker Hub、`ghcr.io`、`quay.io`）并在此引用",
    ),
    rationale=T(
        en=(
            "Every benchmark must be reproducible from a public image: the runners import it with "
            "`enroot import docker://$IMAGE`. A local path (`/scratch/...`, `./x`), a squashfs file "
            "(`.sqsh`) or a `file://` URL exists only on one cluster. InferenceX's own reviewer "
            "prompt (`.github/workflows/claude-pr-review.yml`, Container Image Accessibility) "
            "states this check. Merged entries in a whole-tree run are warnings."
        ),
        zh=(
            "每个基准测试都必须能从公开镜像复现：runner 用 `enroot import docker://$IMAGE` 导入镜像。本地路径"
            "（`/scratch/...`、`./x`）、squashfs 文件（`.sqsh`）或 `file://` URL 只存在于某个集群上。InferenceX "
            "自己的审查提示（`.github/workflows/claude-pr-review.yml` 的 Container Image Accessibility 一节）"
            "规定了这项检查。整树检查时已合并的条目报告为警告。"
        ),
    ),
    bad=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_ENTRY.format(image="/scratch/images/sglang-v0.5.14.sqsh  # [CFG007]"),
            base={"configs/nvidia-master.yaml": ""},
        ),
    ),
    good=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_ENTRY.format(image="lmsysorg/sglang:v0.5.14-cu130"),
            base={"configs/nvidia-master.yaml": ""},
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_ENTRY.format(image="nvcr.io#nvidia/ai-dynamo/sglang-runtime:1.0.1"),
            base={"configs/nvidia-master.yaml": ""},
            note="enroot's `registry#image` spelling",
        ),
    ),
)

_LOCAL = re.compile(r"^(?:/|\./|\.\./|~|file:)")


def _why(image: str) -> Part | None:
    if image.lower().split("@", 1)[0].split(":", 1)[0].endswith(".sqsh") or image.lower().endswith(
        ".sqsh"
    ):
        return part("squashfs")
    if _LOCAL.match(image):
        return part("local-path")
    return None


def check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    base = base_master_configs(ctx)
    if base is None:
        for entry in master.entries.values():
            yield from _check(master, entry, "merged-tree")
        return
    for change in entry_changes(master, base):
        if change.changed("image"):
            yield from _check(master, change.entry, None)


def _check(master: MasterConfig, entry: MasterEntry, condition: str | None) -> Iterator[Finding]:
    image = entry.get("image")
    if not isinstance(image, str):
        return  # CFG001 reports it
    why = _why(image.strip())
    if why is None:
        return
    yield RULE.hit(
        master.path,
        Span(entry.key_lines.get("image", entry.start_line)),
        f"{entry.key} {image}",
        condition=condition,
        image=image,
        why=why,
    )
