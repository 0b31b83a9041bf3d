"""SGN009: the `reuse-sweep` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN009",
    slug="reuse-sweep",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Reuse-sweep command",
        zh="复用扫描命令",
    ),
    message=T(
        en="Someone with write access posted `/reuse-sweep-run`",
        zh="拥有写权限者发布了 `/reuse-sweep-run`",
    ),
    rationale=T(
        en="The line must be exactly the repository's syntax, `^\\s*/reuse-sweep-run(?:\\s+(\\d+))?\\s*$`, posted by someone with write access.",
        zh="该行必须完全符合仓库的语法 `^\\s*/reuse-sweep-run(?:\\s+(\\d+))?\\s*$`，且由拥有写权限者发布。",
    ),
    variants={
        "permission-unknown": T(
            en="could not verify that {poster}, who posted `/reuse-sweep-run`, has write access",
            zh="无法核实发布 `/reuse-sweep-run` 的 {poster} 是否拥有写权限",
        ),
        "not-authorized": T(
            en="No authorized `/reuse-sweep-run` command has been posted on this PR (only {author}, without write access)",
            zh="本 PR 上没有授权用户发布的 `/reuse-sweep-run` 命令（仅有无写权限的 {author}）",
        ),
        "posted": T(
            en="`/reuse-sweep-run` posted by {author} (`{lower}`)",
            zh="{author}（`{lower}`）已发布 `/reuse-sweep-run`",
        ),
        "comments-unread": T(
            en="could not verify `/reuse-sweep-run`: the PR's comments were not available",
            zh="无法核实 `/reuse-sweep-run`：未能获取本 PR 的评论",
        ),
        "none": T(
            en="No authorized `/reuse-sweep-run` command has been posted on this PR",
            zh="本 PR 上没有授权用户发布的 `/reuse-sweep-run` 命令",
        ),
    },
)
