"""Review one pull request: fetch -> lint (`bot.app.pull`) -> plan (pure) -> post.

The gateway is injected; this module never imports PyGithub. It is safe to
re-run at any point: what the bot already posted is read back first (by the
hidden markers in comments written by the bot's own account) and not posted
again, so a retry after a crash or a 5xx never duplicates a comment.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from bot.advisor.render import section_in, with_section
from bot.app.pull import lint_pull
from bot.core.model import T
from bot.core.registry import all_rules
from bot.github.types import Comment, Gateway, Posted, Status
from bot.report.links import RULES_URL
from bot.review import render

DOCS_URL = RULES_URL


@dataclass(frozen=True)
class ReviewSettings:
    status_context: str = "recipe-review"
    review_drafts: bool = False
    docs_url: str = DOCS_URL
    bot_login: str | None = None


def _mine(gw: Gateway, repo: str, number: int, me: str) -> list[Comment]:
    comments = (
        gw.review_comments(repo, number)
        + gw.issue_comments(repo, number)
        + gw.reviews(repo, number)
    )
    return [c for c in comments if c.author == me]


def review_pull_request(
    gateway: Gateway,
    repo: str,
    number: int,
    *,
    settings: ReviewSettings | None = None,
    expected_head: str | None = None,
    today: datetime.date | None = None,
) -> Posted:
    settings = settings or ReviewSettings()
    gw = gateway
    pull = gw.pull(repo, number)
    if pull.state != "open":
        return Posted(skipped=[f"pull request is {pull.state}"])
    if pull.draft and not settings.review_drafts:
        return Posted(skipped=["draft pull request"])
    if expected_head is not None and pull.head_sha != expected_head:
        return Posted(skipped=[f"head moved to {pull.head_sha[:7]}; a newer review covers it"])
    me = settings.bot_login or gw.login()
    files = gw.pull_files(repo, number)
    outcome = lint_pull(gw, pull, files, today or datetime.date.today())
    mine = _mine(gw, repo, number, me)
    rationale: dict[str, T] = {rm.rule.id: rm.rule.rationale for rm in all_rules()}
    findings = outcome.report.findings
    silenced = outcome.report.silenced
    plan = render.plan_review(findings, mine, pull.head_sha, rationale, settings.docs_url, silenced)
    if outcome.config_error is not None:
        plan.summary = render.truncate(
            "## recipe-review\n\n"
            f"❌ The repository's bot configuration is invalid: {outcome.config_error}\n\n"
            f"❌ 仓库的机器人配置无效：{outcome.config_error}\n\n" + render.SUMMARY_MARK
        )
    if plan.summary_comment is not None:
        # the advise job's collapsed section for this very head survives a re-review
        kept = section_in(plan.summary_comment.body)
        if kept is not None and kept[0] == pull.head_sha:
            plan.summary = render.truncate(with_section(plan.summary, kept[1]))
    posted = Posted()
    # re-read the head just before writing: a push during linting makes
    # this review stale, and a newer job will review the new head
    if gw.pull(repo, number).head_sha != pull.head_sha:
        return Posted(skipped=["head moved during review"])
    for comment in plan.resolve:
        gw.edit_review_comment(repo, comment.id, render.resolved_body(comment.body, pull.head_sha))
        posted.resolved += 1
    if plan.review_body is not None:
        comments = [c for _, c in plan.inline]
        posted.review_id = gw.create_review(repo, number, pull.head_sha, plan.review_body, comments)
        posted.inline = len(comments)
    if plan.summary_comment is not None:
        if plan.summary_comment.body != plan.summary:
            gw.edit_issue_comment(repo, plan.summary_comment.id, plan.summary)
        posted.summary_comment_id = plan.summary_comment.id
    else:
        posted.summary_comment_id = gw.create_issue_comment(repo, number, plan.summary)
    url = f"{pull.html_url}#issuecomment-{posted.summary_comment_id}" if pull.html_url else None
    if outcome.config_error is not None:
        status = Status("error", settings.status_context, "Invalid .recipe-bot.yml", url)
    else:
        status = render.status_for(findings, settings.status_context, url, silenced)
    gw.set_status(repo, pull.head_sha, status)
    posted.status = status
    return posted
