"""A changelog that shares its first lines with one parsed before is re-read
only from the last shared entry; the result must equal a full parse."""

from __future__ import annotations

from typing import Any

import pytest

from bot.parse import changelog as C

PATH = "perf-changelog.yaml"


def entry(n: int, *, desc: str | None = None, extra: str = "") -> str:
    text = desc or f"Entry {n} with a [link](https://example.test/{n})"
    return (
        f"- config-keys:\n"
        f"    - model{n}-fp8-h100-vllm\n"
        f"    - model{n}-fp8-h200-vllm\n"
        f"  description:\n"
        f'    - "{text}"\n'
        f"  pr-link: https://github.com/acme/bench/pull/{n}\n"
        f"{extra}"
    )


def log(*entries: str, header: str = "") -> str:
    return header + "\n".join(entries)


def shape(log: C.Changelog) -> tuple[Any, ...]:
    return (
        log.path,
        log.text,
        log.problems,
        [
            (
                e.index,
                e.start_line,
                e.end_line,
                e.data,
                dict(e.key_lines),
                dict(e.key_ends),
                dict(e.item_lines),
                e.raw,
            )
            for e in log.entries
        ],
    )


def full(text: str) -> C.Changelog:
    return C.parse_changelog(PATH, text)


def after(base: str, head: str) -> C.Changelog:
    memory = C.ChangelogMemory()
    C.parse_changelog(PATH, base, memory)
    return C.parse_changelog(PATH, head, memory)


BASE = log(*(entry(n) for n in range(1, 9)), header="# history\n\n")

HEADS = {
    "appended": BASE + "\n" + entry(9),
    "appended-two": BASE + "\n" + entry(9) + "\n" + entry(10),
    "last-edited": BASE.replace("Entry 8 with", "Entry eight with"),
    "middle-edited": BASE.replace("Entry 4 with", "Entry four with"),
    "inserted-middle": BASE.replace(entry(5), entry(42) + "\n" + entry(5)),
    "deleted-last": log(*(entry(n) for n in range(1, 8)), header="# history\n\n"),
    "comment-between": BASE + "# next batch\n\n" + entry(9),
    "blank-lines-between": BASE + "\n\n\n" + entry(9),
    "bad-yaml-tail": BASE + "\n- config-keys: [unclosed\n",
    "bad-layout-tail": BASE + "\n- description: [x]\n  config-keys: [a]\n",
    "anchor-in-tail": BASE + "\n" + entry(9, extra="  evals: &ev [a]\n") + "\n" + entry(10),
    "alias-to-tail": BASE + "\n" + entry(9, extra="  x: &ev [a]\n") + entry(10, extra="  y: *ev\n"),
    "no-final-newline": BASE + "\n" + entry(9).rstrip("\n"),
    "tab": BASE + "\n" + entry(9).replace("  pr-link", "\tpr-link"),
    "flow-entry": BASE + "\n" + "- {config-keys: [a], description: [b], pr-link: x}\n",
}


@pytest.mark.parametrize("name", sorted(HEADS))
def test_reparse_equals_full_parse(name: str) -> None:
    head = HEADS[name]
    assert shape(after(BASE, head)) == shape(full(head))


def test_an_anchor_in_the_remembered_text_disables_the_shortcut() -> None:
    base = log(entry(1, extra="  x: &shared [a]\n"), *(entry(n) for n in range(2, 6)))
    head = base + "\n" + entry(6, extra="  y: *shared\n")
    got = after(base, head)
    assert shape(got) == shape(full(head))
    assert got.entries[-1].get("y") == ["a"]


def test_the_tail_is_what_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    head = HEADS["appended"]
    memory = C.ChangelogMemory()
    C.parse_changelog(PATH, BASE, memory)
    seen: list[int] = []
    real = C.load_safe

    def spy(text: str, **kw: Any) -> Any:
        seen.append(len(text))
        return real(text, **kw)

    monkeypatch.setattr(C, "load_safe", spy)
    C.parse_changelog(PATH, head, memory)
    # entry 8 (may have changed: it ends where the head differs) and entry 9
    assert seen == [len(entry(8) + "\n" + entry(9))]


def test_the_entries_are_fresh_objects() -> None:
    memory = C.ChangelogMemory()
    base_log = C.parse_changelog(PATH, BASE, memory)
    head_log = C.parse_changelog(PATH, HEADS["appended"], memory)
    assert not {id(e) for e in base_log.entries} & {id(e) for e in head_log.entries}


ODD = {
    "quoted-and-typed": log(entry(1), '- config-keys: ["a", b]\n  "pr-link": 12\n  n: 1.5\n'),
    "int-key": log(entry(1), "- config-keys: [a]\n  1: x\n"),
    "bool-key": log(entry(1), "- config-keys: [a]\n  true: x\n"),
    "scalar-entry": log(entry(1), "- just text\n"),
    "empty-list": log(entry(1), "- config-keys: []\n  description: [x]\n"),
    "nested": log(entry(1), "- config-keys: [a]\n  evals: {x: [1, {y: 2}]}\n"),
    "tagged": log(entry(1), "- config-keys: !!set {a: null}\n"),
    "merge-key": log(entry(1, extra="  base: &b {x: 1}\n"), "- <<: *b\n  config-keys: [a]\n"),
    "duplicate-key": log("- config-keys: [a]\n  config-keys: [b]\n"),
    "timestamp-and-null": log("- config-keys: [a]\n  date: 2026-01-02\n  x: ~\n"),
    "two-documents": log(entry(1), "---\n" + entry(2)),
    "mapping-root": "config-keys: [a]\n",
    "flow-root": "[{config-keys: [a]}, {config-keys: [b]}]\n",
    "invalid": log(entry(1), "- config-keys: [a\n"),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_one_pass_reading_equals_the_two_pass_one(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = ODD[name]
    one_pass = full(text)
    monkeypatch.setattr(C, "_walk_plain", lambda text, stats: None)
    assert shape(full(text)) == shape(one_pass)


def test_plain_yaml_takes_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(C, "load_safe", lambda *a, **k: pytest.fail("second pass"))
    assert len(full(BASE).entries) == 8
