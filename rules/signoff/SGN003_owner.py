"""SGN003: the `owner` row of the sign-off verdict (`bot/signoff/verify.py`)."""

from __future__ import annotations

from bot.core.model import ERROR, Rule, T

RULE = Rule(
    id="SGN003",
    slug="owner",
    severity=ERROR,
    target="signoff",
    title=T(
        en="CODEOWNER",
        zh="CODEOWNER 归属",
    ),
    message=T(
        en="The signer owns every changed path in CODEOWNERS and has write access",
        zh="签署人是所有变更路径的 CODEOWNER，且拥有写权限",
    ),
    rationale=T(
        en="CODEOWNERS is read from the base branch (last matching line wins). A path owned by a specific line needs the signer on that line, by name or through a team; a path owned only by the catch-all is covered by any CODEOWNER. The signer needs `admin`, `maintain` or `write`; bots never count. Membership of a team the token cannot read counts for a member of the organisation (`knowledge.signoff.unreadable_teams`). Several sign-offs combine across CODEOWNERS groups; the row names the groups still missing. GitHub lists at most 3,000 files of a pull request: past that the row cannot be verified and never passes.",
        zh="CODEOWNERS 从基础分支读取（以最后匹配的行为准）。由特定行拥有的路径要求签署人本人或其所在团队列在该行；只由兜底规则拥有的路径可由任意 CODEOWNER 覆盖。签署人须拥有 `admin`、`maintain` 或 `write` 权限；机器人不计入。令牌无法读取的团队成员资格，组织成员可计入（`knowledge.signoff.unreadable_teams`）。多份签署可按 CODEOWNERS 分组合并；该行列出仍缺签署的分组。GitHub 最多只列出一个 PR 的 3,000 个文件：超出时该行无法核实，绝不会通过。",
    ),
    variants={
        "bot-account": T(
            en="{signer} is a bot account; a bot's sign-off never counts",
            zh="{signer} 是机器人账号；机器人的签署一律无效",
        ),
        "pr-author": T(
            en="{signer} opened this PR; the repository does not let the author sign off",
            zh="{signer} 是本 PR 的作者；此仓库不允许作者本人签署",
        ),
        "codeowners-unread": T(
            en="could not verify ownership: `{codeowners_path}` could not be read from the base branch",
            zh="无法核实归属：未能从基准分支读取 `{codeowners_path}`",
        ),
        "owners-unlisted": T(
            en="could not verify ownership: GitHub lists {listed} of the {changed} files this PR changes, and the owners of the other {rest} are unknown; a maintainer checks them by hand",
            zh="无法核实归属：GitHub 只列出了本 PR 修改的 {changed} 个文件中的 {listed} 个，其余 {rest} 个文件的所有者未知，需维护者人工核查",
        ),
        "not-listed": T(
            en="{signer} is not a CODEOWNER: CODEOWNERS lists them on no line, by name or through a team",
            zh="{signer} 不是 CODEOWNER：CODEOWNERS 中没有任何一行（直接或经由团队）列出此人",
        ),
        "no-write-access": T(
            en="{signer} has `{permission}` access; a sign-off needs write access",
            zh="{signer} 只有 `{permission}` 权限；签署需要写权限",
        ),
        "team-unreadable": T(
            en="could not verify whether {signer} is in {shown}, the owners of `{path}`: team membership is not readable with the bot's token",
            zh="无法核实 {signer} 是否属于 `{path}` 的所有者 {shown}：机器人的令牌无法读取团队成员",
        ),
        "teams-unreadable": T(
            en="could not verify that {signer} is a CODEOWNER: not listed by name, and membership of {shown} is not readable with the bot's token",
            zh="无法核实 {signer} 是否为 CODEOWNER：未被直接列出，且机器人的令牌无法读取 {shown} 的成员",
        ),
        "permission-unknown": T(
            en="could not verify {signer}'s permission on the repository",
            zh="无法核实 {signer} 在仓库中的权限",
        ),
        "groups-missing": T(
            en="groups still missing a CODEOWNER sign-off: {shown} (covered: {have})",
            zh="以下归属组仍缺少 CODEOWNER 签署：{shown}（已覆盖：{have}）",
        ),
        "groups-signed": T(
            en="every CODEOWNERS group of the changed paths has a valid sign-off: {have}",
            zh="变更路径的每个 CODEOWNERS 归属组都有有效签署：{have}",
        ),
        "not-owner": T(
            en="`{path}` is owned by {owners} (CODEOWNERS line {line}); {signer} is not one of them{more}",
            zh="`{path}` 的所有者是 {owners}（CODEOWNERS 第 {line} 行），{signer} 不在其中{more}",
        ),
        "owns": T(
            en="{signer} owns `{path}`{more} and has `{permission}` access{note}",
            zh="{signer} 是 `{path}`{more} 的所有者，拥有 `{permission}` 权限{note}",
        ),
        "codeowner": T(
            en="{signer} is a CODEOWNER, the changed paths have no specific owner, and has `{permission}` access{note}",
            zh="{signer} 是 CODEOWNER，变更的路径没有特定所有者，且拥有 `{permission}` 权限{note}",
        ),
        "via-org": T(
            en=" (membership of {teams} is not readable with the bot's token; counted as an owner as a member of the organisation, as the repository's verifier does)",
            zh="（机器人的令牌无法读取 {teams} 的成员；按仓库验证器的做法，以组织成员身份计为所有者）",
        ),
        "group": T(
            en="`{path}` ({owners}, CODEOWNERS line {line})",
            zh="`{path}`（{owners}，CODEOWNERS 第 {line} 行）",
        ),
        "group-any": T(
            en="`{path}` (any CODEOWNER)",
            zh="`{path}`（任意 CODEOWNER）",
        ),
        "covered-line": T(
            en="line {line} by {signer}",
            zh="第 {line} 行由 {signer} 签署",
        ),
        "covered-none": T(
            en="none",
            zh="无",
        ),
        "signed-line": T(
            en="{signer} (CODEOWNERS line {line})",
            zh="{signer}（CODEOWNERS 第 {line} 行）",
        ),
        "signed-catch-all": T(
            en="{signer} (catch-all)",
            zh="{signer}（兜底规则）",
        ),
    },
)
