"""SGN020: the `waiver-content` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import WARNING, Rule, T

RULE = Rule(
    id="SGN020",
    slug="waiver-content",
    severity=WARNING,
    target="signoff",
    title=T(
        en="Waiver content",
        zh="豁免内容",
    ),
    message=T(
        en="The waiver covers the patch",
        zh="豁免文件涵盖了该补丁",
    ),
    rationale=T(
        en="Whether the waiver says what is patched, why the upstream image cannot run the benchmark and how the patch is removed is read by a human.",
        zh="豁免文件是否说明了修改内容、上游镜像为何无法运行基准以及移除计划，由人工阅读。",
    ),
    variants={
        "check": T(
            en="check that `{waiver}` covers the patch: what is patched, why the upstream image cannot run, the upstream PR or issue, the removal plan",
            zh="请确认 `{waiver}` 覆盖了该补丁：修改内容、上游镜像为何无法运行、上游 PR 或 issue、移除计划",
        ),
    },
)
