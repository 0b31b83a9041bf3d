"""SGN017: the `chat-template-unread` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import WARNING, Rule, T

RULE = Rule(
    id="SGN017",
    slug="chat-template-unread",
    severity=WARNING,
    target="signoff",
    title=T(
        en="Chat templates, not read",
        zh="聊天模板（未读取部分）",
    ),
    message=T(
        en="What the recipe rules do not read, for a human to check",
        zh="配方规则未读取的内容，需人工检查",
    ),
    rationale=T(
        en="Multi-node benchmark files and changed scripts that are neither recipes nor multi-node files are not read by the recipe rules, so the row lists them for a human instead of passing them.",
        zh="配方规则不读取多节点基准文件，以及既非配方也非多节点文件的变更脚本，因此该行将它们列给人工，而不是判为通过。",
    ),
)
