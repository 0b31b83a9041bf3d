"""SGN011: the `recipe-upstream` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import WARNING, Rule, T

RULE = Rule(
    id="SGN011",
    slug="recipe-upstream",
    severity=WARNING,
    target="signoff",
    title=T(
        en="Upstream recipe",
        zh="上游配方",
    ),
    message=T(
        en="The linked recipe is merged or published and its major server arguments match",
        zh="链接的配方已合并或发布，且主要服务参数一致",
    ),
    rationale=T(
        en="Whether a linked page matches the recipe's arguments is read by a human.",
        zh="链接页面是否与配方参数一致由人工核对。",
    ),
    variants={
        "check": T(
            en="check that {link} is merged or published and that its major server arguments match `{name}`",
            zh="请确认 {link} 已合并或已发布，且其主要服务参数与 `{name}` 一致",
        ),
        "engine-unknown": T(
            en="could not tell which engine `{benchmark}` launches; check whether it needs an upstream recipe link",
            zh="无法判断 `{benchmark}` 启动的引擎；请确认是否需要上游配方链接",
        ),
    },
)
