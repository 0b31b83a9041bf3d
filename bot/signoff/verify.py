"""Verify a CODEOWNER sign-off: `SignoffFacts` in, `Verdict` out. Pure.

The checks replace the data-decidable ones of the LLM verifier
(`.github/codeowner-signoff-verify-prompt.md`, checks 0-12). Each is reported
once, in this order, with a one-line reason in English and Chinese:

| name | status | what it decides |
|---|---|---|
| `signoff` | pass/fail | a live sign-off (not quoted, not in code), not edited by another user |
| `signed` | pass/fail | `Signed:` is present, not the placeholder, and names the comment's author |
| `owner` | pass/fail/unknown | check 0: the signer owns what the PR changes, has write access, is no bot |
| `template` | pass/fail/unknown | check 5: every current template item present, checked or explained |
| `ci-green` | pass/fail/unknown | check 1: a commit in the PR has green, executed sweep and eval runs |
| `reuse-sweep` | pass/fail/unknown | check 4: an authorized user posted `/reuse-sweep-run` |
| `recipe-link` | pass/fail/na/unknown | check 3a: single-node vLLM/SGLang recipes link an upstream recipe |
| `images` | pass/fail/na/unknown | check 6 by CFG003, CFG004 |
| `deprecated` | pass/fail/na/unknown | check 7 by CFG005 |
| `architecture` | pass/fail/na/unknown | check 8 by RCP007 |
| `chat-template` | pass/fail/na/unknown | check 9 by RCP009 |
| `waiver` | pass/fail/na/unknown | check 10 by RCP008, and the PR's own waiver linked in the sign-off |
| `golden-al` | pass/fail/na/unknown | check 11 by RCP003-RCP006 |
| `append-only` | pass/fail/na/unknown | check 12 by CHL010 |

and "needs a human" rows (status `human`) for what data cannot decide:
`explanations` (reasons given for unchecked items), `eval-accuracy` (check 2),
`recipe-upstream` (check 3b/3c: the linked recipe is merged and its major
server arguments match), `waiver-content` (the waiver covers the patch),
`patch-preexisting` (a patch the PR did not add that no waiver names),
`append-only-isolation` (check 12's behavioural isolation), and
`<check>-unread` for benchmarks the recipe rules do not read (multi-node files
and master-config entries, other changed scripts): the rules read single-node
recipe scripts, so a pass says so and the rest is left to a human. When a
check concerns only such benchmarks, the check itself is `human`.

The verdict:

- `pass` only when every check is `pass`, `na` or `human`;
- `unknown` fails it: a required status must not go green on a fact nobody
  verified, so the row says "could not verify X" and what would let the bot
  read it (a token that can read team membership, the PR's check runs);
- `human` does not fail it: the CODEOWNER has signed that they checked those
  items by hand; the row tells the maintainer which parts the bot did not
  verify, so they know what they rely on.

A body without a live sign-off yields a single `signoff` row (fail): nothing
else can be read from it. The verdict names the head SHA of the facts; which
head is current is the caller's business.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from bot.core.config import Knowledge
from bot.core.gate import Gate, decide, suppressed_by
from bot.core.model import Finding, T
from bot.core.registry import signoff_rule
from bot.signoff.codeowners import parse_codeowners
from bot.signoff.detect import Signoff, absence_reason, find_signoff, links_in
from bot.signoff.model import (
    SIGNOFF_PHRASE,
    BenchmarkChange,
    Check,
    CheckRun,
    CheckStatus,
    PrContent,
    SignoffFacts,
    Verdict,
)
from bot.signoff.template import (
    Match,
    Template,
    TemplateItem,
    fill_zh,
    match_items,
    parse_template,
    words,
)

MAX_LISTED = 4  # items named in one reason


@dataclass(frozen=True)
class Settings:
    """`knowledge.signoff`. Every default lives in `bot/knowledge/default.yaml`, none here."""

    template_path: str
    codeowners_path: str
    threshold: float
    write: frozenset[str]
    benchmark_runs: tuple[str, ...]
    eval_runs: tuple[str, ...]
    exclude_runs: tuple[str, ...]
    unreadable_teams: str
    exclude_author: bool
    disapprove: tuple[str, ...]
    withdraw: tuple[str, ...]
    item_zh: tuple[tuple[str, str], ...]
    recipe_links: tuple[str, ...]
    recipe_engines: frozenset[str]
    rules: Mapping[str, tuple[str, ...]]
    conditional: tuple[tuple[str, str], ...]
    waiver_dir: str

    @classmethod
    def from_knowledge(cls, knowledge: Knowledge) -> Settings:
        # the shipped knowledge holds the defaults; a partial table overrides them key by key
        shipped, patching = _shipped()
        table: Mapping[str, Any] = {**shipped, **(knowledge.section("signoff") or {})}
        runs: Mapping[str, Any] = {**shipped["check_runs"], **(table.get("check_runs") or {})}
        waiver = {**patching, **(knowledge.section("engine_patching") or {})}["waiver_dir"]
        rules = {k: tuple(v or ()) for k, v in shipped["rules"].items()}
        rules.update({k: tuple(v or ()) for k, v in (table.get("rules") or {}).items()})
        disapproval: Mapping[str, Any] = table.get("disapproval") or {}
        return cls(
            template_path=str(table["template"]),
            codeowners_path=str((table.get("codeowners") or shipped["codeowners"])[0]),
            threshold=float(table["match_threshold"]),
            write=frozenset(str(p).lower() for p in table["write_permissions"]),
            benchmark_runs=tuple(runs["benchmark"]),
            eval_runs=tuple(runs["eval"]),
            exclude_runs=tuple(runs.get("exclude") or ()),
            unreadable_teams=str(table["unreadable_teams"]),
            exclude_author=bool(table["exclude_author"]),
            disapprove=tuple(disapproval.get("phrases") or ()),
            withdraw=tuple(disapproval.get("withdraw") or ()),
            item_zh=tuple((str(x["pattern"]), str(x["zh"])) for x in table.get("item_zh") or ()),
            recipe_links=tuple(table["recipe_links"]),
            recipe_engines=frozenset(table["recipe_engines"]),
            rules=rules,
            conditional=tuple(
                (str(c["pattern"]), str(c["when"])) for c in table["conditional_items"]
            ),
            waiver_dir=str(waiver).strip("/"),
        )


@lru_cache(maxsize=1)
def _shipped() -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The shipped knowledge's `signoff` and `engine_patching` tables."""
    from bot.core.config import build_config

    knowledge = build_config(None).knowledge
    return knowledge.section("signoff") or {}, knowledge.section("engine_patching") or {}


# ------------------------------------------------------------------ helpers


def _check(name: str, status: CheckStatus, en: str, zh: str) -> Check:
    return Check(name, status, T(en=en, zh=zh))


def _says(name: str, variant: str, /, **params: Any) -> T:
    """A wording of the sign-off row `name`, from its SGN record (`rules/signoff/`)."""
    rule = signoff_rule(name)
    if rule is None or variant not in rule.variants:
        raise KeyError(f"no SGN record with the wording {variant!r} for the row {name!r}")
    return rule.variants[variant].format(params)


def _row(name: str, status: CheckStatus, variant: str, /, **params: Any) -> Check:
    return Check(name, status, _says(name, variant, **params))


def _at(login: str) -> str:
    return f"@{login}"


def _more(n: int) -> tuple[str, str]:
    return (f" (+{n} more)", f"（另有 {n} 项）") if n > 0 else ("", "")


def _same_login(a: str | None, b: str | None) -> bool:
    return (
        a is not None
        and b is not None
        and a.strip().lstrip("@").lower() == b.strip().lstrip("@").lower()
    )


def _is_bot(login: str, facts: SignoffFacts) -> bool:
    return (
        facts.signer_is_bot
        or login.lower().endswith("[bot]")
        or _same_login(login, facts.bot_login)
    )


def _gate(facts: SignoffFacts, rules: Sequence[str], signoff: Signoff) -> Gate:
    """The one gate decision (`bot.core.gate`) over the rules behind a row."""
    return decide(facts.findings, facts.silenced, rules=rules, acknowledgement=signoff.text)


def _link(facts: SignoffFacts, f: Finding) -> str:
    where = f"{f.path}:{f.line}"
    if facts.repo_url and facts.head_sha:
        return f"[`{where}`]({facts.repo_url}/blob/{facts.head_sha}/{f.path}#L{f.line})"
    return f"`{where}`"


def _finding_reason(found: Sequence[Finding], facts: SignoffFacts | None = None) -> tuple[str, str]:
    first = found[0]
    more, more_zh = _more(len(found) - 1)
    where = _link(facts, first) if facts is not None else f"`{first.path}:{first.line}`"
    return (
        f"{where}: {first.message.en}{more}",
        f"{where}：{first.message.zh}{more_zh}",
    )


def _gate_rows(name: str, gate: Gate, facts: SignoffFacts, rows: list[Check]) -> list[Check]:
    """A row passes only when its rules report nothing on what the PR changed.

    fail: an error on changed lines, or a suppression the PR adds that the sign-off does
    not acknowledge; human: a warning on changed lines (linked), or an acknowledged
    suppression. Either replaces the row's own pass or N/A.
    """
    if gate.state == "pass":
        return rows
    if gate.state == "fail":
        if gate.errors:
            en, zh = _finding_reason(gate.errors, facts)
        else:
            s = gate.unacknowledged[0]
            by = suppressed_by(s)
            en = (
                f"{_link(facts, s.finding)}: {s.finding.message.en} — {by.en}; a CODEOWNER "
                f"acknowledges it by naming `{s.finding.rule}` in the sign-off"
            )
            zh = (
                f"{_link(facts, s.finding)}：{s.finding.message.zh} — {by.zh}；"
                f"需要 CODEOWNER 在签署中写明 `{s.finding.rule}` 予以确认"
            )
        return [_check(name, "fail", en, zh)]
    parts_en: list[str] = []
    parts_zh: list[str] = []
    if gate.warnings:
        en, zh = _finding_reason(gate.warnings, facts)
        parts_en.append(f"warning {en}")
        parts_zh.append(f"警告 {zh}")
    for s in gate.unacknowledged[:MAX_LISTED]:
        by = suppressed_by(s)
        parts_en.append(f"`{s.finding.rule}` at {_link(facts, s.finding)} {by.en}")
        parts_zh.append(f"{_link(facts, s.finding)} 的 `{s.finding.rule}` {by.zh}")
    for s in gate.acknowledged[:MAX_LISTED]:
        by = suppressed_by(s)
        parts_en.append(
            f"`{s.finding.rule}` at {_link(facts, s.finding)} {by.en} (acknowledged in the sign-off)"
        )
        parts_zh.append(f"{_link(facts, s.finding)} 的 `{s.finding.rule}` {by.zh}（签署中已确认）")
    row = _check(name, "human", "; ".join(parts_en), "；".join(parts_zh))
    kept = [r for r in rows if r.name != name]
    return [row, *kept]


def _name(b: BenchmarkChange) -> str:
    return b.entry or b.path.rsplit("/", 1)[-1]


# ------------------------------------------------------------------ sign-off, signature


def _absent(body: str) -> Check:
    why = absence_reason(body)
    if why == "quoted":
        return _row("signoff", "fail", "quoted")
    if why == "code":
        return _row("signoff", "fail", "in-code")
    if why == "comment":
        return _row("signoff", "fail", "in-html-comment")
    return _row("signoff", "fail", "no-phrase", signoff_phrase=SIGNOFF_PHRASE)


def _detected(facts: SignoffFacts, signoff: Signoff) -> Check:
    if facts.edited_by and not _same_login(facts.edited_by, facts.signer):
        return _row("signoff", "fail", "edited-by-other", edited_by=_at(facts.edited_by))
    return _row("signoff", "pass", "found", signer=_at(facts.signer), line=signoff.line)


def _signed(facts: SignoffFacts, signoff: Signoff) -> Check:
    if signoff.signed is None:
        return _row("signed", "fail", "missing")
    if signoff.placeholder:
        return _row("signed", "fail", "placeholder")
    login = signoff.signed_login
    if login is None:
        return _row("signed", "fail", "no-login")
    if not _same_login(login, facts.signer):
        return _row("signed", "fail", "names-other", login=_at(login), signer=_at(facts.signer))
    return _row("signed", "pass", "names-author", signer=_at(facts.signer))


# ------------------------------------------------------------------ owner (check 0)


def _owner(facts: SignoffFacts, cfg: Settings) -> Check:
    signer = facts.signer
    me = signer.lower()
    if _is_bot(signer, facts):
        return _row("owner", "fail", "bot-account", signer=_at(signer))
    if cfg.exclude_author and _same_login(signer, facts.pr_author):
        return _row("owner", "fail", "pr-author", signer=_at(signer))
    if facts.codeowners_text is None:
        return _row("owner", "unknown", "codeowners-unread", codeowners_path=cfg.codeowners_path)
    owners = parse_codeowners(facts.codeowners_text)
    member = {k.lower(): v for k, v in facts.team_membership.items()}

    def state(teams: Sequence[str]) -> tuple[bool | None, list[str]]:
        """Whether the signer is in one of `teams`; None and the unreadable ones if unknown."""
        unknown = []
        for team in teams:
            value = member.get(team.lower())
            if value is True:
                return True, []
            if value is None:
                unknown.append(team)
        return (None, unknown) if unknown else (False, [])

    specific: list[str] = []
    failed: list[tuple[str, tuple[str, ...], int]] = []
    unreadable: list[tuple[str, list[str]]] = []
    general: list[str] = []
    for path in facts.changed_paths:
        rule = owners.rule_for(path)
        if rule is None or rule.catch_all or not rule.owners:
            general.append(path)
            continue
        if me in {u.lower() for u in rule.users}:
            specific.append(path)
            continue
        ok, unknown = state(rule.teams)
        if ok:
            specific.append(path)
        elif ok is None:
            unreadable.append((path, unknown))
        else:
            failed.append((path, rule.owners, rule.line))
    if failed:
        path, names, line = failed[0]
        more, more_zh = _more(len(failed) - 1)
        shown = ", ".join(names)
        return _check(
            "owner",
            "fail",
            f"`{path}` is owned by {shown} (CODEOWNERS line {line}); "
            f"{_at(signer)} is not one of them{more}",
            f"`{path}` 的所有者是 {shown}（CODEOWNERS 第 {line} 行），{_at(signer)} 不在其中{more_zh}",
        )
    need_any = bool(general) or not facts.changed_paths
    codeowner: bool | None = True
    any_unknown: list[str] = []
    if need_any and not specific and me not in owners.all_users():
        codeowner, any_unknown = state(owners.all_teams())
    if codeowner is False:
        return _row("owner", "fail", "not-listed", signer=_at(signer))
    permission = (facts.signer_permission or "").lower() or None
    if permission is not None and permission not in cfg.write:
        return _row("owner", "fail", "no-write-access", signer=_at(signer), permission=permission)
    via_org = ""
    org_ok = cfg.unreadable_teams == "org-member" and facts.signer_org_member is True
    if org_ok and (unreadable or codeowner is None):
        teams_shown = ", ".join(sorted({t for _, ts in unreadable for t in ts} | set(any_unknown)))
        via_org = teams_shown
        specific += [p for p, _ in unreadable]
        unreadable = []
        codeowner = True
    if unreadable:
        path, teams = unreadable[0]
        shown = ", ".join(teams)
        return _row(
            "owner",
            "unknown",
            "team-unreadable",
            signer=_at(signer),
            shown=shown,
            path=path,
        )
    if codeowner is None:
        shown = ", ".join(any_unknown[:MAX_LISTED])
        return _row("owner", "unknown", "teams-unreadable", signer=_at(signer), shown=shown)
    if permission is None:
        return _row("owner", "unknown", "permission-unknown", signer=_at(signer))
    note_en = note_zh = ""
    if via_org:
        note_en = (
            f" (membership of {via_org} is not readable with the bot's token; counted as an "
            "owner as a member of the organisation, as the repository's verifier does)"
        )
        note_zh = f"（机器人的令牌无法读取 {via_org} 的成员；按仓库验证器的做法，以组织成员身份计为所有者）"
    if specific:
        more, more_zh = _more(len(specific) - 1)
        return _check(
            "owner",
            "pass",
            f"{_at(signer)} owns `{specific[0]}`{more} and has `{permission}` access{note_en}",
            f"{_at(signer)} 是 `{specific[0]}`{more_zh} 的所有者，拥有 `{permission}` 权限{note_zh}",
        )
    return _check(
        "owner",
        "pass",
        f"{_at(signer)} is a CODEOWNER, the changed paths have no specific owner, "
        f"and has `{permission}` access{note_en}",
        f"{_at(signer)} 是 CODEOWNER，变更的路径没有特定所有者，且拥有 `{permission}` 权限{note_zh}",
    )


# ------------------------------------------------------------------ template (check 5)


def _conditions(content: PrContent | None, cfg: Settings) -> Mapping[str, bool | None]:
    if content is None:
        return {}
    b = content.benchmarks
    return {
        "spec_decode": any(x.spec_decode for x in b),
        "agentic_spec_decode": any(x.agentic and x.spec_decode for x in b),
        "single_node_recipe": any(
            not x.multi_node and (set(x.engines) & cfg.recipe_engines or not x.engines) for x in b
        ),
        "append_only": content.append_only,
    }


def _condition_of(item: TemplateItem, cfg: Settings) -> str | None:
    plain = item.short(10_000).replace("`", "")
    for pattern, when in cfg.conditional:
        try:
            if re.search(pattern, plain, re.I):
                return when
        except re.error:
            continue
    return None


def _distinctive(template: Template, item: TemplateItem) -> set[str]:
    """Words of the item that no other template item uses (at least 4 letters)."""
    own = set(words(item.text))
    others: set[str] = set()
    for other in template.items:
        if other.index != item.index:
            others.update(words(other.text))
    return {w for w in own - others if len(w) >= 4 and not w.isdigit()}


_NEGATION = re.compile(
    r"\b(?:not|never|no longer)\b|n't\b|\bcannot\b|未确认|未核实|没有确认|尚未|并未", re.I
)
# words that give a reason by themselves ("N/A: no agentic config", "不适用")
_REASON_WORDS = re.compile(
    r"\bn/?a\b|not applicable|does(?:n't| not) apply|\bbecause\b|\bsince\b|\bdue to\b|"
    r"\bno\s+\w+|\bonly\b|\bwaived?\b|\bexception\b|不适用|因为|由于|无需|没有|仅|例外",
    re.I,
)
_URLISH = re.compile(r"https?://\S+|\[[^\]]*\]\([^)]*\)")
_PROSE_WORD = re.compile(r"[A-Za-z]{2,}|[\u3400-\u9fff]")


def _negated(item: TemplateItem, given: str) -> bool:
    """A checked box whose words deny the item ("[x] NOT verified ...", "not MERGED")."""
    own = max(len(_NEGATION.findall(item.text)), len(_NEGATION.findall(item.zh)))
    return len(_NEGATION.findall(given)) > own


def _gives_reason(text: str) -> bool:
    """Whether `text` says why, not just what: a reason word, or a few words of prose.

    A bare link, "Sweep passed" or a number gives no reason.
    """
    plain = _URLISH.sub(" ", text)
    if _REASON_WORDS.search(plain):
        return True
    prose = _PROSE_WORD.findall(plain)
    latin = [w for w in prose if w.isascii()]
    return len(latin) >= 4 or len(prose) - len(latin) >= 6


def _names_item(template: Template, item: TemplateItem, line: str) -> str | None:
    """The rest of `line` when it names `item` by number or by its own wording, else None."""
    number = re.escape(item.number)
    ref = re.search(
        rf"(?:\b(?:item|check|no\.?)\s*#?|#|第|条目)\s*{number}(?![\d.])\s*(?:项|条)?"
        rf"|^\s*\(?{number}\)?\s*[:：]",
        line,
        re.I,
    )
    if ref is not None:
        return line[: ref.start()] + " " + line[ref.end() :]
    own = _distinctive(template, item)
    hits = own & set(words(line))
    if hits:
        return line
    return None


def _explained(template: Template, m: Match, signoff: Signoff) -> bool:
    """An unchecked item is explained only by text that names it and gives a reason."""
    if m.signoff is not None and m.signoff.note.strip() and _gives_reason(m.signoff.note):
        return True
    for line in signoff.explanations.splitlines():
        rest = _names_item(template, m.item, line)
        if rest is not None and _gives_reason(rest):
            return True
    return False


def _quote(item: TemplateItem, limit: int = 60) -> tuple[str, str]:
    return f"“{item.short(limit)}”", f"“{item.short_zh(40)}”"


def _listed(items: Sequence[TemplateItem]) -> tuple[str, str]:
    shown = [_quote(i) for i in items[:MAX_LISTED]]
    more, more_zh = _more(len(items) - MAX_LISTED)
    return "; ".join(s[0] for s in shown) + more, "；".join(s[1] for s in shown) + more_zh


def _template(facts: SignoffFacts, signoff: Signoff, cfg: Settings) -> list[Check]:
    path = cfg.template_path
    if facts.template_text is None:
        return [_row("template", "unknown", "template-unread", path=path)]
    template = parse_template(facts.template_text, facts.template_zh_text)
    if template is None:
        return [_row("template", "unknown", "template-zh-unread", path=path)]
    template = fill_zh(template, cfg.item_zh)
    matches = match_items(template, signoff.items, cfg.threshold)
    missing = [m.item for m in matches if m.signoff is None]
    conditions = dict(_conditions(facts.content, cfg))
    negated = [
        m
        for m in matches
        if m.signoff is not None and m.signoff.checked and _negated(m.item, m.signoff.text)
    ]
    unchecked = [
        m for m in matches if m.signoff is not None and (not m.signoff.checked or m in negated)
    ]
    not_applicable: list[TemplateItem] = []
    open_items: list[Match] = []
    for m in unchecked:
        when = _condition_of(m.item, cfg)
        parent = template.items[m.item.parent] if m.item.parent is not None else None
        if when is None and parent is not None:
            when = _condition_of(parent, cfg)
        if when is not None and when != "another_unchecked" and conditions.get(when) is False:
            not_applicable.append(m.item)
        else:
            open_items.append(m)
    # "If any of the above criteria cannot reasonably be satisfied": needed only when another is open
    others_open = [m for m in open_items if _condition_of(m.item, cfg) != "another_unchecked"]
    explained: list[TemplateItem] = []
    unexplained: list[TemplateItem] = []
    for m in open_items:
        if _condition_of(m.item, cfg) == "another_unchecked" and not others_open:
            not_applicable.append(m.item)
        elif _explained(template, m, signoff):
            explained.append(m.item)
        else:
            unexplained.append(m.item)
    out: list[Check] = []
    if missing or unexplained:
        parts_en, parts_zh = [], []
        if missing:
            en, zh = _listed(missing)
            parts_en.append(f"{len(missing)} item(s) of the current template missing: {en}")
            parts_zh.append(f"缺少当前模板的 {len(missing)} 个条目：{zh}")
        if unexplained:
            en, zh = _listed(unexplained)
            parts_en.append(f"{len(unexplained)} unchecked without a reason: {en}")
            parts_zh.append(f"{len(unexplained)} 个条目未勾选且未说明原因：{zh}")
        out.append(_check("template", "fail", "; ".join(parts_en), "；".join(parts_zh)))
    else:
        n = len(template.items)
        en = f"all {n} items of the current template are present"
        zh = f"当前模板的 {n} 个条目齐全"
        if not unchecked:
            en, zh = en + " and checked", zh + "且均已勾选"
        else:
            extra_en, extra_zh = [], []
            if explained:
                extra_en.append(f"{len(explained)} unchecked with a reason")
                extra_zh.append(f"{len(explained)} 个未勾选但已说明原因")
            if not_applicable:
                extra_en.append(f"{len(not_applicable)} unchecked that do not apply to this PR")
                extra_zh.append(f"{len(not_applicable)} 个未勾选但不适用于本 PR")
            en += "; " + ", ".join(extra_en)
            zh += "；" + "，".join(extra_zh)
        out.append(_check("template", "pass", en, zh))
    if explained:
        en, zh = _listed(explained)
        out.append(
            _check(
                "explanations",
                "human",
                f"read the reasons given for the unchecked {en}",
                f"请阅读未勾选条目 {zh} 的说明",
            )
        )
    return out


# ------------------------------------------------------------------ CI (checks 1, 2)


def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if ch == "*" else re.escape(ch) for ch in glob), re.S)


def _name_state(runs: Sequence[CheckRun]) -> str:
    """One check-run name's outcome: success | pending | skipped | <failing conclusion>."""
    if any(r.conclusion == "success" for r in runs):
        return "success"
    if any(r.status != "completed" for r in runs):
        return "pending"
    conclusions = [r.conclusion or "none" for r in runs]
    bad = [c for c in conclusions if c not in ("skipped", "neutral")]
    return bad[0] if bad else "skipped"


@dataclass(frozen=True)
class _Group:
    state: str  # green | failed | pending | skipped | none
    count: int = 0
    culprit: str = ""
    conclusion: str = ""


def _group(runs: Sequence[CheckRun], patterns: Sequence[str]) -> _Group:
    regexes = [_pattern(p) for p in patterns]
    by_name: dict[str, list[CheckRun]] = {}
    for r in runs:
        if any(rx.match(r.name) for rx in regexes):
            by_name.setdefault(r.name, []).append(r)
    if not by_name:
        return _Group("none")
    states = {name: _name_state(rs) for name, rs in sorted(by_name.items())}
    for name, st in states.items():
        if st not in ("success", "pending", "skipped"):
            return _Group("failed", culprit=name, conclusion=st)
    for name, st in states.items():
        if st == "pending":
            return _Group("pending", culprit=name)
    green = sum(1 for st in states.values() if st == "success")
    if not green:
        return _Group("skipped", culprit=next(iter(states)))
    return _Group("green", count=green)


_JOB_NAME = re.compile(r"^\s+name:\s*[\"']?(?P<name>[^\"'\n#]*?\s/)\s*[\"']?\s*(?:#.*)?$", re.M)


def sweep_jobs(workflow: str | None, cfg: Settings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(benchmark, eval) check-run name prefixes: the sweep workflow's job names.

    Every job `name: ... /` of the base branch's workflow (`single-node 1k1k /`,
    `agentic /`, `multi-node 8k1k /`, `eval /`, `multi-node agentic eval /`, ...);
    evals are the names with "eval", `exclude` drops smoke jobs. Without the
    workflow, or when it names none, the knowledge defaults.
    """
    if not workflow:
        return cfg.benchmark_runs, cfg.eval_runs
    excluded = {x.strip().lower() for x in cfg.exclude_runs}
    names: list[str] = []
    for m in _JOB_NAME.finditer(workflow[:500_000]):
        name = " ".join(m.group("name").split())
        if "${{" in name or name.lower() in excluded or name in names:
            continue
        names.append(name)
    bench = tuple(n for n in names if "eval" not in n.lower())
    evals = tuple(n for n in names if "eval" in n.lower())
    if not bench or not evals:
        return cfg.benchmark_runs, cfg.eval_runs
    return bench, evals


def _runs_label(patterns: Sequence[str]) -> str:
    shown = "/".join(f"`{p}`" for p in patterns[:2])
    return shown + (f" (+{len(patterns) - 2})" if len(patterns) > 2 else "")


def _ci(facts: SignoffFacts, cfg: Settings) -> Check:
    bench_runs, eval_runs = sweep_jobs(facts.sweep_workflow_text, cfg)
    cfg = replace(cfg, benchmark_runs=bench_runs, eval_runs=eval_runs)
    if facts.pr_commits is None or facts.check_runs is None:
        if facts.pr_commits is None:
            what, what_zh = "the PR's commits were", "本 PR 的提交"
        else:
            what, what_zh = "the check runs of the PR's commits were", "本 PR 提交的检查运行"
        return _check(
            "ci-green",
            "unknown",
            f"could not verify the sweep: {what} not available",
            f"无法核实扫描：未能获取{what_zh}",
        )
    bench_label, eval_label = _runs_label(cfg.benchmark_runs), _runs_label(cfg.eval_runs)
    detail_en = detail_zh = ""
    for sha in reversed(facts.pr_commits):
        runs = [r for r in facts.check_runs if r.head_sha == sha]
        bench, evals = _group(runs, cfg.benchmark_runs), _group(runs, cfg.eval_runs)
        if bench.state == "green" and evals.state == "green":
            return _row(
                "ci-green",
                "pass",
                "green",
                sha_7=sha[:7],
                bench_label=bench_label,
                count=bench.count,
                eval_label=eval_label,
                count_2=evals.count,
            )
        if detail_en or (bench.state == "none" and evals.state == "none"):
            continue
        for label, g in ((bench_label, bench), (eval_label, evals)):
            if g.state == "failed":
                detail_en = f"`{sha[:7]}`: `{g.culprit}` {g.conclusion}"
                detail_zh = f"`{sha[:7]}`：`{g.culprit}` 结论为 {g.conclusion}"
            elif g.state == "pending":
                detail_en = f"`{sha[:7]}`: `{g.culprit}` still running"
                detail_zh = f"`{sha[:7]}`：`{g.culprit}` 仍在运行"
            elif g.state == "skipped":
                detail_en = f"`{sha[:7]}`: every {label} run was skipped"
                detail_zh = f"`{sha[:7]}`：所有 {label} 运行均被跳过"
            elif g.state == "none":
                detail_en = f"`{sha[:7]}`: no {label} run"
                detail_zh = f"`{sha[:7]}`：没有 {label} 运行"
            if detail_en:
                break
    if not detail_en:
        detail_en = f"no {bench_label} or {eval_label} check runs on the PR's commits"
        detail_zh = f"本 PR 的提交上没有 {bench_label} 或 {eval_label} 检查运行"
    return _check(
        "ci-green",
        "fail",
        f"No passing sweep/eval was found on any commit in this PR ({detail_en})",
        f"本 PR 当前的任何提交上都没有通过的扫描/评测（{detail_zh}）",
    )


# ------------------------------------------------------------------ reuse sweep (check 4)


def _reuse(facts: SignoffFacts, cfg: Settings) -> Check:
    if facts.reuse_sweeps is None:
        return _row("reuse-sweep", "unknown", "comments-unread")
    sweeps = [s for s in facts.reuse_sweeps if not _same_login(s.author, facts.bot_login)]
    for s in sweeps:
        if s.permission is not None and s.permission.lower() in cfg.write:
            return _row(
                "reuse-sweep",
                "pass",
                "posted",
                author=_at(s.author),
                lower=s.permission.lower(),
            )
    unknown = [s.author for s in sweeps if s.permission is None]
    if unknown:
        return _row("reuse-sweep", "unknown", "permission-unknown", poster=_at(unknown[0]))
    if sweeps:
        return _row("reuse-sweep", "fail", "not-authorized", author=_at(sweeps[0].author))
    return _row("reuse-sweep", "fail", "none")


# ------------------------------------------------------------------ content checks


def _not_linted(name: str) -> Check:
    return _check(
        name,
        "unknown",
        "could not verify: the PR's changes were not linted",
        "无法核实：本 PR 的变更未经检查",
    )


def _recipe_link(facts: SignoffFacts, signoff: Signoff, cfg: Settings) -> list[Check]:
    content = facts.content
    if content is None:
        return [_not_linted("recipe-link")]
    single = [b for b in content.benchmarks if not b.multi_node]
    needs = [b for b in single if set(b.engines) & cfg.recipe_engines]
    unsure = [b for b in single if not b.engines]
    if not needs:
        out: list[Check] = []
        if content.benchmarks and not single:
            out.append(
                _check(
                    "recipe-link",
                    "na",
                    "disaggregated/multi-node submission; the recipe-link requirement applies "
                    "to single-node recipes only",
                    "分离式/多节点提交；配方链接要求仅适用于单节点配方",
                )
            )
        elif single:
            engines = sorted({e for b in single for e in b.engines})
            shown = ", ".join(f"`{e}`" for e in engines) or "unknown engines"
            out.append(_row("recipe-link", "na", "no-single-node", shown=shown))
        else:
            out.append(_row("recipe-link", "na", "no-recipe"))
        if unsure:
            out.append(
                _row(
                    "recipe-upstream",
                    "human",
                    "engine-unknown",
                    benchmark=_name(unsure[0]),
                )
            )
        return out
    regexes = []
    for p in cfg.recipe_links:
        try:
            regexes.append(re.compile(p))
        except re.error:
            continue
    links = [u for u in links_in(signoff.text) if any(rx.match(u) for rx in regexes)]
    more, more_zh = _more(len(needs) - 1)
    name = _name(needs[0])
    if not links:
        return [
            _check(
                "recipe-link",
                "fail",
                f"`{name}`{more} is a single-node vLLM/SGLang recipe, but the sign-off links no "
                "upstream recipe (a vllm-project/recipes or sgl-project/sglang PR, or a "
                "recipes.vllm.ai or docs.sglang.io page)",
                f"`{name}`{more_zh} 是单节点 vLLM/SGLang 配方，但签署中没有上游配方链接"
                "（vllm-project/recipes 或 sgl-project/sglang 的 PR，或 recipes.vllm.ai、"
                "docs.sglang.io 页面）",
            )
        ]
    return [
        _check(
            "recipe-link",
            "pass",
            f"links {links[0]} for `{name}`{more}",
            f"为 `{name}`{more_zh} 提供了链接 {links[0]}",
        ),
        _row("recipe-upstream", "human", "check", link=links[0], name=name),
    ]


def _is_script(b: BenchmarkChange) -> bool:
    """A single-node recipe script: what the recipe rules read."""
    return b.entry is None and not b.multi_node


_TOKENS = re.compile(r"[-_]")


def _covered(b: BenchmarkChange, scripts: Sequence[BenchmarkChange]) -> bool:
    """Whether a single-node master-config entry's recipe script is among `scripts`.

    By InferenceX's naming: `dsv4_fp4_b200_vllm_mtp.sh` runs `dsv4-fp4-b200-vllm-agentic-mtp`
    (the script's name parts are a subset of the entry's).
    """
    if b.entry is None or b.multi_node:
        return False
    key = set(_TOKENS.split(b.entry.lower()))
    for s in scripts:
        stem = s.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
        if set(_TOKENS.split(stem)) <= key:
            return True
    return False


def _unread_reason(names: Sequence[str], what: str, what_zh: str) -> tuple[str, str]:
    more, more_zh = _more(len(names) - 1)
    return (
        f"the bot reads single-node recipe scripts only; check `{names[0]}`{more} for {what} "
        "by hand",
        f"机器人只读取单节点配方脚本；请人工检查以下内容的{what_zh}：`{names[0]}`{more_zh}",
    )


def _waiver(facts: SignoffFacts, signoff: Signoff, cfg: Settings) -> list[Check]:
    content = facts.content
    if content is None:
        return [_not_linted("waiver")]
    rules = cfg.rules.get("waiver", ())
    gate = _gate(facts, rules, signoff)
    errors = list(gate.errors) if gate.state == "fail" else []
    ids = {r.upper() for r in rules}
    older = [f for f in facts.findings if f.rule in ids and f.in_diff is False]
    wdir = cfg.waiver_dir
    filed = [p for p in facts.added_paths if p.startswith(wdir + "/") and p.endswith(".md")]
    own = f"{wdir}/{facts.pr}.md" if facts.pr is not None else None
    if own is not None:
        filed = [p for p in filed if p == own] or filed
    scripts = [b for b in content.benchmarks if _is_script(b)]
    unread = [b.path for b in content.benchmarks if b.entry is None and b.multi_node]
    unread += list(content.unread)
    what, what_zh = "engine patches", "推理引擎补丁"
    out: list[Check] = []
    if gate.state == "fail":
        return _gate_rows("waiver", gate, facts, [])
    if filed:
        waiver = filed[0]
        tail = "/".join(waiver.split("/")[-2:])  # "waiver/2600.md"
        if tail not in signoff.text:
            out.append(_row("waiver", "fail", "not-linked", waiver=waiver))
        else:
            out.append(_row("waiver", "pass", "linked", waiver=waiver))
            out.append(_row("waiver-content", "human", "check", waiver=waiver))
        unread = []
    elif scripts:
        out.append(_row("waiver", "pass", "no-patch"))
    elif unread:
        en, zh = _unread_reason(unread, what, what_zh)
        out.append(_check("waiver", "human", en, zh))
        unread = []
    else:
        out.append(_row("waiver", "na", "no-benchmark"))
    if unread and not errors:
        en, zh = _unread_reason(unread, what, what_zh)
        out.append(_check("waiver-unread", "human", en, zh))
    out = _gate_rows("waiver", gate, facts, out)
    if older and not errors:
        en, zh = _finding_reason(older, facts)
        out.append(
            _check(
                "patch-preexisting",
                "human",
                f"check the waiver of a patch this PR did not add: {en}",
                f"请核对本 PR 之前已有补丁的豁免：{zh}",
            )
        )
    return out


@dataclass(frozen=True)
class _RuleCheck:
    name: str
    applies: str  # which benchmarks it is about: any | spec | agentic-spec | master | append-only
    reads: str  # what its rules read: recipes | master | changelog
    # its wording is in its SGN record (`rules/signoff/`): variants `na`, `ok` and, for a
    # check with an `-unread` row, `what-unread` (what a human checks there)

    @property
    def na(self) -> T:
        return _says(self.name, "na")

    @property
    def ok(self) -> T:
        return _says(self.name, "ok")

    @property
    def unread(self) -> T | None:
        rule = signoff_rule(self.name)
        return rule.variants.get("what-unread") if rule is not None else None


_RULE_CHECKS = (
    _RuleCheck(
        "images",
        "master",
        "master",
    ),
    _RuleCheck(
        "deprecated",
        "master",
        "master",
    ),
    _RuleCheck(
        "architecture",
        "any",
        "recipes",
    ),
    _RuleCheck(
        "chat-template",
        "spec",
        "recipes",
    ),
    _RuleCheck(
        "golden-al",
        "agentic-spec",
        "recipes",
    ),
    _RuleCheck(
        "append-only",
        "append-only",
        "changelog",
    ),
)


def _relevant(kind: str, b: BenchmarkChange) -> bool:
    if kind == "spec":
        return b.spec_decode
    if kind == "agentic-spec":
        return b.agentic and b.spec_decode
    if kind == "master":
        return b.entry is not None
    return True


def _rule_check(
    spec: _RuleCheck, facts: SignoffFacts, cfg: Settings, signoff: Signoff
) -> list[Check]:
    content = facts.content
    if content is None:
        return [_not_linted(spec.name)]
    gate = _gate(facts, cfg.rules.get(spec.name, ()), signoff)
    claim = _exception_claim(signoff) if spec.name == "images" else None
    if gate.state == "fail" and gate.errors and not gate.unacknowledged and claim is not None:
        # checks 6 (images) and 9/10 (engine order) allow exceptions for new hardware and
        # new architectures: the bot cannot judge one, so it lists the claim for the human
        en, zh = _finding_reason(gate.errors, facts)
        return [
            _check(
                spec.name,
                "human",
                f"the sign-off claims an exception (“{claim[:160]}”); check it against {en}",
                f"签署中声明了例外（“{claim[:160]}”）；请对照核实：{zh}",
            )
        ]
    return _gate_rows(spec.name, gate, facts, _rule_rows(spec, facts, cfg, content))


_EXCEPTION = re.compile(
    r"\bexception\b|\bexempt|\bnew hardware\b|\bnew (?:model )?architecture|例外|新硬件|新模型架构",
    re.I,
)


def _exception_claim(signoff: Signoff) -> str | None:
    """The sign-off's line claiming an image or engine-order exception, with a reason."""
    for line in signoff.explanations.splitlines():
        if _EXCEPTION.search(line) and _gives_reason(line):
            return " ".join(line.split())
    return None


def _disapproval(facts: SignoffFacts, cfg: Settings) -> list[Check]:
    """policy-bot's disapproval: a phrase by someone with write access blocks until withdrawn."""
    if not cfg.disapprove:
        return []
    if facts.comments is None:
        return [_row("disapproval", "unknown", "comments-unread")]

    def says(body: str, phrases: Sequence[str]) -> bool:
        low = body.lower()
        return any(p.lower() in low for p in phrases)

    standing: dict[str, str] = {}
    for c in facts.comments:
        if _same_login(c.author, facts.bot_login):
            continue
        key = c.author.lower()
        if cfg.withdraw and says(c.body, cfg.withdraw):
            standing.pop(key, None)
        elif says(c.body, cfg.disapprove) and (c.permission or "").lower() in cfg.write:
            standing[key] = c.author
    if standing:
        who = ", ".join(_at(a) for a in standing.values())
        undo = ", ".join(f"`{w}`" for w in cfg.withdraw) or "-"
        return [_row("disapproval", "fail", "disapproved", who=who, undo=undo)]
    return [_row("disapproval", "pass", "none")]


def _rule_rows(
    spec: _RuleCheck, facts: SignoffFacts, cfg: Settings, content: PrContent
) -> list[Check]:
    if spec.applies == "append-only":
        if not content.append_only:
            return [Check(spec.name, "na", spec.na)]
        return [
            Check(spec.name, "pass", spec.ok),
            _row("append-only-isolation", "human", "check"),
        ]
    relevant = [b for b in content.benchmarks if _relevant(spec.applies, b)]
    if not relevant:
        return [Check(spec.name, "na", spec.na)]
    if spec.reads != "recipes":
        return [Check(spec.name, "pass", spec.ok)]
    scripts = [b for b in relevant if _is_script(b)]
    others = [_name(b) for b in relevant if not _is_script(b) and not _covered(b, scripts)]
    if not others:
        return [Check(spec.name, "pass", spec.ok)]
    what = spec.unread or T("its rules", "规则所查内容")
    en, zh = _unread_reason(others, what.en, what.zh)
    if not scripts:
        return [_check(spec.name, "human", en, zh)]
    return [Check(spec.name, "pass", spec.ok), _check(f"{spec.name}-unread", "human", en, zh)]


# ------------------------------------------------------------------ the verdict


def _verdict(facts: SignoffFacts, checks: Sequence[Check]) -> Verdict:
    ok = all(c.status in ("pass", "na", "human") for c in checks)
    return Verdict("pass" if ok else "fail", facts.head_sha, facts.signer, tuple(checks))


def verify(facts: SignoffFacts, knowledge: Knowledge) -> Verdict:
    """Every check of the sign-off in `facts.body`, and the verdict they add up to."""
    cfg = Settings.from_knowledge(knowledge)
    signoff = find_signoff(facts.body)
    if signoff is None:
        return _verdict(facts, [_absent(facts.body)])
    checks: list[Check] = [_detected(facts, signoff), _signed(facts, signoff), _owner(facts, cfg)]
    checks += _disapproval(facts, cfg)
    checks += _template(facts, signoff, cfg)
    checks.append(_ci(facts, cfg))
    checks.append(_row("eval-accuracy", "human", "check"))
    checks.append(_reuse(facts, cfg))
    checks += _recipe_link(facts, signoff, cfg)
    by_name = {s.name: s for s in _RULE_CHECKS}
    for name in ("images", "deprecated", "architecture", "chat-template"):
        checks += _rule_check(by_name[name], facts, cfg, signoff)
    checks += _waiver(facts, signoff, cfg)
    for name in ("golden-al", "append-only"):
        checks += _rule_check(by_name[name], facts, cfg, signoff)
    return _verdict(facts, checks)


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


def _owns(facts: SignoffFacts, group: OwnerGroup, cfg: Settings) -> bool:
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


def _valid_signer(v: Verdict) -> bool:
    """A sign-off whose own rows pass apart from who owns what."""
    ok = ("pass", "na", "human")
    for c in v.checks:
        if c.name == "owner":
            continue
        if c.name in ("signoff", "signed", "template", "disapproval") and c.status not in ok:
            return False
    return True


def verify_all(signoffs: Sequence[SignoffFacts], knowledge: Knowledge) -> Verdict:
    """The verdict over every live sign-off on one head, in the order posted.

    The newest decides every row but ownership: a PR touching the files of several
    CODEOWNERS groups passes when each group has a valid sign-off (its own rows pass and
    its signer owns the group, with write access), combined across sign-off comments; the
    owner row names the groups still missing.
    """
    if not signoffs:
        raise ValueError("verify_all needs at least one sign-off")
    cfg = Settings.from_knowledge(knowledge)
    newest = signoffs[-1]
    verdict = verify(newest, knowledge)
    rows = {c.name: c for c in verdict.checks}
    owner = rows.get("owner")
    groups = owner_groups(newest)
    signers = {f.signer.lower() for f in signoffs}
    if owner is None or owner.status == "pass" or not groups or len(signers) < 2:
        return verdict  # one signer: their own owner row says best what is wrong
    covered: dict[int, str] = {}
    seen: set[str] = set()
    for facts in reversed(signoffs):
        if facts.signer.lower() in seen:
            continue  # a signer's newest sign-off speaks for them
        seen.add(facts.signer.lower())
        if facts is not newest:
            facts = replace(facts, findings=newest.findings, content=newest.content)
        own = verify(facts, knowledge) if facts is not newest else verdict
        permission = (facts.signer_permission or "").lower()
        if not _valid_signer(own) or permission not in cfg.write or _is_bot(facts.signer, facts):
            continue
        if cfg.exclude_author and _same_login(facts.signer, facts.pr_author):
            continue
        for g in groups:
            if g.line not in covered and _owns(facts, g, cfg):
                covered[g.line] = facts.signer
    if len(covered) < len(groups) and (owner.status != "fail" or not covered):
        # unknown stays unknown (combining cannot verify what one could not), and with no
        # group covered the newest signer's own reason is the clearest
        return verdict
    if len(covered) < len(groups):
        missing = [g for g in groups if g.line not in covered]
        shown = "; ".join(
            (
                f"`{g.paths[0]}` ({', '.join(g.owners)}, CODEOWNERS line {g.line})"
                if g.line
                else f"`{g.paths[0]}` (any CODEOWNER)"
            )
            for g in missing[:MAX_LISTED]
        )
        have = ", ".join(f"line {k} by {_at(v)}" for k, v in sorted(covered.items()) if k) or "none"
        check = _row("owner", "fail", "groups-missing", shown=shown, have=have)
    else:
        have = ", ".join(
            f"{_at(v)} ({'catch-all' if k == 0 else f'CODEOWNERS line {k}'})"
            for k, v in sorted(covered.items())
        )
        check = _row("owner", "pass", "groups-signed", have=have)
    checks = tuple(check if c.name == "owner" else c for c in verdict.checks)
    return _verdict(newest, list(checks))
