"""`bot lint --advise`: the anthropic advisor on a linted change, and its output.

Not a command of its own: `bot.cli.lint_run` loads this module by name only when the
command line asks for advice, so a lint without `--advise` never loads the advisor
(`bot.advisor`: its prompt, grounding and client modules).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from typing import Any

from bot.advisor import render as advice_render
from bot.advisor.client import (
    AdviceRun,
    Advisor,
    AdvisorConfigError,
    advisor_settings,
    sdk_available,
)
from bot.advisor.local import advise_runs
from bot.app.lint import LintRun
from bot.cli.common import UsageError


def open_advisor() -> Advisor:
    """The advisor for --advise, or a usage error (exit 2) naming what is missing."""
    try:
        settings = advisor_settings(os.environ)
    except AdvisorConfigError as exc:
        raise UsageError(str(exc)) from None
    if settings is None:
        if os.environ.get("ANTHROPIC_API_KEY", "").strip():
            raise UsageError("--advise: the advisor is off (BOT_ADVISOR=off)")
        raise UsageError("--advise needs ANTHROPIC_API_KEY (the advisor calls the Anthropic API)")
    if not sdk_available():
        raise UsageError("--advise needs the anthropic SDK: pip install 'recipe-review-bot[llm]'")
    try:
        return Advisor(settings)
    except (sqlite3.Error, OSError) as exc:
        raise UsageError(f"advisor cache {settings.cache_path}: {exc}") from None


def advise(advisor: Advisor, runs: Sequence[LintRun], pr_body: str) -> AdviceRun:
    """What the advisor says about every run of the change."""
    return advise_runs(advisor, runs, pr_body)


def json_extra(advice: AdviceRun) -> dict[str, Any]:
    """The members `--format json` adds to its report."""
    return {
        "advice": advice_render.advice_json(advice.items),
        "advisor": advice_render.run_json(advice),
    }


def text_section(advice: AdviceRun, lang: str) -> str:
    """The section the text formats end with."""
    return advice_render.text_section(advice.items, advice, lang)
