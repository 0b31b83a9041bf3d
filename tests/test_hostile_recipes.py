"""Hostile recipe input: `parse_recipe` and `lint` never raise, they report.

Correctness only, no timing assertions (`benchmarks/bench_hostile.py` times the
full-size inputs). Each hostile script must come back either with an RCP000
finding (the bot says it could not analyse the script) or as a clean result;
an exception is always a bug. The second half runs unusual but legal bash
through the interpreter and checks what it resolves, or that it keeps an
unresolvable value symbolic instead of guessing.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from lintkit import lint_files

from bot.core.engine import Report
from bot.parse.recipe import MAX_RECIPE_BYTES, Launch, Recipe, parse_recipe

PATH = "benchmarks/single_node/agentic/x_fp8_h100_mtp.sh"
HEADER = '#!/usr/bin/env bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\nMODEL=org/x\n'
LAUNCH = 'vllm serve "$MODEL" --port 8000 --gpu-memory-utilization 0.9\n'


def run_lint(content: str | bytes, path: str = PATH) -> Report:
    return lint_files({path: content})


def rule_ids(report: Report) -> set[str]:
    return {f.rule for f in report.findings}


def parse(content: str | bytes, path: str = PATH) -> Recipe:
    text = content.decode("utf-8", errors="replace") if isinstance(content, bytes) else content
    return parse_recipe(path, text)


def gmu(launch: Launch) -> str | None:
    """The resolved `--gpu-memory-utilization`, or None when it is not known."""
    flag = launch.flag("--gpu-memory-utilization")
    assert flag is not None and flag.value is not None
    return flag.value.value if flag.value.known else None


def only_launch(recipe: Recipe) -> Launch:
    assert len(recipe.launches) == 1, [[w.text for w in la.words] for la in recipe.launches]
    return recipe.launches[0]


# --------------------------------------------------------------------------- hostile inputs


def oversized() -> str:
    line = 'echo "filler line to make the script large ....................."\n'
    return HEADER + line * (MAX_RECIPE_BYTES // len(line) + 2) + LAUNCH


def nested_ifs(depth: int = 5000) -> str:
    opens = "".join(f'if [ -n "$V{i}" ]; then\n' for i in range(depth))
    return HEADER + opens + LAUNCH + "fi\n" * depth


def binary() -> bytes:
    data = bytearray(random.Random(7).randbytes(4096))
    data[50] = 0
    return b"#!/usr/bin/env bash\n" + bytes(data)


def invalid_utf8() -> bytes:
    return (
        HEADER.encode()
        + b"# caf\xe9 \xff\xfe\n"
        + b'GMU="0.9\xc3\x28"\n'
        + b'vllm serve "$MODEL" --gpu-memory-utilization 0.85 --served-model-name \x80\x81\n'
    )


def yaml_bomb(levels: int = 9, width: int = 10) -> str:
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return (
        HEADER
        + "cat > /tmp/extra.yml <<EOF\n"
        + "\n".join(lines)
        + "\nEOF\n"
        + 'trtllm-serve "$MODEL" --config /tmp/extra.yml --port 8000\n'
    )


# (id, content, expected: "rcp000" | "clean")
HOSTILE = [
    ("oversized", oversized(), "rcp000"),
    ("nested-if-5000", nested_ifs(), "rcp000"),
    ("arith-2000-lines", HEADER + "X=0\n" + "X=$((X+1))\n" * 2000 + LAUNCH, "clean"),
    ("binary-with-nul", binary(), "rcp000"),
    ("invalid-utf8", invalid_utf8(), "rcp000"),
    ("trt-yaml-alias-bomb", yaml_bomb(), "rcp000"),
    ("empty", "", "clean"),
    ("shebang-only", "#!/usr/bin/env bash\n", "clean"),
    ("bom-crlf", "\ufeff" + (HEADER + LAUNCH).replace("\n", "\r\n"), "either"),
    ("long-word", HEADER + 'X="' + "a" * 200_000 + '"\n' + LAUNCH, "clean"),
    ("unbalanced-braces", HEADER + "f() {\n" * 50 + LAUNCH, "rcp000"),
    ("only-closers", HEADER + "fi\ndone\nesac\n}\n)\n" + LAUNCH, "rcp000"),
    ("deep-subshells", HEADER + "(" * 2000 + LAUNCH.strip() + ")" * 2000 + "\n", "either"),
    ("deep-cmdsub", HEADER + "X=" + "$(" * 2000 + "echo 1" + ")" * 2000 + "\n" + LAUNCH, "either"),
    (
        "long-and-chain",
        HEADER + "if " + " && ".join(['[ -n "$A" ]'] * 3000) + "; then\n" + LAUNCH + "fi\n",
        "either",
    ),
    (
        "fork-per-line",
        HEADER + "".join(f'[ -n "$V{i}" ] && G{i}=1\n' for i in range(300)) + LAUNCH,
        "either",
    ),
    (
        "deep-json-flag",
        HEADER + "vllm serve x --speculative-config '" + "[" * 5000 + "]" * 5000 + "'\n",
        "clean",
    ),
    ("recursion-fan-out", HEADER + "f() { f; f; }\nf\n" + LAUNCH, "either"),
]


@pytest.mark.parametrize(("content", "expected"), [pytest.param(c, e, id=n) for n, c, e in HOSTILE])
def test_hostile_input_never_raises(content: str | bytes, expected: str) -> None:
    recipe = parse(content)
    report = run_lint(content)
    assert recipe.path == PATH
    ids = rule_ids(report)
    assert all(i.startswith("RCP") for i in ids), ids
    if expected == "rcp000":
        assert recipe.problems, "expected a problem the bot reports"
        assert "RCP000" in ids
    elif expected == "clean":
        assert not recipe.problems, recipe.problems
        assert "RCP000" not in ids


def test_oversized_is_not_analysed() -> None:
    recipe = parse(oversized())
    assert recipe.launches == []
    assert len(recipe.problems) == 1


def test_arithmetic_lines_resolve() -> None:
    text = HEADER + "X=0\n" + "X=$((X+1))\n" * 2000 + 'vllm serve "$MODEL" --port $((8000 + X))\n'
    launch = only_launch(parse(text))
    port = launch.flag("--port")
    assert port is not None and port.value is not None
    assert port.value.value == "10000"


def test_invalid_utf8_still_finds_the_launch() -> None:
    launch = only_launch(parse(invalid_utf8()))
    assert gmu(launch) == "0.85"


def test_lone_surrogates_in_text() -> None:
    # what `bytes.decode("utf-8", "surrogateescape")` gives; the engine itself decodes with "replace"
    text = HEADER + "# \udcff\n" + 'GMU="0.9\udcc3"\n' + LAUNCH
    recipe = parse_recipe(PATH, text)
    assert gmu(only_launch(recipe)) == "0.9"


def test_yaml_bomb_is_refused_not_expanded() -> None:
    recipe = parse(yaml_bomb())
    launch = only_launch(recipe)
    assert launch.engine == "trtllm"
    assert launch.engine_yaml is None
    assert [p.kind for p in recipe.problems] == ["engine_yaml"]
    assert "expands to more than" in recipe.problems[0].params["detail"]


def test_a_small_yaml_alias_is_fine() -> None:
    text = (
        HEADER
        + "cat > /tmp/extra.yml <<EOF\n"
        + "base: &b {free_gpu_memory_fraction: 0.7}\nkv_cache_config: *b\nEOF\n"
        + 'trtllm-serve "$MODEL" --config /tmp/extra.yml\n'
    )
    recipe = parse(text)
    launch = only_launch(recipe)
    assert not recipe.problems
    assert launch.engine_yaml["kv_cache_config"]["free_gpu_memory_fraction"] == 0.7
    assert "RCP000" not in rule_ids(run_lint(text))


# --------------------------------------------------------------------------- unusual bash


def test_eval_does_not_crash() -> None:
    text = (
        HEADER + 'GMU=0.8\neval "GMU=0.95"\neval vllm serve "$MODEL" --port 1\n'
        'vllm serve "$MODEL" --gpu-memory-utilization "$GMU"\n'
    )
    recipe = parse(text)
    run_lint(text)
    assert any(la.engine == "vllm" for la in recipe.launches)


def test_process_substitution() -> None:
    text = (
        HEADER + "GMU=0.8\n"
        'while read -r line; do echo "$line"; done < <(ls /tmp)\n'
        "diff <(echo a) <(echo b)\n"
        'vllm serve "$MODEL" --gpu-memory-utilization "$GMU" > >(tee log.txt) 2>&1\n'
    )
    recipe = parse(text)
    run_lint(text)
    assert gmu(only_launch(recipe)) == "0.8"
    assert not recipe.problems


def test_ansi_c_strings() -> None:
    text = (
        HEADER + "SEP=$'\\t'\nGMU=$'0.9\\x31'\n"
        'vllm serve "$MODEL" --gpu-memory-utilization "$GMU" --x $\'a\\nb\'\n'
    )
    recipe = parse(text)
    run_lint(text)
    launch = only_launch(recipe)
    assert gmu(launch) == "0.91"
    x = launch.flag("--x")
    assert x is not None and x.value is not None and x.value.value == "a\nb"


@pytest.mark.parametrize(
    "line",
    [
        'vllm serve "$MODEL" --gpu-memory-utilization "$GMU\n',
        'vllm serve "$MODEL" --gpu-memory-utilization $GMU --x \'abc\n',
        'vllm serve "$MODEL" --x "$(echo "a)\n',
        'vllm serve "$MODEL" --x $\'abc\n',
    ],
    ids=["double", "single", "in-cmdsub", "ansi-c"],
)
def test_unterminated_quotes(line: str) -> None:
    text = HEADER + "GMU=0.9\n" + line
    recipe = parse(text)
    report = run_lint(text)
    assert recipe.problems
    assert "RCP000" in rule_ids(report)


def test_indirect_expansion_stays_symbolic() -> None:
    text = HEADER + 'NAME=GMU\nGMU=0.9\nvllm serve "$MODEL" --gpu-memory-utilization "${!NAME}"\n'
    recipe = parse(text)
    run_lint(text)
    assert gmu(only_launch(recipe)) is None  # not guessed


def test_array_append_through_a_function_call() -> None:
    text = (
        HEADER + "ARGS=(--port 8000)\n"
        'add_mem() {\n  ARGS+=(--gpu-memory-utilization "$1")\n}\n'
        "add_mem 0.85\n"
        "ARGS+=(--max-model-len 4096)\n"
        'vllm serve "$MODEL" "${ARGS[@]}"\n'
    )
    recipe = parse(text)
    run_lint(text)
    launch = only_launch(recipe)
    assert gmu(launch) == "0.85"
    mml = launch.flag("--max-model-len")
    assert mml is not None and mml.value is not None and mml.value.value == "4096"
    port = launch.flag("--port")
    assert port is not None and port.value is not None and port.value.value == "8000"
    # the finding for the memory fraction lands where 0.85 is written: the call
    assert gmu_line(launch) == 8


def gmu_line(launch: Launch) -> int:
    flag = launch.flag("--gpu-memory-utilization")
    assert flag is not None
    return flag.value_span.line


def test_string_append_and_function_return_value() -> None:
    text = (
        HEADER + "pick() {\n  GMU=0.$1\n}\n"
        'EXTRA="--port 8000"\nEXTRA+=" --gpu-memory-utilization"\n'
        "pick 75\n"
        'vllm serve "$MODEL" $EXTRA "$GMU"\n'
    )
    launch = only_launch(parse(text))
    assert gmu(launch) == "0.75"


def test_self_recursive_function_terminates() -> None:
    text = (
        HEADER
        + 'GMU=0.9\nf() {\n  f "$@"\n}\nf x\nvllm serve "$MODEL" --gpu-memory-utilization "$GMU"\n'
    )
    recipe = parse(text)
    run_lint(text)
    assert gmu(only_launch(recipe)) == "0.9"


def test_mutually_recursive_functions_terminate() -> None:
    text = HEADER + "a() { b; }\nb() { a; }\na\n" + LAUNCH
    recipe = parse(text)
    run_lint(text)
    assert gmu(only_launch(recipe)) == "0.9"


FALLTHROUGH = (
    "GMU=0.9\nTP=1\nEP=1\n"
    'case "$MODE" in\n'
    "  a) GMU=0.7 ;&\n"  # runs b's body too, then stops (b ends in ;;)
    "  b) TP=4 ;;\n"
    "  *) GMU=0.5 ;;\n"
    "esac\n"
    'case "$MODE" in\n'
    "  b) EP=2 ;;&\n"  # goes on testing the next patterns
    "  b|c) TP=8 ;;\n"
    "esac\n"
)
FALLTHROUGH_THEN_TEST = (  # `;&` into an arm that ends in `;;&`
    "GMU=0.9\nTP=1\nEP=1\n"
    'case "$MODE" in\n'
    "  a) GMU=0.7 ;&\n"
    "  b) TP=4 ;;&\n"
    "  b|c) EP=2 ;;\n"
    "  *) GMU=0.5 ;;\n"
    "esac\n"
)
THREE_FLAGS = (
    'vllm serve "$MODEL" --gpu-memory-utilization "$GMU" --tensor-parallel-size "$TP"'
    ' --pipeline-parallel-size "$EP"\n'
)


def _resolved(recipe: Recipe) -> set[tuple[str | None, ...]]:
    out = set()
    for la in recipe.launches:
        values = []
        for name in (
            "--gpu-memory-utilization",
            "--tensor-parallel-size",
            "--pipeline-parallel-size",
        ):
            flag = la.flag(name)
            assert flag is not None and flag.value is not None
            values.append(flag.value.value if flag.value.known else None)
        out.add(tuple(values))
    return out


# What bash itself ends with for each MODE (`test_case_tables_are_what_bash_does` checks
# it against the real bash); None: MODE unknown, so every outcome bash could reach.
_BASH_SAYS = {
    FALLTHROUGH: {
        "a": ("0.7", "4", "1"),
        "b": ("0.9", "8", "2"),
        "c": ("0.5", "8", "1"),
        "z": ("0.5", "1", "1"),
    },
    FALLTHROUGH_THEN_TEST: {
        "a": ("0.5", "4", "1"),
        "b": ("0.9", "4", "2"),
        "c": ("0.9", "1", "2"),
        "z": ("0.5", "1", "1"),
    },
}
_CASE_PARAMS = [
    pytest.param(
        script,
        mode,
        {outcome},
        id=f"{name}-{mode}",
    )
    for name, script in (
        ("fallthrough", FALLTHROUGH),
        ("fallthrough-then-test", FALLTHROUGH_THEN_TEST),
    )
    for mode, outcome in _BASH_SAYS[script].items()
]


@pytest.mark.parametrize(("script", "mode", "expected"), _CASE_PARAMS)
def test_case_fallthrough(script: str, mode: str, expected: set[tuple[str, ...]]) -> None:
    """`;&` runs the next arm's body without testing it; `;;&` tests the next patterns."""
    text = HEADER + f"MODE={mode}\n" + script + THREE_FLAGS
    assert _resolved(parse(text)) == expected
    assert "RCP000" not in rule_ids(run_lint(text))


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(FALLTHROUGH, id="fallthrough"),
        pytest.param(FALLTHROUGH_THEN_TEST, id="fallthrough-then-test"),
    ],
)
def test_case_fallthrough_with_unknown_subject_keeps_every_outcome_bash_can_reach(
    script: str,
) -> None:
    assert set(_BASH_SAYS[script].values()) <= _resolved(parse(HEADER + script + THREE_FLAGS))


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
@pytest.mark.parametrize("script", [FALLTHROUGH, FALLTHROUGH_THEN_TEST])
def test_case_tables_are_what_bash_does(script: str) -> None:
    bash = shutil.which("bash")
    assert bash is not None
    for mode, outcome in _BASH_SAYS[script].items():
        run = subprocess.run(
            [bash, "--norc", "--noprofile", "-c", f"MODE={mode}\n{script}echo $GMU $TP $EP"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        assert tuple(run.stdout.split()) == outcome, mode


def test_while_true_loop_with_the_launch() -> None:
    text = (
        HEADER + "GMU=0.9\nwhile true; do\n"
        '  vllm serve "$MODEL" --gpu-memory-utilization "$GMU"\n'
        "  sleep 5\ndone\n"
    )
    recipe = parse(text)
    run_lint(text)
    assert gmu(only_launch(recipe)) == "0.9"


def test_until_and_c_style_loops() -> None:
    text = (
        HEADER + "for ((i = 0; ; i++)); do\n  " + LAUNCH + "  break\ndone\n"
        "until false; do\n  " + LAUNCH + "done\n"
    )
    recipe = parse(text)
    run_lint(text)
    assert recipe.launches and all(gmu(la) == "0.9" for la in recipe.launches)


def test_heredoc_with_quoted_delimiter_is_literal() -> None:
    body = "kv_cache_config:\n  free_gpu_memory_fraction: $FRAC\nEOF\n"
    launch_line = 'trtllm-serve "$MODEL" --extra_llm_api_options /tmp/c.yml\n'
    quoted = HEADER + "FRAC=0.7\ncat > /tmp/c.yml <<'EOF'\n" + body + launch_line
    unquoted = HEADER + "FRAC=0.7\ncat > /tmp/c.yml <<EOF\n" + body + launch_line
    q = only_launch(parse(quoted))
    u = only_launch(parse(unquoted))
    run_lint(quoted)
    run_lint(unquoted)
    assert q.engine_yaml["kv_cache_config"]["free_gpu_memory_fraction"] == "$FRAC"
    assert u.engine_yaml["kv_cache_config"]["free_gpu_memory_fraction"] == 0.7


def test_engine_yaml_is_read_as_the_engine_reads_it() -> None:
    """TensorRT-LLM loads its options with PyYAML: a repeated key keeps its last value,
    and every value keeps the line it is written on."""
    text = (
        HEADER + "cat > /tmp/c.yml <<'EOF'\n"
        "kv_cache_config:\n  free_gpu_memory_fraction: 0.9\n"
        "kv_cache_config:\n  free_gpu_memory_fraction: 0.8\n"
        "EOF\n" + 'trtllm-serve "$MODEL" --extra_llm_api_options /tmp/c.yml\n'
    )
    launch = only_launch(parse(text))
    run_lint(text)
    assert launch.engine_yaml["kv_cache_config"]["free_gpu_memory_fraction"] == 0.8
    setting = launch.yaml_setting("kv_cache_config", "free_gpu_memory_fraction")
    assert setting is not None and setting.value == 0.8
    assert setting.span.line == text.splitlines().index("  free_gpu_memory_fraction: 0.8") + 1


# --------------------------------------------------------------------------- former crashes
# Each raised instead of becoming a finding or an unknown value.


def port(launch: Launch) -> str | None:
    flag = launch.flag("--port")
    assert flag is not None and flag.value is not None
    return flag.value.value


def test_arithmetic_with_a_huge_literal_stays_unknown() -> None:
    text = HEADER + "X=$(( " + "9" * 5000 + " + 1 ))\n" + 'vllm serve "$MODEL" --port "$X"\n'
    assert port(only_launch(parse(text))) is None


def test_arithmetic_overflow_by_doubling_stays_unknown() -> None:
    text = HEADER + "X=1\n" + "X=$((X+X))\n" * 70 + 'vllm serve "$MODEL" --port "$X"\n'
    assert port(only_launch(parse(text))) is None
    small = HEADER + "X=1\n" + "X=$((X+X))\n" * 10 + 'vllm serve "$MODEL" --port "$X"\n'
    assert port(only_launch(parse(small))) == "1024"


def test_json_flag_with_a_bad_unicode_escape_is_not_json() -> None:
    text = HEADER + 'vllm serve "$MODEL" --speculative-config \'{"method": "\\uZZZZ"}\'\n'
    report = run_lint(text)
    launch = only_launch(parse(text))
    node, _ = launch.flag_json("--speculative-config")
    assert node is None
    assert all(f.rule != "RCP000" for f in report.findings)


def test_printf_with_a_huge_width_is_not_expanded() -> None:
    text = HEADER + 'printf -v X "%99999999999d" 1\nvllm serve "$MODEL" --port "$X"\n'
    assert port(only_launch(parse(text))) == "%99999999999d"
    ok = HEADER + 'printf -v X "%05d" 42\nvllm serve "$MODEL" --port "$X"\n'
    assert port(only_launch(parse(ok))) == "00042"


def test_eval_makes_its_assignments_unknown() -> None:
    text = (
        HEADER + 'GMU=0.8\neval "GMU=0.95"\nvllm serve "$MODEL" --gpu-memory-utilization "$GMU"\n'
    )
    assert gmu(only_launch(parse(text))) is None


def test_eval_of_a_launch_is_reported_not_missed() -> None:
    text = HEADER + 'eval "vllm serve $MODEL --gpu-memory-utilization 0.95"\n'
    recipe = parse(text)
    assert recipe.launches == []
    assert [p.kind for p in recipe.problems] == ["eval"]


def test_case_fall_through_runs_the_next_arm() -> None:
    text = HEADER + (
        "MODE=a\n"
        'case "$MODE" in\n'
        "  a) GMU=0.7 ;&\n"
        "  b) GMU=0.8 ;;\n"
        "  *) GMU=0.6 ;;\n"
        "esac\n"
        'vllm serve "$MODEL" --gpu-memory-utilization "$GMU"\n'
    )
    assert gmu(only_launch(parse(text))) == "0.8"
    unknown = text.replace("MODE=a\n", "")
    values = sorted(gmu(la) or "?" for la in parse(unknown).launches)
    assert values == ["0.6", "0.8"]


def test_many_nested_functions_are_bounded() -> None:
    n = 600
    text = HEADER + "".join(f"f{i}() {{\n" for i in range(n)) + "}\n" * n + LAUNCH
    recipe = parse(text)
    assert gmu(only_launch(recipe)) == "0.9"


def test_huge_array_becomes_unknown_with_a_problem() -> None:
    text = HEADER + "A=()\n" + "A+=(x)\n" * 5000 + 'vllm serve "$MODEL" --port "${A[0]}"\n'
    recipe = parse(text)
    assert [(p.kind, p.params["name"]) for p in recipe.problems] == [("array_too_long", "A")]


def test_trim_on_a_long_string_stays_unknown() -> None:
    text = HEADER + 'X="' + "a," * 5000 + '"\nvllm serve "$MODEL" --port "${X%,}"\n'
    assert port(only_launch(parse(text))) is None
    short = HEADER + 'X="1, 2, "\nvllm serve "$MODEL" --port "${X%, }"\n'
    assert port(only_launch(parse(short))) == "1, 2"


def test_a_forking_script_stops_at_the_step_budget_with_a_finding() -> None:
    """Forking ifs on inputs, each path running its statements (about 31,000 in all
    here): the interpreter stops at MAX_STEPS statements (summed over paths) and
    says so, rather than walk a megabyte of them (bench_hostile's
    `recipe_forking_near_size_limit`)."""
    from bot.parse.bash import Interpreter, parse_tree
    from bot.parse.bash.state import MAX_STEPS

    chunks = "".join(
        f'if [ -n "$V{i % 50}" ]; then GMU=0.{i % 9 + 1}; fi\nA{i}="value {i}"\n'
        for i in range(3_000)
    )
    src = (HEADER + chunks + LAUNCH).encode()
    interp = Interpreter(src, lambda _: None, watched_flags=frozenset({"--gpu-memory-utilization"}))
    interp.run(parse_tree(src).root_node)
    assert interp.steps == MAX_STEPS + 1
    assert [p.kind for p in interp.problems] == ["too_complex"]


@pytest.mark.parametrize(
    "definition",
    [
        "f() { echo $X; }",
        "f ( ) { echo $X; }",
        "f (\\\n) { echo $X; }",
        "f ( # a comment\n) { echo $X; }",
        "function f { echo $X; }",
        "function f() { echo $X; }",
    ],
)
def test_names_in_a_function_body_live_forever_however_it_is_defined(definition: str) -> None:
    """`last_uses` searches the tree for functions only when the text may define one:
    every form bash accepts must still count (a call may read X after the body)."""
    from bot.parse.bash import parse_tree
    from bot.parse.bash.paths import last_uses

    src = f"X=1\n{definition}\nY=2\n".encode()
    root = parse_tree(src).root_node
    assert any(n.type == "function_definition" for n in root.named_children)
    last = last_uses(src, root)
    assert last["X"] > len(src)
    assert last["Y"] <= len(src)
