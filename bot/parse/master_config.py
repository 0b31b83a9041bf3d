"""Master configs (`configs/*-master.yaml`): config key -> entry, with lines. Pure, never raises.

One pass over the C parser's event stream builds both the values and the
line of every key and list item, so a finding can land on the line of
`image:` or of item 3 of a `search-space`. Plain scalars are resolved with
ruamel's own YAML 1.2 resolver table and constructors (cached per distinct
text), so values equal what the safe loader returns; a test checks that on
the real files. Anything unusual (anchors, aliases, explicit tags, merge
keys, complex or duplicate keys, several documents, a `%YAML` directive)
hands the values to the hardened safe loader (`load_safe`) and keeps only
the positions from the walk.

Both real master configs (11.7k lines) parse in about 0.12 s; the safe loader
alone takes 0.3 s on `nvidia-master.yaml` (its Python resolver dominates)
and the round-trip loader 3.3 s.

Every defect of the file as a whole is a `Problem` (`MasterProblemKind`); rules report
them. Which entries a change adds or edits, and the master configs of a tree, are
`bot.parse.master_sets`; domain questions about an entry (which SKU a runner is, which engine a framework
runs, whether an image is upstream) live in `bot.parse.master_facts`.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from typing import Any, Literal

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from bot.base.problem import Problem, problem
from bot.base.records import dataclass
from bot.base.span import Span
from bot.parse.master_facts import engine_family as engine_family  # re-exported
from bot.parse.master_facts import established_sku as established_sku  # re-exported
from bot.parse.master_facts import image_repository as image_repository  # re-exported
from bot.parse.master_facts import model_family as model_family  # re-exported
from bot.parse.master_facts import normalise_image as normalise_image  # re-exported
from bot.parse.master_facts import runner_sku as runner_sku  # re-exported
from bot.parse.master_facts import upstream_image as upstream_image  # re-exported
from bot.parse.yamlevents import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from bot.parse.yamlsafe import (
    NOT_RESOLVED,
    PlainScalars,
    YamlError,
    file_problem,
    line_at,
    load_safe,
    type_name,
    yaml_events,
)

# The real files: nvidia-master.yaml is 0.4 MB and 25k YAML events, the AMD
# one 4.5k. These bounds leave room to grow about tenfold while keeping any
# input under a second.
MAX_BYTES = 8 * 1024 * 1024
MAX_EVENTS = 250_000
MAX_DEPTH = 64


PathKey = tuple[Hashable, ...]


# a defect of the file as a whole: each kind is a variant of CFG000, whose `params`
# fill its placeholders (`detail` holds the YAML loader's own English words)
MasterProblemKind = Literal[
    "yaml",
    "duplicate-key",
    "too-large",
    "not-utf8",
    "nul",
    "empty",
    "not-mapping",
    "too-many-nodes",
    "too-deep",
]
MasterProblem = Problem[MasterProblemKind]


@dataclass(frozen=True, eq=False)
class MasterEntry:
    """One top-level config key and its value, with where each part is written.

    Lines are 1-based. `start_line` is the line of the config key,
    `end_line` the last line of its value (trailing blank lines and column-0
    comments excluded). `line_of(...)` finds the line of a nested key or list
    item by its path inside the entry, falling back to the nearest ancestor
    whose line is known.
    """

    key: str
    data: Any
    start_line: int
    end_line: int
    raw: str
    # line of each key / list item, by path from the file's root: (config key, ...)
    _lines: Mapping[PathKey, int] = field(default_factory=dict, repr=False)
    _root: Hashable = None

    def get(self, name: str) -> Any:
        return self.data.get(name) if isinstance(self.data, dict) else None

    def text(self, name: str) -> str:
        """A top-level field as text ("" when absent or not a scalar)."""
        value = self.get(name)
        if value is None or isinstance(value, (dict, list)):
            return ""
        return str(value)

    @property
    def key_lines(self) -> dict[str, int]:
        """Line of each top-level field of the entry (`image`, `runner`, ...)."""
        if not isinstance(self.data, dict):
            return {}
        root = self._root if self._root is not None else self.key
        out: dict[str, int] = {}
        for name in self.data:
            line = self._lines.get((root, name))
            if line is not None:
                out[str(name)] = line
        return out

    def line_of(self, *path: Hashable) -> int:
        """The line of the key or item at `path` inside the entry (or its nearest ancestor)."""
        return self.line_at(path)

    def line_at(self, path: Sequence[Hashable] | Iterable[Hashable]) -> int:
        root = self._root if self._root is not None else self.key
        full: PathKey = (root, *path)
        while len(full) > 1:
            line = self._lines.get(full)
            if line is not None:
                return line
            full = full[:-1]
        return self.start_line

    def pointer_line(self, pointer: str) -> int:
        """The line of a JSON pointer (`/scenarios/fixed-seq-len/0/isl`) into the entry."""
        return self.line_at(pointer_path(self.data, pointer))


@dataclass
class MasterConfig:
    path: str
    text: str
    entries: dict[str, MasterEntry] = field(default_factory=dict)
    problems: list[MasterProblem] = field(default_factory=list)
    # YAML events per top-level key, of a clean parse the walk built alone (no
    # fallback to the safe loader): what `MasterConfigMemory` needs to re-read a copy
    events: Mapping[Hashable, int] | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return not self.problems


def pointer_path(data: Any, pointer: str) -> list[Hashable]:
    """A JSON pointer as a path of real keys (list indices as ints, `1024` as the int key)."""
    out: list[Hashable] = []
    node = data
    if not pointer:
        return out
    for raw in pointer.lstrip("/").split("/"):
        seg = raw.replace("~1", "/").replace("~0", "~")
        step: Hashable = seg
        if isinstance(node, list) and seg.isdigit():
            step = int(seg)
            node = node[step] if step < len(node) else None
        elif isinstance(node, dict):
            if seg not in node:
                step = next((k for k in node if str(k) == seg), seg)
            node = node.get(step)
        else:
            node = None
        out.append(step)
    return out


# -- parsing ------------------------------------------------------------------


def parse_master_config(
    path: str, text: str | bytes, memory: MasterConfigMemory | None = None
) -> MasterConfig:
    """Parse a master config. Defects become `problems`; this never raises.

    With `memory`, a text whose top-level entries are mostly those of a clean parse
    remembered there re-reads only the entries that differ (the result is the same)."""
    try:
        cfg = _parse(path, text, memory)
    except Exception as exc:  # pragma: no cover - the last line of defence
        return MasterConfig(
            path,
            text if isinstance(text, str) else "",
            problems=[problem("yaml", 1, detail=f"{type(exc).__name__}: {exc}"[:300])],
        )
    if memory is not None:
        memory.remember(cfg)
    return cfg


def _parse(path: str, text: str | bytes, memory: MasterConfigMemory | None = None) -> MasterConfig:
    problems: list[MasterProblem] = []
    if len(text) > MAX_BYTES:
        size = f"{len(text):,}"
        return MasterConfig(
            path,
            "",
            problems=[problem("too-large", 1, size=size, limit=f"{MAX_BYTES:,}")],
        )
    if isinstance(text, bytes):
        raw = text
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            return MasterConfig(path, "", problems=[problem("not-utf8", line)])
    cfg = MasterConfig(path=path, text=text)
    if "\x00" in text:
        cfg.problems.append(problem("nul", _line_at(text, text.index("\x00"))))
        return cfg
    if "\ufffd" in text:
        # the engine decodes with errors="replace": U+FFFD marks bytes that were not UTF-8
        problems.append(problem("not-utf8", _line_at(text, text.index("\ufffd"))))
    if not problems and memory is not None:
        again = memory.reparse(path, text)
        if again is not None:
            return again

    walk = _walk(text)
    if isinstance(walk, Problem):
        cfg.problems.extend([*problems, walk])
        return cfg
    data = walk.data
    if walk.fallback:
        try:
            data = load_safe(text, label=path)
        except YamlError as exc:
            cfg.problems.extend([*problems, _yaml_problem(exc)])
            return cfg
    cfg.problems.extend(problems)
    if data is None:
        cfg.problems.append(problem("empty", 1))
        return cfg
    if not isinstance(data, dict):
        cfg.problems.append(problem("not-mapping", 1, actual=_type_name(data)))
        return cfg
    cfg.entries = _entries(data, walk, text)
    if not walk.fallback and not cfg.problems:
        cfg.events = _events_per_key(walk)
    return cfg


class _Walk:
    __slots__ = ("data", "events", "fallback", "lines", "top_events", "top_lines")

    def __init__(self) -> None:
        self.data: Any = None
        self.events = 0
        self.fallback = False
        self.lines: dict[PathKey, int] = {}
        self.top_lines: dict[Hashable, int] = {}
        # the number of the event of each top-level key (1-based, in stream order)
        self.top_events: dict[Hashable, int] = {}


class _Frame:
    __slots__ = ("container", "has_key", "is_map", "key", "key_path", "path")

    def __init__(self, container: Any, path: PathKey, is_map: bool) -> None:
        self.container = container
        self.path = path
        self.is_map = is_map
        self.key: Hashable = None
        self.key_path: PathKey = ()  # `path` + `key`
        self.has_key = False


class _Placeholder:
    """Stands in for a key the walk cannot use (complex, aliased); values go to the safe loader."""

    __slots__ = ()


def _walk(text: str) -> _Walk | MasterProblem:
    """Build values and positions from the event stream, within the size and depth bounds."""
    out = _Walk()
    try:
        stop = _run(yaml_events(text), out)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = int(mark.line) + 1 if mark is not None else 1
        detail = "; ".join(str(x) for x in (exc.context, exc.problem) if x)
        return problem("yaml", line, detail=detail[:300] or "unreadable YAML")
    except (YAMLError, RecursionError, ValueError, TypeError, OverflowError) as exc:
        return problem("yaml", 1, detail=f"{type(exc).__name__}: {exc}"[:300])
    return stop if stop is not None else out


def _run(events: Iterator[Any], out: _Walk) -> MasterProblem | None:
    """One pass over the events: values, the line of every key and item, and whether
    the safe loader must build the values instead (`_Walk.fallback`); a problem when a
    bound is passed. One loop with no call per event but the scalar's resolution."""
    resolve = PlainScalars().resolve
    lines, top_lines, top_events = out.lines, out.top_lines, out.top_events
    stack: list[_Frame] = []
    count = documents = 0
    fallback = False
    for event in events:
        count += 1
        if count > MAX_EVENTS:
            return problem("too-many-nodes", 1, limit=f"{MAX_EVENTS:,}")
        cls = type(event)
        if cls is ScalarEvent:
            if event.anchor is not None:
                fallback = True
            if event.ctag is not None:
                fallback = True
                value = event.value
            elif event.implicit[0]:
                value = resolve(event.value)
                if value is NOT_RESOLVED:
                    fallback = True
                    value = event.value
            else:
                value = event.value
            is_map = None
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            if event.anchor is not None or event.ctag is not None:
                fallback = True
            is_map = cls is MappingStartEvent
            value = {} if is_map else []
        elif cls is SequenceEndEvent or cls is MappingEndEvent:
            if stack:
                stack.pop()
            continue
        elif cls is AliasEvent:
            fallback = True
            value = is_map = None
        elif cls is DocumentStartEvent:
            documents += 1
            if documents > 1 or event.version is not None:
                fallback = True
            continue
        else:
            continue
        path: PathKey
        if not stack:
            out.data = value
            path = ()
        else:
            parent = stack[-1]
            if not parent.is_map:
                container = parent.container
                path = (*parent.path, len(container))
                container.append(value)
                lines[path] = event.start_mark.line + 1
            elif parent.has_key:
                parent.container[parent.key] = value
                parent.has_key = False
                path = parent.key_path
            else:  # a mapping key: its line, and the frame's next value goes under it
                key: Hashable
                if cls is not ScalarEvent or (
                    event.ctag is None and event.implicit[0] and event.value == "<<"
                ):
                    fallback = True  # complex or merge keys: the safe loader builds them
                    key = _Placeholder()
                elif value in parent.container:
                    fallback = True  # the safe loader names the duplicate
                    key = _Placeholder()
                else:
                    key = value
                parent.key = key
                parent.has_key = True
                parent.key_path = path = (*parent.path, key)
                line = event.start_mark.line + 1
                if path not in lines:
                    lines[path] = line
                if len(stack) == 1 and key not in top_lines:
                    top_lines[key] = line
                    top_events[key] = count
                # a complex key is walked below; nothing of it is kept
        if is_map is not None:
            stack.append(_Frame(value, path, is_map))
            if len(stack) > MAX_DEPTH:
                return problem("too-deep", event.start_mark.line + 1, limit=str(MAX_DEPTH))
    out.fallback = fallback
    out.events = count
    return None


# The changelog parser builds its values the same way when the file is plain
# YAML (no anchors, tags, merge or duplicate keys): one pass over the events.
walk_yaml = _walk


def _blank(line: str) -> bool:
    s = line.strip()
    return not s or line.startswith("#") or s in ("---", "...")


def _entries(data: dict[Any, Any], walk: _Walk, text: str) -> dict[str, MasterEntry]:
    lines = text.split("\n")
    total = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    starts = sorted(
        ((line, key) for key, line in walk.top_lines.items() if key in data),
        key=lambda item: item[0],
    )
    line_of: dict[Hashable, int] = {key: line for line, key in starts}
    next_line: dict[Hashable, int] = {}
    for i, (_, key) in enumerate(starts):
        next_line[key] = starts[i + 1][0] if i + 1 < len(starts) else total + 1
    out: dict[str, MasterEntry] = {}
    for key, value in data.items():
        start = line_of.get(key)
        if start is None:  # a key the walk could not place (merge keys, aliases)
            out[str(key)] = MasterEntry(str(key), value, 1, 1, "", walk.lines, key)
            continue
        end = max(start, next_line[key] - 1)
        while end > start and _blank(lines[end - 1]):
            end -= 1
        raw = "\n".join(ln.rstrip("\r") for ln in lines[start - 1 : end])
        out[str(key)] = MasterEntry(str(key), value, start, end, raw, walk.lines, key)
    return out


def _events_per_key(walk: _Walk) -> dict[Hashable, int]:
    """The YAML events of each top-level key and its value (a single-document mapping:
    the last value ends three events before the stream does)."""
    order = sorted(walk.top_events.items(), key=lambda item: item[1])
    out: dict[Hashable, int] = {}
    for i, (key, at) in enumerate(order):
        after = order[i + 1][1] if i + 1 < len(order) else walk.events - 2
        out[key] = after - at
    return out


# -- parsing a changed copy again ------------------------------------------------
#
# A pull request's master config is its base's with a few entries added or
# edited, and one lint parses both. A clean parse is remembered; a later text of
# the same path whose top-level blocks (a key at column 0 and every line up to the
# next one) mostly repeat remembered blocks reuses their entries, with their lines
# moved, and walks only the blocks that differ, each as a document of its own. A
# top-level entry of a plain block mapping is a YAML node of its own (no anchors,
# aliases, tags or merge keys: the remembered parse had none, and a walked block
# that has one, or does not read as one key, sends the text to the full parse), so
# the result is the one a full parse gives (tested against it).

# a line opening at column 0 with a plain key: the start of a top-level block
_TOP = re.compile(r"^[^ \t#\r\n]", re.M)
_KEY_START = re.compile(r"[A-Za-z0-9_]")
_QUIET = re.compile(r"[ \t]*(?:#[^\n]*)?\r?")
# a wrapped block's own events: stream, document and mapping start and end
_WRAPPER_EVENTS = 6


def _blocks(text: str) -> list[tuple[int, str]] | None:
    """(line, text) of each top-level block, or None when the text is not a plain
    block mapping of plain keys (a directive, a document marker, a flow mapping,
    an indented first key, a quoted or odd key, a byte-order mark)."""
    starts = [m.start() for m in _TOP.finditer(text)]
    if not starts:
        return None
    for at in starts:
        if _KEY_START.match(text, at) is None:
            return None
    if starts[0] and not all(_QUIET.fullmatch(ln) for ln in text[: starts[0]].split("\n")):
        return None
    out: list[tuple[int, str]] = []
    line, prev = 1, 0
    for i, at in enumerate(starts):
        line += text.count("\n", prev, at)
        prev = at
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        out.append((line, text[at:end]))
    return out


class _Known:
    """A remembered clean parse and, once asked, its blocks and lines by key."""

    __slots__ = ("_blocks", "_paths", "cfg")

    def __init__(self, cfg: MasterConfig) -> None:
        self.cfg = cfg
        self._blocks: dict[str, MasterEntry] | None = None
        self._paths: dict[Hashable, list[tuple[PathKey, int]]] | None = None

    def blocks(self) -> dict[str, MasterEntry]:
        """Block text -> its entry; empty when the text's blocks are not its entries."""
        if self._blocks is None:
            split = _blocks(self.cfg.text)
            entries = list(self.cfg.entries.values())
            table: dict[str, MasterEntry] = {}
            if split is not None and len(split) == len(entries):
                for (line, block), entry in zip(split, entries, strict=True):
                    if entry.start_line != line or block in table:
                        table = {}
                        break
                    table[block] = entry
            self._blocks = table
        return self._blocks

    def paths(self, key: Hashable) -> list[tuple[PathKey, int]]:
        """The line of every key and item under top-level `key`."""
        if self._paths is None:
            groups: dict[Hashable, list[tuple[PathKey, int]]] = {}
            first = next(iter(self.cfg.entries.values()), None)
            for path, line in (first._lines if first is not None else {}).items():
                groups.setdefault(path[0], []).append((path, line))
            self._paths = groups
        return self._paths.get(key, [])


class MasterConfigMemory:
    """The last few clean parses of one run (base and head of a PR share most entries).

    Owned by the run (`bot.parse.kinds.ParseRun`), not by this module: two runs
    never see each other's texts.
    """

    MAX = 4

    def __init__(self) -> None:
        self.recent: list[_Known] = []

    def remember(self, cfg: MasterConfig) -> None:
        """Keep `cfg` when it is a clean parse the walk built alone."""
        if cfg.events is None or cfg.problems or not cfg.entries:
            return
        kept = [k for k in self.recent if k.cfg is not cfg and k.cfg.text != cfg.text]
        self.recent = [*kept[-(self.MAX - 1) :], _Known(cfg)]

    def reparse(self, path: str, text: str) -> MasterConfig | None:
        """`text` built from the remembered parse of `path` and its walked changed
        blocks, or None (nothing remembered, or a full parse is needed)."""
        known = next((k for k in reversed(self.recent) if k.cfg.path == path), None)
        if known is None or known.cfg.events is None:
            return None
        table = known.blocks()
        split = _blocks(text) if table else None
        if split is None or 2 * sum(1 for _, b in split if b in table) < len(split):
            return None  # mostly new: a full parse is as quick
        counts = known.cfg.events
        data: dict[Hashable, Any] = {}
        walk = _Walk()
        events: dict[Hashable, int] = {}
        total = _WRAPPER_EVENTS
        for line, block in split:
            entry = table.get(block)
            if entry is not None:
                key = entry._root if entry._root is not None else entry.key
                if key in data:
                    return None
                data[key] = entry.data
                shift = line - entry.start_line
                for sub, at in known.paths(key):
                    walk.lines[sub] = at + shift
                count = counts[key]
            else:
                part = _walk(block)
                if isinstance(part, Problem) or part.fallback:
                    return None
                if not isinstance(part.data, dict) or len(part.data) != 1:
                    return None
                ((key, value),) = part.data.items()
                if key in data or part.top_lines.get(key) != 1:
                    return None
                data[key] = value
                for sub, at in part.lines.items():
                    walk.lines[sub] = at + line - 1
                count = part.events - _WRAPPER_EVENTS
            walk.top_lines[key] = line
            events[key] = count
            total += count
        if total > MAX_EVENTS:
            return None
        walk.data, walk.events = data, total
        cfg = MasterConfig(path=path, text=text, events=events)
        cfg.entries = _entries(data, walk, text)
        return cfg


_type_name = type_name
_line_at = line_at


def _yaml_problem(exc: YamlError) -> MasterProblem:
    kind, params = file_problem(exc, MAX_DEPTH)
    return Problem(kind, params, Span(exc.line or 1))
