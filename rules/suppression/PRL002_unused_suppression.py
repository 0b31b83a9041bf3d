"""PRL002: a suppression comment silences nothing (ruff's RUF100)."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import WARNING, Example, Finding, Rule, Span, T
from bot.core.suppress import SuppressionScan

_RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"

RULE = Rule(
    id="PRL002",
    slug="unused-suppression",
    severity=WARNING,
    target="suppression",
    title=T(en="Suppression comment silences nothing", zh="抑制注释没有抑制任何问题"),
    message=T(
        en="`# bot: ignore[{rule}]` silences no `{rule}` finding on this line or the next",
        zh="`# bot: ignore[{rule}]` 在本行及下一行没有抑制任何 `{rule}` 问题",
    ),
    fix=T(en="Remove `{rule}` from the suppression", zh="从抑制注释中删除 `{rule}`"),
    rationale=T(
        en=(
            "A suppression that no longer silences anything (the defect was fixed, the line "
            "moved, or the rule never fires there) stays in the file as a standing waiver that "
            "a later defect on the same line would silently use. Ruff reports unused `noqa` "
            "comments for the same reason (RUF100). It is reported only for rules that ran on "
            "the file, so a whole-change rule is not judged outside a pull request."
        ),
        zh=(
            "不再抑制任何问题的抑制注释（缺陷已修复、行已移动，或规则在此从不触发）会作为长期豁免留在文件中，"
            "之后同一行出现的新缺陷会被它悄悄抑制。ruff 出于同样的原因报告未使用的 `noqa` 注释（RUF100）。"
            "只有在该文件上运行过的规则才会被判定，因此整体变更规则不会在拉取请求之外被误判。"
        ),
    ),
    bad=(
        Example(
            path=_RECIPE,
            text=(
                "#!/usr/bin/env bash\n"
                "# bot: ignore[RCP001] kept for the SWE-bench eval  # [PRL002]\n"
                'vllm serve "$MODEL" --tool-call-parser minimax_m3 &\n'
            ),
        ),
    ),
    good=(
        Example(
            path=_RECIPE,
            text=(
                "#!/usr/bin/env bash\n"
                "# bot: ignore[RCP001] evals of this recipe are single-turn GSM8K only\n"
                'vllm serve "$MODEL" --tool-call-parser minimax_m3 --reasoning-parser minimax_m3 &\n'
            ),
        ),
    ),
)


def check(scan: SuppressionScan, ctx: RuleContext) -> Iterator[Finding]:
    for s in scan.items:
        if not s.valid:
            continue  # PRL001 reports it
        ran = scan.ran.get(s.path, frozenset())
        for rule in s.rules:
            if rule in ran and rule not in s.used:
                yield RULE.hit(s.path, Span(s.line, s.col), f"{rule} {s.text}", rule=rule)
