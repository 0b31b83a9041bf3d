"""Parse `perf-changelog.yaml` into entries with line numbers. Pure, never raises.

Values come from the C-backed safe loader (`load_safe`); positions come
from the C parser's event stream, which is read first and also bounds the
document (nesting depth and node count) before anything builds Python
objects from it. A round-trip load of the real changelog takes 1.6 s; this
takes well under 0.1 s.

Every defect of the file as a whole (bytes, YAML, layout) becomes a
`Problem`; rules report them. Entries are kept only when the YAML loads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import field
from difflib import SequenceMatcher
from typing import Any, Literal

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from bot.base.problem import Problem, problem
from bot.base.records import dataclass
from bot.base.span import Span
from bot.parse.master_config import walk_yaml
from bot.parse.yamlevents import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from bot.parse.yamlsafe import (
    YamlError,
    file_problem,
    line_at,
    load_safe,
    type_name,
    yaml_events,
)

# The real changelog is 0.4 MB and about 11k YAML events (772 entries). The
# C loader needs 7-20 us per node, so these bounds keep any input to about
# a second while leaving the file room to grow roughly ninefold.
MAX_BYTES = 4 * 1024 * 1024
MAX_EVENTS = 100_000
MAX_DEPTH = 64

ENTRY_FIRST_LINE = "- config-keys:"


# a defect of the file as a whole: each kind is a variant of CHL000, whose `params`
# fill its placeholders (`detail` holds the YAML loader's own English words)
ChangelogProblemKind = Literal[
    "yaml",
    "duplicate-key",
    "too-large",
    "not-utf8",
    "nul",
    "tab",
    "cr",
    "no-final-newline",
    "empty",
    "not-list",
    "entry-layout",
    "too-many-nodes",
    "too-deep",
]
ChangelogProblem = Problem[ChangelogProblemKind]


@dataclass(frozen=True, eq=False)
class Entry:
    """One top-level item of the changelog, with where each part is written.

    Lines are 1-based. `key_lines[k]` is the line of key `k`, `key_ends[k]`
    the last line of its value, `item_lines[k][i]` the line of item `i` of a
    list value. A key or item whose line could not be found is absent; use
    the helpers, which fall back to the entry's first line.
    """

    index: int
    start_line: int
    end_line: int
    data: Any
    key_lines: Mapping[str, int]
    key_ends: Mapping[str, int]
    item_lines: Mapping[str, tuple[int, ...]]
    raw: str

    def get(self, key: str) -> Any:
        return self.data.get(key) if isinstance(self.data, dict) else None

    def has(self, key: str) -> bool:
        return isinstance(self.data, dict) and key in self.data

    @property
    def label(self) -> str:
        """The first config keys, `|`-joined: names the entry in fingerprints."""
        keys = self.get("config-keys")
        if not isinstance(keys, list):
            return ""
        return "|".join(str(k) for k in keys[:3])

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.start_line)

    def end_of(self, key: str) -> int:
        return self.key_ends.get(key, self.line_of(key))

    def line_of_item(self, key: str, index: int) -> int:
        items = self.item_lines.get(key, ())
        return items[index] if 0 <= index < len(items) else self.line_of(key)


@dataclass(frozen=True, eq=False)
class Changelog:
    path: str
    text: str
    entries: tuple[Entry, ...]
    problems: tuple[ChangelogProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Change:
    """A head entry that is new, or changed from `before` in the base."""

    entry: Entry
    before: Entry | None = None

    @property
    def is_new(self) -> bool:
        return self.before is None


# -- parsing ---------------------------------------------------------------


def parse_changelog(
    path: str, text: str | bytes, memory: ChangelogMemory | None = None
) -> Changelog:
    """Parse a changelog. Defects become `problems`; this never raises.

    With `memory`, a text that shares a long prefix with a clean parse remembered
    there is parsed by re-reading only its tail (the result is the same)."""
    problems: list[ChangelogProblem] = []
    if len(text) > MAX_BYTES:
        problems.append(problem("too-large", 1, size=f"{len(text):,}", limit=f"{MAX_BYTES:,}"))
        return Changelog(path, "", (), tuple(problems))
    if isinstance(text, bytes):
        raw = text
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = raw.decode("utf-8", errors="replace")
            problems.append(problem("not-utf8", raw.count(b"\n", 0, exc.start) + 1))
    problems.extend(_byte_problems(text, already_utf8_problem=bool(problems)))
    if any(p.kind in ("nul", "not-utf8") for p in problems):
        return Changelog(path, text, (), tuple(problems))

    lines = text.split("\n")
    if not problems and memory is not None:
        again = _reparse_tail(path, text, lines, memory)
        if again is not None:
            return again
    stats = _Stats()
    quick = _walk_plain(text, stats)
    if quick is not None:
        shape, data = quick
    else:
        stats = _Stats()
        events = _read_events(text, stats)
        if isinstance(events, Problem):
            problems.append(events)
            return Changelog(path, text, (), tuple(problems))
        shape = events
        try:
            data = load_safe(text, label=path)
        except YamlError as exc:
            problems.append(_yaml_problem(exc))
            return Changelog(path, text, (), tuple(problems))

    if data is None:
        problems.append(problem("empty", 1))
        return Changelog(path, text, (), tuple(problems))
    if not isinstance(data, list):
        problems.append(problem("not-list", 1, actual=yaml_type_name(data)))
        return Changelog(path, text, (), tuple(problems))

    entries = _build_entries(data, shape, lines, stats)
    problems.extend(_layout_problems(entries, lines))
    problems.sort(key=lambda p: p.line)
    result = Changelog(path, text, tuple(entries), tuple(problems))
    if memory is not None and result.ok and not stats.anchors and stats.by_dash_lines:
        memory.remember(text, result, stats.events)
    return result


# -- parsing a changed copy again ------------------------------------------------
#
# A pull request's changelog is its base's with a few entries appended or
# edited, and one lint parses both (and sometimes the base with carried
# entries). A clean parse is remembered; a later text that shares its first
# lines is parsed only from the last remembered entry that starts inside the
# shared lines. Entries are independent YAML nodes when the file has no
# anchors, so the result is the one a full parse gives (tested against it).


@dataclass
class _Stats:
    events: int = 0
    anchors: bool = False  # an anchor or alias anywhere: entries may depend on each other
    by_dash_lines: bool = False  # entries were bounded by their `-` lines


@dataclass(frozen=True, eq=False)
class _Clean:
    text: str
    changelog: Changelog
    events: int


class ChangelogMemory:
    """The last few clean parses of one run (base and head of a PR share most bytes).

    Owned by the run (`bot.parse.kinds.ParseRun`), not by this module: two runs
    never see each other's texts.
    """

    MAX = 4

    def __init__(self) -> None:
        self.recent: list[_Clean] = []

    def remember(self, text: str, changelog: Changelog, events: int) -> None:
        kept = [c for c in self.recent if c.text != text][-(self.MAX - 1) :]
        self.recent = [*kept, _Clean(text, changelog, events)]


def _shared_chars(a: str, b: str) -> int:
    """Length of the longest common prefix of `a` and `b` (bisection on C compares)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _reparse_tail(
    path: str, text: str, lines: list[str], memory: ChangelogMemory
) -> Changelog | None:
    """`text` parsed as a remembered clean parse plus its re-read tail, or None."""
    best: tuple[int, _Clean] | None = None
    for clean in memory.recent:
        shared = _shared_chars(clean.text, text)
        if best is None or shared > best[0]:
            best = (shared, clean)
    if best is None:
        return None
    shared, clean = best
    first_diff_line = text.count("\n", 0, shared) + 1
    kept = [e for e in clean.changelog.entries if e.start_line <= first_diff_line]
    if len(kept) < 2:
        return None
    split = kept.pop().start_line  # re-read from the last entry that may have changed
    tail_text = "\n".join(lines[split - 1 :])
    stats = _Stats()
    tail_lines = tail_text.split("\n")
    shape = _read_events(tail_text, stats)
    if isinstance(shape, Problem) or stats.anchors or stats.events + clean.events > MAX_EVENTS:
        return None
    try:
        data = load_safe(tail_text, label=path)
    except YamlError:
        return None
    if not isinstance(data, list) or not data:
        return None
    tail = _build_entries(data, shape, tail_lines, stats)
    if not stats.by_dash_lines or tail[0].start_line != 1:
        return None
    if any(True for _ in _layout_problems(tail, tail_lines)):
        return None
    offset = split - 1
    entries = [_moved(e, e.index, 0) for e in kept]
    entries += [_moved(e, len(kept) + e.index, offset) for e in tail]
    return Changelog(path, text, tuple(entries), ())


def _moved(entry: Entry, index: int, offset: int) -> Entry:
    """A copy of `entry` as item `index`, `offset` lines further down."""
    return Entry(
        index,
        entry.start_line + offset,
        entry.end_line + offset,
        entry.data,
        {k: v + offset for k, v in entry.key_lines.items()},
        {k: v + offset for k, v in entry.key_ends.items()},
        {k: tuple(x + offset for x in v) for k, v in entry.item_lines.items()},
        entry.raw,
    )


def _byte_problems(text: str, *, already_utf8_problem: bool) -> Iterator[ChangelogProblem]:
    """The repository's own file-level invariants (see validate_perf_changelog.py)."""
    if "\x00" in text:
        yield problem("nul", _line_at(text, text.index("\x00")))
    if "\ufffd" in text and not already_utf8_problem:
        # the engine decodes with errors="replace": U+FFFD marks bytes that were not UTF-8
        yield problem("not-utf8", _line_at(text, text.index("\ufffd")))
    marks: tuple[tuple[str, ChangelogProblemKind], ...] = (("\t", "tab"), ("\r", "cr"))
    for char, kind in marks:
        if char in text:
            count = sum(1 for ln in text.split("\n") if char in ln)
            yield problem(kind, _line_at(text, text.index(char)), count=str(count))
    if text and not text.endswith("\n"):
        yield problem("no-final-newline", text.count("\n") + 1)


@dataclass
class _EntryShape:
    line: int  # 1-based line of the entry node
    key_lines: dict[str, int] = field(default_factory=dict)
    item_lines: dict[str, list[int]] = field(default_factory=dict)


@dataclass
class _Frame:
    mapping: bool
    children: int = 0
    key: str | None = None  # in an entry mapping: the key whose value is open


_END_EVENTS = frozenset({SequenceEndEvent, MappingEndEvent})
_COLLECTION_EVENTS = frozenset({SequenceStartEvent, MappingStartEvent})
_NODE_EVENTS = frozenset({ScalarEvent, AliasEvent, SequenceStartEvent, MappingStartEvent})


def _read_events(text: str, stats: _Stats) -> list[_EntryShape] | ChangelogProblem:
    """Walk the C parser's events: bound depth and size, record positions.

    The event parser keeps its own stack, so unlike composing a node tree it
    cannot overflow the C stack on hostile nesting.
    """
    shapes: list[_EntryShape] = []
    stack: list[_Frame] = []
    count = 0
    try:
        for event in yaml_events(text):
            count += 1
            if count > MAX_EVENTS:
                return problem("too-many-nodes", 1, limit=f"{MAX_EVENTS:,}")
            cls = type(event)
            if cls is AliasEvent or getattr(event, "anchor", None) is not None:
                stats.anchors = True
            if cls in _END_EVENTS:
                if stack:
                    stack.pop()
                continue
            if cls not in _NODE_EVENTS:
                continue
            if len(stack) <= 3:
                _record(event, int(event.start_mark.line) + 1, stack, shapes)
            if stack:
                stack[-1].children += 1
            if cls in _COLLECTION_EVENTS:
                stack.append(_Frame(mapping=cls is MappingStartEvent))
                if len(stack) > MAX_DEPTH:
                    line = int(event.start_mark.line) + 1
                    return problem("too-deep", line, limit=str(MAX_DEPTH))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = int(mark.line) + 1 if mark is not None else 1
        detail = "; ".join(str(x) for x in (exc.context, exc.problem) if x)
        return problem("yaml", line, detail=detail[:300] or "unreadable YAML")
    except (YAMLError, RecursionError, ValueError, TypeError) as exc:
        return problem("yaml", 1, detail=f"{type(exc).__name__}: {exc}"[:300])
    stats.events = count
    return shapes


def _walk_plain(text: str, stats: _Stats) -> tuple[list[_EntryShape], list[Any]] | None:
    """Values and entry positions in one pass over the events, for plain YAML.

    None when the file needs the safe loader (anchors, tags, merge or
    duplicate keys, keys that are not strings), is not a list, or is over a
    bound: the two-pass reading then decides, and words any problem.
    """
    walk = walk_yaml(text)
    if isinstance(walk, Problem) or walk.fallback or walk.events > MAX_EVENTS:
        return None
    data = walk.data
    if not isinstance(data, list):
        return None
    lines = walk.lines
    shapes: list[_EntryShape] = []
    for i, value in enumerate(data):
        shape = _EntryShape(lines[(i,)])
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    return None
                shape.key_lines[key] = lines[(i, key)]
                if isinstance(item, list) and item:
                    shape.item_lines[key] = [lines[(i, key, j)] for j in range(len(item))]
        shapes.append(shape)
    stats.events = walk.events
    return shapes, data


def _record(event: Any, line: int, stack: list[_Frame], shapes: list[_EntryShape]) -> None:
    """Note where an entry, one of its keys, or an item of a key's list starts."""
    depth = len(stack)
    if depth == 1 and not stack[0].mapping:
        shapes.append(_EntryShape(line))
    elif depth == 2 and stack[1].mapping and shapes:
        frame = stack[1]
        if frame.children % 2 == 0:
            frame.key = str(event.value) if isinstance(event, ScalarEvent) else None
            if frame.key is not None:
                shapes[-1].key_lines.setdefault(frame.key, line)
    elif depth == 3 and not stack[2].mapping and stack[1].key is not None and shapes:
        shapes[-1].item_lines.setdefault(stack[1].key, []).append(line)


def _blank(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#") or s in ("---", "...")


def _build_entries(
    data: list[Any], shapes: list[_EntryShape], lines: list[str], stats: _Stats
) -> list[Entry]:
    dash_lines = [
        i + 1 for i, ln in enumerate(lines) if ln[:1] == "-" and ln[1:2] in ("", " ", "\t", "\r")
    ]
    # Entries written the usual way start with `-` in column 1; otherwise use
    # where the parser saw each entry begin (flow style, `---`, odd layouts).
    stats.by_dash_lines = _consistent(dash_lines, shapes) and len(shapes) == len(data)
    starts = dash_lines if _consistent(dash_lines, shapes) else [s.line for s in shapes]
    while len(starts) < len(data):  # aliases, or anything unexpected
        starts.append(starts[-1] if starts else 1)
    total = len(lines)
    if lines and lines[-1] == "":
        total -= 1  # the text ends with a newline: no line after it
    entries: list[Entry] = []
    for index, value in enumerate(data):
        start = starts[index]
        nxt = starts[index + 1] if index + 1 < len(starts) else total + 1
        end = _trim(lines, start, max(start, nxt - 1))
        shape = shapes[index] if len(shapes) == len(data) else None
        key_lines = dict(shape.key_lines) if shape else {}
        key_ends = _key_ends(key_lines, end, lines)
        item_lines = {k: tuple(v) for k, v in shape.item_lines.items()} if shape else {}
        raw = "\n".join(ln.rstrip("\r") for ln in lines[start - 1 : end])
        entries.append(Entry(index, start, end, value, key_lines, key_ends, item_lines, raw))
    return entries


def _consistent(dash_lines: list[int], shapes: list[_EntryShape]) -> bool:
    """Each entry node starts on its dash line or after it, before the next dash."""
    if len(dash_lines) != len(shapes):
        return False
    bounds = [*dash_lines[1:], 1 << 62]
    return all(d <= s.line < b for d, s, b in zip(dash_lines, shapes, bounds, strict=True))


def _trim(lines: list[str], start: int, end: int) -> int:
    """Step back from `end` over blank lines and comments, never before `start`."""
    while end > start and _blank(lines[end - 1]):
        end -= 1
    return end


def _key_ends(key_lines: Mapping[str, int], entry_end: int, lines: list[str]) -> dict[str, int]:
    ordered = sorted(key_lines.items(), key=lambda kv: kv[1])
    out: dict[str, int] = {}
    for i, (key, line) in enumerate(ordered):
        nxt = ordered[i + 1][1] - 1 if i + 1 < len(ordered) else entry_end
        out[key] = _trim(lines, line, max(line, nxt))
    return out


def _layout_problems(entries: list[Entry], lines: list[str]) -> Iterator[ChangelogProblem]:
    """The repository counts entries by lines starting `- config-keys:`."""
    for entry in entries:
        first = lines[entry.start_line - 1] if entry.start_line - 1 < len(lines) else ""
        if not first.startswith(ENTRY_FIRST_LINE):
            yield problem("entry-layout", entry.start_line)


# -- which entries a change touches --------------------------------------------


def entry_changes(head: Changelog, base: Changelog | None) -> list[Change]:
    """Head entries that are new or changed relative to `base`, in file order.

    Entries are matched by their raw text, in order, so an entry appended at
    the end or inserted in the middle is new, and an entry edited in place
    (a pr-link correction, say) is changed. Within a run of differing entries,
    a head entry with the same values as a base entry of the run is that entry
    reformatted (an entry inserted just above a merged one whose whitespace
    changed is new, and the merged one is not); the others pair up in order.
    Without a base every entry is in scope, as new.
    """
    if base is None:
        return [Change(e) for e in head.entries]
    old = [e.raw for e in base.entries]
    new = [e.raw for e in head.entries]
    out: list[Change] = []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    moved = moved_entries(ops, base.entries, head.entries)
    taken = {id(before) for before, _ in moved.values()}
    for tag, i1, i2, j1, j2 in ops:
        news = [e for e in head.entries[j1:j2] if e.index not in moved]
        olds = [e for e in base.entries[i1:i2] if id(e) not in taken]
        befores = _pair(olds, news) if tag == "replace" else {}
        out.extend(Change(e, befores.get(k)) for k, e in enumerate(news))
        # a moved entry whose `pr-link` changed is that entry edited
        for e in head.entries[j1:j2]:
            if e.index in moved and not moved[e.index][1]:
                out.append(Change(e, moved[e.index][0]))
    out.sort(key=lambda c: c.entry.index)
    return out


def without_pr_link(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if k != "pr-link"}
    return data


def signature(entry: Entry) -> str:
    """The entry's data but `pr-link`, as text: equal for an entry and its link correction."""
    data = without_pr_link(entry.data)
    try:
        return json.dumps(data, sort_keys=True, default=str)
    except (TypeError, ValueError):  # keys of mixed types
        return repr(data)


def moved_entries(
    ops: Sequence[tuple[str, int, int, int, int]],
    olds: Sequence[Entry],
    news: Sequence[Entry],
) -> dict[int, tuple[Entry, bool]]:
    """Head entries (by index) that are base entries the alignment (`ops`, opcodes of
    the entries' texts without the equal runs) lost, moved: the base entry, and whether
    the text is the same (else the data is, but `pr-link`).

    A history reordered entry by entry (InferenceX #1161 sorted its changelog) aligns
    as deletions and insertions; each moved entry is found again here, so it is neither
    new nor deleted. An entry found in the very block it was lost from was edited in
    place, not moved: the block's own pairing judges it."""
    lost = [
        (e, n) for n, (tag, i1, i2, _, _) in enumerate(ops) if tag != "insert" for e in olds[i1:i2]
    ]
    found = [
        (e, n) for n, (tag, _, _, j1, j2) in enumerate(ops) if tag != "delete" for e in news[j1:j2]
    ]
    out: dict[int, tuple[Entry, bool]] = {}
    if not lost or not found:
        return out
    used: set[int] = set()
    for exact in (True, False):
        pool: dict[str, list[tuple[Entry, int]]] = {}
        for e, n in lost:
            if id(e) not in used:
                pool.setdefault(e.raw if exact else signature(e), []).append((e, n))
        for e, n in found:
            if e.index in out:
                continue
            same = pool.get(e.raw if exact else signature(e))
            if not same or any(m == n for _, m in same):
                continue  # none, or one in its own block: the block's pairing judges it
            at = 0
            before = same.pop(at)[0]
            used.add(id(before))
            out[e.index] = (before, exact)
    return out


def _pair(olds: Sequence[Entry], news: Sequence[Entry]) -> dict[int, Entry]:
    """For a run of base entries replaced by head entries: which base entry each head
    entry (by its index in `news`) changes. Same values first, then in order."""
    pairs: dict[int, Entry] = {}
    used: set[int] = set()
    for j, e in enumerate(news):
        for i, o in enumerate(olds):
            if i not in used and o.data == e.data:
                pairs[j] = o
                used.add(i)
                break
    rest = [o for i, o in enumerate(olds) if i not in used]
    unpaired = [j for j in range(len(news)) if j not in pairs]
    pairs.update(zip(unpaired, rest, strict=False))
    return pairs


def new_entries(head: Changelog, base: Changelog | None) -> list[Entry]:
    """Head entries that are new or changed relative to `base` (all without one)."""
    return [c.entry for c in entry_changes(head, base)]


yaml_type_name = type_name
_line_at = line_at


def _yaml_problem(exc: YamlError) -> ChangelogProblem:
    kind, params = file_problem(exc, MAX_DEPTH)
    return Problem(kind, params, Span(exc.line or 1))
