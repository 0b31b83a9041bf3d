"""Meta-tests over the rule registry: ids, file names, both languages, message style, docs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.core.model import SEVERITIES, Rule, T
from bot.core.registry import RuleModule, all_rules, expected_module_name
from bot.docs import README_END, README_START, main, render_rules_markdown

ROOT = Path(__file__).resolve().parents[1]
RULES_MD = ROOT / "docs" / "rules.md"

RULES = all_rules()
PARAMS = [pytest.param(rm, id=f"{rm.rule.id}-{rm.rule.slug}") for rm in RULES]


def texts(rule: Rule) -> list[tuple[str, T]]:
    """Every bilingual text of a rule, named."""
    out = [("title", rule.title), ("message", rule.message), ("rationale", rule.rationale)]
    if rule.fix is not None:
        out.append(("fix", rule.fix))
    out += [(f"variant {k!r}", v) for k, v in rule.variants.items()]
    out += [(f"variant fix {k!r}", v) for k, v in rule.variant_fixes.items()]
    return out


def messages(rule: Rule) -> list[tuple[str, T]]:
    return [("message", rule.message)] + [(f"variant {k!r}", v) for k, v in rule.variants.items()]


def _prose(text: str) -> str:
    """`text` without `code spans` and {placeholders}, whose content is not prose."""
    return re.sub(r"\{[^{}]*\}", "", re.sub(r"`[^`]*`", "", text))


def test_ids_are_unique() -> None:
    ids = [rm.rule.id for rm in RULES]
    assert len(ids) == len(set(ids))
    slugs = [rm.rule.slug for rm in RULES]
    assert len(slugs) == len(set(slugs))


@pytest.mark.parametrize("rm", PARAMS)
def test_file_name_matches_id_and_slug(rm: RuleModule) -> None:
    assert rm.module.rsplit(".", 1)[-1] == expected_module_name(rm.rule)
    assert rm.rule.severity in SEVERITIES


@pytest.mark.parametrize("rm", PARAMS)
def test_both_languages_present(rm: RuleModule) -> None:
    for name, text in texts(rm.rule):
        assert text.en.strip(), f"{name}: English is empty"
        assert text.zh.strip(), f"{name}: Chinese is empty"


@pytest.mark.parametrize("rm", PARAMS)
def test_same_placeholders_in_both_languages(rm: RuleModule) -> None:
    for name, text in texts(rm.rule):
        en, zh = text.placeholders()
        assert en == zh, f"{name}: placeholders differ: en {sorted(en)} vs zh {sorted(zh)}"
    en, zh = rm.rule.title.placeholders()
    assert not en and not zh, "a title has no placeholders, so summaries group cleanly"


@pytest.mark.parametrize("rm", PARAMS)
def test_message_style(rm: RuleModule) -> None:
    for name, text in messages(rm.rule):
        en, zh = text.en.strip(), text.zh.strip()
        if (rm.rule.id, name) == ("SGN000", "variant 'footer'"):
            # the verdict comment's footer: two full sentences under the rows, not a message
            continue
        assert not en.endswith("."), f"{name}: English message ends with a period"
        assert not zh.endswith("。"), f"{name}: Chinese message ends with 。"
        prose = _prose(en)
        assert not re.search(r"\bplease\b", prose, re.I), f"{name}: says 'please'"
        assert not re.search(r"\byou(r|rs|rself)?\b", prose, re.I), f"{name}: says 'you'"
        assert "!" not in prose, f"{name}: has '!'"


@pytest.mark.parametrize("rm", PARAMS)
def test_has_bad_and_good_examples(rm: RuleModule) -> None:
    if rm.rule.target == "signoff":
        # A sign-off check judges a sign-off comment against facts (CODEOWNERS, check runs,
        # permissions, the PR's lint), not a file, so the example runner cannot run a file
        # example for it. Its examples are the cases of tests/test_signoff_matrix.py;
        # test_every_signoff_row_has_a_record_and_every_record_a_row checks that they reach it.
        assert not rm.rule.bad and not rm.rule.good, "a file example would never run"
        return
    assert rm.rule.bad, "at least one bad example"
    assert rm.rule.good, "at least one good example"


@pytest.mark.parametrize("rm", PARAMS)
def test_rule_is_documented(rm: RuleModule) -> None:
    if not RULES_MD.exists():
        pytest.fail("docs/rules.md is missing; run: python -m bot.docs --write")
    text = RULES_MD.read_text(encoding="utf-8")
    if f"## {rm.rule.id} `{rm.rule.slug}`" not in text:
        pytest.fail(f"{rm.rule.id} is not in docs/rules.md; run: python -m bot.docs --write")


def test_docs_are_up_to_date() -> None:
    if not RULES_MD.exists():
        pytest.fail("docs/rules.md is missing; run: python -m bot.docs --write")
    if RULES_MD.read_text(encoding="utf-8") != render_rules_markdown():
        pytest.fail("docs/rules.md is stale; run: python -m bot.docs --write")


def test_docs_write_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        f"# x\n\n{README_START}\nSTALE-TABLE\n{README_END}\n\nmore\n", encoding="utf-8"
    )
    assert main(["--check", "--root", str(tmp_path)]) == 1
    assert main(["--write", "--root", str(tmp_path)]) == 0
    assert main(["--check", "--root", str(tmp_path)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert (
        "STALE-TABLE" not in text
        and "| ID | Slug |" in text
        and text.endswith(f"{README_END}\n\nmore\n")
    )
    for rm in RULES:
        assert f"[{rm.rule.id}](docs/rules.md#{rm.rule.id.lower()})" in text
    assert (tmp_path / "docs" / "rules.md").read_text(encoding="utf-8") == render_rules_markdown()
    readme.write_text("# no markers\n", encoding="utf-8")
    assert main(["--check", "--root", str(tmp_path)]) == 0  # nothing to regenerate there
    capsys.readouterr()


SIGNOFF = [rm.rule for rm in RULES if rm.rule.target == "signoff"]


def test_every_signoff_row_has_a_record_and_every_record_a_row() -> None:
    """The matrix's verdicts reach every SGN record, and emit no row without one."""
    from bot.signoff.verify import verify_all
    from tests.test_signoff_matrix import PARAMS as MATRIX
    from tests.test_signoff_matrix import build

    seen: set[str] = set()
    for param in MATRIX:
        case, version, _ = param.values
        facts, knowledge = build(case, version)
        seen |= {c.name for c in verify_all(facts, knowledge).checks}
    # SGN000 is the verdict itself and the clauses rows share, not a row
    slugs = {r.slug for r in SIGNOFF if r.id != "SGN000"}
    assert seen - slugs == set(), "rows without an SGN record"
    # a row the matrix does not reach is asserted on by name in a sign-off unit test
    tests = "".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_signoff*.py")
    )
    untested = [s for s in sorted(slugs - seen) if f'"{s}"' not in tests]
    assert not untested, f"no sign-off test names these rows: {untested}"


def test_signoff_records_are_not_lint_rules() -> None:
    from bot.core.registry import resolve_rule

    assert SIGNOFF and all(r.id.startswith("SGN") for r in SIGNOFF)
    for r in SIGNOFF:
        assert resolve_rule(r.id) is None and resolve_rule(r.slug) is None
    rm = next(rm for rm in RULES if rm.rule.target == "signoff")
    with pytest.raises(TypeError, match="not by the lint engine"):
        list(rm.check())
