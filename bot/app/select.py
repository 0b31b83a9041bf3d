"""`select_rules`: the rules a lint runs, from ruff-like selectors. Pure.

A selector is `ALL`, a rule id (`RCP001`), a slug (`golden-al-mismatch`) or an id
prefix (`RCP`, `CHL00`); options take them comma-separated. `--select` chooses
(default: every rule), `--extend-select` adds, `--ignore` removes (it wins over
both). Rules the repository's configuration disables stay off whatever is
selected: the engine skips them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from bot.base.records import dataclass
from bot.core.registry import RuleModule, all_rules

_PREFIX_RE = re.compile(r"[A-Z]{1,3}[0-9]{0,3}")


class SelectionError(ValueError):
    """A selector that names no rule. One-line message."""


SelectOption = Literal["--select", "--extend-select"]


@dataclass(frozen=True)
class Overridden:
    """A `--select`/`--extend-select` selector every rule of which `--ignore` removes:
    it selects nothing (`--select RCP001 --ignore RCP001`)."""

    option: SelectOption
    selector: str
    ignored_by: tuple[str, ...]  # the --ignore selectors that remove its rules
    rules: tuple[str, ...]  # the rule ids it names


@dataclass(frozen=True)
class Selection:
    # the rules to run, in registry order; None: every rule (nothing was selected)
    rules: list[RuleModule] | None
    overridden: tuple[Overridden, ...] = ()


def match_rules(selector: str, rules: Sequence[RuleModule]) -> set[str]:
    """Rule ids a selector names: ALL, an id, a slug or an id prefix."""
    upper = selector.upper()
    if upper == "ALL":
        return {rm.rule.id for rm in rules}
    exact = {rm.rule.id for rm in rules if upper == rm.rule.id or selector == rm.rule.slug}
    if exact or not _PREFIX_RE.fullmatch(upper):
        return exact
    return {rm.rule.id for rm in rules if rm.rule.id.startswith(upper)}


def _items(values: Sequence[str] | None) -> list[str]:
    return [
        item for value in values or () for item in (x.strip() for x in value.split(",")) if item
    ]


def select_rules(
    select: Sequence[str] | None = None,
    extend_select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
) -> Selection:
    """The rules `select`, `extend_select` and `ignore` leave (each a list of
    comma-separated selectors, as the options are given); `rules` is None when none
    is given. Raises `SelectionError` for a selector that names no rule."""
    if not (select or extend_select or ignore):
        return Selection(None)
    rules = all_rules()

    def resolve(values: Sequence[str] | None, option: str) -> list[tuple[str, set[str]]]:
        out = []
        for item in _items(values):
            found = match_rules(item, rules)
            if not found:
                raise SelectionError(
                    f"{option} {item!r} names no rule (run 'bot rules' for the list)"
                )
            out.append((item, found))
        return out

    chosen_items = resolve(select, "--select")
    extra_items = resolve(extend_select, "--extend-select")
    ignored_items = resolve(ignore, "--ignore")
    chosen = set().union(*(ids for _, ids in chosen_items)) if select else None
    if chosen is None:
        chosen = {rm.rule.id for rm in rules}
    for _, ids in extra_items:
        chosen |= ids
    ignored: set[str] = set().union(*(ids for _, ids in ignored_items))
    chosen -= ignored
    overridden = []
    options: tuple[tuple[SelectOption, list[tuple[str, set[str]]]], ...] = (
        ("--select", chosen_items),
        ("--extend-select", extra_items),
    )
    for option, items in options:
        for item, ids in items:
            if ids <= ignored:
                by = tuple(i for i, removed in ignored_items if removed & ids)
                overridden.append(Overridden(option, item, by, tuple(sorted(ids))))
    return Selection([rm for rm in rules if rm.rule.id in chosen], tuple(overridden))
