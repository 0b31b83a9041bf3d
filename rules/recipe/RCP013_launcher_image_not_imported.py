"""RCP013: a runner launch script runs a local enroot image it does not import from a registry."""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.core.changeset import ChangeSet
from bot.core.context import RuleContext
from bot.core.model import WARNING, Example, Finding, Rule, Span, T
from bot.core.tree import glob_match

_LAUNCHER = "runners/launch_b200-xy.sh"

RULE = Rule(
    id="RCP013",
    slug="launcher-image-not-imported",
    severity=WARNING,
    target="change",
    title=T(
        en="Launch script runs a local image it does not import",
        zh="启动脚本运行未导入的本地镜像",
    ),
    message=T(
        en="this launch script runs a local enroot image (`.sqsh`) but never imports it from a "
        "public registry with `enroot import ... docker://`",
        zh="该启动脚本运行本地 enroot 镜像（`.sqsh`），但从未用 `enroot import ... docker://` 从公开仓库导入",
    ),
    fix=T(
        en='Import the image in the script: `srun ... bash -c "enroot import -o $SQUASH_FILE '
        'docker://$IMAGE"`, or explain in the PR why the image is built another way',
        zh='在脚本中导入镜像：`srun ... bash -c "enroot import -o $SQUASH_FILE docker://$IMAGE"`，'
        "或在 PR 中说明镜像为何以其他方式构建",
    ),
    rationale=T(
        en=(
            "InferenceX's own reviewer prompt (`.github/workflows/claude-pr-review.yml`, Enroot "
            "Import Validation for Launch Scripts) asks every changed `runners/launch_*.sh` to "
            "turn the public image of the master config into its local enroot image with "
            "`enroot import -o $SQUASH_FILE docker://$IMAGE`, so that the benchmark runs exactly "
            "the published image and anyone can reproduce it. A launcher that runs a `.sqsh` "
            "file without importing it relies on an image that exists only on that cluster. "
            "Launchers that hand the registry image itself to pyxis (`--container-image=$IMAGE`) "
            "or to `docker run` pull it from the registry and are not reported. The repository's "
            "reviewer words it as a warning that the author may answer with an explanation."
        ),
        zh=(
            "InferenceX 自己的审查提示（`.github/workflows/claude-pr-review.yml` 的 Enroot Import "
            "Validation for Launch Scripts 一节）要求每个改动的 `runners/launch_*.sh` 用 "
            "`enroot import -o $SQUASH_FILE docker://$IMAGE` 把主配置中的公开镜像转成本地 enroot 镜像，"
            "这样基准测试运行的正是已发布的镜像，任何人都能复现。运行 `.sqsh` 文件却不导入的启动脚本"
            "依赖只存在于该集群上的镜像。直接把仓库镜像交给 pyxis（`--container-image=$IMAGE`）或 "
            "`docker run` 的启动脚本会从仓库拉取镜像，不报告。该仓库的审查将其定为警告，作者可以说明原因。"
        ),
    ),
    bad=(
        Example(
            path=_LAUNCHER,
            base={},
            text=(
                "#!/usr/bin/env bash\n"
                'SQUASH_FILE="/shared/containers/sglang-v0.5.sqsh"  # [RCP013]\n'
                "srun --container-image=$SQUASH_FILE bash benchmarks/run.sh\n"
            ),
        ),
    ),
    good=(
        Example(
            path=_LAUNCHER,
            base={},
            text=(
                "#!/usr/bin/env bash\n"
                'SQUASH_FILE="/tmp/squash/$(echo "$IMAGE" | tr /: __).sqsh"\n'
                'srun --jobid=$JOB_ID bash -c "enroot import -o $SQUASH_FILE docker://$IMAGE"\n'
                "srun --jobid=$JOB_ID --container-image=$SQUASH_FILE bash benchmarks/run.sh\n"
            ),
        ),
        Example(
            path=_LAUNCHER,
            base={},
            note="pyxis pulls the registry image itself",
            text=(
                "#!/usr/bin/env bash\n"
                "srun --container-image=$IMAGE --no-container-mount-home bash benchmarks/run.sh\n"
            ),
        ),
    ),
)

_COMMENT = re.compile(r"^\s*#")
_SQUASH = re.compile(r"\.sqsh\b")
_IMPORT = re.compile(r"\benroot\s+import\b")
_DOCKER = re.compile(r"\bdocker://")


def check(change: ChangeSet, ctx: RuleContext) -> Iterator[Finding]:
    patterns = ctx.knowledge.runner_launchers
    for path in change.paths:
        file = change.file(path)
        if file is None or file.status == "deleted" or file.binary:
            continue
        if not any(glob_match(path, pat) for pat in patterns):
            continue
        text = ctx.text(path)
        if text is None:
            continue
        line = _unimported_image(text)
        if line is not None:
            yield RULE.hit(path, Span(line), "local image")


def _unimported_image(text: str) -> int | None:
    """The first line naming a `.sqsh` image when the script imports none from `docker://`."""
    first: int | None = None
    imports = docker = False
    for n, line in enumerate(text.split("\n"), 1):
        if _COMMENT.match(line):
            continue
        if first is None and _SQUASH.search(line):
            first = n
        imports = imports or bool(_IMPORT.search(line))
        docker = docker or bool(_DOCKER.search(line))
    return first if first is not None and not (imports and docker) else None
