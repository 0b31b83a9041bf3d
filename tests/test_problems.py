"""Parser problems are data: a kind and value parameters, worded by one variant each.

- every kind a parser can report (its `Literal`) is a variant of the rule that reports
  it, in both languages, and every variant is a kind (no wording left for prose);
- the reporting rules read no prose back (they import no regular expressions);
- a file bash or YAML itself cannot read is an error where the change brings it; what
  the bot cannot follow in a valid file is a warning with its own fix.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.registry import get_rule
from bot.core.tree import MemoryTree
from bot.parse.bash import InterpreterProblem
from bot.parse.changelog import ChangelogProblemKind
from bot.parse.master_config import MasterProblemKind
from bot.parse.recipe import RecipeProblemKind, parse_recipe

ROOT = Path(__file__).resolve().parent.parent
READERS = {
    "RCP000": "rules/recipe/RCP000_unparseable_recipe.py",
    "CHL000": "rules/changelog/CHL000_unparseable_changelog.py",
    "CFG000": "rules/config/CFG000_unparseable_master_config.py",
}


def _kinds(literal: object) -> set[str]:
    out: set[str] = set()
    for arg in get_args(literal):
        out |= _kinds(arg) if get_args(arg) else {arg}
    return out


def _variants(rule_id: str) -> set[str]:
    rm = get_rule(rule_id)
    assert rm is not None
    return set(rm.rule.variants)


def test_every_recipe_problem_kind_is_one_variant_of_rcp000() -> None:
    kinds = _kinds(RecipeProblemKind)
    assert _kinds(InterpreterProblem) <= kinds
    assert kinds == _variants("RCP000")


@pytest.mark.parametrize(
    ("rule_id", "literal"), [("CHL000", ChangelogProblemKind), ("CFG000", MasterProblemKind)]
)
def test_every_file_problem_kind_is_worded_by_its_rule(rule_id: str, literal: object) -> None:
    # `yaml` is the rule's main message, quoting the loader's own words
    assert _kinds(literal) - {"yaml"} == _variants(rule_id)


@pytest.mark.parametrize("rule_id", sorted(READERS))
def test_the_rules_that_word_problems_read_no_prose_back(rule_id: str) -> None:
    tree = ast.parse((ROOT / READERS[rule_id]).read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "re" not in imported and "re" not in modules


def _rcp000(
    files: dict[str, str | bytes], base: dict[str, str | bytes] | None = None
) -> list[tuple[str, str]]:
    from bot.core.changeset import build_changeset

    rm = get_rule("RCP000")
    assert rm is not None
    head = MemoryTree(files)
    config = build_config(None)
    if base is None:
        ctx = Context.for_tree(head, config)
    else:
        ctx = Context.for_change(build_changeset(MemoryTree(base), head, list(files)), config)
    report = lint(ctx, paths=list(files), rules=[rm])
    return [(f.severity, f.fix.en if f.fix else "") for f in report.findings]


PATH = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh"


def test_an_oversize_recipe_is_a_warning_and_not_told_to_fix_its_syntax() -> None:
    huge = "#!/usr/bin/env bash\n" + "# x\n" * 300_000
    ((severity, fix),) = _rcp000({PATH: huge})
    assert severity == "warning"
    assert "syntax" not in fix and "bytes" in fix


def test_a_syntax_error_is_an_error_told_to_fix_its_syntax() -> None:
    text = '#!/usr/bin/env bash\nif [ -n "$A" ]; then\n  echo\n'
    ((severity, fix),) = _rcp000({PATH: text})
    assert severity == "error" and "bash syntax" in fix


def test_a_syntax_token_that_cannot_be_quoted_is_worded_without_it() -> None:
    # an unclosed backtick substitution: the missing token cannot stand in a code span
    recipe = parse_recipe(PATH, "#!/usr/bin/env bash\nA=1\n`echo\n")
    ((problem,),) = [recipe.problems]
    assert problem.kind == "syntax_unclosed" and problem.params["token"] == "`"
    rm = get_rule("RCP000")
    assert rm is not None
    report = lint(
        Context.for_tree(MemoryTree({PATH: recipe.text}), build_config(None)),
        paths=[PATH],
        rules=[rm],
    )
    (f,) = report.findings
    assert f.message.en == rm.rule.variants["syntax"].en.format(line=problem.line)


LATIN1 = b'#!/usr/bin/env bash\necho caf\xe9\nvllm serve "$MODEL"\n'
CLEAN = '#!/usr/bin/env bash\necho cafe\nvllm serve "$MODEL"\n'


def test_bytes_that_are_not_utf8_in_a_changed_file_block() -> None:
    # the file's own bytes, as git stores them (not a decoded U+FFFD)
    assert _rcp000({PATH: LATIN1}, base={PATH: CLEAN}) == [("error", "Save the file as UTF-8")]


def test_bytes_that_are_not_utf8_already_on_the_base_stay_a_warning() -> None:
    assert _rcp000({PATH: LATIN1}, base={PATH: LATIN1}) == [("warning", "Save the file as UTF-8")]
