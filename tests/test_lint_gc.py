"""`bot lint` collects cyclic garbage rarely while it lints (`lint_run.rare_collections`)
and gives the process its thresholds back after."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from bot.cli import lint_run, main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inferencex-mini"


def test_a_lint_runs_at_the_lint_thresholds_and_restores_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[int, ...]] = []
    plain = lint_run._run

    def spy(*args: Any, **kwargs: Any) -> int:
        seen.append(gc.get_threshold())
        return plain(*args, **kwargs)

    monkeypatch.setattr(lint_run, "_run", spy)
    before = gc.get_threshold()
    assert before != lint_run.LINT_GC_THRESHOLDS
    code = main(["lint", str(EXAMPLE), "--no-cache", "--format", "json", "--fail-on", "never"])
    assert code == 0
    assert '"findings"' in capsys.readouterr().out
    assert seen == [lint_run.LINT_GC_THRESHOLDS]
    assert gc.get_threshold() == before


def test_the_thresholds_come_back_when_the_lint_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), lint_run.rare_collections():
        assert gc.get_threshold() == lint_run.LINT_GC_THRESHOLDS
        raise RuntimeError("boom")
    assert gc.get_threshold() == before
