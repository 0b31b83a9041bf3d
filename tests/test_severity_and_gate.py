"""Severity declared in the rule record, suppressions, and the one gate decision.

- a finding's severity is its rule's default or a declared `Condition`; `bot rules`,
  `bot explain`, docs, SARIF and JSON show the same, and on the real InferenceX tree
  every emitted severity is one the registry declares;
- `# bot: ignore[ID] reason` needs a known id or slug and a reason (PRL001), an unused
  one is reported (PRL002), and a suppression the PR adds never passes the gate;
- `.recipe-bot.yml` rule names are validated;
- the review's commit status and summary, and the sign-off rows, use `bot.core.gate.decide`.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import lintkit
import pytest
from bot.rules.recipe import RCP003_golden_al_mismatch as rcp003
from snapshot import check_snapshot

from bot import cli
from bot.core.config import ConfigError, build_config
from bot.core.engine import Context, Report, lint
from bot.core.gate import decide
from bot.core.model import ERROR, WARNING, Condition, Finding, Join, Rule, Span, T, part
from bot.core.registry import RegistryError, all_rules, get_rule, load_rules
from bot.core.tree import MemoryTree
from bot.docs import render_rule_markdown, render_rules_table
from bot.report import sarif
from bot.review import render

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "inferencex"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
PARSER_LINE = 'vllm serve "$MODEL" --tool-call-parser minimax_m3 --reasoning-parser minimax_m3 &\n'
CURVES = rcp003._CURVES


def _lint(
    files: dict[str, str],
    base: dict[str, str] | None = None,
    *,
    config_text: str | None = None,
    author: str | None = "carol",
) -> Report:
    config = build_config(config_text)
    # these fixtures write short launches on one line: the style rule RCP012 has its own tests
    rules = [rm for rm in all_rules() if rm.rule.id != "RCP012"]
    if base is None:
        return lintkit.lint_files(files, paths=sorted(files), rules=rules, config=config)
    return lintkit.lint_pr(files, base, pr=7, author=author, rules=rules, config=config)


def _rules(report: Report) -> list[tuple[str, str, int]]:
    return [(f.rule, f.severity, f.line) for f in report.findings]


# ------------------------------------------------------------------ severity declared


def test_a_severity_can_only_come_from_a_declared_condition() -> None:
    rule = get_rule("RCP001")
    assert rule is not None
    with pytest.raises(TypeError, match="declared as a Condition"):
        rule.rule.hit("x.sh", Span(1), "s", severity=ERROR)
    with pytest.raises(KeyError, match="undeclared severity condition"):
        rule.rule.hit("x.sh", Span(1), "s", condition="because-i-say-so")
    assert rule.rule.hit("x.sh", Span(1), "s", condition="multi-turn-evals").severity == ERROR
    assert rule.rule.hit("x.sh", Span(1), "s").severity == WARNING


def test_registry_refuses_a_condition_that_does_not_change_the_severity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "fakerules"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "RCP990_same_severity.py").write_text(
        "from bot.core.model import ERROR, Condition, Rule, T\n"
        "RULE = Rule(id='RCP990', slug='same-severity', severity=ERROR, target='recipe',\n"
        "    title=T('t', 't'), message=T('m', 'm'), rationale=T('r', 'r'),\n"
        "    conditions={'noop': Condition(ERROR, T('always', '总是'))})\n"
        "def check(recipe, ctx):\n    yield from ()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistryError, match="must be kebab-case and change the severity"):
        load_rules("fakerules")


def test_every_surface_shows_the_declared_conditions() -> None:
    out = io.StringIO()
    args = cli.build_parser().parse_args(["rules", "--format", "json"])
    assert args.func(args, out, io.StringIO()) == 0
    listed = {r["id"]: r for r in json.loads(out.getvalue())}
    # SARIF lists the rules that have results: one finding per rule lists them all
    every = [
        Finding(
            rule=rm.rule.id,
            slug=rm.rule.slug,
            severity=rm.rule.severity,
            path="x.sh",
            span=Span(1),
            title=rm.rule.title,
            message=rm.rule.message,
            fix=rm.rule.fix,
            subject="x",
        )
        for rm in all_rules()
    ]
    sarif_rules = {
        d["id"]: d
        for d in sarif.sarif_dict(Report(findings=every, files=[]), "en")["runs"][0]["tool"][
            "driver"
        ]["rules"]
    }
    table = render_rules_table()
    text = io.StringIO()
    args = cli.build_parser().parse_args(["rules"])
    args.func(args, text, io.StringIO())
    for rm in all_rules():
        rule = rm.rule
        entry = listed[rule.id]
        assert entry["severity"] == rule.severity
        assert [(c["name"], c["severity"]) for c in entry["conditions"]] == [
            (name, c.severity) for name, c in rule.conditions.items()
        ]
        descriptor = sarif_rules[rule.id]
        assert descriptor["defaultConfiguration"]["level"] == sarif.LEVEL[rule.severity]
        assert [c["name"] for c in descriptor["properties"]["severityConditions"]] == list(
            rule.conditions
        )
        doc = render_rule_markdown(rule)
        for name, c in rule.conditions.items():
            assert f"*{name}*: when {c.when.en} / {c.when.zh}" in doc
            assert f"{c.severity} ({name})" in table
            assert f"when {c.when.en} ({name})" in text.getvalue()


def test_rcp001_is_a_warning_by_default_and_an_error_for_multi_turn_evals() -> None:
    files = {AGENTIC: "#!/usr/bin/env bash\n" + PARSER_LINE}
    assert _rules(_lint(files)) == [("RCP001", "warning", 2)]
    strict = "knowledge:\n  agentic_eval:\n    multi_turn_by_default: true\n"
    report = _lint(files, config_text=strict)
    assert _rules(report) == [("RCP001", "error", 2)]
    assert "agentic evals here run SWE-bench via mini-swe-agent by default" in (
        report.findings[0].message.en
    )
    assert "此仓库的智能体评估默认运行" in report.findings[0].message.zh


def _minimax(al: str, kwargs: str = "") -> str:
    text = rcp003._vllm_recipe("Inferact/MiniMax-M3-EAGLE3-GQA", al)
    if not kwargs:
        text = text.replace('--default-chat-template-kwargs \'{"thinking_mode":"enabled"}\' ', "")
    return text


def test_rcp003_a_value_on_no_golden_curve_is_an_error_whatever_the_thinking_mode() -> None:
    # nothing sets thinking: MiniMax-M3 serves it off (2.90 at K=3); 3.2 is on no curve
    report = _lint({AGENTIC: _minimax("3.2"), **CURVES})
    assert [(f.rule, f.severity) for f in report.findings] == [("RCP003", "error")]
    # the thinking_on value with nothing turning thinking on: the declared warning
    report = _lint({AGENTIC: _minimax("2.78"), **CURVES})
    assert [(f.rule, f.severity) for f in report.findings] == [("RCP003", "warning")]
    assert "nothing in the recipe turns thinking on" in report.findings[0].message.en
    # thinking set explicitly and the value is the other draft's: an error
    report = _lint({AGENTIC: _minimax("2.83", kwargs="on"), **CURVES})
    assert [(f.rule, f.severity) for f in report.findings] == [("RCP003", "error")]


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/inferencex is absent")
def test_what_the_rules_emit_on_the_real_tree_is_what_the_registry_declares() -> None:
    files: dict[str, str] = {}
    for path in SHARED.rglob("*"):
        if path.is_file() and path.suffix in (".sh", ".yaml", ".yml", ".md"):
            files[path.relative_to(SHARED).as_posix()] = path.read_text("utf-8", "replace")
    config = build_config(None)
    ctx = Context.for_tree(MemoryTree(files), config)
    report = lint(ctx)
    assert report.files, "nothing was linted"
    registry = {rm.rule.id: rm.rule for rm in all_rules()}
    for f in report.findings:
        rule = registry[f.rule]
        allowed = {rule.severity} | {c.severity for c in rule.conditions.values()}
        assert f.severity in allowed, f"{f.rule} emitted {f.severity} at {f.path}:{f.line}"
    assert not [f for f in report.findings if f.rule.startswith("PRL")]


# ------------------------------------------------------------------ suppressions


def _suppressed(comment: str) -> Report:
    return _lint({AGENTIC: f"#!/usr/bin/env bash\n{comment}\n{PARSER_LINE}"})


def test_a_suppression_needs_a_known_rule_and_a_reason() -> None:
    assert _rules(_suppressed("# bot: ignore[RCP001] evals are single-turn GSM8K")) == []
    assert (
        _rules(_suppressed("# bot: ignore[reasoning-parser-on-interleaved-thinking] GSM8K")) == []
    )
    assert _rules(_suppressed("# BOT: IGNORE[rcp001] single-turn evals only")) == []
    # a typo: the suppression silences nothing and says so
    report = _suppressed("# bot: ignore[RCP01] evals are single-turn")
    assert _rules(report) == [("PRL001", "warning", 2), ("RCP001", "warning", 3)]
    assert "`RCP01`" in report.findings[0].message.en and "`RCP01`" in report.findings[0].message.zh
    # no reason, or punctuation only
    for comment in ("# bot: ignore[RCP001]", "# bot: ignore[RCP001] --"):
        report = _suppressed(comment)
        assert _rules(report) == [("PRL001", "warning", 2), ("RCP001", "warning", 3)]
        assert "gives no reason" in report.findings[0].message.en
    assert "names no rule" in _suppressed("# bot: ignore[] why").findings[0].message.en
    assert "does not close" in _suppressed("# bot: ignore[RCP001 why").findings[0].message.en
    # `ALL` is not a rule
    assert _rules(_suppressed("# bot: ignore[ALL] everything"))[0][0] == "PRL001"


def test_an_unused_suppression_is_reported_only_for_rules_that_ran() -> None:
    clean = 'vllm serve "$MODEL" --tool-call-parser minimax_m3 &\n'
    report = _lint({AGENTIC: f"#!/usr/bin/env bash\n# bot: ignore[RCP001, RCP002] why\n{clean}"})
    assert [(f.rule, f.message.en) for f in report.findings] == [
        ("PRL002", "`# bot: ignore[RCP001]` silences no `RCP001` finding on this line or the next"),
        ("PRL002", "`# bot: ignore[RCP002]` silences no `RCP002` finding on this line or the next"),
    ]
    # CFG002 (a whole-change rule) did not run outside a PR: not judged
    assert (
        _rules(_lint({AGENTIC: f"#!/usr/bin/env bash\n# bot: ignore[CFG002] why\n{clean}"})) == []
    )
    # a disabled rule did not run either
    off = "rules:\n  disable: [RCP001]\n"
    text = f"#!/usr/bin/env bash\n# bot: ignore[RCP001] why\n{clean}"
    assert _rules(_lint({AGENTIC: text}, config_text=off)) == []


def test_a_suppression_the_pr_adds_is_listed_and_does_not_pass_the_gate() -> None:
    base = {AGENTIC: "#!/usr/bin/env bash\n" + PARSER_LINE}
    head = {AGENTIC: "#!/usr/bin/env bash\n# bot: ignore[RCP001] temporary\n" + PARSER_LINE}
    report = _lint(head, base)
    assert report.findings == [] and report.suppressed == 1
    (s,) = report.silenced
    assert (s.finding.rule, s.suppression.reason, s.author) == ("RCP001", "temporary", "carol")
    gate = decide(report.findings, report.silenced)
    assert gate.state == "human"
    status = render.status_for(report.findings, "recipe-review", None, report.silenced)
    assert status.state == "pending" and "1 finding(s) suppressed in this PR" in status.description
    summary = render.summary_body(report.findings, [], [], "a" * 40, report.silenced)
    check_snapshot("summary-suppressed-in-the-pr.md", summary)  # by @carol, NEEDS A HUMAN
    # a sign-off row: unacknowledged it blocks; naming the rule acknowledges it
    assert decide([], report.silenced, rules=["RCP001"], acknowledgement="LGTM").state == "fail"
    ack = decide([], report.silenced, rules=["RCP001"], acknowledgement="RCP001 is acknowledged")
    assert ack.state == "human" and ack.acknowledged
    assert decide([], report.silenced, rules=["RCP003"], acknowledgement="LGTM").state == "pass"
    # a suppression already on the base is a reviewed exception: silenced for good
    later = {AGENTIC: head[AGENTIC] + "wait\n"}
    report = _lint(later, head)
    assert report.silenced == [] and report.suppressed == 1


# ------------------------------------------------------------------ configuration


def test_rule_names_in_the_repository_config_are_validated() -> None:
    with pytest.raises(ConfigError, match=r"rules.disable: unknown rule 'RCP999'"):
        build_config("rules:\n  disable: [RCP999]\n", source=".recipe-bot.yml")
    with pytest.raises(ConfigError, match=r"rules.severity: unknown rule 'no-such-slug'"):
        build_config("rules:\n  severity: {no-such-slug: error}\n", source=".recipe-bot.yml")
    with pytest.raises(ConfigError, match=r"knowledge.signoff.rules.images: unknown rule 'CFG099'"):
        build_config("knowledge:\n  signoff:\n    rules:\n      images: [CFG003, CFG099]\n")
    config = build_config(
        "rules:\n  disable: [golden-al-mismatch, rcp002]\n  severity: {RCP007: error}\n"
    )
    assert config.disabled == {"RCP003", "RCP002"} and config.severity == {"RCP007": "error"}


# ------------------------------------------------------------------ the gate


def _finding(severity: str, in_diff: bool | None) -> Finding:
    rule = Rule(
        id="RCP950",
        slug="test",
        severity=ERROR,
        target="recipe",
        title=T("t", "t"),
        message=T("m", "m"),
        rationale=T("r", "r"),
        conditions={
            "w": Condition(WARNING, T("w", "w")),
            "i": Condition("info", T("i", "i")),
        },
    )
    cond = {"error": None, "warning": "w", "info": "i"}[severity]
    f = rule.hit("a.sh", Span(3), "s", condition=cond)
    from dataclasses import replace

    return replace(f, in_diff=in_diff)


@pytest.mark.parametrize(
    ("severities", "state", "status"),
    [
        ([], "pass", "success"),
        ([("info", True)], "pass", "success"),
        ([("warning", False), ("error", False)], "pass", "success"),
        ([("warning", True)], "human", "pending"),
        ([("warning", None)], "human", "pending"),
        ([("warning", True), ("error", True)], "fail", "failure"),
        ([("error", None)], "fail", "failure"),
    ],
)
def test_one_decision_for_status_and_summary(
    severities: list[tuple[str, bool | None]], state: str, status: str
) -> None:
    findings = [_finding(s, d) for s, d in severities]
    gate = decide(findings)
    assert gate.state == state
    assert render.status_for(findings, "recipe-review", None).state == status
    # the review puts findings on changed lines inline; the summary lists the others
    outside = [f for f in findings if f.in_diff is not True]
    summary = render.summary_body(findings, outside, [], "b" * 40)
    name = "-".join(f"{s}-{'in' if d else 'out' if d is False else 'tree'}" for s, d in severities)
    check_snapshot(f"summary-gate-{name or 'clean'}.md", summary)
    if findings:
        assert render.GATE_LINE[state][1] in summary


# ------------------------------------------------------------------ every wording in its record

RCP000_INPUTS = {
    "too_large": "#!/usr/bin/env bash\n" + "# x\n" * 300_000,
    "binary": "#!/usr/bin/env bash\necho a\x00b\n",
    "not_utf8": "#!/usr/bin/env bash\necho \ufffd\n",
    "syntax_unclosed": '#!/usr/bin/env bash\nif [ -n "$A" ]; then\n  echo hi\n',
    "syntax_unexpected": '#!/usr/bin/env bash\nif [ "$X" = 1 ; then\n  echo\nfi\n',
    "eval": '#!/usr/bin/env bash\neval "$CMD"\nvllm serve "$MODEL" &\n',
}


@pytest.mark.parametrize("variant", list(RCP000_INPUTS), ids=lambda v: str(v))
def test_every_rcp000_problem_is_a_named_variant(variant: str | None) -> None:
    path = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh"
    report = _lint({path: RCP000_INPUTS[variant]})
    (f,) = [f for f in report.findings if f.rule == "RCP000"]
    rule = get_rule("RCP000")
    assert rule is not None
    template = rule.rule.variants[variant] if variant else rule.rule.message
    assert f.message.zh.startswith(template.zh.split("{")[0][:6])
    prose = re.sub(r"`[^`]*`", "", f.message.zh)
    assert not re.search(r"[A-Za-z]{3,} [a-z]{3,}", prose), f.message.zh


def test_parser_details_are_quoted_values_in_both_languages() -> None:
    report = _lint({"perf-changelog.yaml": "- config-keys: [a\n  b: {\n"})
    (f,) = [f for f in report.findings if f.rule == "CHL000"]
    assert "the parser reports `" in f.message.en and "解析器报告 `" in f.message.zh
    assert not re.search(r"[A-Za-z]{3,} [a-z]{3,}", re.sub(r"`[^`]*`", "", f.message.zh))


def test_a_deleted_entry_without_pr_link_has_its_own_variant() -> None:
    from bot.rules.changelog import CHL005_historical_changelog_entry_deleted as chl005

    second = chl005._SECOND.replace(
        "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2418\n", ""
    )
    base = {"perf-changelog.yaml": chl005._FIRST + "\n" + second + "\n" + chl005._THIRD}
    head = {"perf-changelog.yaml": chl005._FIRST + "\n" + chl005._THIRD}
    found = [f for f in _lint(head, base).findings if f.rule == "CHL005"]
    assert [f.message.en for f in found] == [
        "Merged entry for `minimaxm3-fp8-h200-vllm-agentic` (without a `pr-link`) was deleted"
    ]
    assert found[0].message.zh == (
        "`minimaxm3-fp8-h200-vllm-agentic` 的已合并条目（没有 `pr-link`）被删除"
    )


def test_a_wording_is_a_variant_not_a_chinese_parameter() -> None:
    rule = Rule(
        id="TST001",
        slug="t",
        severity=WARNING,
        target="recipe",
        title=T(en="t", zh="t"),
        message=T(en="{what}; {list}", zh="{what}；{list}"),
        rationale=T(en="r", zh="r"),
        variants={
            "outer": T(en="runs `{name}` ({inner})", zh="运行了 `{name}`（{inner}）"),
            "inner": T(en="line {line}", zh="第 {line} 行"),
        },
    )
    f = rule.hit(
        "a.sh",
        Span(1),
        "s",
        what=part("outer", name="x.sh", inner=part("inner", line=3)),
        list=Join(("`a`", "`b`"), "or"),
    )
    assert f.message.en == "runs `x.sh` (line 3); `a` or `b`"
    assert f.message.zh == "运行了 `x.sh`（第 3 行）；`a` 或 `b`"
    with pytest.raises(TypeError, match="a wording is a variant"):
        rule.hit("a.sh", Span(1), "s", what="x", what_zh="中文")
    with pytest.raises(KeyError, match="no variant"):
        rule.hit("a.sh", Span(1), "s", what=part("missing"))


RCP008_INPUTS = {
    "pip from an index, only under a condition": (
        "#!/usr/bin/env bash\n"
        'if [ "$FRAMEWORK" = vllm ]; then\n'
        "  pip install --index-url https://pkgs.acme.dev/simple vllm==0.9.1\n"
        "fi\n"
    ),
    "patch applied to the installed engine": (
        "#!/usr/bin/env bash\n"
        'SITE="$(python3 -c \'import importlib.util as u; print(u.find_spec("vllm").origin)\')"\n'
        'patch -p1 -d "$SITE" < fix.diff\n'
    ),
    "python -c rewrites the engine": (
        "#!/usr/bin/env bash\n"
        'python3 -c "import vllm, pathlib; p = pathlib.Path(vllm.__file__); '
        "p.write_text(p.read_text().replace('a', 'b'))\"\n"
    ),
    "sitecustomize": (
        "#!/usr/bin/env bash\ncat > /tmp/site/sitecustomize.py <<'PY'\nimport sglang\nPY\n"
    ),
}


@pytest.mark.parametrize("name", list(RCP008_INPUTS))
def test_every_rcp008_message_is_worded_by_its_record(name: str) -> None:
    path = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh"
    folder = {"docs/waiver/.gitkeep": ""}  # the repository has the waiver rule
    base = {**folder, path: "#!/usr/bin/env bash\n"}
    head = {**folder, path: RCP008_INPUTS[name]}
    found = [f for f in _lint(head, base).findings if f.rule == "RCP008"]
    assert found, name
    for f in found:
        assert f.severity == "error" and "docs/waiver/7.md" in f.message.en
        assert "本 PR 未添加豁免文件 `docs/waiver/7.md`" in f.message.zh
        prose = re.sub(r"`[^`]*`", "", f.message.zh)
        assert not re.search(r"[A-Za-z]{3,} [a-z]{3,}", prose), f.message.zh
    if "condition" in name:
        assert "(only when `FRAMEWORK=vllm`)" in found[0].message.en
        assert "（仅当 `FRAMEWORK=vllm` 时）" in found[0].message.zh
        assert "the index `https://pkgs.acme.dev/simple`" in found[0].message.en
