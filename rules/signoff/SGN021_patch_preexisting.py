"""SGN021: the `patch-preexisting` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import WARNING, Rule, T

RULE = Rule(
    id="SGN021",
    slug="patch-preexisting",
    severity=WARNING,
    target="signoff",
    title=T(
        en="Earlier engine patch",
        zh="已有的引擎补丁",
    ),
    message=T(
        en="An older engine patch that no waiver names",
        zh="没有豁免文件提及的已有引擎补丁",
    ),
    rationale=T(
        en="Which PR introduced an older patch is not known from the diff, so a human decides whether an earlier waiver covers it.",
        zh="从差异中无法得知已有补丁由哪个 PR 引入，因此由人工判断是否有先前的豁免文件覆盖。",
    ),
    variants={
        "check": T(
            en="check the waiver of a patch this PR did not add: {finding}",
            zh="请核对本 PR 之前已有补丁的豁免：{finding}",
        ),
    },
)
