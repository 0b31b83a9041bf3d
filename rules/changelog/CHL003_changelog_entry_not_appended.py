"""CHL003: a new changelog entry is inserted before merged entries instead of appended."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Rule, Span, T
from bot.parse.changelog import Changelog
from bot.parse.changelog_diff import base_diff, keys_text

_FIRST = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add MiniMax-M3 MXFP8 AgentX on H100 with vLLM v0.27.1 and Mooncake DRAM offload"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412
"""

_SECOND = """\
- config-keys:
    - minimaxm3-fp8-h200-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Move the MiniMax-M3 MXFP8 H200 AgentX sweep to vLLM v0.27.1"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2418
"""

_NEW = """\
- config-keys:  # [CHL003]
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
"""

_BASE = _FIRST + "\n" + _SECOND
# the line InferenceX #1067 added to `AGENTS.md` with the rule: a repository that has it
# is one the rule is in force in (`knowledge.practices.changelog-append-rule`)
_AGENTS = {
    "AGENTS.md": "- `perf-changelog.yaml` triggers which configs to benchmark\n"
    "  - **The file is read in chronological order: oldest at the top, newest at the "
    "bottom. New entries MUST be appended to the END of the file.**\n"
}

RULE = Rule(
    id="CHL003",
    slug="changelog-entry-not-appended",
    severity=ERROR,
    # the rule arrived with InferenceX #1067 ("appended to the END" in `AGENTS.md` and the
    # reviewer prompt); before it prepended entries were merged (#857, #919, #1041)
    practice="changelog-append-rule",
    target="changelog",
    title=T(
        en="Changelog entry is not appended at the end",
        zh="changelog 条目没有追加在末尾",
    ),
    message=T(
        en="New entry for `{keys}` is inserted before merged entries instead of appended at the end",
        zh="`{keys}` 的新条目插在了已合并条目之前，而不是追加在文件末尾",
    ),
    fix=T(
        en="Move the entry to the end of the file, after exactly one empty line",
        zh="把该条目移到文件末尾，与上一条目之间空一行",
    ),
    rationale=T(
        en=(
            "`perf-changelog.yaml` is an append-only, chronological log: the repository's "
            "contract (`docs/ci-procedures.md`, and `validate_raw_change` in "
            "`utils/validate_perf_changelog.py`, which the merge helper "
            "`utils/prepare_perf_changelog_merge.py` runs before every reuse merge) requires "
            "the base file to stay a byte-for-byte prefix of the new one. An entry placed "
            "between merged entries breaks that prefix, so the merge helper refuses it, and "
            "it puts a new sweep trigger in the middle of history where readers of the log do "
            "not look for it. This usually happens when a stale branch is merged: the entry "
            "was last in the branch's copy, and main gained entries after it. The CI check "
            "`check-changelog` only reads added lines and lets such an insertion through."
        ),
        zh=(
            "`perf-changelog.yaml` 是只追加、按时间排序的日志：仓库的约定（"
            "`docs/ci-procedures.md`，以及 `utils/validate_perf_changelog.py` 中的 "
            "`validate_raw_change`，合并辅助脚本 `utils/prepare_perf_changelog_merge.py` "
            "在每次复用合并前都会运行它）要求基线文件逐字节保持为新文件的前缀。插在已合并"
            "条目之间的条目破坏了这一前缀，合并辅助脚本会拒绝它；它还把新的扫描触发项放进"
            "了历史中间，阅读日志的人不会去那里找。这通常发生在合并过时分支时：该条目在分支"
            "的副本里位于末尾，而 main 之后又追加了条目。CI 检查 `check-changelog` 只读取新增"
            "的行，会放过这种插入。"
        ),
    ),
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "\n" + _NEW + "\n" + _SECOND,
            pr=2423,
            files=_AGENTS,
            base={"perf-changelog.yaml": _BASE, **_AGENTS},
            note="a stale branch: the entry was last in the branch, main appended #2418 since",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_NEW + "\n" + _BASE,
            pr=2423,
            files=_AGENTS,
            base={"perf-changelog.yaml": _BASE, **_AGENTS},
            note="prepended",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE + "\n" + _NEW.replace("  # [CHL003]", ""),
            pr=2423,
            files=_AGENTS,
            base={"perf-changelog.yaml": _BASE, **_AGENTS},
        ),
        Example(
            path="perf-changelog.yaml",
            text=_NEW.replace("  # [CHL003]", "") + "\n" + _BASE,
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="prepended on a base that predates the append rule (InferenceX #1067)",
        ),
    ),
)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    diff = base_diff(changelog, ctx)
    if diff is None:
        return
    for entry in diff.inserted:
        keys = keys_text(entry)
        # the whole entry: a diff may place the insertion a few identical lines lower
        end = entry.end_line if entry.end_line > entry.start_line else None
        span = Span(entry.start_line, end_line=end)
        yield RULE.hit(changelog.path, span, f"inserted {entry.raw}", keys=keys)
