"""CHL004: a merged changelog entry was edited beyond a pr-link-only correction."""

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
    id="CHL004",
    slug="historical-changelog-entry-changed",
    severity=ERROR,
    target="changelog",
    title=T(
        en="Merged changelog entry was edited",
        zh="已合并的 changelog 条目被修改",
    ),
    message=T(
        en="Merged entry for `{keys}` was changed: `{key}` differs from the merged version",
        zh="`{keys}` 的已合并条目被修改：`{key}` 与合并时的版本不同",
    ),
    fix=T(
        en="Restore the entry as merged and describe the change in a new entry at the end of the file",
        zh="将该条目恢复为合并时的内容，并在文件末尾用新条目描述这次变更",
    ),
    rationale=T(
        en=(
            "Each entry of `perf-changelog.yaml` records what one merged pull request "
            "re-benchmarked and why; the results site and the sweep tooling trace published "
            "numbers back to it. The repository therefore treats merged entries as immutable "
            "(`docs/ci-procedures.md`; `compare_entries` and `validate_raw_change` in "
            "`utils/validate_perf_changelog.py`): the only edit allowed is a pr-link-only "
            "correction, which changes nothing but the `pr-link:` line. Editing an old "
            "entry's keys or description rewrites history without triggering a sweep, and "
            "the CI check `check-changelog` rejects the deleted lines. Reformatting an entry "
            "(quotes, indentation, trailing spaces) changes no value but still breaks the "
            "byte-for-byte history that the merge helper checks."
        ),
        zh=(
            "`perf-changelog.yaml` 的每个条目都记录了某个已合并 PR 重新测了什么、为什么测；"
            "结果网站和扫描工具依靠它把发布的数据追溯回去。因此仓库把已合并条目视为不可修改"
            "（`docs/ci-procedures.md`；`utils/validate_perf_changelog.py` 中的 "
            "`compare_entries` 与 `validate_raw_change`）：唯一允许的修改是只改 `pr-link:` "
            "这一行的链接修正。修改旧条目的键或描述等于改写历史，却不会触发扫描，CI 检查 "
            "`check-changelog` 也会因出现删除行而拒绝。重新排版条目（引号、缩进、行尾空格）"
            "虽不改变取值，仍会破坏合并辅助脚本逐字节检查的历史。"
        ),
    ),
    variants={
        "reformatted": T(
            en="Merged entry for `{keys}` was reformatted: same values, different bytes",
            zh="`{keys}` 的已合并条目被重新排版：取值相同，但字节不同",
        ),
    },
    variant_fixes={
        "reformatted": T(
            en="Restore the merged bytes of the entry",
            zh="恢复该条目合并时的原始字节",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST.replace(
                'Mooncake DRAM offload"\n',
                'Mooncake DRAM offload; EAGLE3 MTP variant in #2423"  # [CHL004]\n',
            )
            + "\n"
            + _SECOND
            + _NEW,
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="the new entry's author also edited the description of the entry it builds on",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_FIRST.replace(
                "    - minimaxm3-fp8-h100-vllm-agentic\n",
                "    - 'minimaxm3-fp8-h100-vllm-agentic'  # [CHL004]\n",
            )
            + "\n"
            + _SECOND,
            pr=2431,
            base={"perf-changelog.yaml": _BASE},
            note="quoting a key changes no value, but the merged bytes",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "\n" + _SECOND.replace("/pull/XXX", "/pull/2418"),
            pr=2431,
            base={"perf-changelog.yaml": _BASE},
            note="a pr-link-only correction of a merged entry",
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
    if diff is None:
        return
    for edit in diff.edits:
        if edit.kind not in ("changed", "reformatted"):
            continue
        variant = "reformatted" if edit.kind == "reformatted" else None
        yield RULE.hit(
            changelog.path,
            Span(edit.line),
            f"{edit.kind} {edit.before.raw}",
            variant=variant,
            keys=keys_text(edit.after),
            key=edit.key or "?",
        )
