"""The path bookkeeping's fast forms give the answers of the plain forms they replace.

`last_uses` builds its table from one split of the source, `merge` compares paths with
`State.same` instead of sorted keys, `prune` looks the last uses up in one pass: each is
held here to the straightforward computation (kept in this file as the reference) on
generated and tricky input, and on the interpreter's paths through real scripts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from bot.parse.bash import Interpreter, parse_tree, paths
from bot.parse.bash.state import Assumption, Command, State, held_inputs
from bot.parse.values import Seg, Str

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _last_ends(source: bytes) -> dict[bytes, int]:
    """The reference: every identifier's last end, one match at a time."""
    seen: dict[bytes, int] = {}
    for m in _IDENT.finditer(source):
        seen[m.group()] = m.end()
    return seen


def _last_uses_reference(source: bytes) -> dict[str, int]:
    last = {name.decode(): pos for name, pos in _last_ends(source).items()}
    last["EVAL_ONLY"] = paths._FOREVER
    return last


@pytest.mark.parametrize(
    "source",
    [
        b"",
        b"x",
        b"1 2 3",
        b"A=1\nB=$A\nA=2\n",
        b"_a9 9a a_ __ a",
        b"caf\xc3\xa9=1 \xff\xfeX=2 X",
        b"${A:-$B}$(echo $C)$((D+E))\n# A in a comment\n",
        b"EVAL_ONLY=false\n",
    ],
)
def test_last_uses_is_the_last_end_of_each_identifier(source: bytes) -> None:
    assert paths.last_uses(source) == _last_uses_reference(source)


@settings(max_examples=300, deadline=None)
@given(hs.binary(max_size=200) | hs.text(alphabet="ab_1 $={}\n\t-é", max_size=200).map(str.encode))
def test_last_uses_on_any_bytes(source: bytes) -> None:
    assert paths.last_uses(source) == _last_uses_reference(source)


def test_last_uses_keeps_names_in_function_bodies_forever() -> None:
    src = b"f() {\n  echo $LATE\n}\nLATE=1\nf\nOTHER=2\n"
    last = paths.last_uses(src, parse_tree(src).root_node)
    assert last["LATE"] == paths._FOREVER
    assert last["OTHER"] == src.rindex(b"OTHER") + len(b"OTHER")


# ------------------------------------------------------------------ State.same

_names = hs.sampled_from(["A", "B", "C", "MODEL", "TP"])
_strs = hs.sampled_from(
    [
        Str(),
        Str.lit("1", 1, 1),
        Str.lit("1", 2, 1),
        Str.lit("x"),
        Str.unknown_of("$A"),
        Str((Seg("d", 3, 5, unknown="${A:-d}"),)),
    ]
)
_values = _strs | hs.lists(_strs, max_size=2).map(tuple)
_facts = hs.builds(
    Assumption,
    var=_names,
    op=hs.sampled_from(["eq", "ne", "in"]),
    value=hs.sampled_from(["", "1", "a|b"]),
    line=hs.integers(1, 3),
)
_bounds = hs.builds(
    Assumption,
    var=_names,
    op=hs.sampled_from(["ge", "le"]),
    value=hs.sampled_from(["1", "8"]),
    line=hs.integers(1, 3),
)
_states = hs.builds(
    State,
    vars=hs.dictionaries(_names, _values, max_size=4),
    exported=hs.frozensets(_names, max_size=2),
    files=hs.dictionaries(hs.sampled_from(["a.yaml", "b.yaml"]), _strs, max_size=2),
    assumptions=hs.lists(_facts, max_size=3).map(tuple),
    bounds=hs.lists(_bounds, max_size=2).map(tuple),
    positional=hs.lists(_strs, max_size=2).map(tuple),
    done=hs.booleans(),
    returning=hs.booleans(),
    breaking=hs.booleans(),
    history=hs.lists(_facts, max_size=2).map(tuple),
)


@settings(max_examples=500, deadline=None)
@given(_states, _states)
def test_same_is_equal_keys(a: State, b: State) -> None:
    assert a.same(b) == (a.key() == b.key())
    assert b.same(a) == a.same(b)


@settings(max_examples=200, deadline=None)
@given(_states)
def test_same_on_a_copy_and_reordered_facts(a: State) -> None:
    b = a.copy()
    b.vars = dict(reversed(list(b.vars.items())))
    b.assumptions = tuple(reversed(b.assumptions))
    b.bounds = tuple(reversed(b.bounds))
    b.history = ()
    assert a.same(b) and a.key() == b.key()


def _merge_reference(states: list[State]) -> list[State]:
    kept: list[State] = []
    for st in states:
        same = next((o for o in kept if o.key() == st.key()), None)
        if same is None:
            kept.append(st)
        elif same.history != st.history:
            same.history = tuple(a for a in same.history if a in st.history)
    return kept


@settings(max_examples=300, deadline=None)
@given(hs.lists(_states, max_size=6), hs.data())
def test_merge_is_merging_by_key(states: list[State], data: hs.DataObject) -> None:
    # equal paths are what merging is for: repeat some as copies
    for i in data.draw(hs.lists(hs.integers(0, max(0, len(states) - 1)), max_size=3)):
        if states:
            states.append(states[i].copy())
    mine = [s.copy() for s in states]
    theirs = [s.copy() for s in states]
    got = paths.merge(mine)
    want = _merge_reference(theirs)
    assert [mine.index(s) for s in got] == [theirs.index(s) for s in want]
    assert [s.history for s in got] == [s.history for s in want]


# ------------------------------------------------------------------------ prune


def _prune_reference(states: list[State], pos: int, last: dict[str, int]) -> None:
    if len(states) < 2:
        return
    for st in states:
        for k in [k for k in st.vars if last.get(k, -1) < pos and k not in st.exported]:
            del st.vars[k]
        if not any(last.get(a.var, -1) < pos for a in (*st.assumptions, *st.bounds)):
            continue
        held = held_inputs(st)
        gone = [a for a in (*st.assumptions, *st.bounds) if last.get(a.var, -1) < pos]
        gone = [a for a in gone if a.var not in held]
        if gone:
            st.history += tuple(gone)
            st.assumptions = tuple(a for a in st.assumptions if a not in gone)
            st.bounds = tuple(a for a in st.bounds if a not in gone)


def _fields(st: State) -> tuple[object, ...]:
    return (list(st.vars.items()), st.exported, st.assumptions, st.bounds, st.history)


@settings(max_examples=500, deadline=None)
@given(
    hs.lists(_states, min_size=1, max_size=5),
    hs.integers(0, 10),
    hs.dictionaries(_names, hs.integers(-1, 10), max_size=5),
    hs.lists(hs.integers(0, 4), max_size=4),
)
def test_prune_is_the_plain_scan(
    states: list[State], pos: int, last: dict[str, int], copies: list[int]
) -> None:
    # copied paths share their names, which the fast form reuses: include some
    states = states + [states[i % len(states)].copy() for i in copies]
    mine = [s.copy() for s in states]
    theirs = [s.copy() for s in states]
    paths.prune(mine, pos, last)
    _prune_reference(theirs, pos, last)
    assert [_fields(s) for s in mine] == [_fields(s) for s in theirs]


# ------------------------------------------- the interpreter with the plain forms

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# many paths: forks on inputs, defaults held in variables, a function, arrays, a
# heredoc, variables that die at once and ones read to the end
FORKING = """
MODEL=${MODEL_PATH:-/models/x}
TP=${TP:-8}
f() { echo "$LATE"; }
for v in a b; do X=$v; done
if [ "$A" = 1 ]; then T=x; else T=y; fi
echo "$T"
if [ "$B" = 1 ]; then U=1; fi
if [ "$EVAL_ONLY" = "true" ]; then MODE=eval; else MODE=serve; fi
case "$PREC" in fp4) Q=nvfp4 ;; fp8) Q=fp8 ;; *) Q=none ;; esac
if [ "$CONC" -le 8 ]; then MEM=0.9; elif [ "$CONC" -le 64 ]; then MEM=0.8; else MEM=0.7; fi
if [[ -n "$KV" ]]; then ARGS=(--kv "$KV"); else ARGS=(); fi
if [ "$TP" = 4 ]; then EP=2; fi
DEAD1=$Q
if [ "$SPEC" = 1 ]; then export SPEC_ARGS="--speculative-algorithm EAGLE"; fi
cat > /tmp/cfg.yaml <<EOF
quant: $Q
EOF
LATE=1
vllm serve "$MODEL" --tp "$TP" --gpu-memory-utilization "$MEM" "${ARGS[@]}" $SPEC_ARGS --mode $MODE
f
"""


# a test read on paths that hold the same value object, told apart by the facts on
# the input that value holds (`M` holds `${V:-d}`; the paths differ on V only), by
# the value of a name it reads, and by the positional words
HELD = """
M=${V:-d}
if [ "$V" = a ]; then echo; fi
if [ "$M" = a ]; then probe A; else probe not-A; fi
if [ "$M" = d ]; then probe D; fi
if [ "$C" = 1 ]; then N=1; else N=2; fi
if [ "$N" = 1 ]; then probe one; fi
f() { if [ "$1" = x ]; then probe x; else probe y; fi; }
f x
f y
f x
(( TP == 4 )) && probe tp4
if [ $(( TP * 2 )) -eq 8 ]; then probe eight; fi
: "${W:=w}"
if [ "${W:=z}" = w ]; then probe w; fi
"""


def _scripts() -> list[tuple[str, str]]:
    from test_bash_interpreter import TABLE

    out = [(f"table/{p.values[0].id}", p.values[0].script) for p in TABLE]  # type: ignore[union-attr]
    out += [(str(p.relative_to(EXAMPLES)), p.read_text()) for p in sorted(EXAMPLES.rglob("*.sh"))]
    return [*out, ("benchmarks/single_node/forking.sh", FORKING), ("held.sh", HELD)]


def test_scripts_are_found() -> None:
    assert len(_scripts()) > 50


def _log(path: str, text: str) -> str:
    """Every command the interpreter reports, with the path it is on, and the recipe."""
    from bot.parse.recipe import parse_recipe

    seen: list[object] = []

    def on_command(cmd: Command) -> None:
        st = cmd.state
        path_now = (st.assumptions, st.bounds, st.history, st.conditions(), dict(st.files))
        seen.append(
            (cmd.words, cmd.inline_env, cmd.line, list(st.vars.items()), st.exported, path_now)
        )

    src = text.encode()
    interp = Interpreter(src, on_command, domains={"EVAL_ONLY": frozenset({"", "true", "false"})})
    ends = interp.run(parse_tree(src).root_node)
    recipe = parse_recipe(path, text)
    paths_left = [(s.vars, s.assumptions, s.history) for s in ends]
    return repr(
        (seen, paths_left, interp.problems, recipe.launches, recipe.commands, recipe.problems)
    )


@pytest.mark.parametrize("path, text", _scripts(), ids=[p for p, _ in _scripts()])
def test_interpreter_same_with_the_plain_forms(
    path: str, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a value's repr with its positions, so a moved segment shows
    monkeypatch.setattr(Str, "__repr__", lambda self: f"Str{self.segs!r}")
    fast = _log(path, text)
    monkeypatch.setattr(paths, "prune", _prune_reference)
    monkeypatch.setattr(paths, "merge", _merge_reference)
    monkeypatch.setattr(paths, "last_uses", _slow_last_uses)
    monkeypatch.setattr(Interpreter, "_shared_read", lambda self, t, st: self._read(t, st))
    assert _log(path, text) == fast


def test_held_input_tests_are_read_per_fact() -> None:
    rows: list[tuple[str, tuple[str, ...]]] = []

    def on_command(cmd: Command) -> None:
        if cmd.words[0].text == "probe":
            facts = tuple(f"{a.var} {a.op} {a.value}" for a in cmd.state.conditions())
            rows.append((cmd.words[1].text, facts))

    src = HELD.encode()
    interp = Interpreter(src, on_command)
    interp.run(parse_tree(src).root_node)
    assert ("A", ("V eq a",)) in rows
    assert ("not-A", ("V ne a",)) in rows
    assert ("D", ("V ne a", "V in |d")) in rows
    # `f x` twice and `f y` once on each of the two paths `$C` left
    assert [r for r, _ in rows].count("x") == 4 and [r for r, _ in rows].count("y") == 2
    assert ("w", ("W in |w",)) in rows
    # the paths that read the same share a reading: `$M = d` and `$N = 1` are read once
    # per distinct value, the second `f x` reuses the first's
    assert interp.shared_readings >= 3


def test_the_forking_script_shares_readings() -> None:
    src = FORKING.encode()
    interp = Interpreter(src, lambda cmd: None)
    interp.run(parse_tree(src).root_node)
    assert interp.shared_readings > 0


def test_the_forking_script_forks_prunes_and_merges() -> None:
    """The fast forms are exercised there: paths pruned and merged."""
    calls = {"prune": 0, "merge": 0}
    real_prune, real_merge = paths.prune, paths.merge

    def prune(states: list[State], pos: int, last: dict[str, int]) -> None:
        calls["prune"] += len(states) > 1
        real_prune(states, pos, last)

    def merge(states: list[State]) -> list[State]:
        out = real_merge(states)
        calls["merge"] += len(out) < len(states)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(paths, "prune", prune)
        mp.setattr(paths, "merge", merge)
        _log("benchmarks/single_node/forking.sh", FORKING)
    assert calls["prune"] > 10 and calls["merge"] > 0


def _slow_last_uses(source: bytes, root: object = None) -> dict[str, int]:
    from tree_sitter import QueryCursor

    from bot.parse.bash.syntax import function_query

    last = _last_ends(source)
    if root is not None:
        for node in QueryCursor(function_query()).captures(root).get("f", []):  # type: ignore[arg-type]
            for name in _IDENT.findall(source, node.start_byte, node.end_byte):
                last[name] = paths._FOREVER
    out = {name.decode(): pos for name, pos in last.items()}
    out["EVAL_ONLY"] = paths._FOREVER
    return out


def _join_reference(states: list[State]) -> State:
    """`paths._join` comparing every value, as it did before its identity check."""
    first = states[0]
    out = first.copy()
    for name in set().union(*(s.vars.keys() for s in states)):
        values = [s.vars.get(name) for s in states]
        if not all(v == values[0] for v in values[1:]):
            out.vars[name] = Str.unknown_of("$" + name)
    rest = paths._join(states)
    # the rest of the join is the same code: take it from there
    out.exported, out.files = rest.exported, rest.files
    out.assumptions, out.bounds, out.history = rest.assumptions, rest.bounds, rest.history
    return out


@settings(max_examples=300, deadline=None)
@given(hs.lists(_states, min_size=2, max_size=4), hs.data())
def test_join_is_the_plain_comparison(states: list[State], data: hs.DataObject) -> None:
    # paths copied from one another share value objects; equal values in other objects
    shared = data.draw(hs.dictionaries(_names, _values, max_size=3))
    for st in states:
        st.vars.update(shared)
        for name in data.draw(hs.lists(_names, max_size=2)):
            if name in st.vars and isinstance(st.vars[name], Str):
                st.vars[name] = Str(tuple(st.vars[name].segs))  # equal, not the same object
    got, want = paths._join(states), _join_reference(states)
    assert sorted(got.vars.items()) == sorted(want.vars.items())
