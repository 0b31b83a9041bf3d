"""The sign-off checklist template, and matching a sign-off's items to it. Pure.

`parse_template(text, zh_text)` reads the template block (the fenced block of
`docs/PR_REVIEW_CHECKLIST.md` that holds the sign-off phrase) into items,
nested items included. The Chinese document (`PR_REVIEW_CHECKLIST_zh.md`)
adds a Chinese wording to each item: its numbered notes ("各条目中文对照说明")
follow the Chinese document's own copy of the template, which is aligned to
the current English items by similarity. The Chinese document's English
template text is used only for that alignment, never as an accepted wording:
it may be stale, and an item whose requirement changed must be re-copied.

`match_items(template, items)` pairs each template item with at most one
sign-off item. Texts are compared as bags of words (English words, numbers,
and Chinese character pairs), each word weighted by how rare it is among the
template's items, so that "MERGED" weighs more than "verified". A pair's
score is the weighted share of the template item's words present in the
sign-off item (recall), lightly discounted for extra words; pairs are taken
best first, one to one, and kept when the score reaches the threshold
(`knowledge.signoff.match_threshold`). Reordered items, fixed typos, links
added to an item and small rewordings therefore still match; an item missing
from a stale copy, or replaced by an older requirement, does not.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import field
from functools import cached_property, lru_cache

from bot.base.records import dataclass
from bot.signoff.detect import SignoffItem, find_signoff, split_lines

DEFAULT_THRESHOLD = 0.6
# aligning the Chinese document's notes (via its own, possibly older, English
# template) to the current items: looser, since a note is only a translation hint
ALIGN_THRESHOLD = 0.4

_MD_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")
_NOTE = re.compile(r"^\s*(\d{1,3})[.)、]\s+(?P<text>.+)$")
_STOP_WORDS = """
a an and are as at be been by for from has have i if in is it its of on or that the this to
was we were with which will any not no
"""
_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True)
class TemplateItem:
    index: int  # position in the template, 0-based
    number: str  # "1".."14" for top-level items, "11.1" for the first item nested under 11
    text: str
    level: int
    parent: int | None  # index of the enclosing item
    zh: str = ""  # the Chinese document's wording of the item, "" when unknown

    def short(self, limit: int = 90) -> str:
        """The item's text as a reader recognises it: links reduced to their labels."""
        plain = _MD_LINK.sub(r"\1", self.text)
        plain = re.sub(r"\s+", " ", plain).strip()
        return plain if len(plain) <= limit else plain[: limit - 1].rstrip() + "…"

    def short_zh(self, limit: int = 60) -> str:
        if not self.zh:
            return self.short()
        plain = re.sub(r"\s+", " ", _MD_LINK.sub(r"\1", self.zh)).strip()
        return plain if len(plain) <= limit else plain[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Template:
    items: tuple[TemplateItem, ...]
    # rarity weight of each word over the template's items
    weights: Mapping[str, float] = field(default_factory=dict, compare=False, repr=False)

    def weight(self, word: str) -> float:
        return self.weights.get(word, self.unseen)

    @cached_property
    def unseen(self) -> float:
        """The weight of a word no template item uses: the rarest's."""
        return max(self.weights.values(), default=1.0)


@dataclass(frozen=True)
class Match:
    item: TemplateItem
    signoff: SignoffItem | None  # None: missing from the sign-off
    score: float


# ------------------------------------------------------------------ words


def words(text: str) -> Counter[str]:
    """The words of an item: lower-case English words and numbers, Chinese character pairs."""
    return Counter(_bag(text))


def _bag(text: str) -> Mapping[str, int]:
    return _cached_bag(text) if len(text) <= 4000 else _make_bag(text)


@lru_cache(maxsize=2048)
def _cached_bag(text: str) -> Mapping[str, int]:
    return _make_bag(text)


def _make_bag(text: str) -> Mapping[str, int]:
    plain = _MD_LINK.sub(r"\1 \2", text).lower()
    out: Counter[str] = Counter()
    for w in _WORD.findall(plain):
        if w[0] >= "\u3400":
            if len(w) == 1:
                out[w] += 1
            for i in range(len(w) - 1):
                out[w[i : i + 2]] += 1
        elif w not in _STOP and (len(w) > 1 or w.isdigit()):
            out[w] += 1
    return dict(out)


def _weights(texts: Sequence[str]) -> dict[str, float]:
    docs = [set(words(t)) for t in texts]
    n = len(docs)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d)
    return {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}


def similarity(template: Template, expected: str, given: str) -> float:
    """How well `given` (a sign-off item) renders `expected` (a template wording), 0..1."""
    want, have = _bag(expected), _bag(given)
    if not want or not have:
        return 0.0
    weight = template.weight
    total = sum(weight(w) * c for w, c in want.items())
    hit = sum(weight(w) * min(c, have[w]) for w, c in want.items() if w in have)
    extra = sum(weight(w) * c for w, c in have.items() if w not in want)
    recall = hit / total if total else 0.0
    # extra words (a link, a note) cost little; an unrelated text has few hits anyway
    precision = hit / (hit + extra) if hit + extra else 0.0
    return 0.85 * recall + 0.15 * precision


# ------------------------------------------------------------------ parsing


def _block_with_phrase(text: str) -> str | None:
    """The text of the first fenced code block that holds the sign-off phrase."""
    lines = split_lines(text)
    block: list[str] = []
    inside = False
    for ln in lines:
        if ln.code and not inside and ln.text.lstrip().startswith(("```", "~~~")):
            inside, block = True, []
            continue
        if inside and (not ln.code or ln.text.lstrip().startswith(("```", "~~~"))):
            inside = False
            body = "\n".join(block)
            if find_signoff(body) is not None:
                return body
            continue
        if inside:
            block.append(ln.text)
    if inside:
        body = "\n".join(block)
        if find_signoff(body) is not None:
            return body
    return None


def _items(block: str) -> list[tuple[str, int]]:
    signoff = find_signoff(block)
    if signoff is None:
        return []
    return [(i.text, i.level) for i in signoff.items if i.mark is not None]


def _notes(text: str, after: str) -> list[str]:
    """The numbered list after the template block in the Chinese document."""
    at = text.find(after) if after else -1
    rest = text[at + len(after) :] if at >= 0 else text
    out: list[str] = []
    for line in rest.splitlines():
        m = _NOTE.match(line)
        if m:
            out.append(m.group("text").strip())
        elif out and line.lstrip().startswith("#"):
            break
    return out


@lru_cache(maxsize=8)
def parse_template(text: str, zh_text: str | None = None) -> Template | None:
    """The checklist items of the template document; None when it holds no template block.

    Cached by text: a service verifies many sign-offs against one template.
    """
    block = _block_with_phrase(text)
    if block is None:
        return None
    raw = _items(block)
    if not raw:
        return None
    items: list[TemplateItem] = []
    parents: list[int] = []  # stack of indices by level
    top = 0
    sub: Counter[int] = Counter()
    for index, (item_text, level) in enumerate(raw):
        del parents[level:]
        parent = parents[-1] if parents else None
        if level == 0 or parent is None:
            top += 1
            number = str(top)
            level = 0
        else:
            sub[parent] += 1
            number = f"{items[parent].number}.{sub[parent]}"
        items.append(TemplateItem(index, number, item_text, level, parent))
        parents.append(index)
    weights = _weights([i.text for i in items])
    template = Template(tuple(items), weights)
    if zh_text:
        template = _with_chinese(template, zh_text)
    return template


def _with_chinese(template: Template, zh_text: str) -> Template:
    block = _block_with_phrase(zh_text)
    if block is None:
        return template
    zh_items = _items(block)
    notes = _notes(zh_text, block)
    tops = [t for t, level in zh_items if level == 0]
    if len(notes) != len(tops):
        return template  # the notes do not follow the Chinese template: no safe alignment
    pairs = _assign(template, list(template.items), [SignoffItem(t, False, 0, 0) for t in tops])
    zh: dict[int, str] = {}
    for item, given, score in pairs:
        if given is not None and score >= ALIGN_THRESHOLD and item.level == 0:
            zh[item.index] = notes[tops.index(given.text)]
    items = tuple(
        TemplateItem(i.index, i.number, i.text, i.level, i.parent, zh.get(i.index, ""))
        for i in template.items
    )
    return Template(items, template.weights)


def fill_zh(template: Template, fallbacks: Sequence[tuple[str, str]]) -> Template:
    """Chinese wording for every item: the Chinese document's, else the first fallback whose
    pattern matches the English item, else (a nested item) its parent's."""
    items: list[TemplateItem] = []
    for i in template.items:
        zh = i.zh
        if not zh:
            for pattern, text in fallbacks:
                try:
                    if re.search(pattern, i.short(10_000).replace("`", ""), re.I):
                        zh = text
                        break
                except re.error:
                    continue
        if not zh and i.parent is not None:
            zh = items[i.parent].zh
        items.append(TemplateItem(i.index, i.number, i.text, i.level, i.parent, zh))
    return Template(tuple(items), template.weights)


# ------------------------------------------------------------------ matching


def _score(template: Template, item: TemplateItem, given: SignoffItem) -> float:
    best = similarity(template, item.text, given.text)
    if item.zh:
        best = max(best, similarity(template, item.zh, given.text))
    return best


def _assign(
    template: Template, expected: Sequence[TemplateItem], given: Sequence[SignoffItem]
) -> list[tuple[TemplateItem, SignoffItem | None, float]]:
    scores = [
        (_score(template, t, g), -abs(ti - gi), ti, gi)
        for ti, t in enumerate(expected)
        for gi, g in enumerate(given)
    ]
    scores.sort(reverse=True)
    used_t: dict[int, tuple[int, float]] = {}
    used_g: set[int] = set()
    for score, _, ti, gi in scores:
        if ti in used_t or gi in used_g or score <= 0:
            continue
        used_t[ti] = (gi, score)
        used_g.add(gi)
    out: list[tuple[TemplateItem, SignoffItem | None, float]] = []
    for ti, t in enumerate(expected):
        if ti in used_t:
            gi, score = used_t[ti]
            out.append((t, given[gi], score))
        else:
            out.append((t, None, 0.0))
    return out


def match_items(
    template: Template, items: Sequence[SignoffItem], threshold: float = DEFAULT_THRESHOLD
) -> list[Match]:
    """Each template item with the sign-off item that renders it (None: missing)."""
    out = []
    for item, given, score in _assign(template, template.items, items):
        if given is not None and score < threshold:
            given = None
        out.append(Match(item, given, round(score, 3)))
    return out
