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
    # the reviewer prompt's code-style section (InferenceX #647) is in force at the base
    style = {
        ".github/workflows/claude-pr-review.yml": "## Benchmark Script Code Style Guidelines:\n"
    }
    (f,) = run("RCP012", {RECIPE: ONE_LINE, **style}, base={RECIPE: SPLIT, **style})
    assert (f.severity, f.span.line) == ("warning", 2)
    # before it, several arguments per line were merged throughout
    assert run("RCP012", {RECIPE: ONE_LINE}, base={RECIPE: SPLIT}) == []
    assert "3 server arguments" in f.message.en and "3 个服务器参数" in f.message.zh
    assert "`sglang`" in f.message.en


IMPORTED = (
    "#!/usr/bin/env bash\n"
    'SQUASH_FILE="/tmp/squash/$(echo "$IMAGE" | tr /: __).sqsh"\n'
    'srun bash -c "enroot import -o $SQUASH_FILE docker://$IMAGE"\n'
    "srun --container-image=$SQUASH_FILE bash run.sh\n"
)
