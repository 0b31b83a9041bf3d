"""benchmarks/check_rule_table.py: it agrees with the registry, and it can fail.

The script itself is run on the real InferenceX tree (see docs/benchmarks.md); here it runs
on the shipped example repository, once as is and once against a copy of docs/rules.md
whose table misstates a severity.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from bot.core.registry import all_rules
from bot.docs import render_rules_table

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_rule_table", ROOT / "benchmarks" / "check_rule_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


check_rule_table = _script()


def test_the_table_parser_reads_back_every_declaration() -> None:
    rows = check_rule_table.table_rows(render_rules_table())
    declared = {
        rm.rule.id: (rm.rule.severity, {n: c.severity for n, c in rm.rule.conditions.items()})
        for rm in all_rules()
    }
    assert {k: v["declared"] for k, v in rows.items()} == declared
    assert any(conditions for _, conditions in declared.values())


def test_the_check_passes_on_the_example_and_fails_on_a_misstated_table(tmp_path: Path) -> None:
    example = ROOT / "examples" / "inferencex-mini"
    rules_md = ROOT / "docs" / "rules.md"
    result = check_rule_table.check(example, None, rules_md)
    assert result["findings"] > 0 and result["problems"] == [], result["problems"]
    emitted = {e["rule"] for e in result["emitted"]}
    # the table now calls each emitted rule's default severity something else
    table = rules_md.read_text(encoding="utf-8")
    for rm in all_rules():
        if rm.rule.id in emitted:
            other = "info" if rm.rule.severity != "info" else "error"
            table = table.replace(
                f"| `{rm.rule.slug}` | {rm.rule.severity}", f"| `{rm.rule.slug}` | {other}"
            )
    bad = tmp_path / "rules.md"
    bad.write_text(table, encoding="utf-8")
    problems = check_rule_table.check(example, None, bad)["problems"]
    assert any("rule table" in p and "does not declare" in p for p in problems), problems
    assert any(p.startswith("rule table:") for p in problems), problems


def test_the_rule_table_is_read_from_docs_rules_md_or_between_readme_markers(
    tmp_path: Path,
) -> None:
    table = render_rules_table()
    doc = tmp_path / "rules.md"
    doc.write_text(f"# Rules\n\nintro\n\n{table}\n\n## CFG000\n\n| a | b |\n", encoding="utf-8")
    assert check_rule_table.rule_table(doc).strip() == table
    marked = tmp_path / "README.md"
    marked.write_text(f"x\n<!-- rules:start -->\n{table}\n<!-- rules:end -->\n", encoding="utf-8")
    assert check_rule_table.rule_table(marked).strip() == table
