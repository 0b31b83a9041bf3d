"""The typed views of `bot.base.knowledge.Knowledge` that several modules read:
`model_tables`, `shared_launch`, `recipe_helpers`, `reasoning_effort`, `benchmark_client`.
Each reads the shipped table as the code read the raw section before, and an absent or
empty section as empty."""

from __future__ import annotations

from bot.base.knowledge import (
    BenchmarkClient,
    CommandRunner,
    Knowledge,
    ModelTable,
    ReasoningEffort,
    RecipeHelpers,
    SharedLaunch,
    SrtBenchmark,
)
from bot.core.config import build_config


def test_absent_sections_read_as_empty() -> None:
    k = Knowledge({"model_tables": None, "recipe_helpers": None})
    assert k.model_tables == {}
    assert k.shared_launch == SharedLaunch()
    assert k.recipe_helpers == RecipeHelpers()
    assert k.reasoning_effort == ReasoningEffort()


def test_model_tables() -> None:
    k = Knowledge(
        {
            "model_tables": {
                "a.yaml": {"launcher": "run.sh", "eval_rewrite": "method"},
                "b.yaml": {"launcher": "run_b.sh", "eval_rewrite": ""},
                "c.yaml": {},
                "d.yaml": "not a table",
            }
        }
    )
    assert dict(k.model_tables) == {
        "a.yaml": ModelTable("run.sh", "method"),
        "b.yaml": ModelTable("run_b.sh", None),
        "c.yaml": ModelTable(None, None),
    }


def test_recipe_helpers() -> None:
    k = Knowledge(
        {
            "recipe_helpers": {
                "inert": ["log", "echo_it"],
                "command_runners": {
                    "replay": {"variable": "REPLAY_CMD", "client": "REPLAY_CMD"},
                    "half": {"variable": "CMD"},
                    "odd": ["not", "a", "table"],
                },
            }
        }
    )
    assert k.recipe_helpers.inert == frozenset({"log", "echo_it"})
    assert dict(k.recipe_helpers.command_runners) == {
        "replay": CommandRunner("REPLAY_CMD", "REPLAY_CMD"),
        "half": CommandRunner("CMD", None),
    }


def test_the_shipped_knowledge() -> None:
    k = build_config(None).knowledge
    assert "benchmarks/**/*.sh" in k.shared_launch.paths and k.shared_launch.top
    tables = k.model_tables
    assert tables and all(t.launcher for t in tables.values())
    assert any(t.eval_rewrite for t in tables.values())
    assert k.recipe_helpers.inert and k.recipe_helpers.command_runners
    assert k.reasoning_effort.kwargs == ("reasoning_effort",) and k.reasoning_effort.env


def test_benchmark_client() -> None:
    k = Knowledge(
        {
            "benchmark_client": {
                "commands": {"bench": "--chat"},
                "chat_flags": ["--chat"],
                "client_chat_flags": {"bench": ["--chat"], "other": None},
                "srt_benchmarks": {"sa-bench": {"chat_key": "use_chat", "default": True}},
            }
        }
    )
    table = k.benchmark_client
    assert dict(table.commands) == {"bench": "--chat"} and table.chat_flags == {"--chat"}
    assert dict(table.client_chat_flags) == {"bench": ("--chat",), "other": ()}
    assert dict(table.srt_benchmarks) == {"sa-bench": SrtBenchmark("use_chat", True)}
    assert not table.chat_backends and not table.chat_by_default
    assert Knowledge({}).benchmark_client == BenchmarkClient()
