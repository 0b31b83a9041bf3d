"""PRL001: a suppression comment names an unknown rule or gives no reason."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.context import RuleContext
from bot.core.model import WARNING, Example, Finding, Rule, Span, T
from bot.core.suppress import SuppressionScan

_RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
_LAUNCH = 'vllm serve "$MODEL" --tool-call-parser minimax_m3 --reasoning-parser minimax_m3 &\n'

RULE = Rule(
    id="PRL001",
    slug="malformed-suppression",
    severity=WARNING,
    target="suppression",
    title=T(
        en="Suppression comment names no known rule or gives no reason",
        zh="抑制注释未指明已知规则或未给出原因",
    ),
    message=T(
        en="`{comment}` gives no reason, so it silences nothing",
        zh="`{comment}` 没有给出原因，因此不会抑制任何问题",
    ),
    variants={
        "unknown": T(
            en="`{comment}` names `{name}`, which is neither a rule id nor a slug, so it "
            "silences nothing",
            zh="`{comment}` 中的 `{name}` 既不是规则编号也不是 slug，因此不会抑制任何问题",
        ),
        "empty": T(
            en="`{comment}` names no rule, so it silences nothing",
            zh="`{comment}` 没有指明任何规则，因此不会抑制任何问题",
        ),
        "unclosed": T(
            en="`{comment}` does not close its `[`, so it silences nothing",
            zh="`{comment}` 的 `[` 没有闭合，因此不会抑制任何问题",
        ),
    },
    fix=T(
        en="Write `# bot: ignore[RULE] reason` with a rule id or slug from `bot rules` and the "
        "reason after the bracket",
        zh="写成 `# bot: ignore[RULE] 原因`：规则编号或 slug 取自 `bot rules`，方括号后写明原因",
    ),
    rationale=T(
        en=(
            "A suppression is a reviewed exception: a reader (and the CODEOWNER who signs off) "
            "must see which rule it silences and why. A typo in the id would silence nothing "
            "while looking like a waiver, and a bare `ignore[RCP008]` hides the reason the "
            "exception was granted. So a suppression needs a known rule id or slug and a "
            "reason; otherwise it silences nothing and is reported. The suppression checks "
            "themselves (PRL001, PRL002) cannot be suppressed."
        ),
        zh=(
            "抑制是经过审查的例外：读者（以及签署的 CODEOWNER）必须能看到它抑制的是哪条规则、为什么。"
            "规则编号拼错时，注释看似豁免却什么也没有抑制；只写 `ignore[RCP008]` 则隐藏了准许例外的理由。"
            "因此抑制注释必须给出已知的规则编号或 slug 以及原因，否则它不会抑制任何问题，并会被报告。"
            "抑制检查本身（PRL001、PRL002）不能被抑制。"
        ),
    ),
    bad=(
        Example(
            path=_RECIPE,
            note="a typo in the id",
            text="#!/usr/bin/env bash\n# bot: ignore[RCP01] parser kept on purpose  # [PRL001]\n"
            + _LAUNCH,
        ),
        Example(
            path=_RECIPE,
            note="no reason",
            text="#!/usr/bin/env bash\n# bot: ignore[RCP001]  # [PRL001]\n" + _LAUNCH,
        ),
    ),
    good=(
        Example(
            path=_RECIPE,
            note="an id and a reason",
            text="#!/usr/bin/env bash\n"
            "# bot: ignore[RCP001] evals of this recipe are single-turn GSM8K only\n" + _LAUNCH,
        ),
        Example(
            path=_RECIPE,
            note="a slug works as well as an id",
            text="#!/usr/bin/env bash\n"
            "# bot: ignore[reasoning-parser-on-interleaved-thinking] single-turn evals only\n"
            + _LAUNCH,
        ),
    ),
)


def check(scan: SuppressionScan, ctx: RuleContext) -> Iterator[Finding]:
    for s in scan.items:
        if s.valid:
            continue
        params: dict[str, Any] = {"comment": s.text[:120]}
        variant: str | None
        if not s.closed:
            variant = "unclosed"
        elif s.unknown:
            variant = "unknown"
            params["name"] = s.unknown[0]
        elif not s.written:
            variant = "empty"
        else:
            variant = None
        yield RULE.hit(
            s.path, Span(s.line, s.col), f"{variant} {s.text}", variant=variant, **params
        )
