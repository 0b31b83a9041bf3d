"""Benchmark: `bot lint` on hostile inputs, each as a subprocess of the installed `bot` script.

Builds every input in a temporary directory (one repository per case: an empty
`.recipe-bot.yml` marks its root; files sit at their routed paths), runs
`bot lint PATH --format json` on it, and prints the time, exit status and the
rule ids found. A case is flagged when it runs over its budget (2 s for a
recipe, 5 s for the changelog), times out, writes a traceback to stderr, exits
with a status other than 0/1, or prints no readable JSON.

    python benchmarks/bench_hostile.py
    python benchmarks/bench_hostile.py --only yaml_bomb --keep
    python benchmarks/bench_hostile.py --json
    python benchmarks/bench_hostile.py --extra         # plus reproducers of known defects
    python benchmarks/bench_hostile.py --budget-factor 3   # CI: a smoke test on a shared machine

Exit status: 0 when no case is flagged, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RECIPE_PATH = "benchmarks/single_node/agentic/x_fp8_h100_mtp.sh"
CHANGELOG_PATH = "perf-changelog.yaml"
RECIPE_BUDGET_S = 2.0
CHANGELOG_BUDGET_S = 5.0
TIMEOUT_S = 120.0

HEADER = '#!/usr/bin/env bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\nMODEL=org/x\n'
LAUNCH = (
    'vllm serve "$MODEL" --port 8000 --gpu-memory-utilization 0.9 \\\n'
    '  --speculative-config \'{"method": "mtp", "num_speculative_tokens": 3}\'\n'
)


# --------------------------------------------------------------------------- recipes


def recipe_10mb() -> bytes:
    line = 'echo "filler line to make the script large ............................"\n'
    n = (10 * 1024 * 1024) // len(line) + 1
    return (HEADER + line * n + LAUNCH).encode()


def _recipe_limit() -> int:
    try:
        from bot.parse.recipe import MAX_RECIPE_BYTES
    except ImportError:  # pragma: no cover - bot not importable here
        return 1024 * 1024
    return int(MAX_RECIPE_BYTES)


def recipe_near_limit() -> bytes:
    """Just under the analysis size limit: forking ifs and assignments, all analysed."""
    limit = _recipe_limit() - 4096
    parts = [HEADER]
    size = len(HEADER)
    i = 0
    while size < limit:
        chunk = f'if [ -n "$V{i % 50}" ]; then GMU=0.{i % 9 + 1}; fi\nA{i}="value {i}"\n'
        parts.append(chunk)
        size += len(chunk)
        i += 1
    parts.append(LAUNCH.replace("0.9", "$GMU"))
    return "".join(parts).encode()


def recipe_nested_if(depth: int = 5000) -> bytes:
    opens = "".join(f'if [ -n "$V{i}" ]; then\n' for i in range(depth))
    closes = "fi\n" * depth
    return (HEADER + opens + LAUNCH + closes).encode()


def recipe_arith(lines: int = 100_000) -> bytes:
    body = "X=0\n" + "X=$((X+1))\n" * lines
    return (HEADER + body + 'vllm serve "$MODEL" --port $((8000 + X))\n').encode()


def recipe_binary() -> bytes:
    rng = random.Random(1234)
    data = bytearray(rng.randbytes(256 * 1024))
    data[100] = 0
    return b"#!/usr/bin/env bash\n" + bytes(data)


def recipe_bad_utf8() -> bytes:
    return (
        HEADER.encode()
        + b"# caf\xe9 \xff\xfe comment\n"
        + b'GMU="0.9\xc3\x28"\n'
        + b'vllm serve "$MODEL" --gpu-memory-utilization "$GMU" --served-model-name \x80\x81\n'
    )


def recipe_yaml_bomb(levels: int = 9, width: int = 10) -> bytes:
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    yaml_text = "\n".join(lines)
    return (
        "#!/usr/bin/env bash\n"
        "MODEL=org/x\n"
        "cat > /tmp/extra.yml <<EOF\n"
        f"{yaml_text}\n"
        "speculative_config:\n"
        "  decoding_type: MTP\n"
        "  num_nextn_predict_layers: 3\n"
        "EOF\n"
        'trtllm-serve "$MODEL" --config /tmp/extra.yml --port 8000\n'
    ).encode()


# --------------------------------------------------------------------------- changelog


def _entry(n: int) -> str:
    return (
        "- config-keys:\n"
        f"    - x-fp8-h100-vllm-{n}\n"
        "  description:\n"
        f'    - "Bump the image for config {n}"\n'
        f"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{n}\n\n"
    )


def changelog_alias_bomb(levels: int = 10, width: int = 10) -> bytes:
    lines = [f"  a0: &a0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return (
        "- config-keys:\n    - x-fp8-h100-vllm\n"
        + "\n".join(lines)
        + f"\n  description:\n    - *a{levels - 1}\n"
        "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
    ).encode()


def changelog_nested(depth: int = 10) -> bytes:
    nested = "[" * depth + '"deep"' + "]" * depth
    return (
        "- config-keys:\n    - x-fp8-h100-vllm\n"
        f"  description:\n    - {nested}\n"
        "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
    ).encode()


def changelog_entries(n: int = 10_000) -> bytes:
    return "".join(_entry(i) for i in range(1, n + 1)).encode()


def changelog_50mb() -> bytes:
    parts = []
    size = 0
    i = 1
    while size < 50 * 1024 * 1024:
        e = _entry(i)
        parts.append(e)
        size += len(e)
        i += 1
    return "".join(parts).encode()


def changelog_bad_utf8() -> bytes:
    return (
        _entry(1).encode()
        + b'- config-keys:\n    - x\xff\xfe\n  description:\n    - "caf\xe9"\n'
        + (b"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2\n")
    )


MULTI_NODE_PATH = "benchmarks/multi_node/srt-slurm-recipes/vllm/minimax-m3/agentic/x-agentic.yaml"


def multinode_alias_bomb(levels: int = 12, width: int = 10) -> bytes:
    out = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        out.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    out.append(f"backend:\n  type: vllm\n  vllm_config:\n    decode: {{x: *a{levels - 1}}}")
    return ("\n".join(out) + "\n").encode()


def multinode_deep_flow(depth: int = 100_000) -> bytes:
    return ("backend: " + "[" * depth + "]" * depth + "\n").encode()


def multinode_many_roles(n: int = 20_000) -> bytes:
    roles = "".join(f"    role{i}: {{tensor-parallel-size: 8}}\n" for i in range(n))
    return f"backend:\n  type: vllm\n  vllm_config:\n{roles}".encode()


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    make: Callable[[], bytes]

    @property
    def budget(self) -> float:
        return CHANGELOG_BUDGET_S if self.path == CHANGELOG_PATH else RECIPE_BUDGET_S


CASES = (
    Case("recipe_10mb", RECIPE_PATH, recipe_10mb),
    Case("recipe_forking_near_size_limit", RECIPE_PATH, recipe_near_limit),
    Case("recipe_nested_if_5000", RECIPE_PATH, recipe_nested_if),
    Case("recipe_arith_100k_lines", RECIPE_PATH, recipe_arith),
    Case("recipe_binary_nul", RECIPE_PATH, recipe_binary),
    Case("recipe_invalid_utf8", RECIPE_PATH, recipe_bad_utf8),
    Case("recipe_trt_yaml_bomb_9_levels", RECIPE_PATH, recipe_yaml_bomb),
    Case("changelog_alias_bomb", CHANGELOG_PATH, changelog_alias_bomb),
    Case("changelog_nested_10", CHANGELOG_PATH, changelog_nested),
    Case("changelog_nested_10000", CHANGELOG_PATH, lambda: changelog_nested(10_000)),
    Case("changelog_10000_entries", CHANGELOG_PATH, changelog_entries),
    Case("changelog_50mb", CHANGELOG_PATH, changelog_50mb),
    Case("changelog_invalid_utf8", CHANGELOG_PATH, changelog_bad_utf8),
    Case("multinode_alias_bomb_10^12", MULTI_NODE_PATH, multinode_alias_bomb),
    Case("multinode_flow_depth_100000", MULTI_NODE_PATH, multinode_deep_flow),
    Case("multinode_20000_unknown_roles", MULTI_NODE_PATH, multinode_many_roles),
)


# --------------------------------------------------------------------------- extra
# Reproducers of defects found with this script (run with --extra). Moderate
# sizes: each shows the problem in seconds rather than hanging the run.

SHORT = "#!/usr/bin/env bash\nMODEL=org/x\n"


def extra_nested_functions(n: int = 3000) -> bytes:
    """`_last_uses` scans to each function's closing brace byte by byte: O(n^2)."""
    return (SHORT + "".join(f"f{i}() {{\n" for i in range(n)) + "}\n" * n + LAUNCH).encode()


def extra_array_append(n: int = 40_000) -> bytes:
    """`A+=(x)` copies the whole tuple each time: O(n^2)."""
    return (SHORT + "A=()\n" + "A+=(x)\n" * n + 'vllm serve "$MODEL" "${A[@]}"\n').encode()


def extra_suffix_trim(size: int = 300_000, lines: int = 3) -> bytes:
    """`${X%b*}` slices the string at every offset: O(len^2) per expansion."""
    return (
        SHORT
        + 'X="'
        + "a" * size
        + '"\n'
        + "Y=${X%b*}\n" * lines
        + 'vllm serve "$MODEL" --x "$Y"\n'
    ).encode()


def extra_arith_huge_literal() -> bytes:
    """`int()` of a literal over 4,300 digits raises ValueError in eval_arith."""
    return (SHORT + "X=$(( " + "9" * 5000 + ' + 1 ))\nvllm serve "$MODEL" --port "$X"\n').encode()


def extra_json_bad_unicode_escape() -> bytes:
    """jsonpos: `\\uZZZZ` raises ValueError instead of failing the parse."""
    return (SHORT + 'vllm serve "$MODEL" --speculative-config \'{"method": "\\uZZZZ"}\'\n').encode()


def extra_printf_width() -> bytes:
    """`printf -v X "%99999999999d"`: MemoryError (a smaller width allocates gigabytes)."""
    return (SHORT + 'printf -v X "%99999999999d" 1\nvllm serve "$MODEL" --port "$X"\n').encode()


def extra_unclosed_defaults(n: int = 120_000) -> bytes:
    """A syntax error plus one line of unclosed `${a:-` defaults: the retry that blanks
    escaped quotes in defaults scanned up to 4 KiB from each of them: O(n * 4096)."""
    return (SHORT + 'X="' + "${a:-" * n + "\n" + 'vllm serve "$MODEL"\n').encode()


EXTRA_CASES = (
    Case("extra_unclosed_defaults_120k", RECIPE_PATH, extra_unclosed_defaults),
    Case("extra_nested_functions_3000", RECIPE_PATH, extra_nested_functions),
    Case("extra_array_append_40k", RECIPE_PATH, extra_array_append),
    Case("extra_suffix_trim_300kb_x3", RECIPE_PATH, extra_suffix_trim),
    Case("extra_arith_huge_literal", RECIPE_PATH, extra_arith_huge_literal),
    Case("extra_json_bad_unicode_escape", RECIPE_PATH, extra_json_bad_unicode_escape),
    Case("extra_printf_huge_width", RECIPE_PATH, extra_printf_width),
)


def bot_script() -> str:
    here = Path(sys.executable).parent / "bot"
    if here.exists():
        return str(here)
    found = shutil.which("bot")
    if found is None:
        raise SystemExit(
            "bench_hostile: the `bot` console script is not installed (pip install -e .)"
        )
    return found


def run_case(case: Case, root: Path, bot: str, budget_factor: float = 1.0) -> dict[str, Any]:
    repo = root / case.name
    target = repo / case.path
    target.parent.mkdir(parents=True, exist_ok=True)
    (repo / ".recipe-bot.yml").write_bytes(b"")
    data = case.make()
    target.write_bytes(data)
    env = dict(os.environ, NO_COLOR="1")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [bot, "lint", case.path, "--format", "json"],
            cwd=repo,
            capture_output=True,
            env=env,
            timeout=TIMEOUT_S,
            check=False,
        )
        elapsed = time.perf_counter() - start
        code: int | None = proc.returncode
        stdout = proc.stdout.decode("utf-8", "replace")
        stderr = proc.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        elapsed = time.perf_counter() - start
        code, stdout, stderr = None, "", ""
    rules: Counter[str] = Counter()
    parsed_json = False
    if stdout:
        try:
            report = json.loads(stdout)
            rules.update(f["rule"] for f in report.get("findings", []))
            parsed_json = True
        except (json.JSONDecodeError, AttributeError, TypeError, KeyError):
            pass
    problems = []
    if code is None:
        problems.append(f"TIMEOUT after {TIMEOUT_S:.0f} s")
    elif elapsed > case.budget * budget_factor:
        problems.append(f"SLOW (> {case.budget * budget_factor:.0f} s)")
    if "Traceback" in stderr:
        problems.append("TRACEBACK")
    if code not in (None, 0, 1):
        problems.append(f"exit {code}")
    if code is not None and not parsed_json:
        problems.append("no JSON report")
    return {
        "case": case.name,
        "path": case.path,
        "bytes": len(data),
        "seconds": elapsed,
        "exit": code,
        "rules": dict(sorted(rules.items())),
        "flags": problems,
        "stderr_tail": stderr.strip().splitlines()[-5:] if stderr.strip() else [],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", metavar="SUBSTR", help="run only cases whose name contains SUBSTR")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--json", action="store_true", help="print machine-readable results")
    ap.add_argument(
        "--extra", action="store_true", help="also run the reproducers of known defects"
    )
    ap.add_argument(
        "--budget-factor",
        type=float,
        default=1.0,
        metavar="F",
        help="multiply every time budget by F (CI runs with 3: a crash or a runaway still "
        "fails, a busy machine does not; the figures printed are the real times)",
    )
    args = ap.parse_args(argv)
    bot = bot_script()
    pool = CASES + EXTRA_CASES if args.extra else CASES
    cases = [c for c in pool if not args.only or args.only in c.name]
    if not cases:
        print(f"bench_hostile: no case matches {args.only!r}", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="bot-hostile-"))
    results = []
    try:
        for case in cases:
            res = run_case(case, root, bot, args.budget_factor)
            results.append(res)
            if not args.json:
                rules = ", ".join(f"{k}x{v}" for k, v in res["rules"].items()) or "-"
                flag = ("   <-- " + "; ".join(res["flags"])) if res["flags"] else ""
                print(
                    f"{res['case']:<32} {res['bytes']:>11,} B  {res['seconds']:7.2f} s  "
                    f"exit {res['exit']!s:<4} rules: {rules}{flag}",
                    flush=True,
                )
                if res["flags"] and res["stderr_tail"]:
                    for ln in res["stderr_tail"]:
                        print(f"    stderr: {ln}")
    finally:
        if args.keep:
            print(f"inputs kept in {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    flagged = [r for r in results if r["flags"]]
    if args.json:
        print(json.dumps({"results": results, "flagged": [r["case"] for r in flagged]}, indent=2))
    else:
        print(
            f"{len(results)} cases, {len(flagged)} flagged"
            + (": " + ", ".join(r["case"] for r in flagged) if flagged else "")
        )
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
