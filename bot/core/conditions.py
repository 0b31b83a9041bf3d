"""The condition under which a finding holds, from the paths that carry it. Pure.

The bash interpreter records, for every path, the facts it took on the
environment (`bash.Assumption`: `TP=4`, `CONC` in `1|4`, `CONC` <= 8,
`EVAL_ONLY=true`) and each launch carries them as `Launch.conditions`. A
finding about a value written on line N holds on the launches that read that
line, so its condition is what all of them share. `when(...)` turns that into
a `Part` of the rule's record; `CLAUSES` is the wording, both languages, which a
rule record takes into its `variants` (`variants={..., **CLAUSES}`) together
with a `{when}` placeholder in its message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from bot.core.model import Join, Part, T, part

# the wording of a path condition; every rule that names one lists these variants
CLAUSES: dict[str, T] = {
    "when": T(en=" (only when {conds})", zh="（仅当 {conds} 时）"),
    "cond-eq": T(en="`{var}={value}`", zh="`{var}={value}`"),
    "cond-ne": T(en="`{var}` is not `{value}`", zh="`{var}` 不为 `{value}`"),
    "cond-in": T(en="`{var}` is {values}", zh="`{var}` 为 {values}"),
    # a default expansion's test (`[ "${V:-1}" = 1 ]`) also holds for an unset V
    "cond-in-unset": T(
        en="`{var}` is unset, empty or {values}", zh="`{var}` 未设置、为空或为 {values}"
    ),
    "cond-ge": T(en="`{var}` ≥ {value}", zh="`{var}` ≥ {value}"),
    "cond-le": T(en="`{var}` ≤ {value}", zh="`{var}` ≤ {value}"),
    "cond-unset": T(en="`{var}` is unset or empty", zh="`{var}` 未设置或为空"),
    "cond-set": T(en="`{var}` is set", zh="`{var}` 已设置"),
}


def shared(launches: Iterable[Any]) -> tuple[Any, ...]:
    """The conditions every one of `launches` holds under (none for no launch).

    A fact all of them took is kept as is. A variable each of them pins to some
    values (`CONC=8` on one, `CONC=10` on another, `CONC` in `1|4`) holds under
    the union of those values, kept as one `in` fact (`CONC` is 8 or 10).
    """
    groups = [tuple(getattr(la, "conditions", ()) or ()) for la in launches]
    if not groups:
        return ()
    common = [c for c in _unique(groups[0]) if all(_has(g, c) for g in groups[1:])]
    out = list(common)
    for var in dict.fromkeys(c.var for c in groups[0]):
        if any(c.var == var and c.op in ("eq", "in") for c in common):
            continue
        union: list[str] = []
        first_line = 0
        for g in groups:
            allowed = _allowed(g, var)
            if allowed is None:
                union = []
                break
            union.extend(v for v in allowed if v not in union)
            first_line = first_line or min(c.line for c in g if c.var == var)
        if union and "" not in union:
            fact = _fact(groups[0], var)
            if fact is not None:
                out.append(
                    replace(
                        fact, op="in", value="|".join(sorted(union, key=_order)), line=first_line
                    )
                )
    return tuple(out)


def _unique(conds: Iterable[Any]) -> list[Any]:
    """One of each fact (a path may take the same fact at two lines)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for c in conds:
        k = (c.var, c.op, c.value)
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def _has(conds: Iterable[Any], fact: Any) -> bool:
    return any((c.var, c.op, c.value) == (fact.var, fact.op, fact.value) for c in conds)


def _allowed(conds: Iterable[Any], var: str) -> list[str] | None:
    """The values the `eq`/`in` facts on `var` leave, or None when none pins it."""
    out: list[str] | None = None
    for c in conds:
        if c.var != var or c.op not in ("eq", "in"):
            continue
        vals = [c.value] if c.op == "eq" else c.value.split("|")
        out = vals if out is None else [v for v in out if v in vals]
    return out


def _fact(conds: Iterable[Any], var: str) -> Any | None:
    return next((c for c in conds if c.var == var and c.op in ("eq", "in")), None)


def _order(value: str) -> tuple[int, float, str]:
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


def of(group: Iterable[Any], everyone: Iterable[Any]) -> tuple[Any, ...]:
    """What `group` (the launches a finding holds on) shares and not every launch of
    the recipe does: a fact every launch takes (the `*) exit 1` arm left `KV_OFFLOADING`
    none or dram for all) is a precondition of the recipe, not of the finding."""
    everywhere = shared(everyone)
    return tuple(c for c in shared(group) if not _has(everywhere, c))


def at_line(launches: Iterable[Any], line: int) -> tuple[Any, ...]:
    """The conditions of the launches that read a value written on `line`."""
    everyone = list(launches)
    return of([la for la in everyone if _reads_line(la, line)], everyone)


def _reads_line(launch: Any, line: int) -> bool:
    for w in launch.words:
        if any(s.line == line for s in w.segs):
            return True
    for v in launch.env.values():
        if any(s.line == line for s in v.segs):
            return True
    text = getattr(launch, "engine_yaml_text", None)
    if text is not None and any(s.line == line for s in text.segs):
        return True
    span = launch.span
    return bool(span.line <= line <= span.last_line)


# facts that describe the ordinary run and go unsaid: the throughput arm
ORDINARY = frozenset({("EVAL_ONLY", "ne", "true")})


def when(conditions: Iterable[Any], skip: Iterable[str] = ()) -> Part | str:
    """`part("when", ...)` naming `conditions` (variables in `skip` and the
    ORDINARY facts left out), or "" when nothing is left."""
    skipped = set(skip)
    clauses: list[Part] = []
    for c in _unique(conditions):
        var, op, value = c.var, c.op, c.value
        if var in skipped or (var, op, value) in ORDINARY:
            continue
        if op == "eq":
            clauses.append(
                part("cond-unset", var=var)
                if value == ""
                else part("cond-eq", var=var, value=value)
            )
        elif op == "ne":
            clauses.append(
                part("cond-set", var=var) if value == "" else part("cond-ne", var=var, value=value)
            )
        elif op == "in":
            shown = [v for v in value.split("|") if v]
            values = Join(tuple(f"`{v}`" for v in shown), "or")
            if len(shown) == len(value.split("|")):
                clauses.append(part("cond-in", var=var, values=values))
            elif shown:
                clauses.append(part("cond-in-unset", var=var, values=values))
            else:
                clauses.append(part("cond-unset", var=var))
        elif op in ("ge", "le"):
            clauses.append(part(f"cond-{op}", var=var, value=value))
    if not clauses:
        return ""
    return part("when", conds=Join(tuple(clauses), "and"))


def clause_at(launches: Iterable[Any], line: int, skip: Iterable[str] = ()) -> Part | str:
    """`when(at_line(launches, line), skip)`: the clause for a value on `line`."""
    return when(at_line(launches, line), skip)
