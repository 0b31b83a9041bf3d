"""CHL009: a new changelog entry names a config key that no master config defines."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence

from bot.core.context import RuleContext
from bot.core.model import ERROR, Example, Finding, Rule, Span, T
from bot.core.tree import glob_match
from bot.parse.changelog import Changelog
from bot.parse.changelog_diff import base_diff, matching_keys

# close-match suggestions cost a SequenceMatcher per master key: only for the first few
MAX_SUGGESTIONS = 20

_MASTER = """\
minimaxm3-fp8-h100-vllm-agentic:
  image: vllm/vllm-openai:v0.27.1
  model: MiniMaxAI/MiniMax-M3-MXFP8
  model-prefix: minimaxm3
  runner: h100
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.80
      search-space:
      - { tp: 8, kv-offloading: none, conc-list: [1, 2, 4] }

minimaxm3-fp8-h100-vllm-agentic-mtp:
  image: vllm/vllm-openai:v0.27.1
  model: MiniMaxAI/MiniMax-M3-MXFP8
  model-prefix: minimaxm3
  runner: h100
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.80
      search-space:
      - { tp: 8, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 2, 4, 5] }
"""

_BASE = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add MiniMax-M3 MXFP8 AgentX on H100 with vLLM v0.27.1 and Mooncake DRAM offload"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412
"""


def _entry(*keys: str) -> str:
    items = "".join(f"    - {k}\n" for k in keys)
    return (
        "\n- config-keys:\n"
        + items
        + "  scenario-type:\n    - agentic-coding\n  description:\n"
        + '    - "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe"\n'
        + "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423\n"
    )


RULE = Rule(
    id="CHL009",
    slug="changelog-config-key-unknown",
    severity=ERROR,
    target="changelog",
    title=T(
        en="Changelog names a config key the master configs do not define",
        zh="changelog 引用了主配置中不存在的配置键",
    ),
    message=T(
        en="`{key}` is not a config key of the master configs",
        zh="`{key}` 不是主配置中的配置键",
    ),
    fix=T(
        en="Name a key defined in `{masters}`",
        zh="改用 `{masters}` 中定义的键",
    ),
    rationale=T(
        en=(
            "The sweep setup (`utils/process_changelog.py`) resolves each `config-keys` item "
            "of a new entry against the master configs at the head of the pull request: a "
            "plain key must be a top-level key of `configs/*-master.yaml`, and a key with `*` "
            "must match at least one key in full (`*` stands for any run of characters). A "
            "key that resolves to nothing stops the whole sweep (`Config key ... not found "
            "in master configs`), so the CI check `check-changelog` fails. Typical causes are "
            "a typo, a key renamed in the master config but not in the entry, or an entry "
            "for a config another pull request has not merged yet."
        ),
        zh=(
            "扫描准备脚本（`utils/process_changelog.py`）会用 PR 头部的主配置解析新条目的每个 "
            "`config-keys` 项：普通键必须是 `configs/*-master.yaml` 中的顶层键，带 `*` 的键"
            "必须完整匹配至少一个键（`*` 代表任意长度的字符）。无法解析的键会中止整个扫描"
            "（`Config key ... not found in master configs`），CI 检查 `check-changelog` 因此"
            "失败。常见原因是拼写错误、主配置中改了键名而条目没改，或条目引用的配置所在的 PR "
            "尚未合并。"
        ),
    ),
    variants={
        "close": T(
            en="`{key}` is not a config key of the master configs",
            zh="`{key}` 不是主配置中的配置键",
        ),
        "pattern": T(
            en="Pattern `{key}` matches no config key of the master configs",
            zh="模式 `{key}` 没有匹配到主配置中的任何配置键",
        ),
    },
    variant_fixes={
        "close": T(
            en="Use `{closest}`",
            zh="改用 `{closest}`",
        ),
    },
    bad=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _entry("minimaxm3-fp8-h100-vlm-agentic-mtp  # [CHL009]"),
            pr=2423,
            base={"perf-changelog.yaml": _BASE, "configs/nvidia-master.yaml": _MASTER},
            files={"configs/nvidia-master.yaml": _MASTER},
            note="a typo: `vlm` for `vllm`; the fix names the closest key",
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _entry("minimaxm3-fp8-h200-*-agentic-mtp  # [CHL009]"),
            pr=2423,
            base={"perf-changelog.yaml": _BASE, "configs/nvidia-master.yaml": _MASTER},
            files={"configs/nvidia-master.yaml": _MASTER},
            note="no H200 config exists yet",
        ),
    ),
    good=(
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _entry("minimaxm3-fp8-h100-vllm-agentic-mtp"),
            pr=2423,
            base={"perf-changelog.yaml": _BASE, "configs/nvidia-master.yaml": _MASTER},
            files={"configs/nvidia-master.yaml": _MASTER},
        ),
        Example(
            path="perf-changelog.yaml",
            text=_BASE + _entry("minimaxm3-fp8-*-vllm-agentic*"),
            pr=2423,
            base={"perf-changelog.yaml": _BASE, "configs/nvidia-master.yaml": _MASTER},
            files={"configs/nvidia-master.yaml": _MASTER},
            note="a wildcard that matches both H100 configs",
        ),
    ),
)


def master_keys(ctx: RuleContext, wanted: Sequence[str] = ()) -> list[str] | None:
    """Every config key of the head's master configs, sorted; None when one cannot be read.

    With `wanted`, the configs this change touches are read first and the reading stops
    once every wanted key or pattern matches a key read so far: the rest could only add
    keys (a match stays a match) or a config that cannot be read, and either way no key
    is reported, so the answer is the one the whole list gives."""
    patterns = ctx.config.master_configs
    paths = [p for p in ctx.all_paths() if any(glob_match(p, pat) for pat in patterns)]
    if not paths:
        return None
    changed = ctx.changed or frozenset()
    paths.sort(key=lambda p: p not in changed)  # stable: the changed ones first
    keys: set[str] = set()
    for index, path in enumerate(paths):
        cfg = ctx.parsed("master_config", path)
        if cfg is None or cfg.problems:
            return None
        keys.update(cfg.entries)
        if wanted and index + 1 < len(paths):
            known = sorted(keys)
            if all(matching_keys(key, known) for key in wanted):
                return known
    return sorted(keys)


def check(changelog: Changelog, ctx: RuleContext) -> Iterator[Finding]:
    diff = base_diff(changelog, ctx)
    if diff is None or not diff.new:
        return
    named = [entry.get("config-keys") for entry in diff.new]
    wanted = sorted(
        {k for keys in named if isinstance(keys, list) for k in keys if isinstance(k, str) and k}
    )
    if not wanted:
        return
    known = master_keys(ctx, wanted)
    if known is None:
        return
    # the master-config globs this tree uses (an older layout keeps them elsewhere)
    paths = ctx.all_paths()
    used = [pat for pat in ctx.config.master_configs if any(glob_match(q, pat) for q in paths)]
    masters = ", ".join(used) or "configs/*-master.yaml"
    resolves: dict[str, bool] = {}
    suggested: dict[str, str | None] = {}
    for entry in diff.new:
        raw = entry.get("config-keys")
        for index, key in enumerate(raw if isinstance(raw, list) else []):
            if not isinstance(key, str) or not key:
                continue  # CHL001 reports it
            if key not in resolves:
                resolves[key] = bool(matching_keys(key, known))
            if resolves[key]:
                continue
            if key not in suggested and len(suggested) < MAX_SUGGESTIONS:
                close = difflib.get_close_matches(key, known, n=1, cutoff=0.85)
                suggested[key] = close[0] if close and "*" not in key else None
            closest = suggested.get(key)
            variant = "pattern" if "*" in key else ("close" if closest else None)
            yield RULE.hit(
                changelog.path,
                Span(entry.line_of_item("config-keys", index)),
                f"unknown {key}\n{entry.raw}",
                variant=variant,
                key=key,
                masters=masters,
                closest=closest or "",
            )
