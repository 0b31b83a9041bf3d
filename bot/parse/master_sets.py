"""The master configs of a tree, and which entries a change adds or edits. Pure.

`base_master_configs` parses the base's files only when an answer needs them
(`BaseMasterConfigs`): a file is read for a key only when its text can hold it
(`may_hold`), so a pull request that edits one master config does not parse the others.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from functools import partial
from typing import Any

from bot.base.glob import glob_match
from bot.base.records import dataclass
from bot.base.tree import Tree
from bot.parse.context import ParseContext
from bot.parse.master_config import MasterConfig, MasterEntry


@dataclass(frozen=True)
class EntryChange:
    """A head entry that is new, edited, or renamed (same value under a new key)."""

    entry: MasterEntry
    before: MasterEntry | None = None
    renamed_from: str | None = None

    @property
    def status(self) -> str:
        if self.renamed_from is not None:
            return "renamed"
        return "added" if self.before is None else "changed"

    @property
    def is_new(self) -> bool:
        return self.before is None and self.renamed_from is None

    def changed(self, *fields: str) -> bool:
        """Whether any of these top-level fields differ from the base (always, for a new entry)."""
        if self.renamed_from is not None:
            return False
        if self.before is None:
            return True
        return any(self.entry.get(f) != self.before.get(f) for f in fields)


def entry_changes(
    head: MasterConfig, base: MasterConfig | Iterable[MasterConfig] | None
) -> list[EntryChange]:
    """Head entries that are new or changed relative to `base`, in file order.

    Entries are compared by key and value (parsed data, so reformatting,
    comments and key order inside an entry do not count as a change). `base`
    may be several files: an entry moved from one master config to another
    keeps its key and is unchanged. Without a base every entry is new.

    `base` from `base_master_configs` is read lazily: a base file is parsed only
    when it may hold a head key the files before it lack, or, once the head has
    an entry no base file names, to look for the entry it was renamed from (the
    answer is the one the eagerly parsed list gives).
    """
    if base is None:
        return [EntryChange(e) for e in head.entries.values()]
    bases: Iterable[MasterConfig] = [base] if isinstance(base, MasterConfig) else base
    old: dict[str, MasterEntry] | None = None
    lookup: Callable[[str], MasterEntry | None]
    if isinstance(bases, BaseMasterConfigs):
        lookup = partial(bases.entry, near=head.path)
    else:
        old = _by_key(bases)
        lookup = old.get
    gone: dict[str, str] | None = None  # base entries the head lacks, by value: made once needed
    out: list[EntryChange] = []
    for key, entry in head.entries.items():
        before = lookup(key)
        if before is None:
            if gone is None:
                gone = {}
                for name, was in (old if old is not None else _by_key(bases)).items():
                    if name not in head.entries:
                        gone.setdefault(_canonical(was.data), name)
            twin = gone.get(_canonical(entry.data)) if gone else None
            out.append(EntryChange(entry, None, twin))
        elif before.data != entry.data:
            out.append(EntryChange(entry, before))
    return out


def _by_key(bases: Iterable[MasterConfig]) -> dict[str, MasterEntry]:
    """Every entry of `bases` by key, the first file's where two hold one."""
    old: dict[str, MasterEntry] = {}
    for cfg in bases:
        for key, entry in cfg.entries.items():
            old.setdefault(key, entry)
    return old


# a key that YAML writes out as it is: no quoting, escape or folding can make it, and it
# resolves to no number, date, boolean or null (a letter first, a hyphen inside)
_WORD = re.compile(r"[A-Za-z0-9._-]+")
_PLAIN_KEY = re.compile(r"[A-Za-z][A-Za-z0-9._]*-[A-Za-z0-9._-]*\Z")


def key_words(text: str | None) -> frozenset[str] | None:
    """The words of key characters in `text` (letters, digits, `.`, `_`, `-`); None when
    the text is missing or has a backslash (an escape can spell any key).

    A plain key (`_PLAIN_KEY`: no quoting, escape or folding can make one, and it
    resolves to no number, date, boolean or null) that a master config has is written
    out in its text as one whole such word: what stands next to a scalar is a space, a
    quote, `:`, `,`, a bracket or a line end, never another key character."""
    if text is None or "\\" in text:
        return None
    return frozenset(_WORD.findall(text))


def may_hold(ctx: ParseContext, path: str, key: str, tree: Tree | None = None) -> bool:
    """Whether the master config at `path` (of `tree`, default the head) can have
    top-level key `key`: False only for a plain key that is not a word of its text.
    The words of each text are found once per run."""
    if _PLAIN_KEY.match(key) is None:
        return True
    src = tree or ctx.tree
    words = ctx.memo(f"master-key-words:{id(src)}:{path}", lambda: key_words(ctx.text(path, src)))
    return words is None or key in words


class BaseMasterConfigs:
    """The base tree's master configs (`base_master_configs`), each parsed once asked.

    Iterating parses them all, in order; `entry(key)` parses only those that may hold
    the key (`may_hold`)."""

    def __init__(self, ctx: ParseContext, paths: list[str]) -> None:
        self._ctx = ctx
        self._paths = paths
        self._parsed: dict[str, MasterConfig | None] = {}
        self._found: dict[str, MasterEntry | None] = {}

    def _get(self, path: str) -> MasterConfig | None:
        if path not in self._parsed:
            ctx = self._ctx
            self._parsed[path] = ctx.parsed("master_config", path, tree=ctx.base)
        return self._parsed[path]

    def __iter__(self) -> Iterator[MasterConfig]:
        for path in self._paths:
            cfg = self._get(path)
            if cfg is not None:
                yield cfg

    def entry(self, key: str, near: str | None = None) -> MasterEntry | None:
        """The entry of `key` in the first base file that has one. The file at `near`
        (the head's) is parsed without asking whether it may hold the key: it is read
        anyway, and splitting its text into words would cost more."""
        if key in self._found:
            return self._found[key]
        found = None
        ctx = self._ctx
        for path in self._paths:
            unread = path not in self._parsed and path != near
            if unread and not may_hold(ctx, path, key, ctx.base):
                continue
            cfg = self._get(path)
            if cfg is not None and key in cfg.entries:
                found = cfg.entries[key]
                break
        self._found[key] = found
        return found


def _canonical(data: Any) -> str:
    """A text that is equal for equal values (key order ignored): finds renamed entries."""
    return json.dumps(data, sort_keys=True, default=repr)


def master_config_paths(ctx: ParseContext, tree: Tree | None = None) -> list[str]:
    """Paths of the tree (default: the head) routed to the master-config parser."""
    src = tree or ctx.tree
    patterns = ctx.config.master_configs
    return ctx.memo(
        f"master-config-paths:{id(src)}",
        lambda: [p for p in ctx.all_paths(src) if any(glob_match(p, pat) for pat in patterns)],
    )


def moved_master_configs(ctx: ParseContext) -> dict[str, str]:
    """Head master configs the change moved, each with the base path it came from.

    A master config new at the head whose file name the base has elsewhere, at a
    path the head no longer has, was moved there (InferenceX #1992 moved
    `.github/configs/*-master.yaml` to `configs/`): the base kept it at its old place.
    """
    if ctx.base is None:
        return {}
    base_paths = ctx.all_paths(ctx.base)
    present = set(base_paths)
    head = set(ctx.all_paths())
    out: dict[str, str] = {}
    for path in master_config_paths(ctx):
        if path in present:
            continue
        name = posixpath.basename(path)
        olds = [p for p in base_paths if posixpath.basename(p) == name and p not in head]
        if len(olds) == 1:
            out[path] = olds[0]
    return out


def base_master_configs(ctx: ParseContext) -> BaseMasterConfigs | None:
    """Every master config of the base tree, parsed once per blob and only when read
    (`BaseMasterConfigs`); None outside PR mode.

    A master config the change moved is read from where the base keeps it."""
    if ctx.base is None:
        return None

    def make() -> BaseMasterConfigs:  # one per run: the rules share its parses and lookups
        paths = list(master_config_paths(ctx, ctx.base))
        paths += [p for p in moved_master_configs(ctx).values() if p not in paths]
        return BaseMasterConfigs(ctx, paths)

    return ctx.memo("base-master-configs", make)


def archived_master_configs(
    ctx: ParseContext, tree: Tree | None = None, naming: Collection[str] | None = None
) -> Iterator[MasterConfig]:
    """Master configs archived out of the active set (`knowledge.archived_master_configs`),
    each parsed when the iteration reaches it.

    With `naming`, only those that may hold an entry with one of these strings as a
    value: a config whose text names none of them is passed over unparsed. A YAML
    string's characters are written out in the text (a line break inside a scalar
    folds to a space or stays a break) unless a double-quoted scalar escapes them, so
    a text with a backslash is always parsed, and so is every config when a string has
    a character that quoting or folding could produce (a quote, a space, a break)."""
    src = tree or ctx.tree
    patterns = ctx.knowledge.archived_master_configs

    def texts() -> list[tuple[str, str | None]]:
        paths = [p for p in ctx.all_paths(src) if any(glob_match(p, pat) for pat in patterns)]
        return [(p, ctx.text(p, src)) for p in paths]

    listed = ctx.memo(f"archived-master-configs:{id(src)}", texts)
    names = None if naming is None or not all(map(_literal, naming)) else tuple(naming)
    for path, text in listed:
        if text is None:
            continue
        if names is not None and "\\" not in text and not any(n in text for n in names):
            continue
        cfg = ctx.parsed("master_config", path, tree=tree)
        if cfg is not None:
            yield cfg


def _literal(name: str) -> bool:
    """Whether a YAML string equal to `name` must write it out as it is (see above)."""
    return bool(name) and not any(c in name for c in " \t\r\n\x85\u2028\u2029'\"\\")


def head_master_configs(ctx: ParseContext) -> list[MasterConfig]:
    """Every master config of the head (or linted) tree, parsed once per blob."""
    out = []
    for path in master_config_paths(ctx):
        cfg = ctx.parsed("master_config", path)
        if cfg is not None:
            out.append(cfg)
    return out
