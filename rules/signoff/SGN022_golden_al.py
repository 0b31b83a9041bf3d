"""SGN022: the `golden-al` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN022",
    slug="golden-al",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Golden acceptance length",
        zh="黄金接受长度",
    ),
    message=T(
        en="The rules behind the row (RCP003 to RCP006) report nothing on what the PR changed",
        zh="该行对应的规则（RCP003 至 RCP006）对本 PR 的变更没有报告",
    ),
    rationale=T(
        en="A rule row passes only when its rules (RCP003 to RCP006) report nothing on what the PR changed: an error blocks, a warning makes the row need a human with the finding linked, and a finding silenced by a suppression the PR adds passes only when the sign-off names the rule.",
        zh="规则行只有在其规则（RCP003 至 RCP006）对本 PR 的变更没有任何报告时才通过：错误会阻塞，警告使该行需人工确认并附上问题链接；被本 PR 新增的抑制注释屏蔽的问题，只有在签署中点名该规则时才通过。",
    ),
    variants={
        "na": T(
            en="the PR has no agentic speculative-decoding change",
            zh="本 PR 不涉及 agentic 投机解码变更",
        ),
        "ok": T(
            en="the PR's agentic speculative-decoding recipe scripts simulate acceptance at the golden AL",
            zh="本 PR 的 agentic 投机解码配方脚本按黄金 AL 模拟接受",
        ),
        "what-unread": T(
            en="simulated acceptance at the golden AL",
            zh="是否按黄金 AL 模拟接受",
        ),
    },
)
