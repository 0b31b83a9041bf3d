"""Review one pull request: fetch -> lint (`bot.app.pull`) -> plan (pure) -> post.

The gateway is injected; this module never imports PyGithub. It is safe to
re-run at any point: what the bot already posted is read back first (by the
hidden markers in comments written by the bot's own account) and not posted
again, so a retry after a crash or a 5xx never duplicates a comment.
"""

from __future__ import annotations

import datetime
import logging
from dataclasses import field

from bot.advisor.render import section_in, with_section
from bot.app.pull import ParseCache, PullLint, lint_pull
from bot.base.records import dataclass
from bot.core.changeset import FileChange
from bot.core.model import Finding, T
from bot.core.registry import all_rules
from bot.core.suppress import Silenced
from bot.core.wording import say
from bot.github.types import (
    Comment,
    Gateway,
    GitHubError,
    Posted,
    PullFile,
    PullInfo,
    Status,
)
from bot.report.links import RULES_URL
from bot.review import checkrun, checks, fixes, render

DOCS_URL = RULES_URL
log = logging.getLogger("bot.review")


@dataclass(frozen=True)
class ReviewSettings:
    status_context: str = "recipe-review"
    review_drafts: bool = False
    docs_url: str = DOCS_URL
    bot_login: str | None = None
    # the check run's name; None: no check run (the service turns it on, `BOT_CHECK_RUN`)
    check_run: str | None = None
    commit_status: bool = True  # the commit status `status_context` (`BOT_COMMIT_STATUS`)
    # the sticky summary comment; off only where the check run carries the summary
    summary_comment: bool = True
    # offer "Apply safe fixes" on the check run (where the PR has safe fixes, its head
    # branch is in the base repository and the App may write contents)
    fix_action: bool = False
    # files parsed by earlier reviews, by blob SHA (`bot.app.pull.service_parses`)
    parses: ParseCache | None = field(default=None, compare=False)


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
    run_key: str | None = None,
) -> Posted:
    """Review the PR's current head. `expected_head` (the newest head a delivery named)
    is a hint only: deliveries arrive in any order, GitHub's answer decides which head is
    the newest (`Posted.head_sha` says which one was reviewed). `run_key`: this review
    answers a re-run request for `expected_head` and gets a check run of its own (keyed
    by it, so a retry finds it again), when that head is still the PR's."""
    settings = settings or ReviewSettings()
    gw = gateway
    pull = gw.pull(repo, number)
    if pull.state != "open":
        return Posted(skipped=[f"pull request is {pull.state}"], head_sha=pull.head_sha)
    if pull.draft and not settings.review_drafts:
        return Posted(skipped=["draft pull request"], head_sha=pull.head_sha)
    me = settings.bot_login or gw.login()
    run: checks.Started | None = None
    if settings.check_run:
        key = run_key if run_key is not None and expected_head == pull.head_sha else None
        run = checks.start(
            gw,
            repo,
            number,
            pull.head_sha,
            settings.check_run,
            me,
            run_key=key,
            details_url=pull.html_url or None,
        )
    refused = run is None and settings.check_run is not None
    files = gw.pull_files(repo, number)
    outcome = lint_pull(gw, pull, files, today or datetime.date.today(), settings.parses)
    mine = _mine(gw, repo, number, me)
    rationale: dict[str, T] = {rm.rule.id: rm.rule.rationale for rm in all_rules()}
    findings = outcome.report.findings
    silenced = outcome.report.silenced
    partial = _partial(pull, files)
    plan = render.plan_review(findings, mine, pull.head_sha, rationale, settings.docs_url, silenced)
    # findings GitHub refused to place inline on this head (a 422 before) stay in the summary
    render.keep_refused_outside(plan, mine, pull.head_sha)
    posted = Posted(head_sha=pull.head_sha, partial=partial is not None)
    posted.check_runs_refused = refused
    # re-read the head just before writing: a push during linting makes
    # this review stale, and a newer job will review the new head
    now = gw.pull(repo, number).head_sha
    if now != pull.head_sha:
        if run is not None:
            checks.abandon(gw, repo, run, say("head-moved"))
        return Posted(skipped=["head moved during review"], head_sha=now)
    for comment in plan.resolve:
        gw.edit_review_comment(repo, comment.id, render.resolved_body(comment.body, pull.head_sha))
        posted.resolved += 1
    not_placed: list[Finding] = []
    if plan.review_body is not None:
        not_placed = _post_review(gw, pull, plan, posted)
    summary = _summary(plan, findings, silenced, pull.head_sha, outcome, partial, not_placed)
    if settings.summary_comment or run is None:
        if plan.summary_comment is not None:
            if plan.summary_comment.body != summary:
                gw.edit_issue_comment(repo, plan.summary_comment.id, summary)
            posted.summary_comment_id = plan.summary_comment.id
        else:
            posted.summary_comment_id = gw.create_issue_comment(repo, number, summary)
    url = pull.html_url or None
    if url and posted.summary_comment_id is not None:
        url = f"{pull.html_url}#issuecomment-{posted.summary_comment_id}"
    if outcome.config_error is not None:
        status = Status("error", settings.status_context, "Invalid .recipe-bot.yml", url)
    else:
        status = render.status_for(findings, settings.status_context, url, silenced)
        if partial is not None:
            status = render.partial_status(status, *partial)
    if run is not None:
        _complete_run(gw, pull, run, outcome, summary, rationale, settings, partial, url, posted)
    if settings.commit_status or run is None:
        gw.set_status(repo, pull.head_sha, status)
        posted.status = status
    return posted


def _summary(
    plan: render.Plan,
    findings: list[Finding],
    silenced: list[Silenced],
    head_sha: str,
    outcome: PullLint,
    partial: tuple[int, int] | None,
    refused: list[Finding],
) -> str:
    """The review's summary as posted: the plan's (again when GitHub refused inline
    comments, which it then lists), with its notes and the advisor's kept section."""
    summary = plan.summary
    if refused:
        summary = render.with_refused_note(
            render.summary_body(findings, plan.outside, plan.fixed, head_sha, silenced),
            len(refused),
        )
    summary = render.with_shared_note(summary, outcome.report.shared)
    if partial is not None:
        summary = render.with_partial_note(summary, *partial)
    if outcome.config_error is not None:
        invalid = say("config-invalid", error=outcome.config_error)
        summary = render.truncate(
            f"## recipe-review\n\n❌ {invalid.en}\n\n❌ {invalid.zh}\n\n" + render.SUMMARY_MARK
        )
    if plan.summary_comment is not None:
        # the advise job's collapsed section for this very head survives a re-review
        kept = section_in(plan.summary_comment.body)
        if kept is not None and kept[0] == head_sha:
            summary = render.truncate(with_section(summary, kept[1]))
    return summary


def _complete_run(
    gw: Gateway,
    pull: PullInfo,
    run: checks.Started,
    outcome: PullLint,
    summary: str,
    rationale: dict[str, T],
    settings: ReviewSettings,
    partial: tuple[int, int] | None,
    details_url: str | None,
    posted: Posted,
) -> None:
    """Complete the head's check run with the review's verdict and annotations."""
    report = outcome.report
    verdict = checkrun.verdict(
        report.findings,
        report.silenced,
        checked=bool(report.files or report.findings or report.silenced),
        partial=partial is not None,
        config_error=outcome.config_error is not None,
    )
    annotations, left_out = checkrun.annotations_for(report.findings)
    actions = []
    fixable = 0
    if settings.fix_action and outcome.config_error is None:
        fixable = fixes.offer(gw, pull, report.findings)
        if fixable:
            actions.append(checkrun.fix_action(fixable))
    posted.annotations = checks.complete(
        gw,
        pull.repo,
        run,
        conclusion=verdict.conclusion,
        title=verdict.title,
        summary=checkrun.summary(summary, len(annotations), left_out, fixable),
        text=checkrun.details(report.findings, rationale, settings.docs_url),
        annotations=annotations,
        actions=actions,
        details_url=details_url,
    )
    posted.check_run_id = run.id
    posted.conclusion = verdict.conclusion


def _partial(pull: PullInfo, files: list[PullFile]) -> tuple[int, int] | None:
    """(files listed, files changed) when GitHub listed only part of the PR's files: its
    list stops at 3,000 (documented), `changed_files` counts them all."""
    total = pull.changed_files
    if total is not None and total > len(files):
        return len(files), total
    return None


def _post_review(gw: Gateway, pull: PullInfo, plan: render.Plan, posted: Posted) -> list[Finding]:
    """Post the planned review; returns the findings whose inline comment GitHub refused.

    GitHub refuses a whole review (422) when one of its comments cannot be placed, and
    does not say which. The comments are placed again against the diff GitHub lists now
    (it may have changed since the plan: a base retarget, a force-push of the base), the
    ones that no longer fit move to the review body and the summary, and the review is
    sent again; when GitHub still refuses it, it is sent without inline comments. When
    even that is refused, no review is posted this time (logged): the caller still
    writes the summary, which lists every finding, and the status."""
    assert plan.review_body is not None
    repo, number, head = pull.repo, pull.number, pull.head_sha
    inline = list(plan.inline)
    attempts: list[list[render.Inline]] = [inline]
    try:
        comments = [c for _, c in inline]
        posted.review_id = gw.create_review(repo, number, head, plan.review_body, comments)
        posted.inline = len(inline)
        return []
    except GitHubError as err:
        if err.status != 422:
            raise
        log.warning("%s#%d: GitHub refused the review (%s); placing it again", repo, number, err)
        if not inline:
            return []
    lines = {
        f.path: set(FileChange.from_patch(f.path, f.patch).shown_lines) if f.patch else set()
        for f in gw.pull_files(repo, number)
    }
    placeable = [item for item in inline if render.placeable(item.comment, lines)]
    if placeable and len(placeable) < len(inline):
        attempts.append(placeable)
    attempts.append([])  # the last resort: no inline comment at all
    refused: list[Finding] = []
    for keep in attempts[1:]:
        refused = [f for item in inline if item not in keep for f in item.findings]
        body = render.review_body(len(keep), [*plan.outside, *refused], head, refused=refused)
        try:
            posted.review_id = gw.create_review(repo, number, head, body, [c for _, c in keep])
        except GitHubError as err:
            if err.status != 422:
                raise
            # refused even without inline comments: the summary and the status still say
            # everything, so they are written; the next run tries the review again
            log.warning("%s#%d: GitHub refused the review again (%s)", repo, number, err)
            continue
        posted.inline = len(keep)
        break
    posted.refused = len(refused)
    plan.outside = [*plan.outside, *refused]
    return refused
