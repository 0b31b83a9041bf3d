"""SGN024: the `append-only` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN024",
    slug="append-only",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Append-only",
        zh="仅追加",
    ),
    message=T(
        en="The rules behind the row (CHL010) report nothing on what the PR changed",
        zh="该行对应的规则（CHL010）对本 PR 的变更没有报告",
    ),
    rationale=T(
        en="A rule row passes only when its rules (CHL010) report nothing on what the PR changed: an error blocks, a warning makes the row need a human with the finding linked, and a finding silenced by a suppression the PR adds passes only when the sign-off names the rule.",
        zh="规则行只有在其规则（CHL010）对本 PR 的变更没有任何报告时才通过：错误会阻塞，警告使该行需人工确认并附上问题链接；被本 PR 新增的抑制注释屏蔽的问题，只有在签署中点名该规则时才通过。",
    ),
    variants={
        "na": T(
            en="no new changelog entry sets `append-only: true`",
            zh="没有新增的 changelog 条目设置 `append-only: true`",
        ),
        "ok": T(
            en="the `append-only: true` entries are not mixed with regular entries",
            zh="`append-only: true` 条目没有与普通条目混在一起",
        ),
    },
)
