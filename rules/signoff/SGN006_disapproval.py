"""SGN006: the `disapproval` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN006",
    slug="disapproval",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Disapproval",
        zh="反对意见",
    ),
    message=T(
        en="Nobody with write access has a standing disapproval",
        zh="没有拥有写权限的人提出未撤回的反对",
    ),
    rationale=T(
        en="Only when `knowledge.signoff.disapproval.phrases` is set (policy-bot's option): a comment by someone with write access holding a phrase blocks until they post a `withdraw` phrase.",
        zh="仅在设置了 `knowledge.signoff.disapproval.phrases` 时生效（与 policy-bot 的选项相同）：拥有写权限者发表含该短语的评论后会阻塞，直到其发表撤回短语。",
    ),
    variants={
        "disapproved": T(
            en="{who} disapproved this PR; it is blocked until they withdraw with {undo}",
            zh="{who} 反对此 PR；在其以 {undo} 撤回之前保持阻止",
        ),
        "none": T(
            en="no standing disapproval",
            zh="没有未撤回的反对",
        ),
        "comments-unread": T(
            en="could not verify that nobody disapproved: the PR's comments were not available",
            zh="无法核实是否有人反对：未能获取本 PR 的评论",
        ),
    },
)
