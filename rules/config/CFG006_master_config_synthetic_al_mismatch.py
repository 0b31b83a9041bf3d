"""CFG006: a master-config point injects a synthetic AL that differs from the golden AL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, Span, T, part
from bot.parse import facts
from bot.parse.golden import candidates
from bot.parse.master_config import MasterConfig
from bot.parse.master_launch import entry_launches, recipe_path
from bot.parse.master_sets import base_master_configs, entry_changes

_RECIPE = (
    "benchmarks/multi_node/srt-slurm-recipes/vllm/minimax-m3/agentic/gb300-fp4/1p1d-c8-agentic.yaml"
)
_RECIPE_TEXT = (
    "name: minimax-m3-1p1d-c8\n"
    "model: {path: nvidia/MiniMax-M3-NVFP4, precision: fp4}\n"
    "resources: {gpu_type: gb300}\n"
    "frontend: {type: dynamo}\n"
    "backend:\n"
    "  type: vllm\n"
    "  vllm_config:\n"
    "    decode:\n"
    '      dyn-default-thinking-mode: "enabled"\n'
    '      speculative-config: \'{"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3-GQA",'
    '"num_speculative_tokens":3}\'\n'
    "benchmark: {type: custom, command: bash agentic_srt.sh}\n"
)
_GQA = "minimax-m3:\n  thinking_on:\n    3: 2.78\n  thinking_off:\n    3: 2.90\n"
_PLAIN = "minimax-m3:\n  thinking_on:\n    3: 2.83\n  thinking_off:\n    3: 2.93\n"
_FILES = {
    _RECIPE: _RECIPE_TEXT,
    "golden_al_distribution/minimaxm3_eagle3_gqa.yaml": _GQA,
    "golden_al_distribution/minimaxm3_eagle3.yaml": _PLAIN,
}


def _master(al: str, marker: str = "") -> str:
    return (
        "minimaxm3-fp4-gb300-dynamo-vllm-agentic-mtp-disagg:\n"
        "  image: vllm/vllm-openai:nightly\n"
        "  model: nvidia/MiniMax-M3-NVFP4\n"
        "  model-prefix: minimaxm3\n"
        "  runner: cluster:gb300-nv\n"
        "  precision: fp4\n"
        "  framework: dynamo-vllm\n"
        "  multinode: true\n"
        "  scenarios:\n"
        "    agentic-coding:\n"
        "    - search-space:\n"
        "      - spec-decoding: mtp\n"
        "        conc-list: [8]\n"
        "        prefill:\n"
        "          num-worker: 1\n"
        "          additional-settings:\n"
        '          - "SYNTHETIC_ACCEPTANCE=true"\n'
        f'          - "SYNTHETIC_ACCEPTANCE_LENGTH={al}"{marker}\n'
        '          - "CONFIG_FILE=recipes/vllm/minimax-m3/agentic/gb300-fp4/1p1d-c8-agentic.yaml"\n'
        "        decode: { num-worker: 1 }\n"
    )


RULE = Rule(
    id="CFG006",
    slug="master-config-synthetic-al-mismatch",
    severity=ERROR,
    conditions={
        "thinking-inferred": Condition(
            WARNING,
            T(
                en="the value is the golden AL of the other thinking mode and nothing in the "
                "recipe sets the mode (the model's default decides it)",
                zh="该值是另一种思考模式的黄金 AL，且配方中没有设置思考模式（由模型默认值决定）",
            ),
        ),
    },
    target="master_config",
    title=T(
        en="Injected synthetic AL differs from the golden AL",
        zh="注入的合成 AL 与黄金 AL 不符",
    ),
    variants={
        # the thinking mode, as a word
        "on": T(en="on", zh="开启"),
        "off": T(en="off", zh="关闭"),
        # where the recipe's thinking mode comes from
        "source": T(en="`{source}`", zh="`{source}`"),
        "source-unknown": T(
            en="not set by the recipe; model default unknown", zh="配方未设置，模型默认值未知"
        ),
    },
    message=T(
        en=(
            "`SYNTHETIC_ACCEPTANCE_LENGTH={actual}` for `{recipe}`, but `{file}` gives `{key}` "
            "{mode} K={k} an AL of {al} (draft `{draft}`; thinking {mode_short}: {source})"
        ),
        zh=(
            "`SYNTHETIC_ACCEPTANCE_LENGTH={actual}` 用于 `{recipe}`，但 `{file}` 中 `{key}` "
            "{mode} K={k} 的 AL 为 {al}（草稿 `{draft}`；思考{mode_short}：{source}）"
        ),
    ),
    fix=T(
        en="Set `SYNTHETIC_ACCEPTANCE_LENGTH={al}`",
        zh="将其设为 `SYNTHETIC_ACCEPTANCE_LENGTH={al}`",
    ),
    rationale=T(
        en=(
            "A multi-node point with `SYNTHETIC_ACCEPTANCE=true` has the runner inject synthetic "
            "acceptance into the recipe it runs (`runners/inject_synthetic_acceptance.py`), at "
            "`SYNTHETIC_ACCEPTANCE_LENGTH`. That value must be the committed golden AL for the "
            "recipe's draft model, its K (`num_speculative_tokens`, `speculative-num-steps`, "
            "`max_draft_len`) and the thinking mode the recipe serves "
            "(`dyn-default-thinking-mode`, `AIPERF_EXTRA_INPUTS`, `SGLANG_DEFAULT_THINKING`, or "
            "the model's default), read from the recipe the point names. The GQA and plain "
            "EAGLE3 drafts have different curves. When nothing in the recipe sets thinking "
            "mode and the model's default decides, the finding is a warning."
        ),
        zh=(
            "设置 `SYNTHETIC_ACCEPTANCE=true` 的多节点配置点会由 runner 向其运行的配方注入合成接受"
            "（`runners/inject_synthetic_acceptance.py`），取值为 `SYNTHETIC_ACCEPTANCE_LENGTH`。该值必须是"
            "已提交的黄金 AL，对应配方的草稿模型、K（`num_speculative_tokens`、`speculative-num-steps`、"
            "`max_draft_len`）以及配方所用的思考模式（`dyn-default-thinking-mode`、`AIPERF_EXTRA_INPUTS`、"
            "`SGLANG_DEFAULT_THINKING` 或模型默认值），这些都从配置点指定的配方中读取。GQA 与普通 EAGLE3 "
            "草稿的曲线不同。配方未设置思考模式、由模型默认值决定时，报告为警告。"
        ),
    ),
    bad=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_master("2.83", "  # [CFG006]"),
            files=_FILES,
            note="the plain EAGLE3 value for a recipe that runs the GQA draft",
        ),
    ),
    good=(Example(path="configs/nvidia-master.yaml", text=_master("2.78"), files=_FILES),),
)


def _fmt(x: float) -> str:
    return f"{x:.2f}" if abs(x - round(x, 2)) < 1e-9 else f"{x:g}"


def check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    paths = set(ctx.all_paths())
    seen: set[int] = set()
    base = base_master_configs(ctx)
    # in a PR: the entries it changes, and the points whose recipe it changes
    changed = None if base is None else {c.entry.key for c in entry_changes(master, base)}
    for entry in master.entries.values():
        for written, run in entry_launches(master, entry):
            if not run.injects_acceptance or "SYNTHETIC_ACCEPTANCE_LENGTH" not in run.settings:
                continue
            text, line = run.settings["SYNTHETIC_ACCEPTANCE_LENGTH"]
            actual = facts.number(text)
            path = recipe_path(written, paths.__contains__)
            if actual is None or path is None or line in seen:
                continue
            if changed is not None and entry.key not in changed and not _recipe_changed(path, ctx):
                continue
            recipe = ctx.parsed("recipe", path)
            if recipe is None or not recipe.multi_node:
                continue
            finding = _check_point(master, recipe, actual, text, line, ctx)
            if finding is not None:
                seen.add(line)
                yield finding


def _recipe_changed(path: str, ctx: RuleContext) -> bool:
    return bool(ctx.base is not None and ctx.text(path, ctx.base) != ctx.text(path))


def _check_point(
    master: MasterConfig, recipe: Any, actual: float, text: str, line: int, ctx: RuleContext
) -> Finding | None:
    options = []
    other_mode: list[float] = []  # the other thinking mode's values, when the mode is inferred
    first: tuple[Any, ...] | None = None
    for launch in recipe.launches:
        if not launch.decodes or launch.eval_only:
            continue
        spec = facts.spec(launch, ctx.knowledge)
        k = facts.k_value(spec) if spec is not None else None
        if spec is None or k is None:
            continue
        curves, _ = candidates(recipe, spec, ctx)
        thinking = facts.thinking(launch, recipe, ctx.knowledge)
        modes = [f"thinking_{thinking.mode}"] if thinking.mode else ["thinking_on", "thinking_off"]
        for curve in curves:
            if not thinking.explicit:
                for mode in ("thinking_on", "thinking_off"):
                    al = curve.al(mode, k)
                    if mode not in modes and al is not None:
                        other_mode.append(al)
            for mode in modes:
                al = curve.al(mode, k)
                if al is None:
                    continue
                options.append(al)
                if first is None:
                    draft = facts.draft_identity(spec, recipe, ctx.knowledge) or spec.raw_method
                    first = (curve, mode, k, al, thinking, draft)
    if first is None or any(abs(actual - al) <= 1e-6 for al in options):
        return None
    curve, mode, k, al, thinking, draft = first
    source = part("source", source=thinking.source) if thinking.mode else part("source-unknown")
    return RULE.hit(
        master.path,
        Span(line),
        f"SYNTHETIC_ACCEPTANCE_LENGTH={text} {recipe.path}",
        # a value on no curve at all is an error whatever the thinking mode
        condition="thinking-inferred" if any(abs(actual - v) <= 1e-6 for v in other_mode) else None,
        actual=text,
        recipe=recipe.path,
        file=curve.file,
        key=curve.model_key,
        mode=mode,
        mode_short=part(mode.removeprefix("thinking_")),
        k=k,
        al=_fmt(al),
        draft=draft or "?",
        source=source,
    )
