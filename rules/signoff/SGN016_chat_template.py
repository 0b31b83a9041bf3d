"""SGN016: the `chat-template` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN016",
    slug="chat-template",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Chat templates for spec decoding",
        zh="投机解码的聊天模板",
    ),
    message=T(
        en="The rules behind the row (RCP009) report nothing on what the PR changed",
        zh="该行对应的规则（RCP009）对本 PR 的变更没有报告",
    ),
    rationale=T(
        en="A rule row passes only when its rules (RCP009) report nothing on what the PR changed: an error blocks, a warning makes the row need a human with the finding linked, and a finding silenced by a suppression the PR adds passes only when the sign-off names the rule.",
        zh="规则行只有在其规则（RCP009）对本 PR 的变更没有任何报告时才通过：错误会阻塞，警告使该行需人工确认并附上问题链接；被本 PR 新增的抑制注释屏蔽的问题，只有在签署中点名该规则时才通过。",
    ),
    variants={
        "na": T(
            en="the PR has no speculative-decoding change",
            zh="本 PR 不涉及投机解码变更",
        ),
        "ok": T(
            en="the PR's speculative-decoding recipe scripts send chat-templated prompts",
            zh="本 PR 的投机解码配方脚本使用聊天模板发送请求",
        ),
        "what-unread": T(
            en="chat-templated prompts",
            zh="聊天模板的使用",
        ),
    },
)
