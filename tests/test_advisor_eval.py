"""The advisor's offline evaluation set stays consistent with the questions it answers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.advisor_eval.cases import cases, line_of
from bot.advisor.questions import PrText, build_questions
from tests.advisor_cases import change_of

ROOT = Path(__file__).resolve().parents[1]


def test_every_recorded_answer_belongs_to_a_question_that_fires() -> None:
    for case in cases():
        change, _ = change_of(case.base, case.head, pr=case.pr)
        asked = {
            q.id
            for q in build_questions(
                change, PrText(title=case.title, body=case.body), head_paths=sorted(case.head)
            )
        }
        assert set(case.responses) == asked, case.name
        for path, text in case.labels:
            assert line_of(case.head[path], text)


def test_the_benchmark_reports_its_figures() -> None:
    proc = subprocess.run(
        [sys.executable, "benchmarks/bench_advisor.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "precision of concern items: 6/8" in out
    assert "second run on the same heads: 0 calls" in out and "cost per PR" in out
