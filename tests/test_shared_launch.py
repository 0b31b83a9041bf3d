"""A change to shared launch code (issue 19 point 8): reviewed through the recipes it reaches.

A pull request that changes only `benchmarks/benchmark_lib.sh`, a runner or
`amd_utils/job.slurm` used to check no file at all. Now the recipes that source or run
the changed file are found (`bot.parse.deps`, `bot.core.shared`), linted on the PR's base
and head, and what the change introduces is reported on the shared file's changed line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from bot.cli import main
from bot.core.wording import WORDS
from bot.parse.deps import Layout, references
from bot.report import json_report, text
from bot.review.render import with_shared_note
from tests.lintkit import lint_pr
from tests.test_cli import git

LIB = "benchmarks/benchmark_lib.sh"
LIB_TEXT = (
    'run_benchmark_serving() {\n    python3 utils/bench_serving/benchmark_serving.py "$@"\n}\n'
)

SPEC_RECIPE = (
    "#!/usr/bin/env bash\n"
    'source "$(dirname "$0")/../../benchmark_lib.sh"\n'
    'python3 -m sglang.launch_server --model-path "$MODEL" --speculative-algorithm EAGLE '
    "--speculative-num-steps 3 &\n"
    'if [ "$EVAL_ONLY" = "true" ]; then run_eval --port 8000; '
    "else run_agentic_replay_and_write_outputs out; fi\n"
)
PLAIN = (
    '#!/usr/bin/env bash\nsource /workspace/benchmarks/benchmark_lib.sh\nvllm serve "$MODEL" &\n'
)


def test_a_change_to_the_library_lints_the_recipes_that_source_it() -> None:
    base = {
        LIB: LIB_TEXT,
        "benchmarks/single_node/agentic/x_fp4_mi355x_sglang_mtp.sh": SPEC_RECIPE,
        "benchmarks/single_node/fixed_seq_len/y_fp8_h100.sh": PLAIN,
        "benchmarks/single_node/fixed_seq_len/z_fp8_h100.sh": "#!/usr/bin/env bash\nvllm serve m &\n",
    }
    head = {**base, LIB: LIB_TEXT + "# a comment\n"}
    report = lint_pr(head, base)
    # checked (no more "no files checked"), and the agentic recipe's standing RCP004
    # error is not the change's: it is on the base too
    assert report.files == [LIB]
    assert report.findings == []
    (check,) = report.shared
    assert check.path == LIB
    assert check.dependents == (
        "benchmarks/single_node/agentic/x_fp4_mi355x_sglang_mtp.sh",
        "benchmarks/single_node/fixed_seq_len/y_fp8_h100.sh",
    )
    # they only source it: no check of theirs reads it, so none is linted twice
    assert (check.linted, check.introduced) == ((), 0)


# InferenceX's AMD launcher loads its per-model flags from a table and, since #2649,
# rewrites synthetic acceptance to real verification for EVAL_ONLY runs (RCP005 reads it)
TABLE = "benchmarks/multi_node/amd_utils/models_vllm.yaml"
LAUNCHER = "benchmarks/multi_node/amd_utils/server_vllm.sh"
TABLE_TEXT = """\
Drafted-Model:
  prefill_flags: "--tensor-parallel-size 8"
  decode_flags: "--tensor-parallel-size 8 --speculative-config '{\\"method\\":\\"dspark\\",\\"num_speculative_tokens\\":2,\\"rejection_sample_method\\":\\"synthetic\\",\\"synthetic_acceptance_length\\":2.51}'"
"""
LAUNCHER_TEXT = """\
#!/bin/bash
MODELS_YAML="${WS_PATH}/models_vllm.yaml"
eval "$(python3 -c "import yaml; print(yaml.safe_load(open('${MODELS_YAML}')))")"
if [[ "${EVAL_ONLY:-false}" == "true" ]]; then
    DECODE_SERVER_CONFIG=$(printf '%s' "$DECODE_SERVER_CONFIG" |
        sed -E 's/"rejection_sample_method":"synthetic"/"rejection_sample_method":"block"/')
fi
PREFILL_CMD="vllm serve ${MODEL_PATH} ${DECODE_SERVER_CONFIG}"
"""
DROPPED = LAUNCHER_TEXT.replace(
    LAUNCHER_TEXT[LAUNCHER_TEXT.index("if [[") : LAUNCHER_TEXT.index("PREFILL_CMD")],
    "# evals use the table as is\n",
)


def test_what_the_change_introduces_lands_on_the_shared_files_changed_line() -> None:
    base = {TABLE: TABLE_TEXT, LAUNCHER: LAUNCHER_TEXT}
    head = {TABLE: TABLE_TEXT, LAUNCHER: DROPPED}
    report = lint_pr(head, base)
    found = [f for f in report.findings if f.rule == "RCP005"]
    assert len(found) == 1
    f = found[0]
    # on the launcher's first changed line, inline, naming the table and its line
    assert (f.path, f.line, f.in_diff) == (LAUNCHER, 4, True)
    assert f"in `{TABLE}` line 3, which uses `{LAUNCHER}`" in f.message.en
    assert TABLE in f.message.zh and LAUNCHER in f.message.zh
    assert f.severity == "error"
    (check,) = report.shared
    assert (check.path, check.dependents, check.linted, check.introduced) == (
        LAUNCHER,
        (TABLE,),
        (TABLE,),
        1,
    )
    # the reverse change fixes it: nothing introduced
    back = lint_pr(base, head)
    assert [f for f in back.findings if f.rule == "RCP005"] == []


def test_a_deleted_shared_file_reports_on_the_recipes_own_line() -> None:
    base = {TABLE: TABLE_TEXT, LAUNCHER: LAUNCHER_TEXT}
    head = {TABLE: TABLE_TEXT}
    report = lint_pr(head, base)
    found = [f for f in report.findings if f.rule == "RCP005"]
    # no launcher rewrites the table on the head: the table's own line, outside the diff
    assert [(f.path, f.line, f.in_diff) for f in found] == [(TABLE, 3, False)]


def test_a_runner_reaches_the_recipes_it_runs() -> None:
    runner = "runners/launch_h100-cw.sh"
    text = (
        "#!/usr/bin/env bash\n"
        "bash benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_h100${SPEC_SUFFIX}.sh\n"
    )
    base = {
        runner: text,
        "benchmarks/single_node/fixed_seq_len/y_fp8_h100.sh": PLAIN,
        "benchmarks/single_node/agentic/y_fp8_h100_mtp.sh": PLAIN,
        "benchmarks/single_node/fixed_seq_len/y_fp8_h200.sh": PLAIN,
    }
    head = {**base, runner: text + "echo done\n"}
    report = lint_pr(head, base)
    assert report.files == [runner]
    assert report.shared[0].dependents == (
        "benchmarks/single_node/agentic/y_fp8_h100_mtp.sh",
        "benchmarks/single_node/fixed_seq_len/y_fp8_h100.sh",
    )
    assert report.shared[0].linted == ()  # no recipe check reads the runner


def test_job_slurm_reaches_the_server_scripts_it_sources() -> None:
    job = "benchmarks/multi_node/amd_utils/job.slurm"
    text = (
        '#!/bin/bash\nWS_PATH="${DOCKER_MOUNT_PATH}/benchmarks/multi_node/amd_utils"\n'
        'source "$WS_PATH/server_sglang.sh"\n'
    )
    server = "#!/bin/bash\npython3 -m sglang.launch_server --model-path m &\n"
    base = {
        job: text,
        "benchmarks/multi_node/amd_utils/server_sglang.sh": server,
        "benchmarks/multi_node/amd_utils/server_atom.sh": server,
    }
    head = {**base, job: text + "echo done\n"}
    report = lint_pr(head, base)
    assert report.shared[0].dependents == ("benchmarks/multi_node/amd_utils/server_sglang.sh",)


def test_a_patch_added_to_a_helper_recipes_run_is_reported_on_the_helper() -> None:
    """RCP008 follows the scripts a recipe runs: a patch the PR adds to a shared helper is
    an unwaived patch of every recipe that runs it, shown on the helper's new line."""
    recipe = "benchmarks/single_node/agentic/kimik3_fp4_mi355x_vllm_mtp.sh"
    helper = "benchmarks/single_node/agentic/helpers/apply_patches.sh"
    runs = '#!/usr/bin/env bash\nbash "$(dirname "$0")/helpers/apply_patches.sh"\nvllm serve m &\n'
    before = "#!/usr/bin/env bash\necho nothing to patch\n"
    after = before + "cd /usr/local/lib/python3.12/dist-packages/vllm && git apply /tmp/fix.patch\n"
    # the base files docs/waiver/: the waiver rule is in force (bot.core.practice)
    waivers = {"docs/waiver/.gitkeep": ""}
    report = lint_pr(
        {recipe: runs, helper: after, **waivers}, {recipe: runs, helper: before, **waivers}
    )
    assert [(f.rule, f.severity, f.path, f.line, f.in_diff) for f in report.findings] == [
        ("RCP008", "error", helper, 3, True)
    ]
    assert f"in `{recipe}` line 2, which uses `{helper}`" in report.findings[0].message.en
    assert report.shared[0].linted == (recipe,)
    # the same patch on the base too: nothing new
    same = lint_pr(
        {recipe: runs, helper: after + "# x\n", **waivers}, {recipe: runs, helper: after, **waivers}
    )
    assert same.findings == []


def test_a_recipe_the_pr_changes_is_linted_once() -> None:
    base = {LIB: LIB_TEXT, "benchmarks/single_node/fixed_seq_len/y_fp8_h100.sh": PLAIN}
    head = {
        LIB: LIB_TEXT + "# x\n",
        "benchmarks/single_node/fixed_seq_len/y_fp8_h100.sh": PLAIN + "# y\n",
    }
    report = lint_pr(head, base)
    assert report.shared[0].dependents == ()


LAYOUT = Layout(
    roots=("/workspace/", "$GITHUB_WORKSPACE/", "/infmax-workspace/"),
    own_dir=('$(dirname "$0")', "$SCRIPT_DIR"),
)


def test_references_as_launch_files_write_them() -> None:
    recipe = "benchmarks/single_node/agentic/a.sh"
    assert references(
        recipe,
        'source "$(dirname "$0")/../../benchmark_lib.sh"\n'
        '# source "$(dirname "$0")/old.sh"\n'
        'bash "$SCRIPT_DIR/b.sh" "$@"\n'
        "LOG=$RESULT_DIR/server.log\n"
        'OUT_DIR="/workspace/benchmarks/multi_node"\n',
        LAYOUT,
    ) == ("benchmarks/benchmark_lib.sh", "benchmarks/single_node/agentic/b.sh")
    assert references(
        "runners/launch_gb300-nv.sh",
        'cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/kimi-k3" x\n',
        LAYOUT,
    ) == ("benchmarks/multi_node/srt-slurm-recipes/vllm/kimi-k3",)
    assert references(
        "benchmarks/multi_node/srt-slurm-recipes/vllm/x/a.yaml",
        "setup_script: kimik3-dspark-config-compat.sh\n"
        "  command: bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh\n",
        LAYOUT,
    ) == ("?name:kimik3-dspark-config-compat.sh", "benchmarks/multi_node/agentic_srt.sh")


def test_the_wording_carries_both_languages() -> None:
    via = WORDS["via-shared"]
    assert set(via.placeholders()[0]) == set(via.placeholders()[1])


def test_the_cli_checks_a_pr_that_changes_only_the_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through `bot lint --repo --base` on a real git repository: no "no files checked"."""
    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    recipe = "benchmarks/single_node/fixed_seq_len/y_fp8_h100.sh"
    for rel, body in {LIB: LIB_TEXT, recipe: PLAIN}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    (root / LIB).write_text(LIB_TEXT + "# tuned\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "lib")
    monkeypatch.chdir(root)
    code = main(["lint", "--repo", str(root), "--base", "main", "--head", "pr", "--lang", "en"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == (
        "No problems found in 1 file checked\n"
        f"`{LIB}` is shared launch code used by 1 recipe(s); no check of theirs reads it, "
        "so none needed linting again.\n"
    )


def test_the_summary_json_and_text_say_what_the_shared_file_reached() -> None:
    """The review's summary, the JSON report and the terminal name the shared file, the
    recipes it reaches, how many were linted and what the change introduced."""
    report = lint_pr(
        {TABLE: TABLE_TEXT, LAUNCHER: DROPPED}, {TABLE: TABLE_TEXT, LAUNCHER: LAUNCHER_TEXT}
    )
    en = (
        f"`{LAUNCHER}` is shared launch code used by 1 recipe(s): 1 of them linted on base "
        "and head; 1 finding(s) new with this change."
    )
    zh = "本次修改新引入 1 个问题"
    summary = with_shared_note("## recipe-review\n\nbody", report.shared)
    assert en in summary and zh in summary and summary.startswith("## recipe-review\n")
    assert with_shared_note("## recipe-review\n\nbody", []) == "## recipe-review\n\nbody"
    data = json.loads(json_report.render(report))
    (shared,) = data["shared"]
    assert shared["path"] == LAUNCHER and shared["introduced"] == 1
    assert shared["summary"]["en"] == en
    jsonschema.validate(data, json.loads(Path("schemas/findings.schema.json").read_text()))
    lines = text.render(report, "both").splitlines()
    assert en in lines and any(zh in line for line in lines)
    # a report without shared code carries no `shared` member
    assert "shared" not in json.loads(json_report.render(lint_pr(DROPPED_ONLY, DROPPED_ONLY_BASE)))


DROPPED_ONLY = {
    "benchmarks/single_node/fixed_seq_len/z_fp8_h100.sh": "#!/usr/bin/env bash\nvllm serve m2 &\n"
}
DROPPED_ONLY_BASE = {
    "benchmarks/single_node/fixed_seq_len/z_fp8_h100.sh": "#!/usr/bin/env bash\nvllm serve m &\n"
}
