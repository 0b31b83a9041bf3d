"""Compare two versions of `perf-changelog.yaml` entry by entry. Pure, never raises.

The target repository's contract (`utils/validate_perf_changelog.py`:
`compare_entries` and `validate_raw_change`, used by its merge helper, and
`docs/ci-procedures.md`): existing entries are immutable except for
pr-link-only corrections, which may not share a change with new entries;
nothing is deleted; new entries go at the very end, each after exactly one
empty line, and the file ends with one newline. `diff_changelogs` sorts a
change into those terms; the CHL rules report them.

Entries are aligned by their raw text (`SequenceMatcher`), so an entry
inserted in the middle is recognised as inserted rather than as "every later
entry changed", which is what comparing by index would say.

`wildcard_match` is the repository's config-key matching (`*` matches any
run of characters, the whole key must match), written without regular
expressions so that a hostile pattern cannot backtrack.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from difflib import SequenceMatcher
from typing import Any, Literal

from bot.base.records import dataclass
from bot.parse.changelog import (
    Change,
    Changelog,
    Entry,
    moved_entries,
    parse_changelog,
    signature,
    without_pr_link,
)
from bot.parse.context import ParseContext

# Problems after which the parser keeps no entries: such a side cannot be compared.
_KEEPS_ENTRIES = frozenset({"tab", "cr", "no-final-newline", "entry-layout"})

EditKind = Literal["pr-link", "whitespace", "reformatted", "changed"]
PR_LINK_LINE = "  pr-link:"


def readable(changelog: Changelog | None) -> bool:
    """Whether the entries of `changelog` are known (no problem stopped parsing)."""
    if changelog is None:
        return False
    return all(p.kind in _KEEPS_ENTRIES for p in changelog.problems)


@dataclass(frozen=True, eq=False)
class Edit:
    """A base entry that is still there in the head, but different.

    `kind`: `pr-link` (only the `pr-link` line changed: a correction),
    `whitespace` (same data, only blank lines differ), `reformatted` (same
    data, other bytes differ) or `changed` (the data differs). `line` is the
    first head line that differs; `key` the first key whose value differs.
    """

    before: Entry
    after: Entry
    kind: EditKind
    line: int
    key: str | None = None


@dataclass(frozen=True, eq=False)
class Deletion:
    """Consecutive base entries missing from the head; `anchor` is where they were."""

    entries: tuple[Entry, ...]
    anchor: int


@dataclass(frozen=True)
class HistoryHunk:
    """Bytes outside the compared entries that changed (blank lines, comments, spaces).

    Lines are head lines; `text_removed` says a removed base line had more
    than whitespace on it.
    """

    line: int
    end_line: int
    text_removed: bool


@dataclass(frozen=True)
class Separator:
    """A new entry (or the end of the file) not separated by exactly one empty line."""

    line: int
    where: Literal["first", "between", "end"]
    entry: Entry | None = None  # the entry below the separator; None at the end


@dataclass(frozen=True, eq=False)
class Move:
    """A base entry the head keeps elsewhere: the same text, or the same data but
    `pr-link` (what changed besides the place is among `ChangelogDiff.edits`)."""

    before: Entry
    after: Entry


@dataclass(frozen=True, eq=False)
class ChangelogDiff:
    base: Changelog
    head: Changelog
    appended: tuple[Entry, ...]
    inserted: tuple[Entry, ...]
    edits: tuple[Edit, ...]
    deletions: tuple[Deletion, ...]
    # base entries the head moved (a reordered history): neither new nor deleted
    moved: tuple[Move, ...] = ()

    @property
    def new(self) -> tuple[Entry, ...]:
        """Entries this change adds, in file order."""
        return tuple(sorted((*self.inserted, *self.appended), key=lambda e: e.index))

    @property
    def corrections(self) -> tuple[Edit, ...]:
        return tuple(e for e in self.edits if e.kind == "pr-link")


def diff_changelogs(base: Changelog | None, head: Changelog | None) -> ChangelogDiff | None:
    """The change from `base` to `head`, or None when either side cannot be read."""
    if base is None or head is None or not readable(base) or not readable(head):
        return None
    old, new = base.entries, head.entries
    matched: set[int] = set()
    edits: list[Edit] = []
    deletions: list[Deletion] = []
    added: list[Entry] = []
    ops = list(_opcodes([e.raw for e in old], [e.raw for e in new]))
    changed = [op for op in ops if op[0] != "equal"]
    moves = moved_entries(changed, old, new)
    taken = {id(before) for before, _ in moves.values()}
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            matched.update(range(j1, j2))
            continue
        olds = [e for e in old[i1:i2] if id(e) not in taken]
        news = [e for e in new[j1:j2] if e.index not in moves]
        if tag == "insert" or not olds:
            added.extend(news)
        elif tag == "delete" or not news:
            at = _anchor(head, j1 if tag == "delete" else j2)
            deletions.extend(Deletion(tuple(run), at) for run in _runs(olds))
        else:
            pairs, lone_old, lone_new = _pair(olds, news)
            for before, after in pairs:
                matched.add(after.index)
                edits.append(_classify(before, after))
            added.extend(lone_new)
            for run in _runs(lone_old):
                # where the first entry after the run sits in the head now
                nxt = [a.index for b, a in pairs if b.index > run[-1].index]
                deletions.append(Deletion(tuple(run), _anchor(head, min(nxt, default=j2))))
    moved: list[Move] = []
    for index, (before, exact) in moves.items():
        moved.append(Move(before, new[index]))
        matched.add(index)
        if not exact:
            # what a moved entry changed besides its place is judged as any edit is
            edits.append(_classify(before, new[index]))
    last = max(matched, default=-1)
    added.sort(key=lambda e: e.index)
    return ChangelogDiff(
        base=base,
        head=head,
        appended=tuple(e for e in added if e.index > last),
        inserted=tuple(e for e in added if e.index < last),
        edits=tuple(sorted(_link_migration(edits), key=lambda e: e.after.index)),
        deletions=tuple(deletions),
        moved=tuple(sorted(moved, key=lambda m: m.after.index)),
    )


_URL = re.compile(r"https?://[^\s\"'<>)\]]+")
# a migration rewrites several entries the same way (a repository rename)
MIN_MIGRATED_ENTRIES = 2


def _url_rewrites(before: Entry, after: Entry) -> set[tuple[str, str]] | None:
    """The URL rewrites that explain every difference between two entries, or None.

    Each rewrite is the part of an old URL that changed and what replaced it
    (common head and tail stripped): `InferenceMAX` -> `InferenceX`.
    """
    b_lines, a_lines = before.raw.split("\n"), after.raw.split("\n")
    if len(b_lines) != len(a_lines):
        return None
    out: set[tuple[str, str]] = set()
    for x, y in zip(b_lines, a_lines, strict=True):
        if x == y:
            continue
        if _URL.sub("\x00", x) != _URL.sub("\x00", y):
            return None
        for u, v in zip(_URL.findall(x), _URL.findall(y), strict=True):
            if u == v:
                continue
            head = 0
            while head < min(len(u), len(v)) and u[head] == v[head]:
                head += 1
            tail = 0
            while tail < min(len(u), len(v)) - head and u[-1 - tail] == v[-1 - tail]:
                tail += 1
            out.add((u[head : len(u) - tail], v[head : len(v) - tail]))
    return out or None


def _link_migration(edits: list[Edit]) -> list[Edit]:
    """A bulk link migration (one URL rewrite applied across entries) is a link correction.

    The migration's size counts every entry it rewrote: most entries carry no URL
    but their `pr-link`, so their edits are pr-link corrections already (InferenceX
    #759 renamed 80 links, one of them inside a `description`)."""
    changed = [(e, _url_rewrites(e.before, e.after)) for e in edits if e.kind == "changed"]
    rewrites = [r for _, r in changed if r is not None]
    if not rewrites:
        return edits
    common = set.intersection(*rewrites)
    if len(common) != 1 or any(r != common for r in rewrites):
        return edits
    ((old, new),) = common
    if old.isdigit() or new.isdigit():
        return edits  # a different pull-request number is not a rename
    links = sum(
        1 for e in edits if e.kind == "pr-link" and _url_rewrites(e.before, e.after) == common
    )
    if len(rewrites) + links < MIN_MIGRATED_ENTRIES:
        return edits
    migrated = {id(e) for e, r in changed if r is not None}
    return [
        Edit(e.before, e.after, "pr-link", e.line, "pr-link") if id(e) in migrated else e
        for e in edits
    ]


def _opcodes(a: Sequence[str], b: Sequence[str]) -> Iterator[tuple[str, int, int, int, int]]:
    """SequenceMatcher opcodes, with the common head and tail taken off first (fast path)."""
    pre = 0
    limit = min(len(a), len(b))
    while pre < limit and a[pre] == b[pre]:
        pre += 1
    post = 0
    while post < limit - pre and a[len(a) - 1 - post] == b[len(b) - 1 - post]:
        post += 1
    if pre:
        yield ("equal", 0, pre, 0, pre)
    mid_a, mid_b = a[pre : len(a) - post], b[pre : len(b) - post]
    if mid_a or mid_b:
        matcher = SequenceMatcher(None, mid_a, mid_b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            yield (tag, i1 + pre, i2 + pre, j1 + pre, j2 + pre)
    if post:
        yield ("equal", len(a) - post, len(a), len(b) - post, len(b))


def _anchor(head: Changelog, index: int) -> int:
    """The head line where entry `index` starts, or the last line after the last entry."""
    if index < len(head.entries):
        return head.entries[index].start_line
    return max(1, head.text.count("\n") if head.text.endswith("\n") else head.text.count("\n") + 1)


def _runs(entries: Sequence[Entry]) -> Iterator[list[Entry]]:
    run: list[Entry] = []
    for entry in entries:
        if run and entry.index != run[-1].index + 1:
            yield run
            run = []
        run.append(entry)
    if run:
        yield run


def _keys_label(entry: Entry) -> str:
    keys = entry.get("config-keys")
    return json.dumps(keys, default=str) if isinstance(keys, list) else ""


def _pair(
    old: Sequence[Entry], new: Sequence[Entry]
) -> tuple[list[tuple[Entry, Entry]], list[Entry], list[Entry]]:
    """Match base and head entries of one replaced block.

    First entries with the same data apart from `pr-link` (corrections and
    reformatting), then entries with the same `config-keys` (edits), then
    what is left, in order. Leftovers are new (head) or deleted (base).
    """
    pairs: list[tuple[Entry, Entry]] = []
    lone_old, lone_new = list(old), list(new)
    for key in (signature, _keys_label):
        if not lone_old or not lone_new:
            break
        matcher = SequenceMatcher(
            None, [key(e) for e in lone_old], [key(e) for e in lone_new], autojunk=False
        )
        taken_old: set[int] = set()
        taken_new: set[int] = set()
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                pairs.append((lone_old[block.a + k], lone_new[block.b + k]))
                taken_old.add(block.a + k)
                taken_new.add(block.b + k)
        lone_old = [e for i, e in enumerate(lone_old) if i not in taken_old]
        lone_new = [e for i, e in enumerate(lone_new) if i not in taken_new]
    # an entry rewritten beyond recognition still counts as edited in place
    # when it stands where the base entry stood
    leftovers = len(lone_old) if len(lone_old) == len(lone_new) else 0
    pairs.extend(zip(lone_old[:leftovers], lone_new[:leftovers], strict=True))
    pairs.sort(key=lambda p: p[1].index)
    return pairs, lone_old[leftovers:], lone_new[leftovers:]


def _nonblank(lines: Iterable[str]) -> list[str]:
    return [ln for ln in lines if ln.strip()]


def _classify(before: Entry, after: Entry) -> Edit:
    b_lines, a_lines = before.raw.split("\n"), after.raw.split("\n")
    first = next(
        (i for i, (x, y) in enumerate(zip(b_lines, a_lines, strict=False)) if x != y),
        min(len(b_lines), len(a_lines)),
    )
    line = after.start_line + min(first, len(a_lines) - 1)
    if before.data == after.data:
        if _nonblank(b_lines) == _nonblank(a_lines):
            return Edit(before, after, "whitespace", line)
        return Edit(before, after, "reformatted", line)
    if without_pr_link(before.data) == without_pr_link(after.data):
        only_link = len(b_lines) == len(a_lines) and all(
            x == y or (x.startswith(PR_LINK_LINE) and y.startswith(PR_LINK_LINE))
            for x, y in zip(b_lines, a_lines, strict=True)
        )
        if only_link:
            return Edit(before, after, "pr-link", after.line_of("pr-link"), "pr-link")
        return Edit(before, after, "reformatted", line)
    return Edit(before, after, "changed", line, _first_changed_key(before.data, after.data))


def _first_changed_key(old: Any, new: Any) -> str | None:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None
    for key in [*new, *(k for k in old if k not in new)]:
        if key != "pr-link" and old.get(key, _MISSING) != new.get(key, _MISSING):
            return str(key)
    return None


_MISSING = object()


# -- bytes outside the entries ---------------------------------------------------


def history_hunks(diff: ChangelogDiff) -> list[HistoryHunk]:
    """Changed bytes of the history that no entry-level finding explains.

    Blank lines, whitespace-only lines, comments between entries, and blank
    lines inside an entry (not the final newline of a base that lacks it). With
    appended entries the history is everything
    before the first of them, less the blank lines right above it (those are
    the separator, judged by `separators`).
    """
    base_text = diff.base.text
    if base_text and not base_text.endswith("\n"):
        base_text += "\n"  # a final newline the base lacks is no history: restoring it changes none
    base_lines = base_text.split("\n")
    head_lines = diff.head.text.split("\n")
    if diff.appended:
        # the empty lines above the first appended entry are its separator; a
        # whitespace-only line there is history (the byte contract keeps it)
        head_lines = head_lines[: diff.appended[0].start_line - 1]
        while head_lines and head_lines[-1] == "":
            head_lines.pop()
        while base_lines and base_lines[-1] == "":
            base_lines.pop()
        # blank or whitespace-only lines past the end of the base's text are the PR's
        # own separator (`separators` judges them: CHL007), never merged history
        while len(head_lines) > len(base_lines) and not head_lines[-1].strip():
            head_lines.pop()
    skip_head: set[int] = set()  # 0-based head lines explained by other findings
    skip_base: set[int] = set()
    for edit in diff.edits:
        if edit.kind != "whitespace":
            skip_head.update(range(edit.after.start_line - 1, edit.after.end_line))
            skip_base.update(range(edit.before.start_line - 1, edit.before.end_line))
    for entry in diff.inserted:
        skip_head.update(range(entry.start_line - 1, entry.end_line))
    for move in diff.moved:
        skip_head.update(range(move.after.start_line - 1, move.after.end_line))
        skip_base.update(range(move.before.start_line - 1, move.before.end_line))
    for deletion in diff.deletions:
        for entry in deletion.entries:
            skip_base.update(range(entry.start_line - 1, entry.end_line))
    out: list[HistoryHunk] = []
    last = max(1, diff.head.text.count("\n"))  # a hunk at the very end lands on the last line
    for tag, i1, i2, j1, j2 in _opcodes(base_lines, head_lines):
        if tag == "equal":
            continue
        if skip_base.intersection(range(i1, i2)) or skip_head.intersection(range(j1, j2)):
            continue
        removed = base_lines[i1:i2]
        line = min(j1 + 1, last)
        out.append(
            HistoryHunk(
                line=line,
                end_line=max(line, min(j2, last)),
                text_removed=any(ln.strip() for ln in removed),
            )
        )
    return out


def separators(diff: ChangelogDiff) -> list[Separator]:
    """Appended entries not preceded by exactly one empty line; blank lines at the end.

    The first appended entry follows the repository's byte rule: when the
    history is kept byte for byte, the added text starts with `- config-keys:`
    if the base already ends with an empty line, else with one newline first.
    """
    if not diff.appended:
        return []
    text = diff.head.text
    lines = text.split("\n")
    out: list[Separator] = []
    first = diff.appended[0]
    base = diff.base.text
    if text.startswith(base) and base.endswith("\n"):
        suffix = text[len(base) :]
        expected = "- config-keys:" if base.endswith("\n\n") else "\n- config-keys:"
        if not suffix.startswith(expected):
            out.append(Separator(first.start_line, "first", first))
    elif not _one_empty_line_before(lines, first.start_line):
        out.append(Separator(first.start_line, "first", first))
    for entry in diff.appended[1:]:
        if not _one_empty_line_before(lines, entry.start_line):
            out.append(Separator(entry.start_line, "between", entry))
    if text.endswith("\n\n"):
        k = len(lines) - 1  # lines[-1] is the "" after the final newline
        while k > 0 and lines[k - 1] == "":
            k -= 1
        out.append(Separator(k + 1, "end"))
    return out


def _one_empty_line_before(lines: Sequence[str], start: int) -> bool:
    """Line `start` (1-based) has exactly one empty line above it, and text above that."""
    return start >= 3 and lines[start - 2] == "" and lines[start - 3] != ""


# -- config keys -------------------------------------------------------------------


def wildcard_match(pattern: str, key: str) -> bool:
    """Whether `pattern` matches all of `key`; `*` matches any run of characters.

    The repository compiles `re.escape(pattern)` with `\\*` turned into `.*`
    and calls `fullmatch`. This is the same test (keys hold no newlines)
    without a regular expression: the text between stars must appear in
    order, and taking the leftmost place for each is always right, so a
    hostile pattern cannot make it backtrack.
    """
    if "*" not in pattern:
        return pattern == key
    parts = pattern.split("*")
    first, last = parts[0], parts[-1]
    if len(first) + len(last) > len(key):
        return False
    if not key.startswith(first) or not key.endswith(last):
        return False
    pos, end = len(first), len(key) - len(last)
    for part in parts[1:-1]:
        if part:
            found = key.find(part, pos, end)
            if found < 0:
                return False
            pos = found + len(part)
    return True


def matching_keys(pattern: str, keys: Sequence[str]) -> list[str]:
    """The keys `pattern` selects from `keys` (sorted): itself without a `*`, else every match.

    Only keys that start with the text before the first `*` can match; in a
    sorted list they sit together, so most patterns look at a handful.
    """
    head = pattern.split("*", 1)[0]
    lo = bisect_left(keys, head)
    if "*" not in pattern:
        return [pattern] if lo < len(keys) and keys[lo] == pattern else []
    out: list[str] = []
    for key in keys[lo:]:
        if not key.startswith(head):
            break
        if wildcard_match(pattern, key):
            out.append(key)
    return out


def config_keys(entry: Entry) -> list[str]:
    """The entry's `config-keys` that are strings (schema errors are CHL001's)."""
    keys = entry.get("config-keys")
    if not isinstance(keys, list):
        return []
    return [k for k in keys if isinstance(k, str) and k]


# -- for rules -----------------------------------------------------------------------


def entries_in_scope(
    changes: list[Change], base: Changelog | None, added: Callable[[int], bool]
) -> list[Change]:
    """`changes` (from `entry_changes(head, base)`) that are this PR's.

    A base changelog that exists but does not parse (CHL000 reported it there) has no
    known entries, so every head entry would look new: a PR that repairs the base's
    YAML would be held to every merged entry. Then only the entries the PR's diff
    touches are in scope (`added(line)`: the head line is added or changed): new when
    every line is added, else changed in place (the base's text of it unknown, its
    head text stands in as `before`).
    """
    if base is None or readable(base):
        return changes
    out = []
    for c in changes:
        lines = range(c.entry.start_line, c.entry.end_line + 1)
        hit = [added(n) for n in lines]
        if all(hit):
            out.append(Change(c.entry))
        elif any(hit):
            out.append(Change(c.entry, before=c.entry))
    return out


def base_diff(changelog: Changelog, ctx: ParseContext) -> ChangelogDiff | None:
    """The change from the base's version of `changelog` to it, computed once per lint.

    None outside a comparison with a base, or when either side cannot be read
    (CHL000 reports that).
    """
    if ctx.base is None:
        return None
    base = base_changelog(ctx, changelog.path)
    key = f"changelog-diff:{id(base)}:{id(changelog)}"
    return ctx.memo(key, lambda: diff_changelogs(base, changelog))


def base_changelog(ctx: ParseContext, path: str) -> Changelog | None:
    """The base's changelog as this PR is judged against it.

    A stale branch carries entries that other PRs merged after it forked:
    entries of the head that are not at the merge-base but are, byte for
    byte, on the base branch's tip (`ctx.base_tip`) are not this PR's. They
    are added to the merge-base's changelog, in the head's order, after its
    last entry, as squash-merging onto the tip would find them.
    """
    base = ctx.parsed("changelog", path, tree=ctx.base)
    tip_tree = ctx.base_tip
    if base is None or tip_tree is None or not readable(base):
        return base

    def build() -> Changelog | None:
        tip = ctx.text(path, tip_tree)
        head = ctx.parsed("changelog", path)
        if tip is None or head is None or not readable(head):
            return base
        known = {e.raw for e in base.entries}
        own = f"/pull/{ctx.pr}" if ctx.pr is not None else None

        def carried_from_tip(e: Any) -> bool:
            # an entry is on the tip when its text is there whole, from a line start
            # (a text search: the tip's changelog is not parsed); an entry that links
            # this PR is its own even when the tip has it (the PR was merged already)
            if e.raw in known or ("\n" + e.raw.rstrip("\n") + "\n") not in ("\n" + tip + "\n"):
                return False
            return own is None or not str(e.get("pr-link") or "").rstrip("/").endswith(own)

        # each carried entry goes where the head has it: after the merge-base entry
        # that precedes it in the head (a stacked branch carries an entry main merged
        # mid-file), or above the first one when none does (main's newest entry at
        # the top of a history that grew downwards then); with the blank lines the tip
        # has around it, as written (early histories had none between entries, some
        # had spaces): what squash-merging onto the tip keeps
        by_raw = {e.raw: e for e in base.entries}
        padded = "\n" + tip + "\n"
        tip_lines = tip.split("\n")

        def blank(raw: list[str], before: bool) -> list[str]:
            """The tip's blank line just before (or after) the entry `raw`, if any."""
            at = padded.find("\n" + "\n".join(raw) + "\n")
            start = tip.count("\n", 0, at)  # 0-based tip line of the entry's first line
            line = start - 1 if before else start + len(raw)
            if 0 <= line < len(tip_lines) and not tip_lines[line].strip():
                return [tip_lines[line]]
            return []

        after: dict[int, list[str]] = {}
        top: list[str] = []
        last_seen: int | None = None
        for e in head.entries:
            if e.raw in by_raw:
                last_seen = by_raw[e.raw].end_line
            elif carried_from_tip(e):
                raw = e.raw.rstrip("\n").split("\n")
                if last_seen is None and base.entries:
                    top += [*raw, *blank(raw, before=False)]
                else:
                    at = last_seen if last_seen is not None else 0
                    after.setdefault(at, []).extend([*blank(raw, before=True), *raw])
        if not after and not top:
            return base
        lines = base.text.split("\n")
        for line_no in sorted(after, reverse=True):
            lines[line_no:line_no] = after[line_no]
        if top:
            first = base.entries[0].start_line - 1
            lines[first:first] = top
        text = "\n".join(lines)
        return parse_changelog(path, text if text.endswith("\n") else text + "\n")

    return ctx.memo(f"effective-base-changelog:{path}", build)


def keys_text(entry: Entry, limit: int = 3) -> str:
    """The entry's first config keys for a message: `a, b, c (+2 more)`."""
    keys = config_keys(entry)
    if not keys:
        return "?"
    text = ", ".join(keys[:limit])
    return text + (f" (+{len(keys) - limit})" if len(keys) > limit else "")
