"""Check 0 of the sign-off: the signer owns what the PR changes (CODEOWNERS, team
membership, write access) and is neither a bot nor, when so configured, the PR's
author; and the CODEOWNERS groups a PR's changed paths fall in, for the verdict over
several sign-offs. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.base.records import dataclass
from bot.core.model import Join, part
from bot.signoff.codeowners import Codeowners, parse_codeowners
from bot.signoff.model import (
    Check,
    SignoffFacts,
)
from bot.signoff.rows import (
    MAX_LISTED,
    at_login,
    is_bot,
    make_row,
    same_login,
)
from bot.signoff.settings import Settings
from bot.signoff.wording import more as _more


def _team_state(
    member: Mapping[str, bool | None], teams: Sequence[str]
) -> tuple[bool | None, list[str]]:
    """Whether the signer is in one of `teams` (`member`: their membership by lowercased
    team); None and the unreadable ones if unknown."""
    unknown = []
    for team in teams:
        value = member.get(team.lower())
        if value is True:
            return True, []
        if value is None:
            unknown.append(team)
    return (None, unknown) if unknown else (False, [])


@dataclass(frozen=True)
class _Paths:
    """The PR's changed paths by what CODEOWNERS says of the signer."""

    specific: tuple[str, ...]  # a specific rule names them (or a team they are in)
    failed: tuple[tuple[str, tuple[str, ...], int], ...]  # (path, owners, line) not theirs
    unreadable: tuple[tuple[str, list[str]], ...]  # (path, teams) that cannot be read
    general: tuple[str, ...]  # no rule, or the catch-all


def _by_path(
    changed: Sequence[str], owners: Codeowners, me: str, member: Mapping[str, bool | None]
) -> _Paths:
    specific: list[str] = []
    failed: list[tuple[str, tuple[str, ...], int]] = []
    unreadable: list[tuple[str, list[str]]] = []
    general: list[str] = []
    for path in changed:
        rule = owners.rule_for(path)
        if rule is None or rule.catch_all or not rule.owners:
            general.append(path)
            continue
        if me in {u.lower() for u in rule.users}:
            specific.append(path)
            continue
        ok, unknown = _team_state(member, rule.teams)
        if ok:
            specific.append(path)
        elif ok is None:
            unreadable.append((path, unknown))
        else:
            failed.append((path, rule.owners, rule.line))
    return _Paths(tuple(specific), tuple(failed), tuple(unreadable), tuple(general))


def owner_row(facts: SignoffFacts, cfg: Settings) -> Check:
    signer = facts.signer
    me = signer.lower()
    if is_bot(signer, facts):
        return make_row("owner", "fail", "bot-account", signer=at_login(signer))
    if cfg.exclude_author and same_login(signer, facts.pr_author):
        return make_row("owner", "fail", "pr-author", signer=at_login(signer))
    if facts.codeowners_text is None:
        return make_row(
            "owner", "unknown", "codeowners-unread", codeowners_path=cfg.codeowners_path
        )
    owners = parse_codeowners(facts.codeowners_text)
    member = {k.lower(): v for k, v in facts.team_membership.items()}
    paths = _by_path(facts.changed_paths, owners, me, member)
    specific, failed = list(paths.specific), paths.failed
    unreadable, general = list(paths.unreadable), paths.general
    if failed:
        path, names, line = failed[0]
        return make_row(
            "owner",
            "fail",
            "not-owner",
            path=path,
            owners=Join(tuple(names)),
            line=line,
            signer=at_login(signer),
            more=_more(len(failed) - 1),
        )
    need_any = bool(general) or not facts.changed_paths
    codeowner: bool | None = True
    any_unknown: list[str] = []
    if need_any and not specific and me not in owners.all_users():
        codeowner, any_unknown = _team_state(member, owners.all_teams())
    if codeowner is False:
        return make_row("owner", "fail", "not-listed", signer=at_login(signer))
    permission = (facts.signer_permission or "").lower() or None
    if permission is not None and permission not in cfg.write:
        return make_row(
            "owner", "fail", "no-write-access", signer=at_login(signer), permission=permission
        )
    via_org: list[str] = []
    org_ok = cfg.unreadable_teams == "org-member" and facts.signer_org_member is True
    if org_ok and (unreadable or codeowner is None):
        via_org = sorted({t for _, ts in unreadable for t in ts} | set(any_unknown))
        specific += [p for p, _ in unreadable]
        unreadable = []
        codeowner = True
    if unreadable:
        path, teams = unreadable[0]
        return make_row(
            "owner",
            "unknown",
            "team-unreadable",
            signer=at_login(signer),
            shown=Join(tuple(teams)),
            path=path,
        )
    if codeowner is None:
        shown = Join(tuple(any_unknown[:MAX_LISTED]))
        return make_row(
            "owner", "unknown", "teams-unreadable", signer=at_login(signer), shown=shown
        )
    if permission is None:
        return make_row("owner", "unknown", "permission-unknown", signer=at_login(signer))
    note = part("via-org", teams=Join(tuple(via_org))) if via_org else ""
    if specific:
        return make_row(
            "owner",
            "pass",
            "owns",
            signer=at_login(signer),
            path=specific[0],
            more=_more(len(specific) - 1),
            permission=permission,
            note=note,
        )
    return make_row(
        "owner", "pass", "codeowner", signer=at_login(signer), permission=permission, note=note
    )


# ------------------------------------------------------------------ several sign-offs


@dataclass(frozen=True)
class OwnerGroup:
    """The paths one CODEOWNERS line owns among those the PR changes."""

    line: int
    owners: tuple[str, ...]
    paths: tuple[str, ...]


def owner_groups(facts: SignoffFacts) -> list[OwnerGroup]:
    """The CODEOWNERS groups the PR's changed paths fall in (catch-all paths: line 0)."""
    if facts.codeowners_text is None:
        return []
    owners = parse_codeowners(facts.codeowners_text)
    by_line: dict[int, tuple[tuple[str, ...], list[str]]] = {}
    for path in facts.changed_paths:
        rule = owners.rule_for(path)
        if rule is None or rule.catch_all or not rule.owners:
            by_line.setdefault(0, ((), []))[1].append(path)
        else:
            by_line.setdefault(rule.line, (rule.owners, []))[1].append(path)
    return [OwnerGroup(line, o, tuple(p)) for line, (o, p) in sorted(by_line.items())]


def owns_group(facts: SignoffFacts, group: OwnerGroup, cfg: Settings) -> bool:
    """Whether `facts.signer` owns `group` (directly, through a readable team, or as the
    repository's verifier counts an organisation member whose team cannot be read)."""
    if facts.codeowners_text is None:
        return False
    me = facts.signer.lower()
    member = {k.lower(): v for k, v in facts.team_membership.items()}
    org_ok = cfg.unreadable_teams == "org-member" and facts.signer_org_member is True
    owners = parse_codeowners(facts.codeowners_text)
    names = group.owners
    if group.line == 0:  # catch-all: any CODEOWNER
        if me in {u.lower() for u in owners.all_users()}:
            return True
        names = tuple(owners.all_teams())
    for name in names:
        if not name.startswith("@"):
            continue
        if "/" not in name:
            if name[1:].lower() == me:
                return True
            continue
        state = member.get(name.lower())
        if state is True or (state is None and org_ok):
            return True
    return False
