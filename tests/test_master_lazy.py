"""Master configs a pull request does not touch are parsed only when an answer needs them.

A PR that edits one master config used to parse every other one, base and head, for
four questions: which base entry a head key had (`entry_changes`), whether a new key
repeats another file's (CFG001), which entries cover a model (CFG004, CFG005) and
which keys a changelog entry may name (CHL009). Each now reads another file only when
its text can hold the key, or the answer is still open. These tests hold the answers
to the ones every file parsed gives, and count the parses."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from lintkit import default_config, lint_pr, rules_for

import bot.parse.kinds as kinds
import bot.parse.master_sets as master_sets
from bot.core.changeset import build_changeset
from bot.core.context import Context
from bot.core.tree import MemoryTree
from bot.parse.master_config import parse_master_config
from bot.parse.master_sets import (
    BaseMasterConfigs,
    EntryChange,
    base_master_configs,
    entry_changes,
    may_hold,
)

A, B = "configs/amd-master.yaml", "configs/nvidia-master.yaml"
CHANGELOG = "perf-changelog.yaml"


def entry(
    key: str, image: str = "vllm/vllm-openai:v0.9.0", runner: str = "b200", tp: int = 8
) -> str:
    return f"""\
{key}:
  image: {image}
  model: deepseek-ai/DeepSeek-R1
  model-prefix: dsr1
  runner: {runner}
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - {{ tp: {tp}, conc-start: 4, conc-end: 64 }}

"""


def log(*keys: str, pr: int = 7) -> str:
    items = "".join(f"    - {k}\n" for k in keys)
    return (
        "- config-keys:\n    - dsr1-fp8-b200-vllm\n  description:\n    - old\n"
        "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n\n"
        f"- config-keys:\n{items}  description:\n    - new\n"
        f"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{pr}\n"
    )


BASE_LOG = log("dsr1-fp8-b200-vllm").split("\n\n")[0] + "\n"


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        (entry("dsr1-fp8-b200-vllm"), "dsr1-fp8-b200-vllm", True),
        (entry("dsr1-fp8-b200-vllm"), "dsr1-fp8-h100-vllm", False),
        # in the text, but only as the start of a longer key
        (entry("dsr1-fp8-b200-vllm"), "dsr1-fp8-b200", False),
        ('{"dsr1-fp8-b200": 1, other-key: [a-b]}\n', "dsr1-fp8-b200", True),
        # an escape can spell a key the text does not write out
        ('"dsr1\\x2dfp8": {}\n', "dsr1-fp8", True),
        # keys YAML could resolve to another value, or quote, are not judged by the text
        ("yes: 1\n", "True", True),
        ("0x10: 1\n", "16", True),
        ("'a b': 1\n", "a b", True),
        (None, "dsr1-fp8", True),
    ],
)
def test_may_hold_is_false_only_where_the_text_cannot_name_the_key(
    text: str | None, key: str, expected: bool
) -> None:
    files = {} if text is None else {A: text}
    ctx = _ctx(files, files, [])
    assert may_hold(ctx, A, key, ctx.base) is expected
    assert may_hold(ctx, A, key) is expected


def _ctx(base: dict[str, str], head: dict[str, str], paths: list[str]) -> Context:
    change = build_changeset(MemoryTree(dict(base)), MemoryTree(dict(head)), paths, pr=7)
    return Context.for_change(change, default_config(), review_date=datetime.date(2026, 1, 1))


SCENARIOS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "an edit in one file": (
        {A: entry("dsr1-fp8-mi355x-vllm"), B: entry("dsr1-fp8-b200-vllm")},
        {A: entry("dsr1-fp8-mi355x-vllm", tp=4), B: entry("dsr1-fp8-b200-vllm")},
    ),
    "an entry moved between files": (
        {A: entry("dsr1-fp8-mi355x-vllm"), B: entry("dsr1-fp8-b200-vllm") + entry("dsr1-x-vllm")},
        {A: entry("dsr1-fp8-mi355x-vllm") + entry("dsr1-x-vllm"), B: entry("dsr1-fp8-b200-vllm")},
    ),
    "a new key twin of another file's entry": (
        {A: entry("dsr1-fp8-mi355x-vllm"), B: entry("dsr1-fp8-b200-vllm", tp=2)},
        {
            A: entry("dsr1-fp8-mi355x-vllm") + entry("dsr1-twin-vllm", tp=2),
            B: entry("dsr1-fp8-b200-vllm", tp=2),
        },
    ),
    "a key both base files hold": (
        {A: entry("dsr1-dup-vllm", tp=2), B: entry("dsr1-dup-vllm", tp=4)},
        {A: entry("dsr1-dup-vllm", tp=4), B: entry("dsr1-dup-vllm", tp=4)},
    ),
    "a key only an escape spells": (
        {A: entry("dsr1-fp8-mi355x-vllm"), B: '"dsr1\\x2desc-vllm":\n  image: x\n'},
        {
            A: entry("dsr1-fp8-mi355x-vllm") + entry("dsr1-esc-vllm"),
            B: '"dsr1\\x2desc-vllm":\n  image: x\n',
        },
    ),
    "another file that does not parse": (
        {A: entry("dsr1-fp8-mi355x-vllm"), B: "dsr1-broken: [\n"},
        {A: entry("dsr1-fp8-mi355x-vllm") + entry("dsr1-new-vllm"), B: "dsr1-broken: [\n"},
    ),
    "a key that only starts another file's key": (
        {A: entry("dsr1-pre-vllm-long"), B: entry("dsr1-pre-vllm", tp=2)},
        {A: entry("dsr1-pre-vllm-long"), B: entry("dsr1-pre-vllm", tp=4)},
    ),
    "a file the PR moved": (
        {
            ".github/configs/amd-master.yaml": entry("dsr1-fp8-mi355x-vllm"),
            B: entry("dsr1-fp8-b200-vllm"),
        },
        {A: entry("dsr1-fp8-mi355x-vllm", tp=4), B: entry("dsr1-fp8-b200-vllm")},
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_lazy_base_gives_the_changes_every_file_parsed_gives(name: str) -> None:
    base, head = SCENARIOS[name]
    changed = sorted(p for p in {*base, *head} if base.get(p) != head.get(p))
    lazy_ctx, eager_ctx = _ctx(base, head, changed), _ctx(base, head, changed)
    head_cfg = parse_master_config(A, head[A])
    lazy = base_master_configs(lazy_ctx)
    eager = base_master_configs(eager_ctx)
    assert isinstance(lazy, BaseMasterConfigs) and eager is not None
    assert _described(entry_changes(head_cfg, lazy)) == _described(
        entry_changes(head_cfg, list(eager))
    )


def _described(changes: list[EntryChange]) -> list[tuple[object, ...]]:
    return [
        (c.entry.key, c.status, c.renamed_from)
        + ((None,) if c.before is None else (c.before.key, c.before.start_line, c.before.data))
        for c in changes
    ]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The path of every master config parsed."""
    seen: list[str] = []

    def counted(path: str, text: str | bytes, memory: object = None) -> object:
        seen.append(path)
        return parse_master_config(path, text, memory)  # type: ignore[arg-type]

    monkeypatch.setattr(kinds, "parse_master_config", counted)
    yield seen


RULES = ("CFG001", "CFG002", "CFG003", "CFG004", "CFG005", "CFG006", "CFG007")


def _findings(base: dict[str, str], head: dict[str, str]) -> list[tuple[str, str, int, str]]:
    changed = sorted(p for p in {*base, *head} if base.get(p) != head.get(p))
    rules = rules_for("master_config", *RULES) + rules_for("changelog", "CHL009")
    report = lint_pr(head, base, changed=changed, rules=rules)
    return [(f.rule, f.path, f.line, f.message.en) for f in report.findings]


def _with_log(files: dict[str, str], *keys: str) -> dict[str, str]:
    return {**files, CHANGELOG: log(*keys) if keys else BASE_LOG}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_findings_are_those_of_every_file_parsed(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, head = SCENARIOS[name]
    keys = ["dsr1-fp8-mi355x-vllm", "dsr1-esc-vllm", "dsr1-*-b200-*", "dsr1-unknown-vllm"]
    base, head = _with_log(base), _with_log(head, *keys)
    lazy = _findings(base, head)

    def always(*args: object) -> bool:
        return True

    monkeypatch.setattr(master_sets, "may_hold", always)
    monkeypatch.setattr(
        "bot.rules.config.CFG001_master_config_entry_violates_schema.may_hold", always
    )
    assert lazy == _findings(base, head)


def test_an_edit_in_one_file_never_parses_the_other(parses: list[str]) -> None:
    base, head = SCENARIOS["an edit in one file"]
    findings = _findings(_with_log(base), _with_log(head, "dsr1-fp8-mi355x-vllm"))
    assert B not in parses
    assert A in parses
    # the changelog names a key only the other file holds: that one is read
    parses.clear()
    _findings(_with_log(base), _with_log(head, "dsr1-fp8-mi355x-vllm", "dsr1-fp8-b200-vllm"))
    assert B in parses
    assert [f[0] for f in findings if f[0] == "CHL009"] == []


def test_a_new_entry_reads_the_other_files_for_a_twin(parses: list[str]) -> None:
    base, head = SCENARIOS["a new key twin of another file's entry"]
    found = _findings(_with_log(base), _with_log(head, "dsr1-twin-vllm"))
    assert B in parses
    # the twin of another file's entry counts as a renamed one: not a new entry for CFG002
    assert not any(f[0] == "CFG002" for f in found)


def test_a_key_inside_a_longer_word_does_not_read_that_file(parses: list[str]) -> None:
    """`dsr1-pre-vllm` is in `dsr1-pre-vllm-long:` as text but not as a key."""
    base, head = SCENARIOS["a key that only starts another file's key"]
    _findings(_with_log(base), _with_log(head, "dsr1-pre-vllm"))
    assert A not in parses and B in parses
