"""InferenceX's older layouts are read where a tree still has them.

Recipes lay directly in `benchmarks/` before InferenceX #666 and in
`benchmarks/single_node/` until #1571; master configs lived in
`.github/configs/*-master.yaml` until #1992. Those directories also hold helpers
(`benchmark_lib.sh`, test and bootstrap scripts): only files named like a recipe are
routed, and nothing of today's layout changes its kind.
"""

from __future__ import annotations

import pytest
from lintkit import default_config, lint_pr, rule

from bot.core.context import route

CASES = [
    # before #666
    ("benchmarks/dsr1_fp8_mi355x_mtp.sh", "recipe"),
    ("benchmarks/gptoss_fp4_b200_trt.sh", "recipe"),
    ("benchmarks/qwen3.5_bf16_b200.sh", "recipe"),
    ("benchmarks/dsr1_fp4_mi355x_sglang-disagg.sh", "recipe"),
    ("benchmarks/benchmark_lib.sh", None),
    ("benchmarks/test_reconfigure_sweep.sh", None),
    ("benchmarks/transform_recipe.py", None),
    # until #1571
    ("benchmarks/single_node/minimaxm2.5_fp8_h200.sh", "recipe"),
    ("benchmarks/single_node/kimik2.5_int4_mi355x.sh", "recipe"),
    ("benchmarks/single_node/glm5_nvfp4_b200.sh", "recipe"),
    ("benchmarks/single_node/trtllm_dsv4_bootstrap.sh", None),
    # until #1992
    (".github/configs/nvidia-master.yaml", "master_config"),
    (".github/configs/amd-master.yaml", "master_config"),
    (".github/configs/runners.yaml", None),
    (".github/configs/deprecated/amd-minimaxm2.5-m2.7-master.yaml", None),
    # today's layout keeps its kinds
    ("benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200.sh", "recipe"),
    ("benchmarks/single_node/speedbench/collect_qwen3.5_fp8_b200.sh", None),
    ("benchmarks/single_node/chat_templates/x_fp8_y.sh", None),
    ("benchmarks/single_node/agentic/deprecated/dsr1_fp8_b200.sh", None),
    ("configs/nvidia-master.yaml", "master_config"),
]


@pytest.mark.parametrize(("path", "kind"), CASES)
def test_old_layouts_are_routed_by_what_their_files_are(path: str, kind: str | None) -> None:
    assert route(path, default_config()) == kind


MTP = "benchmarks/single_node/qwen3.5_fp8_h200_mtp.sh"
RAW = (
    "#!/usr/bin/env bash\n"
    "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
    'run_benchmark_serving --model "$MODEL" --port "$PORT"\n'
)
LIB = {
    "benchmarks/benchmark_lib.sh": (
        'run_benchmark_serving() {\n  python3 benchmark_serving.py "$@" '
        "${USE_CHAT:+--use-chat-template}\n}\n"
    )
}


def test_a_recipe_of_the_single_node_layout_is_reviewed() -> None:
    """A pull request of the #666-#1570 era adding an MTP recipe without the client's
    chat-template flag (InferenceX #628 fixed one by hand)."""
    found = lint_pr({**LIB, MTP: RAW}, LIB, pr=800, rules=[rule("RCP009")]).findings
    assert [(f.rule, f.path) for f in found] == [("RCP009", MTP)]
    old = MTP.replace("single_node/", "")
    found = lint_pr({**LIB, old: RAW}, LIB, pr=620, rules=[rule("RCP009")]).findings
    assert [(f.rule, f.path) for f in found] == [("RCP009", old)]


def test_a_helper_beside_the_recipes_is_not_reviewed_as_one() -> None:
    helper = "benchmarks/single_node/trtllm_dsv4_bootstrap.sh"
    found = lint_pr({**LIB, helper: RAW}, LIB, pr=1500, rules=[rule("RCP009")]).findings
    assert found == []


ENTRY = """\
dsr1-fp8-h200-sglang:
  image: lmsysorg/sglang:v0.5.8-cu126
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: h200
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
"""


def test_a_master_config_of_the_github_layout_is_reviewed() -> None:
    """A change to `.github/configs/nvidia-master.yaml` without a changelog entry."""
    master = ".github/configs/nvidia-master.yaml"
    log = {
        "perf-changelog.yaml": "- config-keys:\n    - x\n  description:\n    - y\n  pr-link: z\n"
    }
    bumped = {master: ENTRY.replace("v0.5.8", "v0.5.9"), **log}
    found = lint_pr(bumped, {master: ENTRY, **log}, pr=700, rules=[rule("CFG002")]).findings
    assert [(f.rule, f.path) for f in found] == [("CFG002", master)]


OLD_SCHEMA = ENTRY.replace("  scenarios:\n    fixed-seq-len:\n", "  seq-len-configs:\n").replace(
    "\n    ", "\n  "
)


def test_points_moved_unchanged_to_the_scenarios_schema_need_no_changelog_entry() -> None:
    """InferenceX #1201 moved every entry's `seq-len-configs` under
    `scenarios.fixed-seq-len` and was merged without changelog entries."""
    assert "seq-len-configs:\n  - isl: 1024\n    osl: 1024\n" in OLD_SCHEMA
    master = ".github/configs/nvidia-master.yaml"
    log = {
        "perf-changelog.yaml": "- config-keys:\n    - x\n  description:\n    - y\n  pr-link: z\n"
    }
    cfg002 = [rule("CFG002")]
    moved = lint_pr({master: ENTRY, **log}, {master: OLD_SCHEMA, **log}, pr=1201, rules=cfg002)
    assert moved.findings == []
    # a point changed on the way is a change
    bumped = {master: ENTRY.replace("conc-end: 64", "conc-end: 128"), **log}
    found = lint_pr(bumped, {master: OLD_SCHEMA, **log}, pr=1201, rules=cfg002).findings
    assert [(f.rule, f.path) for f in found] == [("CFG002", master)]


def test_an_unknown_pattern_is_told_where_this_tree_keeps_its_master_configs() -> None:
    master = ".github/configs/nvidia-master.yaml"
    entry = "- config-keys:\n    - {key}\n  description:\n    - y\n  pr-link: z\n"
    base = {master: ENTRY, "perf-changelog.yaml": entry.format(key="dsr1-fp8-h200-sglang")}
    head = {
        master: ENTRY,
        "perf-changelog.yaml": base["perf-changelog.yaml"] + "\n" + entry.format(key="qwen-*"),
    }
    (found,) = lint_pr(head, base, pr=700, rules=[rule("CHL009")]).findings
    assert found.fix is not None
    assert found.fix.en == "Name a key defined in `.github/configs/*-master.yaml`"
