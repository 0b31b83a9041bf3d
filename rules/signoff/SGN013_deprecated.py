"""SGN013: the `deprecated` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN013",
    slug="deprecated",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Deprecated models and scenarios",
        zh="已弃用的模型与场景",
    ),
    message=T(
        en="The rules behind the row (CFG005) report nothing on what the PR changed",
        zh="该行对应的规则（CFG005）对本 PR 的变更没有报告",
    ),
    rationale=T(
        en="A rule row passes only when its rules (CFG005) report nothing on what the PR changed: an error blocks, a warning makes the row need a human with the finding linked, and a finding silenced by a suppression the PR adds passes only when the sign-off names the rule.",
        zh="规则行只有在其规则（CFG005）对本 PR 的变更没有任何报告时才通过：错误会阻塞，警告使该行需人工确认并附上问题链接；被本 PR 新增的抑制注释屏蔽的问题，只有在签署中点名该规则时才通过。",
    ),
    variants={
        "na": T(
            en="the PR adds or changes no master-config entry",
            zh="本 PR 未新增或修改主配置条目",
        ),
        "ok": T(
            en="no new or changed master-config entry submits a deprecated model or scenario",
            zh="新增或修改的主配置条目均未提交已弃用的模型或场景",
        ),
    },
)
