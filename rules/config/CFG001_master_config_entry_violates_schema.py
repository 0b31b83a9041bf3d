"""CFG001: a master-config entry does not match `schemas/master-config-entry.schema.json`."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any, TypeGuard

from bot.base.fastschema import QuickSchema
from bot.core.config import load_schema
from bot.core.context import RuleContext
from bot.core.model import ERROR, WARNING, Example, Finding, Ratchet, Rule, Span, T
from bot.parse.master_config import MasterConfig, MasterEntry
from bot.parse.master_sets import base_master_configs, entry_changes, master_config_paths, may_hold
from bot.parse.pydantic_models import ModelTable, declares
from bot.parse.schema_errors import SchemaProblem, backticked, problems, show, types_text

if TYPE_CHECKING:
    import jsonschema

SCHEMA_NAME = "master-config-entry.schema.json"

_BASE = """\
minimaxm3-fp4-b200-vllm-agentic-mtp:
  image: vllm/vllm-openai:v0.27.1
  model: nvidia/MiniMax-M3-NVFP4
  model-prefix: minimaxm3
  runner: cluster:b200-dgxc
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.8
      search-space:
      - { tp: 4, spec-decoding: mtp, kv-offloading: none, conc-list: [1, 4, 8, 16] }
"""

RULE = Rule(
    id="CFG001",
    slug="master-config-entry-violates-schema",
    severity=ERROR,
    target="master_config",
    title=T(
        en="Master-config entry does not match the schema",
        zh="主配置条目不符合 schema",
    ),
    message=T(
        en="`{where}` does not match the master-config entry schema: {detail}",
        zh="`{where}` 不符合主配置条目的 schema：{detail}",
    ),
    fix=None,
    rationale=T(
        en=(
            "Sweep generation validates every master-config entry with the repository's "
            "pydantic models (`utils/matrix_logic/validation.py`) and refuses the whole file "
            "when one entry has an unknown field (`trace-source`, `kv_offloading`), a missing "
            "one (`multinode`, `kv-offloading` on a single-node agentic point), a value of the "
            "wrong type, or breaks a cross-field rule: `conc-list` or a `conc-start`/`conc-end` "
            "range but not both, `tp` divisible by `dcp-size`, `kv-offloading: dram` with a "
            "`kv-offload-backend` and a `dram-utilization`, agentic configs on a "
            "`cluster:<name>` runner, `router` and `kv-p2p-transfer` declared at one scope, "
            "`disagg: true` with a `kv-p2p-transfer`. A mistake therefore fails every sweep, "
            "not just the new point. The schema is `schemas/master-config-entry.schema.json` "
            "(a little stricter than the models where they accept nonsense such as an empty "
            "image or `tp: 0`). The config key itself may not contain `*` (reserved for "
            "changelog globs) and may not repeat a key of another master config, since the "
            "files are merged. In a pull request only new or changed entries are checked."
        ),
        zh=(
            "扫描生成脚本会用仓库的 pydantic 模型（`utils/matrix_logic/validation.py`）校验每个主配置"
            "条目；只要有一个条目含有未知字段（`trace-source`、`kv_offloading`）、缺少字段（`multinode`、"
            "单机 agentic 点的 `kv-offloading`）、值的类型不对，或违反跨字段规则——`conc-list` 与 "
            "`conc-start`/`conc-end` 范围二选一、`tp` 能被 `dcp-size` 整除、`kv-offloading: dram` "
            "需要 `kv-offload-backend` 和 `dram-utilization`、agentic 配置使用 `cluster:<name>` "
            "runner、`router` 与 `kv-p2p-transfer` 只在一处声明、`disagg: true` 需要 "
            "`kv-p2p-transfer`——整个文件都会被拒绝。因此一处错误会让所有扫描失败，而不仅是新增的点。"
            "schema 见 `schemas/master-config-entry.schema.json`（在模型接受明显错误值的地方略严格，"
            "例如空镜像或 `tp: 0`）。配置键本身不能含有 `*`（保留给 changelog 的通配），也不能与其他"
            "主配置文件中的键重复，因为这些文件会被合并。在 PR 中只检查新增或修改的条目。"
        ),
    ),
    variants={
        "custom": T(en="{text}", zh="{text}"),
        "not-mapping": T(
            en="Entry `{key}` is of type `{actual}`, not a mapping of fields",
            zh="条目 `{key}` 的类型是 `{actual}`，而不是字段映射",
        ),
        "missing": T(
            en="`{where}` lacks the required key `{name}`",
            zh="`{where}` 缺少必填键 `{name}`",
        ),
        "unknown": T(
            en="Unknown key `{name}` in `{where}`",
            zh="`{where}` 中有未知的键 `{name}`",
        ),
        "type": T(
            en="`{where}` must be of type `{expected}`, not `{actual}`",
            zh="`{where}` 的类型应为 `{expected}`，而不是 `{actual}`",
        ),
        "enum": T(
            en="`{where}` is `{value}`, not one of {allowed}",
            zh="`{where}` 的取值 `{value}` 不在 {allowed} 之中",
        ),
        "minimum": T(
            en="`{where}` is `{value}`, below the minimum `{limit}`",
            zh="`{where}` 为 `{value}`，低于下限 `{limit}`",
        ),
        "maximum": T(
            en="`{where}` is `{value}`, above the maximum `{limit}`",
            zh="`{where}` 为 `{value}`，高于上限 `{limit}`",
        ),
        "exclusive-minimum": T(
            en="`{where}` is `{value}`; it must be greater than `{limit}`",
            zh="`{where}` 为 `{value}`，应大于 `{limit}`",
        ),
        "empty-list": T(
            en="`{where}` is an empty list",
            zh="`{where}` 是空列表",
        ),
        "empty-string": T(
            en="`{where}` is an empty string",
            zh="`{where}` 是空字符串",
        ),
        "conc-range": T(
            en="`{where}` has `conc-start` {start} above `conc-end` {end}",
            zh="`{where}` 的 `conc-start` {start} 大于 `conc-end` {end}",
        ),
        "dcp": T(
            en="`{where}` has `tp` {tp}, which `dcp-size` {dcp} does not divide",
            zh="`{where}` 的 `tp` 为 {tp}，不能被 `dcp-size` {dcp} 整除",
        ),
        "wildcard-key": T(
            en="Config key `{key}` contains `*`, which is reserved for changelog globs",
            zh="配置键 `{key}` 含有 `*`，而 `*` 保留给 changelog 的通配符",
        ),
        "duplicate-key": T(
            en="Config key `{key}` is also defined in `{other}`",
            zh="配置键 `{key}` 也定义在 `{other}` 中",
        ),
    },
    variant_fixes={
        "missing": T(en="Add `{name}:` to `{where}`", zh="在 `{where}` 中添加 `{name}:`"),
        "unknown": T(
            en="Remove `{name}` or rename it to one of {allowed}",
            zh="删除 `{name}`，或将其改名为 {allowed} 之一",
        ),
        "enum": T(en="Use one of {allowed}", zh="改用 {allowed} 之一"),
        "conc-range": T(
            en="Swap the two values, or list the points in `conc-list`",
            zh="交换这两个值，或改用 `conc-list` 列出各点",
        ),
        "dcp": T(
            en="Use a `dcp-size` that divides `tp` {tp}",
            zh="改用能整除 `tp` {tp} 的 `dcp-size`",
        ),
        "wildcard-key": T(en="Remove `*` from the config key", zh="从配置键中删除 `*`"),
        "duplicate-key": T(
            en="Give the entry a key of its own, or remove the copy from `{other}`",
            zh="为该条目使用独立的键，或删除 `{other}` 中的副本",
        ),
    },
    bad=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_BASE
            + """
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
    - trace-source: semianalysis/agentx-coding-v2  # [CFG001]
      search-space:
      - { tp: 4, spec-decoding: mtp, kv-offloading: dram, conc-list: [8, 16, 32] }  # [CFG001]
      - { tp: 8, spec-decoding: eagle3, kv-offloading: none, conc-list: [1, 4] }  # [CFG001]
""",
            base={"configs/nvidia-master.yaml": _BASE},
            note=(
                "`trace-source` from CONFIGS.md's example is rejected by the models; DRAM offload "
                "without a backend (and without `dram-utilization`); a spec method where the "
                "field takes `mtp`, `draft_model` or `none`"
            ),
        ),
        Example(
            path="configs/amd-master.yaml",
            text="""\
dsv4-fp4-mi355x-sglang:  # [CFG001]
  image: lmsysorg/sglang:v0.5.15-rocm720-mi35x
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: mi355x
  precision: fp4
  framework: sglang
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, dp-attn: true, conc-start: 256, conc-end: 64 }  # [CFG001]
      - { tp: 8, dcp-size: 3, conc-list: [4, 8, 16] }  # [CFG001]
""",
            note=(
                "no `multinode` (reported at the entry), a reversed concurrency range, and a "
                "decode context-parallel size that does not divide `tp`; without a base every "
                "entry is checked"
            ),
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_BASE
            + """
minimaxm3-fp4-gb200-dynamo-vllm-agentic-disagg-mtp:
  image: vllm/vllm-openai:v0.27.1
  model: nvidia/MiniMax-M3-NVFP4
  model-prefix: minimaxm3
  runner: gb200-nv  # [CFG001]
  precision: fp4
  framework: dynamo-vllm
  router: { name: dynamo-router, version: "image:nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0" }  # [CFG001]
  multinode: true
  disagg: true
  scenarios:
    agentic-coding:
    - search-space:
      - spec-decoding: mtp
        kv-offloading: none
        conc-list: [16, 32]
        prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: false }
        decode: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
        kv-p2p-transfer: nixl
      - spec-decoding: mtp  # [CFG001]
        kv-offloading: none
        conc-list: [64]
        prefill: { num-worker: 2, tp: 4, ep: 4, dp-attn: false }
        decode: { num-worker: 1, tp: 8, ep: 8, dp-attn: true }
""",
            base={"configs/nvidia-master.yaml": _BASE},
            note=(
                "an agentic config on a broad runner label, a router version copied from the "
                "image, and a disaggregated point without `kv-p2p-transfer`"
            ),
        ),
    ),
    good=(
        Example(
            path="configs/nvidia-master.yaml",
            text=_BASE
            + """
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
    - dram-utilization: 0.8
      search-space:
      - { tp: 4, spec-decoding: mtp, kv-offloading: dram, kv-offload-backend: { name: vllm-simple }, conc-list: [8, 16, 32] }
      - { tp: 8, spec-decoding: mtp, kv-offloading: none, conc-start: 1, conc-end: 4 }
""",
            base={"configs/nvidia-master.yaml": _BASE},
        ),
        Example(
            path="configs/nvidia-master.yaml",
            text=_BASE
            + """
dsv4-fp4-gb300-dynamo-trt-agentic-disagg-mtp:
  image: nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:1.3.0-deepseek-v4-dev.1
  model: nvidia/DeepSeek-V4-Pro-NVFP4
  model-prefix: dsv4
  runner: cluster:gb300-nv
  precision: fp4
  framework: dynamo-trt
  router: { name: dynamo-router, version: "1.3.0" }
  kv-p2p-transfer: nixl
  multinode: true
  disagg: true
  scenarios:
    agentic-coding:
    - dram-utilization: 0.5
      search-space:
      - spec-decoding: mtp
        kv-offloading: dram
        kv-offload-backend: { name: native }
        conc-list: [32, 64]
        prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: true, dcp-size: 2, hardware: gb300 }
        decode: { num-worker: 2, tp: 8, ep: 8, dp-attn: true, hardware: gb300 }
""",
            base={"configs/nvidia-master.yaml": _BASE},
            note="a disaggregated agentic entry: transfer declared once at the top level, hardware on both workers",
        ),
    ),
)


@cache
def _inlined() -> Any:
    """The schema with each `$ref` resolved once here, not on every instance (it is
    not recursive): validating the real tree is about 40% faster."""
    schema = load_schema(SCHEMA_NAME)
    return _inline(schema, schema.get("$defs", {}))


@cache
def _quick() -> QuickSchema:
    return QuickSchema(_inlined())


def _errors(data: Any) -> Iterator[jsonschema.ValidationError]:
    """jsonschema's errors for an entry; none, without loading jsonschema, for an entry
    the quick check finds valid (nearly every entry a pull request adds)."""
    if _quick().valid(data) is True:
        return iter(())
    return _schema().iter_errors(data)


@cache
def _schema() -> jsonschema.protocols.Validator:
    import jsonschema  # on first use: an entry the quick check finds valid never loads it

    inlined = _inlined()
    if _refers(inlined, root=True):
        return jsonschema.Draft202012Validator(inlined)
    fast: jsonschema.protocols.Validator = _reference_free_validator()(inlined)
    return fast


def _refers(node: Any, root: bool = False) -> bool:
    """Whether a subschema holds anything that resolves references (`$ref`, an `$id`
    below the root, `$dynamicRef`, `$anchor`...)."""
    if isinstance(node, list):
        return any(_refers(item) for item in node)
    if not isinstance(node, dict):
        return False
    if any(k.startswith("$") and k not in _INERT for k in node) and not (
        root and all(k in (*_INERT, "$id", "$schema") for k in node if k.startswith("$"))
    ):
        return True
    return any(_refers(v) for v in node.values())


_INERT = ("$comment",)


def _reference_free_validator() -> Any:
    """Draft 2020-12, for a schema no part of which resolves a reference: each
    subschema's validator is made once, not once per value it checks.

    jsonschema's `descend` makes, for every subschema it enters, a resolver for it
    and a new validator (about a third of validating the real tree); without a
    reference the resolver is never read, so the parent's serves and each
    subschema's validator is kept. An unregistered copy of the class holds the
    change (`validator_for` still answers the stock one)."""
    import jsonschema

    extend: Any = jsonschema.validators.extend  # untyped in jsonschema
    cls: Any = extend(jsonschema.Draft202012Validator)
    plain_descend, plain_evolve = cls.descend, cls.evolve
    made: dict[int, Any] = {}

    def descend(
        self: Any,
        instance: Any,
        schema: Any,
        path: Any = None,
        schema_path: Any = None,
        resolver: Any = None,
    ) -> Any:
        return plain_descend(
            self,
            instance,
            schema,
            path,
            schema_path,
            self._resolver if resolver is None else resolver,
        )

    def evolve(self: Any, **changes: Any) -> Any:
        schema = changes.get("schema")
        if changes.keys() != {"schema", "_resolver"} or not isinstance(schema, dict):
            return plain_evolve(self, **changes)
        hit = made.get(id(schema))
        if hit is None or hit.schema is not schema:
            hit = made[id(schema)] = plain_evolve(self, **changes)
        return hit

    cls.descend, cls.evolve = descend, evolve
    return cls


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k not in ("$ref", "$defs")}
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        if isinstance(ref, str):
            out["$ref"] = ref
        return out
    target = _inline(defs[ref.removeprefix("#/$defs/")], defs)
    if not out:
        return target
    out["allOf"] = [*out.get("allOf", []), target]
    return out


def check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    changed = _schema_code_changed(ctx)
    for finding in _check(master, ctx):
        if not changed:
            yield finding
            continue
        # judged by the base's schema while the PR changes the repository's own:
        # say so and leave it to a human
        names = ", ".join(f"`{p}`" for p in changed)
        yield replace(
            finding,
            severity=WARNING,
            message=T(
                en=f"{finding.message.en}; this PR changes the schema code ({names}), so a "
                "human must check the entry against the new schema",
                zh=f"{finding.message.zh}；本 PR 修改了 schema 代码（{names}），需人工按新 schema 核对该条目",
            ),
        )


# the repository's own master-config validator, read statically, and the model of an entry by kind
Repository = tuple[ModelTable, Mapping[str, str]]


def _validator(ctx: RuleContext) -> Repository | None:
    """The linted tree's own master-config validator, read statically, and the
    model of an entry by kind (`knowledge.master_config_validator`)."""
    spec = ctx.knowledge.section("master_config_validator") or {}
    path, roots = spec.get("path"), spec.get("entry_models") or {}
    if not isinstance(path, str) or not isinstance(roots, Mapping):
        return None
    table = ctx.parsed("pydantic_models", path)
    if not isinstance(table, ModelTable) or not table.ok:
        return None
    return table, {str(k): str(v) for k, v in roots.items()}


def _schema_code_changed(ctx: RuleContext) -> list[str]:
    """The repository's own master-config schema code this PR changes."""
    if ctx.base is None:
        return []
    paths = ctx.knowledge.master_config_schema_code
    return [p for p in paths if ctx.text(p, ctx.base) != ctx.text(p)]


def _check(master: MasterConfig, ctx: RuleContext) -> Iterator[Finding]:
    base = base_master_configs(ctx)
    changes: list[tuple[MasterEntry, str, bool, MasterEntry | None]]
    if base is None:
        changes = [(e, e.key, False, None) for e in master.entries.values()]
    else:
        changes = [
            (c.entry, c.renamed_from or c.entry.key, not c.is_new, c.before)
            for c in entry_changes(master, base)
        ]
    if not changes:
        return
    others = [p for p in master_config_paths(ctx) if p != master.path]
    read: list[Repository | None] = []

    def repository() -> Repository | None:  # the repository's own models, read once needed
        if not read:
            read.append(_validator(ctx))
        return read[0]

    for entry, item, was, before in changes:
        # a scenario the PR adds to an entry is a new place, judged like a new entry:
        # only what the entry breaks without it was there before
        kept = _kept(master, entry, before, repository) if was else None

        def prior(constraint: str, was: bool = was, kept: set[str] | None = kept) -> bool:
            return was and (kept is None or constraint in kept)

        if "*" in entry.key:
            yield _hit(master, entry, "wildcard-key", entry.start_line, ())
        for path in others:
            # a file whose text cannot name the key is not parsed for it
            if not may_hold(ctx, path, entry.key):
                continue
            other = ctx.parsed("master_config", path)
            if other is not None and entry.key in other.entries:
                yield _hit(master, entry, "duplicate-key", entry.start_line, (), other=path)
                break
        seen: set[tuple[int, str]] = set()
        kinds: set[tuple[tuple[Hashable, ...], str]] = set()
        for error in _errors(entry.data):
            # one schema branch may restate another's type or value check on the same field
            kind = (tuple(error.absolute_path), str(error.validator))
            if kind[1] in ("type", "enum", "const") and kind in kinds:
                continue
            kinds.add(kind)
            for p in problems(error):
                if _declared(repository(), entry.data, p):
                    continue  # the repository's own models declare it
                finding = _finding(master, entry, p)
                mark = (finding.span.line, finding.message.en)
                if mark not in seen:
                    seen.add(mark)
                    c = _constraint(p)
                    # the schema holds where the base has master configs of its own: the PR
                    # that creates them (InferenceX #145) brings the shape they take
                    yield replace(
                        finding, ratchet=Ratchet(c, item, prior(c)), practice=SCHEMA_PRACTICE
                    )
        for finding in _relational(master, entry, entry.data, ()):
            c = finding.subject.split(" ", 1)[0]
            yield replace(finding, ratchet=Ratchet(c, item, prior(c)))


# `knowledge.practices.master-config-schema`
SCHEMA_PRACTICE = "master-config-schema"


def _scenarios(data: object) -> set[str]:
    scenarios = data.get("scenarios") if isinstance(data, dict) else None
    return {str(k) for k in scenarios} if isinstance(scenarios, dict) else set()


def _kept(
    master: MasterConfig,
    entry: MasterEntry,
    before: MasterEntry | None,
    repository: Callable[[], Repository | None],
) -> set[str] | None:
    """The constraints `entry` breaks without the scenarios the PR adds to it (None
    when it adds none: every constraint it breaks is the entry's own)."""
    if before is None or not isinstance(entry.data, dict):
        return None
    old = _scenarios(before.data)
    if not _scenarios(entry.data) - old:
        return None
    scenarios = entry.data["scenarios"]
    data = {**entry.data, "scenarios": {k: v for k, v in scenarios.items() if str(k) in old}}
    out: set[str] = set()
    for error in _errors(data):
        for p in problems(error):
            if _declared(repository(), data, p):
                continue
            out.add(_constraint(p))
    out.update(f.subject.split(" ", 1)[0] for f in _relational(master, entry, data, ()))
    return out


def _declared(repository: Repository | None, data: Any, p: SchemaProblem) -> bool:
    """Whether the repository's own model of this kind of entry declares what `p` says
    the schema lacks."""
    if repository is None:
        return False
    multi = isinstance(data, dict) and data.get("multinode") is True
    root = repository[1].get("multi" if multi else "single")
    return root is not None and bool(root) and declares(repository[0], root, p)


def _constraint(p: SchemaProblem) -> str:
    """The requirement a problem breaks, with the kind of place it applies to: the
    failing keyword's path through the schema (which names the kind of entry and
    the field) and, for a key, its name."""
    where = "/".join(str(step) for step in p.schema_path)
    return f"{where}:{p.name}" if p.name is not None else where


def _where(entry: MasterEntry, path: Sequence[Hashable]) -> str:
    out = entry.key if not path else ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def _hit(
    master: MasterConfig,
    entry: MasterEntry,
    variant: str | None,
    line: int,
    path: Sequence[Hashable],
    **params: Any,
) -> Finding:
    where = _where(entry, path)
    subject = f"{variant or 'schema'} {entry.key} {where} {params.get('name', '')}"
    return RULE.hit(
        master.path,
        Span(line),
        subject,
        variant=variant,
        key=entry.key,
        where=where,
        **params,
    )


def _finding(master: MasterConfig, entry: MasterEntry, p: SchemaProblem) -> Finding:
    """One problem in this record's words, on the entry's line."""
    path = list(p.path)
    line = entry.line_at(path)
    if p.kind == "missing":
        if p.custom:
            return _custom(master, entry, p.custom, line, path, name=p.name)
        return _hit(master, entry, "missing", line, path, name=p.name)
    if p.custom:
        return _custom(master, entry, p.custom, line, path, value=show(p.value))
    if p.kind == "not-mapping":
        return _hit(master, entry, "not-mapping", entry.start_line, path, actual=p.actual)
    if p.kind == "unknown":
        return _hit(
            master,
            entry,
            "unknown",
            entry.line_at([*path, p.name]),
            path,
            name=p.name,
            allowed=backticked(p.allowed),
        )
    if p.kind == "type":
        expected = types_text(p.expected)
        return _hit(master, entry, "type", line, path, expected=expected, actual=p.actual)
    if p.kind == "enum":
        allowed = backticked(show(v) for v in p.allowed)
        return _hit(master, entry, "enum", line, path, value=show(p.value), allowed=allowed)
    if p.kind in ("minimum", "maximum", "exclusive-minimum"):
        return _hit(master, entry, p.kind, line, path, value=show(p.value), limit=p.limit)
    if p.kind in ("empty-list", "empty-string"):
        return _hit(master, entry, p.kind, line, path)
    return _hit(master, entry, None, line, path, detail=p.detail[:200])


def _custom(
    master: MasterConfig,
    entry: MasterEntry,
    texts: Any,
    line: int,
    path: Sequence[Hashable],
    **params: Any,
) -> Finding:
    where = _where(entry, path)
    filled = T(en=str(texts.get("en", "")), zh=str(texts.get("zh", ""))).format(
        {"where": where, **params}
    )
    return _hit(master, entry, "custom", line, path, text=filled, **params)


def _relational(
    master: MasterConfig, entry: MasterEntry, node: Any, path: tuple[Hashable, ...]
) -> Iterator[Finding]:
    """Cross-field rules of validation.py that JSON Schema cannot state."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _relational(master, entry, item, (*path, i))
        return
    if not isinstance(node, dict):
        return
    start, end = node.get("conc-start"), node.get("conc-end")
    if _is_int(start) and _is_int(end) and start > end:
        line = entry.line_at([*path, "conc-start"])
        yield _hit(master, entry, "conc-range", line, path, start=start, end=end)
    tp, dcp = node.get("tp"), node.get("dcp-size", 1)
    if _is_int(tp) and _is_int(dcp) and dcp > 0 and tp % dcp:
        line = entry.line_at([*path, "dcp-size"])
        yield _hit(master, entry, "dcp", line, path, tp=tp, dcp=dcp)
    for key, value in node.items():
        if isinstance(value, (dict, list)):
            yield from _relational(master, entry, value, (*path, key))


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
