"""SGN010: the `recipe-link` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN010",
    slug="recipe-link",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Upstream recipe link",
        zh="上游配方链接",
    ),
    message=T(
        en="A single-node vLLM or SGLang recipe links its upstream recipe",
        zh="单节点 vLLM 或 SGLang 配方附有上游配方链接",
    ),
    rationale=T(
        en="A single-node vLLM or SGLang recipe needs a link to a vllm-project/recipes or sgl-project/sglang PR, or a recipes.vllm.ai or docs.sglang.io page; the template's own links do not count. Not applicable to multi-node or disaggregated PRs and to other engines.",
        zh="单节点 vLLM 或 SGLang 配方需要链接到 vllm-project/recipes 或 sgl-project/sglang 的 PR，或 recipes.vllm.ai、docs.sglang.io 页面；模板自带的链接不算。多节点或分离式部署的 PR 以及其他引擎不适用。",
    ),
    variants={
        "no-single-node": T(
            en="no single-node vLLM/SGLang recipe is added or changed ({shown} only)",
            zh="没有新增或修改单节点 vLLM/SGLang 配方（仅 {shown}）",
        ),
        "no-recipe": T(
            en="the PR adds or changes no recipe or master-config entry",
            zh="本 PR 未新增或修改任何配方或主配置条目",
        ),
        "multi-node": T(
            en="disaggregated/multi-node submission; the recipe-link requirement applies to single-node recipes only",
            zh="分离式/多节点提交；配方链接要求仅适用于单节点配方",
        ),
        "engines-unknown": T(
            en="unknown engines",
            zh="未知引擎",
        ),
        "no-link": T(
            en="`{name}`{more} is a single-node vLLM/SGLang recipe, but the sign-off links no upstream recipe (a vllm-project/recipes or sgl-project/sglang PR, or a recipes.vllm.ai or docs.sglang.io page)",
            zh="`{name}`{more} 是单节点 vLLM/SGLang 配方，但签署中没有上游配方链接（vllm-project/recipes 或 sgl-project/sglang 的 PR，或 recipes.vllm.ai、docs.sglang.io 页面）",
        ),
        "linked": T(
            en="links {link} for `{name}`{more}",
            zh="为 `{name}`{more} 提供了链接 {link}",
        ),
    },
)
