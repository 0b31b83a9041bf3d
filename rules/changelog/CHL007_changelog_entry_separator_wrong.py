"""CHL007: appended changelog entries are not separated by exactly one empty line."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import WARNING, Example, Finding, Rule, Span, T
from bot.parse.changelog import Changelog
from bot.parse.changelog_diff import base_diff, separators

_BASE = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add MiniMax-M3 MXFP8 AgentX on H100 with vLLM v0.27.1 and Mooncake DRAM offload"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412
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

_EVAL = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  description:
    - "Eval-only rerun of the EAGLE3 MTP variant with real verification"
  evals-only: true
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
"""


def _marked(entry: str) -> str:
    return entry.replace("- config-keys:\n", "- config-keys:  # [CHL007]\n", 1)


# the file InferenceX #1821 added with the byte contract: a base that has it is one the
# contract is in force in (`knowledge.practices.changelog-bytes`)
_BYTES = {"utils/validate_perf_changelog.py": "def validate_raw_change(base, head): ...\n"}

RULE = Rule(
    id="CHL007",
    slug="changelog-entry-separator-wrong",
    severity=WARNING,
    # the byte contract arrived with `utils/validate_perf_changelog.py` (InferenceX #1821);
    # before it the merge tooling read entries, not bytes (`knowledge.practices.changelog-bytes`)
    practice="changelog-bytes",
    target="changelog",
    title=T(
        en="Changelog entries not separated by one empty line",
        zh="changelog 条目之间不是恰好一个空行",
    ),
    message=T(
        en="New entry is not separated from the entry above by exactly one empty line",
        zh="新条目与上一条目之间不是恰好一个空行",
    ),
    fix=T(
        en="Leave exactly one empty line, with no spaces on it, above `- config-keys:`",
        zh="在 `- config-keys:` 上方保留恰好一个空行，且该行不含空格",
    ),
    rationale=T(
        en=(
            "The repository's byte contract for `perf-changelog.yaml` (`validate_raw_change` "
            "in `utils/validate_perf_changelog.py`, `docs/ci-procedures.md`) wants each new "
            "entry after exactly one empty line and the file to end with a single newline. "
            "The merge helper `utils/prepare_perf_changelog_merge.py`, which "
            "`utils/merge_with_reuse.sh` runs before merging, refuses a file that breaks "
            "it, and stray blank or space-only lines are what later stale branches and "
            "three-way merges trip over. The CI check `check-changelog` ignores whitespace, "
            "so this is a warning: fix it before the merge, not for the sweep."
        ),
        zh=(
            "仓库对 `perf-changelog.yaml` 的字节约定（`utils/validate_perf_changelog.py` 中的 "
            "`validate_raw_change`，`docs/ci-procedures.md`）要求每个新条目前恰好有一个空行，"
            "文件以单个换行符结尾。`utils/merge_with_reuse.sh` 在合并前运行的合并辅助脚本 "
            "`utils/prepare_perf_changelog_merge.py` 会拒绝不符合约定的文件，而多余的空行或"
            "只含空格的行正是之后的过时分支和三方合并容易出错的地方。CI 检查 "
            "`check-changelog` 忽略空白，因此这里是警告：需在合并前修复，但不影响扫描。"
        ),
    ),
    variants={
        "between": T(
            en="New entries are not separated from each other by exactly one empty line",
            zh="新条目彼此之间不是恰好一个空行",
        ),
        "end": T(
            en="Changelog ends with empty lines after the last entry",
            zh="changelog 最后一个条目之后还有空行",
        ),
    },
    variant_fixes={
        "end": T(
            en="End the file with a single newline after the last entry",
            zh="在最后一个条目后只保留一个换行符作为文件结尾",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _marked(_NEW),
            pr=2423,
            base={"perf-changelog.yaml": _BASE, **_BYTES},
            files=_BYTES,
            note="no empty line above the new entry",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + "\n" + _NEW + "\n\n" + _marked(_EVAL),
            pr=2423,
            base={"perf-changelog.yaml": _BASE, **_BYTES},
            files=_BYTES,
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + "  \n" + _marked(_NEW),
            pr=2423,
            base={"perf-changelog.yaml": _BASE, **_BYTES},
            files=_BYTES,
            note="the line above holds two spaces: it looks empty, but is not",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + "\n" + _NEW + "# [CHL007]\n",
            pr=2423,
            base={"perf-changelog.yaml": _BASE, **_BYTES},
            files=_BYTES,
            note="an empty line after the last entry",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _NEW,
            pr=1100,
            base={"perf-changelog.yaml": _BASE},
            note="a base from before the byte contract (InferenceX #1821): separators were free",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + "\n" + _NEW + "\n" + _EVAL,
            pr=2423,
            base={"perf-changelog.yaml": _BASE, **_BYTES},
            files=_BYTES,
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + "\n" + _NEW,
            pr=2423,
            base={"perf-changelog.yaml": _BASE + "\n", **_BYTES},
            files=_BYTES,
            note="the base already ends with an empty line: the entry follows it directly",
        ),
    ),
)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    diff = base_diff(changelog, ctx)
    if diff is None:
        return
    for sep in separators(diff):
        variant = None if sep.where == "first" else sep.where
        below = sep.entry.raw if sep.entry is not None else ""
        yield RULE.hit(changelog.path, Span(sep.line), f"{sep.where} {below}", variant=variant)
