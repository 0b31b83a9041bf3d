"""The master-config parser, its change and domain helpers, and rules CFG000-CFG005 on real and hostile input."""

from __future__ import annotations

import datetime
import time
from pathlib import Path

import pytest
from lintkit import default_config, lint_files, rules_for

from bot.core.engine import Report
from bot.core.registry import RuleModule
from bot.parse.master_config import (
    MAX_BYTES,
    MasterConfig,
    engine_family,
    image_repository,
    model_family,
    normalise_image,
    parse_master_config,
    runner_sku,
    upstream_image,
)
from bot.parse.master_sets import entry_changes
from bot.parse.yamlsafe import load_safe

PATH = "configs/nvidia-master.yaml"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex" / "configs"
REAL = ("nvidia-master.yaml", "amd-master.yaml")

FIXTURE = """\
# NVIDIA master config (fixture)

dsv4-fp4-b300-sglang:
  image: lmsysorg/sglang:v0.5.14-cu130
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: b300
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      # low concurrency: TP only
      - { tp: 8, conc-start: 1, conc-end: 16 }
      - { tp: 8, ep: 8, dp-attn: true, conc-start: 32, conc-end: 512 }

# ---------------------------------------------------------------- multinode
"dsr1-fp8-gb200-dynamo-sglang":
  image: lmsysorg/sglang:v0.5.14-cu130
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: gb200
  precision: fp8
  framework: dynamo-sglang
  router: { name: dynamo-router, version: "1.3.0" }
  kv-p2p-transfer: nixl
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - spec-decoding: "mtp"
        conc-list: [64, 128]
        prefill:
          num-worker: 2
          tp: 4
          ep: 4
          dp-attn: true
          additional-settings:
          - "CONFIG_FILE=recipes/sglang/dsr1/8k1k/ctx2_gen1.yaml"
        decode:
          num-worker: 1
          tp: 8
          ep: 8
          dp-attn: true
"""


def cfg_rules(*ids: str) -> list[RuleModule]:
    return rules_for("master_config", *ids)


def run(
    files: dict[str, str | bytes],
    *,
    base: dict[str, str] | None = None,
    paths: list[str] | None = None,
    rules: list[RuleModule] | None = None,
    review_date: datetime.date | None = None,
) -> Report:
    return lint_files(
        files,
        base=base,
        paths=paths or list(files),
        rules=rules if rules is not None else cfg_rules(),
        review_date=review_date,
    )


def ids(report: Report) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in report.findings]


# -- parser -----------------------------------------------------------------------


def test_positions_of_entries_fields_and_items() -> None:
    cfg = parse_master_config(PATH, FIXTURE)
    assert cfg.ok
    assert list(cfg.entries) == ["dsv4-fp4-b300-sglang", "dsr1-fp8-gb200-dynamo-sglang"]
    sg = cfg.entries["dsv4-fp4-b300-sglang"]
    assert (sg.start_line, sg.end_line) == (3, 18)  # the banner comment belongs to the next entry
    assert sg.raw.splitlines()[0] == "dsv4-fp4-b300-sglang:"
    assert sg.key_lines == {
        "image": 4,
        "model": 5,
        "model-prefix": 6,
        "runner": 7,
        "precision": 8,
        "framework": 9,
        "multinode": 10,
        "scenarios": 11,
    }
    assert sg.line_of("scenarios", "fixed-seq-len", 0) == 13
    assert sg.line_of("scenarios", "fixed-seq-len", 0, "osl") == 14
    assert sg.line_of("scenarios", "fixed-seq-len", 0, "search-space", 0) == 17
    assert sg.line_of("scenarios", "fixed-seq-len", 0, "search-space", 1, "dp-attn") == 18
    assert sg.pointer_line("/scenarios/fixed-seq-len/0/search-space/1/conc-end") == 18
    # an unknown path falls back to its nearest known ancestor, then the entry
    assert sg.line_of("scenarios", "fixed-seq-len", 0, "search-space", 7) == 15
    assert sg.line_of("nope") == 3
    dyn = cfg.entries["dsr1-fp8-gb200-dynamo-sglang"]
    assert dyn.start_line == 21  # a quoted config key
    assert dyn.end_line == 50
    assert dyn.key_lines["router"] == 28
    assert dyn.line_of("router", "version") == 28
    search = ("scenarios", "fixed-seq-len", 0, "search-space", 0)
    assert dyn.line_of(*search) == 37
    assert dyn.line_of(*search, "prefill", "additional-settings", 0) == 45
    assert dyn.line_of(*search, "decode", "num-worker") == 47
    assert dyn.pointer_line("/scenarios/fixed-seq-len/0/search-space/0/decode/dp-attn") == 50
    assert dyn.text("framework") == "dynamo-sglang"
    assert dyn.text("scenarios") == ""


def test_values_equal_the_safe_loader() -> None:
    cfg = parse_master_config(PATH, FIXTURE)
    assert {k: e.data for k, e in cfg.entries.items()} == load_safe(FIXTURE)
    odd = (
        "a:\n  ints: [0x1f, 0o17, 1_000, -3, +4]\n  floats: [1.5, .inf, 1e3]\n"
        "  bools: [true, True, false]\n  nulls: [~, null, ]\n  strs: [yes, no, on, '1', 2026-08-03x]\n"
        "  date: 2026-08-03\n  empty:\n  1024: int-key\n"
    )
    assert {k: e.data for k, e in parse_master_config(PATH, odd).entries.items()} == load_safe(odd)


def test_anchors_and_merge_keys_fall_back_to_the_safe_loader() -> None:
    text = (
        "base: &base\n  image: vllm/vllm-openai:v0.27.1\n  runner: b200\n"
        "copy:\n  <<: *base\n  runner: b300\n"
        "tagged:\n  tp: !!str 8\n"
    )
    cfg = parse_master_config(PATH, text)
    assert cfg.ok
    assert {k: e.data for k, e in cfg.entries.items()} == load_safe(text)
    assert cfg.entries["copy"].data == {"image": "vllm/vllm-openai:v0.27.1", "runner": "b300"}
    assert cfg.entries["copy"].start_line == 4
    assert cfg.entries["tagged"].line_of("tp") == 8


@pytest.mark.parametrize(
    ("text", "kind", "line"),
    [
        ("a:\n  image: x\na:\n  image: y\n", "duplicate-key", 3),
        ("a:\n  image: x\n  image: y\n", "duplicate-key", 3),
        ("a:\n  image: [x\nb: 1\n", "yaml", 3),
        ("- a\n- b\n", "not-mapping", 1),
        ("", "empty", 1),
        ("# only a comment\n", "empty", 1),
        ("a:\n  image: x\x00\n", "nul", 2),
        ("a:\n  image: \ufffd\n", "not-utf8", 2),
        ("a: 1\n---\nb: 2\n", "yaml", 2),
    ],
)
def test_file_problems_have_a_kind_and_line(text: str, kind: str, line: int) -> None:
    cfg = parse_master_config(PATH, text)
    assert [(p.kind, p.line) for p in cfg.problems][:1] == [(kind, line)], cfg.problems


def test_bytes_input() -> None:
    assert parse_master_config(PATH, FIXTURE.encode()).ok
    bad = parse_master_config(PATH, b"a:\n  image: \xff\n")
    assert [(p.kind, p.line) for p in bad.problems] == [("not-utf8", 2)]


# -- change detection ---------------------------------------------------------------


def test_entry_changes_compare_values_not_text() -> None:
    base = parse_master_config(PATH, FIXTURE)
    reformatted = FIXTURE.replace(
        "      - { tp: 8, conc-start: 1, conc-end: 16 }\n",
        "      - tp: 8\n        conc-start: 1   # moved to block style\n        conc-end: 16\n",
    )
    assert entry_changes(parse_master_config(PATH, reformatted), base) == []
    edited = FIXTURE.replace("conc-end: 512", "conc-end: 1024").replace(
        '"dsr1-fp8-gb200-dynamo-sglang":', "dsr1-fp8-gb200-dynamo-sglang-v2:"
    )
    changes = entry_changes(parse_master_config(PATH, edited), base)
    assert [(c.entry.key, c.status) for c in changes] == [
        ("dsv4-fp4-b300-sglang", "changed"),
        ("dsr1-fp8-gb200-dynamo-sglang-v2", "renamed"),
    ]
    assert changes[0].changed("scenarios") and not changes[0].changed("image", "runner")
    assert not changes[1].changed("image")
    added = parse_master_config(PATH, FIXTURE + "\nnew-key:\n  image: x\n")
    assert [(c.entry.key, c.is_new) for c in entry_changes(added, base)] == [("new-key", True)]
    # an entry moved to another master config keeps its key: unchanged
    other = parse_master_config("configs/amd-master.yaml", FIXTURE)
    assert entry_changes(parse_master_config(PATH, ""), [other]) == []
    assert len(entry_changes(base, None)) == 2


# -- domain helpers ---------------------------------------------------------------


def test_runner_sku_engine_and_image_helpers() -> None:
    k = default_config().knowledge
    assert runner_sku("cluster:b200-dgxc", k) == "b200"
    assert runner_sku("b200-multinode", k) == "b200"
    assert runner_sku("mi355x-disagg", k) == "mi355x"
    assert runner_sku("gb300-nv", k) == "gb300"
    assert runner_sku("rtx6000pro-lat", k) == "rtx6000pro"
    assert engine_family("vllm", k) == "vllm"
    assert engine_family("dynamo-sglang", k) == "sglang"
    assert engine_family("sglang-disagg", k) == "sglang"
    assert engine_family("llmd-vllm", k) == "vllm"
    assert engine_family("dynamo-trt", k) is None
    assert engine_family("atom-disagg", k) is None
    assert normalise_image("nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24") == (
        "nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc24"
    )
    assert image_repository("docker.io/lmsysorg/sglang:v0.5.14-cu130@sha256:ab12") == (
        "lmsysorg/sglang"
    )
    assert image_repository("localhost:5000/vllm") == "localhost:5000/vllm"
    assert upstream_image("lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x", "sglang", k)
    assert upstream_image("vllm/vllm-openai-rocm:v0.27.1", "vllm", k)
    assert upstream_image("vllm#vllm-openai:nightly-ac75", "vllm", k)
    assert not upstream_image("rocm/sgl-dev:sglang-0.5.9-rocm720", "sglang", k)
    assert not upstream_image("lmsysorg/sglang:v0.5.14", "vllm", k)
    assert not upstream_image("ghcr.io/lmsysorg/sglang:v0.5.14", "sglang", k)
    assert model_family("glm5.1", k) == {"glm5", "glm5.1"}
    assert model_family("dsv4", k) == {"dsv4"}


# -- the real files -------------------------------------------------------------------


def _real(name: str) -> str:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", REAL)
def test_real_master_configs_parse_and_validate(name: str) -> None:
    text = _real(name)
    cfg = parse_master_config(f"configs/{name}", text)
    assert cfg.problems == []
    assert len(cfg.entries) > 40
    assert {k: e.data for k, e in cfg.entries.items()} == load_safe(text)
    for entry in cfg.entries.values():
        assert entry.raw.startswith(entry.key)
        for field in ("image", "framework", "runner", "model-prefix"):
            assert text.splitlines()[entry.key_lines[field] - 1].lstrip().startswith(field + ":")
    report = run({f"configs/{name}": text}, rules=cfg_rules("CFG000", "CFG001"))
    assert report.findings == []


def test_real_tree_findings_are_the_known_ones() -> None:
    """Tree mode on both real files: merged exceptions as warnings and info, nothing blocking."""
    files = {f"configs/{n}": _real(n) for n in REAL}
    report = run(files, review_date=datetime.date(2026, 8, 22))
    got = sorted((f.rule, f.severity, f.path, f.subject.split()[0]) for f in report.findings)
    assert got == [
        ("CFG003", "warning", "configs/amd-master.yaml", "dsr1-fp8-mi355x-sglang-disagg"),
        ("CFG003", "warning", "configs/amd-master.yaml", "dsr1-fp8-mi355x-sglang-disagg-mtp"),
        ("CFG003", "warning", "configs/nvidia-master.yaml", "dsv4-fp4-gb200-llmd-vllm"),
        ("CFG004", "info", "configs/nvidia-master.yaml", "glm5.1-fp8-b200-tilert"),
        ("CFG005", "warning", "configs/nvidia-master.yaml", "glm5.1-fp8-b200-tilert"),
        ("CFG005", "warning", "configs/nvidia-master.yaml", "kimik2.6-fp4-b200-dynamo-vllm"),
    ]


# a checklist item of our own wording that carries the mark of the upstream-image practice
# (`knowledge.practices.upstream-image-rule`); CFG003 blocks only where the base shows it
CHECKLIST = "- [ ] vLLM/SGLang entries use upstream images (https://hub.docker.com/u/lmsysorg)\n"


@pytest.mark.parametrize("checklist", [True, False], ids=["base-with-checklist", "older-base"])
def test_real_file_edit_is_scoped_to_the_changed_entry(checklist: bool) -> None:
    text = _real("amd-master.yaml")
    cfg = parse_master_config(PATH, text)
    first = next(iter(cfg.entries.values()))
    lines = text.splitlines(keepends=True)
    image_line = first.key_lines["image"]
    lines[image_line - 1] = "  image: rocm/sgl-dev:nightly-20260820\n"
    lines.insert(first.key_lines["runner"], "  trace-source: agentx\n")
    head = "".join(lines)
    base = {"configs/amd-master.yaml": text}
    if checklist:
        base["docs/PR_REVIEW_CHECKLIST.md"] = CHECKLIST
    report = run({"configs/amd-master.yaml": head}, base=base)
    found = {(f.rule, f.line) for f in report.findings}
    expected = {("CFG001", first.key_lines["runner"] + 1)}
    upstream = engine_family(str(first.get("framework")), default_config().knowledge) is not None
    if checklist and upstream:
        expected.add(("CFG003", image_line))
    assert found == expected
    assert all(f.severity == "error" for f in report.findings)


# -- rules on fixtures ------------------------------------------------------------------


def test_pr_mode_ignores_flaws_of_untouched_entries() -> None:
    broken = FIXTURE.replace("  multinode: false\n", "  multinode: false\n  trace-source: v1\n", 1)
    # the PR breaks an entry the base kept clean: reported
    head = broken.replace("conc-end: 512", "conc-end: 1024")
    assert [r for r, _ in ids(run({PATH: head}, base={PATH: FIXTURE}))] == ["CFG001"]
    # the base already breaks it (the repository's practice at that base): editing the
    # entry elsewhere makes nothing worse
    assert ids(run({PATH: head}, base={PATH: broken})) == []
    head = broken.replace('version: "1.3.0"', 'version: "1.3.1"')  # edits the other one
    assert ids(run({PATH: head}, base={PATH: broken})) == []
    assert [r for r, _ in ids(run({PATH: broken}))] == ["CFG001"]  # no base: everything


def test_cfg004_same_pull_request_and_other_runner_label() -> None:
    trt = (
        FIXTURE.split("\n\n")[1]
        .replace("dsv4-fp4-b300-sglang", "dsv4-fp4-b300-trt")
        .replace("framework: sglang", "framework: trt")
        .replace(
            "image: lmsysorg/sglang:v0.5.14-cu130",
            "image: nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24",
        )
    )
    head = FIXTURE + "\n" + trt.replace("runner: b300", "runner: cluster:b300-nv") + "\n"
    assert ids(run({PATH: head}, base={PATH: FIXTURE}, rules=cfg_rules("CFG004"))) == []
    alone = "\n" + trt + "\n"
    policy = {"MODELS.md": "## Engine submission policy\n"}
    found = run({**policy, PATH: alone}, base=policy, rules=cfg_rules("CFG004"))
    assert [(f.rule, f.severity) for f in found.findings] == [("CFG004", "error")]
    tree = run({PATH: alone}, rules=cfg_rules("CFG004"))
    assert [(f.rule, f.severity) for f in tree.findings] == [("CFG004", "info")]


def test_cfg005_needs_a_review_date_and_honours_the_last_day() -> None:
    m3 = FIXTURE.replace("model-prefix: dsv4", "model-prefix: minimaxm3")
    rules = cfg_rules("CFG005")
    assert ids(run({PATH: m3}, base={}, rules=rules)) == []
    assert ids(run({PATH: m3}, base={}, rules=rules, review_date=datetime.date(2026, 8, 3))) == []
    late = run({PATH: m3}, base={}, rules=rules, review_date=datetime.date(2026, 8, 4))
    assert ids(late) == [("CFG005", 13)]
    # retired model: one finding at `model-prefix`, not one per scenario
    glm = FIXTURE.replace("model-prefix: dsv4", "model-prefix: glm5.1").replace(
        "isl: 8192", "isl: 1024", 1
    )
    found = run({PATH: glm}, base={}, rules=rules, review_date=datetime.date(2026, 8, 22))
    assert [(f.rule, f.line, f.severity) for f in found.findings] == [("CFG005", 6, "error")]
    tree = run({PATH: glm}, rules=rules, review_date=datetime.date(2026, 8, 22))
    assert [(f.rule, f.severity) for f in tree.findings] == [("CFG005", "warning")]


# -- hostile input ---------------------------------------------------------------------


def _alias_bomb() -> str:
    lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


HOSTILE = {
    "alias-bomb": _alias_bomb(),
    "deep-flow": "a: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "deep-flow-maps": "a: " + "{b: " * 20_000 + "1" + "}" * 20_000 + "\n",
    "deep-block": "".join("  " * i + f"k{i}:\n" for i in range(500)) + "  " * 500 + "v\n",
    "deep-dashes": "a:\n" + "- " * 5_000 + "x\n",
    "many-nodes": "a: [" + "1, " * 600_000 + "1]\n",
    "huge": "a: " + "x" * (50 * 1024 * 1024) + "\n",
    "binary": "\x7fELF\x02\x01\x01" + "\x00" * 64,
    "control": "a: \x1b[31mred\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_is_a_cfg000_finding(name: str) -> None:
    text = HOSTILE[name]
    started = time.perf_counter()
    cfg = parse_master_config(PATH, text)
    assert isinstance(cfg, MasterConfig)
    assert cfg.problems, name
    report = run({PATH: text})
    assert [f.rule for f in report.findings] == ["CFG000"]
    # a bound the bot reads within is a warning (the file may be valid); an unreadable
    # file is an error
    bound = cfg.problems[0].kind in ("too-large", "too-many-nodes", "too-deep")
    assert report.findings[0].severity == ("warning" if bound else "error")
    assert time.perf_counter() - started < 30  # a sanity bound, not a benchmark


def test_size_limit_is_checked_before_parsing() -> None:
    cfg = parse_master_config(PATH, "a: 1\n" + "#" * MAX_BYTES)
    assert [p.kind for p in cfg.problems] == ["too-large"]


def test_a_documented_exception_is_suppressed_on_the_image_line() -> None:
    fork = FIXTURE.replace(
        "  image: lmsysorg/sglang:v0.5.14-cu130\n  model: deepseek-ai/DeepSeek-V4-Pro",
        "  image: ghcr.io#vendor/sglang:b300-dev\n  model: deepseek-ai/DeepSeek-V4-Pro",
    )
    # a repository whose checklist makes upstream images a hard guideline (InferenceX #1956)
    checklist = {"docs/PR_REVIEW_CHECKLIST.md": "upstream https://hub.docker.com/u/lmsysorg\n"}
    base = {**checklist, PATH: FIXTURE}
    found = run({PATH: fork}, base=base, rules=cfg_rules("CFG003"))
    assert ids(found) == [("CFG003", 4)]
    waived = fork.replace(
        "  image: ghcr.io#vendor/sglang:b300-dev\n",
        "  # bot: ignore[CFG003] new architecture, see the sign-off of #2750\n"
        "  image: ghcr.io#vendor/sglang:b300-dev\n",
    )
    report = run({PATH: waived}, base=base, rules=cfg_rules("CFG003"))
    assert report.findings == [] and report.suppressed == 1
