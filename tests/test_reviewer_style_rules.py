"""RCP012 (server arguments one per line) and RCP013 (launchers import public images)."""

from __future__ import annotations

from collections.abc import Mapping

import lintkit

from bot.core.model import Finding

RECIPE = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh"
LAUNCHER = "runners/launch_h200-xy.sh"


def run(
    rule: str,
    head: Mapping[str, str],
    base: Mapping[str, str] | None = None,
) -> list[Finding]:
    rules = [lintkit.rule(rule)]
    paths = [p for p in head if p.startswith("benchmarks/")]
    if base is None:
        report = lintkit.lint_files(head, paths=paths, rules=rules)
    else:
        changed = set(head) | set(base)
        report = lintkit.lint_pr(head, base, pr=None, changed=changed, paths=paths, rules=rules)
    return [f for f in report.findings if f.rule == rule]


ONE_LINE = (
    "#!/usr/bin/env bash\n"
    "python3 -m sglang.launch_server --model-path $MODEL --tp $TP --port $PORT &\n"
)
SPLIT = (
    "#!/usr/bin/env bash\n"
    "python3 -m sglang.launch_server --model-path $MODEL \\\n"
    "    --tp $TP \\\n"
    "    --port $PORT &\n"
)


def test_crowded_launch_line_is_a_warning_when_the_pr_writes_it() -> None:
    (f,) = run("RCP012", {RECIPE: ONE_LINE}, base={RECIPE: SPLIT})
    assert (f.severity, f.span.line) == ("warning", 2)
    assert "3 server arguments" in f.message.en and "3 个服务器参数" in f.message.zh
    assert "`sglang`" in f.message.en


def test_untouched_crowded_launch_is_information_only() -> None:
    other = ONE_LINE + "echo done\n"
    (f,) = run("RCP012", {RECIPE: other + "# tail\n"}, base={RECIPE: other})
    assert f.severity == "info"
    (g,) = run("RCP012", {RECIPE: ONE_LINE})  # no change: a lone file
    assert g.severity == "info"


def test_one_argument_per_line_and_flags_from_variables_are_clean() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'SPEC="--speculative-algorithm EAGLE --speculative-num-steps 3"\n'
        'vllm serve "$MODEL" --port $PORT \\\n'
        "    --tensor-parallel-size $TP \\\n"
        "    $SPEC &\n"
    )
    assert run("RCP012", {RECIPE: text}, base={}) == []
    assert run("RCP012", {RECIPE: SPLIT}, base={}) == []


def test_one_finding_per_crowded_line_across_paths() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$EVAL_ONLY" = "true" ]; then X=--enable-metrics; else X=""; fi\n'
        "vllm serve $MODEL --port $PORT --tensor-parallel-size $TP $X &\n"
    )
    found = run("RCP012", {RECIPE: text}, base={})
    assert [(f.span.line, f.severity) for f in found] == [(3, "warning")]


def test_trtllm_and_yaml_recipes_are_not_judged() -> None:
    trt = "#!/usr/bin/env bash\ntrtllm-serve $MODEL --tp_size $TP --port $PORT &\n"
    assert run("RCP012", {RECIPE.replace(".sh", "_trt.sh"): trt}, base={}) == []


IMPORTED = (
    "#!/usr/bin/env bash\n"
    'SQUASH_FILE="/tmp/squash/$(echo "$IMAGE" | tr /: __).sqsh"\n'
    'srun bash -c "enroot import -o $SQUASH_FILE docker://$IMAGE"\n'
    "srun --container-image=$SQUASH_FILE bash run.sh\n"
)


def test_launcher_importing_its_image_is_clean() -> None:
    assert run("RCP013", {LAUNCHER: IMPORTED}, base={}) == []


def test_launcher_running_a_local_image_is_a_warning() -> None:
    text = IMPORTED.replace('srun bash -c "enroot import -o $SQUASH_FILE docker://$IMAGE"\n', "")
    (f,) = run("RCP013", {LAUNCHER: text}, base={LAUNCHER: IMPORTED})
    assert (f.path, f.span.line, f.severity) == (LAUNCHER, 2, "warning")


def test_import_that_is_commented_out_or_not_from_docker_does_not_count() -> None:
    commented = IMPORTED.replace('srun bash -c "enroot', '# srun bash -c "enroot')
    assert len(run("RCP013", {LAUNCHER: commented}, base={})) == 1
    local = IMPORTED.replace("docker://$IMAGE", "/shared/images/sglang.tar")
    assert len(run("RCP013", {LAUNCHER: local}, base={})) == 1


def test_only_changed_launchers_matching_the_knowledge_globs() -> None:
    bare = "#!/usr/bin/env bash\nsrun --container-image=/shared/x.sqsh bash run.sh\n"
    # not a runner launcher by the knowledge globs
    assert run("RCP013", {"runners/slurm_utils.sh": bare}, base={}) == []
    # unchanged: nothing to review
    assert run("RCP013", {LAUNCHER: bare, RECIPE: SPLIT}, base={LAUNCHER: bare}) == []
    # deleted: nothing to review
    assert run("RCP013", {RECIPE: SPLIT}, base={LAUNCHER: bare}) == []
