"""SGN008: the `eval-accuracy` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import WARNING, Rule, T

RULE = Rule(
    id="SGN008",
    slug="eval-accuracy",
    severity=WARNING,
    target="signoff",
    title=T(
        en="Eval accuracy",
        zh="评测准确率",
    ),
    message=T(
        en="The eval scores meet the model's bar on the config's image",
        zh="评测分数在该配置的镜像上达到模型标准",
    ),
    rationale=T(
        en="The bar depends on the model and on what changed, so a human reads the scores.",
        zh="标准取决于模型和变更内容，因此由人工查看分数。",
    ),
    variants={
        "check": T(
            en="check that the eval scores meet the model's bar and ran on this config's image",
            zh="请确认评测分数达到该模型的标准，且使用的是此配置的镜像",
        ),
    },
)
