"""CHL001: a changelog entry does not match `schemas/changelog-entry.schema.json`."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from bot.base.fastschema import QuickSchema
from bot.core.config import load_schema
from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Rule, Span, T
from bot.parse.changelog import Changelog, Entry, entry_changes
from bot.parse.changelog_diff import base_changelog, entries_in_scope
from bot.parse.pydantic_models import ModelTable, declares
from bot.parse.schema_errors import backticked, problems, types_text

if TYPE_CHECKING:
    import jsonschema

SCHEMA_NAME = "changelog-entry.schema.json"
# CHL002 owns `pr-link`: a missing or empty link is reported once, there.
OWNED_ELSEWHERE = frozenset({"pr-link"})

_BASE = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add MiniMax-M3 MXFP8 AgentX on H100 with vLLM v0.27.1 and Mooncake DRAM offload"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412
"""

RULE = Rule(
    id="CHL001",
    slug="changelog-entry-violates-schema",
    severity=ERROR,
    target="changelog",
    title=T(
        en="Changelog entry does not match the schema",
        zh="changelog 条目不符合 schema",
    ),
    message=T(
        en="`{key}` does not match the changelog entry schema: {detail}",
        zh="`{key}` 不符合 changelog 条目的 schema：{detail}",
    ),
    fix=None,
    rationale=T(
        en=(
            "The sweep setup validates every entry of `perf-changelog.yaml` with the "
            "repository's `ChangelogEntry` model and refuses the whole file when one entry "
            "lacks `config-keys` or `description`, has an empty list, a value of the wrong "
            "type, or a key the model does not know. A typo such as `scenario_type` or an "
            "unquoted description line containing `: ` (which YAML reads as a mapping) "
            "therefore fails the PR's sweep instead of being ignored. The schema is "
            "`schemas/changelog-entry.schema.json`; `pr-link` is checked by CHL002. A key, "
            "a value or an optional key that the linted tree's own model declares "
            "(`knowledge.changelog_validator`, read statically) is not reported: a PR that "
            "adds a field to `ChangelogEntry` and uses it is judged by the model it brings."
        ),
        zh=(
            "扫描任务会用仓库的 `ChangelogEntry` 模型校验 `perf-changelog.yaml` 的每个条目，"
            "只要有一个条目缺少 `config-keys` 或 `description`、列表为空、值的类型不对，"
            "或含有模型不认识的键，整个文件就会被拒绝。因此像 `scenario_type` 这样的拼写"
            "错误，或含有 `: ` 却未加引号的描述行（YAML 会将其读作映射），会导致 PR 的扫描"
            "失败，而不是被忽略。schema 见 `schemas/changelog-entry.schema.json`；"
            "`pr-link` 由 CHL002 检查。被检查的树中仓库自己的模型（`knowledge.changelog_validator`，"
            "静态读取）声明的键、取值或可选键不报告：为 `ChangelogEntry` 新增字段并使用它的 PR "
            "按它带来的模型判断。"
        ),
    ),
    variants={
        "missing": T(
            en="Entry lacks the required key `{key}`",
            zh="条目缺少必填键 `{key}`",
        ),
        "unknown": T(
            en="Unknown key `{key}` in a changelog entry",
            zh="changelog 条目中有未知的键 `{key}`",
        ),
        "not-mapping": T(
            en="Entry is of type `{actual}`, not a mapping of keys",
            zh="条目的类型是 `{actual}`，而不是键值映射",
        ),
        "type": T(
            en="`{key}` must be of type `{expected}`, not `{actual}`",
            zh="`{key}` 的类型应为 `{expected}`，而不是 `{actual}`",
        ),
        "item-type": T(
            en="Item {item} of `{key}` must be of type `{expected}`, not `{actual}`",
            zh="`{key}` 的第 {item} 项的类型应为 `{expected}`，而不是 `{actual}`",
        ),
        "empty-list": T(
            en="`{key}` is an empty list",
            zh="`{key}` 是空列表",
        ),
        "empty-item": T(
            en="Item {item} of `{key}` is an empty string",
            zh="`{key}` 的第 {item} 项是空字符串",
        ),
        "enum-item": T(
            en="`{key}` value `{value}` is not one of {allowed}",
            zh="`{key}` 的取值 `{value}` 不在 {allowed} 之中",
        ),
        "minimum": T(
            en="`{key}` is `{value}`, below the minimum `{limit}`",
            zh="`{key}` 为 `{value}`，低于下限 `{limit}`",
        ),
        "conflict": T(
            en="`append-only: true` cannot be combined with `{key}`",
            zh="`append-only: true` 不能与 `{key}` 同时使用",
        ),
    },
    variant_fixes={
        "missing": T(en="Add `{key}:` to the entry", zh="在条目中添加 `{key}:`"),
        "unknown": T(
            en="Remove `{key}` or rename it to one of {allowed}",
            zh="删除 `{key}`，或将其改名为 {allowed} 之一",
        ),
        "not-mapping": T(
            en="Write the entry as the keys `config-keys`, `description` and `pr-link`",
            zh="将条目写成含 `config-keys`、`description` 和 `pr-link` 三个键的映射",
        ),
        "item-type": T(
            en="Quote item {item} of `{key}` so that YAML reads it as a string",
            zh="给 `{key}` 的第 {item} 项加上引号，使 YAML 将其读作字符串",
        ),
        "empty-list": T(
            en="List at least one item under `{key}`",
            zh="在 `{key}` 下至少列出一项",
        ),
        "empty-item": T(
            en="Remove the empty item or fill it in",
            zh="删除该空项或补全内容",
        ),
        "enum-item": T(en="Use one of {allowed}", zh="改用 {allowed} 之一"),
        "minimum": T(
            en="Set `{key}` to `{limit}` or more, or remove it",
            zh="将 `{key}` 设为不小于 `{limit}` 的值，或删除该键",
        ),
        "conflict": T(
            en="Drop `{key}`, or drop `append-only` and rerun the whole curve",
            zh="删除 `{key}`，或删除 `append-only` 并重跑整条曲线",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario_type:  # [CHL001]
    - agentic-coding
  description:
    - Draft: Inferact/MiniMax-M3-EAGLE3, 3 speculative tokens  # [CHL001]
    - "Synthetic acceptance pinned to golden AL 2.83 (minimaxm3_eagle3.yaml, thinking_on, K=3)"
  evals-only: "true"  # [CHL001]
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="a key spelled with `_`, an unquoted line with `: ` read as a mapping, a quoted boolean",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:  # [CHL001]
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic  # [CHL001]
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="no `description`, and a scenario type the sweep does not know",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys: []  # [CHL001]
  description:
    - "Append concurrency 24 to the resident TP8 arm"
  append-only: true
  evals-only: true  # [CHL001]
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2430
""",
            pr=2430,
            base={"perf-changelog.yaml": _BASE},
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
    - "Draft: Inferact/MiniMax-M3-EAGLE3, 3 speculative tokens"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX

- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  description:
    - "Eval-only rerun with real verification"
  evals-only: true
  all-evals: true
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE
            + """
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic-mtp
  description:
    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"
""",
            pr=2423,
            base={"perf-changelog.yaml": _BASE},
            note="a missing `pr-link` is CHL002's finding, not this rule's",
        ),
    ),
)


@cache
def _validator() -> jsonschema.protocols.Validator:
    import jsonschema  # on first use: an entry the quick check finds valid never loads it

    schema = load_schema(SCHEMA_NAME)
    return jsonschema.Draft202012Validator(schema)


@cache
def _quick() -> QuickSchema:
    return QuickSchema(load_schema(SCHEMA_NAME))


def _errors(data: Any) -> Iterator[jsonschema.ValidationError]:
    """jsonschema's errors for an entry; none, without loading jsonschema, for an entry
    the quick check finds valid."""
    if _quick().valid(data) is True:
        return iter(())
    return _validator().iter_errors(data)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    base = None
    if ctx.base is not None:
        base = base_changelog(ctx, changelog.path)
    repository = _repository_model(ctx)
    changes = entry_changes(changelog, base)
    pull = ctx.change
    if pull is not None:
        changes = entries_in_scope(changes, base, lambda n: pull.touches_line(changelog.path, n))
    for entry in (c.entry for c in changes):
        for error in _errors(entry.data):
            yield from _findings(changelog.path, entry, error, repository)


def _repository_model(ctx: RuleContext) -> tuple[ModelTable, str] | None:
    """The linted tree's own changelog-entry model, read statically
    (`knowledge.changelog_validator`), or None where it cannot be read."""
    spec = ctx.knowledge.section("changelog_validator") or {}
    paths, model = spec.get("path"), spec.get("entry_model")
    if not isinstance(model, str):
        return None
    # one path, or several where the model lived over time: the first that holds it
    listed = [paths] if isinstance(paths, str) else paths if isinstance(paths, list) else []
    for path in (p for p in listed if isinstance(p, str)):
        table = ctx.parsed("pydantic_models", path)
        if isinstance(table, ModelTable) and table.ok and table.model(model) is not None:
            return table, model
    return None


def _findings(
    path: str,
    entry: Entry,
    error: jsonschema.ValidationError,
    repository: tuple[ModelTable, str] | None,
) -> Iterator[Finding]:
    """The error's problems in this record's words, on the entry's lines, less what
    the repository's own model declares."""

    def hit(variant: str | None, key: str, line: int, **params: Any) -> Finding:
        subject = f"{variant or 'schema'} {key} {entry.label}"
        return RULE.hit(path, Span(line), subject, variant=variant, key=key, **params)

    for p in problems(error):
        if repository is not None and declares(repository[0], repository[1], p):
            continue  # the repository's own model declares it
        loc = p.path
        if not loc:
            if p.kind == "not-mapping":
                yield hit("not-mapping", "", entry.start_line, actual=p.actual)
            elif p.kind == "missing" and p.name is not None:
                if p.name not in OWNED_ELSEWHERE:
                    yield hit("missing", p.name, entry.start_line)
            elif p.kind == "unknown" and p.name is not None:
                allowed = backticked(p.allowed)
                yield hit("unknown", p.name, entry.line_of(p.name), allowed=allowed)
            else:
                yield hit(None, "", entry.start_line, detail=p.detail)
            continue
        key = str(loc[0])
        if key in OWNED_ELSEWHERE:
            continue
        line = entry.line_of(key)
        if p.conditional:
            yield hit("conflict", key, line)
        elif len(loc) == 1 and p.keyword == "type":
            expected = types_text(p.expected, nullable=False)
            yield hit("type", key, line, expected=expected, actual=p.actual)
        elif len(loc) == 1 and p.keyword == "minItems":
            yield hit("empty-list", key, line)
        elif len(loc) == 1 and p.keyword == "minimum":
            yield hit("minimum", key, line, value=p.value, limit=p.limit)
        elif len(loc) == 2 and isinstance(loc[1], int):
            item = loc[1]
            line = entry.line_of_item(key, item)
            if p.keyword == "type":
                expected = types_text(p.expected, nullable=False)
                yield hit("item-type", key, line, item=item + 1, expected=expected, actual=p.actual)
            elif p.keyword == "minLength":
                yield hit("empty-item", key, line, item=item + 1)
            elif p.keyword == "enum":
                yield hit("enum-item", key, line, value=p.value, allowed=backticked(p.allowed))
            else:
                yield hit(None, key, line, detail=p.detail)
        else:
            yield hit(None, key, line, detail=p.detail)
