"""`bot new-rule`: the scaffold refuses what it must, writes a rule's four files, and the
rule it writes passes the checks the suite runs on every rule.

The scaffold writes into a temporary checkout (a `rules/` and a `tests/` folder); the rule
is imported from there, so the real registry never sees it. (The whole suite was also run
on a copy of this checkout holding a scaffolded rule: see CONTRIBUTING.md.)
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import rulecases
from ruamel.yaml import YAML

import tests.test_registry_meta as meta
from bot.app import scaffold
from bot.app.examples import render_snapshot
from bot.cli import main
from bot.core.registry import RuleModule, all_rules, get_rule
from tests.test_rule_examples import run_example
from tests.test_snapshots import english_outside_code

ROOT = Path(__file__).resolve().parents[1]
NEW_ID, NEW_SLUG = "RCP900", "placeholder-under-test"
MODULE = f"bot.rules.recipe.{NEW_ID}_placeholder_under_test"


@pytest.fixture
def checkout(tmp_path: Path) -> Iterator[Path]:
    for folder in ("rules/recipe", "tests/rule_cases", "tests/snapshots", "docs"):
        (tmp_path / folder).mkdir(parents=True)
    yield tmp_path
    sys.modules.pop(MODULE, None)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("rule_id", "slug", "error"),
    [
        ("RCP001", "some-new-check", "rule RCP001 exists"),
        ("RCP901", "reasoning-parser-on-interleaved-thinking", "taken by RCP001"),
        ("rcp014", "some-new-check", "bad rule id"),
        ("RCP14", "some-new-check", "bad rule id"),
        ("XYZ001", "some-new-check", "bad rule id"),
        ("CHL099", "some-new-check", "writes recipe rules"),
        ("RCP901", "Some_New_Check", "bad slug"),
    ],
)
def test_the_scaffold_refuses_a_taken_or_bad_name(
    checkout: Path, rule_id: str, slug: str, error: str
) -> None:
    with pytest.raises(scaffold.ScaffoldError, match=error):
        scaffold.new_rule(checkout, rule_id, slug)
    assert not list(checkout.rglob("*.*")), "nothing is written"


def test_an_id_whose_file_exists_in_the_checkout_is_refused(checkout: Path) -> None:
    (checkout / "rules" / "recipe" / f"{NEW_ID}_something_else.py").write_text("")
    with pytest.raises(scaffold.ScaffoldError, match=f"rule {NEW_ID} exists"):
        scaffold.new_rule(checkout, NEW_ID, NEW_SLUG)


def test_a_directory_that_is_not_a_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(scaffold.ScaffoldError, match="not a checkout"):
        scaffold.new_rule(tmp_path, NEW_ID, NEW_SLUG)


def test_the_command_writes_the_files_and_refuses_a_second_run(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(
        capsys, "new-rule", NEW_ID, NEW_SLUG, "--severity", "error", "--root", str(checkout)
    )
    assert code == 0, err
    written = [
        f"rules/recipe/{NEW_ID}_placeholder_under_test.py",
        f"tests/rule_cases/{NEW_ID}.yml",
        f"tests/snapshots/rules/{NEW_ID}.md",
        "docs/rules.md",
    ]
    assert [line.removeprefix("wrote ") for line in out.splitlines()[:4]] == written
    for rel in written:
        assert (checkout / rel).is_file(), rel
    assert "severity=ERROR" in (checkout / written[0]).read_text(encoding="utf-8")
    docs = (checkout / "docs" / "rules.md").read_text(encoding="utf-8")
    assert f"## {NEW_ID} `{NEW_SLUG}`" in docs
    for rm in all_rules():  # the generated docs keep every existing rule
        assert f"## {rm.rule.id} `{rm.rule.slug}`" in docs
    code, _, err = _run(capsys, "new-rule", NEW_ID, NEW_SLUG, "--root", str(checkout))
    assert code == 2 and f"rule {NEW_ID} exists" in err


def test_the_command_refuses_a_bad_id_with_exit_2(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "new-rule", "RCP1", NEW_SLUG, "--root", str(checkout))
    assert code == 2 and "bad rule id" in err and out == ""


def _scaffolded(checkout: Path) -> RuleModule:
    made = scaffold.new_rule(checkout, NEW_ID, NEW_SLUG)
    return scaffold.load_rule_file(made.written[0], "recipe")


def test_the_generated_rule_passes_the_checks_every_rule_passes(checkout: Path) -> None:
    rm = _scaffolded(checkout)
    assert rm.rule.id == NEW_ID and rm.rule.slug == NEW_SLUG and rm.rule.severity == "warning"
    # the registry meta-tests, on the new rule
    meta.test_file_name_matches_id_and_slug(rm)
    meta.test_both_languages_present(rm)
    meta.test_same_placeholders_in_both_languages(rm)
    meta.test_message_style(rm)
    meta.test_has_bad_and_good_examples(rm)
    # its examples: bad ones fire exactly on the marked lines, good ones stay silent
    for ex in rm.rule.bad:
        expected, actual = run_example(rm, ex)
        assert expected and actual == expected
    for ex in rm.rule.good:
        expected, actual = run_example(rm, ex)
        assert not expected and actual == set()


def test_the_generated_case_file_and_snapshot_hold(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rm = _scaffolded(checkout)
    monkeypatch.setattr(rulecases, "all_rules", lambda: [*all_rules(), rm])
    monkeypatch.setattr(
        rulecases, "get_rule", lambda name: rm if name.upper() == NEW_ID else get_rule(name)
    )
    path = checkout / "tests" / "rule_cases" / f"{NEW_ID}.yml"
    cases = rulecases.parse_case_file(path, YAML(typ="safe").load(path.read_text("utf-8")))
    assert cases
    for case in cases:
        got = rulecases.actual(rulecases.run_case(case))
        assert got and [f.row() for f in got] == [f.row() for f in case.findings]
    snapshot = (checkout / "tests" / "snapshots" / "rules" / f"{NEW_ID}.md").read_text("utf-8")
    assert snapshot == render_snapshot(rm)
    zh = [line.split("zh: ", 1)[1] for line in snapshot.splitlines() if "zh: " in line]
    assert zh and not any(english_outside_code(text) for text in zh)


def test_the_generated_files_pass_ruff_as_ci_runs_it(checkout: Path) -> None:
    """CI runs `ruff check` and `ruff format --check` over rules/: the scaffold is clean."""
    pytest.importorskip("ruff")
    made = scaffold.new_rule(checkout, NEW_ID, NEW_SLUG)
    config = str(ROOT / "pyproject.toml")
    for args in (["check"], ["format", "--check"]):
        proc = subprocess.run(
            [sys.executable, "-m", "ruff", *args, "--config", config, str(made.written[0])],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
