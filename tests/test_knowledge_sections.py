"""Knowledge read through typed sections (bot/base/knowledge.py), defaults and overrides."""

from __future__ import annotations

import pytest

from bot.base.knowledge import GoldenEntry, Knowledge, UpstreamEngine
from bot.core.config import build_config
from bot.core.configfile import ConfigError


def test_the_shipped_knowledge_through_its_typed_sections() -> None:
    k = build_config(None).knowledge
    assert (
        GoldenEntry(
            "minimaxm3_eagle3_gqa.yaml", "minimaxm3", "eagle3", ("Inferact/MiniMax-M3-EAGLE3-GQA",)
        )
        in k.golden
    )
    assert k.spec_methods["nextn"] == "mtp"
    assert k.memory.default_limit["vllm"] == 0.90 and k.memory.engine_default["atom"] == 0.90
    assert k.upstream_engines["vllm"] == UpstreamEngine("vLLM", ("vllm/vllm-openai",), ())
    assert "h100" in k.skus.established and k.skus.runners == {}
    assert frozenset({"glm5", "glm5.1"}) in k.model_families
    assert k.primary_engines["dsv4"] == ("vllm", "sglang")
    assert k.env_domains["EVAL_ONLY"] == frozenset({"", "true", "false"})
    assert k.pr_link_prefix is None
    assert k.archived_master_configs == ("configs/deprecated/*.yaml",)
    assert k.runner_launchers == ("runners/launch_*.sh",)
    assert k.thinking.kwargs["enable_thinking"]["false"] == "off"
    assert k.thinking.env_on["SGLANG_DEFAULT_THINKING"] == ("1", "true")
    assert k.thinking.chat_template_on == ("thinking",)


def test_a_repository_override_reaches_the_typed_sections() -> None:
    k = build_config(
        "knowledge:\n"
        "  skus:\n    established: [H100, X9]\n    runners: {odd-label: mi355x}\n"
        "  changelog:\n    pr_link_prefix: https://example.com/pull/\n"
        "  env_domains:\n    SPEC: ['on', 'off']\n    EMPTY: []\n"
        "  thinking:\n    chat_template_on: []\n"
    ).knowledge
    assert {"h100", "x9"} <= k.skus.established  # compared in lower case
    assert k.skus.runners["odd-label"] == "mi355x"
    assert k.pr_link_prefix == "https://example.com/pull/"
    assert k.env_domains["SPEC"] == frozenset({"on", "off"}) and "EMPTY" not in k.env_domains
    assert k.thinking.chat_template_on == ()  # an explicit empty list turns the words off


def test_missing_sections_read_as_empty() -> None:
    k = Knowledge({})
    assert k.golden == () and k.upstream_engines == {} and k.memory.default_limit == {}
    assert k.skus.established == frozenset() and k.primary_engines == {}
    assert k.thinking.kwargs == {} and k.thinking.chat_template_on == ("thinking",)


def test_the_shipped_knowledge_meets_its_schema() -> None:
    # a run validates the knowledge only when the repository adds its own: the shipped
    # file alone is checked here
    import jsonschema

    from bot.core.config import default_knowledge_text, load_schema
    from bot.parse.yamlsafe import load_safe

    shipped = load_safe(default_knowledge_text(), label="default knowledge")
    schema = load_schema("knowledge.schema.json")
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(shipped)) == []


def test_a_repository_override_is_still_checked_against_the_schema() -> None:
    with pytest.raises(ConfigError, match="knowledge: skus/established"):
        build_config("knowledge:\n  skus:\n    established: 7\n")
