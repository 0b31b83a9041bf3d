"""The changelog parser, its scope helper, and rules CHL000-CHL002 on real and hostile input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from lintkit import lint_files, rules_for

from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, Report, lint
from bot.core.registry import RuleModule, all_rules
from bot.core.tree import MemoryTree
from bot.parse.changelog import (
    MAX_BYTES,
    Changelog,
    entry_changes,
    new_entries,
    parse_changelog,
)

PATH = "perf-changelog.yaml"
REAL = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex" / PATH
PREFIX = "https://github.com/SemiAnalysisAI/InferenceX/pull/"


def chl_rules() -> list[RuleModule]:
    return rules_for("changelog")


def run(
    text: str | bytes,
    *,
    pr: int | None = None,
    base: str | None = None,
    rules: list[RuleModule] | None = None,
) -> Report:
    return lint_files(
        {PATH: text},
        pr=pr,
        base={PATH: base} if base is not None else None,
        rules=rules if rules is not None else chl_rules(),
    )


def entry(
    keys: str, desc: str = "Bump the image", link: str | None = "XXX", extra: str = ""
) -> str:
    text = f"- config-keys:\n    - {keys}\n{extra}  description:\n    - {desc!r}\n"
    if link is not None:
        text += f"  pr-link: {link}\n"
    return text


FIXTURE = """\
# perf changelog: newest entries at the end
- config-keys:
    - 70b-fp8-*-vllm
  description:
    - "Add compilation-config to all 70b_fp8_mi*.sh scripts"
    - "6-7% uplift for llama"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/95

- config-keys:
  - dsr1-fp4-b200-dynamo-trt
    # NVIDIA single-node
  - dsr1-fp4-b300-dynamo-trt
  description:
    - Add official GSM8k eval results
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/587
  evals-only: true
␠␠
# a comment between entries

- config-keys:
    - dsv4-fp4-mi355x-sglang
  scenario-type:
    - fixed-seq-len
  description:
    - |
      Switch back to the main branch
      - not an item: block scalar text
    - "Refresh env vars"
  pr-link:␠
    https://github.com/SemiAnalysisAI/InferenceX/pull/1701
""".replace("␠", " ")  # trailing blanks, as in the real file


# -- parser --------------------------------------------------------------------


def test_fixture_lines() -> None:
    cl = parse_changelog(PATH, FIXTURE)
    assert cl.problems == ()
    assert [(e.index, e.start_line, e.end_line) for e in cl.entries] == [
        (0, 2, 7),
        (1, 9, 16),
        (2, 20, 30),
    ]
    first, second, third = cl.entries
    assert first.key_lines == {"config-keys": 2, "description": 4, "pr-link": 7}
    assert first.item_lines == {"config-keys": (3,), "description": (5, 6)}
    assert first.raw.startswith("- config-keys:\n    - 70b-fp8-*-vllm\n")
    assert first.raw.endswith("/pull/95")
    assert second.item_lines["config-keys"] == (10, 12)
    assert second.key_lines["evals-only"] == 16
    assert second.data["evals-only"] is True
    assert third.key_lines == {
        "config-keys": 20,
        "scenario-type": 22,
        "description": 24,
        "pr-link": 29,
    }
    assert third.item_lines["description"] == (25, 28)
    assert third.key_ends["description"] == 28
    assert (third.line_of("pr-link"), third.end_of("pr-link")) == (29, 30)
    assert third.get("pr-link") == PREFIX + "1701"
    assert third.line_of("missing") == 20 and third.line_of_item("description", 9) == 24


def test_flow_style_entry_uses_parser_positions() -> None:
    text = (
        "- config-keys: [a, b]\n  description: [x]\n  pr-link: XXX\n"
        '- {config-keys: [c], description: ["y"], pr-link: XXX}\n'
    )
    cl = parse_changelog(PATH, text)
    assert [e.start_line for e in cl.entries] == [1, 4]
    assert cl.entries[0].item_lines["config-keys"] == (1, 1)
    assert [p.kind for p in cl.problems] == ["entry-layout"]
    assert cl.problems[0].line == 4


@pytest.mark.parametrize(
    ("text", "kind", "line"),
    [
        (
            "- config-keys: [a]\n  description: [x]\n  pr-link: XXX\n  pr-link: YYY\n",
            "duplicate-key",
            4,
        ),
        ("- config-keys: [a]\n  description: [\n- b\n", "yaml", 3),
        ("- config-keys: [a]\n  description: [x]\n  pr-link: XXX", "no-final-newline", 3),
        ("- config-keys: [a]\r\n  description: [x]\r\n", "cr", 1),
        ('- config-keys: [a]\n  description: ["a\tb"]\n', "tab", 2),
        ("- config-keys: [a]\n  description: [x\x00]\n", "nul", 2),
        ("config-keys: [a]\n", "not-list", 1),
        ("# nothing yet\n", "empty", 1),
        ("- description: [x]\n  config-keys: [a]\n  pr-link: XXX\n", "entry-layout", 1),
    ],
)
def test_problems(text: str, kind: str, line: int) -> None:
    cl = parse_changelog(PATH, text)
    assert (cl.problems[0].kind, cl.problems[0].line) == (kind, line)
    report = run(text)
    assert ("CHL000", line) in {(f.rule, f.line) for f in report.findings}


def test_duplicate_key_message_is_clean() -> None:
    cl = parse_changelog(PATH, "- config-keys: [a]\n  config-keys: [b]\n")
    assert cl.problems[0].params == {"key": "config-keys"}
    (finding,) = run("- config-keys: [a]\n  config-keys: [b]\n").findings
    assert finding.message.en == "Key `config-keys` appears twice in the same mapping"


def test_bytes_input() -> None:
    cl = parse_changelog(PATH, b"- config-keys: [a]\n  description: [\xff]\n")
    assert [(p.kind, p.line) for p in cl.problems] == [("not-utf8", 2)]
    assert cl.entries == ()


# -- the real changelog ----------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> Changelog:
    if not REAL.exists():
        pytest.skip(f"{REAL} is not present")
    return parse_changelog(PATH, REAL.read_text(encoding="utf-8"))


def test_real_changelog_parses(real: Changelog) -> None:
    assert real.problems == ()
    assert len(real.entries) == 772
    lines = real.text.split("\n")
    for e in real.entries:
        assert lines[e.start_line - 1].startswith("- config-keys:")
        assert set(e.key_lines) == set(e.data)
        for key, line in e.key_lines.items():
            assert lines[line - 1][2:].startswith(f"{key}:"), (e.index, key)
        for key, items in e.item_lines.items():
            assert len(items) == len(e.data[key])
            assert all(lines[n - 1].lstrip().startswith("-") for n in items)
        assert lines[e.end_line - 1].strip()
        after = lines[e.end_line] if e.end_line < len(lines) else ""
        assert not after.strip() or after.startswith("- ")
    # a pr-link whose value is written on the next line
    (split,) = [e for e in real.entries if e.end_of("pr-link") != e.line_of("pr-link")]
    assert (split.line_of("pr-link"), split.end_of("pr-link")) == (3595, 3596)
    assert split.get("pr-link") == PREFIX + "1701"


def test_real_changelog_whole_tree() -> None:
    if not REAL.exists():
        pytest.skip(f"{REAL} is not present")
    report = run(REAL.read_bytes())
    got = [(f.rule, f.severity, f.line) for f in report.findings]
    # merged history: a `/changes` suffix and an unreplaced placeholder, both fixable
    # only by a pr-link-only change, so warnings
    assert got == [("CHL002", "warning", 5123), ("CHL002", "warning", 5598)]
    assert report.findings[0].suggestion == f"  pr-link: {PREFIX}2305"


def test_real_changelog_pr_appends_one_entry() -> None:
    if not REAL.exists():
        pytest.skip(f"{REAL} is not present")
    base = REAL.read_text(encoding="utf-8")
    head = base + "\n" + entry("minimaxm3-fp8-h100-vllm-agentic-mtp", link=None)
    report = run(head, pr=2723, base=base)
    assert [(f.rule, f.line) for f in report.findings] == [("CHL002", head.count("\n"))]


# -- scope ---------------------------------------------------------------------------


def test_entry_changes() -> None:
    a, b, c = (entry(k, link=f"{PREFIX}{n}") for k, n in (("a", 1), ("b", 2), ("c", 3)))
    base = parse_changelog(PATH, a + "\n" + b)
    assert entry_changes(parse_changelog(PATH, a + "\n" + b), base) == []
    appended = parse_changelog(PATH, a + "\n" + b + "\n" + c)
    assert [(ch.entry.index, ch.is_new) for ch in entry_changes(appended, base)] == [(2, True)]
    inserted = parse_changelog(PATH, a + "\n" + c + "\n" + b)
    assert [(ch.entry.index, ch.is_new) for ch in entry_changes(inserted, base)] == [(1, True)]
    corrected = parse_changelog(PATH, a + "\n" + b.replace("/2", "/22"))
    (change,) = entry_changes(corrected, base)
    assert change.entry.index == 1 and change.before is base.entries[1]
    assert len(new_entries(appended, None)) == 3


# -- rules ---------------------------------------------------------------------------

BASE = entry("minimaxm3-fp8-h100-vllm-agentic", link=f"{PREFIX}2412")


def test_seed_missing_pr_link_is_reported_once() -> None:
    head = BASE + "\n" + entry("minimaxm3-fp8-h100-vllm-agentic-mtp", link=None)
    for rules in (chl_rules(), all_rules()):
        report = run(head, pr=2423, base=BASE, rules=rules)
        assert [(f.rule, f.line) for f in report.findings] == [("CHL002", 10)]
    (finding,) = run(head, pr=2423, base=BASE).findings
    assert finding.severity == "error"
    assert finding.suggestion is not None
    assert finding.suggestion.endswith(f"\n  pr-link: {PREFIX}2423")


@pytest.mark.parametrize("value", ["", "''", "null"])
def test_empty_pr_link_is_chl002_only(value: str) -> None:
    head = BASE + "\n" + entry("x").replace("XXX", value)
    report = run(head, pr=2423, base=BASE)
    assert [(f.rule, f.line) for f in report.findings] == [("CHL002", 11)]
    assert report.findings[0].suggestion == f"  pr-link: {PREFIX}2423"


@pytest.mark.parametrize(
    ("link", "pr", "variant_en"),
    [
        ("TBD", 2423, "is not a pull request URL"),
        (f"{PREFIX}2423/files", 2423, "is not a pull request URL"),
        (f"{PREFIX}2412", 2423, "points to pull request #2412, not to this one (#2423)"),
        (f"{PREFIX}XXX", None, "still the placeholder"),
        ("XXX", None, "still the placeholder"),
        ("2423", 2423, "is not a pull request URL"),
    ],
)
def test_pr_link_errors(link: str, pr: int | None, variant_en: str) -> None:
    head = BASE + "\n" + entry("minimaxm3-fp8-h100-vllm-agentic-mtp", link=link)
    (finding,) = run(head, pr=pr, base=BASE).findings
    assert (finding.rule, finding.line, finding.severity) == ("CHL002", 11, "error")
    assert variant_en in finding.message.en
    if pr is not None:
        assert finding.suggestion == f"  pr-link: {PREFIX}{pr}"


def test_pr_link_prefix_comes_from_knowledge() -> None:
    fork = "https://github.com/example/bench/pull/"
    cfg = build_config(f"knowledge:\n  changelog:\n    pr_link_prefix: {fork!r}\n")
    head = BASE + "\n" + entry("x", link=f"{fork}7")
    change = build_changeset(MemoryTree({PATH: BASE}), MemoryTree({PATH: head}), [PATH], pr=7)
    ctx = Context.for_change(change, cfg)
    assert lint(ctx, paths=[PATH], rules=chl_rules()).findings == []


# -- hostile input ---------------------------------------------------------------------


def _alias_bomb() -> str:
    levels = ["  k0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"]
    for i in range(1, 9):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        levels.append(f"  k{i}: &a{i} [{refs}]\n")
    return "- config-keys: [a]\n" + "".join(levels)


def _many_entries(n: int) -> str:
    return "\n".join(entry(f"dsr1-fp8-h200-sglang-{i}", link=f"{PREFIX}{i + 1}") for i in range(n))


HOSTILE: dict[str, Callable[[], str | bytes]] = {
    "alias-bomb": _alias_bomb,
    "10k-entries": lambda: _many_entries(10_000),
    "deep-flow": lambda: "- " + "[" * 100_000 + "]" * 100_000 + "\n",
    "deep-block": lambda: "- " + "- " * 100_000 + "x\n",
    "deep-mapping": lambda: "- " + "".join(" " * (2 * i) + f"k{i}:\n" for i in range(1, 3000)),
    "invalid-utf8": lambda: b"- config-keys:\n    - dsr1\xff\xfe\n  pr-link: XXX\n",
    "50MB": lambda: "- config-keys:\n    - " + "x" * (50 * 1024 * 1024) + "\n",
    "wide-flow": lambda: "[" + "1," * 1_000_000 + "1]\n",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_gives_a_finding(name: str) -> None:
    # correctness only; the time each case takes is measured by benchmarks/bench_hostile.py
    report = run(HOSTILE[name]())
    # a bound the bot reads within is a warning (the file may be valid); an unreadable
    # file is an error
    severity = "error" if name == "invalid-utf8" else "warning"
    assert any(f.rule == "CHL000" and f.severity == severity for f in report.findings)


def test_too_large_is_refused_before_parsing() -> None:
    cl = parse_changelog(PATH, "#" * (MAX_BYTES + 1))
    assert [p.kind for p in cl.problems] == ["too-large"]
    assert cl.text == ""
