"""The master-config walk reads ruamel's C parser directly, and CFG004 parses only the
archived configs that can answer it.

`yaml_events` must give the events `YAML(typ="safe", pure=False).parse` gives (same
kinds, values, tags, anchors, marks, and the same errors), without going through that
generator. `archived_master_configs(..., naming=...)` passes over an archived config
whose text cannot hold one of the names as a value, parses the others only as the
iteration reaches them, and never passes over one that could (a double-quoted escape,
an anchor, a name with a space).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lintkit
import pytest
from ruamel.yaml.main import YAML

from bot.core.engine import Context
from bot.core.tree import MemoryTree
from bot.parse import master_config as M
from bot.parse import master_sets as S
from bot.parse.yamlsafe import thread_yaml

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex"

TRICKY = [
    "",
    "a: 1\n",
    "a: &x 1\nb: *x\n",
    "&a 12: x\n",
    "? [a, b]\n: c\n",
    "a: 1\na: 2\n",
    "<<: {a: 1}\nb: 2\n",
    "%YAML 1.1\n---\na: yes\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
    "a: 1\n---\nb: 2\n...\n",
    "!!str a: b\nc: !!int '3'\n",
    "a: |\n  two\n  lines\nb: >-\n  folded\n  text\n",
    'a: "esc\\x41\\\n  aped"\n',
    "a: [1, {b: c}, 'q''uote']\n",
    "- !!set {a, b}\n- 2001-12-14\n- .nan\n- 0x1F\n",
    "\ufeffa: 1\n",
    "a: [1, 2\n",
    "a: b: c\n",
    "a:\n  - b\n  -c: d\n\tx",
    "key: 'unterminated\n",
    "[" * 70 + "]" * 70,
]


def _event(e: Any) -> tuple[Any, ...]:
    marks = tuple((m.line, m.column, m.index) for m in (e.start_mark, e.end_mark))
    fields = ("anchor", "tag", "implicit", "value", "style", "flow_style", "explicit")
    extra = tuple(repr(getattr(e, name, None)) for name in (*fields, "version", "tags"))
    return (type(e), marks, extra)


def _stream(events: Iterator[Any]) -> tuple[list[tuple[Any, ...]], str | None]:
    out: list[tuple[Any, ...]] = []
    try:
        for e in events:
            out.append(_event(e))
    except Exception as exc:
        return out, f"{type(exc).__name__}: {exc}"
    return out, None


def _texts() -> list[str]:
    texts = list(TRICKY)
    for name in ("configs/nvidia-master.yaml", "configs/amd-master.yaml", "perf-changelog.yaml"):
        path = SHARED / name
        if path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
    return texts


@pytest.mark.parametrize("text", _texts(), ids=lambda t: repr(t[:24]))
def test_the_events_are_those_of_ruamels_parse(text: str) -> None:
    assert _stream(M.yaml_events(text)) == _stream(thread_yaml("events").parse(text))


def test_the_walk_reads_the_c_parser_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not through `YAML.parse` (its generator and a class built per call), when the C
    parser is there; nor does the changelog's walk."""
    from bot.parse import yamlsafe
    from bot.parse.changelog import parse_changelog

    assert yamlsafe._CParser is not None and thread_yaml("events").Parser is yamlsafe._CParser

    def refuse(self: Any, stream: Any) -> Any:
        raise AssertionError("YAML.parse was called")

    monkeypatch.setattr(YAML, "parse", refuse)
    walk = M._walk("a:\n  b: [1, 2]\nc: x\n")
    assert not isinstance(walk, M.Problem)
    assert walk.data == {"a": {"b": [1, 2]}, "c": "x"}
    assert walk.lines[("a", "b", 1)] == 2 and walk.top_lines == {"a": 1, "c": 3}
    # an anchor sends the changelog to its two-pass reading, the event walk
    changelog = parse_changelog(
        "perf-changelog.yaml", "- config-keys: [&k a]\n  description: [x]\n"
    )
    assert not changelog.problems, changelog.problems


# -- CFG004's archived configs ---------------------------------------------------------


def _entry(
    key: str, prefix: str, runner: str = "cluster:b200-dgxc", framework: str = "vllm"
) -> str:
    return (
        f"{key}:\n  image: x\n  model: m\n  model-prefix: {prefix}\n  runner: {runner}\n"
        f"  precision: fp8\n  framework: {framework}\n  multinode: false\n  scenarios: {{}}\n"
    )


def _context(files: dict[str, str]) -> tuple[Context, list[str]]:
    parsed: list[str] = []
    real = dict(Context.for_tree(MemoryTree({}), lintkit.default_config()).parsers)

    def counting(path: str, text: str, run: Any) -> object:
        parsed.append(path)
        return real["master_config"](path, text, run)

    parsers = {**real, "master_config": counting}
    ctx = Context.for_tree(MemoryTree(dict(files)), lintkit.default_config(), parsers=parsers)
    return ctx, parsed


DEPRECATED = {
    "configs/deprecated/a-master.yaml": _entry("x-fp8-b200-vllm", "other"),
    "configs/deprecated/b-master.yaml": _entry("glm5-fp8-b200-vllm", "glm5"),
    "configs/deprecated/c-master.yaml": _entry("glm5-fp8-h100-vllm", "glm5", "h100"),
}


def test_only_configs_naming_the_family_are_parsed_and_only_up_to_the_cover() -> None:
    ctx, parsed = _context(DEPRECATED)
    configs = S.archived_master_configs(ctx, naming=frozenset({"glm5", "glm5.1"}))
    first = next(configs)
    assert first.path == "configs/deprecated/b-master.yaml"
    assert parsed == ["configs/deprecated/b-master.yaml"]  # `a` names neither; `c` not yet
    assert [c.path for c in configs] == ["configs/deprecated/c-master.yaml"]
    # without names: every archived config, in path order
    ctx, parsed = _context(DEPRECATED)
    assert [c.path for c in S.archived_master_configs(ctx)] == sorted(DEPRECATED)


@pytest.mark.parametrize(
    "text",
    [
        # the value is written with an escape: the text does not spell `glm5`
        _entry("k", '"glm\\x35"'),
        _entry("k", '"gl\\\n  m5"'),
        # an anchor and an alias: `glm5` is spelled once, elsewhere
        "base: &p glm5\n" + _entry("k", "*p"),
    ],
)
def test_a_config_that_may_hold_a_name_is_always_parsed(text: str) -> None:
    files = {"configs/deprecated/a-master.yaml": text}
    ctx, parsed = _context(files)
    got = list(S.archived_master_configs(ctx, naming=frozenset({"glm5"})))
    assert parsed == ["configs/deprecated/a-master.yaml"]
    assert [e.get("model-prefix") for c in got for e in c.entries.values()][-1] == "glm5"


def test_names_that_quoting_or_folding_can_produce_read_every_config() -> None:
    assert S._literal("glm5.1") and S._literal("dsr1-fp8")
    for name in ("glm 5", "it's", 'a"b', "a\\b", "a\tb", ""):
        assert not S._literal(name)
    files = {"configs/deprecated/a-master.yaml": _entry("k", "'glm 5'")}
    ctx, parsed = _context(files)
    assert len(list(S.archived_master_configs(ctx, naming=["glm 5", "zzz"]))) == 1
    assert parsed == ["configs/deprecated/a-master.yaml"]


def test_cfg004_is_still_covered_by_an_escaped_archived_entry() -> None:
    """A TRT entry with no vLLM/SGLang peer among the active configs: an archived one,
    written with an escape, covers it (no finding); without the archive it is reported."""
    trt = _entry("glm5-fp4-b200-trt", "glm5", framework="trt")
    head = {"configs/nvidia-master.yaml": trt}
    rules = lintkit.rules_for("master_config", "CFG004")
    assert [f.rule for f in lintkit.lint_files(head, rules=rules).findings] == ["CFG004"]
    archived = {"configs/deprecated/nvidia-old-master.yaml": _entry("k", '"glm\\x35"')}
    assert lintkit.lint_files({**head, **archived}, rules=rules).findings == []


def test_a_thread_keeps_no_record_per_file_it_read() -> None:
    """ruamel's `YAML` appends a DocInfo on every parse or load; a service thread reading
    files for days must not keep one per file. The event walks keep none at all."""
    import threading

    from bot.parse.changelog import parse_changelog
    from bot.parse.yamlsafe import load_safe

    sizes: dict[str, int] = {}

    def work() -> None:
        for i in range(500):
            load_safe(f"a: {i}\n")
            list(M.yaml_events(f"b: {i}\n"))
            parse_changelog("perf-changelog.yaml", f"- config-keys: [x{i}]\n")
        sizes.update({k: len(thread_yaml(k).doc_infos) for k in ("safe", "events")})

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert sizes["events"] <= 32 and sizes["safe"] <= 32, sizes
