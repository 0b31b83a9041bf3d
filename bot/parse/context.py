"""What the parse layer's context queries read from a lint run. Pure interface.

A few parse helpers answer questions about the run rather than one file (the
base's changelog as this PR is judged against, every master config of the head,
the golden curves of the tree). They take any object with this shape; the
engine's `bot.core.context.Context` is the one the product passes, and the
rules' `RuleContext` protocol extends this one. The parse layer never imports
the core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar, overload

from bot.base.knowledge import Knowledge
from bot.base.tree import Tree

if TYPE_CHECKING:
    from bot.parse.changelog import Changelog
    from bot.parse.golden import GoldenCurve, GoldenSet
    from bot.parse.master_config import MasterConfig
    from bot.parse.pydantic_models import ModelTable
    from bot.parse.recipe import Recipe
    from bot.parse.yamlsafe import YamlError

V = TypeVar("V")


class PathsConfig(Protocol):
    """The configured paths parse helpers route by."""

    @property
    def golden_dir(self) -> str: ...

    @property
    def master_configs(self) -> tuple[str, ...]: ...


class ParseContext(Protocol):
    @property
    def tree(self) -> Tree: ...

    @property
    def base(self) -> Tree | None: ...

    @property
    def base_tip(self) -> Tree | None: ...

    @property
    def pr(self) -> int | None: ...

    @property
    def config(self) -> PathsConfig: ...

    @property
    def knowledge(self) -> Knowledge: ...

    def text(self, path: str, tree: Tree | None = None) -> str | None: ...

    @overload
    def parsed(
        self, kind: Literal["recipe"], path: str, tree: Tree | None = None
    ) -> Recipe | None: ...
    @overload
    def parsed(
        self, kind: Literal["changelog"], path: str, tree: Tree | None = None
    ) -> Changelog | None: ...
    @overload
    def parsed(
        self, kind: Literal["master_config"], path: str, tree: Tree | None = None
    ) -> MasterConfig | None: ...
    @overload
    def parsed(
        self, kind: Literal["golden"], path: str, tree: Tree | None = None
    ) -> list[GoldenCurve] | YamlError | None: ...
    @overload
    def parsed(
        self, kind: Literal["pydantic_models"], path: str, tree: Tree | None = None
    ) -> ModelTable | None: ...

    def memo(self, key: str, make: Callable[[], V]) -> V: ...

    def all_paths(self, tree: Tree | None = None) -> list[str]: ...

    def golden(self) -> GoldenSet: ...
