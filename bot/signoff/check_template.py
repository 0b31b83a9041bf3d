"""Check 5 of the sign-off: every item of the repository's current PR template is
present in the sign-off, checked, or explained (a note under it, or a line that
names it and gives a reason); conditional items do not apply when the PR's content
says so. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.core.model import Join, Part, T, part
from bot.signoff.detect import Signoff
from bot.signoff.model import (
    Check,
    PrContent,
    SignoffFacts,
)
from bot.signoff.rows import (
    MAX_LISTED,
    composed_row,
    make_row,
)
from bot.signoff.settings import Settings
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


def gives_reason(text: str) -> bool:
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
    if m.signoff is not None and m.signoff.note.strip() and gives_reason(m.signoff.note):
        return True
    named = [m.item]
    if m.item.parent is not None:
        named.append(template.items[m.item.parent])
    for line in signoff.explanations.splitlines():
        for item in named:
            rest = _names_item(item, line, subjects[item.index], cfg.generic_words)
            if rest is not None and gives_reason(rest):
                return True
    return False


def _listed(items: Sequence[TemplateItem]) -> dict[str, Join | Part | str]:
    """`items=` the first few items quoted in each language's wording, `more=` the rest."""
    shown = tuple(part("item", text=T(i.short(60), i.short_zh(40))) for i in items[:MAX_LISTED])
    return {"items": Join(shown, "clauses"), "more": _more(len(items) - MAX_LISTED)}


def template_rows(facts: SignoffFacts, signoff: Signoff, cfg: Settings) -> list[Check]:
    path = cfg.template_path
    if facts.template_text is None:
        return [make_row("template", "unknown", "template-unread", path=path)]
    template = parse_template(facts.template_text, facts.template_zh_text)
    if template is None:
        return [make_row("template", "unknown", "template-zh-unread", path=path)]
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
        out.append(composed_row("template", "fail", Join(tuple(problems), "clauses")))
    elif not unchecked:
        out.append(make_row("template", "pass", "all-checked", n=len(template.items)))
    else:
        why = part("unchecked-explained", n=len(explained))
        na = part("unchecked-na", n=len(not_applicable))
        if explained and not_applicable:
            why = part("unchecked-both", explained=why, na=na)
        elif not explained:
            why = na
        out.append(
            make_row("template", "pass", "all-present", n=len(template.items), unchecked=why)
        )
    if explained:
        out.append(make_row("explanations", "human", "read", **_listed(explained)))
    return out
