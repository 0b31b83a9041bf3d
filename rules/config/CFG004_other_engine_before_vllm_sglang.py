"""CFG004: another engine lands before vLLM/SGLang for the same model and SKU."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from bot.base.knowledge import Knowledge
from bot.core.context import RuleContext
from bot.core.model import ERROR, INFO, Condition, Example, Finding, Join, Rule, Span, T
from bot.parse.master_config import (
    MasterConfig,
    MasterEntry,
    engine_family,
    established_sku,
    model_family,
    runner_sku,
)
from bot.parse.master_sets import (
    archived_master_configs,
    base_master_configs,
    entry_changes,
    head_master_configs,
)

_SGLANG = """\
glm5.2-fp4-b300-sglang-agentic-mtp:
  image: lmsysorg/sglang:v0.5.15-cu130
  model: nvidia/GLM-5.2-NVFP4
  model-prefix: glm5.2
  runner: cluster:b300-nv
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, ep: 8, spec-decoding: mtp, kv-offloading: none, conc-list: [4, 8, 16] }
"""

_TRT = """\
glm5.2-fp4-b300-trt-agentic-mtp:
  image: nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24
  model: nvidia/GLM-5.2-NVFP4
  model-prefix: glm5.2
  runner: cluster:b300-nv
  precision: fp4
  framework: trt
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, ep: 8, spec-decoding: mtp, kv-offloading: none, conc-list: [4, 8, 16, 32] }
"""

_ATOM_MI355X = """\
kimik3-fp4-mi355x-atom-agentic-mtp:
  image: rocm/atom:v0.1.4-rocm720
  model: amd/Kimi-K3-MXFP4
  model-prefix: kimik3
  runner: cluster:mi355x-amds
  precision: fp4
  framework: atom
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 16] }
"""

_SGLANG_MI355X = """\
kimik3-fp4-mi355x-sglang-agentic-mtp:
  image: lmsysorg/sglang:v0.5.15-rocm720-mi35x
  model: amd/Kimi-K3-MXFP4
  model-prefix: kimik3
  runner: cluster:mi355x-amds
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 16] }
"""

# the base shows the policy (`knowledge.practices.engine-submission-policy`)
_POLICY = {
    "MODELS.md": "## Engine submission policy\n\n"
    "Hardware-specific engines are allowed after the primary-engine submissions.\n"
}

RULE = Rule(
    id="CFG004",
    slug="other-engine-before-vllm-sglang",
    severity=ERROR,
    conditions={
        "merged-tree": Condition(
            INFO,
            T(
                en="a merged tree is linted (no base): it has no submission order, and missing "
                "coverage may be an approved exception",
                zh="检查的是已合并的整棵树（没有 base）：没有提交顺序可言，缺少覆盖可能是已批准的例外",
            ),
        ),
    },
    target="master_config",
    # a policy since the CODEOWNER checklist (InferenceX #1886) and MODELS.md (#2500)
    practice="engine-submission-policy",
    title=T(
        en="Additional engine submitted before vLLM/SGLang",
        zh="在 vLLM/SGLang 之前提交了其他引擎",
    ),
    message=T(
        en="`{framework}` entry for `{model}` on {sku} comes before any {expected} entry for the same model and SKU",
        zh="{sku} 上 `{model}` 的 `{framework}` 条目先于同一模型与 SKU 的任何 {expected} 条目提交",
    ),
    fix=T(
        en="Land the {expected} entry for `{model}` on {sku} first, or document the exception (new hardware or new architecture) in the sign-off and suppress with `# bot: ignore[CFG004] <reason>`",
        zh="先提交 {sku} 上 `{model}` 的 {expected} 条目；或在签核说明中写明例外（新硬件或新架构），并用 `# bot: ignore[CFG004] <原因>` 抑制",
    ),
    rationale=T(
        en=(
            "MODELS.md's engine submission policy and the CODEOWNER checklist: a provider that "
            "supports vLLM and SGLang as first-class engines submits the upstream engine "
            "assigned to the model (`knowledge.primary_engines`, from MODELS.md: `kimik3` and "
            "`minimaxm3` vLLM, `glm5.2` and `qwen3.5` SGLang, `dsv4` either) before "
            "additional engines such as TensorRT-LLM, ATOM, TokenSpeed or TileRT. A model "
            "without a mapping needs any vLLM or SGLang entry. The sibling is matched by "
            "`model-prefix` (or another prefix of the same MODELS.md architecture class, "
            "`knowledge.model_families`: GLM-5 and GLM-5.1) and SKU (a runner label maps to its SKU: `cluster:gb300-nv`, "
            "`gb300` and `gb300-nv` are all GB300), so an SGLang entry on `b200` covers a "
            "TensorRT-LLM entry on `b200-multinode`. Frameworks that serve with vLLM or "
            "SGLang (`dynamo-sglang`, `dynamo-vllm`, `sglang-disagg`, `llmd-vllm`) count as "
            "that engine. The exceptions, brand-new hardware SKUs (only established SKUs are "
            "checked) and new architectures upstream cannot serve yet, are documented in the "
            "sign-off. In a pull request the sibling may already be merged or come in the "
            "same pull request. A merged tree has no order to check, only missing coverage, "
            "which may be an approved exception: there the rule reports it as information. "
            "A pull request is held to the order only where its base states it "
            "(`knowledge.practices.engine-submission-policy`: the checklist item of "
            "InferenceX #1886 or MODELS.md's policy of #2500)."
        ),
        zh=(
            "依据 MODELS.md 的引擎提交政策与 CODEOWNER 检查清单：一等支持 vLLM 与 SGLang 的厂商，必须先"
            "提交该模型指定的上游引擎（`knowledge.primary_engines`，来自 MODELS.md：`kimik3` 与 "
            "`minimaxm3` 为 vLLM，`glm5.2` 与 `qwen3.5` 为 SGLang，`dsv4` 二者皆可），再提交 "
            "TensorRT-LLM、ATOM、TokenSpeed 或 TileRT 等其他引擎。没有指定映射的模型只需任意一个 vLLM "
            "或 SGLang 条目。同伴条目按 `model-prefix`（或 MODELS.md 中同一架构类别的其他前缀，`knowledge.model_families`：如 GLM-5 与 GLM-5.1）与 SKU 匹配（runner 标签映射到 SKU："
            "`cluster:gb300-nv`、`gb300` 和 `gb300-nv` 都是 GB300），因此 `b200` 上的 SGLang 条目"
            "也覆盖 `b200-multinode` 上的 TensorRT-LLM 条目。以 vLLM 或 SGLang 提供服务的框架"
            "（`dynamo-sglang`、`dynamo-vllm`、`sglang-disagg`、`llmd-vllm`）算作该引擎。例外情况——"
            "全新的硬件 SKU（只检查成熟 SKU）与上游尚无法支持的新架构——须在签核说明中写明。在 PR 中，"
            "同伴条目可以已经合并，也可以在同一个 PR 中提交。已合并的代码树没有先后顺序可查，只能看到"
            "缺失的覆盖，而这可能是已批准的例外，因此只作为提示信息报告。只有当 PR 的 base 写明了这一顺序时"
            "（`knowledge.practices.engine-submission-policy`：InferenceX #1886 的检查清单条目或 #2500 "
            "写入 MODELS.md 的政策），PR 才受其约束。"
        ),
    ),
    bad=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_TRT.replace("framework: trt", "framework: trt  # [CFG004]"),
            base=_POLICY,
            note="TensorRT-LLM first: no SGLang entry for GLM-5.2 on B300 yet",
        ),
        Example(
            path="configs/amd-master.yaml",
            text=_SGLANG_MI355X
            + "\n"
            + _ATOM_MI355X.replace("framework: atom", "framework: atom  # [CFG004]"),
            base={**_POLICY, "configs/amd-master.yaml": _SGLANG_MI355X},
            note="MODELS.md maps Kimi-K3 to vLLM: an SGLang entry does not open the door for ATOM",
        ),
    ),
    good=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_SGLANG + "\n" + _TRT,
            base={**_POLICY, "configs/nvidia-master.yaml": _SGLANG},
            note="the SGLang entry for the same model and SKU is already merged",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_SGLANG.replace("cluster:b300-nv", "cluster:b300-cw")
            + "\n"
            + _TRT.replace("runner: cluster:b300-nv", "runner: b300-multinode").replace(
                "glm5.2-fp4-b300-trt-agentic-mtp", "glm5.2-fp4-b300-dynamo-trt"
            ),
            base=_POLICY,
            note="both in one pull request, on two runner labels of the same SKU",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text="""\
dsv4-fp4-vr200-trt:
  image: nvcr.io#nvidia/tensorrt-llm/release:1.4.0rc2
  model: nvidia/DeepSeek-V4-Pro-NVFP4
  model-prefix: dsv4
  runner: vr200-nvl72
  precision: fp4
  framework: trt
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, conc-start: 4, conc-end: 256 }
""",
            base=_POLICY,
            note="Vera Rubin NVL72 is new hardware: a hardware-specific engine may come first",
        ),
    ),
)


def check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    base = base_master_configs(ctx)

    def heads() -> list[MasterConfig]:  # parsed only when an entry needs the pool
        return [m for m in head_master_configs(ctx) if m.path != master.path] + [master]

    if base is None:
        # a merged tree has no order, only coverage: missing coverage may be an approved exception
        for entry in master.entries.values():
            yield from _check(master, entry, ctx, heads, "merged-tree")
        return
    for change in entry_changes(master, base):
        if change.changed("framework", "model-prefix", "runner"):
            yield from _check(master, change.entry, ctx, lambda: [*base, *heads()], None)


def _check(
    master: MasterConfig,
    entry: MasterEntry,
    ctx: RuleContext,
    pool: Callable[[], Iterable[MasterConfig]],
    condition: str | None,
) -> Iterator[Finding]:
    framework, model, runner = (
        entry.get("framework"),
        entry.get("model-prefix"),
        entry.get("runner"),
    )
    if not (isinstance(framework, str) and isinstance(model, str) and isinstance(runner, str)):
        return  # CFG001 reports the missing or malformed field
    knowledge = ctx.knowledge
    if engine_family(framework, knowledge) is not None:
        return
    sku = runner_sku(runner, knowledge)
    if not established_sku(sku, knowledge):
        return
    primary = knowledge.primary_engines
    engines = knowledge.upstream_engines
    family = model_family(model, knowledge)
    assigned = next((primary[m] for m in sorted(family) if primary.get(m)), None)
    wanted = [str(e) for e in assigned or engines]
    for cfg in pool():
        for other in cfg.entries.values():
            if _covers(other, family, sku, wanted, knowledge):
                return
    # entries archived in `configs/deprecated/` were submitted before, in order
    # (read only when the active configs do not already cover the entry, and only
    # those that name one of the family's prefixes, up to the first that covers it)
    for cfg in archived_master_configs(ctx, naming=family):
        for other in cfg.entries.values():
            if _covers(other, family, sku, wanted, knowledge):
                return
    names = [engines[e].name if e in engines else e for e in wanted]
    expected = Join(tuple(names), "or")
    yield RULE.hit(
        master.path,
        Span(entry.key_lines.get("framework", entry.start_line)),
        f"{entry.key} {framework} {model} {sku}",
        condition=condition,
        framework=framework,
        model=model,
        sku=sku.upper(),
        expected=expected,
    )


def _covers(
    other: MasterEntry, family: frozenset[str], sku: str, wanted: list[str], knowledge: Knowledge
) -> bool:
    framework, runner = other.get("framework"), other.get("runner")
    if other.get("model-prefix") not in family or not isinstance(framework, str):
        return False
    if not isinstance(runner, str) or runner_sku(runner, knowledge) != sku:
        return False
    return engine_family(framework, knowledge) in wanted
