"""Snapshot tests: every rendered finding of every rule's bad examples, and the comment
bodies the bot posts (an inline comment, the review summary with the gate and a PR-added
suppression, a sign-off verdict) and a representative set of sign-off verdict comments
(`verdicts.md`), in both languages. Each rule has its own file of rendered findings,
`tests/snapshots/rules/<ID>.md` (`bot.app.examples.render_snapshot`).

The snapshots live in tests/snapshots/; refresh them deliberately with
`UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py` and review the diff.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

import pytest
from snapshot import SNAPSHOTS, check_snapshot

from bot.app.examples import example_findings, render_snapshot
from bot.core.config import build_config
from bot.core.model import Example, Finding
from bot.core.registry import RuleModule, all_rules
from bot.core.suppress import Silenced, Suppression
from bot.review import render
from bot.signoff.model import BenchmarkChange, PrContent, SignoffFacts, Verdict
from bot.signoff.render import render_verdict_comment
from bot.signoff.verify import verify_all
from tests.test_severity_and_gate import AGENTIC, PARSER_LINE, _lint
from tests.test_signoff_matrix import CASES, VERSIONS, build


def bad_example_findings() -> Iterator[tuple[RuleModule, int, Example, list[Finding]]]:
    """Every rule's bad examples, each with the findings of that rule it renders."""
    for rm in all_rules():
        for n, ex in enumerate(rm.rule.bad, 1):
            yield rm, n, ex, example_findings(rm, ex)


WITH_BAD = [pytest.param(rm, id=rm.rule.id) for rm in all_rules() if rm.rule.bad]


# English prose: two words of letters. Code spans (`...`) are values and may hold anything.
ENGLISH_PROSE = re.compile(r"[A-Za-z]{3,} [a-z]{3,}")


def english_outside_code(zh: str) -> str | None:
    prose = re.sub(r"`[^`]*`", "", zh)
    m = ENGLISH_PROSE.search(prose)
    return m.group(0) if m else None


def test_no_rendered_finding_carries_english_prose_in_chinese() -> None:
    bad = []
    for rm, n, _, findings in bad_example_findings():
        for f in findings:
            for what, text in (("message", f.message), ("fix", f.fix), ("title", f.title)):
                if text is not None and english_outside_code(text.zh):
                    bad.append(f"{rm.rule.id} bad {n} {what}: {text.zh}")
    assert not bad, "\n".join(bad)


def test_no_snapshot_line_carries_english_prose_in_chinese() -> None:
    bad = []
    files = [SNAPSHOTS / "comments.md", *sorted((SNAPSHOTS / "rules").glob("*.md"))]
    assert len(files) > 1
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if "zh: " in line and english_outside_code(line.split("zh: ", 1)[1]):
                bad.append(f"{path.name}: {line}")
    assert not bad, "\n".join(bad)


def test_the_prose_check_can_fail() -> None:
    assert english_outside_code("`pip install x` 安装了 `vllm`") is None
    assert english_outside_code("内联 Python heredoc 改写了") == "Python heredoc"
    assert english_outside_code("（when the model is set）") == "when the"


@pytest.mark.parametrize("rm", WITH_BAD)
def test_rendered_findings_snapshot(rm: RuleModule) -> None:
    """One snapshot file per rule: a rule change rewrites its own file alone."""
    check_snapshot(f"rules/{rm.rule.id}.md", render_snapshot(rm))


def test_every_rule_snapshot_belongs_to_a_rule() -> None:
    wanted = {f"{rm.rule.id}.md" for rm in all_rules() if rm.rule.bad}
    present = {p.name for p in (SNAPSHOTS / "rules").glob("*")}
    assert present == wanted, (
        f"no rule for {sorted(present - wanted)}; missing {sorted(wanted - present)}"
    )


def test_comment_bodies_snapshot() -> None:
    base = {AGENTIC: "#!/usr/bin/env bash\n" + PARSER_LINE}
    head = {AGENTIC: "#!/usr/bin/env bash\n# bot: ignore[RCP001] temporary\n" + PARSER_LINE}
    silenced = _lint(head, base).silenced
    warned = _lint({AGENTIC: "#!/usr/bin/env bash\n" + PARSER_LINE + "echo\n"}, base)
    finding = replace(warned.findings[0], in_diff=True)
    rationale = {rm.rule.id: rm.rule.rationale for rm in all_rules()}
    sha = "0123456789abcdef0123456789abcdef01234567"
    parts = [
        "# Inline comment",
        "",
        render.comment_body(finding, rationale[finding.rule], "https://example.test/rules.md"),
        "",
        "# Summary: a warning on a changed line",
        "",
        render.summary_body([finding], [], [], sha),
        "",
        "# Summary: a suppression the PR adds",
        "",
        render.summary_body([], [], [], sha, silenced),
    ]
    owners = next(c for c in CASES["cases"] if c["name"].startswith("two groups, only"))
    facts, knowledge = build(owners, len(VERSIONS) - 1)
    parts += [
        "",
        "# Verdict: a CODEOWNERS group still missing",
        "",
        render_verdict_comment(verify_all(facts, knowledge)),
    ]
    check_snapshot("comments.md", "\n".join(parts) + "\n")


SUPPRESSION_REASON = "the curve is re-measured"


def _silenced(rule: str, *, author: str | None) -> Silenced:
    from tests.test_signoff_verify import RECIPE, finding

    found = replace(finding(rule), slug=rule.lower())
    comment = f"# bot: ignore[{rule}] {SUPPRESSION_REASON}"
    suppression = Suppression(
        RECIPE, 7, 3, (rule,), (rule,), (), SUPPRESSION_REASON, comment, added_by_pr=True
    )
    return Silenced(found, suppression, author)


def verdict_cases() -> Iterator[tuple[str, Verdict]]:
    """A representative set of verdicts: pass, fail, unverified, needs a human, several
    CODEOWNERS groups, a suppression the PR adds (unacknowledged and acknowledged) and a
    standing disapproval."""
    from tests.test_signoff_verify import RECIPE, facts, filled, finding

    knowledge = build_config(None).knowledge
    warned = replace(finding("RCP007"), severity="warning", slug="architecture-override")
    link = "https://github.com/vllm-project/recipes/pull/321"
    repo = {"repo_url": "https://github.com/SemiAnalysisAI/InferenceX"}
    cases: list[tuple[str, SignoffFacts]] = [
        ("pass", facts()),
        (
            "fail: an error on a changed line, and `Signed:` names someone else",
            facts(findings=(finding("RCP007"),), body=filled(login="bob", detail=link), **repo),
        ),
        (
            "fail: CODEOWNERS and the check runs could not be read",
            facts(codeowners_text=None, check_runs=None),
        ),
        ("needs a human: a warning on a changed line", facts(findings=(warned,), **repo)),
        (
            "fail: a suppression the PR adds, not acknowledged",
            facts(silenced=(_silenced("RCP007", author="carol"),), **repo),
        ),
        (
            "needs a human: the suppression acknowledged by naming the rule",
            facts(
                silenced=(_silenced("RCP007", author=None),),
                body=filled(detail=f"{link}\n- RCP007 acknowledged: the override is a test"),
                **repo,
            ),
        ),
        (
            "needs a human: an unchecked item with a reason, an older patch, a multi-node file",
            facts(
                body=filled(
                    detail=f"{link}\n- item 1: the checklist changed today, so it is re-read"
                ).replace("- [x]", "- [ ]", 1),
                findings=(replace(finding("RCP008"), in_diff=False),),
                content=PrContent(
                    benchmarks=(
                        BenchmarkChange(RECIPE, engines=("vllm",)),
                        BenchmarkChange(
                            "benchmarks/multi_node/srt-slurm-recipes/x.yaml", multi_node=True
                        ),
                    ),
                ),
            ),
        ),
    ]
    for name, one in cases:
        yield name, verify_all([one], knowledge)
    for name in (
        "two groups, each owner signed (NVIDIA first)",
        "two groups, the earlier sign-off is invalid, so its group is still missing",
        "a standing disapproval",
    ):
        case = next(c for c in CASES["cases"] if c["name"] == name)
        many, knowledge_of = build(case, len(VERSIONS) - 1)
        yield f"matrix: {name}", verify_all(many, knowledge_of)


def test_verdict_comment_snapshots() -> None:
    """Each representative verdict as posted (both languages), the first one in each
    language alone too; no placeholder is ever left unfilled."""
    parts = ["# Sign-off verdict comments, as posted", ""]
    for n, (name, verdict) in enumerate(verdict_cases()):
        langs = ("both", "en", "zh") if n == 0 else ("both",)
        for lang in langs:
            body = render_verdict_comment(verdict, lang=lang)
            assert not re.search(r"\{[a-z_0-9]+\}", body), f"{name}: a placeholder is left"
            if lang != "en":
                for line in body.splitlines()[1:]:  # after the hidden marker
                    if lang == "both" and "<br>" not in line:
                        continue  # the English header
                    zh = re.sub(r"\]\([^)]*\)", "]", line.split("<br>")[-1])
                    zh = zh.replace(SUPPRESSION_REASON, "")  # the PR author's own words
                    zh = zh.replace("recipe-review bot", "")  # the product's name
                    assert not english_outside_code(zh), f"{name}: English in Chinese: {line}"
            parts += [f"## {name} ({lang})", "", body]
    check_snapshot("verdicts.md", "\n".join(parts))
