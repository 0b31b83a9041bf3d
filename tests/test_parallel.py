"""`bot lint` on two cores gives exactly the single-process answer."""

from __future__ import annotations

import os
import pickle

import pytest

from bot import parallel
from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.tree import MemoryTree

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

ROOT = "benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp4/agentic"


def _tree() -> MemoryTree:
    files: dict[str, str] = {}
    for i in range(40):
        files[f"benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h{100 + i}_mtp.sh"] = (
            "#!/usr/bin/env bash\n"
            f"export SGLANG_SIMULATE_ACC_LEN=3.{i:02d}\n"
            "python3 -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3 &\n"
        )
    for i in range(40):
        files[f"{ROOT}/agg-tp2-c{i}-mtp.yaml"] = (
            f"name: agg-tp2-c{i}\n"
            "model: {path: qwen3.5-fp4, precision: fp4}\n"
            "resources: {gpu_type: gb300}\n"
            "frontend: {type: sglang}\n"
            "backend:\n"
            "  type: sglang\n"
            "  aggregated_environment:\n"
            "    SGLANG_DEFAULT_THINKING: '1'\n"
            f"    SGLANG_SIMULATE_ACC_LEN: '3.{i % 3}9'\n"
            "  sglang_config:\n"
            "    aggregated:\n"
            "      speculative-algorithm: NEXTN\n"
            "      speculative-num-steps: 3\n"
            + ("    decoder: {}\n" if i % 7 == 0 else "")
            + "benchmark: {type: custom, command: bash agentic_srt.sh}\n"
        )
    files["golden_al_distribution/qwen3.5_mtp.yaml"] = (
        "qwen3.5:\n  thinking_on:\n    3: 3.39\n  thinking_off:\n    3: 3.33\n"
    )
    return MemoryTree(files)


def _ctx() -> Context:
    return Context.for_tree(_tree(), build_config(None))


def _key(report: object) -> list[tuple[object, ...]]:
    return [
        (f.rule, f.path, f.line, f.severity, f.message.en, f.fingerprint)
        for f in report.findings  # type: ignore[attr-defined]
    ]


def test_two_cores_same_findings_as_one() -> None:
    one = lint(_ctx())
    two = parallel.lint_parallel(_ctx())
    assert len(one.findings) > 40
    assert {f.rule for f in one.findings} >= {"RCP000", "RCP003", "RCP006"}
    assert _key(two) == _key(one)
    assert two.files == one.files


def test_worker_failure_falls_back_to_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> bytes:
        raise RuntimeError("cannot pickle")

    monkeypatch.setattr(parallel.pickle, "dumps", broken)
    assert _key(parallel.lint_parallel(_ctx())) == _key(lint(_ctx()))
    assert pickle.dumps is broken  # the patch reached the worker too


def test_small_runs_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise AssertionError("forked for a handful of files")

    monkeypatch.setattr(os, "fork", no_fork)
    tree = MemoryTree({"benchmarks/single_node/fixed_seq_len/a_fp8_h100.sh": "vllm serve m &\n"})
    ctx = Context.for_tree(tree, build_config(None))
    assert parallel.lint_parallel(ctx).files == [
        "benchmarks/single_node/fixed_seq_len/a_fp8_h100.sh"
    ]
