"""CFG005: a new or changed entry submits a model, scenario or precision MODELS.md deprecates."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator, Mapping
from datetime import date
from typing import Any

from bot.base.knowledge import Knowledge
from bot.base.records import dataclass
from bot.core.context import RuleContext
from bot.core.model import (
    ERROR,
    INFO,
    SEVERITIES,
    SEVERITY_RANK,
    WARNING,
    Condition,
    Example,
    Finding,
    Rule,
    Severity,
    Span,
    T,
)
from bot.parse.master_config import MasterConfig, MasterEntry
from bot.parse.master_sets import base_master_configs, entry_changes

_SIZE = re.compile(r"^(\d+)k(\d+)k$")
_SEVERITIES: dict[str, Severity] = {s: s for s in SEVERITIES}

_M3_AGENTIC = """\
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
    - search-space:
      - { tp: 4, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8, 16] }
"""

_M3_8K1K = """\
minimaxm3-fp4-b300-vllm:
  image: vllm/vllm-openai:v0.27.1
  model: nvidia/MiniMax-M3-NVFP4
  model-prefix: minimaxm3
  runner: b300
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192  # [CFG005]
      osl: 1024
      search-space:
      - { tp: 4, conc-start: 4, conc-end: 128 }
"""

_DSV4_NON_SPEC = """\
dsv4-fp4-gb300-dynamo-vllm-agentic:
  image: vllm/vllm-openai:v0.27.1
  model: nvidia/DeepSeek-V4-Pro-NVFP4
  model-prefix: dsv4
  runner: cluster:gb300-nv
  precision: fp4
  framework: dynamo-vllm
  multinode: true
  disagg: false
  scenarios:
    agentic-coding:
    - search-space:
      - spec-decoding: none
        kv-offloading: none
        conc-list: [8, 16]
        prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: true }
        decode: { num-worker: 0, tp: 4, ep: 4, dp-attn: true }
"""


def _unmarked(text: str) -> str:
    return text.replace("  # [CFG005]", "")


RULE = Rule(
    id="CFG005",
    slug="deprecated-model-or-scenario",
    severity=ERROR,
    conditions={
        "knowledge-warning": Condition(
            WARNING,
            T(
                en="the deprecation's knowledge entry sets `severity: warning` (a retirement "
                "announced but not yet enacted)",
                zh="知识库中该弃用条目设置了 `severity: warning`（已宣布但尚未执行的退役）",
            ),
        ),
        "knowledge-info": Condition(
            INFO,
            T(
                en="the deprecation's knowledge entry sets `severity: info`",
                zh="知识库中该弃用条目设置了 `severity: info`",
            ),
        ),
        "merged-tree": Condition(
            WARNING,
            T(
                en="a merged tree is linted (no base): nothing is being submitted",
                zh="检查的是已合并的整棵树（没有 base）：并无新的提交",
            ),
        ),
    },
    target="master_config",
    title=T(
        en="Deprecated model or scenario submitted",
        zh="提交了已弃用的模型或场景",
    ),
    message=T(
        en="Scenario `{scenario}` of `{model}` is deprecated after {last_day} ({source})",
        zh="`{model}` 的 `{scenario}` 场景在 {last_day} 之后已弃用（出处：`{source}`）",
    ),
    fix=T(
        en="Drop the `{scenario}` scenario from the change",
        zh="从本次改动中删除 `{scenario}` 场景",
    ),
    rationale=T(
        en=(
            "MODELS.md is the source of truth for which models, scenarios and precisions "
            "InferenceX still benchmarks; the CODEOWNER checklist and the sign-off verifier "
            "(Check 7) reject a pull request that adds, changes or re-enables a deprecated "
            "one, honouring each notice's effective date. The bot reads those facts from "
            "`knowledge.deprecations` (model prefix, scenario, precision, and the last day it "
            "may run) and judges them on the review date, which is an input (`--date`), so "
            "results are reproducible: a change dated on or before the last day passes. "
            "Scenarios are `agentic-coding` and fixed sequence lengths by ISL/OSL "
            "(`8k1k` is `isl: 8192`, `osl: 1024`). Only what the change adds or edits is "
            "reported: an untouched deprecated block elsewhere in an edited entry is not. "
            "Deprecations MODELS.md marks as not yet enacted (the non-spec-decode agentic "
            "arms) apply to new config keys only and are warnings. On a merged tree an "
            "entry still active after its last day is reported as a warning: MODELS.md "
            "archives retired configs under `configs/deprecated/`."
        ),
        zh=(
            "MODELS.md 是 InferenceX 仍在测试哪些模型、场景与精度的唯一依据；CODEOWNER 检查清单与签核"
            "校验（Check 7）会拒绝新增、修改或重新启用已弃用项的 PR，并以各项公告的生效日期为准。机器人"
            "从 `knowledge.deprecations` 读取这些事实（模型前缀、场景、精度以及最后可运行的日期），并按"
            "评审日期判断；评审日期是输入（`--date`），因此结果可复现：日期不晚于最后一天的改动可以通过。"
            "场景包括 `agentic-coding` 以及按 ISL/OSL 区分的定长场景（`8k1k` 即 `isl: 8192`、"
            "`osl: 1024`）。只报告改动新增或修改的部分：被修改条目中未改动的弃用块不会报告。MODELS.md "
            "标注为尚未执行的弃用（非投机解码的 agentic 分支）只针对新的配置键，并且只是警告。对已合并的"
            "代码树，过了最后日期仍处于启用状态的条目会以警告报告：MODELS.md 要求把退役配置归档到 "
            "`configs/deprecated/`。"
        ),
    ),
    variants={
        "model": T(
            en="Model `{model}` is retired after {last_day} ({source})",
            zh="模型 `{model}` 在 {last_day} 之后已退役（出处：`{source}`）",
        ),
        "precision": T(
            en="`{precision}` recipes of `{model}` are deprecated after {last_day} ({source})",
            zh="`{model}` 的 `{precision}` 配方在 {last_day} 之后已弃用（出处：`{source}`）",
        ),
        "arm": T(
            en="`spec-decoding: {spec}` points of `{model}` in `{scenario}` are deprecated after {last_day} ({source})",
            zh="`{model}` 在 `{scenario}` 中 `spec-decoding: {spec}` 的点在 {last_day} 之后已弃用（出处：`{source}`）",
        ),
    },
    variant_fixes={
        "model": T(
            en="Drop the entry; retired configs live under `configs/deprecated/`",
            zh="删除该条目；退役的配置归档在 `configs/deprecated/` 下",
        ),
        "precision": T(
            en="Submit a precision that is still benchmarked, or drop the entry",
            zh="改为仍在测试的精度，或删除该条目",
        ),
        "arm": T(
            en="Run these points with the model's speculative decoding (MTP, EAGLE3 or DSpark), or drop them",
            zh="让这些点使用该模型的投机解码（MTP、EAGLE3 或 DSpark），或删除它们",
        ),
    },
    bad=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_M3_AGENTIC + "\n" + _M3_8K1K,
            base={"configs/nvidia-master.yaml": _M3_AGENTIC},
            review_date="2026-08-12",
            note="reviewed 2026-08-12; MiniMax-M3 single-turn 8k1k ran until 2026-08-03",
        ),
        Example(
            path="configs/amd-master.yaml",
            text="""\
qwen3.5-bf16-mi355x-sglang-agentic-mtp:
  image: lmsysorg/sglang:v0.5.15-rocm720-mi35x
  model: Qwen/Qwen3.5-397B-A17B
  model-prefix: qwen3.5
  runner: cluster:mi355x-amds
  precision: bf16  # [CFG005]
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, spec-decoding: mtp, kv-offloading: none, conc-list: [4, 8, 16] }
""",
            base={},
            review_date="2026-08-20",
            note="reviewed 2026-08-20; every Qwen3.5 bf16 recipe is deprecated after 2026-08-03",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_M3_AGENTIC
            + "\n"
            + _DSV4_NON_SPEC.replace(
                "      - spec-decoding: none", "      - spec-decoding: none  # [CFG005]"
            ),
            base={"configs/nvidia-master.yaml": _M3_AGENTIC},
            review_date="2026-08-20",
            note="reviewed 2026-08-20; a new non-spec-decode agentic arm (a warning: MODELS.md has not enacted this yet)",
        ),
    ),
    good=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_M3_AGENTIC + "\n" + _unmarked(_M3_8K1K),
            base={"configs/nvidia-master.yaml": _M3_AGENTIC},
            review_date="2026-08-03",
            note="reviewed 2026-08-03: on the last day itself the scenario may still run",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_DSV4_NON_SPEC.replace("conc-list: [8, 16]", "conc-list: [8, 16, 32]"),
            base={"configs/nvidia-master.yaml": _DSV4_NON_SPEC},
            review_date="2026-08-20",
            note="reviewed 2026-08-20; an existing non-spec-decode arm still runs until MODELS.md enacts its retirement",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_M3_AGENTIC.replace("conc-list: [1, 4, 8, 16]", "conc-list: [1, 4, 8, 16, 32]"),
            base={"configs/nvidia-master.yaml": _M3_AGENTIC},
            review_date="2026-08-20",
            note="reviewed 2026-08-20; MiniMax-M3 agentic coding with EAGLE3 (`spec-decoding: mtp`) is the active arm",
        ),
    ),
)


@dataclass(frozen=True)
class Deprecation:
    models: frozenset[str]  # empty: every model
    scenario: str
    precision: str | None
    spec: str | None
    last_day: date
    scope: str
    severity: Severity | None
    source: str

    @property
    def whole_entry(self) -> bool:
        return self.scenario == "all" and self.spec is None


@dataclass(frozen=True)
class Part:
    """A deprecated piece of an entry: the entry, a scenario, a fixed-seq-len item or a point."""

    path: tuple[Hashable, ...]
    value: Any
    line_path: tuple[Hashable, ...]


def check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    today = ctx.review_date
    if today is None:
        return
    items = [d for d in _deprecations(ctx.knowledge) if today > d.last_day]
    if not items:
        return
    # entry-wide deprecations first: once one hits, the finer ones add nothing
    items.sort(key=lambda d: (not d.whole_entry, d.last_day))
    base = base_master_configs(ctx)
    if base is None:
        for entry in master.entries.values():
            yield from _entry_findings(master, entry, None, items, tree=True)
        return
    for change in entry_changes(master, base):
        if change.renamed_from is not None:
            continue  # the same entry under a new key submits nothing new
        if change.before is not None and _adds_nothing(change.entry.data, change.before.data):
            continue  # points moved out or removed: nothing is submitted
        enabled = [d for d in items if d.scope != "new" or change.is_new]
        model = change.entry.get("model-prefix")

        def pool(model: object = model) -> list[MasterEntry]:  # read once a point needs it
            return [
                e for cfg in base for e in cfg.entries.values() if e.get("model-prefix") == model
            ]

        yield from _entry_findings(
            master, change.entry, change.before, enabled, tree=False, pool=pool
        )


def _adds_nothing(new: Any, old: Any) -> bool:
    """Whether `new` only keeps or drops what `old` has (keys, list items, values)."""
    if isinstance(new, dict):
        return isinstance(old, dict) and all(
            k in old and _adds_nothing(v, old[k]) for k, v in new.items()
        )
    if isinstance(new, list):
        return isinstance(old, list) and all(
            any(_adds_nothing(item, o) for o in old) for item in new
        )
    return bool(new == old)


def _entry_findings(
    master: MasterConfig,
    entry: MasterEntry,
    before: MasterEntry | None,
    items: list[Deprecation],
    *,
    tree: bool,
    pool: Callable[[], list[MasterEntry]] | None = None,
) -> Iterator[Finding]:
    same_model: list[MasterEntry] | None = None
    if not isinstance(entry.data, dict):
        return
    model = entry.get("model-prefix")
    if not isinstance(model, str):
        return
    for item in items:
        if tree and item.scope == "new":
            continue
        parts = _parts(entry.data, item)
        if not parts:
            continue
        if before is not None and isinstance(before.data, dict):
            old = [p.value for p in _parts(before.data, item)]
            parts = [p for p in parts if p.value not in old]
        if parts and pool is not None and not item.whole_entry:
            # a point moved from another entry of the same model is not a new submission
            if same_model is None:
                same_model = pool()
            moved = [
                p.value
                for e in same_model
                if isinstance(e.data, dict)
                for p in _parts(e.data, item)
            ]
            parts = [p for p in parts if p.value not in moved]
        hit = False
        for part in parts:
            hit = True
            yield _finding(master, entry, model, item, part, tree)
        if hit and item.whole_entry:
            return


def _finding(
    master: MasterConfig,
    entry: MasterEntry,
    model: str,
    item: Deprecation,
    part: Part,
    tree: bool,
) -> Finding:
    if item.whole_entry and item.precision is None:
        variant: str | None = "model"
        line = entry.line_of("model-prefix")
    elif item.whole_entry:
        variant = "precision"
        line = entry.line_of("precision")
    elif item.spec is not None:
        variant = "arm"
        line = entry.line_at(part.line_path)
    else:
        variant = None
        line = entry.line_at(part.line_path)
    severity: Severity = item.severity or RULE.severity
    condition: str | None = None
    if tree and SEVERITY_RANK[severity] > SEVERITY_RANK[WARNING]:
        condition = "merged-tree"
    elif severity != RULE.severity:
        condition = f"knowledge-{severity}"
    where = "/".join(str(p) for p in part.path)
    return RULE.hit(
        master.path,
        Span(line),
        f"{entry.key} {item.scenario} {item.precision or ''} {item.spec or ''} {where}",
        variant=variant,
        condition=condition,
        model=model,
        scenario=item.scenario,
        precision=item.precision or "",
        spec=item.spec or "",
        last_day=item.last_day.isoformat(),
        source=item.source,
    )


def _parts(data: Mapping[str, Any], item: Deprecation) -> list[Part]:
    model = data.get("model-prefix")
    if item.models and model not in item.models:
        return []
    precision = str(data.get("precision", "")).lower()
    if item.precision is not None and precision != item.precision.lower():
        return []
    if item.whole_entry:
        return [Part((), data, ())]
    scenarios = data.get("scenarios")
    if not isinstance(scenarios, dict):
        return []
    blocks: list[Part] = []
    if item.scenario in ("all", "agentic-coding"):
        agentic = scenarios.get("agentic-coding")
        if item.spec is None:
            if agentic:
                blocks.append(Part(("agentic-coding",), agentic, ("scenarios", "agentic-coding")))
        elif isinstance(agentic, list):
            for i, block in enumerate(agentic):
                blocks.append(
                    Part(("agentic-coding", i), block, ("scenarios", "agentic-coding", i))
                )
    if item.scenario != "agentic-coding":
        size = _SIZE.match(item.scenario)
        fixed = scenarios.get("fixed-seq-len")
        for i, block in enumerate(fixed if isinstance(fixed, list) else []):
            if not isinstance(block, dict):
                continue
            if size and (
                block.get("isl") != int(size.group(1)) * 1024
                or block.get("osl") != int(size.group(2)) * 1024
            ):
                continue
            blocks.append(Part(("fixed-seq-len", i), block, ("scenarios", "fixed-seq-len", i)))
    if item.spec is None:
        return blocks
    points: list[Part] = []
    for block in blocks:
        space = block.value.get("search-space") if isinstance(block.value, dict) else None
        for j, point in enumerate(space if isinstance(space, list) else []):
            if isinstance(point, dict) and str(point.get("spec-decoding", "none")) == item.spec:
                path = (*block.path, "search-space", j)
                points.append(Part(path, point, (*block.line_path, "search-space", j)))
    return points


def _deprecations(knowledge: Knowledge) -> list[Deprecation]:
    out = []
    for raw in knowledge.section("deprecations") or []:
        if not isinstance(raw, Mapping):
            continue
        models = raw.get("model-prefix", "*")
        names = [models] if isinstance(models, str) else list(models or [])
        try:
            last_day = date.fromisoformat(str(raw.get("last_day")))
        except ValueError:
            continue  # the knowledge schema requires YYYY-MM-DD
        out.append(
            Deprecation(
                models=frozenset() if "*" in names else frozenset(str(n) for n in names),
                scenario=str(raw.get("scenario", "all")),
                precision=str(raw["precision"]) if raw.get("precision") else None,
                spec=str(raw["spec-decoding"]) if raw.get("spec-decoding") else None,
                last_day=last_day,
                scope=str(raw.get("scope", "new-or-changed")),
                severity=_SEVERITIES.get(str(raw.get("severity"))),
                source=str(raw.get("source", "MODELS.md")),
            )
        )
    return out
