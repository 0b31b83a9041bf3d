"""SGN000: the sign-off verdict itself, and the clauses every row of it shares.

`bot/signoff/render.py` takes the comment's frame from these variants (the status
words, the headers, the line saying what blocks, one line per row, the footer);
`bot/signoff/verify.py` takes the clauses rows share (a linked finding, "+N more", a
suppression the PR adds, the benchmarks the rules do not read). A row's record
(`SGN001`-`SGN025`) may use any of them as a part (`bot/signoff/wording.py`).
"""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN000",
    slug="verdict",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Sign-off verdict",
        zh="签署结论",
    ),
    message=T(
        en="The sign-off counts only when every row passes, does not apply or needs a human",
        zh="只有当每一行都通过、不适用或需人工确认时，签署才生效",
    ),
    rationale=T(
        en="The verdict comment has the shape of the repository's LLM verifier (`.github/codeowner-signoff-verify-prompt.md`): a hidden marker with the head SHA, a header, on a rejection one line naming the signer and what blocks, then one line per row starting with its status. A row that could not be verified blocks like a failure: a required status must not turn green on a fact nobody verified. A row that needs a human does not block: the CODEOWNER signed that they checked it by hand, and the row tells the maintainer what the bot did not verify. GitHub lists at most 3,000 files of a pull request (its `changed_files` counts them all): past that, every row judged from the changed files (ownership, and what the recipe rules read) that would pass or not apply cannot be verified.",
        zh="结论评论沿用仓库 LLM 验证器（`.github/codeowner-signoff-verify-prompt.md`）的格式：带有 head SHA 的隐藏标记、标题；驳回时有一行点名签署人并说明阻塞原因；之后每行一项检查，以其状态开头。无法核实的行与不通过一样会阻塞：必需的状态检查不能基于无人核实的事实变为通过。需人工确认的行不阻塞：CODEOWNER 已签署表示亲自核查过，该行告诉维护者机器人没有核实哪些内容。GitHub 最多只列出一个 PR 的 3,000 个文件（其 `changed_files` 计入全部文件）：超出时，凡依据变更文件判断的行（归属，以及配方规则读取的内容），原本通过或不适用的都无法核实。",
    ),
    variants={
        # ---- the frame of the verdict comment (bot/signoff/render.py)
        "status-pass": T(en="PASS", zh="通过"),
        "status-fail": T(en="FAIL", zh="不通过"),
        "status-na": T(en="N/A", zh="不适用"),
        "status-unknown": T(en="UNVERIFIED", zh="无法核实"),
        "status-human": T(en="NEEDS A HUMAN", zh="需人工确认"),
        "verdict-pass": T(en="**Verdict: PASS**", zh="**结论：通过**"),
        "verdict-fail": T(en="**REJECTED**", zh="**驳回**"),
        "header-pass": T(en="## ✅✅✅ {verdict} ✅✅✅", zh="## ✅✅✅ {verdict} ✅✅✅"),
        "header-fail": T(en="## ❌❌❌ {verdict} ❌❌❌", zh="## ❌❌❌ {verdict} ❌❌❌"),
        "row": T(
            en="{icon} **{title}**: {status} — {reason}",
            zh="{icon} **{title}**：{status} — {reason}",
        ),
        "row-plain": T(
            en="**{title}**: {status} — {reason}",
            zh="**{title}**：{status} — {reason}",
        ),
        "blocking": T(
            en="{signer} this sign-off does not count yet; {blocks}",
            zh="{signer} 这份签署暂不生效；{blocks}",
        ),
        "blocking-failed": T(en="failed: {titles}", zh="未通过：{titles}"),
        "blocking-unverified": T(en="could not be verified: {titles}", zh="无法核实：{titles}"),
        "footer": T(
            en="Checked at `{sha}` for {signer}'s sign-off by recipe-review bot. 👀 rows are left to a human and do not block; ❔ rows block until the bot can read them.",
            zh="recipe-review bot 于 `{sha}` 核查了 {signer} 的签署。👀 行需人工确认，不阻塞合并；❔ 行在机器人能够读取相关信息之前会阻塞合并。",
        ),
        # ---- clauses the rows share (bot/signoff/verify.py)
        "more": T(en=" (+{n} more)", zh="（另有 {n} 项）"),
        "item": T(en="“{text}”", zh="“{text}”"),
        "finding": T(en="{where}: {message}{more}", zh="{where}：{message}{more}"),
        "warned": T(en="warning {finding}", zh="警告 {finding}"),
        "suppressed-by": T(
            en="suppressed in this PR by {author}: {reason}",
            zh="由 {author} 在本 PR 中抑制：{reason}",
        ),
        "suppressed-here": T(
            en="suppressed in this PR: {reason}",
            zh="在本 PR 中被抑制：{reason}",
        ),
        "suppressed-blocks": T(
            en="{where}: {message} — {by}; a CODEOWNER acknowledges it by naming `{rule}` in the sign-off",
            zh="{where}：{message} — {by}；需要 CODEOWNER 在签署中写明 `{rule}` 予以确认",
        ),
        "suppressed-open": T(
            en="`{rule}` at {where} {by}",
            zh="{where} 的 `{rule}` {by}",
        ),
        "suppressed-acknowledged": T(
            en="`{rule}` at {where} {by} (acknowledged in the sign-off)",
            zh="{where} 的 `{rule}` {by}（签署中已确认）",
        ),
        "not-linted": T(
            en="could not verify: the PR's changes were not linted",
            zh="无法核实：本 PR 的变更未经检查",
        ),
        "files-unlisted": T(
            en="could not verify: GitHub lists {listed} of the {changed} files this PR changes; the other {rest} were not read, so a human checks them",
            zh="无法核实：GitHub 只列出了本 PR 修改的 {changed} 个文件中的 {listed} 个；其余 {rest} 个未被读取，需人工检查",
        ),
        "unread": T(
            en="the bot reads single-node recipe scripts only; check `{name}`{more} for {what} by hand",
            zh="机器人只读取单节点配方脚本；请人工检查以下内容的{what}：`{name}`{more}",
        ),
        # ---- what the service records in the verdict comment (bot/signoff/service.py)
        "item-comment": T(
            en="comment {id}",
            zh="评论 {id}",
        ),
        "item-review": T(
            en="review {id}",
            zh="审阅 {id}",
        ),
        "item-inline-comment": T(
            en="inline comment {id}",
            zh="行内评论 {id}",
        ),
        "why-deleted": T(
            en="deleted",
            zh="已删除",
        ),
        "why-dismissed": T(
            en="review dismissed",
            zh="审阅被驳回",
        ),
        "why-unsigned": T(
            en="checklist removed from it",
            zh="清单已被删除",
        ),
        "why-verdict-edited": T(
            en="a verdict comment was edited by someone else",
            zh="裁决评论被他人编辑",
        ),
        "why-verdict-deleted": T(
            en="a verdict comment was deleted by someone else",
            zh="裁决评论被他人删除",
        ),
        "why-by": T(
            en="{why} by {by}",
            zh="{why}，操作者 {by}",
        ),
        "recorded": T(
            en="Recorded",
            zh="记录",
        ),
        "both-inline": T(
            en="{en} / {zh}",
            zh="{en} / {zh}",
        ),
        "recorded-withdrawn": T(
            en="Withdrawn: {what} ({why}){by}, {at}",
            zh="已撤回：{what}（{why}）{by}，{at}",
        ),
        "recorded-by": T(
            en=" by {by}",
            zh="，操作者 {by}",
        ),
        "recorded-edited": T(
            en="Edited by {by}, not its author {author}: {what} at {at}; that version does not count",
            zh="{what} 于 {at} 被非作者 {by} 编辑（作者为 {author}），该版本无效",
        ),
        "recorded-forged": T(
            en='Ignored: {what} by {by} carries a verdict marker or "Verdict: PASS"; only this bot\'s own comments are verdicts',
            zh='已忽略：{by} 的{what} 含有裁决标记或 "Verdict: PASS"，只有本机器人自己的评论才是裁决',
        ),
    },
)
