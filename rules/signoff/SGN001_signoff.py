"""SGN001: the `signoff` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN001",
    slug="signoff",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Sign-off",
        zh="签署",
    ),
    message=T(
        en="A live sign-off exists and nobody but the signer edited it",
        zh="存在有效的签署，且除签署人外无人编辑过",
    ),
    rationale=T(
        en="A sign-off is a comment holding the checklist phrase on a live line: not in a quote, a code block, a code span or an HTML comment, which show someone else's sign-off or the template itself. An edit by anyone but the signer voids it.",
        zh="签署是在有效行（不在引用、代码块、行内代码或 HTML 注释中）上包含清单语句的评论；引用或代码块展示的是他人的签署或模板本身。除签署人外任何人的编辑都会使签署失效。",
    ),
    variants={
        "no-phrase": T(
            en='no line holds the sign-off phrase "{signoff_phrase}"',
            zh="没有任何一行包含签署语句“{signoff_phrase}”",
        ),
        "found": T(
            en="sign-off by {signer} found at line {line}", zh="在第 {line} 行找到 {signer} 的签署"
        ),
        "edited-by-other": T(
            en="{edited_by} edited this sign-off; only the signer's own words count",
            zh="{edited_by} 编辑了这份签署；只有签署人本人的内容才有效",
        ),
        "quoted": T(
            en="the sign-off phrase appears only inside a quote (`>`), which is someone else's sign-off",
            zh="签署语句只出现在引用（`>`）中，引用的是他人的签署",
        ),
        "in-code": T(
            en="the sign-off is inside a code block or code span, where its boxes do not render",
            zh="签署位于代码块或行内代码中，复选框不会渲染",
        ),
        "in-html-comment": T(
            en="the sign-off phrase appears only inside an HTML comment, which GitHub does not show",
            zh="签署语句只出现在 HTML 注释中，GitHub 不会显示",
        ),
        "review-of-older": T(
            en="The newest sign-off ({what} by {author}) is a review of commit `{sha_7}`, not of this one; sign off again on this commit",
            zh="最新的签署（{author} 的{what}）审阅的是提交 `{sha_7}` 而非当前提交；请在当前提交上重新签署",
        ),
        "before-push": T(
            en="The newest sign-off ({what} by {author}, {at}) was made before this commit was pushed ({pushed}); sign off again on this commit",
            zh="最新的签署（{author} 的{what}，{at}）早于当前提交的推送时间（{pushed}）；请在当前提交上重新签署",
        ),
        "verified-for-older": T(
            en="The newest sign-off ({what} by {author}) was verified for commit `{sha_7}`; sign off again (or edit the sign-off) for this commit",
            zh="最新的签署（{author} 的{what}）已针对提交 `{sha_7}` 验证过；请针对当前提交重新签署（或编辑签署）",
        ),
        "withdrawn": T(
            en="The sign-off was withdrawn ({why}); post or edit a sign-off to verify again",
            zh="签署已撤回（{why}）；请发布或编辑签署以重新验证",
        ),
        "withdrawn-unrecorded": T(
            en="The sign-off was withdrawn; post or edit a sign-off to verify again",
            zh="签署已撤回；请发布或编辑签署以重新验证",
        ),
        "unsigned": T(
            en="No CODEOWNER sign-off on this pull request",
            zh="此 PR 尚无 CODEOWNER 签署",
        ),
    },
)
