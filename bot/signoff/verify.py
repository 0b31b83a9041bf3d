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

from bot.core.config import Knowledge, build_config
from bot.core.gate import Gate, decide
from bot.core.model import Finding, Join, Part, T, part
from bot.core.suppress import Silenced
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
from bot.signoff.wording import more as _more
from bot.signoff.wording import says
from bot.signoff.wording import words as worded

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
    generic_words: frozenset[str]

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
            generic_words=frozenset(str(w).lower() for w in table.get("generic_words") or ()),
        )


@lru_cache(maxsize=1)
def _shipped() -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The shipped knowledge's `signoff` and `engine_patching` tables."""
    knowledge = build_config(None).knowledge
    return knowledge.section("signoff") or {}, knowledge.section("engine_patching") or {}


# ------------------------------------------------------------------ helpers


# Every word of a row comes from its SGN record (`rules/signoff/`) or the shared
# clauses of SGN000 (`bot/signoff/wording.py`); the code passes values and parts.


def _says(name: str, variant: str, /, **params: Any) -> T:
    """A wording of the sign-off row `name`, from its SGN record."""
    return says(name, variant, **params)


def _row(name: str, status: CheckStatus, variant: str, /, **params: Any) -> Check:
    return Check(name, status, says(name, variant, **params))


def _composed(name: str, status: CheckStatus, value: Part | Join) -> Check:
    """A row whose reason is several clauses of its record (a `Join` of parts)."""
    return Check(name, status, worded(name, value))


def _at(login: str) -> str:
    return f"@{login}"


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


def _finding(found: Sequence[Finding], facts: SignoffFacts) -> Part:
    """The first finding, linked, with its message; "+N more" for the others."""
    first = found[0]
    return part(
        "finding", where=_link(facts, first), message=first.message, more=_more(len(found) - 1)
    )


def _suppressed_by(s: Silenced) -> Part:
    """`suppressed in this PR by @author: reason`."""
    reason = s.suppression.reason
    if s.author:
        return part("suppressed-by", author=_at(s.author), reason=reason)
    return part("suppressed-here", reason=reason)


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
            return [_composed(name, "fail", _finding(gate.errors, facts))]
        s = gate.unacknowledged[0]
        blocks = part(
            "suppressed-blocks",
            where=_link(facts, s.finding),
            message=s.finding.message,
            by=_suppressed_by(s),
            rule=s.finding.rule,
        )
        return [_composed(name, "fail", blocks)]
    clauses: list[Part] = []
    if gate.warnings:
        clauses.append(part("warned", finding=_finding(gate.warnings, facts)))
    for kind, listed in (
        ("suppressed-open", gate.unacknowledged),
        ("suppressed-acknowledged", gate.acknowledged),
    ):
        for s in listed[:MAX_LISTED]:
            where = _link(facts, s.finding)
            clauses.append(part(kind, rule=s.finding.rule, where=where, by=_suppressed_by(s)))
    row = _composed(name, "human", Join(tuple(clauses), "clauses"))
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
        return _row(
            "owner",
            "fail",
            "not-owner",
            path=path,
            owners=Join(tuple(names)),
            line=line,
            signer=_at(signer),
            more=_more(len(failed) - 1),
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
    via_org: list[str] = []
    org_ok = cfg.unreadable_teams == "org-member" and facts.signer_org_member is True
    if org_ok and (unreadable or codeowner is None):
        via_org = sorted({t for _, ts in unreadable for t in ts} | set(any_unknown))
        specific += [p for p, _ in unreadable]
        unreadable = []
        codeowner = True
    if unreadable:
        path, teams = unreadable[0]
        return _row(
            "owner",
            "unknown",
            "team-unreadable",
            signer=_at(signer),
            shown=Join(tuple(teams)),
            path=path,
        )
    if codeowner is None:
        shown = Join(tuple(any_unknown[:MAX_LISTED]))
        return _row("owner", "unknown", "teams-unreadable", signer=_at(signer), shown=shown)
    if permission is None:
        return _row("owner", "unknown", "permission-unknown", signer=_at(signer))
    note = part("via-org", teams=Join(tuple(via_org))) if via_org else ""
    if specific:
        return _row(
            "owner",
            "pass",
            "owns",
            signer=_at(signer),
            path=specific[0],
            more=_more(len(specific) - 1),
            permission=permission,
            note=note,
        )
    return _row("owner", "pass", "codeowner", signer=_at(signer), permission=permission, note=note)


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


# where an item's first sentence ends: its subject is what comes before
_SUBJECT_END = re.compile(r"(?<=[\w)`*])[.;:](?=\s|$)|\s[—–-]{1,2}\s|[。；：]")


def _subject(text: str) -> str:
    """An item's subject: its first sentence, links reduced to their labels."""
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    plain = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(":", " "), plain)
    end = _SUBJECT_END.search(plain)
    return plain[: end.start()] if end else plain


def _stem(word: str) -> str:
    """A word without its plural ending, so that "patch" names "patches"."""
    if len(word) <= 4 or not word.endswith("s") or word.endswith("ss"):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1]


def _bag(text: str, generic: frozenset[str]) -> set[str]:
    """Words that may name a subject: English words of at least 4 letters (stemmed) that
    are not `knowledge.signoff.generic_words`, and Chinese character pairs."""
    out = set()
    for w in words(text):
        if w.isascii():
            if len(w) >= 4 and not w.isdigit() and w not in generic:
                out.add(_stem(w))
        elif len(w) == 2:
            out.add(w)
    return out


def _subject_words(template: Template, item: TemplateItem, generic: frozenset[str]) -> set[str]:
    """The words of the item's subject (its first sentence) that no other item's subject
    uses, in each language (English words of the English wording, Chinese character
    pairs of the Chinese)."""
    others = [o for o in template.items if o.index != item.index]
    out: set[str] = set()
    for english in (True, False):

        def subject(i: TemplateItem, english: bool = english) -> set[str]:
            text = _subject(i.text if english else i.zh)
            return {w for w in _bag(text, generic) if w.isascii() == english}

        out |= subject(item) - set().union(*(subject(o) for o in others))
    return out


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


def _names_item(
    item: TemplateItem, line: str, subject: set[str], generic: frozenset[str]
) -> str | None:
    """The rest of `line` when it names `item` by its number or by a word of its subject
    (`subject`: `_subject_words`); verifier check 5: an explanation that names neither
    does not explain it."""
    number = re.escape(item.number)
    ref = re.search(
        rf"(?:\b(?:item|check|no\.?)\s*#?|#|第|条目)\s*{number}(?![\d.])\s*(?:项|条)?"
        rf"|^\s*\(?{number}\)?\s*[:：]",
        line,
        re.I,
    )
    if ref is not None:
        return line[: ref.start()] + " " + line[ref.end() :]
    named = subject & _bag(line, generic)
    english = [w for w in named if w.isascii()]
    # one English word of the subject names it; Chinese character pairs are weaker
    if english or len(named) >= 2:
        return line
    return None


def _explained(
    template: Template, m: Match, signoff: Signoff, subjects: Mapping[int, set[str]], cfg: Settings
) -> bool:
    """An unchecked item is explained only by a note under it, or a line that names it
    (or the item it is nested in) and gives a reason."""
    if m.signoff is not None and m.signoff.note.strip() and _gives_reason(m.signoff.note):
        return True
    named = [m.item]
    if m.item.parent is not None:
        named.append(template.items[m.item.parent])
    for line in signoff.explanations.splitlines():
        for item in named:
            rest = _names_item(item, line, subjects[item.index], cfg.generic_words)
            if rest is not None and _gives_reason(rest):
                return True
    return False


def _listed(items: Sequence[TemplateItem]) -> dict[str, Any]:
    """`items=` the first few items quoted in each language's wording, `more=` the rest."""
    shown = tuple(part("item", text=T(i.short(60), i.short_zh(40))) for i in items[:MAX_LISTED])
    return {"items": Join(shown, "clauses"), "more": _more(len(items) - MAX_LISTED)}


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
    subjects = {i.index: _subject_words(template, i, cfg.generic_words) for i in template.items}
    for m in open_items:
        if _condition_of(m.item, cfg) == "another_unchecked" and not others_open:
            not_applicable.append(m.item)
        elif _explained(template, m, signoff, subjects, cfg):
            explained.append(m.item)
        else:
            unexplained.append(m.item)
    out: list[Check] = []
    if missing or unexplained:
        problems = []
        if missing:
            problems.append(part("missing", n=len(missing), **_listed(missing)))
        if unexplained:
            problems.append(part("unexplained", n=len(unexplained), **_listed(unexplained)))
        out.append(_composed("template", "fail", Join(tuple(problems), "clauses")))
    elif not unchecked:
        out.append(_row("template", "pass", "all-checked", n=len(template.items)))
    else:
        why = part("unchecked-explained", n=len(explained))
        na = part("unchecked-na", n=len(not_applicable))
        if explained and not_applicable:
            why = part("unchecked-both", explained=why, na=na)
        elif not explained:
            why = na
        out.append(_row("template", "pass", "all-present", n=len(template.items), unchecked=why))
    if explained:
        out.append(_row("explanations", "human", "read", **_listed(explained)))
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


def _runs_label(patterns: Sequence[str]) -> Part | str:
    """The first two job names of a kind, and how many more."""
    if not patterns:
        return ""
    if len(patterns) == 1:
        return part("jobs-1", first=patterns[0])
    if len(patterns) == 2:
        return part("jobs-2", first=patterns[0], second=patterns[1])
    return part("jobs-more", first=patterns[0], second=patterns[1], n=len(patterns) - 2)


def _ci(facts: SignoffFacts, cfg: Settings) -> Check:
    bench_runs, eval_runs = sweep_jobs(facts.sweep_workflow_text, cfg)
    cfg = replace(cfg, benchmark_runs=bench_runs, eval_runs=eval_runs)
    if facts.pr_commits is None:
        return _row("ci-green", "unknown", "commits-unread")
    if facts.check_runs is None:
        return _row("ci-green", "unknown", "runs-unread")
    bench_label, eval_label = _runs_label(cfg.benchmark_runs), _runs_label(cfg.eval_runs)
    detail: Part | None = None
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
        if detail is not None or (bench.state == "none" and evals.state == "none"):
            continue
        for label, g in ((bench_label, bench), (eval_label, evals)):
            if g.state == "failed":
                detail = part("run-failed", sha_7=sha[:7], run=g.culprit, conclusion=g.conclusion)
            elif g.state == "pending":
                detail = part("run-pending", sha_7=sha[:7], run=g.culprit)
            elif g.state == "skipped":
                detail = part("runs-skipped", sha_7=sha[:7], jobs=label)
            elif g.state == "none":
                detail = part("no-run", sha_7=sha[:7], jobs=label)
            if detail is not None:
                break
    if detail is None:
        detail = part("no-runs", bench_label=bench_label, eval_label=eval_label)
    return _row("ci-green", "fail", "not-green", detail=detail)


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
    return _row(name, "unknown", "not-linted")


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
            out.append(_row("recipe-link", "na", "multi-node"))
        elif single:
            engines = tuple(f"`{e}`" for e in sorted({e for b in single for e in b.engines}))
            shown = Join(engines) if engines else part("engines-unknown")
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
    more = _more(len(needs) - 1)
    name = _name(needs[0])
    if not links:
        return [_row("recipe-link", "fail", "no-link", name=name, more=more)]
    return [
        _row("recipe-link", "pass", "linked", link=links[0], name=name, more=more),
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


def _unread(name: str, names: Sequence[str], what: T) -> Check:
    """`human`: the benchmarks `names` the rules do not read, for `what` by hand."""
    return _row(name, "human", "unread", name=names[0], more=_more(len(names) - 1), what=what)


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
    what = _says("waiver", "what-unread")
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
        out.append(_unread("waiver", unread, what))
        unread = []
    else:
        out.append(_row("waiver", "na", "no-benchmark"))
    if unread and not errors:
        out.append(_unread("waiver-unread", unread, what))
    out = _gate_rows("waiver", gate, facts, out)
    if older and not errors:
        out.append(_row("patch-preexisting", "human", "check", finding=_finding(older, facts)))
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
    def unread(self) -> T:
        return _says(self.name, "what-unread")


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
        found = _finding(gate.errors, facts)
        return [_row(spec.name, "human", "exception-claimed", claim=claim[:160], finding=found)]
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
        who = Join(tuple(_at(a) for a in standing.values()))
        undo = Join(tuple(f"`{w}`" for w in cfg.withdraw)) if cfg.withdraw else "-"
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
    if not scripts:
        return [_unread(spec.name, others, spec.unread)]
    return [Check(spec.name, "pass", spec.ok), _unread(f"{spec.name}-unread", others, spec.unread)]


# ------------------------------------------------------------------ a partial file list


# the rows judged from the PR's changed files (ownership, and what the lint read of them)
_FILE_ROWS = frozenset(
    {
        "owner",
        "recipe-link",
        "images",
        "deprecated",
        "architecture",
        "chat-template",
        "waiver",
        "golden-al",
        "append-only",
    }
)


def _unlisted(facts: SignoffFacts, checks: list[Check]) -> list[Check]:
    """When GitHub listed only part of the PR's files, a row judged from them that would
    pass or not apply is `unknown`: the files it did not see decide it. What a row found
    wrong still fails, and what needs a human still does."""
    cut = facts.files_partial
    if cut is None:
        return checks
    counts = {
        "listed": f"{cut.listed:,}",
        "changed": f"{cut.changed:,}",
        "rest": f"{cut.changed - cut.listed:,}",
    }
    return [
        _row(
            c.name,
            "unknown",
            "owners-unlisted" if c.name == "owner" else "files-unlisted",
            **counts,
        )
        if c.name in _FILE_ROWS and c.status in ("pass", "na")
        else c
        for c in checks
    ]


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
    # which items apply is read from the changed files: unknown when GitHub listed part
    checks += _template(
        replace(facts, content=None) if facts.files_partial else facts, signoff, cfg
    )
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
    return _verdict(facts, _unlisted(facts, checks))


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
    if newest.files_partial is not None:
        return verdict  # the groups of the files GitHub did not list are unknown
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
        shown = Join(
            tuple(
                part("group", path=g.paths[0], owners=Join(g.owners), line=g.line)
                if g.line
                else part("group-any", path=g.paths[0])
                for g in missing[:MAX_LISTED]
            ),
            "clauses",
        )
        lines = tuple(
            part("covered-line", line=k, signer=_at(v)) for k, v in sorted(covered.items()) if k
        )
        have: Any = Join(lines) if lines else part("covered-none")
        check = _row("owner", "fail", "groups-missing", shown=shown, have=have)
    else:
        have = Join(
            tuple(
                part("signed-line", line=k, signer=_at(v))
                if k
                else part("signed-catch-all", signer=_at(v))
                for k, v in sorted(covered.items())
            )
        )
        check = _row("owner", "pass", "groups-signed", have=have)
    checks = tuple(check if c.name == "owner" else c for c in verdict.checks)
    return _verdict(newest, list(checks))
