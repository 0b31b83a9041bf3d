"""The review's check run on GitHub: found or created `in_progress` when the review
starts, completed with the review's verdict when it ends. Through the gateway only.

One check run per reviewed head and name, written by the bot's own App: a review of
a head reuses the newest run it already has there (a retry after a crash, a second
delivery for the same head), so no retry ever adds a second run; a re-run request
(`run_key`: GitHub's "Re-run" button) gets a run of its own, keyed by `external_id`
so that a retry of that re-run finds it again. Annotations already on a reused run are
not sent twice (GitHub appends them on every update).

`external_id` starts with the pull request's number (`"12"`, `"12:rerun-5"`): a
`check_run` event from a fork's pull request, whose payload lists no pull request,
still names it.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Sequence
from dataclasses import field

from bot.base.records import dataclass
from bot.base.text import T
from bot.core.wording import both, say
from bot.github.types import (
    Annotation,
    CheckRun,
    CheckRunAction,
    CheckRunOutput,
    Gateway,
    GitHubError,
)
from bot.review import checkrun

log = logging.getLogger("bot.review")


def now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def external_id(number: int, run_key: str | None) -> str:
    return f"{number}:{run_key}" if run_key else str(number)


@dataclass
class Started:
    """The check run a review writes to."""

    id: int
    name: str
    head_sha: str
    external_id: str
    # annotations the run already carries (a reused run): not sent again
    present: set[tuple[str, int, int, str, str, str]] = field(default_factory=set)


def _key(a: Annotation) -> tuple[str, int, int, str, str, str]:
    return (*a.key, a.message)


def start(
    gw: Gateway,
    repo: str,
    number: int,
    head_sha: str,
    name: str,
    me: str,
    *,
    run_key: str | None = None,
    details_url: str | None = None,
) -> Started | None:
    """The head's check run, found or created `in_progress`; None when the credential
    cannot write check runs (a personal token: GitHub answers 403)."""
    ours = [
        r
        for r in gw.check_runs(repo, head_sha)
        if r.name == name and r.id is not None and f"{r.app_slug}[bot]".lower() == me.lower()
    ]
    wanted = external_id(number, run_key)
    if run_key is not None:
        found = [r for r in ours if r.external_id == wanted] or [
            r for r in ours if r.status != "completed"
        ]
    else:
        found = ours
    if found:
        run = max(found, key=lambda r: r.id or 0)
        assert run.id is not None
        present = {_key(a) for a in gw.check_run_annotations(repo, run.id)}
        # a re-run adopting a run a crashed review left running makes it its own
        key = wanted if run_key is not None else run.external_id
        return Started(run.id, name, head_sha, key, present)
    try:
        run_id = gw.create_check_run(
            repo,
            CheckRun(
                name=name,
                head_sha=head_sha,
                status="in_progress",
                external_id=wanted,
                details_url=details_url,
                started_at=now_iso(),
            ),
        )
    except GitHubError as err:
        if err.status == 403:  # not an App (or no `checks: write`): the status still reports
            log.warning("%s#%d: cannot create a check run (%s)", repo, number, err)
            return None
        raise
    return Started(run_id, name, head_sha, wanted)


def complete(
    gw: Gateway,
    repo: str,
    run: Started,
    *,
    conclusion: str,
    title: str,
    summary: str,
    text: str,
    annotations: Sequence[Annotation],
    actions: Sequence[CheckRunAction] = (),
    details_url: str | None = None,
) -> int:
    """Send the annotations the run does not carry yet, 50 per update, and complete it
    with the last batch; returns how many annotations were sent."""
    todo = [a for a in annotations if _key(a) not in run.present]
    batches = checkrun.batches(todo)
    for batch in batches[:-1]:
        gw.update_check_run(
            repo,
            run.id,
            CheckRun(run.name, run.head_sha, output=CheckRunOutput(title, summary, text, batch)),
        )
        run.present.update(_key(a) for a in batch)
    gw.update_check_run(
        repo,
        run.id,
        CheckRun(
            run.name,
            run.head_sha,
            status="completed",
            conclusion=conclusion,
            completed_at=now_iso(),
            external_id=run.external_id,
            details_url=details_url,
            output=CheckRunOutput(title, summary, text, batches[-1]),
            actions=tuple(actions),
        ),
    )
    run.present.update(_key(a) for a in batches[-1])
    return len(todo)


def abandon(gw: Gateway, repo: str, run: Started, why: T) -> None:
    """Complete a run whose review stopped without a verdict (the head moved): neutral."""
    gw.update_check_run(
        repo,
        run.id,
        CheckRun(
            run.name,
            run.head_sha,
            status="completed",
            conclusion="neutral",
            completed_at=now_iso(),
            output=CheckRunOutput(
                f"{both(say('not-reviewed'))}: {why.en}", f"{why.en}\n\n{why.zh}\n"
            ),
            actions=(),
        ),
    )
