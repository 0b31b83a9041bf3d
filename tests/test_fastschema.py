"""The quick schema check (`bot.base.fastschema.QuickSchema`) against jsonschema.

It may answer `True` only where jsonschema finds no error, and `False` only where it
finds one: checked on the shipped schemas over hand-made entries, hundreds of random
edits of valid ones, and every entry of the real master configs and changelog. CFG001
and CHL001 take its `True` and skip jsonschema: a pull request whose entries are valid
does not import it (checked in a fresh process), and one with an invalid entry gets
jsonschema's findings as before.
"""

from __future__ import annotations

import copy
import datetime
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bot.base.fastschema import QuickSchema
from bot.core.config import load_schema
from rules.changelog import CHL001_changelog_entry_violates_schema as chl001
from rules.config import CFG001_master_config_entry_violates_schema as cfg001

INFERENCEX = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex"

ENTRY: dict[str, Any] = {
    "image": "vllm/vllm-openai:v0.27.1",
    "model": "nvidia/MiniMax-M3-NVFP4",
    "model-prefix": "minimaxm3",
    "runner": "cluster:b200-dgxc",
    "precision": "fp4",
    "framework": "vllm",
    "multinode": False,
    "scenarios": {
        "fixed-seq-len": [
            {
                "isl": 8192,
                "osl": 1024,
                "search-space": [
                    {"tp": 4, "ep": 4, "conc-start": 4, "conc-end": 64},
                    {"tp": 8, "dcp-size": 2, "conc-list": [1, 4, 8]},
                ],
            }
        ],
        "agentic-coding": [
            {
                "dram-utilization": 0.8,
                "search-space": [
                    {"tp": 4, "spec-decoding": "mtp", "kv-offloading": "none", "conc-list": [1]},
                    {
                        "tp": 8,
                        "spec-decoding": "mtp",
                        "kv-offloading": "dram",
                        "kv-offload-backend": {"name": "vllm-simple"},
                        "conc-list": [8, 16],
                    },
                ],
            }
        ],
    },
}

MULTI: dict[str, Any] = {
    "image": "nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0",
    "model": "nvidia/DeepSeek-V4-Pro-NVFP4",
    "model-prefix": "dsv4",
    "runner": "cluster:gb300-nv",
    "precision": "fp4",
    "framework": "dynamo-trt",
    "router": {"name": "dynamo-router", "version": "1.3.0"},
    "kv-p2p-transfer": "nixl",
    "multinode": True,
    "disagg": True,
    "scenarios": {
        "agentic-coding": [
            {
                "dram-utilization": 0.5,
                "search-space": [
                    {
                        "spec-decoding": "mtp",
                        "kv-offloading": "dram",
                        "kv-offload-backend": {"name": "native"},
                        "conc-list": [32, 64],
                        "prefill": {"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": True},
                        "decode": {"num-worker": 2, "tp": 8, "ep": 8, "dp-attn": True},
                    }
                ],
            }
        ],
        "fixed-seq-len": [
            {
                "isl": 1024,
                "osl": 1024,
                "search-space": [
                    {
                        "conc-list": [4],
                        "prefill": {"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": False},
                        "decode": {"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": False},
                    }
                ],
            }
        ],
    },
}

CHANGE: dict[str, Any] = {
    "config-keys": ["minimaxm3-fp8-h100-vllm-agentic", "dsr1-fp8-*-sglang"],
    "scenario-type": ["agentic-coding"],
    "description": ["Add MiniMax-M3 on H100"],
    "pr-link": "https://github.com/SemiAnalysisAI/InferenceX/pull/2412",
    "append-only": True,
    "evals-only": False,
    "eval-min-prefill-ep": None,
}


def _master() -> tuple[QuickSchema, Any]:
    inlined = cfg001._inlined()
    return QuickSchema(inlined), jsonschema.Draft202012Validator(inlined)


def _changelog() -> tuple[QuickSchema, Any]:
    schema = load_schema(chl001.SCHEMA_NAME)
    return QuickSchema(schema), jsonschema.Draft202012Validator(schema)


def _agree(quick: QuickSchema, stock: Any, instance: Any) -> bool | None:
    got = quick.valid(instance)
    assert got is None or got == stock.is_valid(instance), json.dumps(instance, default=str)
    return got


def test_the_shipped_schemas_are_understood_and_valid_entries_pass() -> None:
    for quick, _ in (_master(), _changelog()):
        assert quick.supported
    quick, stock = _master()
    for entry in (ENTRY, MULTI):
        assert stock.is_valid(entry)
        assert quick.valid(entry) is True
    quick, stock = _changelog()
    assert stock.is_valid(CHANGE) and quick.valid(CHANGE) is True


def _set(entry: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(entry)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


def _drop(entry: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(entry)
    node = out
    for step in path[:-1]:
        node = node[step]
    del node[path[-1]]
    return out


SS = ("scenarios", "fixed-seq-len", 0, "search-space", 0)
AG = ("scenarios", "agentic-coding", 0, "search-space", 1)


@pytest.mark.parametrize(
    "entry",
    [
        _drop(ENTRY, ("multinode",)),
        _set(ENTRY, ("image",), ""),
        _set(ENTRY, ("image",), 3),
        _set(ENTRY, ("multinode",), 1),  # `1` is not `true` to a JSON Schema
        _set(ENTRY, ("disagg",), True),
        _set(ENTRY, ("trace-source",), "x"),
        _set(ENTRY, ("kv-p2p-transfer",), "nixl"),
        _set(ENTRY, ("runner",), "b200-dgxc"),  # agentic on a broad label
        _set(ENTRY, (*SS, "tp"), 0),
        _set(ENTRY, (*SS, "tp"), True),
        _set(ENTRY, (*SS, "tp"), 4.5),
        _set(ENTRY, (*SS, "conc-list"), [1]),  # with a range
        _drop(ENTRY, (*SS, "conc-end")),
        _set(ENTRY, (*AG, "spec-decoding"), "eagle3"),
        _drop(ENTRY, (*AG, "kv-offload-backend")),
        _set(ENTRY, ("scenarios", "agentic-coding"), "x"),
        _set(ENTRY, ("scenarios",), []),
        _set(MULTI, ("router", "version"), "image:nvcr.io/x"),
        _drop(MULTI, ("kv-p2p-transfer",)),
        _set(MULTI, ("scenarios", "agentic-coding", 0, "search-space", 0, "router"), {}),
        [],
        None,
        "entry",
        {},
    ],
)
def test_invalid_entries_are_never_called_valid(entry: Any) -> None:
    quick, stock = _master()
    assert not stock.is_valid(entry)
    assert _agree(quick, stock, entry) is False


@pytest.mark.parametrize(
    "entry",
    [
        _drop(CHANGE, ("pr-link",)),
        _set(CHANGE, ("config-keys",), []),
        _set(CHANGE, ("config-keys",), [""]),
        _set(CHANGE, ("description",), "one string"),
        _set(CHANGE, ("evals-only",), True),  # with append-only
        _set(CHANGE, ("eval-min-prefill-ep",), 0),
        _set(CHANGE, ("eval-min-prefill-ep",), True),
        _set(CHANGE, ("scenario-type",), ["fixed-seq-len", "other"]),
        _set(CHANGE, ("extra",), 1),
    ],
)
def test_invalid_changelog_entries_are_never_called_valid(entry: Any) -> None:
    quick, stock = _changelog()
    assert not stock.is_valid(entry)
    assert _agree(quick, stock, entry) is False


def test_what_it_does_not_model_is_left_to_jsonschema() -> None:
    quick, _ = _master()
    # a YAML date, a float `8.0` where an integer is asked, a key that is not a string
    assert quick.valid(_set(ENTRY, ("image",), datetime.date(2026, 1, 1))) is None
    assert quick.valid(_set(ENTRY, (*SS, "tp"), 8.0)) is None
    assert quick.valid(_set(ENTRY, ("scenarios", 1024), [])) is None
    # keywords outside its list: never an answer
    for schema in (
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}},
        {"patternProperties": {"^a": {"type": "string"}}},
        {"properties": {"a": {"format": "date"}}},
        {"items": {"minContains": 1, "contains": {"type": "string"}}},
        {"$schema": "http://json-schema.org/draft-07/schema#"},
        {"properties": {"a": {"$id": "x"}}},
        {"type": "text"},
        {"pattern": "("},
        {"minLength": "1"},
    ):
        assert not QuickSchema(schema).supported
        assert QuickSchema(schema).valid("a") is None


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"enum": [1, "a", None]}, True, False),  # `True` is not `1`
        ({"enum": [1]}, 1.0, True),  # `1.0` is `1`
        ({"const": False}, 0, False),
        ({"const": "a"}, ["a"], False),
        ({"enum": [[1]]}, [1], None),  # containers: left to jsonschema
        ({"type": "number"}, True, False),
        ({"type": "integer"}, 2, True),
        ({"type": ["integer", "null"], "minimum": 1}, None, True),
        ({"minimum": 1}, "0", True),  # bounds judge numbers only
        ({"exclusiveMinimum": 0}, 0, False),
        ({"maximum": 3, "exclusiveMaximum": 4}, 3.5, False),
        ({"minLength": 2, "maxLength": 3}, "ab", True),
        ({"minItems": 1, "maxItems": 1}, [1, 2], False),
        ({"pattern": "b"}, "abc", True),  # searched, not matched at the start
        ({"contains": {"const": 2}}, [1, 2], True),
        ({"contains": {"const": 2}}, [], False),
        ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 3, False),
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, 3, True),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 3, True),
        ({"not": {"required": ["a"]}}, {"a": 1}, False),
        ({"if": {"required": ["a"]}, "then": {"required": ["b"]}}, {"a": 1}, False),
        ({"if": {"required": ["a"]}, "else": {"required": ["b"]}}, {"c": 1}, False),
        ({"then": {"required": ["b"]}}, {"a": 1}, True),  # `then` without `if`: inert
        ({"additionalProperties": {"type": "integer"}, "properties": {"a": {}}}, {"a": "x"}, True),
        ({"additionalProperties": {"type": "integer"}}, {"b": "x"}, False),
        ({"items": False}, [], True),
        ({"items": False}, [1], False),
        ({"properties": {"a": False}}, {"a": 1}, False),
        ({"x-messages": {"type": {"en": "e"}}, "type": "string"}, "s", True),
    ],
)
def test_each_keyword_as_jsonschema_reads_it(
    schema: Any, instance: Any, valid: bool | None
) -> None:
    quick = QuickSchema({"$schema": "https://json-schema.org/draft/2020-12/schema", **schema})
    assert quick.supported
    assert quick.valid(instance) is valid
    if valid is not None:
        assert jsonschema.Draft202012Validator(quick.schema).is_valid(instance) is valid


# -- random edits ---------------------------------------------------------------------

VALUES: list[Any] = [
    None, True, False, 0, 1, 2, 3, 8, -1, 0.5, 2.0, "", "x", "none", "mtp", "dram", "nixl",
    "cluster:b200", "image:x", [], [1], ["a"], [""], {}, {"name": "native"},
    {"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": True},
]  # fmt: skip


def _paths(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [at] if at else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*at, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*at, i))
    return out


def _mutate(entry: Any, rng: random.Random, keys: list[str]) -> Any:
    out = copy.deepcopy(entry)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(out)
        if not paths:
            break
        path = rng.choice(paths)
        parent = out
        for step in path[:-1]:
            parent = parent[step]
        action = rng.random()
        if action < 0.5:
            parent[path[-1]] = copy.deepcopy(rng.choice(VALUES))
        elif action < 0.7 and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[rng.choice(keys)] = copy.deepcopy(rng.choice(VALUES))
        else:
            parent.append(copy.deepcopy(parent[path[-1]]))
    return out


def _keys(schema: Any) -> list[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("properties",) and isinstance(value, dict):
                    found.update(value)
                if key in ("required",) and isinstance(value, list):
                    found.update(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(schema)
    return sorted(found)


@pytest.mark.parametrize("which", ["master", "changelog"])
def test_random_edits_of_valid_entries_agree_with_jsonschema(which: str) -> None:
    quick, stock = _master() if which == "master" else _changelog()
    seeds = [ENTRY, MULTI] if which == "master" else [CHANGE, _drop(CHANGE, ("append-only",))]
    keys = _keys(quick.schema)
    rng = random.Random(21)
    answers = {True: 0, False: 0, None: 0}
    for i in range(600):
        entry = _mutate(seeds[i % len(seeds)], rng, keys)
        answers[_agree(quick, stock, entry)] += 1
    # the edits reach both answers, and nearly every one is decided
    assert answers[True] >= 30 and answers[False] >= 200, answers
    assert answers[None] <= 60, answers


# -- the real files -------------------------------------------------------------------


@pytest.mark.skipif(not INFERENCEX.is_dir(), reason="../shared/inferencex is absent")
def test_every_real_entry_gets_jsonschemas_answer() -> None:
    from bot.parse.changelog import parse_changelog
    from bot.parse.master_config import parse_master_config

    quick, stock = _master()
    paths = sorted((INFERENCEX / "configs").glob("**/*-master.yaml"))
    count = 0
    for path in paths:
        cfg = parse_master_config(str(path), path.read_text(encoding="utf-8"))
        for entry in cfg.entries.values():
            assert quick.valid(entry.data) == stock.is_valid(entry.data), (path, entry.key)
            count += 1
    assert count > 150
    quick, stock = _changelog()
    text = (INFERENCEX / "perf-changelog.yaml").read_text(encoding="utf-8")
    changelog = parse_changelog("perf-changelog.yaml", text)
    assert len(changelog.entries) > 500
    for item in changelog.entries:
        assert quick.valid(item.data) == stock.is_valid(item.data), item.start_line


# -- the rules skip jsonschema for valid entries --------------------------------------

_NEW = """
minimaxm3-fp4-b300-vllm-agentic-mtp:
  image: vllm/vllm-openai:v0.27.1
  model: nvidia/MiniMax-M3-NVFP4
  model-prefix: minimaxm3
  runner: cluster:b300-nv
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.8
      search-space:
      - { tp: 4, spec-decoding: mtp, kv-offloading: none, conc-list: [8, 16] }
"""

_LOG = """\
- config-keys:
    - minimaxm3-fp4-b300-vllm-agentic-mtp
  description:
    - "Add MiniMax-M3 on B300"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/7
"""

_PROBE = """
import contextlib, io, json, sys
from bot.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
report = json.loads(out.getvalue())
print(json.dumps({
    "code": code,
    "findings": sorted((f["rule"], f["line"]) for f in report["findings"]),
    "jsonschema": "jsonschema" in sys.modules,
}))
"""


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _pr(tmp_path: Path, master: str, log: str) -> dict[str, Any]:
    """Lint a pull request that adds `master` to the master config and `log` to the
    changelog, in a fresh process: its findings and whether jsonschema was imported."""
    base_text = cfg001._BASE
    repo = tmp_path / "repo"
    (repo / "configs").mkdir(parents=True)
    _git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for key, value in (("user.email", "t@example.com"), ("user.name", "t")):
        _git(repo, "config", key, value)
    (repo / "configs" / "nvidia-master.yaml").write_text(base_text, encoding="utf-8")
    (repo / "perf-changelog.yaml").write_text(
        _LOG.replace("minimaxm3-fp4-b300-vllm-agentic-mtp", "minimaxm3-fp4-b200-vllm-agentic-mtp")
        .replace("B300", "B200")
        .replace("/7\n", "/6\n"),
        encoding="utf-8",
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD")
    (repo / "configs" / "nvidia-master.yaml").write_text(base_text + master, encoding="utf-8")
    with (repo / "perf-changelog.yaml").open("a", encoding="utf-8") as f:
        f.write(log)
    _git(repo, "commit", "-q", "-am", "head")
    head = _git(repo, "rev-parse", "HEAD")
    argv = ["lint", "--repo", str(repo), "--base", base, "--head", head, "--pr", "7"]
    argv += ["--format", "json", "--no-cache", "--fail-on", "never"]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    got: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return got


def test_a_pull_request_of_valid_entries_never_imports_jsonschema(tmp_path: Path) -> None:
    got = _pr(tmp_path, _NEW, _LOG)
    assert [r for r, _ in got["findings"] if r in ("CFG001", "CHL001")] == []
    assert got["jsonschema"] is False


def test_an_invalid_entry_still_gets_jsonschemas_findings(tmp_path: Path) -> None:
    bad = _NEW.replace("framework: vllm", "framework: vllm\n  trace-source: x")
    log = _LOG.replace("  pr-link:", "  evals-only: 1\n  pr-link:")
    got = _pr(tmp_path, bad, log)
    rules = sorted({r for r, _ in got["findings"] if r in ("CFG001", "CHL001")})
    assert rules == ["CFG001", "CHL001"]
    assert got["jsonschema"] is True
