"""CHL005: merged changelog entries were deleted."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, Span, T
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

_THIRD = """\
- config-keys:
    - dsv4-fp4-b200-sglang-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Raise the DEP8 arm to concurrency 64"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2420
"""

_NEW = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
"""

RULE = Rule(
    id="CHL005",
    slug="historical-changelog-entry-deleted",
    severity=ERROR,
    conditions={
        "adds-none": Condition(
            WARNING,
            T(
                en="the change adds no entry, as a revert that removes the entry of the change "
                "it reverts does",
                zh="本次变更没有新增条目，与删除被回退变更条目的回退一致",
            ),
        ),
    },
    target="changelog",
    title=T(
        en="Merged changelog entry was deleted",
        zh="已合并的 changelog 条目被删除",
    ),
    message=T(
        en="Merged entry for `{keys}` ({link}) was deleted",
        zh="`{keys}` 的已合并条目（{link}）被删除",
    ),
    fix=T(
        en="Take the base branch's `perf-changelog.yaml` byte for byte and append only this change's entries",
        zh="逐字节采用基线分支的 `perf-changelog.yaml`，只在末尾追加本次变更的条目",
    ),
    rationale=T(
        en=(
            "`perf-changelog.yaml` never loses an entry: each one is the record of a merged "
            "benchmark change that published results point back to. The CI "
            "check `check-changelog` rejects any deleted line (`Deletions are not allowed`), "
            "and `compare_entries` in `utils/validate_perf_changelog.py` refuses a head with "
            "fewer entries. Most deletions are accidental: a branch that is behind main shows "
            "main's newer entries as deleted, and a three-way merge of the file can drop "
            "lines. The repository's repair (`KLAUD_DEBUG.md` §1.1) is to take main's file "
            "verbatim and append only this pull request's entry. Moving merged entries "
            "(sorting the file) deletes their lines and adds them again elsewhere, which the "
            "same check rejects; a reordered history is one finding, and a moved entry is "
            "neither new nor deleted. The one deletion the maintainers merge is a revert's: "
            "every revert on InferenceX's main (#1536, #1563, #2164, #2227 and more) removes "
            "the entry of the change it reverts and adds none, so a deletion in a change that "
            "adds no entry is a warning."
        ),
        zh=(
            "`perf-changelog.yaml` 从不删除条目：每个条目都是某次已合并基准变更的记录，"
            "已发布的结果都指向它。CI 检查 `check-changelog` 会拒绝任何删除行（`Deletions are not "
            "allowed`），`utils/validate_perf_changelog.py` 中的 `compare_entries` 也会拒绝"
            "条目数变少的版本。大多数删除是无意的：落后于 main 的分支会把 main 新增的条目"
            "显示为已删除，对该文件做三方合并也可能丢行。仓库的修复方法（`KLAUD_DEBUG.md` "
            "§1.1）是逐字采用 main 的文件，再只追加本 PR 的条目。移动已合并条目（例如给文件排序）"
            "等于删除这些行再在别处重新添加，同样会被该检查拒绝；重排的历史只报告一次，被移动的"
            "条目既不算新增也不算删除。维护者合并的唯一一种删除是回退：InferenceX main 上的"
            "每次回退（#1536、#1563、#2164、#2227 等）都删除被回退变更的条目且不新增条目，"
            "因此在不新增条目的变更中出现的删除报告为警告。"
        ),
    ),
    variants={
        "many": T(
            en="{count} merged entries were deleted here, the first for `{keys}` ({link})",
            zh="此处删除了 {count} 个已合并条目，第一个是 `{keys}` 的条目（{link}）",
        ),
        "no_link": T(
            en="Merged entry for `{keys}` (without a `pr-link`) was deleted",
            zh="`{keys}` 的已合并条目（没有 `pr-link`）被删除",
        ),
        "moved": T(
            en="Merged entry for `{keys}` ({link}) was moved from line {was} of the base: "
            "merged history keeps its order",
            zh="`{keys}` 的已合并条目（{link}）从 base 的第 {was} 行被移到此处：已合并的历史"
            "须保持原有顺序",
        ),
        "many_moved": T(
            en="{count} merged entries were moved, the first for `{keys}` ({link}) from line "
            "{was} of the base: merged history keeps its order",
            zh="{count} 个已合并条目被移动，第一个是 `{keys}` 的条目（{link}），原在 base 的"
            "第 {was} 行：已合并的历史须保持原有顺序",
        ),
        "moved_no_link": T(
            en="Merged entry for `{keys}` (without a `pr-link`) was moved from line {was} of the "
            "base: merged history keeps its order",
            zh="`{keys}` 的已合并条目（没有 `pr-link`）从 base 的第 {was} 行被移到此处：已合并的"
            "历史须保持原有顺序",
        ),
        "many_moved_no_link": T(
            en="{count} merged entries were moved, the first for `{keys}` (without a `pr-link`) "
            "from line {was} of the base: merged history keeps its order",
            zh="{count} 个已合并条目被移动，第一个是 `{keys}` 的条目（没有 `pr-link`），原在 "
            "base 的第 {was} 行：已合并的历史须保持原有顺序",
        ),
        "many_no_link": T(
            en="{count} merged entries were deleted here, the first for `{keys}` (without a "
            "`pr-link`)",
            zh="此处删除了 {count} 个已合并条目，第一个是 `{keys}` 的条目（没有 `pr-link`）",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST + "\n" + _THIRD.replace("- config-keys:\n", "- config-keys:  # [CHL005]\n"),
            pr=2431,
            base={"perf-changelog.yaml": _FIRST + "\n" + _SECOND + "\n" + _THIRD},
            note="a revert removing the entry of what it reverts: a warning (the change adds none)",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_FIRST
            + "\n"
            + _NEW.replace(
                "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423\n",
                "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423  # [CHL005]\n",
            ),
            pr=2423,
            base={"perf-changelog.yaml": _FIRST + "\n" + _SECOND + "\n" + _THIRD},
            note="a branch behind main: the two entries main gained since look deleted",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_SECOND.replace("- config-keys:\n", "- config-keys:  # [CHL005]\n")
            + "\n"
            + _FIRST
            + "\n"
            + _THIRD,
            pr=2431,
            base={"perf-changelog.yaml": _FIRST + "\n" + _SECOND + "\n" + _THIRD},
            note="a history reordered: moved entries are neither new nor deleted (InferenceX #1161)",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_FIRST
            + "\n"
            + _SECOND
            + "\n"
            + _THIRD
            + "\n"
            + _NEW.replace("Add the EAGLE3", "Revert #2420; add the EAGLE3"),
            pr=2423,
            base={"perf-changelog.yaml": _FIRST + "\n" + _SECOND + "\n" + _THIRD},
        ),
    ),
)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    diff = base_diff(changelog, ctx)
    if diff is None:
        return
    if diff.moved:
        # a reordered history: one finding, where the first moved entry now stands
        moved = diff.moved[0]
        count = len(diff.moved)
        link = moved.before.get("pr-link")
        variant = "many_moved" if count > 1 else "moved"
        yield RULE.hit(
            changelog.path,
            Span(moved.after.start_line),
            "moved " + "\n".join(m.before.raw for m in diff.moved),
            variant=variant if link else f"{variant}_no_link",
            keys=keys_text(moved.after),
            link=str(link or ""),
            was=moved.before.start_line,
            count=count,
        )
    # a revert removes the entry of what it reverts and adds none (see the rationale)
    condition = "adds-none" if not diff.new and not diff.moved else None
    for deletion in diff.deletions:
        first = deletion.entries[0]
        link = first.get("pr-link")
        count = len(deletion.entries)
        yield RULE.hit(
            changelog.path,
            Span(deletion.anchor),
            "deleted " + "\n".join(e.raw for e in deletion.entries),
            variant=("many" if count > 1 else None)
            if link
            else ("many_no_link" if count > 1 else "no_link"),
            condition=condition,
            keys=keys_text(first),
            link=str(link or ""),
            count=count,
        )
