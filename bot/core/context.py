"""What a rule may look at besides its own input: one typed, read-only lint run. Pure.

A `Context` is derived from what is linted: `Context.for_tree()` for a whole tree
or files named by hand, `Context.for_change()` for a pull request (its `ChangeSet`
holds the base, the head, the changed paths and the PR number; the context
repeats none of them). It owns the run's state: the parse cache, the parsers'
scratch memory and the memo of derived views, so two runs, in two threads or
one after the other, share nothing but what the caller passes in.

Rules type their context with `RuleContext`, the protocol this class satisfies.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import field, replace
from datetime import date
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, cast, overload

from bot.base.glob import glob_match
from bot.base.knowledge import Knowledge
from bot.base.records import dataclass
from bot.base.tree import Tree
from bot.core.changeset import ChangeSet
from bot.core.config import Config
from bot.core.reads import Reads, Recorder, TrackedTree
from bot.parse.changelog import ChangelogMemory
from bot.parse.context import ParseContext
from bot.parse.engines import recipe_inputs
from bot.parse.golden import GoldenSet, load_golden_set
from bot.parse.kinds import PARSERS, Parser, ParseRun

if TYPE_CHECKING:
    from bot.parse.changelog import Changelog
    from bot.parse.golden import GoldenCurve
    from bot.parse.master_config import MasterConfig
    from bot.parse.pydantic_models import ModelTable
    from bot.parse.recipe import Recipe
    from bot.parse.yamlsafe import YamlError

V = TypeVar("V")
Mode = Literal["tree", "pr"]


class ParseCache:
    """Parsed files by (kind, blob id, path, parse inputs). Thread-safe, bounded.

    Each context makes its own; a caller that lints many runs over the same blobs
    (a benchmark, a service reviewing pushes to one PR, a service reviewing many PRs
    of one base) may hand one to several. Bounded by entries and, when `max_bytes` is
    given, by the bytes of the texts parsed (a parse holds about ten times its text):
    the least recently used go first. With `changelogs`, the recent clean changelog
    parses are kept across runs too, so a head's changelog is read from where it
    leaves the base's (`bot.parse.changelog.ChangelogMemory`).
    """

    MAX = 4096

    def __init__(
        self,
        max_items: int = MAX,
        max_bytes: int | None = None,
        *,
        changelogs: bool = False,
    ) -> None:
        self._items: OrderedDict[tuple[str, str, str, str], tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_items = max_items
        self.max_bytes = max_bytes
        self._bytes = 0
        self.changelogs = ChangelogMemory() if changelogs else None
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[str, str, str, str]) -> tuple[bool, object]:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return True, self._items[key][0]
            self.misses += 1
        return False, None

    def put(self, key: tuple[str, str, str, str], value: object, size: int = 0) -> object:
        with self._lock:
            if key not in self._items:
                self._items[key] = (value, size)
                self._bytes += size
                while len(self._items) > self.max_items or (
                    self.max_bytes is not None
                    and self._bytes > self.max_bytes
                    and len(self._items) > 1
                ):
                    _, (_, old) = self._items.popitem(last=False)
                    self._bytes -= old
            return self._items[key][0] if key in self._items else value

    def __len__(self) -> int:
        return len(self._items)

    @property
    def size(self) -> int:
        """The bytes of the texts whose parses are held."""
        return self._bytes


def route(path: str, config: Config) -> str | None:
    """The kind of file `path` is by the configured globs (a key of the parser table)."""
    if path == config.changelog or glob_match(path, config.changelog):
        return "changelog"
    if any(glob_match(path, pat) for pat in config.master_configs):
        return "master_config"
    if any(glob_match(path, pat) for pat in config.recipes) and not any(
        glob_match(path, pat) for pat in config.recipes_exclude
    ):
        return "recipe"
    return None


class RuleContext(ParseContext, Protocol):
    """The context as rules see it (the engine passes a `Context`)."""

    @property
    def config(self) -> Config: ...

    @property
    def change(self) -> ChangeSet | None: ...

    @property
    def changed(self) -> frozenset[str] | None: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def review_date(self) -> date | None: ...

    @property
    def repository(self) -> str | None: ...

    def pr_link_prefix(self, default: str) -> str: ...

    def env_domains(self) -> Mapping[str, frozenset[str]]: ...

    def recipe(self, path: str) -> Recipe | None: ...

    def recipes(self, tree: Tree | None = None) -> list[str]: ...


@dataclass(eq=False)
class Context:
    """One lint run. Build it with `for_tree()` or `for_change()`."""

    tree: Tree
    config: Config
    # the pull request as a change (base and head trees, hunks, number, author);
    # None when a tree or hand-named files are linted
    change: ChangeSet | None = None
    # the pull request a tree-mode lint checks against (`bot lint FILE --pr N`);
    # in PR mode the change's own number is the one
    pr_number: int | None = None
    # the date rules judge dated knowledge against (deprecations); an input,
    # never read from a clock inside the core (read it as `review_date`)
    as_of: date | None = None
    # the pull request's GitHub repository (`owner/name`), when known
    repository: str | None = None
    # the base branch's tip, when it is ahead of the merge-base: entries a stale
    # branch carries from it are not the PR's own
    base_tip: Tree | None = None
    # kind -> parser (bot.parse.kinds); the engine receives it here
    parsers: Mapping[str, Parser] = field(default_factory=lambda: PARSERS)
    cache: ParseCache = field(default_factory=ParseCache)
    # what each file's lint reads (`reading()`), for a cache of results; None: not noted
    recorder: Recorder | None = None
    _run: ParseRun | None = field(default=None, repr=False)
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)
    _memo_reads: dict[str, Reads] = field(default_factory=dict, repr=False)

    @classmethod
    def for_tree(
        cls,
        tree: Tree,
        config: Config,
        *,
        pr: int | None = None,
        review_date: date | None = None,
        repository: str | None = None,
        parsers: Mapping[str, Parser] = PARSERS,
        cache: ParseCache | None = None,
        track: bool = False,
    ) -> Context:
        """A whole tree, or files named by hand (no base to compare with). With `track`,
        what the lint of each file reads is noted (`reading()`)."""
        recorder = Recorder() if track else None
        return cls(
            tree=TrackedTree(tree, "head", recorder) if recorder is not None else tree,
            config=config,
            pr_number=pr,
            as_of=review_date,
            repository=repository,
            parsers=parsers,
            cache=cache if cache is not None else ParseCache(),
            recorder=recorder,
        )

    @classmethod
    def for_change(
        cls,
        change: ChangeSet,
        config: Config,
        *,
        review_date: date | None = None,
        repository: str | None = None,
        base_tip: Tree | None = None,
        parsers: Mapping[str, Parser] = PARSERS,
        cache: ParseCache | None = None,
    ) -> Context:
        """A pull request: its head linted against its base."""
        return cls(
            tree=change.head,
            config=config,
            change=change,
            as_of=review_date,
            repository=repository,
            base_tip=base_tip,
            parsers=parsers,
            cache=cache if cache is not None else ParseCache(),
        )

    # -- the change, derived -------------------------------------------------------

    @property
    def base(self) -> Tree | None:
        return self.change.base if self.change is not None else None

    @property
    def pr(self) -> int | None:
        return self.change.pr if self.change is not None else self.pr_number

    @property
    def changed(self) -> frozenset[str] | None:
        """Paths the PR changes; None when the whole tree is linted."""
        return self.change.touched if self.change is not None else None

    @property
    def mode(self) -> Mode:
        return "pr" if self.change is not None else "tree"

    @property
    def knowledge(self) -> Knowledge:
        return self.config.knowledge

    @property
    def review_date(self) -> date | None:
        if self.recorder is not None:
            self.recorder.note_date()
        return self.as_of

    @contextmanager
    def reading(self) -> Iterator[Reads]:
        """Note what is read inside the block (a context made with `track`): the files of
        each tree by blob id, the trees listed, the review date."""
        reads = Reads()
        if self.recorder is None:
            raise ValueError("this context does not track reads (for_tree(..., track=True))")
        self.recorder.stack.append(reads)
        try:
            yield reads
        finally:
            self.recorder.stack.pop()

    # -- reading ---------------------------------------------------------------------

    def pr_link_prefix(self, default: str) -> str:
        """The URL a changelog `pr-link` starts with: the target repository's
        `knowledge.changelog.pr_link_prefix`, else the pull request's own
        repository, else `default`."""
        explicit = self.knowledge.pr_link_prefix
        if explicit:
            return explicit
        if self.repository:
            return f"https://github.com/{self.repository}/pull/"
        return default

    def text(self, path: str, tree: Tree | None = None) -> str | None:
        data = (tree or self.tree).read(path)
        if data is None:
            return None
        return data.decode("utf-8", errors="replace")

    @property
    def run(self) -> ParseRun:
        """The parsers' per-run inputs and memory."""
        if self._run is None:
            self._run = ParseRun(domains=self.env_domains(), inputs=recipe_inputs(self.knowledge))
            if self.cache.changelogs is not None:  # kept across runs by the cache's owner
                self._run = replace(self._run, changelogs=self.cache.changelogs)
        return self._run

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
    @overload
    def parsed(self, kind: str, path: str, tree: Tree | None = None) -> object: ...

    def parsed(self, kind: str, path: str, tree: Tree | None = None) -> object:
        """`path` of `tree` (default: the linted tree) parsed by the table's parser for
        `kind`, once per content: results are cached by blob id. None when absent."""
        src = tree or self.tree
        blob = src.blob_id(path)
        if blob is None:
            return None
        run = self.run
        key = (kind, blob, path, run.key if kind == "recipe" else "")
        hit, value = self.cache.get(key)
        if hit:
            run.seen(kind, value)
            return value
        text = self.text(path, src)
        if text is None:
            return None
        return self.cache.put(key, self.parsers[kind](path, text, run), len(text))

    def env_domains(self) -> Mapping[str, frozenset[str]]:
        """`knowledge.env_domains`: the values each recipe input can take ("" = unset)."""
        return self.knowledge.env_domains

    def recipe(self, path: str) -> Recipe | None:
        return self.parsed("recipe", path)

    def all_paths(self, tree: Tree | None = None) -> list[str]:
        """The tree's paths, listed once per lint run."""
        src = tree or self.tree
        return self.memo(f"paths:{id(src)}", lambda: sorted(src.paths()))

    def recipes(self, tree: Tree | None = None) -> list[str]:
        """Paths routed to the recipe parser."""
        return self.memo(
            f"recipes:{id(tree or self.tree)}",
            lambda: [p for p in self.all_paths(tree) if route(p, self.config) == "recipe"],
        )

    def memo(self, key: str, make: Callable[[], V]) -> V:
        """`make()` once per run and key (derived views several rules read). When reads
        are tracked, every user of the view is noted as reading what built it."""
        recorder = self.recorder
        if key not in self._memo:
            if recorder is None:
                self._memo[key] = make()
            else:
                reads = Reads()
                recorder.stack.append(reads)
                try:
                    self._memo[key] = make()
                finally:
                    recorder.stack.pop()
                self._memo_reads[key] = reads
        if recorder is not None and key in self._memo_reads:
            recorder.add(self._memo_reads[key])
        return cast(V, self._memo[key])

    def golden(self) -> GoldenSet:
        return self.memo("golden", lambda: load_golden_set(self))


if TYPE_CHECKING:

    def _satisfies(ctx: Context) -> RuleContext:
        """mypy proves here that the engine's context is what rules are typed against."""
        return ctx
