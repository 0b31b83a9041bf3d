"""Every word the reports put around findings, in both languages: one catalogue. Pure.

A rule's own words live in its record (`rules/`), the sign-off verdict's in the SGN
records. What frames them lives here: severity names, the fix and suggestion labels,
the gate's decision, counts and summaries, the review's notes (refused, partial,
truncated, resolved), commit status descriptions. The modules that render reports
(`bot/core/gate.py`, `bot/core/model.py`, `bot/report/`, `bot/review/`, `bot/docs.py`)
take every Chinese word from here; `tests/test_wording.py` scans them for it, checks
that each entry has the same placeholders in both languages, and that no Chinese
text carries English prose.

An entry is looked up by name with `say(name, **params)`; a parameter that is a `T`
gives each language its own words. Markup (`**`, `<details>`, icons, table pipes) and
the ` / ` that joins the two languages on one line stay with the renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from bot.base.text import T

SEVERITY: Mapping[str, T] = MappingProxyType(
    {
        "error": T(en="error", zh="错误"),
        "warning": T(en="warning", zh="警告"),
        "info": T(en="info", zh="提示"),
    }
)

# how each language joins the items of a list
JOINERS: Mapping[str, T] = MappingProxyType(
    {
        "and": T(en=" and ", zh="、"),
        "or": T(en=" or ", zh=" 或 "),
        "list": T(en=", ", zh="、"),
        "clauses": T(en="; ", zh="；"),  # clauses of one sentence
    }
)

WORDS: Mapping[str, T] = MappingProxyType(
    {
        # a rule's severity with the conditions that change it (`bot rules`, docs, SARIF)
        "severity-when": T(en="{severity} when {when}", zh="{when}时为{severity}"),
        "severity-summary": T(en="{severity} ({conditions})", zh="{severity}（{conditions}）"),
        # a finding's fix, suggestion and proposal, as labels
        "fix": T(en="Fix: {fix}", zh="修复：{fix}"),
        "fix-label": T(en="fix: ", zh="修复："),
        "fix-md": T(en="**Fix:** {fix}", zh="**修复：** {fix}"),
        "suggestion-label": T(en="suggestion:", zh="建议改为："),
        "delete-line": T(en="(delete the line)", zh="（删除该行）"),
        "proposal-label": T(en="proposed addition:", zh="建议添加："),
        "proposal-heading": T(en="Proposed addition", zh="建议添加："),
        "why": T(en="Why", zh="原因"),
        "documentation": T(en="Documentation", zh="文档"),
        # the gate's decision (`bot.core.gate.Gate.reason`), one clause per kind
        "gate-errors": T(
            en="{n} error(s) on changed lines, first `{rule}` at {where}",
            zh="改动的行上有 {n} 个错误，首个为 {where} 的 `{rule}`",
        ),
        "gate-unacknowledged": T(
            en="`{rule}` at {where} is suppressed in this PR and not acknowledged by a CODEOWNER",
            zh="{where} 的 `{rule}` 在本 PR 中被抑制，且未经 CODEOWNER 确认",
        ),
        "gate-warnings": T(
            en="{n} warning(s) on changed lines need a human, first `{rule}` at {where}",
            zh="改动的行上有 {n} 个警告需人工确认，首个为 {where} 的 `{rule}`",
        ),
        "gate-acknowledged": T(
            en="`{rule}` suppressed in this PR, {by}",
            zh="`{rule}` 在本 PR 中被抑制，{by}",
        ),
        "gate-nothing": T(
            en="the rules report nothing on what the PR changed",
            zh="规则在本 PR 的改动上未报告任何问题",
        ),
        "suppressed-by": T(
            en="suppressed in this PR by {who}: {reason}",
            zh="由 {who} 在本 PR 中抑制：{reason}",
        ),
        "the-pr": T(en="the PR", zh="本 PR"),
        "gate-pass": T(en="Gate: PASS", zh="门禁：通过"),
        "gate-human": T(en="Gate: NEEDS A HUMAN", zh="门禁：需人工确认"),
        "gate-fail": T(en="Gate: BLOCKED", zh="门禁：阻止合并"),
        # counts
        "counts": T(
            en="{error} error(s), {warning} warning(s), {info} info",
            zh="错误 {error}，警告 {warning}，提示 {info}",
        ),
        "text-counts": T(
            en="{error}, {warning}, {info} info in {files} checked",
            zh="检查了 {files} 个文件：错误 {error}，警告 {warning}，提示 {info}",
        ),
        "text-clean": T(
            en="No problems found in {files} checked",
            zh="检查了 {files} 个文件，未发现问题",
        ),
        "text-suppressed": T(en=" ({n} suppressed)", zh="（已抑制 {n} 条）"),
        # the review: its summary, its own body, its inline comments
        "finding": T(en="Finding", zh="问题"),
        "more-rows": T(en="… {n} more", zh="另有 {n} 条"),
        "no-findings": T(en="No findings on `{sha}`.", zh="`{sha}` 未发现问题。"),
        "same-as": T(
            en="Same finding as on line {line} of this file; see the comment there.",
            zh="与本文件第 {line} 行的问题相同，详见该处评论。",
        ),
        "inline-count": T(
            en="{n} finding(s) are inline comments on the diff.",
            zh="{n} 条问题已作为差异中的行内评论。",
        ),
        "not-inline": T(
            en="{n} finding(s) are not inline (on lines this PR did not change, or not "
            "placeable on the diff):",
            zh="{n} 条问题不在行内评论中（位于本 PR 未修改的行，或无法定位到差异）：",
        ),
        "suppressed-heading": T(en="Suppressed in this PR", zh="本 PR 中的抑制："),
        "suppression-note": T(
            en="A suppression added by the PR does not pass the gate: a CODEOWNER acknowledges "
            "it by naming the rule id in the sign-off.",
            zh="本 PR 新增的抑制不能使门禁通过：需要 CODEOWNER 在签署中写明规则编号予以确认。",
        ),
        "fixed-heading": T(en="Fixed since the last push", zh="自上次推送以来已修复："),
        "new-inline": T(en="{n} new inline comment(s)", zh="{n} 条新的行内评论"),
        "refused-below": T(
            en="GitHub could not place {n} comment(s) on the diff; they are listed below.",
            zh="GitHub 无法将 {n} 条评论定位到差异中的行，已在下方列出。",
        ),
        "outside-diff-note": T(
            en="{n} finding(s) outside the diff are listed in the summary.",
            zh="另有 {n} 条问题不在本次改动范围内，列于摘要中。",
        ),
        "refused-note": T(
            en="GitHub could not place {n} inline comment(s) on the diff; their findings are "
            "listed here.",
            zh="GitHub 无法定位 {n} 条行内评论，相应问题在此列出。",
        ),
        "partial-note": T(
            en="**Partial review**: GitHub lists {listed} of the {total} files this PR changes; "
            "the other {rest} were not reviewed.",
            zh="**部分审查**：GitHub 只列出本 PR 修改的 {total} 个文件中的 {listed} 个，"
            "其余 {rest} 个未审查。",
        ),
        "resolved": T(
            en="**Resolved in `{sha}`** — this finding no longer appears.",
            zh="已在 `{sha}` 中解决。",
        ),
        "original": T(en="Original", zh="原评论"),
        "truncated": T(
            en="Truncated: the full report is longer than GitHub allows. Run `bot lint` "
            "locally for all findings.",
            zh="内容过长已截断，请在本地运行 `bot lint` 查看全部结果。",
        ),
        "config-invalid": T(
            en="The repository's bot configuration is invalid: {error}",
            zh="仓库的机器人配置无效：{error}",
        ),
        # the review as a check run (`bot.review.checkrun`, `bot.review.checks`)
        "conclusion-failure": T(en="Blocked", zh="阻止合并"),
        "conclusion-action_required": T(en="Needs a human", zh="需人工确认"),
        "conclusion-success": T(en="Passed", zh="通过"),
        "conclusion-neutral": T(en="Nothing to check", zh="无需检查"),
        "config-invalid-title": T(en="Invalid .recipe-bot.yml", zh="仓库机器人配置无效"),
        "safe-fixes": T(
            en="{n} finding(s) have a safe fix: {button} above commits them to the branch "
            "(`bot lint --fix`).",
            zh="{n} 条问题有安全修复：点击上方的{button} 即可将其提交到分支（等同 `bot lint --fix`）。",
        ),
        "annotated": T(
            en="{n} finding(s) on changed lines are annotations on the diff.",
            zh="改动行上的 {n} 条问题已作为差异注释显示。",
        ),
        "not-annotated": T(
            en="{n} more finding(s) on changed lines are not annotated (at most {limit} per "
            "check run).",
            zh="另有 {n} 条改动行上的问题未作为注释显示（每个检查运行最多 {limit} 条）。",
        ),
        "cut": T(en="cut at GitHub's size limit", zh="已按 GitHub 长度限制截断"),
        "changed-line": T(en="changed", zh="改动行"),
        "not-reviewed": T(en="Not reviewed", zh="未审查"),
        "head-moved": T(en="the head moved during the review", zh="审查期间分支头已更新"),
        # what the review of a changed shared launch file covered (`SharedCheck.describe`)
        "shared-unread": T(
            en="`{path}` is shared launch code used by {n} recipe(s); no check of theirs "
            "reads it, so none needed linting again.",
            zh="`{path}` 是共享启动代码，有 {n} 个配方使用它；它们的检查都不读取该文件，因此无需重新检查。",
        ),
        "shared-linted": T(
            en="`{path}` is shared launch code used by {n} recipe(s): {linted} of them linted "
            "on base and head{more}; {introduced} finding(s) new with this change.",
            zh="`{path}` 是共享启动代码，有 {n} 个配方使用它：其中 {linted} 个在基准版本与新版本上"
            "都已检查{more}；本次修改新引入 {introduced} 个问题。",
        ),
        "shared-first": T(en=" (only the first {n})", zh="（仅前 {n} 个）"),
        # how a finding of a recipe reads on the line of a shared file it uses
        "via-shared": T(
            en="{message} (in `{recipe}` line {line}, which uses `{shared}`; new with this change)",
            zh="{message}（见 `{recipe}` 第 {line} 行，该文件使用 `{shared}`；由本次修改引入）",
        ),
        # GitHub annotations past GitHub's limit per level
        "annotations-omitted": T(
            en="{n} more finding(s) not shown as annotations (GitHub shows at most {limit} per "
            "level); run `bot lint` for the full list",
            zh="另有 {n} 条问题未显示为注释（GitHub 每个级别最多显示 {limit} 条）；"
            "运行 `bot lint` 查看完整列表",
        ),
        # the advisor's section (never a merge gate)
        "advisor-title": T(en="Advisor (not a merge gate)", zh="顾问（不是合并门禁）"),
        "advisor-none": T(en="no advice", zh="无建议"),
        "advisor-none-md": T(en="No advice.", zh="无建议。"),
        "advisor-concerns": T(en="concern(s)", zh="条疑虑"),
        "advisor-note": T(
            en="Advice from a language model on questions no rule can decide. It never changes "
            "the status, a sign-off verdict or a finding.",
            zh="语言模型针对规则无法判定的问题给出的建议，不影响状态、签核结论或检查结果。",
        ),
        "verdict-concern": T(en="concern", zh="有疑虑"),
        "verdict-no_concern": T(en="no concern", zh="无疑虑"),
        "verdict-cannot_tell": T(en="cannot tell", zh="无法判断"),
        "question-upstream_args": T(
            en="Server args vs the upstream recipe", zh="服务参数与上游配方对照"
        ),
        "question-waiver_coverage": T(
            en="Waiver covers the engine patch", zh="豁免是否覆盖引擎补丁"
        ),
        "question-append_only_gating": T(
            en="Append-only hunks gated to new points", zh="append-only 改动是否仅作用于新点"
        ),
        "question-signoff_reasons": T(
            en="Reasons for unchecked sign-off items", zh="未勾选签核项的理由"
        ),
        "question-sibling_diff": T(
            en="Differences from the proven sibling recipe", zh="与已验证同类配方的差异"
        ),
        "question-claims_match": T(
            en="Stated values vs parsed values", zh="陈述的数值与解析值对照"
        ),
        # commit status descriptions (GitHub shows the English, at most 140 characters)
        "status-fail": T(
            en="{n} error(s) on changed lines, {warnings} warning(s)",
            zh="改动的行上有 {n} 个错误，{warnings} 个警告",
        ),
        "status-human": T(en="Needs a human: {reasons}", zh="需人工确认：{reasons}"),
        "status-warnings": T(
            en="{n} warning(s) on changed lines",
            zh="改动的行上有 {n} 个警告",
        ),
        "status-suppressed": T(
            en="{n} finding(s) suppressed in this PR",
            zh="{n} 条问题在本 PR 中被抑制",
        ),
        "status-elsewhere": T(
            en="Nothing on changed lines; {n} finding(s) elsewhere",
            zh="改动的行上没有问题；其他位置有 {n} 条",
        ),
        "status-clean": T(en="No findings", zh="未发现问题"),
        "status-partial": T(
            en="Needs a human: partial review, GitHub lists {listed} of {total} files",
            zh="需人工确认：部分审查，GitHub 只列出 {total} 个文件中的 {listed} 个",
        ),
    }
)


def say(name: str, /, **params: Any) -> T:
    """The catalogue's entry `name`, filled with `params` in each language."""
    return WORDS[name].format(params)


def both(text: T, sep: str = " / ") -> str:
    """English, then Chinese, on one line (the review's bilingual frames)."""
    return f"{text.en}{sep}{text.zh}"
