"""The base decides what is in force (`bot/core/practice.py`): one change-set test per case.

Each test builds a tiny repository at a base and a pull request's head, and shows the
requirement held where the base shows it and not where it does not: a master-config
schema constraint the base's own entries break (CFG001's ratchet), a field the PR's own
validator declares (read statically, never run), the waiver rule (RCP008), the eval path
of multi-node agentic points (RCP005, in `test_multinode_recipes.py`), a client's
chat-template flag (RCP009).
"""

from __future__ import annotations

from pathlib import Path

from lintkit import lint_files, lint_pr, rule

from bot.core.model import Finding

MASTER = "configs/nvidia-master.yaml"
VALIDATOR = "utils/matrix_logic/validation.py"

DISAGG = """\
{key}:
  image: lmsysorg/sglang:v0.5.14-cu130
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: gb200
  precision: fp8
  framework: dynamo-sglang
  multinode: true
  disagg: true
{extra}  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - conc-list: [64, 128]
        prefill: {{ num-worker: 1, tp: 4, ep: 4, dp-attn: true }}
        decode: {{ num-worker: 1, tp: 8, ep: 8, dp-attn: true }}
"""
TRANSFER = "  kv-p2p-transfer: nixl\n"


def disagg(key: str, extra: str = "") -> str:
    return DISAGG.format(key=key, extra=extra)


def cfg001(head: dict[str, str], base: dict[str, str]) -> list[Finding]:
    return lint_pr(head, base, rules=[rule("CFG001")], paths=[MASTER]).findings


# -------------------------------------------------- a constraint the base's entries break


def test_a_constraint_no_base_entry_keeps_is_not_demanded_of_new_entries() -> None:
    """`disagg: true` needs `kv-p2p-transfer` only since InferenceX #2096; on an older base
    no disaggregated entry has it, and a PR adding one like its siblings is not held to it."""
    base = {MASTER: disagg("dsr1-fp8-gb200-dynamo-sglang")}
    head = {MASTER: base[MASTER] + "\n" + disagg("dsr1-fp8-gb300-dynamo-sglang")}
    assert cfg001(head, base) == []
    # where the base's entries keep it, it is in force for every new entry
    base = {MASTER: disagg("dsr1-fp8-gb200-dynamo-sglang", TRANSFER)}
    head = {MASTER: base[MASTER] + "\n" + disagg("dsr1-fp8-gb300-dynamo-sglang")}
    found = cfg001(head, base)
    assert [f.rule for f in found] == ["CFG001"]
    assert "requires `kv-p2p-transfer`" in found[0].message.en


def test_of_a_constraint_not_in_force_only_what_the_pr_makes_worse_is_reported() -> None:
    """A ratchet per constraint: an entry that kept it in the base and breaks it at the
    head is reported, even while other entries of the base break it."""
    kept = disagg("dsr1-fp8-gb200-dynamo-sglang", TRANSFER)
    broken = disagg("dsr1-fp8-b200-dynamo-sglang")
    base = {MASTER: kept + "\n" + broken}
    worse = {MASTER: disagg("dsr1-fp8-gb200-dynamo-sglang") + "\n" + broken}
    found = cfg001(worse, base)
    assert [(f.rule, f.line) for f in found] == [("CFG001", 15)]
    # editing the entry that already broke it makes nothing worse
    edited = {MASTER: kept + "\n" + broken.replace("[64, 128]", "[64, 128, 256]")}
    assert cfg001(edited, base) == []


def test_a_constraint_is_judged_per_kind_of_place() -> None:
    """The base's fixed-seq-len entries breaking a constraint says nothing about the same
    constraint on agentic points: each place in the schema is its own kind."""
    base = {MASTER: disagg("dsr1-fp8-gb200-dynamo-sglang")}
    agentic = (
        disagg("dsr1-fp8-gb300-dynamo-sglang-agentic")
        .replace("runner: gb200", "runner: cluster:gb300-nv")
        .replace(
            "    fixed-seq-len:\n    - isl: 8192\n      osl: 1024\n      search-space:",
            "    agentic-coding:\n    - search-space:",
        )
        .replace("      - conc-list", "      - kv-offloading: none\n        conc-list")
    )
    found = cfg001({MASTER: base[MASTER] + "\n" + agentic}, base)
    assert [f.rule for f in found] == ["CFG001"]
    assert "requires `kv-p2p-transfer`" in found[0].message.en


def test_a_whole_tree_is_held_to_every_constraint() -> None:
    text = disagg("dsr1-fp8-gb200-dynamo-sglang")
    found = lint_files({MASTER: text}, rules=[rule("CFG001")]).findings
    assert [f.rule for f in found] == ["CFG001"]


# -------------------------------------------------- the repository's own validator

MODELS = """\
from enum import Enum
from typing import List, Optional, Literal
from pydantic import BaseModel, ConfigDict, Field

raise SystemExit("the bot reads this module, it never runs it")


class Fields(Enum):
    MODEL_PREFIX = 'model-prefix'
    SEARCH_SPACE = 'search-space'
    TRACE_SOURCE = 'trace-source'


class Point(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)
    tp: int
    kv_offloading: Literal["none", "dram"] = Field(alias="kv-offloading")
    spec_decoding: Literal["mtp", "draft_model", "none"{extra_spec}] = Field(
        default="none", alias="spec-decoding")
    conc_list: Optional[List[int]] = Field(default=None, alias="conc-list")


class Agentic(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)
    search_space: List[Point] = Field(alias=Fields.SEARCH_SPACE.value)
{trace}

class Scenarios(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)
    agentic_coding: Optional[List[Agentic]] = Field(default=None, alias='agentic-coding')


class SingleNodeMasterConfigEntry(BaseModel):
    model_config = ConfigDict(extra='forbid', populate_by_name=True)
    image: str
    model: str
    model_prefix: str = Field(alias=Fields.MODEL_PREFIX.value)
    precision: str
    framework: str
    runner: str
    multinode: Literal[False]
    scenarios: Scenarios
"""
TRACE = "    trace_source: Optional[str] = Field(default=None, alias=Fields.TRACE_SOURCE.value)\n"

AGENTIC = """\
minimaxm3-fp4-b200-vllm-agentic-mtp:
  image: vllm/vllm-openai:v0.27.1
  model: nvidia/MiniMax-M3-NVFP4
  model-prefix: minimaxm3
  runner: cluster:b200-dgxc
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 4, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8] }
"""


def models(trace: bool = False, extra_spec: str = "") -> str:
    return MODELS.format(trace=TRACE if trace else "", extra_spec=extra_spec)


def test_a_field_the_pr_adds_to_the_repositorys_validator_is_not_a_schema_error(
    tmp_path: Path,
) -> None:
    entry = AGENTIC.replace(
        "    - search-space:",
        "    - trace-source: semianalysis/agentx-coding-v2\n      search-space:",
    )
    base = {MASTER: AGENTIC, VALIDATOR: models()}
    # the PR adds `trace-source` to the models and uses it: judged by those models
    # (before the models were read, this was a warning asking a human to check)
    assert cfg001({MASTER: entry, VALIDATOR: models(trace=True)}, base) == []
    # the same entry without the validator change: the repository would reject it
    found = cfg001({MASTER: entry, VALIDATOR: models()}, base)
    assert [(f.rule, f.severity) for f in found] == [("CFG001", "error")]
    assert "Unknown key `trace-source`" in found[0].message.en


def test_a_value_the_validator_declares_is_not_a_schema_error() -> None:
    entry = AGENTIC.replace("spec-decoding: mtp", "spec-decoding: eagle3")
    base = {MASTER: AGENTIC, VALIDATOR: models()}
    head = {MASTER: entry, VALIDATOR: models(extra_spec=', "eagle3"')}
    assert cfg001(head, base) == []
    found = cfg001({MASTER: entry, VALIDATOR: models()}, base)
    assert [f.message.en for f in found] == [
        "`scenarios.agentic-coding[0].search-space[0].spec-decoding` is `eagle3`, not one of "
        "`mtp`, `draft_model`, `none`"
    ]


def test_a_field_the_validator_does_not_require_is_not_demanded() -> None:
    """`multinode` is required by the schema because the models require it; models that
    give it a default do not."""
    entry = AGENTIC.replace("  multinode: false\n", "")
    defaulted = models().replace(
        "    multinode: Literal[False]", "    multinode: Literal[False] = False"
    )
    base = {MASTER: AGENTIC, VALIDATOR: defaulted}
    assert cfg001({MASTER: entry, VALIDATOR: defaulted}, base) == []
    found = cfg001({MASTER: entry, VALIDATOR: models()}, {MASTER: AGENTIC, VALIDATOR: models()})
    assert [f.message.en for f in found] == [
        "`minimaxm3-fp4-b200-vllm-agentic-mtp` lacks the required key `multinode`"
    ]


def test_a_cross_field_rule_is_not_answered_by_a_field_declaration() -> None:
    """A rule the schema words itself (single-node agentic points need `kv-offloading`) is
    a model validator's, which is code and not read: an optional field does not waive it;
    only the base's practice does (here every base point has the field)."""
    optional = models().replace(
        '    kv_offloading: Literal["none", "dram"] = Field(alias="kv-offloading")',
        '    kv_offloading: Optional[Literal["none", "dram"]] = Field(default=None, alias="kv-offloading")',
    )
    entry = AGENTIC.replace(" kv-offloading: none,", "")
    found = cfg001({MASTER: entry, VALIDATOR: optional}, {MASTER: AGENTIC, VALIDATOR: optional})
    assert [f.rule for f in found] == ["CFG001"]


def test_an_unreadable_validator_leaves_the_schema_in_charge() -> None:
    entry = AGENTIC.replace(
        "    - search-space:",
        "    - trace-source: semianalysis/agentx-coding-v2\n      search-space:",
    )
    for broken in ("class (:\n", "x = " + "(" * 5000 + ")" * 5000 + "\n", "# no models\n"):
        found = cfg001({MASTER: entry, VALIDATOR: broken}, {MASTER: AGENTIC, VALIDATOR: broken})
        assert [f.rule for f in found] == ["CFG001"], broken[:20]


# -------------------------------------------------- practices knowledge names by a mark


def test_the_upstream_image_rule_applies_only_where_the_base_checklist_has_it() -> None:
    """InferenceX #1956 made upstream vLLM/SGLang images a hard guideline (2026-07-03)."""
    vendor = disagg("dsr1-fp8-gb200-dynamo-sglang", TRANSFER).replace(
        "lmsysorg/sglang:v0.5.14-cu130", "ghcr.io#vendor/sglang:gb200-dev"
    )
    head = {MASTER: vendor}
    old = {"docs/PR_REVIEW_CHECKLIST.md": "- [ ] Verified that the images are public\n"}
    new = {
        "docs/PR_REVIEW_CHECKLIST.md": "upstream https://hub.docker.com/u/lmsysorg docker repo\n"
    }
    cfg003 = [rule("CFG003")]
    assert lint_pr({**old, **head}, old, rules=cfg003).findings == []
    found = lint_pr({**new, **head}, new, rules=cfg003).findings
    assert [(f.rule, f.severity) for f in found] == [("CFG003", "error")]


K3 = "benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh"
PATCHING = (
    "#!/usr/bin/env bash\n"
    "SITE=/usr/local/lib/python3.12/site-packages\n"
    'patch -p1 -d "$SITE/vllm" --forward < fix.diff\n'
    'vllm serve "$MODEL" &\n'
)


def test_the_waiver_rule_applies_only_where_the_base_has_its_folder() -> None:
    """InferenceX #2155 forbade engine patches without a waiver and added `docs/waiver/`."""
    rcp008 = [rule("RCP008")]
    before = lint_pr({K3: PATCHING}, {}, pr=1900, rules=rcp008).findings
    assert before == []
    folder = {"docs/waiver/.gitkeep": ""}
    after = lint_pr({**folder, K3: PATCHING}, folder, pr=2200, rules=rcp008).findings
    assert [(f.rule, f.severity) for f in after] == [("RCP008", "error")]
    # a whole tree is held to today's knowledge
    assert [f.rule for f in lint_files({K3: PATCHING}, rules=rcp008).findings] == ["RCP008"]


LOG = "perf-changelog.yaml"


def _log_entry(key: str, pr: int) -> str:
    return (
        f"- config-keys:\n    - {key}\n  description:\n    - Add {key}\n"
        f"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{pr}\n"
    )


def test_the_append_rule_applies_only_where_the_base_states_it() -> None:
    """InferenceX #1067 made "appended to the END" a rule; before it, maintainers merged
    entries prepended to the changelog (#857, #919, #1041)."""
    merged = _log_entry("a-fp8-h100-vllm", 800) + "\n" + _log_entry("b-fp8-h100-vllm", 850)
    prepended = _log_entry("c-fp8-h100-vllm", 901) + "\n" + merged
    chl003 = [rule("CHL003")]
    assert lint_pr({LOG: prepended}, {LOG: merged}, pr=901, rules=chl003).findings == []
    marks = (
        {".github/workflows/claude-pr-review.yml": "New entries MUST be appended to the END"},
        {"AGENTS.md": "New entries MUST be appended to the END of the file"},
        {"AGENTS.md": "Preserve all existing bytes and append only at the tail."},
        {"utils/validate_perf_changelog.py": "def validate_raw_change(): ...\n"},
    )
    for mark in marks:
        found = lint_pr({**mark, LOG: prepended}, {**mark, LOG: merged}, pr=901, rules=chl003)
        assert [(f.rule, f.line) for f in found.findings] == [("CHL003", 1)], mark


MTP = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200_mtp.sh"
RAW = (
    "#!/usr/bin/env bash\n"
    "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
    'run_benchmark_serving --model "$MODEL" --port "$PORT"\n'
)


def test_a_client_flag_is_asked_for_only_where_the_base_client_has_it() -> None:
    rcp009 = [rule("RCP009")]
    lib = "benchmarks/benchmark_lib.sh"
    old = {lib: 'run_benchmark_serving() {\n  python3 benchmark_serving.py "$@"\n}\n'}
    new = {lib: old[lib].replace('"$@"', '"$@" ${USE_CHAT:+--use-chat-template}')}
    assert lint_pr({**old, MTP: RAW}, old, rules=rcp009).findings == []
    found = lint_pr({**new, MTP: RAW}, new, rules=rcp009).findings
    assert [f.rule for f in found] == ["RCP009"]


# -------------------------------------------------- where the base keeps its master configs


def test_a_master_config_moved_to_another_place_is_not_new() -> None:
    """InferenceX #1992 moved `.github/configs/*-master.yaml` to `configs/`: its entries are
    the base's, not new ones needing a changelog entry or an upstream image."""
    old = ".github/configs/amd-master.yaml"
    entry = (
        disagg("dsr1-fp8-mi355x-sglang-disagg", TRANSFER)
        .replace("runner: gb200", "runner: mi355x-disagg")
        .replace("lmsysorg/sglang:v0.5.14-cu130", "rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x")
        .replace("framework: dynamo-sglang", "framework: sglang-disagg")
    )
    log = {
        "perf-changelog.yaml": "- config-keys:\n    - x\n  description:\n    - y\n  pr-link: z\n"
    }
    log["docs/PR_REVIEW_CHECKLIST.md"] = "upstream https://hub.docker.com/u/lmsysorg\n"
    base = {old: entry, **log}
    head = {"configs/amd-master.yaml": entry, **log}
    rules = [rule("CFG002"), rule("CFG003")]
    assert lint_pr(head, base, pr=1992, rules=rules).findings == []
    # an entry changed on the way is judged as a change
    bumped = {"configs/amd-master.yaml": entry.replace("0.5.9", "0.5.10"), **log}
    found = lint_pr(bumped, base, pr=1992, rules=rules).findings
    assert sorted(f.rule for f in found) == ["CFG002", "CFG003"]


# -------------------------------------------------- the engine submission order (CFG004)

TRT_FIRST = """\
glm5.2-fp4-b200-trt:
  image: nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24
  model: nvidia/GLM-5.2-NVFP4
  model-prefix: glm5.2
  runner: b200
  precision: fp4
  framework: trt
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
"""


def test_the_engine_order_applies_only_where_the_base_states_it() -> None:
    """The CODEOWNER checklist (InferenceX #1886) and MODELS.md (#2500) state that vLLM or
    SGLang comes before other engines; a PR on an older base (#600-#899 added TensorRT-LLM
    and ATOM entries first, as the repository then allowed) is not held to it."""
    cfg004 = [rule("CFG004")]
    head = {MASTER: TRT_FIRST}
    assert lint_pr(head, {MASTER: ""}, pr=700, rules=cfg004).findings == []
    marks = (
        {"MODELS.md": "## Engine submission policy\n\nThe engines below are primary.\n"},
        {"docs/PR_REVIEW_CHECKLIST.md": "- [ ] submission made before additional frameworks\n"},
    )
    for mark in marks:
        found = lint_pr({**mark, **head}, {**mark, MASTER: ""}, pr=2600, rules=cfg004)
        assert [(f.rule, f.severity) for f in found.findings] == [("CFG004", "error")], mark
    # a whole tree is held to today's knowledge (coverage only, as information)
    tree = lint_files(head, rules=cfg004).findings
    assert [(f.rule, f.severity) for f in tree] == [("CFG004", "info")]


# -------------------------------------------------- a scenario the PR adds is a new place

SN_ENTRY = """\
{key}:
  image: lmsysorg/sglang:v0.5.9-cu130
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: {runner}
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
{scenarios}"""
SN_FIXED = """\
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
"""
SN_AGENTIC = """\
    agentic-coding:
    - search-space:
      - { tp: 8, kv-offloading: none, conc-list: [4, 8] }
"""


def sn_entry(key: str, runner: str, scenarios: str) -> str:
    return SN_ENTRY.format(key=key, runner=runner, scenarios=scenarios)


def test_a_scenario_added_to_an_entry_is_judged_like_a_new_entry() -> None:
    """InferenceX #1258 and #1391 added agentic sections to existing entries, written like
    the base's agentic entries (plain runner labels, before the `cluster:` rule): the
    constraint no agentic entry of the base keeps is not demanded of the new sections."""
    sibling = sn_entry("dsr1-fp8-b200-sglang-agentic", "b200", SN_AGENTIC)
    base = {MASTER: sibling + "\n" + sn_entry("dsr1-fp8-h200-sglang", "h200", SN_FIXED)}
    head = {
        MASTER: sibling + "\n" + sn_entry("dsr1-fp8-h200-sglang", "h200", SN_FIXED + SN_AGENTIC)
    }
    assert cfg001(head, base) == []
    # where the base's agentic entries keep it, the added section is held to it
    kept = sibling.replace("runner: b200", "runner: cluster:b200-nv")
    base = {MASTER: kept + "\n" + sn_entry("dsr1-fp8-h200-sglang", "h200", SN_FIXED)}
    head = {MASTER: kept + "\n" + sn_entry("dsr1-fp8-h200-sglang", "h200", SN_FIXED + SN_AGENTIC)}
    found = cfg001(head, base)
    assert [f.rule for f in found] == ["CFG001"]
    assert "`cluster:<name>`" in found[0].message.en
    # an entry that had the scenario in the base and now breaks it regressed
    base = {
        MASTER: sibling + "\n" + sn_entry("dsr1-fp8-h200-sglang", "cluster:h200-nv", SN_AGENTIC)
    }
    head = {MASTER: sibling + "\n" + sn_entry("dsr1-fp8-h200-sglang", "h200", SN_AGENTIC)}
    assert [f.rule for f in cfg001(head, base)] == ["CFG001"]


def test_the_agentic_track_needs_an_entry_only_where_the_base_logs_it() -> None:
    """InferenceX merged agentic sections and `-agentic` configs without changelog entries
    (#1201, #1393) until #2109 logged the first `-agentic` config key."""
    cfg002 = [rule("CFG002")]
    fixed = sn_entry("dsr1-fp8-h200-sglang", "h200", SN_FIXED)
    with_agentic = sn_entry("dsr1-fp8-h200-sglang", "h200", SN_FIXED + SN_AGENTIC)
    new_agentic = sn_entry("dsr1-fp8-b200-sglang-agentic", "b200", SN_AGENTIC)
    bumped = fixed.replace("conc-end: 64", "conc-end: 128")
    older = {LOG: _log_entry("dsr1-fp8-h200-sglang", 900)}
    newer = {LOG: older[LOG] + "\n" + _log_entry("dsr1-fp8-b200-sglang-agentic", 2109)}
    for log, expected in ((older, []), (newer, ["CFG002"])):
        for head in (with_agentic, fixed + "\n" + new_agentic):
            base = {**log, MASTER: fixed}
            found = lint_pr({**log, MASTER: head}, base, pr=1201, rules=cfg002).findings
            assert [f.rule for f in found if f.severity == "error"] == expected, head
    # a change outside the agentic track needs its entry on either base
    assert SN_FIXED in fixed and bumped != fixed
    for log in (older, newer):
        found = lint_pr({**log, MASTER: bumped}, {**log, MASTER: fixed}, rules=cfg002).findings
        assert [f.rule for f in found] == ["CFG002"]
