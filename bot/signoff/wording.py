"""Every word of the sign-off verdict, from the SGN records (`rules/signoff/`). Pure.

A row's reason is a named variant of its own record (`SGN003` for `owner`, ...),
filled with value-only parameters. A parameter may be a `Part` (a clause worded by a
variant), a `Join` (a list joined the way each language joins lists) or a `T`
(bilingual data: a finding's message, a checklist item's two wordings).

A part is looked up first in the row's own record, then in the shared record
`SGN000 verdict`, which holds the clauses every row uses (a linked finding, "+N more",
"suppressed in this PR by @author: reason", the benchmarks the rules do not read)
and the frame of the verdict comment (status words, headers, the blocking line, the
footer). No row variant may shadow a shared one (a meta-test checks it), so a name
means the same clause wherever it appears.

The verifier (`bot/signoff/verify.py`, its `check_*.py` modules and `rows.py`) and
`bot/signoff/render.py` compose no prose of their own; `tests/test_signoff_wording.py`
scans them for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.model import Part, Rule, T, part, render_param
from bot.core.registry import RuleModule, all_rules

SHARED = "verdict"  # the slug of SGN000: the verdict frame and the shared clauses


class _Records:
    """The SGN records by row, and each row's wordings, for one registry."""

    def __init__(self, rules: list[RuleModule]) -> None:
        self.rules = rules
        self.by_slug = {rm.rule.slug: rm.rule for rm in rules if rm.rule.target == "signoff"}
        shared = self.by_slug[SHARED].variants if SHARED in self.by_slug else {}
        self.variants = {slug: {**shared, **r.variants} for slug, r in self.by_slug.items()}


_LOADED: list[_Records] = []  # a derived view of the registry, rebuilt when it changes


def _records() -> _Records:
    rules = all_rules()
    if not _LOADED or _LOADED[0].rules is not rules:
        _LOADED[:] = [_Records(rules)]
    return _LOADED[0]


def record(name: str) -> Rule:
    rule = _records().by_slug.get(name)
    if rule is None:
        raise KeyError(f"no SGN record for the sign-off row {name!r}")
    return rule


def variants_of(name: str) -> Mapping[str, T]:
    """The wordings a row can use: its own record's, then the shared clauses."""
    record(name)
    return _records().variants[name]


def words(name: str, value: Any) -> T:
    """`value` (a `Part`, `Join`, `T` or plain value) in both languages, worded by
    the record of the row `name` and the shared clauses."""
    variants = variants_of(name)
    owner = record(name).id
    return T(
        en=render_param(value, "en", variants, owner),
        zh=render_param(value, "zh", variants, owner),
    )


def says(name: str, variant: str, /, **params: Any) -> T:
    """The wording `variant` of the row `name`, filled with `params` in each language."""
    if variant not in variants_of(name):
        raise KeyError(f"no SGN wording {variant!r} for the sign-off row {name!r}")
    return words(name, Part(variant, params))


def frame(variant: str, /, **params: Any) -> T:
    """A wording of the verdict comment's frame (`SGN000`)."""
    return says(SHARED, variant, **params)


def more(n: int) -> Part | str:
    """The "(+N more)" clause after the first of N + 1 things; nothing when N is 0."""
    return part("more", n=n) if n > 0 else ""
