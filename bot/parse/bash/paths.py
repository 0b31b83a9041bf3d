"""Path bookkeeping: which variables later text reads, and joining paths. Pure.

The interpreter keeps one `State` per path; these keep the number of paths close
to the number of real launch variants: variables no later text reads are
forgotten (`prune`), equal paths merged (`merge`), and above a few paths, values
no rule reads forgotten and paths joined (`join_by_value`, `_forget_until`).
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate, compress, islice, repeat
from operator import attrgetter
from typing import Any

from tree_sitter import Node, QueryCursor

from bot.parse.bash.state import (
    SEED_PATHS,
    VALUE_PATHS,
    VARIANT_VARS,
    State,
    Value,
    held_inputs,
)
from bot.parse.bash.syntax import function_query, node_text, relevance_query
from bot.parse.values import Str

# ------------------------------------------------------------------- helpers
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_SPLIT = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)")
_FOREVER = 1 << 62
_VAR = attrgetter("var")
_MAY_DEFINE = re.compile(rb"\((?:\s|\\\n|#[^\n]*)*\)|\bfunction\b")


def last_uses(source: bytes, root: Node | None = None) -> dict[str, int]:
    """Byte offset of the last textual mention of each identifier.

    Names mentioned inside function bodies live forever (a function may be
    called after its definition), and so does EVAL_ONLY, which names variants.
    Function bodies come from the syntax tree; nested ones are merged into
    intervals so each byte is scanned once.
    """
    # the source split at identifiers alternates text between them and identifiers:
    # the running sum of the pieces' lengths is where each piece ends, and a dict
    # built in order keeps each identifier's last end
    pieces = _IDENT_SPLIT.split(source)
    ends = accumulate(map(len, pieces))
    seen: dict[bytes, int] = dict(zip(pieces[1::2], islice(ends, 1, None, 2), strict=True))
    spans: list[tuple[int, int]] = []
    # a function is defined as `name ()` (spaces allowed inside) or with `function`:
    # a script with neither holds none, and its tree is not searched for one
    if root is not None and _MAY_DEFINE.search(source):
        for node in QueryCursor(function_query()).captures(root).get("f", []):
            spans.append((node.start_byte, node.end_byte))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    for start, end in merged:
        seen.update(dict.fromkeys(_IDENT.findall(source, start, end), _FOREVER))
    last = {name.decode(): pos for name, pos in seen.items()}
    last["EVAL_ONLY"] = _FOREVER
    return last


def _variant_key(st: State) -> tuple[Any, ...]:
    return tuple(
        sorted(
            (a for a in st.assumptions if a.var in VARIANT_VARS),
            key=lambda a: (a.var, a.op, a.value, a.line),
        )
    )


def relevant_vars(
    source: bytes, root: Node, flags: frozenset[str], env: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """Variables whose values the rules read: they keep paths apart past SOFT_PATHS;
    and the seeds among them, which a watched flag or name reads directly.

    Static and by name: a variable written right after a watched flag
    (`--gpu-memory-utilization "$MEM"`, `--spec-decode-acceptance-rate=$R`), a
    variable whose assigned text carries a watched flag (`SPEC_ARGS=(... --method
    dspark ...)`), a watched environment name, and, to a fixed point, whatever
    the assignments of those variables (but not of flag carriers) read.
    """
    text = source.decode("utf-8", errors="replace")
    seeds: set[str] = set()
    for m in _AFTER_FLAG.finditer(text):
        if m.group(1) in flags:
            seeds.add(m.group(2))
    caps = QueryCursor(relevance_query()).captures(root)
    # references by position; their names are read only inside the values of the
    # variables the fixed point reaches (a big script assigns many it never reaches)
    refs = sorted(caps.get("ref", []), key=lambda n: n.start_byte)
    starts = [n.start_byte for n in refs]
    assigns: dict[str, list[Node]] = {}
    carriers: set[str] = set()
    for node in caps.get("assign", []):
        # the name opens the assignment (`V=`, `A[i]=`): read from the text, and the
        # value's node looked up only for a value that may carry a flag or is reached
        opens = _IDENT.match(source, node.start_byte, node.end_byte)
        if opens is None:
            name = node.child_by_field_name("name")
            if name is None:
                continue
            var = node_text(source, name).split("[", 1)[0]
        else:
            var = opens.group().decode()
        if var in env:
            seeds.add(var)
        if b"--" in source[node.start_byte : node.end_byte]:
            value = node.child_by_field_name("value")
            if value is not None and any(
                tok in flags for tok in _FLAG_TOKEN.findall(node_text(source, value))
            ):
                carriers.add(var)
                continue
        assigns.setdefault(var, []).append(node)
    relevant: set[str] = set(carriers)
    todo = list(seeds)
    while todo:
        var = todo.pop()
        if var in relevant:
            continue
        relevant.add(var)
        for node in assigns.get(var, ()):
            value = node.child_by_field_name("value")
            if value is None:
                continue
            lo = bisect.bisect_left(starts, value.start_byte)
            hi = bisect.bisect_left(starts, value.end_byte)
            todo.extend(node_text(source, n) for n in refs[lo:hi])
    return frozenset(relevant), frozenset(seeds | carriers)


_AFTER_FLAG = re.compile(r"(--[\w-]+)(?:=|[\s\\]+)[\"']?\$\{?([A-Za-z_]\w*)")
_FLAG_TOKEN = re.compile(r"--[\w-]+")


def _holds_known(v: Value | None) -> bool:
    if v is None:
        return False
    if isinstance(v, tuple):
        return any(e.known for e in v)
    return v.known and v.text != ""


def _forget_until(
    states: list[State], cap: int, seeds: frozenset[str] = frozenset()
) -> list[State]:
    """Join paths until at most `cap` are left, forgetting as few values as possible.

    Values that always change together (one `case` arm sets `AL` and `K`) form a
    group, forgotten together or not at all, so the values of one arm stay
    together. Groups that hold no known value on any path (`MODEL_PATH` unset or
    `$MODEL`, an exported `$ROCR_VISIBLE_DEVICES`) go first, then the group whose
    forgetting joins the most paths. Paths of different variants (`EVAL_ONLY`)
    are never joined here. A value a watched flag reads directly (`seeds`: a
    memory fraction set per branch, `0.98` when `TP == 4`) is forgotten last, and
    the paths it alone tells apart are kept beyond `cap` (up to SEED_PATHS), so
    a rule sees every branch's value with its condition.
    """
    live = [s for s in states if not s.done]
    done = [s for s in states if s.done]
    # one row per path: what no variable accounts for, then one id per variable
    base_ids: dict[Any, int] = {}
    base = [
        base_ids.setdefault(
            (
                _variant_key(s),
                tuple(sorted(s.files.items())),
                s.positional,
                s.returning,
                s.breaking,
            ),
            len(base_ids),
        )
        for s in live
    ]
    names = sorted(set().union(*(set(s.vars) | s.exported for s in live)))
    groups: dict[tuple[int, ...], list[str]] = {}
    for name in names:
        ids: dict[Any, int] = {}
        col = tuple(ids.setdefault((s.vars.get(name), name in s.exported), len(ids)) for s in live)
        if len(ids) > 1:
            groups.setdefault(col, []).append(name)
    cols = list(groups)
    known = [any(_holds_known(s.vars.get(n)) for n in groups[c] for s in live) for c in cols]
    seeded = [known[i] and any(n in seeds for n in groups[c]) for i, c in enumerate(cols)]
    kept = list(range(len(cols)))
    forgotten: set[str] = set()

    def count(keep: list[int]) -> int:
        return len({(base[i], *(cols[k][i] for k in keep)) for i in range(len(live))})

    limit = min(max(cap, count([k for k in kept if seeded[k]])), SEED_PATHS)
    while count(kept) > limit and kept:
        best: tuple[tuple[int, int, int, int], int] | None = None
        for k in kept:
            cost = (
                int(seeded[k]),
                int(known[k]),
                count([j for j in kept if j != k]),
                len(groups[cols[k]]),
            )
            if best is None or cost < best[0]:
                best = (cost, k)
        assert best is not None
        kept.remove(best[1])
        forgotten.update(groups[cols[best[1]]])
    by_key: dict[tuple[Any, ...], list[State]] = {}
    for i, s in enumerate(live):
        key = (base[i], *(cols[k][i] for k in kept))
        by_key.setdefault(key, []).append(s)
    live = [_join(g) if len(g) > 1 else g[0] for g in by_key.values()]
    if len(live) > limit:
        # what is left differs in files, positional words or control flow only
        by_variant: dict[tuple[Any, ...], list[State]] = {}
        for s in live:
            by_variant.setdefault(_variant_key(s), []).append(s)
        live = [_join(g) if len(g) > 1 else g[0] for g in by_variant.values()]
    return done + live


def _join(states: list[State]) -> State:
    """One state standing for several: disagreeing values become unknown."""
    first = states[0]
    out = first.copy()
    names = set().union(*(s.vars.keys() for s in states))
    for name in names:
        values = [s.vars.get(name) for s in states]
        # copied paths share their values: the same object needs no comparing
        if all(v is values[0] or v == values[0] for v in values[1:]):
            continue
        out.vars[name] = Str.unknown_of("$" + name)
    out.exported = frozenset().union(*(s.exported for s in states))
    for path in list(out.files):
        if any(s.files.get(path) != out.files[path] for s in states[1:]):
            del out.files[path]
    common = set(first.assumptions)
    for s in states[1:]:
        common &= set(s.assumptions)
    out.assumptions = tuple(a for a in first.assumptions if a in common)
    # a joined path keeps a bound only when every path has it
    kept = set(first.bounds)
    for s in states[1:]:
        kept &= set(s.bounds)
    out.bounds = tuple(a for a in first.bounds if a in kept)
    facts = set(first.conditions())
    for s in states[1:]:
        facts &= set(s.conditions())
    out.history = tuple(
        a for a in first.conditions() if a in facts and a not in out.assumptions and a not in kept
    )
    return out


def prune(states: list[State], pos: int, last: dict[str, int]) -> None:
    """Forget variables and assumptions no later text can read (`last`: `last_uses`).

    Paths that differ only in dead variables then merge, which keeps the
    number of paths close to the number of real launch variants.
    """
    if len(states) < 2:
        return  # dead variables only matter when paths could merge
    get = last.get
    # paths copied from one another mostly hold the same names: the dead ones of the
    # last distinct set of names (and exports) serve the paths that repeat it
    names: frozenset[str] | None = None
    exported: frozenset[str] | None = None
    dead: list[str] = []
    for st in states:
        if names is None or st.exported != exported or st.vars.keys() != names:
            names, exported = frozenset(st.vars), st.exported
            # the names whose last use is before `pos`, picked in one pass
            ended = compress(st.vars, map(pos.__gt__, map(get, st.vars, repeat(-1))))
            dead = [k for k in ended if k not in exported]
        for k in dead:
            del st.vars[k]
        facts = st.assumptions + st.bounds if st.bounds else st.assumptions
        if not facts or min(map(get, map(_VAR, facts), repeat(-1))) >= pos:
            continue
        # a variable that holds an input's default (`M=${V:-d}`) reads V later
        held = held_inputs(st)
        gone = [a for a in (*st.assumptions, *st.bounds) if last.get(a.var, -1) < pos]
        gone = [a for a in gone if a.var not in held]
        if gone:
            st.history += tuple(gone)
            st.assumptions = tuple(a for a in st.assumptions if a not in gone)
            st.bounds = tuple(a for a in st.bounds if a not in gone)


def join_by_value(
    states: list[State], relevant: frozenset[str], seeds: frozenset[str]
) -> list[State]:
    """Too many paths: forget the values no rule reads (all but `relevant`), join
    paths that then hold the same values, and above VALUE_PATHS forget more
    (`_forget_until`, which keeps `seeds` longest)."""
    live = [s for s in states if not s.done]
    done = [s for s in states if s.done]
    keep = sorted(set().union(*((s.vars.keys() | s.exported) & relevant for s in live)))
    groups: dict[tuple[Any, ...], list[State]] = {}
    for st in live:
        key = (
            _variant_key(st),
            tuple(st.vars.get(k) for k in keep),
            tuple(k in st.exported for k in keep),
            tuple(sorted(st.files.items())) if st.files else (),
            st.positional,
            st.returning,
            st.breaking,
        )
        groups.setdefault(key, []).append(st)
    out = done + [_join(group) if len(group) > 1 else group[0] for group in groups.values()]
    if len(out) > VALUE_PATHS:
        out = _forget_until(out, VALUE_PATHS, seeds)
    return out


def merge(states: list[State]) -> list[State]:
    """Equal paths as one."""
    if len(states) < 2:
        return states
    # paths can be equal only with as many variables and the same flags: compare the
    # paths within such a group (`State.same`: copied paths share their values, so
    # equal paths mostly compare by identity) rather than hash every value of every path
    kept: list[State] = []
    groups: dict[tuple[Any, ...], list[State]] = {}
    for st in states:
        group = groups.setdefault(
            (len(st.vars), len(st.files), st.done, st.returning, st.breaking), []
        )
        same = None
        for other in group:
            if other.same(st):
                same = other
                break
        if same is None:
            group.append(st)
            kept.append(st)
        elif same.history != st.history:
            # one path standing for both: only the facts both took still hold
            same.history = tuple(a for a in same.history if a in st.history)
    return kept
