"""A finding names the condition under which it holds (issue 8, item 3).

The interpreter records the facts each path takes on the environment as typed
data (`bash.Assumption` on `Launch.conditions`); `bot.core.conditions` reduces
them to what the launches carrying a finding share, and the rule record's
`when` / `cond-*` clauses word it in both languages.
"""

from __future__ import annotations

from bot.core import conditions
from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.model import Finding
from bot.core.registry import all_rules
from bot.core.tree import MemoryTree
from bot.parse.bash import Assumption
from bot.parse.recipe import parse_recipe

FSL = "benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
SPEC = (
    'SPEC=\'{"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3","num_speculative_tokens":3}\'\n'
)


def _lint(path: str, text: str, rule: str) -> list[Finding]:
    ctx = Context.for_tree(MemoryTree({path: text}), build_config(None))
    rules = [rm for rm in all_rules() if rm.rule.id == rule]
    return lint(ctx, paths=[path], rules=rules).findings


def _launch(mem_block: str) -> str:
    return (
        "#!/usr/bin/env bash\n"
        + mem_block
        + SPEC
        + 'vllm serve m --tensor-parallel-size "$TP" --gpu-memory-utilization "$MEM" '
        '--speculative-config "$SPEC" &\n'
    )


def test_a_value_set_in_one_arm_names_that_arm() -> None:
    text = _launch('MEM=0.90\nif [ "$TP" -eq 4 ]; then\n    MEM=0.95\nfi\n')
    (f,) = _lint(FSL, text, "RCP002")
    assert f.line == 4
    assert f.message.en.endswith("(only when `TP=4`)")
    assert f.message.zh.endswith("（仅当 `TP=4` 时）")


def test_a_value_set_before_the_fork_names_nothing() -> None:
    text = _launch('MEM=0.95\nif [ "$TP" -eq 4 ]; then\n    EXTRA=1\nfi\n')
    (f,) = _lint(FSL, text, "RCP002")
    assert "only when" not in f.message.en and "仅当" not in f.message.zh


def test_range_and_switch_conditions_are_worded() -> None:
    text = _launch(
        'MEM=0.90\nif [ "$SPEC_DECODE" = "true" ] && [ "$CONC" -le 8 ]; then\n    MEM=0.95\nfi\n'
    )
    (f,) = _lint(FSL, text, "RCP002")
    assert f.message.en.endswith("(only when `SPEC_DECODE=true` and `CONC` ≤ 8)")
    assert f.message.zh.endswith("（仅当 `SPEC_DECODE=true`、`CONC` ≤ 8 时）")


def test_a_condition_every_launch_takes_is_a_precondition_not_named() -> None:
    # the unsupported arm exits: every launch runs with KV_OFFLOADING none or dram
    text = _launch(
        'MEM=0.95\ncase "$KV_OFFLOADING" in\n  none) OFF=() ;;\n  dram) OFF=(--kv-offload) ;;\n'
        "  *) exit 1 ;;\nesac\n"
    ).replace('"$SPEC" &', '"$SPEC" "${OFF[@]}" &')
    (f,) = _lint(FSL, text, "RCP002")
    assert "only when" not in f.message.en


def test_the_eval_arm_is_named_and_the_throughput_arm_goes_unsaid() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$EVAL_ONLY" = "true" ]; then\n'
        "    PARSER=(--reasoning-parser minimax_m3)\n"
        "else\n"
        "    PARSER=()\n"
        "fi\n"
        'vllm serve m --tool-call-parser minimax_m3 "${PARSER[@]}" &\n'
    )
    (f,) = _lint(AGENTIC, text, "RCP001")
    assert f.message.en.endswith("(only when `EVAL_ONLY=true`)")
    flipped = text.replace('= "true" ]', '!= "true" ]')
    (g,) = _lint(AGENTIC, flipped, "RCP001")
    assert "only when" not in g.message.en


def test_paths_pinning_one_variable_to_several_values_share_their_union() -> None:
    def la(*facts: Assumption) -> object:
        return type("L", (), {"conditions": facts})()

    a8 = Assumption("CONC", "eq", "8", 3)
    a10 = Assumption("CONC", "eq", "10", 5)
    tp = Assumption("TP", "eq", "8", 1)
    got = conditions.shared([la(tp, a8), la(tp, a10)])
    assert [(c.var, c.op, c.value) for c in got] == [("TP", "eq", "8"), ("CONC", "in", "8|10")]
    # a path that leaves CONC free breaks the union: nothing is said about CONC
    got = conditions.shared([la(tp, a8), la(tp)])
    assert [(c.var, c.value) for c in got] == [("TP", "8")]
    assert conditions.shared([]) == ()


def test_launches_carry_the_facts_of_pruned_variables() -> None:
    # TP is never read after the test: the fact still says which launch runs when
    text = _launch('MEM=0.90\nif [ "$SWITCH" = "on" ]; then\n    MEM=0.95\nfi\n').replace(
        '--tensor-parallel-size "$TP" ', ""
    )
    recipe = parse_recipe(FSL, text)
    by_mem = {la.flag("--gpu-memory-utilization").value.text: la for la in recipe.launches}  # type: ignore[union-attr]
    on = [(c.var, c.op, c.value) for c in by_mem["0.95"].conditions]
    off = [(c.var, c.op, c.value) for c in by_mem["0.90"].conditions]
    assert on == [("SWITCH", "eq", "on")] and off == [("SWITCH", "ne", "on")]
