"""RCP007-RCP009 (review-checklist recipe checks) beyond their rule examples.

Resolution through variables, arrays and helper scripts; the native-support
allowlist; waivers in PR mode (added in this PR, pre-existing, absent) and in
tree mode; which benchmark-client invocations count as chat-templated. The
recipes are written for these tests in the shape of InferenceX recipes.
"""

from __future__ import annotations

from collections.abc import Mapping

import lintkit
import pytest
from lintkit import config_with, lines, lint_files, rule

from bot.core.config import Config
from bot.core.model import Finding
from bot.parse.recipe import parse_recipe

AGENTIC = "benchmarks/single_node/agentic/qwen3.5_fp8_h100_mtp.sh"
FIXED = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h200_mtp.sh"
SGLANG = 'python3 -m sglang.launch_server --model-path "$MODEL" --port "$PORT" &\n'
SGLANG_MTP = (
    'python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE \\\n'
    "    --speculative-num-steps 3 --speculative-eagle-topk 1 &\n"
)


# the repository these recipes live in has the waiver rule (InferenceX #2155 added the
# folder): RCP008 is in force (`knowledge.practices.waiver-rule`)
WAIVER_RULE = {"docs/waiver/.gitkeep": ""}


def lint(
    rule_id: str,
    text: str,
    *,
    path: str = FIXED,
    files: Mapping[str, str] | None = None,
    config: Config | None = None,
) -> list[Finding]:
    """Lint one recipe outside a pull request (a whole tree or named files)."""
    files = {**WAIVER_RULE, path: text, **(files or {})}
    return lint_files(files, paths=[path], rules=[rule(rule_id)], config=config).findings


def lint_pr(
    rule_id: str,
    head: Mapping[str, str],
    base: Mapping[str, str],
    pr: int,
    path: str,
) -> list[Finding]:
    """Lint `path` as changed by pull request `pr` (base -> head)."""
    head, base = {**WAIVER_RULE, **head}, {**WAIVER_RULE, **base}
    return lintkit.lint_pr(head, base, pr=pr, paths=[path], rules=[rule(rule_id)]).findings


# ------------------------------------------------------------------ RCP007


def test_rcp007_array_from_another_line() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'OPT_ARGS=(--hf-overrides \'{"use_index_cache": true, "index_topk_freq": 4}\')\n'
        "python3 -m atom.entrypoints.openai_server \\\n"
        '    --model "$MODEL" \\\n'
        '    "${OPT_ARGS[@]}" &\n'
    )
    found = lint(
        "RCP007", text, path="benchmarks/single_node/fixed_seq_len/dsv4_fp4_mi355x_atom.sh"
    )
    assert lines(found) == [2]
    msg = found[0].message.en
    assert "`use_index_cache=true`" in msg and "`index_topk_freq=4`" in msg
    assert "`--hf-overrides`" in msg and "DeepSeek-V4" in msg
    assert found[0].severity == "warning"
    assert "、" in found[0].message.zh


def test_rcp007_nested_key_through_printf_variable() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "FREQ=4\n"
        'OVR="$(printf \'{"text_config": {"index_topk_freq": %d}}\' "$FREQ")"\n'
        'VLLM_CMD=(vllm serve "$MODEL" --hf-overrides "$OVR")\n'
        '"${VLLM_CMD[@]}" &\n'
    )
    found = lint("RCP007", text, path="benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh")
    assert lines(found) == [3]
    assert "`text_config.index_topk_freq=4`" in found[0].message.en
    assert found[0].fix is not None and "`text_config.index_topk_freq`" in found[0].fix.en


def test_rcp007_native_allowlist_by_key_and_by_value() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'vllm serve "$MODEL" --hf-overrides \'{"use_index_cache": true, "index_topk_freq": 4}\' &\n'
    )
    path = "benchmarks/single_node/agentic/minimaxm3_fp4_mi355x_mtp.sh"
    assert lines(lint("RCP007", text, path=path)) == [2]
    by_key = config_with(
        "  models:\n    minimaxm3:\n      native_overrides: [use_index_cache, index_topk_freq]\n"
    )
    assert lint("RCP007", text, path=path, config=by_key) == []
    by_value = config_with(
        "  models:\n    minimaxm3:\n"
        '      native_overrides: ["use_index_cache=true", "index_topk_freq=2"]\n'
    )
    found = lint("RCP007", text, path=path, config=by_value)
    assert len(found) == 1
    assert "`index_topk_freq=4`" in found[0].message.en
    assert "use_index_cache" not in found[0].message.en


# ------------------------------------------------------------------ RCP008

SED_PATCH = (
    "#!/usr/bin/env bash\n"
    "MIXIN=/sgl-workspace/sglang/python/sglang/srt/managers/multi_tokenizer_mixin.py\n"
    "sed -i 's/a/b/' \"$MIXIN\"\n" + SGLANG
)
WAIVER = "# Waiver\n\nPatch entrypoint: `{path}`\nRemoval plan: drop it with the next image.\n"


def test_rcp008_pr_adds_patch_without_waiver_is_an_error() -> None:
    found = lint_pr("RCP008", {AGENTIC: SED_PATCH}, {}, 2700, AGENTIC)
    assert lines(found) == [3]
    assert found[0].severity == "error"
    assert "`docs/waiver/2700.md`" in found[0].message.en
    assert "`docs/waiver/2700.md`" in found[0].message.zh
    assert found[0].fix is not None and "docs/waiver/2700.md" in found[0].fix.en
    assert found[0].in_diff is True


def test_rcp008_pr_adds_its_own_waiver() -> None:
    head = {AGENTIC: SED_PATCH, "docs/waiver/2700.md": WAIVER.format(path=AGENTIC)}
    assert lint_pr("RCP008", head, {}, 2700, AGENTIC) == []


def test_rcp008_waiver_of_another_pr_does_not_cover_a_new_patch() -> None:
    # the waiver names the recipe, but the patch line is new in this PR
    waiver = {"docs/waiver/2508.md": WAIVER.format(path=AGENTIC)}
    base = {AGENTIC: "#!/usr/bin/env bash\n" + SGLANG, **waiver}
    head = {AGENTIC: SED_PATCH, **waiver}
    found = lint_pr("RCP008", head, base, 2700, AGENTIC)
    assert lines(found) == [3] and found[0].severity == "error"


def test_rcp008_waiver_must_be_added_in_this_pr() -> None:
    # docs/waiver/2700.md already on the base branch is not "filed in this PR"
    waiver = {"docs/waiver/2700.md": "# unrelated\n"}
    found = lint_pr("RCP008", {AGENTIC: SED_PATCH, **waiver}, waiver, 2700, AGENTIC)
    assert lines(found) == [3]


def test_rcp008_pre_existing_patch_covered_by_its_original_waiver() -> None:
    waiver = {"docs/waiver/2508.md": WAIVER.format(path=AGENTIC)}
    base = {AGENTIC: SED_PATCH, **waiver}
    head = {AGENTIC: SED_PATCH.replace('--port "$PORT"', '--port "$PORT" --tp 8'), **waiver}
    assert lint_pr("RCP008", head, base, 2700, AGENTIC) == []


def test_rcp008_pre_existing_unwaived_patch_is_a_warning_outside_the_diff() -> None:
    head = {AGENTIC: SED_PATCH.replace('--port "$PORT"', '--port "$PORT" --tp 8')}
    found = lint_pr("RCP008", head, {AGENTIC: SED_PATCH}, 2700, AGENTIC)
    assert lines(found) == [3]
    assert found[0].severity == "warning" and found[0].in_diff is False
    assert "names this recipe" in found[0].message.en


def test_rcp008_tree_mode_waiver_naming_the_recipe_covers_it() -> None:
    assert lines(lint("RCP008", SED_PATCH, path=AGENTIC)) == [3]
    files = {"docs/waiver/2508.md": WAIVER.format(path=AGENTIC)}
    assert lint("RCP008", SED_PATCH, path=AGENTIC, files=files) == []
    # a waiver for another recipe with the same file name does not count
    other = {"docs/waiver/2508.md": WAIVER.format(path=AGENTIC.replace("agentic", "fixed_seq_len"))}
    assert lines(lint("RCP008", SED_PATCH, path=AGENTIC, files=other)) == [3]


def test_rcp008_targets_resolved_through_arrays_and_loops() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'SITE="$(python3 -c \'import sysconfig; print(sysconfig.get_paths()["purelib"])\')"\n'
        'FILES=("$SITE/vllm/model_executor/models/deepseek_v2.py")\n'
        "sed -i -e 's/topk=2048/topk=512/' \"${FILES[@]}\"\n"
        'cp tuned.json "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/configs/E=8.json"\n'
        'git -C "$SITE/sglang" apply /tmp/fix.diff\n'
        'vllm serve "$MODEL" &\n'
    )
    found = lint("RCP008", text)
    assert lines(found) == [4, 5, 6]
    assert "`sed -i` edits" in found[0].message.en and "deepseek_v2.py" in found[0].message.en
    assert "`cp` overwrites" in found[1].message.en
    assert "`git apply` applies a patch" in found[2].message.en


def test_rcp008_edits_outside_the_engine_are_silent() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "sed -i 's/a/b/' \"$RESULT_DIR/config.yaml\"\n"
        "sed -n '1,5p' /sgl-workspace/sglang/python/sglang/version.py\n"
        'cp "$RESULT_DIR/server.log" /workspace/\n'
        'git clone https://github.com/acme/traces.git "$RESULT_DIR/traces"\n'
        'git -C "$INFMAX_CONTAINER_WORKSPACE/utils/aiperf" apply ../aiperf.patch\n'
        'cat > "$RESULT_DIR/mooncake.json" <<EOF\n{"mode": "embedded"}\nEOF\n' + SGLANG
    )
    assert lint("RCP008", text) == []


def test_rcp008_python_heredoc_with_engine_path_argument() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "ROOT=\"$(python -c 'import importlib.util as u, os; "
        'print(os.path.dirname(u.find_spec("vllm").origin))\')"\n'
        "python - \"$ROOT/v1/attention/backends/mla/rocm_aiter_mla.py\" <<'PY'\n"
        "import sys\n"
        "F = sys.argv[1]\n"
        "src = open(F).read().replace('a', 'b')\n"
        'open(F, "w").write(src)\n'
        "PY\n"
        'vllm serve "$MODEL" &\n'
    )
    found = lint("RCP008", text)
    assert lines(found) == [3]
    assert "rocm_aiter_mla.py" in found[0].message.en
    assert "内联的 Python 脚本（heredoc）" in found[0].message.zh


def test_rcp008_python_heredoc_locating_the_engine() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "python3 - <<'PY'\n"
        "import importlib.util, shutil\n"
        'root = importlib.util.find_spec("sglang").submodule_search_locations[0]\n'
        'shutil.copy("fast_radix.py", root + "/srt/mem_cache/radix_cache.py")\n'
        "PY\n" + SGLANG
    )
    found = lint("RCP008", text)
    assert lines(found) == [2]
    assert "the installed `sglang`" in found[0].message.en
    # locating the engine without writing anything is not a patch
    reading = text.replace(
        'shutil.copy("fast_radix.py", root + "/srt/mem_cache/radix_cache.py")', "print(root)"
    )
    assert lint("RCP008", reading) == []


def test_rcp008_sitecustomize_importing_the_engine() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'HOOK="$(mktemp -d)"\n'
        "cat > \"$HOOK/sitecustomize.py\" <<'PY'\n"
        "import vllm.v1.engine.core as core\n"
        "core.EngineCore.step = lambda self: None\n"
        "PY\n"
        'export PYTHONPATH="$HOOK"\n'
        'vllm serve "$MODEL" &\n'
    )
    found = lint("RCP008", text)
    assert lines(found) == [3]
    assert "monkey-patching" in found[0].message.en


@pytest.mark.parametrize(
    ("command", "fires"),
    [
        ('pip install "git+https://github.com/acme/vllm.git@fast"', True),
        ("pip install https://example.com/wheels/sglang-0.5.9-py3-none-any.whl", True),
        ("python3 -m pip install --index-url https://wheels.acme.dev/simple vllm==0.11.0", True),
        ('uv pip install "vllm @ git+https://github.com/acme/vllm@fast"', True),
        ("pip install -q datasets pandas", False),
        ("pip install vllm==0.11.0", False),
        (
            "python -m pip install --extra-index-url "
            "https://pypi.amd.com/triton/release/rocm-7.2.0/simple/ triton==3.7.0",
            False,
        ),
        (
            'pip install "git+https://github.com/EleutherAI/lm-evaluation-harness.git@b315ef3"',
            False,
        ),
        ("pip install https://files.pythonhosted.org/packages/xx/vllm-0.11.0-cp38-abi3.whl", False),
    ],
)
def test_rcp008_pip_installs(command: str, fires: bool) -> None:
    text = f'#!/usr/bin/env bash\n{command}\nvllm serve "$MODEL" &\n'
    assert lines(lint("RCP008", text)) == ([2] if fires else [])


def test_rcp008_source_build_after_clone_and_branch_condition() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'case "$KV_OFFLOAD_BACKEND" in\n'
        "  lmcache)\n"
        "    git clone https://github.com/LMCache/LMCache.git\n"
        "    cd LMCache\n"
        "    CXX=hipcc BUILD_WITH_HIP=1 pip install -e . --no-build-isolation\n"
        "    cd ..\n"
        "    ;;\n"
        "esac\n"
        'vllm serve "$MODEL" &\n'
    )
    found = lint("RCP008", text)
    assert lines(found) == [6]
    msg = found[0].message.en
    assert "`LMCache`" in msg and "LMCache.git" in msg
    assert "only when `KV_OFFLOAD_BACKEND=lmcache`" in msg
    assert "仅当 `KV_OFFLOAD_BACKEND=lmcache` 时" in found[0].message.zh


def test_rcp008_helper_scripts() -> None:
    helper = "benchmarks/single_node/agentic/apply_x_patches.sh"
    clean = "benchmarks/single_node/agentic/setup_mooncake.sh"
    files = {
        helper: (
            "#!/usr/bin/env bash\n"
            "SITE=\"$(python3 -c 'import sglang, os; print(os.path.dirname(sglang.__file__))')\"\n"
            'patch -p1 -d "$SITE" < fix.diff\n'
        ),
        clean: "#!/usr/bin/env bash\npip install -q mooncake-transfer-engine==0.3.11\n",
    }
    text = (
        "#!/usr/bin/env bash\n"
        'bash "$(dirname "$0")/apply_x_patches.sh"\n'
        'bash "$(dirname "$0")/setup_mooncake.sh"\n'
        'python3 "$(dirname "$0")/patch_sglang_radix_cache.py"\n'
        'python3 "$(dirname "$0")/patch_lm_eval_tasks.py"\n' + SGLANG
    )
    found = lint("RCP008", text, path=AGENTIC, files=files)
    assert lines(found) == [2, 4]
    assert "`apply_x_patches.sh`" in found[0].message.en and "line 3" in found[0].message.en
    assert "the installed `sglang`" in found[0].message.en
    assert "patch script `patch_sglang_radix_cache.py`" in found[1].message.en
    # a waiver naming the helper script covers the call site too
    files["docs/waiver/2510.md"] = WAIVER.format(path=helper)
    assert lines(lint("RCP008", text, path=AGENTIC, files=files)) == [4]


def test_rcp008_helper_changed_in_pr_makes_call_site_new() -> None:
    helper = "benchmarks/single_node/agentic/apply_x_patches.sh"
    recipe = '#!/usr/bin/env bash\nbash "$(dirname "$0")/apply_x_patches.sh"\n' + SGLANG
    old_helper = "#!/usr/bin/env bash\necho nothing to patch\n"
    new_helper = (
        '#!/usr/bin/env bash\nsed -i "s/a/b/" /sgl-workspace/sglang/python/sglang/srt/x.py\n'
    )
    base = {AGENTIC: recipe, helper: old_helper}
    head = {AGENTIC: recipe, helper: new_helper}
    found = lint_pr("RCP008", head, base, 2701, AGENTIC)
    assert lines(found) == [2] and found[0].severity == "error"


# ------------------------------------------------------------------ RCP009

RBS = 'run_benchmark_serving --model "$MODEL" --port "$PORT" --backend {backend} {extra}\n'


@pytest.mark.parametrize(
    ("backend", "extra", "fires"),
    [
        ("vllm", "", True),
        ("openai", '--endpoint "/v1/completions"', True),
        ("openai-chat", "", False),
        ("vllm", "--use-chat-template", False),
        ("vllm", "--dsv4", False),
        ("vllm", '"${BENCH_EXTRA[@]}"', False),  # unresolved: may carry the flag
        ('"$BACKEND"', "", False),  # unresolved backend
    ],
)
def test_rcp009_run_benchmark_serving(backend: str, extra: str, fires: bool) -> None:
    text = "#!/usr/bin/env bash\n" + SGLANG_MTP + RBS.format(backend=backend, extra=extra)
    assert lines(lint("RCP009", text)) == ([4] if fires else [])


def test_rcp009_flag_from_a_variable_on_every_path() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        + SGLANG_MTP
        + 'if [ "$TP" = "8" ]; then CHAT=--use-chat-template; else CHAT=--dsv4; fi\n'
        + RBS.format(backend="vllm", extra='"$CHAT"')
    )
    assert lint("RCP009", text) == []


def test_rcp009_only_the_eval_arm_is_silent() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        + SGLANG_MTP
        + 'if [ "$EVAL_ONLY" = "true" ]; then\n'
        + "  "
        + RBS.format(backend="vllm", extra="")
        + "fi\n"
    )
    assert lint("RCP009", text) == []


def test_rcp009_other_clients() -> None:
    sgl = (
        "#!/usr/bin/env bash\n"
        + SGLANG_MTP
        + ("python3 -m sglang.bench_serving --backend sglang --dataset-name random\n")
    )
    found = lint("RCP009", sgl)
    assert lines(found) == [4]
    assert found[0].fix is not None and "`--apply-chat-template`" in found[0].fix.en
    assert "`EAGLE`" in found[0].message.en
    ok = sgl.replace("--dataset-name random", "--dataset-name random --apply-chat-template")
    assert lint("RCP009", ok) == []
    aiperf = "#!/usr/bin/env bash\n" + SGLANG_MTP + 'aiperf profile --url "$URL" --streaming\n'
    assert lint("RCP009", aiperf) == []
    raw = aiperf.replace("--streaming", "--endpoint-type completions --streaming")
    found = lint("RCP009", raw)
    assert lines(found) == [4] and "`completions` backend" in found[0].message.en


def test_rcp009_trt_spec_from_yaml_and_mtp_name() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "cat > cfg.yml << EOF\n"
        "speculative_config:\n"
        "  decoding_type: MTP\n"
        "  max_draft_len: 3\n"
        "EOF\n"
        'trtllm-serve "$MODEL" --extra_llm_api_options cfg.yml &\n'
        + RBS.format(backend="openai", extra="")
    )
    path = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200_trt_mtp.sh"
    found = lint("RCP009", text, path=path)
    assert lines(found) == [8] and "`MTP`" in found[0].message.en
    # a recipe named *_mtp whose launch the bot cannot read still counts
    opaque = "#!/usr/bin/env bash\n$SERVER_CMD &\n" + RBS.format(backend="vllm", extra="")
    assert lines(lint("RCP009", opaque, path=path)) == [3]
    # and without speculative decoding, raw completions are fine
    plain = "#!/usr/bin/env bash\n" + SGLANG + RBS.format(backend="vllm", extra="")
    assert lint("RCP009", plain, path=path.replace("_mtp", "")) == []


def test_agentic_replay_is_chat_by_construction() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        + SGLANG_MTP
        + 'build_replay_cmd "$RESULT_DIR"\n'
        + 'REPLAY_CMD+=" --apply-chat-template"\n'
        + 'run_agentic_replay_and_write_outputs "$RESULT_DIR"\n'
    )
    assert lint("RCP009", text, path=AGENTIC) == []


# ------------------------------------------------------------ recipe model


def test_recipe_commands_keep_inert_commands_rules_read() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "F=/opt/x.py\n"
        "sed -i 's/a/b/' \"$F\"\n"
        "echo hello\n"
        'echo patched > "$F"\n'
        "python3 - <<'PY'\nprint(1)\nPY\n"
        'if [ "$MODE" = "a" ]; then cp a "$F"; else cp b "$F"; fi\n'
    )
    recipe = parse_recipe(FIXED, text)
    names = [(r.name, r.span.line) for r in recipe.commands]
    assert ("sed", 3) in names and ("echo", 4) not in names
    echo = next(r for r in recipe.commands if r.name == "echo")
    assert echo.redirect_to is not None and echo.redirect_to.text == "/opt/x.py"
    sed = next(r for r in recipe.commands if r.name == "sed")
    assert [w.text for w in sed.words] == ["sed", "-i", "s/a/b/", "/opt/x.py"]
    assert sed.words[3].span is not None and sed.words[3].span.line == 2
    py = next(r for r in recipe.commands if r.name == "python3")
    assert py.stdin is not None and py.stdin.text == "print(1)\n"
    cps = [r for r in recipe.commands if r.name == "cp"]
    assert len(cps) == 2
    assert all(len(r.assumptions) == 1 and r.assumptions[0].var == "MODE" for r in cps)


def test_recipe_commands_on_several_paths_keep_shared_conditions() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$A" = "1" ]; then X=1; else X=2; fi\n'
        'case "$B" in\n'
        "  on) sed -i 's/a/b/' /opt/f.py ;;\n"
        "esac\n"
        'echo "$X $A"\n'
    )
    recipe = parse_recipe(FIXED, text)
    sed = [r for r in recipe.commands if r.name == "sed"]
    assert len(sed) == 1
    assert [(a.var, a.value) for a in sed[0].assumptions] == [("B", "on")]


def test_rcp008_inspecting_a_patch_is_silent() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'git -C "$SITE/vllm" apply --check /tmp/fix.diff\n'
        'patch --dry-run -p1 -d "$SITE/vllm" < /tmp/fix.diff\n'
        'vllm serve "$MODEL" &\n'
    )
    assert lint("RCP008", text) == []


def test_rcp008_helper_under_the_mounted_workspace() -> None:
    helper = "benchmarks/single_node/agentic/apply_x_patches.sh"
    files = {helper: "#!/usr/bin/env bash\ngit apply -p1 /tmp/vllm_fix.diff\n"}
    text = (
        "#!/usr/bin/env bash\n"
        'bash "$INFMAX_CONTAINER_WORKSPACE/benchmarks/single_node/agentic/apply_x_patches.sh"\n'
        + SGLANG
    )
    found = lint("RCP008", text, path=AGENTIC, files=files)
    assert lines(found) == [2] and "`git apply`" in found[0].message.en


def test_rcp008_wrapped_commands() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "sudo sed -i 's/a/b/' /usr/local/lib/python3.12/dist-packages/sglang/srt/server_args.py\n"
        'env PIP_NO_CACHE_DIR=1 pip install "git+https://github.com/acme/sglang.git@x"\n' + SGLANG
    )
    assert lines(lint("RCP008", text)) == [2, 3]


def test_rcp009_dataset_rendered_with_the_chat_template() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'vllm serve "$MODEL" --speculative-config \'{"method": "mtp", "num_speculative_tokens": 3}\' &\n'
        'vllm bench serve --model "$MODEL" --dataset-name speed_bench --dataset-path "$DIR"\n'
    )
    assert lint("RCP009", text) == []
    assert lines(lint("RCP009", text.replace("speed_bench", "random"))) == [3]
