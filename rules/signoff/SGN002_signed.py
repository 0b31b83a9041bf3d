"""SGN002: the `signed` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN002",
    slug="signed",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Signature",
        zh="签名",
    ),
    message=T(
        en="`Signed:` names the comment's author",
        zh="`Signed:` 写明了评论作者",
    ),
    rationale=T(
        en="The template ends with `Signed: FILL_IN_GITHUB_USERNAME`; a sign-off counts only when that line names the GitHub login of the comment's author, so nobody signs on someone else's behalf.",
        zh="模板以 `Signed: FILL_IN_GITHUB_USERNAME` 结尾；只有该行写明评论作者的 GitHub 用户名时签署才有效，避免代他人签署。",
    ),
    variants={
        "names-author": T(
            en="`Signed:` names the comment's author {signer}",
            zh="`Signed:` 与评论作者 {signer} 一致",
        ),
        "names-other": T(
            en="`Signed:` names {login}, but the comment is by {signer}",
            zh="`Signed:` 写的是 {login}，但评论作者是 {signer}",
        ),
        "missing": T(
            en="no `Signed:` line",
            zh="缺少 `Signed:` 行",
        ),
        "placeholder": T(
            en="`Signed:` still holds the placeholder `FILL_IN_GITHUB_USERNAME`",
            zh="`Signed:` 仍是占位符 `FILL_IN_GITHUB_USERNAME`",
        ),
        "no-login": T(
            en="`Signed:` names no GitHub login",
            zh="`Signed:` 未写明 GitHub 用户名",
        ),
    },
)
