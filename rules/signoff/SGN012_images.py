"""SGN012: the `images` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN012",
    slug="images",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Upstream images and engine order",
        zh="上游镜像与引擎顺序",
    ),
    message=T(
        en="The rules behind the row (CFG003 and CFG004) report nothing on what the PR changed",
        zh="该行对应的规则（CFG003 与 CFG004）对本 PR 的变更没有报告",
    ),
    rationale=T(
        en="A rule row passes only when its rules (CFG003 and CFG004) report nothing on what the PR changed: an error blocks, a warning makes the row need a human with the finding linked, and a finding silenced by a suppression the PR adds passes only when the sign-off names the rule. An error with an exception claimed in the sign-off (new hardware, new architecture) is listed for a human instead of failing.",
        zh="规则行只有在其规则（CFG003 与 CFG004）对本 PR 的变更没有任何报告时才通过：错误会阻塞，警告使该行需人工确认并附上问题链接；被本 PR 新增的抑制注释屏蔽的问题，只有在签署中点名该规则时才通过。若签署中声明了例外（新硬件、新架构），错误改为列给人工，而不判为不通过。",
    ),
    variants={
        "na": T(
            en="the PR adds or changes no master-config entry",
            zh="本 PR 未新增或修改主配置条目",
        ),
        "ok": T(
            en="new or changed master-config entries run upstream vLLM/SGLang images and follow the vLLM/SGLang-first order",
            zh="新增或修改的主配置条目使用上游 vLLM/SGLang 镜像，并遵循 vLLM/SGLang 优先的顺序",
        ),
        "exception-claimed": T(
            en="the sign-off claims an exception (“{claim}”); check it against {finding}",
            zh="签署中声明了例外（“{claim}”）；请对照核实：{finding}",
        ),
    },
)
