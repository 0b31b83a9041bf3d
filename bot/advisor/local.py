"""Advice on a local lint (`bot lint --advise`): the advisor over the runs of a `LintResult`.

Only runs of a change are advised (a whole tree has no diff to ask about). The
advice is data (`AdviceRun`); the caller joins it to the report before rendering.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from bot.advisor.client import AdviceRun
from bot.advisor.questions import PrText, build_questions
from bot.app.lint import LintRun
from bot.core.engine import Context

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")


def advise_runs(advisor: Any, runs: Sequence[LintRun], pr_body: str = "") -> AdviceRun:
    """Ask `advisor` (a `bot.advisor.client.Advisor`) about every run of a change, and add
    up what it did. `pr_body`: the pull request's description, quoted as data."""
    total = AdviceRun(model=advisor.settings.model)
    for lint_run in runs:
        ctx = lint_run.ctx
        if ctx.change is None:
            continue
        head = getattr(ctx.tree, "commit", None) or worktree_id(ctx)
        questions = build_questions(
            ctx.change, PrText(body=pr_body), head_paths=ctx.all_paths(), upstream=None
        )
        run = advisor.advise(questions, head_sha=str(head), findings=lint_run.report.findings)
        total.items += run.items
        total.asked += run.asked
        total.calls += run.calls
        total.cached += run.cached
        total.skipped += run.skipped
        total.dropped += run.dropped
        total.errors += run.errors
        total.deferred = run.deferred if run.deferred is not None else total.deferred
        for name in USAGE_FIELDS:
            setattr(total.usage, name, getattr(total.usage, name) + getattr(run.usage, name))
    return total


def worktree_id(ctx: Context) -> str:
    """A head id for a working tree: a hash of the changed files' contents."""
    digest = hashlib.sha256()
    for path in sorted(ctx.changed or ()):
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(ctx.tree.read(path) or b"\1")
    return "worktree-" + digest.hexdigest()[:40]
