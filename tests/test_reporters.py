"""The reporters: text, JSON (validated against its schema), SARIF and GitHub annotations."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
from snapshot import check_snapshot

from bot.core.config import load_schema
from bot.core.engine import Report
from bot.core.model import ERROR, INFO, WARNING, Condition, Example, Rule, Span, T
from bot.report import github, json_report, sarif, text

RULE_A = Rule(
    id="RCP901",
    slug="test-parser-on-interleaved-thinking",
    severity=ERROR,
    target="recipe",
    title=T(en="Reasoning parser strips interleaved thinking", zh="推理解析器剥离了交错思考内容"),
    message=T(
        en="`--reasoning-parser {parser}` moves the think block out of `message.content`",
        zh="`--reasoning-parser {parser}` 会把思考块移出 `message.content`",
    ),
    fix=T(en="Drop `--reasoning-parser`", zh="删除 `--reasoning-parser`"),
    rationale=T(en="Agents resend only content.", zh="智能体只回传 content。"),
    bad=(Example(path="benchmarks/x.sh", text="vllm serve --reasoning-parser m3  # [RCP901]\n"),),
    good=(Example(path="benchmarks/x.sh", text="vllm serve\n"),),
)
RULE_B = Rule(
    id="CHL901",
    slug="test-missing-pr-link",
    severity=WARNING,
    conditions={"test": Condition(INFO, T(en="a test says so", zh="测试如此规定"))},
    target="changelog",
    title=T(en="Missing pr-link", zh="缺少 pr-link"),
    message=T(en="Entry has no `pr-link`, 100% sure: a,b", zh="条目缺少 `pr-link`"),
    rationale=T(en="Traceability.", zh="可追溯。"),
)


def make_report() -> Report:
    findings = [
        RULE_A.hit(
            "benchmarks/x.sh",
            Span(3, 5, 3, 40),
            "--reasoning-parser m3",
            parser="m3",
            suggestion="vllm serve \\",
        ),
        RULE_A.hit("benchmarks/x.sh", Span(9, 1), "--reasoning-parser m4", parser="m4"),
        RULE_B.hit("perf-changelog.yaml", Span(12, 3, 14), "entry 7"),
        RULE_B.hit("perf-changelog.yaml", Span(20), "entry 8", condition="test"),
    ]
    return Report(findings=findings, files=["benchmarks/x.sh", "perf-changelog.yaml"], suppressed=2)


EMPTY = Report(findings=[], files=["a.sh"], suppressed=0)


# --------------------------------------------------------------------------- text


def test_text_groups_by_file_and_shows_both_languages() -> None:
    out = text.render(make_report(), "both")
    assert "\x1b[" not in out
    # grouped by file (a blank line between files), both languages, the totals last
    check_snapshot("text-report-both.txt", out)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_text_one_language(lang: str) -> None:
    check_snapshot(f"text-report-{lang}.txt", text.render(make_report(), lang))


def test_text_colour_only_when_asked() -> None:
    assert "\x1b[1;31merror\x1b[0m" in text.render(make_report(), color=True)
    assert "\x1b[" not in text.render(make_report(), color=False)


def test_text_clean_report() -> None:
    assert (
        text.render(EMPTY, "both")
        == "No problems found in 1 file checked\n检查了 1 个文件，未发现问题\n"
    )


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError):
        text.render(EMPTY, "fr")


# --------------------------------------------------------------------------- JSON


def test_json_contract_and_schema() -> None:
    data = json.loads(json_report.render(make_report()))
    jsonschema.Draft202012Validator.check_schema(load_schema("findings.schema.json"))
    jsonschema.validate(
        data, load_schema("findings.schema.json"), cls=jsonschema.Draft202012Validator
    )
    assert data["version"] == 1
    assert data["summary"] == {"error": 2, "warning": 1, "info": 1, "files": 2, "suppressed": 2}
    first = data["findings"][0]
    assert first == {
        "rule": "RCP901",
        "slug": "test-parser-on-interleaved-thinking",
        "severity": "error",
        "path": "benchmarks/x.sh",
        "line": 3,
        "column": 5,
        "end_line": 3,
        "end_column": 40,
        "title": {"en": RULE_A.title.en, "zh": RULE_A.title.zh},
        "message": {
            "en": "`--reasoning-parser m3` moves the think block out of `message.content`",
            "zh": "`--reasoning-parser m3` 会把思考块移出 `message.content`",
        },
        "fix": {"en": "Drop `--reasoning-parser`", "zh": "删除 `--reasoning-parser`"},
        "suggestion": "vllm serve \\",
        "proposal": None,
        "in_diff": None,
        "fingerprint": make_report().findings[0].fingerprint,
    }
    third = data["findings"][2]
    assert third["fix"] is None and third["end_line"] == 14 and third["end_column"] is None


def test_json_schema_accepts_additive_members_and_rejects_breaking_ones() -> None:
    """The schema says consumers ignore unknown members: a future optional member validates."""
    schema = load_schema("findings.schema.json")
    data = json.loads(json_report.render(make_report()))
    data["generated_by"] = "a later version"
    data["tool"]["commit"] = "abc"
    data["summary"]["fixable"] = 1
    data["findings"][0]["confidence"] = "high"
    data["findings"][0]["message"]["ja"] = "..."
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)
    del data["findings"][0]["fingerprint"]  # a required member missing is still an error
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)


def test_json_empty_report_validates() -> None:
    data = json.loads(json_report.render(EMPTY, "en"))
    jsonschema.validate(
        data, load_schema("findings.schema.json"), cls=jsonschema.Draft202012Validator
    )
    assert data["findings"] == []


def test_json_schema_rejects_a_broken_finding() -> None:
    data = json.loads(json_report.render(make_report()))
    del data["findings"][0]["message"]["zh"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            data, load_schema("findings.schema.json"), cls=jsonschema.Draft202012Validator
        )


# --------------------------------------------------------------------------- SARIF


def _sarif(report: Report, lang: str = "both") -> dict[str, Any]:
    log: dict[str, Any] = json.loads(sarif.render(report, lang, rules=[RULE_A]))
    return log


def test_sarif_shape() -> None:
    log = _sarif(make_report())
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    ids = [r["id"] for r in driver["rules"]]
    assert ids == ["RCP901", "CHL901"]  # registry rules first, unknown ones appended
    rule = driver["rules"][0]
    assert rule["name"] == RULE_A.slug
    assert rule["shortDescription"]["text"] == RULE_A.title.en
    assert rule["defaultConfiguration"]["level"] == "error"
    assert (
        RULE_A.rationale.en in rule["help"]["text"] and RULE_A.rationale.zh in rule["help"]["text"]
    )
    assert rule["fullDescription"]["text"]
    assert driver["rules"][1]["defaultConfiguration"]["level"] == "warning"
    results = run["results"]
    assert [r["level"] for r in results] == ["error", "error", "warning", "note"]
    first = results[0]
    assert first["ruleId"] == "RCP901" and first["ruleIndex"] == 0
    assert results[2]["ruleIndex"] == 1
    assert "moves the think block" in first["message"]["text"]
    assert "会把思考块" in first["message"]["text"]
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "benchmarks/x.sh"
    assert loc["region"] == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 40}
    assert first["partialFingerprints"] == {
        "recipeReview/v1": make_report().findings[0].fingerprint
    }


SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def _validate_sarif(log: dict[str, Any]) -> None:
    """Against the OASIS SARIF 2.1.0 schema (draft-04), plus what the schema leaves to
    `format: uri`: every URI parses and a relative one has nothing left to encode."""
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])

    def uris(node: Any) -> list[str]:
        if isinstance(node, dict):
            found = [v for k, v in node.items() if k in ("uri", "helpUri", "informationUri")]
            return found + [u for v in node.values() for u in uris(v)]
        if isinstance(node, list):
            return [u for v in node for u in uris(v)]
        return []

    for uri in uris(log):
        assert isinstance(uri, str) and uri
        assert not re.search(r"[\s\\\x00-\x1f\x7f-\uffff]|%(?![0-9A-F]{2})", uri), uri
        assert re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+", uri), uri


def test_sarif_validates_against_the_oasis_schema() -> None:
    report = make_report()
    _validate_sarif(_sarif(report))
    _validate_sarif(json.loads(sarif.render(EMPTY)))
    _validate_sarif(json.loads(sarif.render(report, root="/work/my repo")))


def test_sarif_uris_are_percent_encoded_with_a_base_id() -> None:
    f = RULE_B.hit("configs/100% new/a b#1é.yaml", Span(2), "x")
    log = json.loads(sarif.render(Report(findings=[f], files=["x"]), root="/srv/repo dir"))
    _validate_sarif(log)
    (run,) = log["runs"]
    loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "configs/100%25%20new/a%20b%231%C3%A9.yaml", "uriBaseId": "%SRCROOT%"}
    assert unquote(loc["uri"]) == f.path
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///srv/repo%20dir/"


def test_sarif_rules_once_with_help_uri_and_small() -> None:
    report = make_report()
    log = json.loads(sarif.render(report))  # the whole registry is known
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == ["RCP901", "CHL901"]  # only rules with results
    # a real rule: its help once, a link to its documentation, no examples
    from bot.core.registry import get_rule

    rcp001 = get_rule("RCP001")
    assert rcp001 is not None
    f = rcp001.rule.hit("benchmarks/a.sh", Span(1), "x", flag="--reasoning-parser", parser="p")
    real = json.loads(sarif.render(Report(findings=[f, f, f], files=["benchmarks/a.sh"])))
    _validate_sarif(real)
    (rule,) = real["runs"][0]["tool"]["driver"]["rules"]
    assert rule["helpUri"].endswith("/docs/rules.md#rcp001")
    text = json.dumps(rule, ensure_ascii=False)
    assert text.count(rcp001.rule.rationale.en.strip()[:80]) == 2  # help.text + help.markdown
    assert len(sarif.render(Report(findings=[f, f, f], files=["a"]))) < 20_000


def test_sarif_suggestion_is_a_fix_with_artifact_changes() -> None:
    log = _sarif(make_report())
    first = log["runs"][0]["results"][0]
    assert "suggestion" not in first["properties"]
    (fix,) = first["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "benchmarks/x.sh", "uriBaseId": "%SRCROOT%"}
    (rep,) = change["replacements"]
    assert rep["deletedRegion"] == {"startLine": 3, "startColumn": 1, "endLine": 4, "endColumn": 1}
    assert rep["insertedContent"] == {"text": "vllm serve \\\n"}
    deletion = RULE_A.hit("a.sh", Span(5), "x", parser="p", suggestion="")
    log = json.loads(sarif.render(Report(findings=[deletion], files=["a.sh"])))
    _validate_sarif(log)
    rep = log["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert rep["insertedContent"] == {"text": ""} and rep["deletedRegion"]["endLine"] == 6


def test_sarif_language_choice() -> None:
    msg = _sarif(make_report(), "en")["runs"][0]["results"][0]["message"]["text"]
    assert "会把" not in msg and "Fix: Drop" in msg


# --------------------------------------------------------------------------- GitHub


def test_github_annotations() -> None:
    lines = github.render(make_report(), "en").splitlines()
    assert lines[0] == (
        "::error file=benchmarks/x.sh,line=3,endLine=3,col=5,endColumn=40,"
        "title=RCP901 test-parser-on-interleaved-thinking::"
        "`--reasoning-parser m3` moves the think block out of `message.content`"
        "%0AFix: Drop `--reasoning-parser`"
    )
    assert lines[2].startswith("::warning file=perf-changelog.yaml,line=12,endLine=14,col=3,title=")
    # data escapes %, but not , or :
    assert lines[2].endswith("::Entry has no `pr-link`, 100%25 sure: a,b")
    assert lines[3].startswith("::notice ")
    assert lines[-1] == "2 errors, 1 warning, 1 info in 2 files checked (2 suppressed)"


def test_github_escaping() -> None:
    assert github.escape_data("a%b\r\nc") == "a%25b%0D%0Ac"
    assert github.escape_property("x,y:z%\n") == "x%2Cy%3Az%25%0A"


def test_github_both_languages_in_one_message() -> None:
    line = github.render(make_report(), "both").splitlines()[0]
    assert "%0A`--reasoning-parser m3` 会把" in line
    assert "\n" not in line
