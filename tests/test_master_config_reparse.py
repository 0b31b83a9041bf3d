"""A master config whose top-level entries mostly repeat those of one parsed before
re-reads only the entries that differ; the result must equal a full parse."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bot.parse import master_config as M
from bot.parse.kinds import ParseRun

PATH = "configs/acme-master.yaml"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex" / "configs"


def entry(n: int, *, image: str = "vllm/vllm-openai:v0.11.0", comment: str = "") -> str:
    return (
        f"model{n}-fp8-h100-vllm:\n"
        f"  image: {image}\n"
        f"  model: acme/model-{n}\n"
        f"  runner: h100{comment}\n"
        f"  precision: fp8\n"
        f"  framework: vllm\n"
        f"  multinode: false\n"
        f"  seq-len-configs:\n"
        f"    - isl: 1024\n"
        f"      osl: {n * 8}\n"
        f"      search-space:\n"
        f"        - {{ tp: 8, conc-start: 4, conc-end: 64 }}\n"
        f"        - tp: 4\n"
        f"          conc-list: [1, 2, {n}]\n"
    )


def config(*entries: str, header: str = "# acme master config\n\n") -> str:
    return header + "\n".join(entries)


BASE = config(*(entry(n) for n in range(1, 13)))


def shape(cfg: M.MasterConfig) -> tuple[Any, ...]:
    return (
        cfg.path,
        cfg.text,
        [(p.kind, p.line, p.params) for p in cfg.problems],
        [
            (k, e.key, e.data, e.start_line, e.end_line, e.raw, e._root)
            for k, e in cfg.entries.items()
        ],
        # the entries share one table of lines per parse
        [_lines(t) for t in {id(e._lines): e._lines for e in cfg.entries.values()}.values()],
        dict(cfg.events) if cfg.events is not None else None,
    )


def _lines(table: Mapping[M.PathKey, int]) -> dict[tuple[Any, ...], int]:
    # a key the walk could not use is a fresh placeholder object in every parse
    def step(s: Any) -> Any:
        return "<placeholder>" if isinstance(s, M._Placeholder) else s

    return {tuple(step(s) for s in path): line for path, line in table.items()}


def after(base: str, head: str) -> tuple[M.MasterConfig, bool]:
    """`head` parsed with `base` remembered, and whether it was re-read from it."""
    memory = M.MasterConfigMemory()
    M.parse_master_config(PATH, base, memory)
    reread = memory.reparse(PATH, head) is not None
    return M.parse_master_config(PATH, head, memory), reread


def edits(text: str) -> dict[str, str]:
    lines = text.split("\n")
    tops = [i for i, ln in enumerate(lines) if ln[:1].isalnum()]
    mid = tops[len(tops) // 2]

    def at(i: int, *new: str, drop: int = 0) -> str:
        return "\n".join(lines[:i] + list(new) + lines[i + drop :])

    return {
        "unchanged": text,
        "value edited": text.replace("conc-list: [1, 2, 5]", "conc-list: [1, 2, 5, 7]"),
        "entry inserted": at(mid, *entry(99).rstrip("\n").split("\n"), ""),
        "entry appended": text + "\n" + entry(100),
        "entry removed": at(mid, drop=tops[len(tops) // 2 + 1] - mid),
        "first entry removed": at(tops[0], drop=tops[1] - tops[0]),
        "lines shift": at(tops[1], "# a comment above an entry", ""),
        "comment inside an entry": at(
            mid + 2, "# a column-0 comment inside", "  # an indented one"
        ),
        "key renamed": text.replace("model3-fp8-h100-vllm:", "model3-fp8-h200-vllm:"),
        "duplicate key": text.replace("model4-fp8-h100-vllm:", "model5-fp8-h100-vllm:"),
        "broken yaml": at(mid + 1, "  image: [unclosed"),
        "anchor": text.replace("  precision: fp8\n", "  precision: &p fp8\n", 1),
        "alias": at(mid + 4, "  extra: *nowhere"),
        "tag": text.replace("  runner: h100\n", "  runner: !!str h100\n", 1),
        "merge key": at(mid + 1, "  <<: {runner: b200}"),
        "document marker": "---\n" + text,
        "second document": text + "---\nother: 1\n",
        "directive": "%YAML 1.2\n---\n" + text,
        "indented first key": "  " + text.removeprefix("# acme master config\n\n"),
        "quoted key": text.replace("model6-fp8-h100-vllm:", '"model6-fp8-h100-vllm":'),
        "flow mapping": "{a: 1}\n" + text,
        "top-level list": text + "- item\n",
        "scalar line at column 0": at(mid + 1, "stray"),
        "tab indentation": at(mid + 1, "\timage: x"),
        "byte-order mark": "\ufeff" + text,
        "crlf": text.replace("\n", "\r\n"),
        "crlf edited": text.replace("\n", "\r\n").replace("osl: 16", "osl: 17"),
        "no trailing newline": text.rstrip("\n"),
        "plain scalar continued": text.replace(
            "  model: acme/model-7\n", "  model: acme/\n   model-7\n"
        ),
        "block scalar": at(mid + 1, "  notes: |", "    line one", "", "    line three"),
        "integer key": text + "\n2024: {image: x}\n",
        "empty value": at(mid, "model-empty:", ""),
        "emptied": "",
        "comments only": "# nothing here\n",
    }


@pytest.mark.parametrize("name", list(edits(BASE)))
def test_reread_equals_a_full_parse(name: str) -> None:
    head = edits(BASE)[name]
    got, _ = after(BASE, head)
    assert shape(got) == shape(M.parse_master_config(PATH, head))


@pytest.mark.parametrize(
    "name",
    [
        "value edited",
        "entry inserted",
        "entry appended",
        "entry removed",
        "lines shift",
        "crlf edited",
    ],
)
def test_small_changes_are_reread_from_the_remembered_parse(name: str) -> None:
    # `crlf edited` against a CRLF base: blocks repeat byte for byte
    base = BASE.replace("\n", "\r\n") if name == "crlf edited" else BASE
    _, reread = after(base, edits(BASE)[name])
    assert reread


@pytest.mark.parametrize(
    "name",
    [
        "duplicate key",
        "broken yaml",
        "anchor",
        "alias",
        "tag",
        "merge key",
        "document marker",
        "directive",
        "indented first key",
        "quoted key",
        "byte-order mark",
        "top-level list",
        "scalar line at column 0",
        "second document",
    ],
)
def test_unusual_text_takes_the_full_parse(name: str) -> None:
    _, reread = after(BASE, edits(BASE)[name])
    assert not reread


def test_only_the_changed_blocks_are_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    memory = M.MasterConfigMemory()
    M.parse_master_config(PATH, BASE, memory)
    walked: list[str] = []
    real = M._walk

    def spy(text: str) -> Any:
        walked.append(text)
        return real(text)

    monkeypatch.setattr(M, "_walk", spy)
    head = BASE.replace("osl: 40", "osl: 41")
    M.parse_master_config(PATH, head, memory)
    assert len(walked) == 1 and walked[0].startswith("model5-fp8-h100-vllm:")


def test_a_parse_with_problems_or_a_fallback_is_not_remembered() -> None:
    memory = M.MasterConfigMemory()
    M.parse_master_config(PATH, edits(BASE)["anchor"], memory)
    M.parse_master_config(PATH, edits(BASE)["broken yaml"], memory)
    assert memory.recent == []
    M.parse_master_config(PATH, BASE, memory)
    assert memory.reparse("configs/other-master.yaml", BASE) is None  # another path


def test_a_cache_hit_is_remembered_by_the_run() -> None:
    # the service takes the base from its parse cache: the run still re-reads the head from it
    base = M.parse_master_config(PATH, BASE)
    run = ParseRun()
    run.seen("master_config", base)
    head = BASE.replace("osl: 40", "osl: 41")
    again = run.master_configs.reparse(PATH, head)
    assert again is not None
    assert shape(again) == shape(M.parse_master_config(PATH, head))


def test_random_edits_equal_a_full_parse() -> None:
    rng = random.Random(2423)
    pieces = [
        "  image: lmsysorg/sglang:v0.5.9",
        "# a comment",
        "",
        "new-entry-{n}:",
        "  runner: b200",
        "    - { tp: 2, conc-start: 1, conc-end: 8 }",
        "  precision: &a fp4",
        'model2-fp8-h100-vllm: {image: "x"}',
        "  bad: [",
        "\tx: 1",
    ]
    for n in range(300):
        lines = BASE.split("\n")
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(lines))
            action = rng.random()
            if action < 0.4:
                lines.insert(i, rng.choice(pieces).replace("{n}", str(n)))
            elif action < 0.7:
                del lines[i]
            else:
                lines[i] = lines[i].replace("1", "7")
        head = "\n".join(lines)
        got, _ = after(BASE, head)
        assert shape(got) == shape(M.parse_master_config(PATH, head)), head


def _real(name: str) -> str:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["nvidia-master.yaml", "amd-master.yaml"])
def test_real_configs_edited_equal_a_full_parse(name: str) -> None:
    text = _real(name)
    rng = random.Random(name)
    lines = text.split("\n")
    tops = [i for i, ln in enumerate(lines) if ln[:1].isalnum()]
    for _ in range(6):
        i = rng.choice(tops)
        j = rng.choice(tops)
        edited = [*lines[:i], "# moved", *lines[j : j + 3], *lines[i + 1 :]]
        head = "\n".join(edited)
        got, _ = after(text, head)
        assert shape(got) == shape(M.parse_master_config(PATH, head))
    _, reread = after(text, text.replace("conc-end: 64", "conc-end: 32", 1))
    assert reread
