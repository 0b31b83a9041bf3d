"""The sign-off's settings: `knowledge.signoff` (and `engine_patching.waiver_dir`) read
once into a frozen `Settings`, the shipped knowledge filling every key a repository
leaves out. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from bot.base.records import dataclass
from bot.core.config import Knowledge, build_config


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
