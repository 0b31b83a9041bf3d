"""Multi-node (srt-slurm) recipes: parsed into launches per role, checked by RCP000-RCP006.

The recipes here are written for these tests in the shape of InferenceX's
`benchmarks/multi_node/srt-slurm-recipes/<engine>/<model>/...` files: a
dynamo or engine frontend, per-role engine settings and environment (with
YAML anchors and merge keys), a benchmark section with the client's env,
template recipes with zip-override sweeps, eval twins, and master-config
points that name the recipe they run.
"""

from __future__ import annotations

from collections.abc import Mapping

import lintkit
import pytest
from lintkit import default_config, lines, lint_files, rule

from bot.core.engine import Context
from bot.core.engine import lint as run_lint
from bot.core.model import Finding
from bot.core.tree import MemoryTree
from bot.parse import facts
from bot.parse.master_launch import master_launches
from bot.parse.recipe import parse_recipe

ROOT = "benchmarks/multi_node/srt-slurm-recipes"
MM3 = f"{ROOT}/vllm/minimax-m3/agentic/gb300-fp4/1p2d-tp4-tp4-c8-agentic.yaml"
MM3_EVAL = f"{ROOT}/vllm/minimax-m3/agentic/gb300-fp4/1p2d-tp4-tp4-c8-eval-agentic.yaml"
QWEN = f"{ROOT}/sglang/qwen3.5/gb300-fp4/agentic/agg-tp2-c4-mtp.yaml"
QWEN_FSL = f"{ROOT}/sglang/qwen3.5/gb300-fp4/8k1k/disagg/mtp/1p1d-dep4-dep8.yaml"
GLM_TRT = f"{ROOT}/trtllm/glm5.2/gb300-fp4/agentic/agg-tp8-c2-mtp3.yaml"
DSV4 = f"{ROOT}/vllm/deepseek-v4/agentic/disagg-gb200-1p1d-dep8-dep8-mtp2-agentic.yaml"
MASTER = "configs/nvidia-master.yaml"

GQA_CURVE = (
    "# Source GitHub Actions run: https://github.com/SemiAnalysisAI/InferenceX/actions/runs/1\n"
    '# thinking_on chat_template_kwargs: {"thinking_mode": "enabled"}\n'
    "minimax-m3:\n  thinking_on:\n    3: 2.78\n  thinking_off:\n    3: 2.90\n"
)
QWEN_CURVE = "qwen3.5-397b-a17b-nvfp4:\n  thinking_on:\n    3: 3.39\n  thinking_off:\n    3: 3.33\n"
GLM_CURVE = "glm-5.2-fp4:\n  thinking_on:\n    3: 3.06\n  thinking_off:\n    3: 3.21\n"
CURVES = {
    "golden_al_distribution/minimaxm3_eagle3_gqa.yaml": GQA_CURVE,
    "golden_al_distribution/qwen3.5_mtp.yaml": QWEN_CURVE,
    "golden_al_distribution/glm5.2_mtp.yaml": GLM_CURVE,
}

SPEC_SYNTH = (
    '\'{"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3-GQA","num_speculative_tokens":3,'
    '"rejection_sample_method":"synthetic","synthetic_acceptance_length":@AL@}\''
)
SPEC_REAL = (
    '\'{"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3-GQA","num_speculative_tokens":3}\''
)


def mm3(
    *,
    frontend: str = "dynamo",
    spec: str | None = None,
    mem: str = "0.9",
    parser: bool = True,
    client_env: str = '    AIPERF_EXTRA_INPUTS: "thinking:true"\n',
) -> str:
    """A MiniMax-M3 disaggregated vLLM AgentX recipe (1 prefill + 1 decode role)."""
    spec = spec if spec is not None else SPEC_SYNTH.replace("@AL@", "2.78")
    parser_line = '      reasoning-parser: "minimax_m3"\n' if parser else ""
    return (
        'name: "minimax-m3-vllm-disagg-gb300-1p2d-c8-agentic"\n'
        "model:\n"
        '  path: "nvidia/MiniMax-M3-NVFP4"\n'
        '  container: "vllm/vllm-openai:nightly"\n'
        '  precision: "fp4"\n'
        "resources:\n"
        '  gpu_type: "gb300"\n'
        "  prefill_workers: 1\n"
        "  decode_workers: 2\n"
        "frontend:\n"
        f"  type: {frontend}\n"
        "backend:\n"
        "  type: vllm\n"
        "  vllm_config:\n"
        "    prefill:\n"  # line 15
        '      served-model-name: "nvidia/MiniMax-M3-NVFP4"\n'
        f"{parser_line}"
        f"      gpu-memory-utilization: {mem}\n"
        "      enable-expert-parallel: true\n"
        f"      speculative-config: {spec}\n"
        "    decode:\n"
        '      served-model-name: "nvidia/MiniMax-M3-NVFP4"\n'
        f"{parser_line}"
        f"      gpu-memory-utilization: {mem}\n"
        "      enable-expert-parallel: false\n"
        f"      speculative-config: {spec}\n"
        "  prefill_environment: &worker_env\n"
        '    VLLM_ENGINE_READY_TIMEOUT_S: "3600"\n'
        '    NCCL_CUMEM_ENABLE: "1"\n'
        "  decode_environment:\n"
        "    <<: *worker_env\n"
        '    VLLM_FLASHINFER_ALLREDUCE_BACKEND: "mnnvl"\n'
        "benchmark:\n"
        "  type: custom\n"
        '  command: "bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh"\n'
        "  env:\n"
        '    PORT: "8000"\n'
        f"{client_env}"
    )


def qwen(*, acc: str | None = "3.39", thinking: str = "'1'", bench: str = "agentic") -> str:
    """A Qwen3.5 aggregated SGLang recipe; `bench` agentic (custom) or sa-bench."""
    acc_line = f"    SGLANG_SIMULATE_ACC_LEN: '{acc}'\n" if acc is not None else ""
    benchmark = (
        "benchmark:\n  type: custom\n  command: bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh\n"
        if bench == "agentic"
        else "benchmark:\n  type: sa-bench\n  isl: 8192\n  osl: 1024\n  use_chat_template: true\n"
    )
    return (
        "name: agg-gb300-tp2-c4-mtp\n"
        "model: { path: qwen3.5-fp4, container: dynamo-sglang, precision: fp4 }\n"
        "resources: { gpu_type: gb300, gpus_per_node: 2, agg_nodes: 1 }\n"
        "frontend:\n  type: sglang\n"
        "backend:\n"
        "  aggregated_environment:\n"
        "    NCCL_NVLS_ENABLE: '1'\n"
        f"    SGLANG_DEFAULT_THINKING: {thinking}\n"
        f"{acc_line}"
        "    SGLANG_SIMULATE_ACC_METHOD: match-expected\n"
        "  sglang_config:\n"
        "    aggregated:\n"
        "      model-path: /model/\n"
        "      tensor-parallel-size: 2\n"
        "      speculative-algorithm: NEXTN\n"
        "      speculative-num-steps: 3\n"
        "      speculative-eagle-topk: 1\n"
        "      mem-fraction-static: 0.75\n"
        "  type: sglang\n"
        f"{benchmark}"
    )


def glm_trt(forced: str) -> str:
    return (
        "name: dynamo-agg-gb300-tp8-c2-mtp3\n"
        "model:\n  path: nvidia/GLM-5.2-NVFP4\n  precision: fp4\n"
        "resources:\n  gpu_type: gb300\n  agg_nodes: 2\n"
        "backend:\n"
        "  type: trtllm\n"
        "  aggregated_environment:\n"
        "    TLLM_LOG_LEVEL: INFO\n"
        f'    TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: "{forced}"\n'
        "  trtllm_config:\n"
        "    aggregated:\n"
        "      kv_cache_config:\n"
        "        dtype: fp8\n"
        "        free_gpu_memory_fraction: 0.85\n"
        "      speculative_config:\n"
        "        decoding_type: MTP\n"
        "        num_nextn_predict_layers: 3\n"
        "      tensor_parallel_size: 8\n"
        "frontend:\n  type: dynamo\n"
        "benchmark:\n"
        "  type: custom\n"
        "  command: bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh\n"
        "  env:\n"
        "    MODEL_PREFIX: glm5.2\n"
        "    AIPERF_EXTRA_INPUTS: 'thinking:true'\n"
    )


def master(*points: tuple[str, str]) -> str:
    """A master config whose one agentic entry runs `points` ((CONFIG_FILE, extra settings))."""
    body = (
        "minimaxm3-fp4-gb300-dynamo-vllm-agentic-mtp-disagg:\n"
        "  image: vllm/vllm-openai:nightly\n"
        "  model: nvidia/MiniMax-M3-NVFP4\n"
        "  model-prefix: minimaxm3\n"
        "  runner: cluster:gb300-nv\n"
        "  precision: fp4\n"
        "  framework: dynamo-vllm\n"
        "  multinode: true\n"
        "  scenarios:\n"
        "    agentic-coding:\n"
        "    - search-space:\n"
    )
    for recipe, extra in points:
        body += (
            "      - spec-decoding: mtp\n"
            "        conc-list: [8]\n"
            "        prefill:\n"
            "          num-worker: 1\n"
            "          additional-settings:\n"
            f'          - "CONFIG_FILE={recipe}"\n'
            f"{extra}"
            "        decode: { num-worker: 2 }\n"
        )
    return body


def lint(
    rule_id: str,
    text: str,
    *,
    path: str = MM3,
    files: Mapping[str, str] | None = None,
) -> list[Finding]:
    files = {path: text, **CURVES, **(files or {})}
    return lint_files(files, paths=[path], rules=[rule(rule_id)]).findings


def lint_pr(
    rule_id: str, head: Mapping[str, str], base: Mapping[str, str], path: str
) -> list[Finding]:
    head, base = {**CURVES, **head}, {**CURVES, **base}
    return lintkit.lint_pr(head, base, pr=7, paths=[path], rules=[rule(rule_id)]).findings


def line_of(text: str, needle: str, nth: int = 1) -> int:
    seen = 0
    for no, line in enumerate(text.splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == nth:
                return no
    raise AssertionError(needle)


# ------------------------------------------------------------------ parsing


def test_roles_become_launches_with_flags_env_and_lines() -> None:
    text = mm3()
    recipe = parse_recipe(MM3, text)
    assert not recipe.problems
    assert recipe.multi_node and recipe.kind == "agentic" and recipe.model == "minimaxm3"
    assert (recipe.precision, recipe.sku, recipe.frontend) == ("fp4", "gb300", "dynamo")
    assert [la.role for la in recipe.launches] == ["prefill", "decode"]
    prefill, decode = recipe.launches
    assert not prefill.decodes and decode.decodes
    mem = facts.memory(decode, default_config().knowledge)
    assert mem is not None and mem.value == "0.9"
    assert mem.span.line == line_of(text, "gpu-memory-utilization", 2)
    # `enable-expert-parallel: false` is not passed; `true` is a bare flag
    assert prefill.flag("--enable-expert-parallel") is not None
    assert decode.flag("--enable-expert-parallel") is None
    # the merge key brings the anchored variables with the line they are written on
    env = decode.env["NCCL_CUMEM_ENABLE"]
    assert env.text == "1" and env.span is not None
    assert env.span.line == line_of(text, "NCCL_CUMEM_ENABLE")
    assert "VLLM_FLASHINFER_ALLREDUCE_BACKEND" in decode.env
    assert "VLLM_FLASHINFER_ALLREDUCE_BACKEND" not in prefill.env
    assert decode.client_env["AIPERF_EXTRA_INPUTS"].text == "thinking:true"


def test_speculative_config_json_keeps_columns() -> None:
    text = mm3()
    recipe = parse_recipe(MM3, text)
    spec = facts.spec(recipe.launches[1], default_config().knowledge)
    assert spec is not None and spec.method == "eagle3" and facts.k_value(spec) == 3
    assert spec.simulation is not None and spec.simulation.value == 2.78
    line = line_of(text, "speculative-config", 2)
    assert spec.simulation.setting.span.line == line
    col = text.splitlines()[line - 1].index("2.78") + 1
    assert spec.simulation.setting.span.col == col


@pytest.mark.parametrize(
    ("text", "source"),
    [
        (mm3(), "env AIPERF_EXTRA_INPUTS thinking:true"),
        (qwen(), "env SGLANG_DEFAULT_THINKING=1"),
        (
            mm3(client_env="").replace(
                "    decode:\n", '    decode:\n      dyn-default-thinking-mode: "enabled"\n'
            ),
            "--dyn-default-thinking-mode enabled",
        ),
    ],
)
def test_thinking_sources(text: str, source: str) -> None:
    path = QWEN if "sglang" in text else MM3
    recipe = parse_recipe(path, text)
    launch = recipe.launches[-1]
    got = facts.thinking(launch, recipe, default_config().knowledge)
    assert got.mode == "on" and got.explicit and got.source == source


def test_trtllm_role_is_the_engine_yaml() -> None:
    text = glm_trt("2.06")
    recipe = parse_recipe(GLM_TRT, text)
    (launch,) = recipe.launches
    assert launch.engine == "trtllm" and launch.role == "aggregated"
    knowledge = default_config().knowledge
    spec = facts.spec(launch, knowledge)
    assert spec is not None and facts.k_value(spec) == 3
    mem = facts.memory(launch, default_config().knowledge)
    assert mem is not None and mem.value == 0.85
    assert mem.span.line == line_of(text, "free_gpu_memory_fraction")
    assert recipe.model == "glm5.2"


def test_template_recipe_sweeps_zip_overrides() -> None:
    text = (
        "base:\n"
        "  name: gb300-fp4-glm5.2-agentx\n"
        "  model: {path: glm-5.2-fp4, precision: fp4}\n"
        "  resources: {gpu_type: gb300}\n"
        "  frontend: {type: dynamo}\n"
        "  backend:\n"
        "    type: sglang\n"
        "    decode_environment:\n"
        "      SGLANG_SIMULATE_ACC_LEN: '3.06'\n"
        "    sglang_config:\n"
        "      decode:\n"
        "        speculative-algorithm: EAGLE\n"
        "        speculative-num-steps: 3\n"
        "        mem-fraction-static: 0.8\n"
        "  benchmark: {type: custom, command: bash agentic_srt.sh}\n"
        "zip_override_mtp_agentx_hightpt:\n"
        "  name: [agentx-a, agentx-b]\n"
        "  backend:\n"
        "    sglang_config:\n"
        "      decode:\n"
        "        mem-fraction-static: [0.85, 0.9]\n"
    )
    recipe = parse_recipe(f"{ROOT}/sglang/glm5.2/gb300-fp4/agentic/glm5.2-agentx.yaml", text)
    assert not recipe.problems
    values = sorted(
        str(facts.memory(la, default_config().knowledge).value) for la in recipe.launches
    )  # type: ignore[union-attr]
    assert values == ["0.8", "0.85", "0.9"]
    lines_ = {facts.memory(la, default_config().knowledge).span.line for la in recipe.launches}  # type: ignore[union-attr]
    assert lines_ == {14, 21}


def test_eval_twin_is_the_eval_path() -> None:
    recipe = parse_recipe(MM3_EVAL, mm3(spec=SPEC_REAL))
    assert all(la.eval_only is True for la in recipe.launches)
    assert all(la.eval_only is False for la in parse_recipe(MM3, mm3()).launches)


# ------------------------------------------------------------------ rules


def test_rcp003_trtllm_off_by_one_and_thinking_flip() -> None:
    assert lint("RCP003", glm_trt("2.06"), path=GLM_TRT) == []
    text = glm_trt("3.06")
    found = lint("RCP003", text, path=GLM_TRT)
    assert lines(found) == [line_of(text, "FORCE_NUM_ACCEPTED")]
    assert "1" in found[0].message.en and "2.06" in found[0].message.en
    # thinking_off value (3.21 - 1) while the client turns thinking on
    assert lines(lint("RCP003", glm_trt("2.21"), path=GLM_TRT)) == [line_of(text, "FORCE_NUM")]


def test_master_launch_join() -> None:
    written = "recipes/" + MM3.removeprefix(ROOT + "/")
    text = master(
        (
            written,
            '          - "SYNTHETIC_ACCEPTANCE=true"\n          - "EVAL_CONFIG_FILE=recipes/x-eval.yaml"\n',
        )
    )
    tree = MemoryTree({MM3: mm3(), MASTER: text, f"{ROOT}/x-eval.yaml": "{}"})
    ctx = Context.for_tree(tree, default_config())
    runs = master_launches(ctx)
    (run,) = runs[MM3]
    assert run.injects_acceptance and run.scenario == "agentic-coding"
    assert run.line == line_of(text, "CONFIG_FILE=")
    assert [r.role for r in runs[f"{ROOT}/x-eval.yaml"]] == ["eval"]


def test_rcp006_synthetic_acceptance_in_fixed_seq_len_recipe() -> None:
    text = qwen(bench="sa-bench")
    assert parse_recipe(QWEN_FSL, text).kind == "fixed_seq_len"
    found = lint("RCP006", text, path=QWEN_FSL)
    assert lines(found) == [line_of(text, "SGLANG_SIMULATE_ACC_LEN")]
    assert lint("RCP006", qwen(acc=None, bench="sa-bench"), path=QWEN_FSL) == []


def test_rcp002_new_recipe_above_same_directory_siblings() -> None:
    sibling = MM3.replace("1p2d-tp4-tp4-c8", "1p1d-tp4-tp4-c4")
    text = mm3(mem="0.95")
    head = {MM3: text, sibling: mm3(mem="0.90")}
    found = lint_pr("RCP002", head, {sibling: mm3(mem="0.90")}, MM3)
    assert lines(found) == [
        line_of(text, "gpu-memory-utilization", 1),
        line_of(text, "gpu-memory-utilization", 2),
    ]
    assert all(f.severity == "error" for f in found) and sibling in found[0].message.en
    # already merged: it has run at its value
    assert lint_pr("RCP002", head, head, MM3) == []
    # no single-node default for a disaggregated worker
    assert lint_pr("RCP002", {MM3: text}, {}, MM3) == []


def test_rcp002_without_a_base_warns_and_with_one_errs() -> None:
    path = "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
    text = (
        "#!/usr/bin/env bash\n"
        "GPU_MEM=0.93\n"
        'vllm serve "$MODEL" --gpu-memory-utilization "$GPU_MEM" \\\n'
        '    --speculative-config \'{"method": "dspark", "model": "Inferact/Kimi-K3-DSpark", '
        '"num_speculative_tokens": 3}\' &\n'
    )
    # a lone file and a whole tree are the same run (no base): the context has one tree mode
    as_file = lint("RCP002", text, path=path)
    assert lines(as_file) == [2] and as_file[0].severity == "warning"
    assert "without a PR base" in as_file[0].message.en
    # the PR's base decides: a new recipe is an error
    found = lint_pr("RCP002", {path: text}, {}, path)
    assert lines(found) == [2] and found[0].severity == "error"


# ------------------------------------------------------------------ bad input


BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
    "backend:\n  type: vllm\n  vllm_config:\n    decode: {x: *g}\n"
)


@pytest.mark.parametrize(
    ("text", "words", "line"),
    [
        (BOMB, "expands past them through aliases", None),
        (mm3().replace("    decode:\n", "    decoder:\n", 1), "unknown role `decoder`", 21),
        ("name: x\nmodel: {path: m}\nbenchmark: {type: sa-bench}\n", "no `backend` section", 1),
        ("backend:\n  type: vllm\n", "no `backend.vllm_config` section", 1),
        ("backend:\n  type: vllm\n  vllm_config: [prefill]\n", "not a mapping of roles", 3),
        (
            "backend:\n  type: vllm\n  vllm_config:\n    decode: 3\n",
            "is a integer, not a mapping",
            4,
        ),
        (
            "backend:\n  type: vllm\n  decode_environment:\n    A: [1]\n  vllm_config:\n    decode: {}\n",
            "`decode_environment.A` is a list",
            4,
        ),
        ("backend:\n  type: mystery\n  mystery_config: {}\n", "unknown backend type `mystery`", 2),
        ("- just\n- a list\n", "not a mapping", 1),
        ("backend: {type: vllm\n", "not valid YAML", None),
        ("backend:\n  <<: 3\n", "must name a mapping", None),
        ("x: *nothing\n", "names no anchor", 1),
        ("[" * 5000 + "]" * 5000 + "\n", "nests deeper", None),
        ("", "empty", 1),
    ],
)
def test_unreadable_multinode_recipe_is_an_rcp000_finding(
    text: str, words: str, line: int | None
) -> None:
    path = f"{ROOT}/vllm/minimax-m3/agentic/gb300-fp4/bad-agentic.yaml"
    found = lint("RCP000", text, path=path)
    assert found, "a recipe that cannot be read must never be silent"
    assert any(words.lower() in f.message.en.lower() for f in found), [f.message.en for f in found]
    if line is not None:
        assert any(f.line == line for f in found)
    # and no other rule crashes on it
    tree = MemoryTree({path: text, **CURVES})
    run_lint(Context.for_tree(tree, default_config()), paths=[path])


def test_duplicate_keys_keep_the_last_value_as_srtctl_does() -> None:
    text = mm3().replace(
        "      gpu-memory-utilization: 0.9\n",
        "      gpu-memory-utilization: 0.8\n      gpu-memory-utilization: 0.9\n",
        1,
    )
    recipe = parse_recipe(MM3, text)
    assert not recipe.problems
    mem = facts.memory(recipe.launches[0], default_config().knowledge)
    assert mem is not None and mem.value == "0.9"


def test_helper_yaml_beside_recipes_is_not_a_recipe() -> None:
    path = f"{ROOT}/trtllm/deepseek-v4/agentx-gb300/eplb_confs/moe_load_balancer_ep8.yaml"
    text = "num_slots: 384\ninitial_global_assignments:\n  0: [1, 2, 3]\n"
    recipe = parse_recipe(path, text)
    assert recipe.launches == [] and recipe.problems == []


# ------------------------------------------------------------------ CFG006


def _cfg006(al: str, recipe_text: str) -> list[Finding]:
    written = "recipes/" + MM3.removeprefix(ROOT + "/")
    extra = (
        f'          - "SYNTHETIC_ACCEPTANCE=true"\n          - "SYNTHETIC_ACCEPTANCE_LENGTH={al}"\n'
    )
    text = master((written, extra))
    tree = MemoryTree({MASTER: text, MM3: recipe_text, **CURVES})
    ctx = Context.for_tree(tree, default_config())
    return run_lint(ctx, paths=[MASTER], rules=[rule("CFG006")]).findings


def test_cfg006_golden_al_on_the_master_config_line() -> None:
    recipe = mm3(spec=SPEC_REAL)  # thinking on through AIPERF_EXTRA_INPUTS
    assert _cfg006("2.78", recipe) == []
    (found,) = _cfg006("2.90", recipe)
    assert found.severity == "error" and found.path == MASTER
    assert "thinking_on K=3 an AL of 2.78" in found.message.en
    assert "AIPERF_EXTRA_INPUTS" in found.message.en
    # nothing turns thinking on: MiniMax-M3 serves it off, so 2.90 is right ...
    plain = mm3(spec=SPEC_REAL, client_env="")
    assert _cfg006("2.90", plain) == []
    # ... and 2.78 is the thinking_on curve, reported as a warning (the default decided)
    (found,) = _cfg006("2.78", plain)
    assert found.severity == "warning"


# ------------------------------------------------------------------ same answer in every mode


def _git(repo: object, *args: str) -> str:
    import os
    import subprocess

    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    out = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True
    )
    return out.stdout.strip()


def test_lone_file_repo_and_pr_modes_agree(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    import shutil
    from pathlib import Path

    from bot.cli import main

    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("git is not installed")
    root = Path(str(tmp_path)) / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("x\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    base = _git(root, "rev-parse", "HEAD")
    kimi = "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
    files = {
        **CURVES,
        QWEN: qwen(acc="3.33"),  # RCP003
        MM3_EVAL: mm3(),  # RCP005
        kimi: (
            "#!/usr/bin/env bash\nGPU_MEM=0.93\n"
            'vllm serve "$MODEL" --gpu-memory-utilization "$GPU_MEM" \\\n'
            '  --speculative-config \'{"method": "dspark", "model": "Inferact/Kimi-K3-DSpark", '
            '"num_speculative_tokens": 3}\' &\n'
        ),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "recipes")

    def findings(*argv: str) -> list[tuple[str, str, int, str, str]]:
        main(["lint", "--format", "json", "--lang", "en", *argv])
        data = json.loads(capsys.readouterr().out)
        return sorted(
            (f["rule"], f["path"], f["line"], f["severity"], f["message"]["en"])
            for f in data["findings"]
            if f["path"] in (QWEN, MM3_EVAL, kimi)
        )

    targets = [str(root / QWEN), str(root / MM3_EVAL), str(root / kimi)]
    lone = findings(*targets)
    whole = findings("--repo", str(root), "--head", "HEAD")
    assert {r for r, *_ in lone} == {"RCP002", "RCP003", "RCP004", "RCP005"}
    assert lone == whole
    # PR mode: the same findings, except that the base decides RCP002 (a new recipe: error)
    pr = findings("--repo", str(root), "--base", base, "--head", "HEAD")
    assert [f for f in pr if f[0] != "RCP002"] == [f for f in lone if f[0] != "RCP002"]
    assert [f[3] for f in pr if f[0] == "RCP002"] == ["error"]


def test_cfg006_in_a_pr_judges_changed_entries_and_changed_recipes() -> None:
    written = "recipes/" + MM3.removeprefix(ROOT + "/")
    extra = (
        '          - "SYNTHETIC_ACCEPTANCE=true"\n          - "SYNTHETIC_ACCEPTANCE_LENGTH=2.90"\n'
    )
    text = master((written, extra))
    recipe = mm3(spec=SPEC_REAL)
    other = "\nother-entry:\n  image: x\n"
    base = {MASTER: text, MM3: recipe}
    # the PR edits another entry: the merged point is not this PR's
    assert lint_pr("CFG006", {MASTER: text + other, MM3: recipe}, base, MASTER) == []
    # the PR changes the recipe the point runs (here: turns thinking on): judged
    changed = recipe.replace('    PORT: "8000"\n', '    PORT: "8001"\n')
    found = lint_pr("CFG006", {MASTER: text + other, MM3: changed}, base, MASTER)
    assert [f.rule for f in found] == ["CFG006"]


def test_rcp005_on_a_config_file_the_runner_reuses_for_evals() -> None:
    """InferenceX #2665: a point with no EVAL_CONFIG_FILE evaluates its CONFIG_FILE."""
    text = mm3()  # synthetic acceptance checked into the recipe itself
    written = "recipes/" + MM3.removeprefix(ROOT + "/")
    eligible = master((written, "")).replace("conc-list: [8]", "conc-list: [8, 16, 32]")
    found = lint("RCP005", text, files={MASTER: eligible})
    assert lines(found) == [line_of(text, "speculative-config", 2)]
    (f,) = found
    # agentic evals run only when a sweep opts in: a warning that names the point
    assert f.severity == "warning"
    assert "minimaxm3-fp4-gb300-dynamo-vllm-agentic-mtp-disagg" in f.message.en
    assert "concurrency up to 32" in f.message.en and "并发最高 32" in f.message.zh
    assert f"{MASTER}:{line_of(eligible, 'CONFIG_FILE=')}" in f.message.en
    # below the sweep generator's eval concurrency no eval job runs it
    assert lint("RCP005", text, files={MASTER: master((written, ""))}) == []
    # a point naming a real-verification eval twin runs that one instead
    twin = '          - "EVAL_CONFIG_FILE=recipes/x-eval.yaml"\n'
    named = master((written, twin)).replace("conc-list: [8]", "conc-list: [8, 16, 32]")
    assert lint("RCP005", text, files={MASTER: named}) == []
    # the runner injecting acceptance keeps the recipe real: nothing to report
    assert lint("RCP005", mm3(spec=SPEC_REAL), files={MASTER: eligible}) == []


def test_rcp005_agentic_eval_reuse_only_where_the_base_has_multi_node_agentic_evals() -> None:
    """Before InferenceX #2309 the sweep gave multi-node agentic points no eval at all
    ("Multi-node agentic eval is unsupported"): a PR on such a base is not told that an
    eval reuses its CONFIG_FILE."""
    text = mm3()
    written = "recipes/" + MM3.removeprefix(ROOT + "/")
    eligible = master((written, "")).replace("conc-list: [8]", "conc-list: [8, 16, 32]")
    generator = "utils/matrix_logic/generate_sweep_configs.py"
    before = {generator: "# Multi-node agentic eval is unsupported.\n"}
    after = {generator: "ag_mn_groups = defaultdict(list)\n"}
    head = {MM3: text, MASTER: eligible}
    assert lint_pr("RCP005", {**head, **before}, before, MM3) == []
    found = lint_pr("RCP005", {**head, **after}, after, MM3)
    assert [f.severity for f in found] == ["warning"]
    # the base decides, not the head: a PR that brings the eval path is judged by its base
    assert lint_pr("RCP005", {**head, **after}, before, MM3) == []
