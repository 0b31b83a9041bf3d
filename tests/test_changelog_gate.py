"""The changelog gate: CHL003-CHL010 and CFG002 on a pull request (base vs head).

Fixtures are written here in the shape of InferenceX's `perf-changelog.yaml`
and `configs/*-master.yaml`; a few tests also read the copy of the real files
in `../shared/inferencex` and skip when it is absent.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import pytest
from lintkit import lint_pr

from bot.core.engine import Report
from bot.core.registry import RuleModule, all_rules
from bot.parse.changelog import parse_changelog
from bot.parse.changelog_diff import (
    diff_changelogs,
    history_hunks,
    matching_keys,
    separators,
    wildcard_match,
)

LOG = "perf-changelog.yaml"
NV = "configs/nvidia-master.yaml"
AMD = "configs/amd-master.yaml"
PREFIX = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex"


@cache
def gate_rules() -> list[RuleModule]:
    return [rm for rm in all_rules() if rm.rule.id.startswith("CHL") or rm.rule.id == "CFG002"]


def gate(
    head: Mapping[str, str | bytes], base: Mapping[str, str | bytes], pr: int | None = None
) -> Report:
    """Lint a pull request from `base` to `head` (file dicts) with the gate's rules."""
    return lint_pr(head, base, pr=pr, rules=gate_rules())


def hits(report: Report) -> list[tuple[str, str, int, str]]:
    return [(f.rule, f.path, f.line, f.severity) for f in report.findings]


def entry(
    *keys: str,
    pr: int | str = "XXX",
    desc: str = "Bump the image",
    scenario: str | None = "agentic-coding",
    extra: str = "",
) -> str:
    text = "- config-keys:\n" + "".join(f"    - {k}\n" for k in keys)
    if scenario:
        text += f"  scenario-type:\n    - {scenario}\n"
    text += f'  description:\n    - "{desc}"\n{extra}  pr-link: {PREFIX}{pr}\n'
    return text


def log(*entries: str) -> str:
    return "\n".join(entries)


def master(*blocks: str) -> str:
    return "\n".join(blocks)


def config_block(
    key: str,
    image: str = "vllm/vllm-openai:v0.27.1",
    conc: str = "[1, 2, 4]",
    fixed: bool = False,
) -> str:
    text = (
        f"{key}:\n  image: {image}\n  model: MiniMaxAI/MiniMax-M3-MXFP8\n"
        "  model-prefix: minimaxm3\n  runner: h100\n  precision: fp8\n  framework: vllm\n"
        "  multinode: false\n  scenarios:\n"
    )
    if fixed:
        text += (
            "    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:\n"
            "      - { tp: 8, conc-list: [4, 8, 16] }\n"
        )
    return text + (
        "    agentic-coding:\n    - search-space:\n"
        f"      - {{ tp: 8, kv-offloading: none, conc-list: {conc} }}\n"
    )


A = entry("minimaxm3-fp8-h100-vllm-agentic", pr=2412, desc="Add MiniMax-M3 H100 AgentX")
B = entry("minimaxm3-fp8-h200-vllm-agentic", pr=2418, desc="Move H200 to vLLM v0.27.1")
C = entry("minimaxm3-fp8-b200-vllm-agentic", pr=2420, desc="Raise B200 concurrency")
NEW = entry("minimaxm3-fp8-h100-vllm-agentic-mtp", pr=2423, desc="Add the EAGLE3 MTP variant")
BASE = log(A, B, C)

KEYS = (
    "minimaxm3-fp8-h100-vllm-agentic",
    "minimaxm3-fp8-h200-vllm-agentic",
    "minimaxm3-fp8-b200-vllm-agentic",
)
MASTER = master(*(config_block(k) for k in KEYS))
MASTER_MTP = master(MASTER, config_block("minimaxm3-fp8-h100-vllm-agentic-mtp"))


# the file of InferenceX #1821's byte contract: the base shows it (CHL007, CHL008)
BYTES = {"utils/validate_perf_changelog.py": "def validate_raw_change(base, head): ...\n"}


def pr_files(changelog: str, nvidia: str = MASTER_MTP) -> dict[str, str]:
    return {LOG: changelog, NV: nvidia, **BYTES}


def base_files() -> dict[str, str]:
    return {LOG: BASE, NV: MASTER, **BYTES}


def line_of(text: str, needle: str, start: int = 1) -> int:
    for no, line in enumerate(text.split("\n"), 1):
        if no >= start and needle in line:
            return no
    raise AssertionError(f"{needle!r} not in text")


# The gate's findings on whole pull requests (appended, inserted, edited, deleted entries,
# separators and bytes, config keys, append-only, CFG002 coverage) are cases as data:
# tests/rule_cases/CHL*.yml and CFG002.yml. What stays here is the diff itself, the
# matcher, proposals and fixes, hostile and real inputs.


def test_insertion_is_not_read_as_every_later_entry_changed() -> None:
    base, head = parse_changelog(LOG, BASE), parse_changelog(LOG, log(A, NEW, B, C))
    diff = diff_changelogs(base, head)
    assert diff is not None
    assert [e.index for e in diff.inserted] == [1]
    assert diff.appended == () and diff.edits == () and diff.deletions == ()


def test_a_pr_link_correction_is_read_as_one_pr_link_edit() -> None:
    base = log(A, B.replace("/2418", "/XXX"), C)
    diff = diff_changelogs(parse_changelog(LOG, base), parse_changelog(LOG, log(A, B, C)))
    assert diff is not None and [e.kind for e in diff.edits] == ["pr-link"]


def test_separators() -> None:
    eval_entry = entry("minimaxm3-fp8-h100-vllm-agentic-mtp", pr=2423, desc="Evals")
    cases = {
        BASE + NEW: ("first", line_of(BASE + NEW, "- config-keys:", BASE.count("\n") + 1)),
        log(BASE, NEW) + "\n\n" + eval_entry: ("between", None),
        log(BASE, NEW) + "\n": ("end", log(BASE, NEW).count("\n") + 1),
    }
    for head, (where, line) in cases.items():
        diff = diff_changelogs(parse_changelog(LOG, BASE), parse_changelog(LOG, head))
        assert diff is not None
        (sep,) = separators(diff)
        assert sep.where == where
        if line is not None:
            assert sep.line == line
        report = gate(pr_files(head), base_files(), pr=2423)
        assert {(f.rule, f.severity) for f in report.findings} == {("CHL007", "warning")}


def test_history_hunks_skip_what_other_rules_report() -> None:
    base = parse_changelog(LOG, BASE)
    head = parse_changelog(LOG, log(A, C))
    diff = diff_changelogs(base, head)
    assert diff is not None and len(diff.deletions) == 1
    assert history_hunks(diff) == []


# -- CHL009: config keys ---------------------------------------------------------------


def test_unknown_key_and_close_match() -> None:
    typo = NEW.replace("h100-vllm-agentic-mtp", "h100-vlm-agentic-mtp")
    head = log(BASE, typo)
    report = gate(pr_files(head), base_files(), pr=2423)
    assert [(f.rule, f.line) for f in report.findings] == [
        ("CFG002", line_of(MASTER_MTP, "h100-vllm-agentic-mtp:")),
        ("CHL009", line_of(head, "vlm-agentic")),
    ]
    fix = report.findings[1].fix
    assert fix is not None and fix.en == "Use `minimaxm3-fp8-h100-vllm-agentic-mtp`"


@pytest.mark.parametrize(
    ("pattern", "key"),
    [
        ("a*b", "ab"),
        ("a*b", "axxb"),
        ("a*b", "axxbc"),
        ("*", ""),
        ("**", "x"),
        ("a*a*a*b", "aaaaaaaaaaab"),
        ("a*a*a*b", "aaaaaaaaaaaa"),
        ("x.y*", "x.yz"),
        ("x.y*", "xzyz"),
        ("[a]*", "[a]b"),
        ("dsr1-fp8-*-sglang", "dsr1-fp8-h200-sglang"),
        ("dsr1-fp8-*-sglang", "dsr1-fp8-h200-sglang-mtp"),
    ],
)
def test_wildcard_match_is_the_repository_regex(pattern: str, key: str) -> None:
    regex = re.compile(re.escape(pattern).replace(r"\*", ".*"))
    assert wildcard_match(pattern, key) == bool(regex.fullmatch(key))


def test_wildcard_match_agrees_with_the_regex_on_random_input() -> None:
    rng = random.Random(2423)
    for _ in range(3000):
        pattern = "".join(rng.choice("ab*-") for _ in range(rng.randint(0, 7)))
        key = "".join(rng.choice("ab-") for _ in range(rng.randint(0, 8)))
        regex = re.compile(re.escape(pattern).replace(r"\*", ".*"))
        assert wildcard_match(pattern, key) == bool(regex.fullmatch(key)), (pattern, key)


def test_wildcard_match_does_not_backtrack() -> None:
    # a regex engine takes exponential time here; the matcher is quadratic at worst
    assert not wildcard_match("*a" * 40 + "b", "a" * 200)
    assert matching_keys("nope", ["a", "b"]) == []


def test_matching_keys_narrows_by_prefix_without_missing_any() -> None:
    rng = random.Random(2709)
    keys = sorted({"".join(rng.choice("ab-") for _ in range(rng.randint(1, 6))) for _ in range(80)})
    for _ in range(2000):
        pattern = "".join(rng.choice("ab*-") for _ in range(rng.randint(1, 6)))
        expected = [k for k in keys if wildcard_match(pattern, k)]
        assert matching_keys(pattern, keys) == expected, pattern


# -- CHL010: append-only --------------------------------------------------------------


APPEND = entry(
    "minimaxm3-fp8-h100-vllm-agentic", pr=2430, desc="Append c8", extra="  append-only: true\n"
)


# -- CFG002: master config changes need an entry -------------------------------------


def test_new_config_without_entry() -> None:
    report = gate({LOG: BASE, NV: MASTER_MTP}, base_files(), pr=2423)
    (finding,) = report.findings
    assert (finding.rule, finding.path) == ("CFG002", NV)
    assert finding.line == line_of(MASTER_MTP, "h100-vllm-agentic-mtp:")
    assert "`minimaxm3-fp8-h100-vllm-agentic-mtp`" in finding.message.en
    assert finding.proposal is not None
    assert f"pr-link: {PREFIX}2423" in finding.proposal


def test_proposed_entry_covers_the_change() -> None:
    nvidia = MASTER_MTP.replace("v0.27.1", "v0.27.2")  # every key changes
    report = gate({LOG: BASE, NV: nvidia}, base_files(), pr=2450)
    assert {f.rule for f in report.findings} == {"CFG002"}
    assert len(report.findings) == 4
    proposals = {f.proposal for f in report.findings}
    assert len(proposals) == 1
    (proposal,) = proposals
    assert proposal is not None
    head = BASE + "\n" + proposal + "\n"
    assert gate({LOG: head, NV: nvidia}, base_files(), pr=2450).findings == []
    parsed = parse_changelog(LOG, head)
    assert parsed.problems == ()
    assert parsed.entries[-1].get("scenario-type") == ["agentic-coding"]
    assert parsed.entries[-1].get("description")[0] == "Update image of " + KEYS[0]


def test_history_entry_does_not_cover() -> None:
    nvidia = MASTER.replace("v0.27.1", "v0.27.2", 1)
    report = gate({LOG: BASE, NV: nvidia}, base_files())
    assert [f.rule for f in report.findings] == ["CFG002"]
    assert report.findings[0].proposal is not None
    assert report.findings[0].proposal.endswith("/pull/XXX")


def test_changed_entry_blocks_from_its_changed_line() -> None:
    # InferenceX #1780 changed the `model:` of an existing entry: the finding names the
    # entry's key line, which the PR did not touch, and so never reached the gate
    nvidia = MASTER.replace("v0.27.1", "v0.27.2", 1)
    changed = nvidia.splitlines().index(next(x for x in nvidia.splitlines() if "v0.27.2" in x)) + 1
    report = gate({LOG: BASE, NV: nvidia}, base_files(), pr=2450)
    (finding,) = report.findings
    assert finding.line < changed <= finding.span.last_line
    assert finding.in_diff is True
    # an inline comment still sits on the key line alone, not on the whole entry
    assert finding.comment_lines == (finding.line, finding.line)


# -- hostile changelogs in a pull request -----------------------------------------------


def _alias_bomb() -> str:
    levels = ["  k0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"]
    for i in range(1, 9):
        levels.append(f"  k{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n")
    return BASE + "\n- config-keys:\n    - x\n" + "".join(levels)


def _entries(n: int) -> str:
    return BASE + "".join(
        "\n" + entry(f"minimaxm3-fp8-*-bench-{i}", pr=2800 + i, scenario=None) for i in range(n)
    )


HOSTILE: dict[str, Callable[[], str | bytes]] = {
    "alias-bomb": _alias_bomb,
    "50MB": lambda: BASE + "\n- config-keys:\n    - " + "x" * (50 << 20) + "\n",
    "10k-entries": lambda: _entries(10_000),
    "7k-entries": lambda: _entries(7_000),
    "invalid-utf8": lambda: BASE.encode() + b"\n- config-keys:\n    - \xff\n",
    "deep": lambda: BASE + "\n- " + "[" * 50_000 + "]" * 50_000 + "\n",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_changelog_in_a_pull_request(name: str) -> None:
    # correctness only; benchmarks/bench_changelog_gate.py measures the time
    report = gate({LOG: HOSTILE[name](), NV: MASTER}, base_files(), pr=2800)
    # what YAML cannot read is an error; a bound the bot reads within is a warning
    severity = "warning" if name in ("alias-bomb", "50MB", "10k-entries", "deep") else "error"
    assert any(f.severity == severity for f in report.findings)
    if name == "7k-entries":
        # under the node limit: it parses, and every entry is judged
        assert {f.rule for f in report.findings} == {"CHL002", "CHL009"}
    else:
        assert {f.rule for f in report.findings} == {"CHL000"}


def test_hostile_base_turns_comparisons_off() -> None:
    report = gate(pr_files(log(BASE, NEW)), {LOG: _alias_bomb(), NV: MASTER}, pr=2423)
    assert "CHL005" not in {f.rule for f in report.findings}


# -- the real files ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> dict[str, str]:
    paths = [LOG, NV, AMD]
    if not all((SHARED / p).exists() for p in paths):
        pytest.skip(f"{SHARED} is not present")
    return {p: (SHARED / p).read_text(encoding="utf-8") for p in paths}


def test_real_files_append_an_entry(real: dict[str, str]) -> None:
    head = dict(real)
    head[LOG] = real[LOG] + "\n" + entry("dsv4-fp4-b200-vllm-agentic-mtp", pr=2723)
    assert gate(head, real, pr=2723).findings == []


def test_real_files_config_change_without_entry(real: dict[str, str]) -> None:
    head = dict(real)
    key = "dsv4-fp4-b200-vllm-agentic-mtp:\n"
    assert key in real[NV]
    at = real[NV].index(key)
    head[NV] = real[NV][:at] + real[NV][at:].replace("image: ", "image: x", 1)
    report = gate(head, real, pr=2723)
    assert [(f.rule, f.line) for f in report.findings] == [
        ("CFG002", real[NV][:at].count("\n") + 1)
    ]
