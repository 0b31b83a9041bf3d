"""SGN004: the `template` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN004",
    slug="template",
    severity=ERROR,
    target="signoff",
    title=T(
        en="Checklist template",
        zh="清单模板",
    ),
    message=T(
        en="Every item of the current template is present, and checked or explained",
        zh="当前模板的每个条目都存在，且已勾选或已说明",
    ),
    rationale=T(
        en="The checklist template of the default branch is parsed into items, nested ones included, and each is matched to at most one item of the sign-off. An unchecked item is explained only by a note written under it, or by a line that names it (or the item it is nested in) and gives a reason. A line names an item by its number or by a word of the item's subject, its first sentence, that no other item's subject uses (ordinary words such as `after` or `change` name nothing: `knowledge.signoff.generic_words`); a reason that names neither leaves the row failing and the item named, as the repository's verifier check 5 does. A checked box whose words deny the item counts as unchecked.",
        zh="默认分支的清单模板被解析为条目（含嵌套条目），每个条目至多匹配签署中的一个条目。未勾选的条目只有在其下方写有说明，或某行点明该条目（或其所属的上级条目）并给出原因时，才算已说明。点明条目的方式是写出其编号，或写出该条目主题（第一句）中其他条目主题都不使用的词（`after`、`change` 等普通词不算：见 `knowledge.signoff.generic_words`）；原因若两者都没有点明，该行判为失败并列出该条目，与仓库校验器的 check 5 一致。勾选但文字否定该条目的复选框视为未勾选。",
    ),
    variants={
        "template-unread": T(
            en="could not verify the checklist: `{path}` could not be read from the default branch",
            zh="无法核实清单：未能从默认分支读取 `{path}`",
        ),
        "template-zh-unread": T(
            en="could not verify the checklist: `{path}` holds no template block with the sign-off phrase",
            zh="无法核实清单：`{path}` 中没有包含签署语句的模板块",
        ),
        "missing": T(
            en="{n} item(s) of the current template missing: {items}{more}",
            zh="缺少当前模板的 {n} 个条目：{items}{more}",
        ),
        "unexplained": T(
            en="{n} unchecked without a reason: {items}{more}",
            zh="{n} 个条目未勾选且未说明原因：{items}{more}",
        ),
        "all-checked": T(
            en="all {n} items of the current template are present and checked",
            zh="当前模板的 {n} 个条目齐全且均已勾选",
        ),
        "all-present": T(
            en="all {n} items of the current template are present; {unchecked}",
            zh="当前模板的 {n} 个条目齐全；{unchecked}",
        ),
        "unchecked-explained": T(
            en="{n} unchecked with a reason",
            zh="{n} 个未勾选但已说明原因",
        ),
        "unchecked-na": T(
            en="{n} unchecked that do not apply to this PR",
            zh="{n} 个未勾选但不适用于本 PR",
        ),
        "unchecked-both": T(
            en="{explained}, {na}",
            zh="{explained}，{na}",
        ),
    },
)
