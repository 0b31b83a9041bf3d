"""CHL010: an `append-only` changelog entry shares a change with regular entries."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Rule, Span, T
from bot.parse.changelog import Changelog
from bot.parse.changelog_diff import base_diff, keys_text

_BASE = """\
- config-keys:
    - dsv4-fp4-b200-sglang-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add DeepSeek-V4-Pro FP4 B200 SGLang AgentX with EAGLE MTP and HiCache"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2402
"""

_APPEND = """
- config-keys:
    - dsv4-fp4-b200-sglang-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Append concurrency 48 and 64 to the DEP8 arm; every existing point is unchanged"
  append-only: true
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2430
"""

_REGULAR = """
- config-keys:
    - dsv4-fp4-b300-sglang-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Move the B300 arm to the same SGLang image"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2430
"""

RULE = Rule(
    id="CHL010",
    slug="append-only-mixed-with-regular-entries",
    severity=ERROR,
    target="changelog",
    title=T(
        en="Append-only entry mixed with regular changelog entries",
        zh="append-only 条目与普通 changelog 条目混在一起",
    ),
    message=T(
        en="`append-only: true` entry for `{keys}` shares this change with {count} regular entries",
        zh="`{keys}` 的 `append-only: true` 条目与 {count} 个普通条目放在了同一次变更中",
    ),
    fix=T(
        en="Split the append-only entry and the regular entries into separate pull requests",
        zh="把 append-only 条目和普通条目拆到不同的 PR 中",
    ),
    rationale=T(
        en=(
            "An `append-only: true` entry asks the sweep to run only the points a change "
            "adds and to append them to the latest published curve; the sweep setup "
            "(`utils/process_changelog.py`) checks that every existing generated point stays "
            "exactly as it was. A regular entry re-runs whole configs and replaces their "
            "curves. One sweep cannot do both, so the setup refuses the mix (`append-only "
            "entries cannot share a sweep with regular changelog entries`) and the CI check "
            "`check-changelog` fails; the sign-off check 12 requires the same. "
            "`append-only` combined with `evals-only`, `all-evals` or `eval-min-prefill-ep` "
            "in one entry is reported by CHL001."
        ),
        zh=(
            "`append-only: true` 条目要求扫描只运行变更新增的数据点，并把它们追加到最新发布"
            "的曲线上；扫描准备脚本（`utils/process_changelog.py`）会检查已有的生成数据点"
            "全部保持原样。普通条目则会重跑整个配置并替换其曲线。一次扫描无法同时做到两者，"
            "因此准备脚本会拒绝这种混合（`append-only entries cannot share a sweep with "
            "regular changelog entries`），CI 检查 `check-changelog` 失败；签核检查第 12 项"
            "也有同样要求。同一条目中 `append-only` 与 `evals-only`、`all-evals` 或 "
            "`eval-min-prefill-ep` 同时出现的情况由 CHL001 报告。"
        ),
    ),
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + _APPEND.replace("  append-only: true\n", "  append-only: true  # [CHL010]\n")
            + _REGULAR,
            pr=2430,
            base={"perf-changelog.yaml": _BASE},
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _APPEND,
            pr=2430,
            base={"perf-changelog.yaml": _BASE},
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _APPEND + _REGULAR.replace("/2430", "/2431"),
            pr=2431,
            base={"perf-changelog.yaml": _BASE + _APPEND},
            note="the regular entry in a later pull request; the base's append-only entry is history",
        ),
    ),
)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    diff = base_diff(changelog, ctx)
    if diff is None:
        return
    append_only = [e for e in diff.new if e.get("append-only") is True]
    regular = [e for e in diff.new if e.get("append-only") is not True]
    if not append_only or not regular:
        return
    for entry in append_only:
        yield RULE.hit(
            changelog.path,
            Span(entry.line_of("append-only")),
            f"append-only {entry.raw}",
            keys=keys_text(entry),
            count=len(regular),
        )
