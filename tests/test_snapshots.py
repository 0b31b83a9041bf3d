"""Snapshot tests: every rendered finding of every rule's bad examples, and the comment
bodies the bot posts (an inline comment, the review summary with the gate and a PR-added
suppression, a sign-off verdict), in both languages.

The snapshots live in tests/snapshots/; refresh them deliberately with
`UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py` and review the diff.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import date

from snapshot import SNAPSHOTS, check_snapshot

from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.model import Example, Finding
from bot.core.registry import RuleModule, all_rules
from bot.core.tree import MemoryTree
from bot.review import render
from bot.signoff.render import render_verdict_comment
from bot.signoff.verify import verify_all
from tests.test_rule_examples import strip_markers
from tests.test_severity_and_gate import AGENTIC, PARSER_LINE, _lint
from tests.test_signoff_matrix import CASES, VERSIONS, build


def bad_example_findings() -> Iterator[tuple[RuleModule, int, Example, list[Finding]]]:
    """Every rule's bad examples, each with the findings of that rule it renders."""
    config = build_config(None)
    for rm in all_rules():
        for n, ex in enumerate(rm.rule.bad, 1):
            text, _ = strip_markers(ex.text, rm.rule.id)
            tree = MemoryTree({ex.path: text, **ex.files})
            base = MemoryTree(ex.base) if ex.base is not None else None
            change = build_changeset(base, tree, [ex.path, *ex.files], pr=ex.pr) if base else None
            ctx = Context(
                tree=tree,
                config=config,
                pr=ex.pr,
                base=base,
                changed=frozenset({ex.path}) if base else None,
                mode="pr" if change else "paths",
                change=change,
                review_date=date.fromisoformat(ex.review_date) if ex.review_date else None,
            )
            rules = all_rules() if rm.rule.target == "suppression" else [rm]
            found = lint(ctx, paths=[ex.path], rules=rules).findings
            yield rm, n, ex, [f for f in found if f.rule == rm.rule.id]


def rendered_findings() -> str:
    out = ["# Every finding of every bad example, as rendered", ""]
    for rm, n, ex, findings in bad_example_findings():
        out.append(f"## {rm.rule.id} bad {n}: {ex.path}")
        out.append("")
        for f in findings:
            out.append(f"- `{f.rule}` {f.severity} line {f.line}")
            out.append(f"  - en: {f.message.en}")
            out.append(f"  - zh: {f.message.zh}")
            if f.fix is not None:
                out.append(f"  - fix en: {f.fix.en}")
                out.append(f"  - fix zh: {f.fix.zh}")
        out.append("")
    return "\n".join(out)


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
    for name in ("findings.md", "comments.md"):
        for line in (SNAPSHOTS / name).read_text(encoding="utf-8").splitlines():
            if "zh: " in line and english_outside_code(line.split("zh: ", 1)[1]):
                bad.append(f"{name}: {line}")
    assert not bad, "\n".join(bad)


def test_the_prose_check_can_fail() -> None:
    assert english_outside_code("`pip install x` 安装了 `vllm`") is None
    assert english_outside_code("内联 Python heredoc 改写了") == "Python heredoc"
    assert english_outside_code("（when the model is set）") == "when the"


def test_rendered_findings_snapshot() -> None:
    check_snapshot("findings.md", rendered_findings())


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
