"""Snapshot tests: every rendered finding of every rule's bad examples, and the comment
bodies the bot posts (an inline comment, the review summary with the gate and a PR-added
suppression, a sign-off verdict), in both languages.

The snapshots live in tests/snapshots/; refresh them deliberately with
`UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py` and review the diff.
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import date
from pathlib import Path

from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.registry import all_rules
from bot.core.tree import MemoryTree
from bot.review import render
from bot.signoff.render import render_verdict_comment
from bot.signoff.verify import verify_all
from tests.test_rule_examples import strip_markers
from tests.test_severity_and_gate import AGENTIC, PARSER_LINE, _lint
from tests.test_signoff_matrix import CASES, VERSIONS, build

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing; run with UPDATE_SNAPSHOTS=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} changed; review and run with UPDATE_SNAPSHOTS=1"


def rendered_findings() -> str:
    config = build_config(None)
    out = ["# Every finding of every bad example, as rendered", ""]
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
            out.append(f"## {rm.rule.id} bad {n}: {ex.path}")
            out.append("")
            for f in lint(ctx, paths=[ex.path], rules=rules).findings:
                if f.rule != rm.rule.id:
                    continue
                out.append(f"- `{f.rule}` {f.severity} line {f.line}")
                out.append(f"  - en: {f.message.en}")
                out.append(f"  - zh: {f.message.zh}")
                if f.fix is not None:
                    out.append(f"  - fix en: {f.fix.en}")
                    out.append(f"  - fix zh: {f.fix.zh}")
            out.append("")
    return "\n".join(out)


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
