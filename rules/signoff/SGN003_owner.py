"""SGN003: the `owner` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN003",
    slug="owner",
    severity=ERROR,
    target="signoff",
    title=T(
        en="CODEOWNER",
        zh="CODEOWNER 归属",
    ),
    message=T(
        en="The signer owns every changed path in CODEOWNERS and has write access",
        zh="签署人是所有变更路径的 CODEOWNER，且拥有写权限",
    ),
    rationale=T(
        en="CODEOWNERS is read from the base branch (last matching line wins). A path owned by a specific line needs the signer on that line, by name or through a team; a path owned only by the catch-all is covered by any CODEOWNER. The signer needs `admin`, `maintain` or `write`; bots never count. Membership of a team the token cannot read counts for a member of the organisation (`knowledge.signoff.unreadable_teams`). Several sign-offs combine across CODEOWNERS groups; the row names the groups still missing.",
        zh="CODEOWNERS 从基础分支读取（以最后匹配的行为准）。由特定行拥有的路径要求签署人本人或其所在团队列在该行；只由兜底规则拥有的路径可由任意 CODEOWNER 覆盖。签署人须拥有 `admin`、`maintain` 或 `write` 权限；机器人不计入。令牌无法读取的团队成员资格，组织成员可计入（`knowledge.signoff.unreadable_teams`）。多份签署可按 CODEOWNERS 分组合并；该行列出仍缺签署的分组。",
    ),
)
