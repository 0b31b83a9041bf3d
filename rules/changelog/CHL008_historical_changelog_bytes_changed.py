"""CHL008: blank lines, spaces or comments of the merged changelog history changed."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, Span, T
from bot.parse.changelog import Changelog
from bot.parse.changelog_diff import base_diff, history_hunks

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

_NEW = """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
"""

# the file InferenceX #1821 added with the byte contract: a base that has it is one the
# contract is in force in (`knowledge.practices.changelog-bytes`)
_BYTES = {"utils/validate_perf_changelog.py": "def validate_raw_change(base, head): ...\n"}

RULE = Rule(
    id="CHL008",
    slug="historical-changelog-bytes-changed",
    severity=ERROR,
    conditions={
        "whitespace-beside-entry": Condition(
            WARNING,
            T(
                en="only whitespace of the history changes, alongside a new entry",
                zh="只改动了历史中的空白，且同时新增了条目",
            ),
        ),
    },
    target="changelog",
    title=T(
        en="Merged changelog history changed outside its entries",
        zh="已合并的 changelog 历史在条目之外被修改",
    ),
    message=T(
        en="Blank lines or spaces of the merged history were changed",
        zh="已合并历史中的空行或空格被修改",
    ),
    fix=T(
        en="Restore these lines byte for byte from the base branch",
        zh="从基线分支逐字节恢复这些行",
    ),
    rationale=T(
        en=(
            "`perf-changelog.yaml` history is immutable byte for byte, whitespace included "
            "(`docs/ci-procedures.md`: never run a formatter over it; `validate_raw_change` "
            "in `utils/validate_perf_changelog.py`). Editors and naive rebases strip the "
            "trailing spaces of blank lines or collapse empty lines between old entries; "
            "the next stale branch then sees those lines as deleted (`KLAUD_DEBUG.md` §1.1). "
            "The CI check `check-changelog` tolerates a whitespace-only edit that comes with "
            "a new entry, so that case is a warning; removing a comment or other text, or a "
            "change that consists of nothing but such edits, fails `check-changelog` and is "
            "an error."
        ),
        zh=(
            "`perf-changelog.yaml` 的历史必须逐字节保持不变，空白也不例外（"
            "`docs/ci-procedures.md`：不要对它运行格式化工具；`utils/validate_perf_changelog.py` "
            "中的 `validate_raw_change`）。编辑器和草率的 rebase 会删掉空行里的行尾空格，或"
            "合并旧条目之间的空行；之后的过时分支就会把这些行视为被删除（`KLAUD_DEBUG.md` "
            "§1.1）。CI 检查 `check-changelog` 容许随新条目一起提交的纯空白修改，因此这种"
            "情况是警告；删除注释或其他文字，或者整个变更只有这类修改，会让 "
            "`check-changelog` 失败，属于错误。"
        ),
    ),
    variants={
        "text": T(
            en="Text between merged entries was changed or removed",
            zh="已合并条目之间的文字被修改或删除",
        ),
        "only": T(
            en="Change rewrites the merged history between entries and adds no entry",
            zh="本次变更改写了已合并条目之间的历史内容，却没有新增条目",
        ),
        "trailing": T(
            en="Change edits only comments or blank lines after the last entry, and adds no entry",
            zh="本次变更只改动了最后一个条目之后的注释或空行，没有新增条目",
        ),
    },
    variant_fixes={
        "only": T(
            en="Drop the edit to `perf-changelog.yaml`, or append an entry describing the benchmark change",
            zh="撤销对 `perf-changelog.yaml` 的修改，或追加一个描述基准变更的条目",
        ),
        "trailing": T(
            en="Drop the edit to `perf-changelog.yaml`, or append an entry describing the benchmark change",
            zh="撤销对 `perf-changelog.yaml` 的修改，或追加一个描述基准变更的条目",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "# superseded by #2418  # [CHL008]\n\n" + _SECOND,
            pr=2431,
            base={"perf-changelog.yaml": _FIRST + "\n" + _SECOND, **_BYTES},
            files=_BYTES,
            note="a comment added to the history, and nothing appended",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "\n" + _SECOND + "# will be reverted  # [CHL008]\n",
            pr=1114,
            base={"perf-changelog.yaml": _FIRST + "\n" + _SECOND, **_BYTES},
            files=_BYTES,
            note="a comment after the last entry, and nothing appended (InferenceX #1114)",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "# [CHL008]\n" + _SECOND + _NEW,
            pr=2423,
            base={"perf-changelog.yaml": _FIRST + "  \n\n" + _SECOND, **_BYTES},
            files=_BYTES,
            note="an editor stripped a line of two spaces between old entries (a warning)",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_FIRST
            + "\n"
            + _SECOND.replace("- config-keys:\n", "- config-keys:  # [CHL008]\n")
            + _NEW,
            pr=2423,
            base={
                "perf-changelog.yaml": _FIRST
                + "\n# H200 entries below were rerun on the new cluster\n"
                + _SECOND
            },
            note="a comment between old entries was deleted",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "  \n\n" + _SECOND + _NEW,
            pr=2423,
            base={"perf-changelog.yaml": _FIRST + "  \n\n" + _SECOND, **_BYTES},
            files=_BYTES,
            note="odd whitespace in the history stays as it was",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "\n" + _SECOND + _NEW,
            pr=697,
            base={"perf-changelog.yaml": _FIRST + "  \n\n" + _SECOND},
            note="the same stripped line beside a new entry on a base from before the byte "
            "contract (InferenceX #1821), whose check allowed deleting blank lines",
        ),
    ),
)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    diff = base_diff(changelog, ctx)
    if diff is None:
        return
    adds = bool(diff.new)
    lines = changelog.text.split("\n")
    last = changelog.entries[-1].end_line if changelog.entries else 0
    for hunk in history_hunks(diff):
        variant: str | None
        if hunk.text_removed:
            variant, condition = "text", None
        elif not adds:
            # below every entry nothing merged is rewritten: only something added
            variant, condition = ("trailing" if hunk.line > last else "only"), None
        else:
            variant, condition = None, "whitespace-beside-entry"
        # the line above the hunk and the hunk itself name the place, not its line number
        context = "\n".join(lines[max(0, hunk.line - 2) : hunk.end_line])
        end = hunk.end_line if hunk.end_line != hunk.line else None
        yield RULE.hit(
            changelog.path,
            Span(hunk.line, end_line=end),
            f"{variant or 'whitespace'} {context}",
            variant=variant,
            condition=condition,
            # whitespace beside a new entry breaks only the byte contract of InferenceX #1821;
            # before it the repository's check allowed deleting blank lines
            practice="changelog-bytes" if condition == "whitespace-beside-entry" else None,
        )
