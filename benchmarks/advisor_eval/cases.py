"""The advisor's labelled evaluation set: recipe-shaped PRs with known differences injected.

Each case is built from the seed example (examples/inferencex-mini, the shape of InferenceX
PR #2423) by editing it the way real PRs go wrong where no rule can decide: a changelog
claim that disagrees with the recipe, English and Chinese text that disagree, a new recipe
that drops what its sibling's NOTE comment says to keep, a waiver that describes another
patch, an append-only PR with an ungated hunk. `labels` are the (path, line text) pairs a
correct advisor raises as `concern`; every other `concern` counts against precision.

`responses` are the recorded answers replayed by benchmarks/bench_advisor.py, per question
id, as the model's JSON (line numbers are resolved from the `needle` text so the fixtures
stay readable). They were written by hand in the shape a model answers, including its
failure modes (false concerns, wrong lines, paraphrased quotes, repeats of deterministic
findings): no API access was available where they were recorded. `--live` asks the real
API instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "inferencex-mini"
RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
SIBLING = "benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh"
LOG = "perf-changelog.yaml"
PR_LINK = "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/{pr}\n"


@dataclass
class R:
    """One recorded answer item; `line` overrides the line found by `needle`."""

    verdict: str
    path: str
    needle: str
    quote: str
    en: str
    zh: str
    confidence: float = 0.7
    line: int | None = None


@dataclass
class Case:
    name: str
    base: dict[str, str]
    head: dict[str, str]
    title: str
    body: str
    labels: list[tuple[str, str]]  # (path, text on the line) of true concerns
    responses: dict[str, list[R] | str] = field(default_factory=dict)
    pr: int = 2423


def _seed() -> tuple[dict[str, str], dict[str, str]]:
    head = {
        p.relative_to(EXAMPLE).as_posix(): p.read_text(encoding="utf-8")
        for p in EXAMPLE.rglob("*")
        if p.is_file()
    }
    base = {k: v for k, v in head.items() if k != RECIPE}
    log = head[LOG]
    base[LOG] = log[: log.rindex("\n- config-keys:")] + "\n"
    return base, head


def _fixed(head: dict[str, str], pr: int = 2423) -> dict[str, str]:
    out = dict(head)
    out[RECIPE] = (
        head[RECIPE]
        .replace("--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.90")
        .replace("    --reasoning-parser minimax_m3\n", "")
    )
    out[LOG] = head[LOG] + PR_LINK.format(pr=pr)
    return out


def line_of(text: str, needle: str) -> int:
    for n, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return n
    raise ValueError(f"{needle!r} not found")


def answer(case: Case, items: list[R] | str) -> str:
    import json

    if isinstance(items, str):
        return items
    out: list[dict[str, Any]] = []
    for r in items:
        line = r.line or line_of(case.head[r.path], r.needle)
        out.append(
            {
                "verdict": r.verdict,
                "path": r.path,
                "line": line,
                "quote": r.quote,
                "message": {"en": r.en, "zh": r.zh},
                "confidence": r.confidence,
            }
        )
    return json.dumps({"items": out}, ensure_ascii=False)


def cases() -> list[Case]:
    base, seed = _seed()
    fixed = _fixed(seed)
    out: list[Case] = []

    # 1. the seed case: its three defects are the rules'; the model repeats two of them
    # (dropped as repeats) and finds nothing else
    out.append(
        Case(
            "seed-pr2423",
            base,
            seed,
            "Add MiniMax-M3 MXFP8 H100 AgentX recipe with EAGLE3",
            "Adds the agentic recipe. gmu 0.90 like the fixed-seq-len sibling; AL 2.83 from "
            "minimaxm3_eagle3.yaml (thinking_on, K=3).",
            [],
            {
                "sibling_diff": [
                    R(
                        "concern",
                        RECIPE,
                        "--reasoning-parser",
                        "--reasoning-parser minimax_m3",
                        "The sibling does not set a reasoning parser",
                        "同类配方没有设置推理解析器",
                        0.8,
                    ),
                    R(
                        "no_concern",
                        RECIPE,
                        "--enable-prefix-caching",
                        "--enable-prefix-caching",
                        "Prefix caching suits multi-turn agentic replay",
                        "前缀缓存适合多轮智能体回放",
                        0.6,
                    ),
                ],
                "claims_match": [
                    R(
                        "concern",
                        RECIPE,
                        "--gpu-memory-utilization",
                        "--gpu-memory-utilization 0.95",
                        "The description says gmu 0.90 but the recipe sets 0.95",
                        "描述称 gmu 为 0.90，但配方设置为 0.95",
                        0.9,
                    ),
                    R(
                        "no_concern",
                        RECIPE,
                        "SYNTHETIC_ACCEPT_LEN=",
                        "SYNTHETIC_ACCEPT_LEN=2.83",
                        "AL 2.83 matches the description",
                        "AL 2.83 与描述一致",
                        0.8,
                    ),
                ],
            },
        )
    )

    # 2. a changelog claim that disagrees with the recipe (AL 2.78 is the GQA draft's)
    head = dict(fixed)
    head[LOG] = head[LOG].replace("golden synthetic AL 2.83", "golden synthetic AL 2.78")
    out.append(
        Case(
            "changelog-al-claim",
            base,
            head,
            "Add MiniMax-M3 AgentX recipe",
            "AL from minimaxm3_eagle3.yaml.",
            [(LOG, "AL 2.78")],
            {
                "sibling_diff": [],
                "claims_match": [
                    R(
                        "concern",
                        LOG,
                        "AL 2.78",
                        "golden synthetic AL 2.78",
                        "The entry says AL 2.78 but the recipe pins 2.83 (minimaxm3_eagle3.yaml)",
                        "条目写的是 AL 2.78，但配方固定为 2.83（minimaxm3_eagle3.yaml）",
                        0.85,
                    ),
                    # paraphrased quote: dropped
                    R(
                        "concern",
                        RECIPE,
                        "SYNTHETIC_ACCEPT_LEN=",
                        "SYNTHETIC_ACCEPT_LEN = 2.83",
                        "Value differs from the entry",
                        "数值与条目不一致",
                        0.6,
                    ),
                ],
            },
        )
    )

    # 3. English and Chinese descriptions disagree on the memory fraction
    out.append(
        Case(
            "bilingual-gmu",
            base,
            fixed,
            "Add MiniMax-M3 AgentX recipe / 新增 MiniMax-M3 AgentX 配方",
            "gmu 0.90 for the draft head.\n\n草稿模型使用显存利用率 0.85。",
            [(RECIPE, "--gpu-memory-utilization 0.90")],
            {
                "sibling_diff": [
                    R(
                        "no_concern",
                        RECIPE,
                        "--gpu-memory-utilization",
                        "--gpu-memory-utilization 0.90",
                        "Same memory fraction as the sibling",
                        "与同类配方显存比例相同",
                        0.7,
                    ),
                ],
                "claims_match": [
                    R(
                        "concern",
                        RECIPE,
                        "--gpu-memory-utilization",
                        "--gpu-memory-utilization 0.90",
                        "English says 0.90, Chinese says 0.85; the recipe sets 0.90",
                        "英文为 0.90，中文为 0.85；配方设置为 0.90",
                        0.8,
                    ),
                ],
            },
        )
    )

    # 4. a new recipe drops what the sibling's NOTE says to keep
    b4 = dict(base)
    b4[SIBLING] = (
        base[SIBLING]
        .replace(
            "    --max-num-seqs $((2 * CONC)) \\\n",
            "    --max-num-seqs $((2 * CONC)) \\\n",
        )
        .replace(
            'SPEC_CONFIG="',
            "# NOTE: keep --max-num-seqs at 2*CONC: the draft head needs the extra slots or\n"
            '# warmup deadlocks at high concurrency (fixed in #2301).\nSPEC_CONFIG="',
            1,
        )
    )
    h4 = dict(fixed)
    h4[SIBLING] = b4[SIBLING]
    h4[RECIPE] = fixed[RECIPE].replace("MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$CONC")
    out.append(
        Case(
            "sibling-note-max-seqs",
            b4,
            h4,
            "Add MiniMax-M3 AgentX recipe",
            "Same settings as the fixed-seq-len recipe.",
            [(RECIPE, "MAX_NUM_SEQS=$CONC")],
            {
                "sibling_diff": [
                    R(
                        "concern",
                        RECIPE,
                        "MAX_NUM_SEQS=$CONC",
                        "MAX_NUM_SEQS=$CONC",
                        "The sibling's NOTE keeps max-num-seqs at 2*CONC for the draft head",
                        "同类配方的 NOTE 要求为草稿模型保持 max-num-seqs 为 2*CONC",
                        0.85,
                    ),
                    # a false concern: prefix caching is right for agentic replay
                    R(
                        "concern",
                        RECIPE,
                        "--enable-prefix-caching",
                        "--enable-prefix-caching",
                        "The sibling does not enable prefix caching",
                        "同类配方未开启前缀缓存",
                        0.5,
                    ),
                ],
                "claims_match": [],
            },
        )
    )

    # 5. the sibling's NOTE about the KV-cache dtype is ignored
    b5 = dict(base)
    b5[SIBLING] = base[SIBLING].replace(
        "vllm serve",
        "# NOTE: no fp8 KV cache with the EAGLE3 head on H100: acceptance collapses.\nvllm serve",
        1,
    )
    h5 = dict(fixed)
    h5[SIBLING] = b5[SIBLING]
    out.append(
        Case(
            "sibling-note-kv-dtype",
            b5,
            h5,
            "Add MiniMax-M3 AgentX recipe",
            "Adds the recipe.",
            [(RECIPE, "--kv-cache-dtype fp8")],
            {
                "sibling_diff": [
                    R(
                        "concern",
                        RECIPE,
                        "--kv-cache-dtype",
                        "--kv-cache-dtype fp8",
                        "The sibling's NOTE rules out an fp8 KV cache with the EAGLE3 head",
                        "同类配方的 NOTE 指出 EAGLE3 草稿模型不能使用 fp8 KV 缓存",
                        0.8,
                    ),
                    # wrong line: dropped
                    R(
                        "concern",
                        RECIPE,
                        "--kv-cache-dtype",
                        "--kv-cache-dtype fp8",
                        "Repeated",
                        "重复",
                        0.5,
                        line=3,
                    ),
                ],
                "claims_match": [],
            },
        )
    )

    # 6. a waiver that describes another patch
    patch_line = 'patch -p1 -d "$SITE" --forward < "$(dirname "$0")/mla_fix.diff"\n'
    h6 = dict(fixed)
    h6[RECIPE] = fixed[RECIPE].replace(
        "VLLM_CMD=(",
        "SITE=\"$(python3 -c 'import vllm, os; print(os.path.dirname(os.path.dirname(vllm.__file__)))')\"\n"
        + patch_line
        + "\nVLLM_CMD=(",
        1,
    )
    h6["docs/waiver/2423.md"] = (
        "# Inference-engine patch waiver — PR #2423\n\n"
        "- What is patched: the vLLM rejection sampler's synthetic mode (vllm-project/vllm#50110)\n"
        "- Removal plan: drop once the nightly ships #50110.\n"
    )
    out.append(
        Case(
            "waiver-other-patch",
            base,
            h6,
            "Add MiniMax-M3 AgentX recipe with an MLA fix",
            "Patches vLLM; waiver filed.",
            [(RECIPE, "patch -p1")],
            {
                "waiver_coverage": [
                    R(
                        "concern",
                        RECIPE,
                        "patch -p1",
                        "mla_fix.diff",
                        "The waiver describes a sampler patch, not the MLA fix applied here",
                        "豁免说明的是采样器补丁，而不是这里应用的 MLA 修复",
                        0.8,
                    ),
                ],
                "sibling_diff": [
                    R(
                        "cannot_tell",
                        RECIPE,
                        "patch -p1",
                        "patch -p1",
                        "The sibling runs unpatched; the patch's effect is unknown",
                        "同类配方未打补丁；补丁影响未知",
                        0.4,
                    ),
                ],
                "claims_match": [],
            },
        )
    )

    # 7. the waiver does cover the patch: nothing to raise
    h7 = dict(h6)
    h7["docs/waiver/2423.md"] = (
        "# Inference-engine patch waiver — PR #2423\n\n"
        "- Patch entrypoint: `benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh`\n"
        "- What is patched: vLLM MLA backend, mla_fix.diff (vllm-project/vllm#51011)\n"
        "- Removal plan: drop the patch once the pinned nightly ships #51011.\n"
    )
    out.append(
        Case(
            "waiver-covers-patch",
            base,
            h7,
            "Add MiniMax-M3 AgentX recipe with an MLA fix",
            "Patches vLLM; waiver filed.",
            [],
            {
                "waiver_coverage": [
                    R(
                        "no_concern",
                        RECIPE,
                        "patch -p1",
                        "mla_fix.diff",
                        "The waiver names this recipe and the MLA patch",
                        "豁免写明了本配方和 MLA 补丁",
                        0.8,
                    ),
                ],
                "sibling_diff": [],
                "claims_match": [],
            },
        )
    )

    # 8. append-only PR: one hunk gated to the new points, one that is not
    b8 = _fixed(seed, pr=2301)
    b8 = {**b8, LOG: b8[LOG]}
    h8 = dict(b8)
    h8[RECIPE] = (
        b8[RECIPE]
        .replace(
            "MAX_NUM_SEQS=$((2 * CONC))",
            'MAX_NUM_SEQS=$((2 * CONC))\nif [ "$CONC" -ge 512 ]; then\n'
            "    MAX_NUM_SEQS=$((CONC + 64))  # new points only\nfi",
        )
        .replace("--block-size 128", "--block-size 64")
    )
    h8[LOG] = (
        b8[LOG]
        + "\n- config-keys:\n    - minimaxm3-fp8-h100-vllm-agentic-mtp\n  append-only: true\n"
        '  description:\n    - "Add conc 512 and 1024 points"\n' + PR_LINK.format(pr=2500)
    )
    out.append(
        Case(
            "append-only-ungated",
            b8,
            h8,
            "Add conc 512/1024 points to M3 AgentX",
            "Append-only: new concurrency points only.",
            [(RECIPE, "--block-size 64")],
            {
                "append_only_gating": [
                    R(
                        "no_concern",
                        RECIPE,
                        'if [ "$CONC" -ge 512 ]',
                        '[ "$CONC" -ge 512 ]',
                        "The max-num-seqs change is guarded to conc >= 512",
                        "max-num-seqs 的修改仅在 conc >= 512 时生效",
                        0.8,
                    ),
                    R(
                        "concern",
                        RECIPE,
                        "--block-size 64",
                        "--block-size 64",
                        "The block size changes for every point, not only the new ones",
                        "块大小的修改作用于所有点，而非仅新增点",
                        0.85,
                    ),
                    # a false concern on the guard itself
                    R(
                        "concern",
                        RECIPE,
                        "MAX_NUM_SEQS=$((CONC + 64))",
                        "MAX_NUM_SEQS=$((CONC + 64))",
                        "This changes max-num-seqs",
                        "这里修改了 max-num-seqs",
                        0.4,
                    ),
                ],
                "claims_match": [],
            },
            pr=2500,
        )
    )

    # 9. an honest PR with a truncated answer (refused) and nothing to raise
    out.append(
        Case(
            "clean-truncated",
            base,
            fixed,
            "Add MiniMax-M3 AgentX recipe",
            "AL 2.83 from minimaxm3_eagle3.yaml; gmu 0.90.",
            [],
            {
                "sibling_diff": '{"items": [{"verdict": "no_concern", "path": "benchmarks/',
                "claims_match": [],
            },
        )
    )
    return out
