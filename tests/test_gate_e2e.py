"""Severity and suppressions end to end: signed webhooks -> the service -> review and
sign-off jobs -> PyGithub -> the fake GitHub on loopback.

One agentic MiniMax-M3 recipe PR, in the variants that decide the gate:

- a warning on a line the PR adds makes the review's status "Needs a human", never
  success, and the sign-off row behind it `human` with the finding linked;
- a `.recipe-bot.yml` on the base that declares multi-turn agentic evals turns the same
  finding into an error (the declared condition), and the status into a failure;
- a suppression the PR adds is listed in the summary ("suppressed in this PR by
  @carol: ..."), the status stays "Needs a human", and the sign-off fails until the
  CODEOWNER names the rule in it;
- a suppression with an unknown id silences nothing and is itself a finding;
- a severity the record lowers (RCP003 `thinking-inferred`) makes the sign-off row
  `human` with the finding linked on the head, and the verdict still passes;
- a suppression already on the base silences as usual, and one the PR adds that
  silences nothing is reported (PRL002).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bot.rules.recipe import RCP003_golden_al_mismatch as rcp003

from bot.review import render
from bot.server.app import create_app
from bot.server.queue import SQLiteQueue
from bot.server.settings import load_settings
from tests.fakegithub import FakeGitHub
from tests.test_severity_and_gate import _lint
from tests.test_signoff_service import (
    BASE,
    BOT,
    REPO,
    SECRET,
    Clock,
    Gate,
    signoff_body,
)
from tests.webhook_fakes import LiveServer, service_env

RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
PARSER = (
    "#!/usr/bin/env bash\n"
    'vllm serve "$MODEL" --tool-call-parser minimax_m3\\\n'
    "    --reasoning-parser minimax_m3 &\n"
)
LINK = "https://recipes.vllm.ai/MiniMaxAI/MiniMax-M3"
MULTI_TURN = "knowledge:\n  agentic_eval:\n    multi_turn_by_default: true\n"


def wrong_al(comment: str = "") -> str:
    """An explicit thinking-on recipe pinning 3.2, an AL on no golden curve (RCP003 error)."""
    text = rcp003._vllm_recipe("Inferact/MiniMax-M3-EAGLE3-GQA", "3.2")
    return text.replace("SYNTHETIC_ACCEPT_LEN=3.2\n", f"SYNTHETIC_ACCEPT_LEN=3.2{comment}\n")


def open_gate(tmp_path: Path, base: dict[str, str], head: dict[str, str]) -> Iterator[Gate]:
    clock = Clock()
    with FakeGitHub(clock=clock) as fake:
        fake.add_token("e2e-token", BOT)
        pull = fake.create_pull(REPO, base=base, head=head, user="carol", number=5)
        fake.set_permission(REPO, "alice", "write")
        fake.set_permission(REPO, "max", "maintain")
        fake.add_team("octo", "core", ["max"])
        fake.add_check_run(REPO, pull.head_sha, "single-node 1k1k / dsr1")
        fake.add_check_run(REPO, pull.head_sha, "eval / dsr1")
        settings = load_settings(
            service_env(fake.url, tmp_path / "queue.sqlite3", secret=SECRET, login=BOT)
        )
        queue = SQLiteQueue(settings.db_path)
        with LiveServer(create_app(settings, queue=queue)) as server:
            g = Gate(fake, clock, server, queue, pull.number)
            g.as_("max").create_issue_comment(REPO, pull.number, "/reuse-sweep-run")
            yield g
            g.http.close()
            for person in g.people.values():
                person.close()
        queue.close()
        assert not fake.crashes


def review(gate: Gate) -> tuple[dict[str, Any], str]:
    """Deliver `pull_request.opened`; the review's status, and what it says: its summary
    comment (the counts, the gate, what is not inline) and its inline comments."""
    gate.deliver("pull_request", {**gate.push_event(), "action": "opened"})
    statuses = [
        s
        for s in reversed(gate.fake.repo(REPO).statuses.get(gate.head, []))
        if s["context"] == "recipe-review"
    ]
    summary = next(c["body"] for c in gate.comments() if render.SUMMARY_MARK in c["body"])
    inline = [c["body"] for c in gate.fake.repo(REPO).review_comments.get(gate.number, [])]
    return statuses[-1], "\n".join([summary, *inline])


@pytest.fixture
def with_files(tmp_path: Path) -> Iterator[Any]:
    gates: list[Iterator[Gate]] = []

    def make(head: dict[str, str], base: dict[str, str] | None = None) -> Gate:
        it = open_gate(tmp_path / str(len(gates)), {**BASE, **(base or {})}, {**BASE, **head})
        (tmp_path / str(len(gates))).mkdir()
        gates.append(it)
        return next(it)

    yield make
    for it in gates:
        for _ in it:
            pass


def test_a_warning_on_a_changed_line_needs_a_human_and_never_passes(with_files: Any) -> None:
    gate = with_files({RECIPE: PARSER})
    status, summary = review(gate)
    assert status["state"] == "pending"
    assert status["description"].startswith("Needs a human: 1 warning(s) on changed lines")
    assert "Gate: NEEDS A HUMAN" in summary and "`RCP001`" in summary


def test_the_declared_condition_makes_the_same_finding_an_error(with_files: Any) -> None:
    config = {".recipe-bot.yml": MULTI_TURN}
    gate = with_files({RECIPE: PARSER, **config}, base=config)
    status, summary = review(gate)
    assert status["state"] == "failure"
    assert "Gate: BLOCKED" in summary
    assert "agentic evals here run SWE-bench via mini-swe-agent by default" in summary


def test_a_suppression_the_pr_adds_is_listed_and_needs_the_codeowner(with_files: Any) -> None:
    files = {RECIPE: wrong_al("  # bot: ignore[RCP003] temporary"), **rcp003._CURVES}
    gate = with_files(files, base=rcp003._CURVES)
    status, summary = review(gate)
    assert status["state"] == "pending", status
    assert "suppressed in this PR" in status["description"]
    assert "`RCP003`" in summary and "suppressed in this PR by @carol: temporary" in summary
    assert "由 @carol 在本 PR 中抑制：temporary" in summary

    gate.sign("alice", signoff_body("alice", detail=LINK))
    verdict = gate.verdict()
    assert "REJECTED" in verdict and gate.status()["state"] == "failure"
    line = next(x for x in verdict.splitlines() if "**Golden acceptance length**" in x)
    assert line.startswith("❌") and "naming `RCP003` in the sign-off" in line
    assert f"{RECIPE}#L3" in line  # the finding is linked on the head

    # the CODEOWNER acknowledges the suppression by naming the rule: a human row, a pass
    gate.clock.tick()
    body = signoff_body(
        "alice", detail=f"{LINK}\n- RCP003 suppression acknowledged: the curve is re-measured"
    )
    gate.sign("alice", body)
    verdict = gate.verdict()
    line = next(x for x in verdict.splitlines() if "**Golden acceptance length**" in x)
    assert line.startswith("👀") and "acknowledged in the sign-off" in line
    assert "**Verdict: PASS**" in verdict and gate.status()["state"] == "success"


def test_an_unsuppressed_error_blocks_and_a_typo_suppression_is_reported(with_files: Any) -> None:
    files = {RECIPE: wrong_al("  # bot: ignore[RCP03] temporary"), **rcp003._CURVES}
    gate = with_files(files, base=rcp003._CURVES)
    status, summary = review(gate)
    assert status["state"] == "failure"
    assert "`PRL001`" in summary and "`RCP03`" in summary and "`RCP003`" in summary
    gate.sign("alice", signoff_body("alice", detail=LINK))
    line = next(x for x in gate.verdict().splitlines() if "**Golden acceptance length**" in x)
    assert line.startswith("❌") and "3.2" in line


def test_an_owner_through_an_unreadable_team_counts_as_an_org_member(with_files: Any) -> None:
    gate = with_files({"src/tool.py": "print(1)\n"})
    gate.fake.hide_teams("octo")  # @octo/core membership answers 403
    gate.sign("max", signoff_body("max"))
    verdict = gate.verdict()
    line = next(x for x in verdict.splitlines() if "**CODEOWNER**" in x)
    assert line.startswith("✅") and "member of the organisation" in line
    assert "**Verdict: PASS**" in verdict and gate.status()["state"] == "success"
    # on another PR, someone in no team of the organisation stays unverified
    other = with_files({"src/tool.py": "print(2)\n"})
    other.fake.hide_teams("octo")
    other.fake.set_permission(REPO, "eve", "write")
    other.sign("eve", signoff_body("eve"))
    line = next(x for x in other.verdict().splitlines() if "**CODEOWNER**" in x)
    assert line.startswith("❔") and "not readable" in line


def inferred_al() -> str:
    """The thinking-on AL with nothing turning thinking on: the declared RCP003 warning
    (`thinking-inferred`)."""
    text = rcp003._vllm_recipe("Inferact/MiniMax-M3-EAGLE3-GQA", "2.78")
    return text.replace('--default-chat-template-kwargs \'{"thinking_mode":"enabled"}\' ', "")


def test_a_lowered_severity_makes_the_signoff_row_need_a_human_with_the_link(
    with_files: Any,
) -> None:
    gate = with_files({RECIPE: inferred_al(), **rcp003._CURVES}, base=rcp003._CURVES)
    status, summary = review(gate)
    assert status["state"] == "pending", status
    assert "`RCP003`" in summary and "Gate: NEEDS A HUMAN" in summary
    gate.sign("alice", signoff_body("alice", detail=LINK))
    verdict = gate.verdict()
    line = next(x for x in verdict.splitlines() if "**Golden acceptance length**" in x)
    assert line.startswith("👀") and "NEEDS A HUMAN — warning [`" in line, line
    assert f"/blob/{gate.head}/{RECIPE}#L3" in line  # linked on the head
    assert "nothing in the recipe turns thinking on" in line and "警告 [`" in line
    # a warning needs a human but does not block the sign-off
    assert "**Verdict: PASS**" in verdict and gate.status()["state"] == "success"


def test_a_base_suppression_silences_and_an_unused_one_the_pr_adds_is_reported(
    with_files: Any,
) -> None:
    # the suppression is on the base, on the line above the value the PR changes: it is
    # not the PR's own, so it silences the error as usual; the PR adds another that
    # silences nothing, which PRL002 reports
    comment = "# bot: ignore[RCP003] re-measured upstream\n"
    base = wrong_al().replace("SYNTHETIC_ACCEPT_LEN=3.2\n", comment + "SYNTHETIC_ACCEPT_LEN=3.1\n")
    head = base.replace("SYNTHETIC_ACCEPT_LEN=3.1\n", "SYNTHETIC_ACCEPT_LEN=3.2\n").replace(
        'DRAFT_MODEL="', '# bot: ignore[RCP009] not a chat client\nDRAFT_MODEL="'
    )
    files, before = {RECIPE: head, **rcp003._CURVES}, {RECIPE: base, **rcp003._CURVES}
    report = _lint(files, before)  # what the service will see: the base's one silences
    assert report.suppressed == 1 and not report.silenced
    assert [f.rule for f in report.findings] == ["PRL002"]
    gate = with_files(files, base=before)
    status, summary = review(gate)
    assert "`PRL002`" in summary and "silences no `RCP009` finding" in summary
    assert "suppressed in this PR" not in summary and "`RCP003`" not in summary
    assert status["state"] == "pending", status  # PRL002 is a warning: a human looks
    gate.sign("alice", signoff_body("alice", detail=LINK))
    verdict = gate.verdict()
    line = next(x for x in verdict.splitlines() if "**Golden acceptance length**" in x)
    assert line.startswith("✅"), line  # silenced by a suppression the PR did not add
    assert "**Verdict: PASS**" in verdict
