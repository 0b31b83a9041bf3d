"""CHL006: a pr-link correction of a merged entry shares a change with new entries."""

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
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX
"""

_NEW = """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
"""

_BASE = _FIRST + "\n" + _SECOND

RULE = Rule(
    id="CHL006",
    slug="pr-link-correction-mixed-with-new-entries",
    severity=ERROR,
    target="changelog",
    title=T(
        en="pr-link correction mixed with new changelog entries",
        zh="pr-link 修正与新的 changelog 条目混在一起",
    ),
    message=T(
        en="pr-link correction of the merged entry for `{keys}` shares this change with {count} new entries",
        zh="对 `{keys}` 已合并条目的 pr-link 修正与 {count} 个新条目放在了同一次变更中",
    ),
    fix=T(
        en="Move the pr-link correction into a pull request of its own",
        zh="把 pr-link 修正移到单独的 PR 中",
    ),
    rationale=T(
        en=(
            "A pr-link-only correction is the one edit the repository allows to a merged "
            "changelog entry, and it must travel alone: `compare_entries` in "
            "`utils/validate_perf_changelog.py` refuses a change that both corrects history "
            "and appends entries (`do not mix historical pr-link corrections with new "
            "changelog entries`). The two are validated differently (a correction keeps "
            "every line count and byte except the `pr-link:` line; an addition keeps the "
            "whole base as a prefix), a correction triggers no sweep while new entries do, "
            "and the merge helper that canonicalises a new entry's placeholder link cannot "
            "tell the corrected link from one it should rewrite."
        ),
        zh=(
            "只修正 pr-link 是仓库对已合并 changelog 条目唯一允许的修改，而且必须单独提交："
            "`utils/validate_perf_changelog.py` 中的 `compare_entries` 会拒绝既修正历史又"
            "追加条目的变更（`do not mix historical pr-link corrections with new changelog "
            "entries`）。两者的校验方式不同（修正要求除 `pr-link:` 行外行数和字节都不变；"
            "追加要求整个基线文件保持为前缀），修正不会触发扫描而新条目会，而且为新条目替换"
            "占位链接的合并辅助脚本无法区分被修正的链接和它应改写的链接。"
        ),
    ),
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "\n" + _SECOND.replace("/pull/XXX\n", "/pull/2418  # [CHL006]\n") + _NEW,
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="fixing the placeholder left by #2418 while adding this PR's entry",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "\n" + _SECOND.replace("/pull/XXX", "/pull/2418"),
            pr=2431,
            base={"perf-changelog.yaml": _BASE},
            note="the same correction in a pull request of its own",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _NEW,
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
        ),
    ),
)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    diff = base_diff(changelog, ctx)
    if diff is None or not diff.new:
        return
    for edit in diff.corrections:
        yield RULE.hit(
            changelog.path,
            Span(edit.line),
            f"correction {edit.after.raw}",
            keys=keys_text(edit.after),
            count=len(diff.new),
        )
