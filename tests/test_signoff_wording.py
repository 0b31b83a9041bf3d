"""Every wording of the sign-off verdict is inside its SGN record.

- the verifier (`bot/signoff/verify.py`, its checks `check_*.py` and their shared
  `rows.py`) and `bot/signoff/render.py` compose no prose: no string
  constant in them holds Chinese or words with spaces, except docstrings, regular
  expressions, exception messages and an explicit allow-list;
- every wording they name exists in the record it is looked up in, and every variant of
  every SGN record is named by them (so each is reachable), and shown in the docs in both
  languages;
- no row's variant shadows a shared clause of SGN000, so a part means one thing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.registry import all_rules
from bot.signoff import wording
from bot.signoff.render import ICON

ROOT = Path(__file__).resolve().parent.parent
VERIFIER = ("verify", "rows", "check_owner", "check_template", "check_ci", "check_content")
MODULES = (*(f"bot/signoff/{m}.py" for m in VERIFIER), "bot/signoff/render.py")
# the service words the rows and notes it adds to a verdict (stale, withdrawn, recorded)
# from the records too; its logs and skip reasons are English for operators, so it is
# not scanned for prose, but the wordings it names are checked like the others
USERS = (*MODULES, "bot/signoff/service.py")
RECORDS = {rm.rule.slug: rm.rule for rm in all_rules() if rm.rule.target == "signoff"}
SHARED = RECORDS[wording.SHARED]

# Chinese, or full-width punctuation
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
# Literals that look like prose to the scan but are not wording, each with why.
ALLOWED = {
    " ": "render._flat joins a reason's words into one line",
    "\n": "render joins the comment's lines",
    "\n\n…\n": "render marks a comment cut at GitHub's size limit",
}
_REGEX_CALLS = {"compile", "search", "match", "fullmatch", "sub", "finditer", "findall", "split"}


def _skipped(tree: ast.AST) -> set[int]:
    """ids of the constants that are not wording: docstrings, regular expressions and
    the messages of raised exceptions."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            skip.add(id(first.value))
        f = node.func if isinstance(node, ast.Call) else None
        if (
            isinstance(node, ast.Call)
            and isinstance(f, ast.Attribute)
            and f.attr in _REGEX_CALLS
            and isinstance(f.value, ast.Name)
            and f.value.id == "re"
            and node.args
        ):
            skip |= {id(n) for n in ast.walk(node.args[0])}
        if isinstance(node, ast.Raise) and node.exc is not None:
            skip |= {id(n) for n in ast.walk(node.exc)}
    return skip


def prose_literals(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each string constant in `source` that reads as prose."""
    tree = ast.parse(source)
    skip = _skipped(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in skip or node.value in ALLOWED:
            continue
        text = node.value
        if CJK.search(text) or re.search(r"\s", text):
            yield node.lineno, text


@pytest.mark.parametrize("module", MODULES)
def test_no_prose_is_composed_in_the_signoff_code(module: str) -> None:
    found = list(prose_literals((ROOT / module).read_text(encoding="utf-8")))
    assert not found, f"{module}: move these wordings into an SGN record: {found}"


def test_the_prose_scan_can_fail() -> None:
    source = '''
import re
def f(n):
    """A docstring with words."""
    rx = re.compile(r"not verified|未确认")
    if n < 0:
        raise ValueError("a message for developers")
    return f"{n} unchecked without a reason", "缺少", "ok", "`{x}`/`{y}`", " "
'''
    assert {text for _, text in prose_literals(source)} == {" unchecked without a reason", "缺少"}


def _constants(module: str) -> set[str]:
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    return {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def _named_wordings() -> list[tuple[str | None, str]]:
    """(row or None, variant) of every wording the verifier and render.py look up by name:
    `make_row(row, status, variant)`, `row_says(row, variant)`, `frame(variant)`,
    `part(variant)`
    (a part is looked up in the row it is rendered for: None)."""
    out: list[tuple[str | None, str]] = []
    for module in USERS:
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            args = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
            name = node.func.id
            if name == "make_row" and len(args) >= 3 and isinstance(args[2], str):
                out.append((args[0] if isinstance(args[0], str) else None, args[2]))
            elif name in ("row_says", "says") and len(args) >= 2 and isinstance(args[1], str):
                out.append((args[0] if isinstance(args[0], str) else None, args[1]))
            elif name == "frame" and args and isinstance(args[0], str):
                out.append((wording.SHARED, args[0]))
            elif name == "part" and args and isinstance(args[0], str):
                out.append((None, args[0]))
    return out


def test_every_wording_the_code_names_is_in_its_record() -> None:
    named = _named_wordings()
    assert len(named) > 90
    missing = []
    for row, variant in named:
        if row is not None:
            ok = row in RECORDS and variant in wording.variants_of(row)
        else:
            ok = any(variant in r.variants for r in RECORDS.values())
        if not ok:
            missing.append((row, variant))
    assert not missing, missing


def test_every_variant_of_every_signoff_record_is_reachable() -> None:
    """Named by a literal in the verifier, render.py or service.py, or by one of the code's
    fixed families: a rule row's `na`/`ok`/`what-unread` (check_content.RuleCheck) and the status
    words `status-<status>` (render._status)."""
    literals = set().union(*(_constants(m) for m in USERS))
    families = {"na", "ok", "what-unread"} | {f"status-{s}" for s in ICON}
    unreached = [
        (r.id, v)
        for r in RECORDS.values()
        for v in r.variants
        if v not in literals and v not in families
    ]
    assert not unreached, unreached


def test_no_row_shadows_a_shared_clause() -> None:
    shadowed = [
        (r.id, v)
        for r in RECORDS.values()
        if r is not SHARED
        for v in r.variants
        if v in SHARED.variants
    ]
    assert not shadowed, shadowed


def test_the_docs_show_every_signoff_variant_in_both_languages() -> None:
    docs = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    absent = [
        (r.id, v, lang)
        for r in RECORDS.values()
        for v, text in r.variants.items()
        for lang, line in (("en", text.en), ("zh", text.zh))
        if f"- *{v}*: {line}\n" not in docs
    ]
    assert not absent, absent


def test_the_docs_know_the_shared_record() -> None:
    from bot.docs import SHARED_SIGNOFF, render_rule_markdown

    assert SHARED_SIGNOFF == wording.SHARED and SHARED.id == "SGN000"
    assert "not a row" in render_rule_markdown(SHARED)
    assert "not a row" not in render_rule_markdown(RECORDS["owner"])


def test_values_are_inserted_as_they_are_and_an_unknown_wording_raises() -> None:
    from bot.core.model import T, part

    message = T('`{"thinking_mode":"enabled"}` {x}', '`{"a":1}` {x} 此处')
    found = part("finding", where="`a.sh:3`", message=message, more=wording.more(2))
    got = wording.says("golden-al", "warned", finding=found)
    assert got.en == 'warning `a.sh:3`: `{"thinking_mode":"enabled"}` {x} (+2 more)'
    assert got.zh == '警告 `a.sh:3`：`{"a":1}` {x} 此处（另有 2 项）'
    assert wording.more(0) == ""
    with pytest.raises(KeyError, match="no SGN wording"):
        wording.says("owner", "no-such-wording")
    with pytest.raises(KeyError, match="no SGN record"):
        wording.says("no-such-row", "na")
