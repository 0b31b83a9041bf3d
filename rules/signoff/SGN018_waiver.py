"""SGN018: the `waiver` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN018",
    slug="waiver",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Engine patches and waiver",
        zh="引擎补丁与豁免",
    ),
    message=T(
        en="An engine patch the PR adds comes with its waiver, linked in the sign-off",
        zh="本 PR 新增的引擎补丁附有豁免文件，并在签署中链接",
    ),
    rationale=T(
        en="An engine patch the PR adds (RCP008) fails unless the PR files `docs/waiver/<PR>.md`; a waiver the PR files must be linked in the sign-off.",
        zh="本 PR 新增的引擎补丁（RCP008）若没有在本 PR 中提交 `docs/waiver/<PR>.md` 则不通过；本 PR 提交的豁免文件须在签署中链接。",
    ),
    variants={
        "not-linked": T(
            en="the PR files the waiver `{waiver}`, but the sign-off does not link it",
            zh="本 PR 提交了豁免文件 `{waiver}`，但签署中没有链接它",
        ),
        "linked": T(
            en="the waiver `{waiver}` is filed in this PR and linked",
            zh="豁免文件 `{waiver}` 已在本 PR 中提交并在签署中链接",
        ),
        "no-patch": T(
            en="the PR's recipe scripts patch no engine",
            zh="本 PR 的配方脚本未对推理引擎打补丁",
        ),
        "no-benchmark": T(
            en="the PR changes no benchmark script",
            zh="本 PR 未修改基准脚本",
        ),
        "what-unread": T(
            en="engine patches",
            zh="推理引擎补丁",
        ),
    },
)
