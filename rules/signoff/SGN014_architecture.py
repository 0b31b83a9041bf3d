"""SGN014: the `architecture` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN014",
    slug="architecture",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Model architecture",
        zh="模型架构",
    ),
    message=T(
        en="The rules behind the row (RCP007) report nothing on what the PR changed",
        zh="该行对应的规则（RCP007）对本 PR 的变更没有报告",
    ),
    rationale=T(
        en="A rule row passes only when its rules (RCP007) report nothing on what the PR changed: an error blocks, a warning makes the row need a human with the finding linked, and a finding silenced by a suppression the PR adds passes only when the sign-off names the rule.",
        zh="规则行只有在其规则（RCP007）对本 PR 的变更没有任何报告时才通过：错误会阻塞，警告使该行需人工确认并附上问题链接；被本 PR 新增的抑制注释屏蔽的问题，只有在签署中点名该规则时才通过。",
    ),
    variants={
        "na": T(
            en="the PR changes no benchmark",
            zh="本 PR 未修改任何基准",
        ),
        "ok": T(
            en="the PR's recipe scripts override nothing that changes the model architecture",
            zh="本 PR 的配方脚本没有改变模型架构的覆盖参数",
        ),
        "what-unread": T(
            en="architecture overrides",
            zh="模型架构覆盖参数",
        ),
    },
)
