"""SGN025: the `append-only-isolation` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import WARNING, Rule, T

RULE = Rule(
    id="SGN025",
    slug="append-only-isolation",
    severity=WARNING,
    target="signoff",
    title=T(
        en="Append-only isolation",
        zh="仅追加隔离",
    ),
    message=T(
        en="Every benchmark-affecting change reaches only the appended points",
        zh="每一处影响基准的变更只作用于新追加的数据点",
    ),
    rationale=T(
        en="An append-only entry must not change existing points; which points a change reaches is read by a human.",
        zh="仅追加条目不得改变已有数据点；变更影响哪些数据点由人工判断。",
    ),
    variants={
        "check": T(
            en="check that every benchmark-affecting change reaches only the appended points",
            zh="请确认每一处影响基准的变更都只作用于新追加的数据点",
        ),
    },
)
