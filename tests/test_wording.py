"""The report frames come from one catalogue (`bot.core.wording`), in both languages.

- every entry has the same placeholders in English and Chinese, and its Chinese
  carries no English prose outside code spans (the checks the rule records get);
- the modules that render reports hold no Chinese of their own: every Chinese word
  they show comes from the catalogue (or a rule's record);
- every entry is named by the code, and every name the code looks up exists.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.wording import JOINERS, SEVERITY, WORDS, both, say
from tests.test_snapshots import english_outside_code

ROOT = Path(__file__).resolve().parent.parent
# the modules that frame findings, the review, the gate and the advisor's section
RENDERERS = sorted(
    [
        "bot/core/gate.py",
        "bot/core/model.py",
        "bot/core/shared.py",
        "bot/advisor/render.py",
        *(str(p.relative_to(ROOT)) for p in (ROOT / "bot/report").glob("*.py")),
        *(str(p.relative_to(ROOT)) for p in (ROOT / "bot/review").glob("*.py")),
    ]
)
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
ENTRIES = {**{f"severity {k}": v for k, v in SEVERITY.items()}, **WORDS}


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_same_placeholders_in_both_languages(name: str) -> None:
    en, zh = ENTRIES[name].placeholders()
    assert en == zh, f"{name}: en {sorted(en)} vs zh {sorted(zh)}"


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_no_english_prose_in_the_chinese(name: str) -> None:
    text = ENTRIES[name]
    assert text.en.strip() and text.zh.strip()
    assert english_outside_code(text.zh) is None, text.zh


def chinese_literals(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each string constant holding Chinese, docstrings aside."""
    tree = ast.parse(source)
    docs: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            docs.add(id(first.value))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) not in docs and CJK.search(node.value):
            yield node.lineno, node.value


@pytest.mark.parametrize("module", RENDERERS)
def test_renderers_take_their_chinese_from_the_catalogue(module: str) -> None:
    found = list(chinese_literals((ROOT / module).read_text(encoding="utf-8")))
    assert not found, f"{module}: move these words into bot/core/wording.py: {found}"


def test_the_scan_can_fail() -> None:
    source = '"""文档 may hold Chinese."""\nX = {"error": "错误"}\nY = f"{n} 条"\n'
    assert [line for line, _ in chinese_literals(source)] == [2, 3]


def _named() -> tuple[set[str], set[str]]:
    """Entry names the code passes to `say`, and the prefixes of names it builds."""
    names: set[str] = set()
    prefixes: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id != "say" or not node.args:
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.add(arg.value)
            elif isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant):
                prefixes.add(str(arg.values[0].value))
    return names, prefixes


def test_every_entry_is_named_and_every_name_is_an_entry() -> None:
    names, prefixes = _named()
    assert names - set(WORDS) == set()
    unused = [n for n in WORDS if n not in names and not n.startswith(tuple(prefixes))]
    assert not unused, f"entries no code names: {unused}"


def test_say_fills_each_language_and_takes_bilingual_parameters() -> None:
    text = say("severity-when", severity=SEVERITY["error"], when=WORDS["the-pr"])
    assert text.en == "error when the PR" and text.zh == "本 PR时为错误"
    assert both(SEVERITY["info"]) == "info / 提示"
    assert JOINERS["clauses"].zh == "；"
