"""The service's advise job: advice for one PR head into the sticky summary. An edge.

Queued by a worker after the deterministic review of a head finished (so it never delays
it), run as its own job kind. It lints the head again (pure, cached by blob), asks the
questions whose triggers fire, and edits the collapsed "Advisor" section of the bot's own
sticky summary, found by kind (`bot.report.markers.is_summary_comment`). It never writes a
status, a verdict, a review or an inline comment. On 429/529 it reports `deferred`; the
worker retries it later and, after the queue's attempts, drops it.
"""

from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Callable
from dataclasses import field
from typing import Any, Literal

from bot.advisor import render as advice_render
from bot.advisor.questions import SIGNOFF_PHRASE, PrText, build_questions
from bot.app.pull import ParseCache, lint_pull
from bot.base.records import dataclass
from bot.github.types import Gateway, GitHubError
from bot.report import markers

log = logging.getLogger("bot.advisor")

_BLOB_URL = re.compile(r"^https://github\.com/([\w.-]+/[\w.-]+)/blob/([\w./-]+?)/(\S+)$")


@dataclass
class AdvisePosted:
    result: Literal["", "advised", "deferred", "skipped"] = ""  # "": not yet decided
    items: int = 0
    calls: int = 0
    cached: int = 0
    deferred: float | None = None
    skipped: list[str] = field(default_factory=list)
    comment_id: int | None = None


def _upstream(gw: Gateway) -> Callable[[str], str | None]:
    """Upstream recipes linked as GitHub blob URLs, read through the gateway."""

    def fetch(url: str) -> str | None:
        m = _BLOB_URL.match(url.split("#")[0])
        if not m:
            return None
        repo, ref, path = m.groups()
        try:
            data = gw.read(repo, path, ref)
        except GitHubError:
            return None
        return data[:200_000].decode("utf-8", errors="replace") if data else None

    return fetch


def advise_pull_request(
    gw: Gateway,
    advisor: Any,
    repo: str,
    number: int,
    head_sha: str,
    *,
    installation: str = "",
    bot_login: str | None = None,
    today: datetime.date | None = None,
    parses: ParseCache | None = None,
) -> AdvisePosted:
    pull = gw.pull(repo, number)
    if pull.state != "open":
        return AdvisePosted("skipped", skipped=[f"pull request is {pull.state}"])
    if pull.head_sha != head_sha:
        return AdvisePosted("skipped", skipped=[f"head moved to {pull.head_sha[:7]}"])
    me = (bot_login or gw.login()).lower()
    comments = gw.issue_comments(repo, number)
    summaries = [
        c
        for c in comments
        if c.author.lower() == me and c.kind == "issue" and markers.is_summary_comment(c.body)
    ]
    if not summaries:
        return AdvisePosted("skipped", skipped=["no summary comment to add advice to"])
    summary = min(summaries, key=lambda c: c.id)
    files = gw.pull_files(repo, number)
    outcome = lint_pull(gw, pull, files, today or datetime.date.today(), parses)
    if outcome.ctx is None or outcome.ctx.change is None:
        return AdvisePosted("skipped", skipped=["no lint context (invalid configuration)"])
    signoffs = tuple(
        c.body
        for c in comments
        if c.author.lower() != me and not c.author.endswith("[bot]") and SIGNOFF_PHRASE in c.body
    )
    questions = build_questions(
        outcome.ctx.change,
        PrText(title=pull.title, body=pull.body, signoffs=signoffs),
        head_paths=outcome.ctx.all_paths(),
        upstream=_upstream(gw),
    )
    if not questions:
        section = ""
        run = None
    else:
        run = advisor.advise(
            questions,
            head_sha=head_sha,
            installation=installation or repo,
            findings=outcome.report.findings,
        )
        if run.deferred is not None:
            return AdvisePosted("deferred", deferred=run.deferred, calls=run.calls)
        note = ""
        if run.errors:
            note = f"{len(run.errors)} question(s) could not be answered"
        section = advice_render.summary_section(run.items, head_sha, note)
    posted = AdvisePosted(
        "advised",
        items=len(run.items) if run else 0,
        calls=run.calls if run else 0,
        cached=run.cached if run else 0,
        comment_id=summary.id,
    )
    # re-read just before writing: a newer review may have rewritten the summary
    if gw.pull(repo, number).head_sha != head_sha:
        return AdvisePosted("skipped", skipped=["head moved during advice"])
    current = next((c for c in gw.issue_comments(repo, number) if c.id == summary.id), summary)
    if markers.summary_head(current.body) not in (None, head_sha):
        return AdvisePosted("skipped", skipped=["the summary describes another head"])
    body = markers.truncate(advice_render.with_section(current.body, section))
    if body != current.body:
        gw.edit_issue_comment(repo, summary.id, body)
    return posted
