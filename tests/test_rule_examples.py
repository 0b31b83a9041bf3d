"""Every example of every rule runs: bad examples fire exactly on the marked lines, good ones stay silent.

A line that must fire ends with `# [ID]` (the rule's own id). Markers are removed
before linting (`bot.app.examples`, which the snapshots and `bot new-rule` share), so the
rule sees the file as a reviewer would. Markers of other
rules are removed too and ignored: an example documents only its own rule.

The extra cases of `tests/rule_cases/<RULE>.yml` run here too (`test_rule_case`), each
asserting the exact findings: rule id, path, line, severity and message variant.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import rulecases
from lintkit import default_config

from bot.app.examples import example_findings, strip_markers
from bot.core.model import Example, Span
from bot.core.registry import RuleModule, all_rules


@dataclass(frozen=True)
class Case:
    rm: RuleModule
    kind: str  # "bad" or "good"
    example: Example


def _cases() -> list[pytest.ParameterSet]:
    params = []
    for rm in all_rules():
        for kind, examples in (("bad", rm.rule.bad), ("good", rm.rule.good)):
            for n, ex in enumerate(examples, 1):
                params.append(
                    pytest.param(Case(rm, kind, ex), id=f"{rm.rule.id}-{rm.rule.slug}-{kind}{n}")
                )
    return params


def run_example(rm: RuleModule, ex: Example) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """(expected, actual) sets of (path, line) for the rule on this example."""
    _, marked = strip_markers(ex.text, rm.rule.id)
    actual = {(f.path, f.span.line) for f in example_findings(rm, ex, default_config())}
    return {(ex.path, line) for line in marked}, actual


@pytest.mark.parametrize("case", _cases())
def test_example(case: Case) -> None:
    expected, actual = run_example(case.rm, case.example)
    if case.kind == "bad":
        assert expected, (
            f"bad example of {case.rm.rule.id} marks no line with # [{case.rm.rule.id}]"
        )
    else:
        assert not expected, (
            f"good example of {case.rm.rule.id} marks a line with # [{case.rm.rule.id}]"
        )
    missing = sorted(expected - actual)
    extra = sorted(actual - expected)
    assert not missing and not extra, (
        f"{case.rm.rule.id} on {case.kind} example {case.example.path}: "
        f"did not fire on {missing}, fired unexpectedly on {extra}"
    )


def test_strip_markers() -> None:
    text = "a  # [RCP001]\nb # [RCP002]\r\nc\n  d #[RCP001] # [RCP001]  \nno # [rcp001]"
    stripped, marked = strip_markers(text, "RCP001")
    assert stripped == "a\nb\r\nc\n  d\nno # [rcp001]"
    assert marked == {1, 4}


# ----------------------------------------------------------------------------- cases as data


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in rulecases.load_cases()])
def test_rule_case(case: rulecases.Case) -> None:
    got = rulecases.actual(rulecases.run_case(case))
    assert [f.row() for f in got] == [f.row() for f in case.findings], case.note
    for want, have in zip(case.findings, got, strict=True):
        if want.message is not None:
            assert have.message == want.message


def test_every_case_key_is_documented() -> None:
    readme = (rulecases.CASES / "README.md").read_text(encoding="utf-8")
    for key in sorted(rulecases.CASE_KEYS | rulecases.FINDING_KEYS):
        assert f"{key}:" in readme, key


def _case_file(text: str, name: str = "CHL003.yml") -> list[rulecases.Case]:
    from pathlib import Path

    from ruamel.yaml import YAML

    return rulecases.parse_case_file(Path(name), YAML(typ="safe").load(text))


GOOD_CASE = "rule: CHL003\ncases:\n  - name: x\n    files: {a.yaml: ''}\n    findings: []\n"


@pytest.mark.parametrize(
    ("text", "name", "error"),
    [
        (GOOD_CASE, "CHL004.yml", "does not match the file name"),
        (GOOD_CASE.replace("CHL003", "XYZ999"), "XYZ999.yml", "no rule XYZ999"),
        (GOOD_CASE.replace("    findings", "    fidnings"), "CHL003.yml", "unknown keys"),
        (GOOD_CASE.replace("name: x", "name: Bad Name"), "CHL003.yml", "kebab-case"),
        (GOOD_CASE.replace("[]", "[{line: 1, variant: nope}]"), "CHL003.yml", "no variant"),
        (GOOD_CASE.replace("[]", "[{severity: error}]"), "CHL003.yml", "with `line`"),
        (GOOD_CASE + GOOD_CASE.split("cases:\n")[1], "CHL003.yml", "duplicate name"),
        (GOOD_CASE.replace("    findings", "    mode: pr\n    findings"), "CHL003.yml", "base"),
    ],
)
def test_a_malformed_case_file_is_refused_with_its_reason(text: str, name: str, error: str) -> None:
    with pytest.raises(rulecases.CaseError, match=error):
        _case_file(text, name)


def test_a_case_whose_findings_are_wrong_fails() -> None:
    (case,) = _case_file(GOOD_CASE)
    assert rulecases.actual(rulecases.run_case(case)) == []
    prepended = next(c for c in rulecases.load_cases() if c.id == "CHL003-entry-prepended")
    got = [f.row() for f in rulecases.actual(rulecases.run_case(prepended))]
    assert got == [f.row() for f in prepended.findings] and got
    moved = [(r, p, line + 1, s, v) for r, p, line, s, v in got]
    assert moved != got  # a line off by one is a different finding


def test_the_variant_is_read_from_the_wording() -> None:
    from bot.core.registry import get_rule

    rm = get_rule("CHL004")
    assert rm is not None
    rule = rm.rule
    plain = rule.hit("perf-changelog.yaml", Span(3), "x", keys="k", key="description")
    other = rule.hit("perf-changelog.yaml", Span(3), "x", variant="reformatted", keys="k")
    assert rulecases.variant_of(rule, plain) is None
    assert rulecases.variant_of(rule, other) == "reformatted"
