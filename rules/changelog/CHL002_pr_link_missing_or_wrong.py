"""CHL002: a changelog entry's `pr-link` is missing, a placeholder, malformed, or another PR's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bot.core.context import RuleContext
from bot.core.model import (
    ERROR,
    SAFE,
    WARNING,
    Applicability,
    Condition,
    Example,
    Finding,
    Rule,
    Span,
    T,
)
from bot.parse.changelog import Change, Changelog, entry_changes
from bot.parse.changelog_diff import base_changelog, entries_in_scope

DEFAULT_PREFIX = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
KEY = "pr-link"

_BASE = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add MiniMax-M3 MXFP8 AgentX on H100 with vLLM v0.27.1 and Mooncake DRAM offload"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412
"""

_OLD_NAME = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm
  description:
    - "Add MiniMax-M3 MXFP8 on H100 with vLLM v0.27.1"
  pr-link: https://github.com/InferenceMAX/InferenceMAX/pull/2398
"""

_NEW = """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
    - "Synthetic acceptance pinned to golden AL 2.83 (minimaxm3_eagle3.yaml, thinking_on, K=3)"
"""

# the changelog's first weeks linked each pull request from a `PR:` line of a `description`
# block (InferenceX #319, #330); #343 moved the links into a `pr-link` key
_NO_PR_LINK_KEY = """\
- config-keys:
    - dsr1-fp4-b200-sglang
  description: |
    - Update the SGLang image for DeepSeek-R1 FP4 on B200
    PR: https://github.com/InferenceMAX/InferenceMAX/pull/318
"""

RULE = Rule(
    id="CHL002",
    slug="pr-link-missing-or-wrong",
    severity=ERROR,
    # a base whose entries have no `pr-link` key (before InferenceX #343) predates the rule
    # (`knowledge.practices.changelog-pr-link`)
    practice="changelog-pr-link",
    conditions={
        "merged": Condition(
            WARNING,
            T(
                en="the entry is already merged history (not added by the change)",
                zh="该条目已是合并的历史（不是本次变更添加的）",
            ),
        ),
    },
    target="changelog",
    title=T(
        en="Changelog `pr-link` is missing or wrong",
        zh="changelog 的 `pr-link` 缺失或有误",
    ),
    message=T(
        en="`pr-link` `{link}` is not a pull request URL of the form `{prefix}<N>`",
        zh="`pr-link` `{link}` 不是 `{prefix}<N>` 形式的 PR 链接",
    ),
    fix=T(
        en="Set `pr-link` to `{expected}`",
        zh="将 `pr-link` 设为 `{expected}`",
    ),
    applicability=Applicability(
        SAFE,
        T(
            en=(
                "Only the `pr-link` line changes: it is set to the URL of the pull request "
                "the entry belongs to, or a malformed link is cut back to its pull request "
                "number. Nothing the sweep runs or measures reads it."
            ),
            zh=(
                "只改动 `pr-link` 这一行：设为该条目所属 PR 的 URL，"
                "或把格式错误的链接截回其 PR 编号。扫描任务运行和测量的内容都不读取它。"
            ),
        ),
    ),
    rationale=T(
        en=(
            "Every changelog entry links the pull request that added it: the results site "
            "and the sweep tooling use the link to trace a benchmark change back to its "
            "review. A new entry may carry the placeholder `XXX` or `.../pull/XXX` while its "
            "pull request is open (the merge tooling replaces it), and "
            "`utils/validate_perf_changelog.py` accepts nothing else but the exact URL of "
            "that pull request; `TBD`, a `/changes` or `/files` suffix, or the number of "
            "another pull request (often copied from the entry above) are errors. Merged "
            "entries are immutable except for pr-link-only corrections, so a merged entry "
            "that still lacks its link is reported as a warning and fixed in a change that "
            "touches only its `pr-link` line. A repository that was renamed links its "
            "pull requests under its old name until its entries are migrated (GitHub "
            "redirects them): where the base's newest merged entry links under another "
            "`https://github.com/<owner>/<repo>/pull/` prefix, a link under that prefix is "
            "accepted too (InferenceX was `InferenceMAX/InferenceMAX` until 2026-02-16)."
        ),
        zh=(
            "每个 changelog 条目都要链接添加它的 PR：结果网站与扫描工具依靠该链接把基准"
            "变化追溯到对应的评审。新条目在其 PR 未合并期间可以使用占位符 `XXX` 或 "
            "`.../pull/XXX`（合并工具会替换它），除此之外 `utils/validate_perf_changelog.py` "
            "只接受该 PR 的准确 URL；`TBD`、`/changes` 或 `/files` 后缀，以及其他 PR 的编号"
            "（常从上一条目复制而来）都是错误。已合并条目除修正 pr-link 外不可修改，因此"
            "仍缺少链接的已合并条目以警告报告，并通过只改动其 `pr-link` 行的变更修复。"
            "改过名的仓库在条目迁移之前仍以旧名链接其 PR（GitHub 会重定向）：若基线中最新的"
            "已合并条目使用另一个 `https://github.com/<owner>/<repo>/pull/` 前缀，该前缀下的"
            "链接同样接受（InferenceX 在 2026-02-16 之前名为 `InferenceMAX/InferenceMAX`）。"
        ),
    ),
    variants={
        "missing": T(
            en="Entry has no `pr-link`",
            zh="条目缺少 `pr-link`",
        ),
        "placeholder": T(
            en="`pr-link` is still the placeholder `{link}`, accepted only on a new entry while its pull request is open",
            zh="`pr-link` 仍是占位符 `{link}`，占位符仅在新条目所属 PR 未合并期间可用",
        ),
        "other-pr": T(
            en="`pr-link` points to pull request #{linked}, not to this one (#{pr})",
            zh="`pr-link` 指向 PR #{linked}，而不是本 PR（#{pr}）",
        ),
        "merged-missing": T(
            en="Merged entry still lacks its `pr-link`",
            zh="已合并条目仍缺少 `pr-link`",
        ),
        "merged-placeholder": T(
            en="Merged entry still carries the placeholder `pr-link` `{link}`",
            zh="已合并条目的 `pr-link` 仍是占位符 `{link}`",
        ),
        "merged-malformed": T(
            en="Merged entry's `pr-link` `{link}` is not of the form `{prefix}<N>`",
            zh="已合并条目的 `pr-link` `{link}` 不是 `{prefix}<N>` 形式",
        ),
    },
    variant_fixes={
        "missing": T(
            en="Add `pr-link: {expected}` to the entry",
            zh="在条目中添加 `pr-link: {expected}`",
        ),
        "merged-missing": T(
            en="In a pr-link-only change, set `pr-link: {expected}` with the number of the pull request that added the entry",
            zh="通过只修改 pr-link 的变更设置 `pr-link: {expected}`，其中编号为添加该条目的 PR",
        ),
        "merged-placeholder": T(
            en="In a pr-link-only change, set `pr-link: {expected}` with the number of the pull request that added the entry",
            zh="通过只修改 pr-link 的变更设置 `pr-link: {expected}`，其中编号为添加该条目的 PR",
        ),
        "merged-malformed": T(
            en="In a pr-link-only change, set `pr-link: {expected}`",
            zh="通过只修改 pr-link 的变更设置 `pr-link: {expected}`",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _NEW.rstrip("\n") + "  # [CHL002]\n",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="the seed case (#2423): the new entry was pushed without its `pr-link`",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + _NEW
            + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412  # [CHL002]\n",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="the link was copied from the entry above",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + _NEW
            + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423/changes  # [CHL002]\n",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _NEW + "  pr-link: TBD  # [CHL002]\n",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + _NEW
            + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX  # [CHL002]\n",
            base={"perf-changelog.yaml": _BASE},
            note="pushed to the main branch with the placeholder: no open pull request replaces it",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_OLD_NAME
            + "\n"
            + _BASE
            + _NEW
            + "  pr-link: https://github.com/InferenceMAX/InferenceMAX/pull/2423  # [CHL002]\n",
            pr=2423,
            base={"perf-changelog.yaml": _OLD_NAME + "\n" + _BASE},
            note="the base's newest entry links under the repository's current name",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _NEW + "  pr-link: XXX  # [CHL002]\n",
            note="whole-tree lint: a merged entry without its link is a warning",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + _NEW
            + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="the placeholder is accepted while the pull request is open",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + _NEW
            + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423\n",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + _NEW
            + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423\n",
            pr=2471,
            base={
                "perf-changelog.yaml": _BASE
                + _NEW
                + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
            },
            note="a pr-link-only correction of a merged entry names the pull request that added it",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_OLD_NAME
            + _NEW
            + "  pr-link: https://github.com/InferenceMAX/InferenceMAX/pull/2423\n",
            pr=2423,
            base={"perf-changelog.yaml": _OLD_NAME},
            note="a base from before the repository's rename links under its old name",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_NO_PR_LINK_KEY
            + _NO_PR_LINK_KEY.replace("318", "330")
            .replace("DeepSeek-R1 FP4 on B200", "MI355X")
            .replace("b200", "mi355x"),
            pr=330,
            base={"perf-changelog.yaml": _NO_PR_LINK_KEY},
            note="a base whose entries link their pull request without a `pr-link` key (#330)",
        ),
    ),
)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    prefix = ctx.pr_link_prefix(DEFAULT_PREFIX)
    base = None
    if ctx.base is not None:
        base = base_changelog(ctx, changelog.path)
    prefixes = _prefixes(prefix, base)
    pr: int | None = ctx.pr
    # Without a base or a pull request, every entry is merged history.
    merged = ctx.base is None and pr is None
    lines = changelog.text.split("\n")
    changes = entry_changes(changelog, base)
    pull = ctx.change
    if pull is not None:
        changes = entries_in_scope(changes, base, lambda n: pull.touches_line(changelog.path, n))
    for change in changes:
        finding = _check(change, prefixes, pr, merged, ctx.base is not None, changelog.path, lines)
        if finding is not None:
            yield finding


_GITHUB_PULL = re.compile(r"(https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/pull/)[1-9][0-9]*")


def _prefixes(prefix: str, base: Changelog | None) -> tuple[str, ...]:
    """The `pr-link` prefixes a change is held to: `prefix`, and the one the base's
    newest merged entry links under, when it differs. A renamed repository's base
    (InferenceX before its rename from InferenceMAX/InferenceMAX, whose template and
    entries then read `https://github.com/InferenceMAX/InferenceMAX/pull/`) links
    its pull requests under the old name; GitHub redirects those links."""
    if base is None:
        return (prefix,)
    for entry in reversed(base.entries):
        value = entry.get(KEY)
        m = _GITHUB_PULL.fullmatch(value) if isinstance(value, str) else None
        if m is not None:
            return (prefix,) if m.group(1) == prefix else (prefix, m.group(1))
    return (prefix,)


def _check(
    change: Change,
    prefixes: tuple[str, ...],
    pr: int | None,
    merged: bool,
    has_base: bool,
    path: str,
    lines: list[str],
) -> Finding | None:
    entry = change.entry
    value = entry.get(KEY)
    link = "" if value is None else str(value)
    prefix = prefixes[0]
    placeholders = {"XXX", *(p + "XXX" for p in prefixes)}
    canonical = None
    for accepted in prefixes:
        canonical = re.fullmatch(re.escape(accepted) + r"([1-9][0-9]*)", link)
        if canonical is not None:
            break
    # Only an entry this change adds is known to belong to pull request `pr`.
    own = pr is not None and has_base and change.is_new
    expected = f"{prefix}{pr}" if own else f"{prefix}<N>"

    variant: str | None
    if value is None or (isinstance(value, str) and not value.strip()):
        variant = "missing"
    elif isinstance(value, str) and link in placeholders:
        if pr is not None and change.is_new:
            return None
        variant = "placeholder"
    elif not isinstance(value, str) or canonical is None:
        variant = None
        salvage = re.match(re.escape(prefix) + r"([1-9][0-9]*)(?![0-9])", link)
        if not own and salvage is not None:
            expected = prefix + salvage.group(1)
    elif own and int(canonical.group(1)) != pr:
        variant = "other-pr"
    else:
        return None

    condition: str | None = None
    # a merged entry the change edits keeps the link it had: that link is history, not
    # this change's (InferenceX #1411 re-spaced an entry whose `pr-link` was still `XXX`);
    # `before` is the entry itself only where the base's text is unknown
    before = change.before
    inherited = before is not None and before is not entry and before.get(KEY) == value
    if merged or inherited:
        variant = f"merged-{variant or 'malformed'}"
        condition = "merged"
    subject = f"{KEY} {variant or 'malformed'} {link} {entry.label}"
    params: dict[str, Any] = {"link": link, "prefix": prefix, "expected": expected}
    if variant == "other-pr" and canonical is not None:
        params.update(linked=canonical.group(1), pr=pr)
    complete = "<N>" not in expected
    if not entry.has(KEY):  # add the line after the entry's last one
        line = entry.end_line
        span = Span(line)
        suggestion = None
        if complete and 0 < line <= len(lines):
            suggestion = lines[line - 1].rstrip("\r") + f"\n  {KEY}: {expected}"
    else:
        line, end = entry.line_of(KEY), entry.end_of(KEY)
        span = Span(line, end_line=end if end != line else None)
        suggestion = _replacement(lines, line, expected) if complete else None
    return RULE.hit(
        path, span, subject, variant=variant, condition=condition, suggestion=suggestion, **params
    )


def _replacement(lines: list[str], line: int, expected: str) -> str | None:
    """The `pr-link` line rewritten, when the key starts its own line."""
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    m = re.match(r"^(- |\s*)([\"']?)pr-link\2\s*:", text)
    if m is None:
        return None
    return f"{text[: m.end()]} {expected}"
