"""The core keeps no process-global state: two runs, in two threads, share nothing.

- a syntax-tree scan: no module of `bot.core`, `bot.parse` or `bot.base` keeps a
  module-level container that the module writes to (a cache), rebinds a module
  global at run time, memoises with `functools.cache`/`lru_cache` (except the
  compiled tree-sitter queries, immutable), builds a ruamel `YAML` at import
  time (it keeps reader state), or toggles the interpreter's recursion limit;
- a behaviour test: the same content linted twice at once, in two threads, gives
  the findings a lone run gives.
"""

from __future__ import annotations

import ast
import importlib
import threading
from pathlib import Path

import pytest

from bot.core.config import build_config
from bot.core.context import Context
from bot.core.engine import lint
from bot.core.tree import MemoryTree

PACKAGES = ("bot.base", "bot.core", "bot.parse")

# immutable values built once per process, by name: what they hold cannot change
ALLOWED_MEMOS = {
    # compiled tree-sitter queries (a QueryCursor per use holds the state)
    ("syntax.py", "function_query"),
    # the rule modules importable in this process: code, loaded once, never written
    ("registry.py", "_registry"),
}
MUTATORS = {
    "append",
    "extend",
    "insert",
    "update",
    "setdefault",
    "pop",
    "popitem",
    "clear",
    "add",
    "discard",
    "remove",
    "appendleft",
    "__setitem__",
}
CONTAINER_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter"}


def _files() -> list[Path]:
    out: list[Path] = []
    for name in PACKAGES:
        for folder in importlib.import_module(name).__path__:
            out.extend(sorted(Path(folder).rglob("*.py")))
    return out


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _name(node.func)
    return ""


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp):
        return True
    return isinstance(value, ast.Call) and _name(value.func) in CONTAINER_CALLS


def global_state(source: str, filename: str = "x.py") -> list[str]:
    """What in this module's source is process-global state (empty: none)."""
    tree = ast.parse(source)
    found: list[str] = []
    containers: dict[str, int] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        for t in targets:
            if isinstance(t, ast.Name) and _is_container(value):
                containers[t.id] = node.lineno
            if isinstance(t, ast.Name) and isinstance(value, ast.Call) and _name(value) == "YAML":
                found.append(f"{filename}:{node.lineno}: a module-level ruamel YAML ({t.id})")
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"{filename}:{node.lineno}: rebinds module globals {node.names}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "setrecursionlimit":
                found.append(f"{filename}:{node.lineno}: sys.setrecursionlimit")
            if (
                isinstance(func, ast.Attribute)
                and func.attr in MUTATORS
                and isinstance(func.value, ast.Name)
                and func.value.id in containers
            ):
                found.append(f"{filename}:{node.lineno}: writes module-level {func.value.id}")
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            if isinstance(node.value, ast.Name) and node.value.id in containers:
                found.append(f"{filename}:{node.lineno}: writes module-level {node.value.id}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                if _name(deco) in ("cache", "lru_cache", "cached") and (
                    (filename, node.name) not in ALLOWED_MEMOS
                ):
                    found.append(f"{filename}:{node.lineno}: memoised function {node.name}")
    return found


FILES = _files()


def test_the_scan_sees_the_core() -> None:
    names = {p.name for p in FILES}
    assert {"engine.py", "context.py", "interpreter.py", "yamlsafe.py", "span.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_module_level_state(path: Path) -> None:
    assert global_state(path.read_text(encoding="utf-8"), path.name) == []


@pytest.mark.parametrize(
    "source",
    [
        "_CACHE: dict[str, int] = {}\ndef f(k):\n    _CACHE[k] = 1\n",
        "_SEEN = []\ndef f(x):\n    _SEEN.append(x)\n",
        "_RECENT = list()\ndef f():\n    _RECENT.clear()\n",
        "_C = None\ndef f():\n    global _C\n    _C = 1\n",
        "import functools\n@functools.lru_cache(maxsize=8)\ndef f(x):\n    return [x]\n",
        "from ruamel.yaml import YAML\n_LOADER = YAML(typ='safe')\n",
        "import sys\ndef f():\n    sys.setrecursionlimit(4000)\n",
    ],
)
def test_the_scan_catches(source: str) -> None:
    assert global_state(source)


def test_the_scan_allows_constant_tables() -> None:
    source = (
        "_TABLE = {'a': 1}\n_NAMES = ['x']\n"
        "def f(k):\n    local = {}\n    local[k] = _TABLE[k]\n    return local\n"
    )
    assert global_state(source) == []


# ------------------------------------------------------------------ behaviour

RECIPE = (
    "#!/usr/bin/env bash\n"
    "source benchmark_lib.sh\n"
    'if [ "$EVAL_ONLY" = "true" ]; then\n'
    "  MEM=0.90\n"
    "else\n"
    "  MEM=0.95\n"
    "fi\n"
    'vllm serve "$MODEL" --gpu-memory-utilization "$MEM" \\\n'
    '    --speculative-config \'{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", '
    '"num_speculative_tokens": 3}\' \\\n'
    "    --reasoning-parser minimax_m3 --tool-call-parser minimax_m3 &\n"
)


def _entry(i: int) -> str:
    return (
        f"- config-keys:\n    - a{i}-fp8-h100-vllm\n  description:\n    - 'Entry {i}'\n"
        f"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{i}\n"
    )


def _files(salt: int) -> dict[str, str]:
    """Long enough that threads interleave mid-parse; `salt` makes the blobs distinct,
    so no run can be served from another's cache."""
    changelog = "\n".join(_entry(i) for i in range(1, 300))
    changelog += (
        "\n- config-keys:\n    - b-fp8-h100-vllm\n  description:\n    - x\n  pr-link: TBD\n"
    )
    master = "".join(
        f"a{i}-fp8-h100-vllm:\n  image: vendor/private:1\n  model: m\n  model-prefix: minimaxm3\n"
        "  runner: h100\n  precision: fp8\n  framework: trtllm\n"
        for i in range(200)
    )
    return {
        "perf-changelog.yaml": changelog + f"# {salt}\n",
        "benchmarks/single_node/agentic/minimaxm3_fp8_h100_vllm_mtp.sh": RECIPE + f"# {salt}\n",
        "configs/nvidia-master.yaml": master + f"# {salt}\n",
    }


def _findings(salt: int = 0) -> list[tuple[str, str, int, str, str]]:
    ctx = Context.for_tree(MemoryTree(_files(salt)), build_config(None))
    return [
        (f.rule, f.path, f.line, f.severity, f.message.en + f.message.zh)
        for f in lint(ctx).findings
    ]


def test_two_threads_linting_the_same_content_agree_with_one_run() -> None:
    alone = _findings()
    assert len({f[0] for f in alone}) >= 3, alone  # several parsers and rules took part
    results: list[object] = [None] * 4
    start = threading.Barrier(len(results))

    def work(i: int) -> None:
        start.wait()
        try:
            results[i] = [_findings(10 * i + k) for k in range(3)]
        except BaseException as exc:  # surfaced below, with the thread's index
            results[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, got in enumerate(results):
        assert not isinstance(got, BaseException), f"thread {i}: {got!r}"
        assert got == [alone] * 3, f"thread {i} disagrees"


def test_each_context_owns_its_parse_cache() -> None:
    a = Context.for_tree(MemoryTree(_files(0)), build_config(None))
    b = Context.for_tree(MemoryTree(_files(0)), build_config(None))
    lint(a)
    assert len(a.cache) > 0 and len(b.cache) == 0
    assert a.parsed("changelog", "perf-changelog.yaml") is not b.parsed(
        "changelog", "perf-changelog.yaml"
    )
