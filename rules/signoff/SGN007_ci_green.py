"""SGN007: the `ci-green` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN007",
    slug="ci-green",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Sweep and evals",
        zh="扫描与评测",
    ),
    message=T(
        en="A commit in the PR has green benchmark and eval check runs",
        zh="本 PR 中有一个提交的基准与评测检查全部通过",
    ),
    rationale=T(
        en="Check runs are recognised by the job names of the base branch's `.github/workflows/run-sweep.yml` (single-node, agentic, multi-node and their evals; `canary /` excluded), or by the knowledge defaults when it is absent. Skipped runs do not count; a failed, cancelled or running one makes that commit not green.",
        zh="检查运行按基础分支 `.github/workflows/run-sweep.yml` 产生的作业名识别（单节点、agentic、多节点及其评测；不含 `canary /`），该文件不存在时使用知识库默认值。跳过的运行不计入；失败、取消或仍在运行的会使该提交不算通过。",
    ),
    variants={
        "green": T(
            en="`{sha_7}` has green {bench_label} ({count}) and {eval_label} ({count_2}) check runs",
            zh="`{sha_7}` 的 {bench_label}（{count} 个）与 {eval_label}（{count_2} 个）检查运行均已通过",
        ),
        "commits-unread": T(
            en="could not verify the sweep: the PR's commits were not available",
            zh="无法核实扫描：未能获取本 PR 的提交",
        ),
        "runs-unread": T(
            en="could not verify the sweep: the check runs of the PR's commits were not available",
            zh="无法核实扫描：未能获取本 PR 提交的检查运行",
        ),
        "not-green": T(
            en="No passing sweep/eval was found on any commit in this PR ({detail})",
            zh="本 PR 当前的任何提交上都没有通过的扫描/评测（{detail}）",
        ),
        "run-failed": T(
            en="`{sha_7}`: `{run}` {conclusion}",
            zh="`{sha_7}`：`{run}` 结论为 {conclusion}",
        ),
        "run-pending": T(
            en="`{sha_7}`: `{run}` still running",
            zh="`{sha_7}`：`{run}` 仍在运行",
        ),
        "runs-skipped": T(
            en="`{sha_7}`: every {jobs} run was skipped",
            zh="`{sha_7}`：所有 {jobs} 运行均被跳过",
        ),
        "no-run": T(
            en="`{sha_7}`: no {jobs} run",
            zh="`{sha_7}`：没有 {jobs} 运行",
        ),
        "no-runs": T(
            en="no {bench_label} or {eval_label} check runs on the PR's commits",
            zh="本 PR 的提交上没有 {bench_label} 或 {eval_label} 检查运行",
        ),
        "jobs-1": T(
            en="`{first}`",
            zh="`{first}`",
        ),
        "jobs-2": T(
            en="`{first}`/`{second}`",
            zh="`{first}`/`{second}`",
        ),
        "jobs-more": T(
            en="`{first}`/`{second}` (+{n})",
            zh="`{first}`/`{second}` (+{n})",
        ),
    },
)
