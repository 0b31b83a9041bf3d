"""Real misses of the bash interpreter found on InferenceX PRs, as fixtures of their shape.

Each script here is written for these tests in the shape of the real recipe
(not a copy): the forks that made the interpreter lose a value, and the value
a rule must still see.
"""

from __future__ import annotations

from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.model import Finding
from bot.core.registry import all_rules
from bot.core.tree import MemoryTree
from bot.parse.recipe import parse_recipe

ATOM = "benchmarks/single_node/agentic/kimik3_fp4_mi355x_atom_mtp.sh"
CURVE_PATH = "golden_al_distribution/kimik3_dspark.yaml"
CURVE = "kimi-k3:\n  thinking_on:\n    2: 2.45\n    7: 3.78\n  thinking_off:\n    2: 2.30\n"

# InferenceX #2670 at 7ac26925d: a KV-offload `case`, a `MODEL_PATH` fork, an
# exported device list, per-concurrency knobs in one `case "$CONC"`, the draft
# length and AL in a second one, then the EVAL_ONLY fork: more than six paths.
MANY_FORKS = """\
#!/usr/bin/env bash
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC KV_OFFLOADING RESULT_DIR

if [[ -v ROCR_VISIBLE_DEVICES ]]; then
    export HIP_VISIBLE_DEVICES="$ROCR_VISIBLE_DEVICES"
fi
if [[ -n "$MODEL_PATH" ]]; then
    hf download "$MODEL" --local-dir "$MODEL_PATH"
else
    export MODEL_PATH="$MODEL"
fi

OFFLOAD_ARGS=()
case "$KV_OFFLOAD_BACKEND" in
    "")
        ;;
    lmcache)
        export LMCACHE_LOCAL_CPU=True
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"lmcache_offload"}')
        ;;
    *)
        exit 1
        ;;
esac

case "$CONC" in
    1|4)
        MAX_NUM_SEQS=32
        GPU_MEM_UTIL=0.88
        SLOTS=""
        ;;
    8)
        MAX_NUM_SEQS=16
        GPU_MEM_UTIL=0.88
        SLOTS=16
        ;;
    10)
        MAX_NUM_SEQS=16
        GPU_MEM_UTIL=0.90
        SLOTS=16
        ;;
    *)
        exit 2
        ;;
esac
SLOT_ARGS=()
if [ -n "$SLOTS" ]; then
    SLOT_ARGS=(--state-checkpoint-slots "$SLOTS")
fi

case "$CONC" in
    1|4)
        ACC_LEN=3.78
        DRAFT_TOKENS=7
        ;;
    8|10)
        ACC_LEN=2.54
        DRAFT_TOKENS=2
        ;;
esac
RATE=$(awk "BEGIN{print ($ACC_LEN-1)/$DRAFT_TOKENS}")
if [ "${EVAL_ONLY}" = "true" ]; then
    SPEC=(--method dspark --draft-model Inferact/Kimi-K3-DSpark --num-speculative-tokens "$DRAFT_TOKENS")
else
    SPEC=(--method dspark --draft-model Inferact/Kimi-K3-DSpark --num-speculative-tokens "$DRAFT_TOKENS"
          --spec-decode-acceptance-rate "$RATE")
fi

CMD=(
    python -m atom.entrypoints.openai_server
    --model "$MODEL_PATH"
    --max-num-seqs "$MAX_NUM_SEQS"
    --gpu-memory-utilization "$GPU_MEM_UTIL"
    "${SLOT_ARGS[@]}"
    "${SPEC[@]}"
    "${OFFLOAD_ARGS[@]}"
)
"${CMD[@]}" > "$RESULT_DIR/server.log" 2>&1 &
"""


def _lint(files: dict[str, str], rule: str) -> list[Finding]:
    ctx = Context.for_tree(MemoryTree(files), build_config(None))
    rules = [rm for rm in all_rules() if rm.rule.id == rule]
    paths = [p for p in files if not p.startswith("golden_al_distribution/")]
    return lint(ctx, paths=paths, rules=rules).findings


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_values_that_differ_between_many_paths_stay_checkable() -> None:
    recipe = parse_recipe(ATOM, MANY_FORKS)
    seen = set()
    for la in recipe.launches:
        k = la.flag("--num-speculative-tokens")
        rate = la.flag("--spec-decode-acceptance-rate")
        mem = la.flag("--gpu-memory-utilization")
        assert k is not None and k.value is not None and mem is not None and mem.value is not None
        seen.add(
            (
                k.value.value,
                rate.value.value if rate is not None and rate.value is not None else None,
                la.eval_only,
            )
        )
    # every feasible (K, rate) pair on both EVAL_ONLY arms, and no pair from two arms
    assert seen == {
        ("7", "0.397143", True),
        ("2", "0.77", True),
        ("7", None, True),
        ("2", None, True),
        ("7", "0.397143", False),
        ("2", "0.77", False),
    } - {("7", "0.397143", True), ("2", "0.77", True)}
    mems = {la.flag("--gpu-memory-utilization").value.value for la in recipe.launches}  # type: ignore[union-attr]
    assert mems == {"0.88", "0.90"}


def test_rcp003_sees_the_al_of_one_concurrency_arm_among_many_forks() -> None:
    found = _lint({ATOM: MANY_FORKS, CURVE_PATH: CURVE}, "RCP003")
    # 2.54 against the golden 2.45 at K=2; the K=7 arm (3.78) matches its curve
    assert [(f.rule, f.line) for f in found] == [("RCP003", _line(MANY_FORKS, "RATE=$(awk"))]
    assert "0.725" in found[0].message.en
    # the AL is wrong on the CONC 8|10 arm only, and the finding says so
    assert found[0].message.en.endswith("(only when `CONC` is `8` or `10`)")
    assert found[0].message.zh.endswith("（仅当 `CONC` 为 `8` 或 `10` 时）")


def test_case_arms_with_several_values_stay_consistent() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'case "$CONC" in\n'
        "  1|4) MEM=0.88 ;;\n"
        "  8|16) MEM=0.90 ;;\n"
        "  *) exit 1 ;;\n"
        "esac\n"
        'case "$CONC" in\n'
        "  1) EAGER=--enforce-eager ;;\n"
        "  16) EAGER=--no-enforce-eager ;;\n"
        "esac\n"
        'vllm serve m --gpu-memory-utilization "$MEM" $EAGER &\n'
    )
    recipe = parse_recipe("benchmarks/single_node/fixed_seq_len/x_fp8_h100.sh", text)
    seen = set()
    for la in recipe.launches:
        mem = la.flag("--gpu-memory-utilization")
        eager = la.flag("--enforce-eager", "--no-enforce-eager")
        seen.add((mem.value.value if mem and mem.value else None, eager.name if eager else None))
    # CONC=1 is in 1|4, 16 in 8|16: never 0.88 with --no-enforce-eager, nor 0.90 with --enforce-eager
    assert seen == {
        ("0.88", "--enforce-eager"),
        ("0.88", None),
        ("0.90", "--no-enforce-eager"),
        ("0.90", None),
    }


# InferenceX #2649 at 6bd42cd08: the AMD launcher loads its per-model flags from a
# YAML table with `eval "$(python3 -c ...)"` and passes them to EVAL_ONLY runs too.
TABLE = "benchmarks/multi_node/amd_utils/models_vllm.yaml"
LAUNCHER = "benchmarks/multi_node/amd_utils/server_vllm.sh"
TABLE_TEXT = """\
# per-model vLLM flags for the disaggregated launcher
Plain-Model-FP8:
  prefill_flags: "--tensor-parallel-size 8 --kv-cache-dtype fp8"
  decode_flags: "--tensor-parallel-size 8 --kv-cache-dtype fp8"
  env: "VLLM_USE_V1=1"

Drafted-Model:
  prefill_flags: "--tensor-parallel-size 8 --speculative-config '{\\"method\\":\\"dspark\\",\\"num_speculative_tokens\\":2}'"
  decode_flags: "--tensor-parallel-size 8 --speculative-config '{\\"method\\":\\"dspark\\",\\"num_speculative_tokens\\":2,\\"rejection_sample_method\\":\\"synthetic\\",\\"synthetic_acceptance_length\\":2.51}'"
  env: "VLLM_USE_V1=1 PYTHONHASHSEED=42"
  decode_env: "VLLM_ENGINE_READY_TIMEOUT_S=7200"
"""
LAUNCHER_TEXT = """\
#!/bin/bash
MODELS_YAML="${WS_PATH}/models_vllm.yaml"
eval "$(python3 -c "
import yaml
m = yaml.safe_load(open('${MODELS_YAML}'))['${MODEL_NAME}']
print(f'DECODE_SERVER_CONFIG=\\"{m[\\"decode_flags\\"]}\\"')
")"
PREFILL_CMD="vllm serve ${MODEL_PATH} ${DECODE_SERVER_CONFIG}"
"""
REWRITE = """\
if [[ "${EVAL_ONLY:-false}" == "true" ]]; then
    DECODE_SERVER_CONFIG=$(printf '%s' "$DECODE_SERVER_CONFIG" |
        sed -E 's/"rejection_sample_method":"synthetic"/"rejection_sample_method":"block"/')
fi
"""


def test_a_model_table_the_launcher_evaluates_is_a_launch_source() -> None:
    recipe = parse_recipe(TABLE, TABLE_TEXT)
    assert not recipe.problems
    assert [(la.engine, la.role) for la in recipe.launches] == [
        ("vllm", "prefill"),
        ("vllm", "decode"),
    ] * 2
    decode = recipe.launches[3]
    assert decode.eval_only is None  # the launcher passes the flags to every run
    assert decode.env["VLLM_ENGINE_READY_TIMEOUT_S"].text == "7200"
    assert decode.env["PYTHONHASHSEED"].text == "42"
    assert "VLLM_ENGINE_READY_TIMEOUT_S" not in recipe.launches[2].env
    k = decode.flag("--tensor-parallel-size")
    assert k is not None and k.value is not None and k.value.text == "8"


def test_rcp005_on_synthetic_acceptance_in_a_model_table_evals_run_with() -> None:
    files = {TABLE: TABLE_TEXT, LAUNCHER: LAUNCHER_TEXT}
    found = _lint(files, "RCP005")
    # only the decode role of the drafted model simulates acceptance
    assert [(f.line, f.severity) for f in found] == [
        (_line(TABLE_TEXT, "rejection_sample"), "error")
    ]
    assert "synthetic_acceptance_length" in found[0].message.en
    # once the launcher rewrites the speculative config for evals, the table is fine
    fixed = LAUNCHER_TEXT.replace("PREFILL_CMD=", REWRITE + "PREFILL_CMD=")
    assert _lint({TABLE: TABLE_TEXT, LAUNCHER: fixed}, "RCP005") == []


def test_a_model_table_whose_engine_is_unknown_says_so() -> None:
    recipe = parse_recipe("benchmarks/multi_node/amd_utils/models.yaml", TABLE_TEXT)
    assert not recipe.launches
    assert [p.kind for p in recipe.problems] == ["table_engine_unknown"]


# InferenceX #1108-#1290 (kimik2.5 int4 MTP recipes of the single-node layout): a
# speculative config given as the default of its own variable, JSON with escaped
# quotes inside a double-quoted `${VAR:-...}`. Valid bash that tree-sitter-bash
# cannot parse; the parser reads it from the same bytes with the escapes blanked.
DEFAULT_JSON = """\
#!/usr/bin/env bash
export SPEC="${SPEC:-{\\"model\\": \\"org/Draft-Eagle3\\", \\"method\\": \\"eagle3\\", \\"num_speculative_tokens\\": 3}}"
vllm serve "$MODEL" --port "$PORT" \\
  --gpu-memory-utilization 0.8 \\
  --speculative-config "$SPEC" &
"""


def test_json_in_an_expansion_default_is_no_syntax_error_and_keeps_its_value() -> None:
    recipe = parse_recipe("benchmarks/single_node/kimik2.5_int4_mi355x_mtp.sh", DEFAULT_JSON)
    assert [p.kind for p in recipe.problems if "syntax" in p.kind] == []
    (launch,) = recipe.launches
    spec = launch.flag("--speculative-config")
    assert spec is not None and spec.value is not None
    # the text of the default, read from the script's own bytes (the value itself is
    # the environment's, when it sets `SPEC`)
    assert spec.value.text == (
        '{"model": "org/Draft-Eagle3", "method": "eagle3", "num_speculative_tokens": 3}'
    )
    mem = launch.flag("--gpu-memory-utilization")
    assert mem is not None and mem.value is not None and mem.value.value == "0.8"


# InferenceX #1639 (kimik2.5 fp4 MI355X agentic): an arithmetic expansion with
# parentheses as a default, `${L1:-$((TOTAL / (8 / TP)))}`. Valid bash that
# tree-sitter-bash cannot parse; read with those parentheses blanked, every text still
# the script's own.
DEFAULT_ARITH = """\
#!/usr/bin/env bash
TOTAL_CPU_DRAM_GB=2500
TP=4
LMCACHE_L1_SIZE_GB="${LMCACHE_L1_SIZE_GB:-$((TOTAL_CPU_DRAM_GB / (8 / TP)))}"
vllm serve "$MODEL" --port "$PORT" --tensor-parallel-size "$TP" \\
  --kv-offloading-size "$LMCACHE_L1_SIZE_GB" &
"""


def test_arithmetic_in_an_expansion_default_is_no_syntax_error_and_keeps_its_value() -> None:
    recipe = parse_recipe("benchmarks/single_node/agentic/kimik2.5_fp4_mi355x.sh", DEFAULT_ARITH)
    assert recipe.problems == []
    (launch,) = recipe.launches
    size = launch.flag("--kv-offloading-size")
    assert size is not None and size.value is not None
    # the environment's value when it sets the variable, else the default: the
    # expansion as the script wrote it, parentheses included
    assert size.value.text == "${LMCACHE_L1_SIZE_GB:-$((TOTAL_CPU_DRAM_GB / (8 / TP)))}"
    tp = launch.flag("--tensor-parallel-size")
    assert tp is not None and tp.value is not None and tp.value.value == "4"
