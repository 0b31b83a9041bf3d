"""SGN005: the `explanations` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import WARNING, Rule, T

RULE = Rule(
    id="SGN005",
    slug="explanations",
    severity=WARNING,
    target="signoff",
    title=T(
        en="Unchecked items",
        zh="未勾选条目",
    ),
    message=T(
        en="The reasons given for unchecked items, for a maintainer to read",
        zh="未勾选条目的原因，供维护者阅读",
    ),
    rationale=T(
        en="Whether a reason is good enough is a judgement: the bot lists the explained items for a human and never passes them on its own.",
        zh="原因是否充分需要判断：机器人把已说明的条目列给人工，不会自行判定通过。",
    ),
    variants={
        "read": T(
            en="read the reasons given for the unchecked {items}{more}",
            zh="请阅读未勾选条目 {items}{more} 的说明",
        ),
    },
)
