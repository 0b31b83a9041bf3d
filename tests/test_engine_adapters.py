"""Engine knowledge as data: the adapters read flag, env and unit names from `engines`."""

from __future__ import annotations

import pytest

from bot.core.config import build_config
from bot.parse import engines, facts
from bot.parse.recipe import parse_recipe

SGL = "benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh"
TEXT = (
    "#!/usr/bin/env bash\n"
    "export SGLANG_SIMULATE_ACC_LEN=3.39\n"
    "export MY_SIM_ACC=2.5\n"
    "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--mem-fraction-static 0.8 &\n"
)


def test_the_sglang_adapter_reads_its_names_from_the_table() -> None:
    knowledge = build_config(None).knowledge
    (launch,) = parse_recipe(SGL, TEXT).launches
    spec = facts.spec(launch, knowledge)
    assert spec is not None and spec.simulation is not None
    assert (spec.simulation.setting.value, spec.simulation.unit) == ("3.39", "al")
    assert facts.k_value(spec) == 3
    mem = facts.memory(launch, knowledge)
    assert mem is not None and mem.value == "0.8"


def test_a_target_repository_can_rename_an_engine_setting() -> None:
    config = build_config(
        "knowledge:\n  engines:\n    sglang:\n      env:\n        acceptance_length: MY_SIM_ACC\n"
    )
    (launch,) = parse_recipe(SGL, TEXT).launches
    spec = facts.spec(launch, config.knowledge)
    assert spec is not None and spec.simulation is not None
    assert spec.simulation.setting.value == "2.5"


def test_a_flag_list_the_repository_replaces_is_the_only_spelling() -> None:
    config = build_config(
        "knowledge:\n  engines:\n    sglang:\n      flags:\n        memory: [--mem-fraction]\n"
    )
    (launch,) = parse_recipe(SGL, TEXT).launches
    assert facts.memory(launch, config.knowledge) is None
    moved = parse_recipe(SGL, TEXT.replace("--mem-fraction-static", "--mem-fraction")).launches[0]
    mem = facts.memory(moved, config.knowledge)
    assert mem is not None and mem.value == "0.8"


@pytest.mark.parametrize(
    ("unit", "expected"),
    [("al", 2.78), ("al_minus_one", 1.78), ("rate_per_draft_token", 0.59333)],
)
def test_units_convert_the_golden_al(unit: str, expected: float) -> None:
    # TensorRT-LLM counts accepted draft tokens only (no bonus token): AL - 1
    assert engines.engine_value(unit, 2.78, 3) == pytest.approx(expected, abs=1e-4)


def test_the_trtllm_entry_says_its_knob_is_off_by_one() -> None:
    knowledge = build_config(None).knowledge
    assert engines.unit(engines.table(knowledge, "trtllm"), "acceptance_length") == "al_minus_one"


def test_the_interpreter_watches_what_the_table_names() -> None:
    inputs = engines.recipe_inputs(build_config(None).knowledge)
    assert "--spec-decode-acceptance-rate" in inputs.watched_flags
    assert "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS" in inputs.watched_env
    assert "DYN_DEFAULT_THINKING_MODE" in inputs.watched_env
    assert "wait_for_server_ready" in inputs.inert
