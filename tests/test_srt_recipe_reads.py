"""The srt-slurm recipe parser's shortcuts, held to the reads they replaced.

- `_scalar_str` reads a value's position from the mapping's `lc` itself; it must answer
  what `PosMap.value_pos` and `PosMap.raw` answer (quoted values, merged and overlaid
  keys, aliases, duplicate keys, nested values).
- Launches are made distinct only when a template has several sweep points: one
  variant's launches are one per role, and roles are the keys of one mapping.
- A flag sits at its key (`PosMap.key_pos`), one per key.
- `is_model_table` skips its line search when the text has no `_flags:`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.base.span import Span
from bot.parse import model_table, srt_recipe
from bot.parse.recipe import Recipe, parse_recipe
from bot.parse.values import Seg, Str
from bot.parse.yamlpos import PosList, PosMap, load_positioned
from tests.rulecases import load_cases

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex"
ROOT = "benchmarks/multi_node/srt-slurm-recipes"

TRICKY = """\
common: &common
  A: '1'
  B: "two"
  C: false
  D: ~
  E: [1, {x: 'y'}]
backend:
  type: vllm
  prefill_environment:
    <<: *common
    B: 3
    F: *common
    G: 'quoted'
    G: plain
  decode_environment: {H: 'h', I: 2.50, J: true}
  vllm_config:
    prefill:
      tensor-parallel-size: 4
      tensor-parallel-size: '8'
      enforce-eager: true
      off: false
      none: ~
      speculative-config: {"method": "mtp", "num_speculative_tokens": 2}
      quoted: "x y"
      1: one
      list: [a, b]
    decode:
      <<: {max-model-len: 4096, "block-size": '64'}
      max-model-len: 8192
"""


def old_scalar_str(m: PosMap, k: Any) -> Str | None:
    """`_scalar_str` as it was, through the public methods."""
    v = m[k]
    raw = m.raw(k)
    if v is None or (isinstance(v, bool) and not raw):
        return None
    line, col = m.value_pos(k)
    if isinstance(v, (PosMap, PosList)):
        return Str((Seg(json.dumps(srt_recipe._plain_data(v)), line, col),))
    text = raw if raw is not None else str(v)
    return Str((Seg(text, line, col),))


def mappings(value: Any, out: list[PosMap]) -> list[PosMap]:
    if isinstance(value, PosMap):
        if not any(value is m for m in out):
            out.append(value)
            for v in value.values():
                mappings(v, out)
    elif isinstance(value, PosList):
        for v in value:
            mappings(v, out)
    return out


def srt_texts() -> dict[str, str]:
    texts = {
        path: text
        for case in load_cases()
        for files in (case.files, case.base or {})
        for path, text in files.items()
        if path.startswith("benchmarks/multi_node/") and path.endswith((".yaml", ".yml"))
    }
    texts[f"{ROOT}/vllm/tricky/tricky.yaml"] = TRICKY
    if SHARED.is_dir():
        for path in sorted((SHARED / "benchmarks" / "multi_node").rglob("*.y*ml")):
            texts[str(path.relative_to(SHARED))] = path.read_text(encoding="utf-8")
    return texts


def test_scalar_str_answers_what_value_pos_and_raw_answer() -> None:
    compared = 0
    for text in [TRICKY, *srt_texts().values()]:
        try:
            doc = load_positioned(text)
        except Exception:
            continue
        found = mappings(doc, [])
        base = doc.get("base") if isinstance(doc, PosMap) else None
        for key, over in doc.items() if isinstance(doc, PosMap) else ():
            zipped = str(key).startswith("zip_override") and isinstance(over, PosMap)
            if zipped and isinstance(base, PosMap):
                mappings(srt_recipe._overlay(base, over, 0), found)
        for m in found:
            for k in m:
                assert srt_recipe._scalar_str(m, k) == old_scalar_str(m, k), (k, text[:200])
                compared += 1
    assert compared > 200


def test_the_tricky_recipe_reads_as_written() -> None:
    recipe = parse_recipe(f"{ROOT}/vllm/tricky/tricky.yaml", TRICKY)
    prefill, decode = recipe.launches
    env = {k: (v.text, v.span.line if v.span else 0) for k, v in prefill.env.items()}
    assert env["A"] == ("1", 2) and env["B"] == ("3", 11) and env["G"] == ("plain", 14)
    assert env["C"] == ("false", 4)
    assert "D" not in env
    flags = {
        k: [(f.value.text if f.value else None, f.span.line) for f in v]
        for k, v in prefill.flags.items()
    }
    assert flags["--tensor-parallel-size"] == [("8", 19)]
    assert flags["--enforce-eager"] == [(None, 20)]
    assert "--off" not in flags and "--none" not in flags
    assert flags["--speculative-config"] == [('{"method": "mtp", "num_speculative_tokens": 2}', 23)]
    assert flags["--quoted"] == [("x y", 24)]
    assert prefill.flags["--quoted"][0].value.span.col == 16  # type: ignore[union-attr]
    assert flags["--list"] == [('["a", "b"]', 26)]
    assert {k: v[0].value.text for k, v in decode.flags.items()} == {  # type: ignore[union-attr]
        "--max-model-len": "8192",
        "--block-size": "64",
    }


def test_flags_sit_at_their_keys() -> None:
    checked = 0
    for path, text in srt_texts().items():
        if model_table.is_model_table(text):
            continue
        recipe = srt_recipe.parse_srt_recipe(path, text)
        if not recipe.launches or recipe.launches[0].engine == "trtllm":
            continue
        if not one_variant(recipe):
            continue
        backend = load_positioned(text)["backend"]
        configs = backend[srt_recipe.CONFIG_KEYS[recipe.launches[0].engine]]
        for la in recipe.launches:
            settings = configs[la.role]
            for name, flags in la.flags.items():
                assert len(flags) == 1
                assert flags[0].span == Span(*settings.key_pos(name[2:])), (path, name)
                checked += 1
    assert checked > 50


def one_variant(recipe: Recipe) -> bool:
    doc = load_positioned(recipe.text)
    return not ("base" in doc and "backend" not in doc)


def test_one_variant_launches_are_already_distinct() -> None:
    """What skipping `_distinct` for a recipe without sweep points relies on."""
    checked = 0
    for path, text in srt_texts().items():
        if model_table.is_model_table(text):
            continue
        recipe = srt_recipe.parse_srt_recipe(path, text)
        if recipe.problems or not recipe.launches or not one_variant(recipe):
            continue
        kept = srt_recipe._distinct(recipe.launches)
        assert [id(la) for la in kept] == [id(la) for la in recipe.launches], path
        assert len({la.role for la in recipe.launches}) == len(recipe.launches)
        checked += 1
    assert checked > 5


def test_a_role_written_twice_is_one_launch() -> None:
    text = (
        "backend:\n  type: vllm\n  vllm_config:\n"
        "    decode: {tensor-parallel-size: 4}\n"
        "    decode: {tensor-parallel-size: 8}\n"
    )
    recipe = parse_recipe(f"{ROOT}/vllm/x/y.yaml", text)
    assert [la.role for la in recipe.launches] == ["decode"]
    assert recipe.launches[0].flags["--tensor-parallel-size"][0].value.text == "8"  # type: ignore[union-attr]


def test_sweep_points_that_repeat_a_launch_keep_one() -> None:
    text = (
        "base:\n  backend:\n    type: sglang\n    sglang_config:\n"
        "      prefill: {tp: 4}\n      decode: {tp: 4, mem: 0.8}\n"
        "zip_override_a:\n  name: [a, b, c]\n"
        "  backend:\n    sglang_config:\n      decode:\n        mem: [0.8, 0.9, 0.9]\n"
    )
    recipe = parse_recipe(f"{ROOT}/sglang/x/y.yaml", text)
    decode = [la.flags["--mem"][0].value.text for la in recipe.launches if la.role == "decode"]  # type: ignore[union-attr]
    assert sorted(decode) == ["0.8", "0.8", "0.9"]  # the base, then sweep points b and c as one
    assert [la.role for la in recipe.launches].count("prefill") == 1


def test_model_table_needs_flags_keys() -> None:
    cases = [
        "a:\n  prefill_flags: x\n",
        "a:\n\tdecode_flags: x\n",
        "prefill_flags: x\n",  # not indented: not a table entry
        "a:\n  prefill_flags : x\n",
        "a:\n  other_flags: x\n",
        "a:\n  x: '  decode_flags:'\n",
        "",
    ]
    for text in cases:
        assert model_table.is_model_table(text) == bool(model_table._SHAPE.search(text)), text
    assert model_table.is_model_table(cases[0]) and not model_table.is_model_table(cases[2])


def test_a_recipe_without_sweep_points_skips_the_dedupe(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(launches: object) -> object:
        raise AssertionError("_distinct called for one variant")

    monkeypatch.setattr(srt_recipe, "_distinct", refuse)
    recipe = parse_recipe(f"{ROOT}/vllm/tricky/tricky.yaml", TRICKY)
    # the parser turns an exception into a "crashed" problem
    assert "crashed" not in [p.kind for p in recipe.problems]
    assert [la.role for la in recipe.launches] == ["prefill", "decode"]
