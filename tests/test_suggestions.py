"""Every rule's suggestion, rendered as the review posts it and applied as GitHub applies it.

For each example of each rule, every finding with a suggestion is rendered into its
inline comment body; the ```` ```suggestion ```` block is cut out of the Markdown and
replaces the finding's lines, exactly as GitHub's "Commit suggestion" does (the block's
lines replace the commented range; an empty block deletes it). Then:

- a recipe is parsed again with the bash parser: it keeps the same launches, and every
  launch keeps every flag that is not written on the replaced lines, with the same value
  (a blank line after a trailing `\\` would end the command and lose them);
- YAML stays YAML;
- the rule no longer reports that finding.
"""

from __future__ import annotations

import re
from datetime import date

import pytest
from ruamel.yaml import YAML
from snapshot import check_snapshot

from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, Report, lint, route
from bot.core.model import Example, Finding, Span
from bot.core.registry import RuleModule, all_rules, get_rule
from bot.core.tree import MemoryTree
from bot.parse.recipe import parse_recipe
from bot.review.render import comment_body, suggestion_block

MARKER = re.compile(r"\s*#\s*\[[A-Z]{3}\d{3}\]\s*$", re.M)
BLOCK = re.compile(r"^(`{3,})suggestion\n(.*?)^\1$", re.S | re.M)


def apply_as_github(text: str, start: int, end: int, body: str) -> str:
    """Replace lines `start`..`end` (1-based, inclusive) with the comment's suggestion block."""
    m = BLOCK.search(body)
    assert m is not None, f"no suggestion block in:\n{body}"
    new = m.group(2).splitlines(keepends=True)
    lines = text.splitlines(keepends=True)
    return "".join(lines[: start - 1] + new + lines[end:])


def _lint(rm: RuleModule, ex: Example, text: str) -> Report:
    tree = MemoryTree({ex.path: text, **ex.files})
    base = MemoryTree(ex.base) if ex.base is not None else None
    change = None
    if base is not None:
        change = build_changeset(base, tree, [ex.path, *ex.files], pr=ex.pr)
    day = date.fromisoformat(ex.review_date) if ex.review_date else None
    ctx = (
        Context.for_change(change, build_config(None), review_date=day)
        if change is not None
        else Context.for_tree(tree, build_config(None), pr=ex.pr, review_date=day)
    )
    return lint(ctx, paths=[ex.path], rules=[rm])


def _cases() -> list[pytest.ParameterSet]:
    out = []
    for rm in all_rules():
        for n, ex in enumerate(rm.rule.bad, 1):
            out.append(pytest.param(rm, ex, id=f"{rm.rule.id}-bad{n}"))
    return out


def _flags(text: str, path: str) -> list[list[tuple[str, int, str, frozenset[int]]]]:
    """Per launch: (flag, its line, value, the lines the value is written on)."""
    recipe = parse_recipe(path, text)
    out = []
    for launch in recipe.launches:
        rows = []
        for name, flags in launch.flags.items():
            for f in flags:
                value = f.value.text if f.value is not None else ""
                lines = frozenset(seg.line for seg in f.value.segs) if f.value else frozenset()
                rows.append((name, f.span.line, value, lines))
        out.append(rows)
    return out


def check_applied(rm: RuleModule, ex: Example, text: str, f: Finding) -> str:
    body = comment_body(f, None, "")
    start, end = f.span.line, f.span.last_line
    applied = apply_as_github(text, start, end, body)
    removed = end - start + 1
    added = len(BLOCK.search(body).group(2).splitlines())  # type: ignore[union-attr]
    shift = added - removed

    kind = route(ex.path, build_config(None))
    if kind == "recipe":
        before, after = _flags(text, ex.path), _flags(applied, ex.path)
        assert len(after) == len(before), f"{f.rule}: launches changed\n{applied}"
        for old, new in zip(before, after, strict=True):
            for name, line, value, value_lines in old:
                if start <= line <= end:
                    continue  # the flag is on the lines the suggestion rewrites
                moved = line + shift if line > end else line
                kept = [v for n, ln, v, _ in new if (n, ln) == (name, moved)]
                assert kept, f"{f.rule}: applying the suggestion lost `{name}`\n{applied}"
                if not any(start <= n <= end for n in value_lines):
                    assert value in kept, (
                        f"{f.rule}: applying the suggestion changed `{name} {value}`\n{applied}"
                    )
            # and no launch swallows what follows it (a dangling `\` joins the next line)
            known = {(n, ln + shift if ln > end else ln) for n, ln, _, _ in old}
            for name, line, _, _ in new:
                grown = not (start <= line < start + added) and (name, line) not in known
                assert not grown, f"{f.rule}: the command gained `{name}`\n{applied}"
            assert sum(len(w.words) for w in parse_recipe(ex.path, applied).launches) <= sum(
                len(w.words) for w in parse_recipe(ex.path, text).launches
            ), f"{f.rule}: a launch gained words\n{applied}"
    elif ex.path.endswith((".yaml", ".yml")):
        YAML(typ="safe", pure=True).load(applied)
    again = _lint(rm, ex, applied)
    assert f.fingerprint not in {g.fingerprint for g in again.findings}, (
        f"{f.rule}: the suggestion does not fix the finding\n{applied}"
    )
    return applied


@pytest.mark.parametrize(("rm", "ex"), _cases())
def test_every_suggestion_applies_safely(rm: RuleModule, ex: Example) -> None:
    text = MARKER.sub("", ex.text)
    report = _lint(rm, ex, text)
    for f in report.findings:
        if f.suggestion is not None:
            check_applied(rm, ex, text, f)


def test_the_examples_exercise_suggestions_and_a_deletion() -> None:
    """The test above must not pass by finding nothing to apply."""
    seen: list[Finding] = []
    for param in _cases():
        rm, ex = param.values
        assert isinstance(rm, RuleModule) and isinstance(ex, Example)
        seen += [
            f for f in _lint(rm, ex, MARKER.sub("", ex.text)).findings if f.suggestion is not None
        ]
    rules = {f.rule for f in seen}
    assert {"RCP001", "RCP002", "RCP003", "CHL002"} <= rules, rules


CONTINUED = """\
#!/usr/bin/env bash
source benchmark_lib.sh
MODEL=MiniMaxAI/MiniMax-M3
vllm serve $MODEL \\
    --tensor-parallel-size 8 \\
    --reasoning-parser minimax_m3 \\
    --tool-call-parser minimax_m3 \\
    --enable-auto-tool-choice \\
    --port 8888
"""


def test_deleting_a_continued_line_keeps_every_later_flag() -> None:
    rm = get_rule("RCP001")
    assert rm is not None
    ex = Example(path="benchmarks/single_node/agentic/minimaxm3_fp8_h100_vllm.sh", text=CONTINUED)
    findings = [f for f in _lint(rm, ex, CONTINUED).findings if f.rule == "RCP001"]
    assert len(findings) == 1 and findings[0].suggestion == ""
    body = comment_body(findings[0], None, "")
    check_snapshot("comment-deleting-a-continued-line.md", body)  # an empty suggestion block
    applied = check_applied(rm, ex, CONTINUED, findings[0])
    assert "--reasoning-parser" not in applied
    (launch,) = parse_recipe(ex.path, applied).launches
    assert set(launch.flags) >= {"--tool-call-parser", "--enable-auto-tool-choice", "--port"}
    # what the old rendering (a blank line) would have done: the command ends there
    blank = apply_as_github(CONTINUED, 6, 6, "```suggestion\n\n```")
    (short,) = parse_recipe(ex.path, blank).launches
    assert "--port" not in short.flags


LAST_LINE = """\
#!/usr/bin/env bash
source benchmark_lib.sh
vllm serve $MODEL \\
    --tool-call-parser minimax_m3 \\
    --reasoning-parser minimax_m3
echo started
"""

IN_ARRAY = """\
#!/usr/bin/env bash
source benchmark_lib.sh
VLLM_CMD=(
    vllm serve "$MODEL"
    --reasoning-parser minimax_m3
    --tool-call-parser minimax_m3
)
"${VLLM_CMD[@]}"
"""


def test_no_deletion_that_would_join_the_next_command() -> None:
    rm = get_rule("RCP001")
    assert rm is not None
    path = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_vllm.sh"
    (last,) = _lint(rm, Example(path=path, text=LAST_LINE), LAST_LINE).findings
    # deleting line 5 would leave line 4's `\\` continuing into `echo started`
    assert last.suggestion is None
    ex = Example(path=path, text=IN_ARRAY)
    (arr,) = _lint(rm, ex, IN_ARRAY).findings
    assert arr.suggestion == ""  # in an array the line is simply deleted
    check_applied(rm, ex, IN_ARRAY, arr)
    # what deleting the last continued line would do: the next command joins the launch
    joined = apply_as_github(LAST_LINE, 5, 5, "```suggestion\n```")
    (launch,) = parse_recipe(path, joined).launches
    assert [w.text for w in launch.words][-2:] == ["echo", "started"]


def test_suggestion_block_fence_outlasts_backticks_in_the_text() -> None:
    block = suggestion_block("echo ```x```")
    assert block[0] == "````suggestion" and block[-1] == "````"
    assert suggestion_block("") == ["```suggestion", "```"]
    assert suggestion_block("a\nb") == ["```suggestion", "a", "b", "```"]


def test_multi_line_finding_without_a_multi_line_comment_drops_the_suggestion() -> None:
    from dataclasses import replace

    from bot.core.changeset import FileChange
    from bot.review.render import plan_review

    rm = get_rule("CHL002")
    assert rm is not None
    f = rm.rule.hit("perf-changelog.yaml", Span(3, end_line=4), "x", suggestion="  pr-link: y")
    # only line 3 is in the patch: a one-line comment must not carry a 2-line replacement
    change = FileChange.from_patch("perf-changelog.yaml", "@@ -3,0 +3,1 @@\n+a")
    f = replace(f, comment_lines=change.comment_lines(3, 4))
    plan = plan_review([f], [], "a" * 40, {}, "")
    (_, comment) = plan.inline[0]
    assert comment.start_line is None and "```suggestion" not in comment.body


def test_every_rules_findings_give_schema_valid_sarif() -> None:
    """All bad examples' findings (suggestions, deletions, proposals) in one SARIF log."""
    import json

    from bot.report import sarif
    from tests.test_reporters import _validate_sarif

    findings = []
    for param in _cases():
        rm, ex = param.values
        assert isinstance(rm, RuleModule) and isinstance(ex, Example)
        findings += _lint(rm, ex, MARKER.sub("", ex.text)).findings
    assert any(f.proposal for f in findings)
    assert any(f.suggestion == "" for f in findings)  # a deletion
    assert any(f.suggestion for f in findings)
    log = json.loads(sarif.render(Report(findings=findings, files=["x"]), root="/repo"))
    _validate_sarif(log)
    ids = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    assert len(ids) == len(set(ids)) == len({f.rule for f in findings})


def test_proposal_and_deletion_in_comment_and_text() -> None:
    from bot.report import text

    rm = get_rule("RCP001")
    assert rm is not None
    f = rm.rule.hit("a.sh", Span(2), "x", flag="--reasoning-parser", parser="p", suggestion="")
    out = text.render(Report(findings=[f], files=["a.sh"]), "both")
    assert "  | (delete the line) （删除该行）" in out
    g = rm.rule.hit("a.sh", Span(2), "y", flag="f", parser="p", proposal="- config-keys:\n    - k")
    body = comment_body(g, None, "")
    check_snapshot("comment-with-a-proposed-addition.md", body)  # no suggestion block
    out = text.render(Report(findings=[g], files=["a.sh"]), "en")
    assert "  proposed addition:\n  | - config-keys:\n  |     - k" in out
