"""The parser table: which parser reads each kind of file. Registered here, once.

The engine and the context never import a parser: they receive this table
(`Context.parsers`) and look a kind up in it, so `ctx.parsed("recipe", path)`
needs no parser function at the call site. A parser takes the path, the text and
the run's `ParseRun` (per-run inputs and scratch state) and never raises: a file
it cannot read comes back as data the rules report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any, Literal

from bot.base.records import dataclass
from bot.parse.changelog import ChangelogMemory, parse_changelog
from bot.parse.golden import parse_golden
from bot.parse.master_config import MasterConfig, MasterConfigMemory, parse_master_config
from bot.parse.pydantic_models import parse_models
from bot.parse.recipe import RecipeInputs, parse_recipe
from bot.parse.yamlsafe import YamlError

Kind = Literal["recipe", "changelog", "master_config", "golden", "pydantic_models"]


@dataclass(frozen=True, eq=False)
class ParseRun:
    """What one lint run gives its parsers: knowledge-derived inputs and scratch memory.

    Owned by the run's context, never by a module, so two runs (or two threads)
    share nothing.
    """

    # `knowledge.env_domains`: the values each recipe input can take ("" = unset)
    domains: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # the names the rules read and the target repository's helpers (`engines.recipe_inputs`)
    inputs: RecipeInputs = field(default_factory=RecipeInputs)
    # recent clean changelog parses, for re-reading only the changed tail of the next
    changelogs: ChangelogMemory = field(default_factory=ChangelogMemory)
    # recent clean master-config parses, for re-reading only the changed entries of the next
    master_configs: MasterConfigMemory = field(default_factory=MasterConfigMemory)
    # engine YAML files written by recipes (heredocs), loaded, by text: recipes of one
    # family write the same file, and a run loads each text once. Read-only once made.
    engine_docs: dict[str, Any] = field(default_factory=dict)

    def seen(self, kind: str, value: object) -> None:
        """A parse this run took from a cache: remembered as if parsed here, so the
        other side of a change re-reads only what differs."""
        if kind == "master_config" and isinstance(value, MasterConfig):
            self.master_configs.remember(value)

    @property
    def key(self) -> str:
        """The inputs that change a parse's result: part of every cache key."""
        return repr(sorted((k, sorted(v)) for k, v in self.domains.items())) + self.inputs.key()


Parser = Callable[[str, str, ParseRun], object]


def _recipe(path: str, text: str, run: ParseRun) -> object:
    return parse_recipe(
        path, text, domains=run.domains or None, inputs=run.inputs, engine_docs=run.engine_docs
    )


def _changelog(path: str, text: str, run: ParseRun) -> object:
    return parse_changelog(path, text, memory=run.changelogs)


def _master_config(path: str, text: str, run: ParseRun) -> object:
    return parse_master_config(path, text, memory=run.master_configs)


def _golden(path: str, text: str, run: ParseRun) -> object:
    try:
        return parse_golden(path, text)
    except YamlError as exc:
        return exc


def _pydantic_models(path: str, text: str, run: ParseRun) -> object:
    return parse_models(path, text)


PARSERS: Mapping[str, Parser] = MappingProxyType(
    {
        "recipe": _recipe,
        "changelog": _changelog,
        "master_config": _master_config,
        "golden": _golden,
        # the repository's own validator (`knowledge.master_config_validator`), read statically
        "pydantic_models": _pydantic_models,
    }
)
