"""CFG003: a vLLM or SGLang entry on an established SKU runs a non-upstream image."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Condition, Example, Finding, Rule, Span, T
from bot.parse.master_config import (
    MasterConfig,
    MasterEntry,
    engine_family,
    established_sku,
    image_repository,
    runner_sku,
    upstream_image,
)
from bot.parse.master_sets import base_master_configs, entry_changes

_BASE = """\
dsr1-fp8-mi355x-sglang:
  image: lmsysorg/sglang:v0.5.14-rocm720-mi35x
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: mi355x
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
"""

_MERGED_EXCEPTION = """\
dsr1-fp8-mi355x-sglang-disagg:
  image: rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: mi355x-disagg
  precision: fp8
  framework: sglang-disagg
  kv-p2p-transfer: mori
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - conc-list: [256, 512]
        prefill: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
        decode: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
"""

# the review checklist's item that made upstream images a hard guideline (InferenceX
# #1956): a base whose checklist carries it is one the rule is in force in
_CHECKLIST = {
    "docs/PR_REVIEW_CHECKLIST.md": (
        "- [ ] I have verified that the respective vLLM submission made using upstream "
        "https://hub.docker.com/u/vllm docker repo, upstream SGLang "
        "https://hub.docker.com/u/lmsysorg docker repo.\n"
    )
}

RULE = Rule(
    id="CFG003",
    slug="vendor-image-for-upstream-engine",
    severity=ERROR,
    # a hard guideline since InferenceX #1956 (`knowledge.practices.upstream-image-rule`)
    practice="upstream-image-rule",
    conditions={
        "merged-tree": Condition(
            WARNING,
            T(
                en="a merged tree is linted (no base): an existing entry may be an approved exception",
                zh="检查的是已合并的整棵树（没有 base）：现有条目可能是已批准的例外",
            ),
        ),
    },
    target="master_config",
    title=T(
        en="vLLM/SGLang entry on an established SKU without an upstream image",
        zh="成熟 SKU 上的 vLLM/SGLang 条目未使用上游镜像",
    ),
    message=T(
        en="`{framework}` entry on {sku} runs `{image}`, not an upstream {engine} image ({expected})",
        zh="{sku} 上的 `{framework}` 条目使用 `{image}`，而不是上游 {engine} 镜像（{expected}）",
    ),
    fix=T(
        en="Use an image from {expected}, or document the exception (new hardware or new architecture) in the sign-off and suppress with `# bot: ignore[CFG003] <reason>`",
        zh="改用 {expected} 的镜像；或在签核说明中写明例外（新硬件或新架构），并用 `# bot: ignore[CFG003] <原因>` 抑制",
    ),
    rationale=T(
        en=(
            "The CODEOWNER checklist makes upstream engine images a hard guideline: a vendor "
            "that claims vLLM or SGLang as first-class engines on its hardware submits them "
            "from the projects' own Docker Hub repositories (`vllm/vllm-openai*`, "
            "`lmsysorg/sglang*`), so the community can reproduce the number from a released "
            "image. Vendor or private forks (`rocm/sgl-dev`, `rocm/vllm-dev`, `ghcr.io#...`) "
            "fail on established SKUs: H100, H200, B200, B300, GB200, GB300, MI300X, MI325X and "
            "MI355X (`knowledge.skus.established`; a runner label maps to its SKU, "
            "`cluster:b200-dgxc` and `b200-multinode` are B200). The only exceptions are truly "
            "new hardware and new model architectures that upstream does not support yet, both "
            "documented in the sign-off. Frameworks that serve with vLLM or SGLang count too "
            "(`dynamo-vllm`, `dynamo-sglang`, `sglang-disagg`, `llmd-vllm`: the engine's name "
            "is part of the framework name); `#` in an image name reads as `/`. In a pull "
            "request the rule blocks a new entry, or one whose image, framework or runner "
            "changes; on a merged tree an existing entry may be an approved exception, so "
            "there it is a warning."
        ),
        zh=(
            "CODEOWNER 检查清单把上游引擎镜像列为硬性要求：声称在自家硬件上一等支持 vLLM 或 SGLang 的"
            "厂商，必须使用两个项目自己的 Docker Hub 仓库（`vllm/vllm-openai*`、`lmsysorg/sglang*`）"
            "提交，社区才能用已发布的镜像复现结果。厂商或私有分支（`rocm/sgl-dev`、`rocm/vllm-dev`、"
            "`ghcr.io#...`）在成熟 SKU 上不被接受：H100、H200、B200、B300、GB200、GB300、MI300X、"
            "MI325X 与 MI355X（`knowledge.skus.established`；runner 标签映射到其 SKU，"
            "`cluster:b200-dgxc` 和 `b200-multinode` 都是 B200）。仅有的例外是真正的新硬件，以及上游"
            "尚不支持的新模型架构，两者都须在签核说明中写明。以 vLLM 或 SGLang 提供服务的框架同样适用"
            "（`dynamo-vllm`、`dynamo-sglang`、`sglang-disagg`、`llmd-vllm`：框架名中含有引擎名）；"
            "镜像名中的 `#` 视为 `/`。在 PR 中，新增条目或镜像、框架、runner 有改动的条目会被阻止；"
            "对已合并的代码树，现有条目可能是已批准的例外，因此只给出警告。"
        ),
    ),
    bad=(
        Example(
            path="configs/amd-master.yaml",
            text=_BASE
            + """
dsr1-fp8-mi355x-sglang-disagg:
  image: rocm/sgl-dev:sglang-0.5.14-rocm720-mi35x-mori-0812  # [CFG003]
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: mi355x-disagg
  precision: fp8
  framework: sglang-disagg
  kv-p2p-transfer: mori
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - conc-list: [256, 512]
        prefill: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
        decode: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
""",
            base={**_CHECKLIST, "configs/amd-master.yaml": _BASE},
            note="a disaggregated SGLang entry on a vendor nightly",
        ),
        Example(
            path="configs/amd-master.yaml",
            text=_BASE.replace(
                "image: lmsysorg/sglang:v0.5.14-rocm720-mi35x",
                "image: rocm/sgl-dev:v0.5.15-rocm720-mi35x-20260818  # [CFG003]",
            ),
            base={**_CHECKLIST, "configs/amd-master.yaml": _BASE},
            note="an image bump of a merged entry to a vendor build",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text="""\
dsv4-fp4-gb200-vllm:
  image: ghcr.io#semianalysisai/vllm-deepseek-v4:0.27.1-gb200  # [CFG003]
  model: nvidia/DeepSeek-V4-Pro-NVFP4
  model-prefix: dsv4
  runner: gb200
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 4, ep: 4, conc-start: 4, conc-end: 128 }
""",
            base=_CHECKLIST,
            note="`#` stands for `/`: a private GHCR build on GB200",
        ),
    ),
    good=(
        Example(
            path="configs/amd-master.yaml",
            text=_BASE.replace(
                "image: lmsysorg/sglang:v0.5.14-rocm720-mi35x",
                "image: rocm/sgl-dev:v0.5.15-rocm720-mi35x-20260818",
            ),
            base={"configs/amd-master.yaml": _BASE},
            note=(
                "the same bump on a base whose checklist predates the hard guideline "
                "(InferenceX #1956): the rule is not in force there"
            ),
        ),
        Example(
            path="configs/amd-master.yaml",
            text=_BASE.replace("conc-end: 64", "conc-end: 256"),
            base={**_CHECKLIST, "configs/amd-master.yaml": _BASE},
            note="upstream `lmsysorg/sglang` ROCm image",
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text="""\
dsv4-fp4-b300-trt:
  image: nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24
  model: nvidia/DeepSeek-V4-Pro-NVFP4
  model-prefix: dsv4
  runner: b300
  precision: fp4
  framework: trt
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, conc-start: 4, conc-end: 256 }

qwen3.5-fp4-rtx6000pro-sglang:
  image: ghcr.io/semianalysisai/sglang-blackwell-workstation:0.5.15
  model: nvidia/Qwen3.5-397B-A17B-NVFP4
  model-prefix: qwen3.5
  runner: rtx6000pro-lat
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 1, conc-end: 32 }
""",
            base=_CHECKLIST,
            note=(
                "TensorRT-LLM is not vLLM or SGLang, and RTX PRO 6000 is not an established "
                "SKU (`knowledge.skus.established`)"
            ),
        ),
        Example(
            path="configs/amd-master.yaml",
            text=_MERGED_EXCEPTION.replace("conc-list: [256, 512]", "conc-list: [128, 256, 512]"),
            base={**_CHECKLIST, "configs/amd-master.yaml": _MERGED_EXCEPTION},
            note=(
                "a merged entry on a vendor image (an approved exception) gets a new "
                "concurrency point; its image, framework and runner are unchanged"
            ),
        ),
    ),
)


def check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    base = base_master_configs(ctx)
    if base is None:
        # a merged tree: an entry there may be an approved exception
        for entry in master.entries.values():
            yield from _check(master, entry, ctx, "merged-tree")
        return
    for change in entry_changes(master, base):
        if change.changed("image", "framework", "runner"):
            yield from _check(master, change.entry, ctx, None)


def _check(
    master: MasterConfig, entry: MasterEntry, ctx: RuleContext, condition: str | None
) -> Iterator[Finding]:
    framework, image, runner = entry.get("framework"), entry.get("image"), entry.get("runner")
    if not (isinstance(framework, str) and isinstance(image, str) and isinstance(runner, str)):
        return  # CFG001 reports the missing or malformed field
    knowledge = ctx.knowledge
    engine = engine_family(framework, knowledge)
    if engine is None:
        return
    sku = runner_sku(runner, knowledge)
    if not established_sku(sku, knowledge) or upstream_image(image, engine, knowledge):
        return
    spec = knowledge.upstream_engines.get(engine)
    expected = ", ".join(f"`{p}*`" for p in (spec.images if spec else ())) or "-"
    yield RULE.hit(
        master.path,
        Span(entry.key_lines.get("image", entry.start_line)),
        f"{entry.key} {image_repository(image)}",
        condition=condition,
        framework=framework,
        sku=sku.upper(),
        image=image,
        engine=spec.name if spec is not None else engine,
        expected=expected,
    )
