"""The sign-off matrix: every scenario of tests/fixtures/signoff/cases.yaml with its
expected verdict, over every checklist version of the real template's history
(tests/fixtures/signoff/checklist_history.json) and the real CODEOWNERS groups.

Each case is verified the way the service and `bot signoff check` verify it:
`SignoffFacts` (one per sign-off, oldest first) into `verify_all`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bot.core.config import Knowledge, build_config, deep_merge
from bot.parse.yamlsafe import load_safe
from bot.signoff.model import (
    SIGNOFF_PHRASE,
    CheckRun,
    PostedComment,
    PrContent,
    ReuseSweep,
    SignoffFacts,
    Verdict,
)
from bot.signoff.verify import verify_all

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "signoff"
HISTORY = json.loads((FIXTURES / "checklist_history.json").read_text(encoding="utf-8"))
CASES = load_safe((FIXTURES / "cases.yaml").read_text(encoding="utf-8"), label="cases.yaml")
VERSIONS: list[dict[str, Any]] = HISTORY["versions"]
HEAD = "c0ffee" + "0" * 34
CODEOWNERS = "\n".join(CASES["codeowners"]) + "\n"


def template_doc(items: list[list[Any]]) -> str:
    lines = ["# Review checklist", "", "## Template", "```", f"{SIGNOFF_PHRASE}:"]
    lines += [("  " * level) + f"- [ ] {text}" for level, text in items]
    lines += [
        "",
        "### Additional detail section:",
        "- insert any additional info here",
        "",
        "Signed: `FILL_IN_GITHUB_USERNAME`",
        "```",
    ]
    return "\n".join(lines) + "\n"


def _find(items: list[list[Any]], words: str | None) -> int | None:
    if words is None:
        return None
    for i, (_, text) in enumerate(items):
        if words.lower() in text.lower():
            return i
    return None


def _number(items: list[list[Any]], index: int) -> str:
    top = 0
    sub = 0
    for i, (level, _) in enumerate(items):
        if level == 0:
            top, sub = top + 1, 0
        else:
            sub += 1
        if i == index:
            return str(top) if level == 0 else f"{top}.{sub}"
    raise IndexError(index)


def signoff_body(items: list[list[Any]], spec: Mapping[str, Any], author: str) -> str:
    uncheck = _find(items, spec.get("uncheck"))
    negate = _find(items, spec.get("negate"))
    drop = _find(items, spec.get("drop"))
    lines = [f"{SIGNOFF_PHRASE}:"]
    for i, (level, text) in enumerate(items):
        if i == drop:
            continue
        box = "[ ]" if i == uncheck else "[x]"
        if i == negate:
            text = "NOT " + text[0].lower() + text[1:]
        lines.append(("  " * level) + f"- {box} {text}")
    detail = str(spec.get("detail", "- insert any additional info here"))
    if uncheck is not None:
        detail = detail.replace("{n}", _number(items, uncheck))
    signed = spec.get("signed", f"@{author}")
    lines += ["", "### Additional detail section:", detail, "", f"Signed: {signed}"]
    return "\n".join(lines) + "\n"


def _runs(names: list[str] | None) -> tuple[CheckRun, ...]:
    names = names or ["single-node 1k1k / dsr1-fp8-h200", "eval / dsr1-fp8-h200"]
    return tuple(CheckRun(n, "completed", "success", HEAD) for n in names)


def _knowledge(extra: Mapping[str, Any] | None) -> Knowledge:
    base = build_config(None).knowledge
    return Knowledge(deep_merge(base.data, extra or {})) if extra else base


def build(case: Mapping[str, Any], version: int) -> tuple[list[SignoffFacts], Knowledge]:
    items = VERSIONS[version]["items"]
    teams: dict[str, list[str]] = CASES["teams"]
    signoffs = case.get("signoffs") or [dict(case)]
    changed = tuple(case.get("changed") or ["docs/guide.md"])
    reuse = case.get("reuse", "/reuse-sweep-run")
    from bot.signoff.detect import has_reuse_sweep

    sweeps = (ReuseSweep("kimbo", "maintain"),) if has_reuse_sweep(reuse) else ()
    comments = tuple(
        PostedComment(c["author"], c["body"], c.get("permission")) for c in case.get("comments", ())
    )
    out = []
    for spec in signoffs:
        merged = {**case, **spec}
        author = str(merged.get("author", "ankur-singh"))
        own_items = items
        if merged.get("copy") == "previous":
            own_items = VERSIONS[max(version - 1, 0)]["items"]
        membership: dict[str, bool | None] = {
            team: (None if merged.get("teams_unreadable") else author in members)
            for team, members in teams.items()
        }
        out.append(
            SignoffFacts(
                head_sha=HEAD,
                signer=author,
                body=signoff_body(own_items, merged, author),
                pr=2750,
                bot_login="recipe-bot[bot]",
                changed_paths=changed,
                codeowners_text=CODEOWNERS,
                template_text=template_doc(items),
                signer_permission=str(merged.get("permission", "write")),
                team_membership=membership,
                pr_commits=("a" * 40, HEAD),
                check_runs=_runs(case.get("runs")),
                reuse_sweeps=sweeps,
                content=PrContent(),
                sweep_workflow_text=case.get("workflow"),
                pr_author=case.get("pr_author", "carol"),
                comments=comments,
                signer_org_member=merged.get("org_member"),
            )
        )
    return out, _knowledge(case.get("knowledge"))


def _params() -> list[Any]:
    params = []
    for scenario in CASES["per_version"]:
        for k, version in enumerate(VERSIONS):
            expect = scenario.get("expect")
            if "expect_by_version" in scenario:
                expect = {"verdict": scenario["expect_by_version"][version["commit"]]}
            name = f"{version['commit']}-{scenario['name']}"
            params.append(pytest.param(scenario, k, expect, id=name))
    for case in CASES["cases"]:
        params.append(pytest.param(case, len(VERSIONS) - 1, case["expect"], id=case["name"]))
    return params


PARAMS = _params()


def test_the_matrix_has_at_least_100_cases() -> None:
    assert len(PARAMS) >= 100
    assert {v["commit"] for v in VERSIONS} >= {"9e19367cf", "35d731a9e"}


def _explain(v: Verdict) -> str:
    return "\n".join(f"{c.name}: {c.status}: {c.reason.en}" for c in v.checks)


@pytest.mark.parametrize(("case", "version", "expect"), PARAMS)
def test_signoff_matrix(case: Mapping[str, Any], version: int, expect: Mapping[str, Any]) -> None:
    facts, knowledge = build(case, version)
    verdict = verify_all(facts, knowledge)
    assert verdict.verdict == expect["verdict"], _explain(verdict)
    rows = {c.name: c for c in verdict.checks}
    for name, status in (expect.get("rows") or {}).items():
        assert name in rows and rows[name].status == status, _explain(verdict)
    for name, words in (expect.get("reason") or {}).items():
        assert words in rows[name].reason.en, _explain(verdict)
    # the verdict is the same whichever copy of the facts it is built from
    assert verify_all([dataclasses.replace(f) for f in facts], knowledge) == verdict
