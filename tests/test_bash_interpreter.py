"""The bash interpreter (`bot.parse.bash`) on its own: one table of small scripts.

Each script calls `probe WORD...`; the interpreter reports every `probe` it executes on
every path, with the words as it expands them and the path's assumptions about the
environment. A row of the table says what comes out:

- `"v"`: the interpreter resolves the word to `v`;
- `"?t"`: it keeps the word symbolic (sound: the environment or a construct it does not
  model decides); bash itself gives `t` (`test_the_table_is_what_bash_does` checks it);
  a later interpreter may resolve it, to `t` only;
- `"?"`: symbolic, and bash gives several values (a loop variable).

Assumptions are written `VAR=value` / `VAR!=value`. `test_the_table_is_what_bash_does`
runs every script under real bash, in the environment each path assumes, and checks that
bash's probes are the rows' values (paths, branches, case, functions, environment domains,
expansions).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from bot.parse.bash import Command, Interpreter, parse_tree

Row = tuple[tuple[str, ...], tuple[str, ...]]  # (words, assumptions)


@dataclass(frozen=True)
class Case:
    id: str
    script: str
    rows: frozenset[Row]
    domains: Mapping[str, frozenset[str]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # for bash: what the paths assume


def case(
    id: str,
    script: str,
    *rows: tuple[tuple[str, ...], tuple[str, ...]] | tuple[str, ...],
    domains: Mapping[str, set[str]] | None = None,
    problems: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
) -> pytest.ParameterSet:
    """A row is `(words, assumptions)`, or just the words of a path without assumptions."""
    norm: set[Row] = set()
    for r in rows:
        if r and isinstance(r[0], tuple):
            words, conds = r  # type: ignore[misc]
            norm.add((tuple(words), tuple(sorted(conds))))
        else:
            norm.add((tuple(r), ()))  # type: ignore[arg-type]
    dom = {k: frozenset(v) for k, v in (domains or {}).items()}
    return pytest.param(Case(id, script, frozenset(norm), dom, problems, env or {}), id=id)


# the values the runner gives EVAL_ONLY (knowledge `env_domains`)
_EVAL_ONLY = {"", "true", "false"}


TABLE = [
    # ------------------------------------------------------------------ values and expansions
    case("assignment-and-interpolation", 'A=1\nB="$A-x"\nprobe "$B"\n', ("1-x",)),
    case("unset-variable-is-the-environments", 'probe "$MODEL"\n', ("?",)),
    case(
        "defaults-of-set-and-unset-variables",
        'probe "${X:-d}" "${Y-e}"\nY=\nprobe "${Y-e}" "${Y:-f}"\n',
        ("?d", "?e"),
        ("", "f"),
    ),
    case("alternative-value", 'A=1\nprobe "${A:+yes}" "${B:+no}"\n', ("yes", "?")),
    case("length", 'A=hello\nprobe "${#A}"\n', ("5",)),
    case(
        "prefix-and-suffix-trimming",
        'P=/a/b/c.sh\nprobe "${P##*/}" "${P%.sh}" "${P#/a/}" "${P%%/*}"\n',
        ("c.sh", "/a/b/c", "b/c.sh", ""),
    ),
    case(
        "pattern-substitution",
        'A=foo-bar-baz\nprobe "${A/-/_}" "${A//-/_}"\n',
        ("?foo_bar-baz", "?foo_bar_baz"),
    ),
    case("case-modification", 'A=MiXed\nprobe "${A,,}" "${A^^}"\n', ("mixed", "MIXED")),
    case("substring", 'A=abcdef\nprobe "${A:2:3}" "${A:1}"\n', ("?cde", "?bcdef")),
    case("indirect-expansion", 'N=A\nA=v\nprobe "${!N}"\n', ("?v",)),
    case(
        "arithmetic",
        'TP=4\nprobe "$((TP * 2))" "$(( (TP + 2) / 3 ))" "$((1 << 3))"\n',
        ("8", "2", "?8"),
    ),
    case("arithmetic-on-the-environment", 'probe "$((CONC * 2))"\n', ("?0",)),
    case(
        "arrays",
        'ARR=(a "b c" d)\nprobe "${ARR[@]}"\nprobe "${#ARR[@]}" "${ARR[1]}"\n',
        ("a", "b c", "d"),
        ("3", "b c"),
    ),
    case("array-append-and-negative-index", 'ARR=(a)\nARR+=(e)\nprobe "${ARR[-1]}"\n', ("?e",)),
    case("associative-array", 'declare -A M=([x]=1 [y]=2)\nprobe "${M[y]}"\n', ("?2",)),
    case("quoting", "A='x y'\nprobe \"$A\" '$A' $'a\\tb'\n", ("x y", "$A", "a\tb")),
    case("word-splitting-of-an-unquoted-value", 'A="x y"\nprobe $A\n', ("x", "y")),
    case(
        "command-substitution",
        'A=$(echo hi)\nB=$(printf "%s-%d" x 3)\nprobe "$A" "$B"\n',
        ("hi", "x-3"),
    ),
    case("nested-command-substitution", 'A=$(echo "$(echo in)")\nprobe "$A"\n', ("in",)),
    case("command-substitution-it-cannot-run", 'A=$(nproc)\nprobe "$A"\n', ("?",)),
    case("printf-into-a-variable", 'printf -v OUT "%03d" 7\nprobe "$OUT"\n', ("007",)),
    case(
        "declarations",
        'declare -r R=1\nreadonly Q=2\nlocal_x=3\nprobe "$R" "$Q" "$local_x"\n',
        ("1", "2", "3"),
    ),
    case("export-and-inline-environment", 'export A=1\nB=2 probe "$A"\n', ("1",)),
    case("source-is-not-followed", 'source ./lib.sh\nprobe "$FROM_LIB"\n', ("?",)),
    case("assign-default-expansion", ': "${Z:=7}"\nprobe "$Z"\n', ("?7",)),
    # ------------------------------------------------------------------ branches and paths
    case(
        "if-on-a-known-value", 'A=1\nif [ "$A" = 1 ]; then probe yes; else probe no; fi\n', ("yes",)
    ),
    case(
        "if-on-the-environment-forks",
        'if [ "$EVAL_ONLY" = "true" ]; then probe eval; else probe bench; fi\n',
        (("eval",), ("EVAL_ONLY=true",)),
        (("bench",), ("EVAL_ONLY!=true",)),
    ),
    case(
        "a-later-test-of-the-same-variable-is-consistent",
        'if [ "$MODE" = a ]; then X=1; else X=2; fi\nif [ "$MODE" = a ]; then probe "$X"; fi\n',
        (("1",), ("MODE=a",)),
    ),
    case(
        "elif-chain",
        'if [ "$M" = a ]; then probe a; elif [ "$M" = b ]; then probe b; else probe c; fi\n',
        (("a",), ("M=a",)),
        (("b",), ("M!=a", "M=b")),
        (("c",), ("M!=a", "M!=b")),
    ),
    case(
        "and-or-lists",
        'A=1\n[ "$A" = 1 ] && probe and\n[ "$A" = 2 ] || probe or\n',
        ("and",),
        ("or",),
    ),
    case(
        "numeric-test", 'N=8\nif [ "$N" -gt 4 ]; then probe big; else probe small; fi\n', ("big",)
    ),
    case(
        "integer-ranges-stay-consistent",
        'if [ "$CONC" -le 8 ]; then X=lo; else X=hi; fi\nif [ "$CONC" -gt 8 ]; then probe "$X"; fi\n',
        ("hi",),
        env={"CONC": "16"},  # range bounds are not assumptions: the path CONC > 8
    ),
    case(
        "double-bracket-glob-and-logic",
        'A=foo.sh\nif [[ $A == *.sh ]]; then probe glob; fi\nif [[ -n "$A" && -z "" ]]; then probe nz; fi\n',
        ("glob",),
        ("nz",),
    ),
    case("exit-ends-the-path", "probe before\nexit 0\nprobe after\n", ("before",)),
    case(
        "exit-in-one-arm",
        'if [ "$E" = 1 ]; then exit 1; fi\nprobe rest\n',
        (("rest",), ("E!=1",)),
    ),
    # ------------------------------------------------------------------ case
    case(
        "case-on-a-known-value",
        'M=b\ncase "$M" in a) probe A ;; b|c) probe BC ;; *) probe D ;; esac\n',
        ("BC",),
    ),
    case(
        "case-on-the-environment-forks-per-arm",
        'case "$M" in a) probe A ;; *) probe D ;; esac\n',
        (("A",), ("M=a",)),
        ("D",),
    ),
    case(
        "case-glob-pattern",
        'F=x_mtp.sh\ncase "$F" in *_mtp.sh) probe mtp ;; *) probe plain ;; esac\n',
        ("mtp",),
    ),
    # ------------------------------------------------------------------ functions
    case(
        "function-arguments-and-local",
        'f() { local X="$1-in"; probe "$X" "$2"; }\nf a b\n',
        ("a-in", "b"),
    ),
    case(
        "return-leaves-the-function",
        "g() { echo hi; return 0; probe never; }\ng\nprobe after\n",
        ("after",),
    ),
    case("function-sets-a-global", 'h() { G=set; }\nh\nprobe "$G"\n', ("set",)),
    case(
        "function-keyword-and-all-arguments",
        'function k { probe "$#" "$@"; }\nk 1 2 3\n',
        ("?3", "1", "2", "3"),
    ),
    case("positional-parameters-of-the-script", 'set -- p q\nprobe "${1:-d}" "$#"\n', ("?p", "?2")),
    # ------------------------------------------------------------------ loops
    case("for-loop-variable-stays-symbolic", 'for X in a b; do probe "$X"; done\n', ("?",)),
    case(
        "for-over-an-array",
        'L=(1 2)\nfor X in "${L[@]}"; do probe "$X"; done\n',
        ("?",),
    ),
    case(
        "while-with-break",
        "while true; do probe loop; break; done\nprobe after\n",
        ("loop",),
        ("after",),
    ),
    # ------------------------------------------------------------------ environment domains
    case(
        "a-domain-prunes-values-the-environment-cannot-take",
        'if [ "$KV" = "on" ]; then probe on; elif [ "$KV" = "off" ]; then probe off; '
        "else probe other; fi\n",
        (("on",), ("KV=on",)),
        (("other",), ("KV!=on",)),
        domains={"KV": {"on", ""}},
    ),
    case(
        "without-a-domain-every-arm-is-a-path",
        'if [ "$KV" = "on" ]; then probe on; elif [ "$KV" = "off" ]; then probe off; '
        "else probe other; fi\n",
        (("on",), ("KV=on",)),
        (("off",), ("KV!=on", "KV=off")),
        (("other",), ("KV!=off", "KV!=on")),
    ),
    case(
        "arithmetic-command-tests",
        # `(( TP == 4 ))` binds TP as `[ "$TP" -eq 4 ]` does (InferenceX #2426: a memory
        # fraction of 0.98 only when TP == 4)
        "if (( TP == 4 )); then X=a; else X=b; fi\n"
        'if [ "$TP" -eq 4 ]; then probe "$X"; fi\n'
        '(( TP != 4 )) && probe other "$X"\n',
        (("a",), ("TP=4",)),
        (("other", "b"), ("TP!=4",)),
    ),
    # ------------------------------------------------------------------ tests through expansions
    # A test of `${V:-d}`, `${V-d}`, `${V:=d}`, `${V:+x}` (quoted or not, in `[`, `[[` and
    # `test`) binds V as a test of `$V` does: each arm keeps only the values of V that lead
    # to it, so a later test of V agrees with it (InferenceX issue 19: a guard written
    # `[ "${EVAL_ONLY:-false}" = "false" ]` left a throughput path without simulation).
    case(
        "a-default-guard-binds-the-variable-to-its-domain",
        'if [ "${EVAL_ONLY:-false}" = "false" ]; then S=sim; fi\n'
        'if [ "${EVAL_ONLY}" = "true" ]; then probe eval "$S"; else probe bench "$S"; fi\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-default-guard-unquoted",
        "if [ ${EVAL_ONLY:-false} = false ]; then S=sim; fi\n"
        'if [ "$EVAL_ONLY" = true ]; then probe eval "$S"; else probe bench "$S"; fi\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-default-guard-in-double-brackets",
        "if [[ ${EVAL_ONLY:-false} == false ]]; then S=sim; fi\n"
        'if [[ "${EVAL_ONLY:-}" != "true" ]]; then probe bench "$S"; else probe eval "$S"; fi\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-default-guard-through-the-test-command",
        'if test "${EVAL_ONLY:-false}" = false; then S=sim; fi\n'
        'if test "$EVAL_ONLY" = true; then probe eval "$S"; else probe bench "$S"; fi\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-default-guard-in-an-and-list",
        '[ "${EVAL_ONLY:-false}" != "true" ] && S=sim\n'
        'test "${EVAL_ONLY}" = true && probe eval "$S"\n'
        '[[ "${EVAL_ONLY}" == true ]] || probe bench "$S"\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-negated-default-guard",
        'if [ ! "${EVAL_ONLY:-false}" = "false" ]; then probe eval; else S=sim; fi\n'
        'if ! [ "$EVAL_ONLY" = "true" ]; then probe bench "$S"; fi\n',
        (("eval",), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-default-without-colon-keeps-an-empty-value",
        # `${V-d}` replaces only an unset V: set and empty, it stays empty
        'if [ "${EVAL_ONLY-false}" = "false" ]; then S=sim; fi\n'
        'if [ "$EVAL_ONLY" = "true" ]; then probe eval "$S"; else probe bench "$S"; fi\n',
        (("eval", "?"), ("EVAL_ONLY!=false", "EVAL_ONLY=true")),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        (("bench", "?"), ("EVAL_ONLY!=false", "EVAL_ONLY!=true")),
        domains={"EVAL_ONLY": _EVAL_ONLY},
        env={"EVAL_ONLY": "false"},
    ),
    case(
        "an-assigned-default-in-the-test",
        'if [ "${EVAL_ONLY:=false}" = "false" ]; then S=sim; fi\n'
        'if [ "$EVAL_ONLY" = "true" ]; then probe eval "$S"; else probe bench "$S" "$EVAL_ONLY"; fi\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim", "?false"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "an-assigned-default-before-the-test",
        ': "${EVAL_ONLY:=false}"\n'
        'if [ "$EVAL_ONLY" = "false" ]; then S=sim; fi\n'
        'if [ "$EVAL_ONLY" = "true" ]; then probe eval "$S"; else probe bench "$S"; fi\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-variable-holding-a-default",
        'export EVAL_ONLY="${EVAL_ONLY:-false}"\nMODE="${EVAL_ONLY:-false}"\n'
        'if [ "$MODE" = "false" ]; then S=sim; fi\n'
        'if [ "$EVAL_ONLY" != "true" ]; then probe bench "$S"; else probe eval "$S"; fi\n',
        (("eval", "?"), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-default-guard-of-a-case",
        'case "${EVAL_ONLY:-false}" in true) probe eval ;; *) S=sim ;; esac\n'
        'if [ "$EVAL_ONLY" != "true" ]; then probe bench "$S"; fi\n',
        (("eval",), ("EVAL_ONLY=true",)),
        (("bench", "sim"), ("EVAL_ONLY!=true",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "an-alternative-value-binds-the-variable",
        'if [ "${KV:+on}" = "on" ]; then probe on; fi\nif [ -z "$KV" ]; then probe empty; fi\n',
        (("on",), ("KV!=",)),
        (("empty",), ("KV=",)),
    ),
    case(
        "an-unquoted-alternative-that-expands-to-nothing",
        # `[ ${KV:+on} = on ]` with KV empty is `[ = on ]`: bash errs, the test is false
        "if [ ${KV:+on} = on ]; then probe on; else probe off; fi\n"
        'if [ "${KV:+x}" != x ]; then probe empty; fi\n',
        (("on",), ("KV!=",)),
        (("off",), ("KV=",)),
        (("empty",), ("KV=",)),
    ),
    case(
        "an-unquoted-empty-word-in-a-test",
        "if [ $EVAL_ONLY != true ]; then probe a; else probe b; fi\nif [ -n $EVAL_ONLY ]; then probe n; fi\n",
        (("a",), ("EVAL_ONLY=false",)),
        (("b",), ("EVAL_ONLY!=false",)),
        # `[ -n $V ]` with V empty is `[ -n ]`: true
        (("n",), ("EVAL_ONLY=false",)),
        (("n",), ("EVAL_ONLY!=false",)),
        domains={"EVAL_ONLY": _EVAL_ONLY},
    ),
    case(
        "a-numeric-test-of-a-default",
        'if [[ "${EP:-1}" -eq 1 ]]; then probe one; else probe many; fi\n'
        'if [ "${EP:-1}" -gt 1 ]; then probe big "$EP"; fi\n',
        (("one",), ("EP in |1",)),
        (("many",), ("EP!=", "EP!=1")),
        (("big", "?"), ("EP!=", "EP!=1")),
        env={"EP": "8"},
    ),
]


def interpret(c: Case) -> tuple[set[Row], list[str]]:
    rows: set[Row] = set()

    def on_command(cmd: Command) -> None:
        if cmd.words and cmd.words[0].text == "probe":
            words = tuple(w.value if w.known else "?" for w in cmd.words[1:])
            conds = tuple(sorted(_cond(a.var, a.op, a.value) for a in cmd.state.assumptions))
            rows.add((words, conds))

    src = c.script.encode()
    interp = Interpreter(src, on_command, domains=c.domains)
    interp.run(parse_tree(src).root_node)
    return rows, [p.kind for p in interp.problems]


def _cond(var: str, op: str, value: str) -> str:
    return f"{var}{ {'eq': '=', 'ne': '!=', 'in': ' in '}[op] }{value}"


def _shown(expected: str) -> str:
    """What the interpreter shows for a table value: the value, or `?` when symbolic."""
    return "?" if expected.startswith("?") else expected


@pytest.mark.parametrize("c", TABLE)
def test_interpreter(c: Case) -> None:
    got, problems = interpret(c)
    want = {(tuple(_shown(w) for w in words), conds) for words, conds in c.rows}
    # a symbolic value the interpreter has learnt to resolve must be bash's value
    resolved = {
        (tuple(w[1:] if w.startswith("?") and w != "?" else _shown(w) for w in words), conds)
        for words, conds in c.rows
    }
    assert got in (want, resolved) or _each_resolves_to_bash(got, c), (got, want)
    assert tuple(problems) == c.problems


def _each_resolves_to_bash(got: set[Row], c: Case) -> bool:
    """Every row is the table's row with some symbolic words resolved to bash's value."""
    if len(got) != len(c.rows):
        return False
    for words, conds in c.rows:
        options = [
            g
            for g in got
            if g[1] == conds
            and len(g[0]) == len(words)
            and all(
                have == _shown(w) or (w.startswith("?") and w != "?" and have == w[1:])
                for have, w in zip(g[0], words, strict=True)
            )
        ]
        if not options:
            return False
    return all(
        any(
            g[1] == conds
            and len(g[0]) == len(words)
            and all(
                have == _shown(w) or (w.startswith("?") and w != "?" and have == w[1:])
                for have, w in zip(g[0], words, strict=True)
            )
            for words, conds in c.rows
        )
        for g in got
    )


# ----------------------------------------------------------------------------- against bash

PROBE = (
    "probe() { local a; printf '\\x1e'; for a in \"$@\"; do printf '%s\\x1f' \"$a\"; done;"
    " printf '\\n'; }\n"
)


def _env_for(conds: tuple[str, ...], c: Case) -> dict[str, str]:
    """An environment in which a path with these assumptions is the one bash takes."""
    env: dict[str, str] = dict(c.env)
    for cond in conds:
        if " in " in cond:  # the first of its values
            var, _, values = cond.partition(" in ")
            env[var] = values.split("|")[0]
        elif "!=" in cond:
            var, _, value = cond.partition("!=")
            env.setdefault(var, "")
            if env[var] == value:
                env[var] = "zz-other"
        else:
            var, _, value = cond.partition("=")
            env[var] = value
    for var, values in c.domains.items():  # the environment stays inside its domain
        if var in env and env[var] not in values:
            env[var] = next(v for v in sorted(values) if not any(f"{var}!={v}" == x for x in conds))
    return env


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
@pytest.mark.parametrize("c", TABLE)
def test_the_table_is_what_bash_does(c: Case) -> None:
    """Under the environment of each path, bash's probes are that path's rows."""
    bash = shutil.which("bash")
    assert bash is not None
    by_env: dict[tuple[tuple[str, str], ...], set[tuple[str, ...]]] = {}
    for words, conds in c.rows:
        key = tuple(sorted(_env_for(conds, c).items()))
        by_env.setdefault(key, set()).add(words)
    clean = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "HOME")}
    for env, rows in by_env.items():
        run = subprocess.run(
            [bash, "--norc", "--noprofile", "-c", PROBE + c.script],
            capture_output=True,
            text=True,
            timeout=10,
            env={**clean, **dict(env)},
            cwd="/tmp",
        )
        said = {
            tuple(line[1:].split("\x1f")[:-1])
            for line in run.stdout.split("\n")
            if line.startswith("\x1e")
        }
        for words in rows:  # every row is something bash printed on that path
            assert any(_agrees(words, s) for s in said), (c.id, env, words, said)
        for s in said:  # and nothing bash printed is missing from the table
            assert any(_agrees(words, s) for words in rows), (c.id, env, s, rows)


def _agrees(words: tuple[str, ...], said: tuple[str, ...]) -> bool:
    return len(words) == len(said) and all(
        w == "?" or (w[1:] if w.startswith("?") else w) == s
        for w, s in zip(words, said, strict=True)
    )


def test_a_wrong_row_fails_both_checks() -> None:
    c = Case("x", 'A=1\nprobe "$A"\n', frozenset({(("2",), ())}))
    got, _ = interpret(c)
    assert got == {(("1",), ())} and not _each_resolves_to_bash(got, c)
    assert not _agrees(("2",), ("1",)) and _agrees(("?1",), ("1",)) and _agrees(("?",), ("z",))
