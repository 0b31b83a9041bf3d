"""CFG002: a master-config entry is added or changed without a changelog entry naming it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from bot.base.records import dataclass
from bot.core.changeset import ChangeSet
from bot.core.context import RuleContext
from bot.core.model import (
    DISPLAY_ONLY,
    ERROR,
    WARNING,
    Applicability,
    Condition,
    Example,
    Finding,
    Rule,
    Span,
    T,
)
from bot.core.tree import glob_match
from bot.parse.changelog import Changelog, Entry
from bot.parse.changelog_diff import config_keys, diff_changelogs, readable, wildcard_match
from bot.parse.master_config import MasterEntry
from bot.parse.master_diff import entry_diff
from bot.parse.master_sets import moved_master_configs

DEFAULT_PREFIX = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
# the scenario types the sweep knows (`utils/process_changelog.py`: SCENARIO_TYPES)
SCENARIO_TYPES = ("fixed-seq-len", "agentic-coding")

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]*")

_H100 = """\
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
"""

_H100_MTP = """
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

_DSV4 = """
dsv4-fp4-b200-sglang:
  image: lmsysorg/sglang:v0.5.16-cu130
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: b200
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 8, dp-attn: true, conc-list: [64, 128, 256] }
    agentic-coding:
    - search-space:
      - { tp: 8, ep: 8, dp-attn: true, kv-offloading: none, conc-list: [8, 16, 32] }
"""

_CHANGELOG = """\
- config-keys:
    - minimaxm3-fp8-h100-vllm-agentic
  scenario-type:
    - agentic-coding
  description:
    - "Add MiniMax-M3 MXFP8 AgentX on H100 with vLLM v0.27.1 and Mooncake DRAM offload"
  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2412
"""


def _entry(keys: list[str], desc: str, pr: int, scenario: str | None = "agentic-coding") -> str:
    text = "\n- config-keys:\n" + "".join(f"    - {k}\n" for k in keys)
    if scenario:
        text += f"  scenario-type:\n    - {scenario}\n"
    return text + f'  description:\n    - "{desc}"\n  pr-link: {DEFAULT_PREFIX}{pr}\n'


def _marked(text: str, key: str) -> str:
    return text.replace(f"\n{key}:\n", f"\n{key}:  # [CFG002]\n", 1)


_MASTER = "configs/nvidia-master.yaml"
_LOG = "perf-changelog.yaml"

RULE = Rule(
    id="CFG002",
    slug="master-config-change-without-changelog-entry",
    severity=ERROR,
    target="change",
    title=T(
        en="Master-config change without a changelog entry",
        zh="主配置变更缺少 changelog 条目",
    ),
    message=T(
        en="`{key}` changed, but no new `perf-changelog.yaml` entry names it",
        zh="`{key}` 已修改，但没有新的 `perf-changelog.yaml` 条目引用它",
    ),
    fix=T(
        en="Append a `perf-changelog.yaml` entry whose `config-keys` name {keys}",
        zh="在 `perf-changelog.yaml` 末尾追加一个条目，其 `config-keys` 包含 {keys}",
    ),
    applicability=Applicability(
        DISPLAY_ONLY,
        T(
            en=(
                "The proposed entry belongs in another file (`perf-changelog.yaml`), its "
                "description is generated from the fields that changed and needs the author's"
                " words, and a new entry schedules benchmark runs for its config keys: it is "
                "shown in reviews and reports, never applied."
            ),
            zh=(
                "建议的条目属于另一个文件（`perf-changelog.yaml`），"
                "其描述由变更的字段生成、需要作者自己撰写，而且新条目会为其配置键安排基准运行："
                "因此只在评审与报告中展示，从不自动应用。"
            ),
        ),
    ),
    rationale=T(
        en=(
            "A master-config entry is inert until a changelog entry selects it: the sweep "
            "runs only for the `config-keys` of entries a pull request appends to "
            "`perf-changelog.yaml` (`docs/architecture.md`), and `run-sweep.yml` does not "
            "even start when the changelog is untouched. A new or edited config without its "
            "entry is merged unbenchmarked, and the published results silently stop "
            "matching the config that claims to produce them (`AGENTS.md`: every change "
            "that can affect benchmark performance needs a new changelog entry). A key is "
            "covered by a new entry that names it or matches it with a `*` wildcard; when "
            "that entry restricts `scenario-type`, it covers only those scenarios. Removing "
            "an entry, a scenario or points (search-space entries, `conc-list` values) needs "
            "no changelog entry, since the sweep cannot select what no longer exists, and "
            "neither do comment or formatting changes that leave every value the same. A "
            "change of fields that cannot affect results (metadata such as a worker's "
            "`hardware` or a `router` version; the fields that can are "
            "`knowledge.changelog_coverage.benchmark_fields`, which a repository may "
            "override) is one warning for the whole pull request: a backfill of every entry "
            "is one decision, not one defect per entry. An `evals-only` entry counts as "
            "covering its keys."
        ),
        zh=(
            "主配置条目只有在 changelog 条目选中它时才会生效：扫描只针对 PR 追加到 "
            "`perf-changelog.yaml` 的条目的 `config-keys` 运行（`docs/architecture.md`），"
            "changelog 未改动时 `run-sweep.yml` 根本不会启动。没有对应条目的新增或修改配置会"
            "在未测试的情况下合并，已发布的结果也会悄然与声称产生它们的配置不再一致"
            "（`AGENTS.md`：任何可能影响基准性能的变更都需要新的 changelog 条目）。新条目直接"
            "写出某个键，或用 `*` 通配符匹配它，即视为覆盖该键；若该条目限定了 "
            "`scenario-type`，则只覆盖这些场景。删除条目、场景或测试点（search-space 条目、"
            "`conc-list` 中的值）不需要 changelog 条目，因为扫描无法选中已不存在的内容；只改注释"
            "或格式、所有取值不变的修改也不需要。只修改不影响结果的字段（元数据，例如 worker 的 "
            "`hardware` 或 `router` 版本；影响结果的字段见 "
            "`knowledge.changelog_coverage.benchmark_fields`，仓库可覆盖）时，整个 PR 只报告一条"
            "警告：为所有条目回填字段是一个决定，而不是每个条目一个缺陷。"
            "`evals-only` 条目同样视为覆盖其键。"
        ),
    ),
    conditions={
        "metadata-only": Condition(
            WARNING,
            T(
                en="the changed entries change only fields that do not affect benchmark results (`knowledge.changelog_coverage.benchmark_fields` lists those that do)",
                zh="改动的条目只修改了不影响基准结果的字段（影响结果的字段见 `knowledge.changelog_coverage.benchmark_fields`）",
            ),
        ),
    },
    variants={
        "metadata": T(
            en="No new `perf-changelog.yaml` entry names {keys}{more}, whose changes touch only fields that do not affect benchmark results ({fields})",
            zh="没有新的 `perf-changelog.yaml` 条目引用 {keys}{more}；这些修改只涉及不影响基准结果的字段（{fields}）",
        ),
        "added": T(
            en="New config `{key}` has no new `perf-changelog.yaml` entry naming it",
            zh="新配置 `{key}` 没有新的 `perf-changelog.yaml` 条目引用它",
        ),
        "scenario": T(
            en="`{key}` changes scenario {scenarios}, but the new changelog entries naming it are limited to {scope}",
            zh="`{key}` 修改了场景 {scenarios}，但引用它的新 changelog 条目只限于 {scope}",
        ),
    },
    variant_fixes={
        "metadata": T(
            en="If the change can affect benchmark results, append a `perf-changelog.yaml` entry naming {keys}",
            zh="如果该修改可能影响基准结果，请在 `perf-changelog.yaml` 末尾追加引用 {keys} 的条目",
        ),
        "scenario": T(
            en="Add {scenarios} to the entry's `scenario-type`, or drop `scenario-type`",
            zh="把 {scenarios} 加入该条目的 `scenario-type`，或删除 `scenario-type`",
        ),
    },
    bad=(
        Example(
            path=_MASTER,
            text=_marked(_H100 + _H100_MTP, "minimaxm3-fp8-h100-vllm-agentic-mtp"),
            pr=2423,
            base={_MASTER: _H100, _LOG: _CHANGELOG},
            files={_LOG: _CHANGELOG},
            note="the seed case's config pushed without its changelog entry",
        ),
        Example(
            path=_MASTER,
            text=_H100
            + _marked(_DSV4, "dsv4-fp4-b200-sglang").replace("v0.5.16-cu130", "v0.5.17-cu130"),
            pr=2440,
            base={_MASTER: _H100 + _DSV4, _LOG: _CHANGELOG},
            files={
                _LOG: _CHANGELOG
                + _entry(["minimaxm3-fp8-h100-vllm-agentic"], "Rerun on the new cluster", 2440)
            },
            note="an image bump, while the changelog entry names another config",
        ),
        Example(
            path=_MASTER,
            text=_H100
            + _marked(_DSV4, "dsv4-fp4-b200-sglang").replace(
                "conc-list: [64, 128, 256]", "conc-list: [64, 128, 256, 512]"
            ),
            pr=2441,
            base={_MASTER: _H100 + _DSV4, _LOG: _CHANGELOG},
            files={
                _LOG: _CHANGELOG
                + _entry(["dsv4-fp4-b200-sglang"], "Add concurrency 512 to the 8k1k DEP8 arm", 2441)
            },
            note="the fixed-seq-len search space changed; the entry only reruns agentic-coding",
        ),
        Example(
            path=_MASTER,
            text=_H100.replace(
                "  framework: vllm\n",
                '  framework: vllm\n  router: { name: vllm-router, version: "0.2.1" }\n',
            ).replace(
                "minimaxm3-fp8-h100-vllm-agentic:\n",
                "minimaxm3-fp8-h100-vllm-agentic:  # [CFG002]\n",
            )
            + _DSV4.replace(
                "  framework: sglang\n",
                '  framework: sglang\n  router: { name: sglang-router, version: "0.3.0" }\n',
            ),
            pr=2445,
            base={_MASTER: _H100 + _DSV4, _LOG: _CHANGELOG},
            files={_LOG: _CHANGELOG},
            note=(
                "router metadata backfilled into every entry: one warning for the PR, on the "
                "first entry, since no value the sweep runs with changed"
            ),
        ),
    ),
    good=(
        Example(
            path=_MASTER,
            text=_H100 + _H100_MTP,
            pr=2423,
            base={_MASTER: _H100, _LOG: _CHANGELOG},
            files={
                _LOG: _CHANGELOG
                + _entry(
                    ["minimaxm3-fp8-h100-vllm-agentic-mtp"],
                    "Add the EAGLE3 MTP variant of the MiniMax-M3 MXFP8 H100 AgentX recipe",
                    2423,
                )
            },
        ),
        Example(
            path=_MASTER,
            text=(_H100 + _DSV4)
            .replace("v0.5.16-cu130", "v0.5.17-cu130")
            .replace("v0.27.1", "v0.27.2"),
            pr=2442,
            base={_MASTER: _H100 + _DSV4, _LOG: _CHANGELOG},
            files={
                _LOG: _CHANGELOG
                + _entry(
                    ["minimaxm3-fp8-*-vllm-agentic", "dsv4-fp4-b200-*"], "Bump images", 2442, None
                )
            },
            note="wildcards cover both keys; no `scenario-type` covers every scenario",
        ),
        Example(
            path=_MASTER,
            text=_H100,
            pr=2443,
            base={_MASTER: _H100 + _DSV4, _LOG: _CHANGELOG},
            files={_LOG: _CHANGELOG},
            note="a removed config needs no changelog entry",
        ),
        Example(
            path=_MASTER,
            text=_H100.replace(
                "  scenarios:\n", "  # resident KV only; Mooncake arm in a later PR\n  scenarios:\n"
            ),
            pr=2444,
            base={_MASTER: _H100, _LOG: _CHANGELOG},
            files={_LOG: _CHANGELOG},
            note="a comment changes no value",
        ),
        Example(
            path=_MASTER,
            text=_H100
            + _DSV4.replace("conc-list: [64, 128, 256]", "conc-list: [64, 128]").split(
                "    agentic-coding:\n"
            )[0],
            pr=2446,
            base={_MASTER: _H100 + _DSV4, _LOG: _CHANGELOG},
            files={_LOG: _CHANGELOG},
            note="points and a scenario removed: the sweep cannot select what is gone",
        ),
    ),
)


@dataclass(frozen=True)
class _Changed:
    path: str
    entry: MasterEntry
    before: MasterEntry | None
    # scenarios whose values changed; None when the whole entry did (new, or a top-level field)
    scenarios: frozenset[str] | None
    # the fields changed when none of them can affect benchmark results (metadata only)
    metadata: tuple[str, ...] = ()


def check(change: ChangeSet, ctx: RuleContext) -> Iterator[Finding]:
    config = ctx.config
    masters = [p for p in change.paths if _is_master(p, config.master_configs)]
    if not masters:
        return
    new = _new_entries(change, ctx)
    if new is None:
        return
    base = _base_entries(change, ctx, masters)
    if base is None:
        return
    changed = list(_changed(change, ctx, masters, base))
    if not changed:
        return
    exact, patterns = _selectors(new)
    missing: list[tuple[_Changed, str]] = []
    metadata: list[_Changed] = []
    for item in changed:
        scope = _scope(item.entry.key, exact, patterns)
        if scope is None:
            if item.metadata:
                metadata.append(item)
            else:
                missing.append((item, "added" if item.before is None else "changed"))
            continue
        need = item.scenarios if item.scenarios is not None else _scenarios(item.entry)
        outside = sorted(need - scope) if scope is not _ALL and not item.metadata else []
        if outside:
            yield RULE.hit(
                item.path,
                _span(item),
                f"scenario {item.entry.key} {' '.join(outside)}",
                practice=AGENTIC_PRACTICE if set(outside) <= AGENTIC else None,
                variant="scenario",
                key=item.entry.key,
                scenarios=_ticks(outside),
                scope=_ticks(sorted(scope)),
            )
    if metadata:
        # one warning for the whole change: metadata alone may need no entry
        first = metadata[0]
        fields = sorted({f for item in metadata for f in item.metadata})
        shown = [item.entry.key for item in metadata[:_SHOWN]]
        yield RULE.hit(
            first.path,
            _span(first),
            "metadata " + " ".join(item.entry.key for item in metadata),
            variant="metadata",
            condition="metadata-only",
            fields=_ticks(fields),
            keys=_ticks(shown),
            more=_more(len(metadata) - len(shown)),
        )
    if not missing:
        return
    prefix = ctx.pr_link_prefix(DEFAULT_PREFIX)
    pr = ctx.pr if ctx.pr is not None else change.pr
    proposal = _proposal([item for item, _ in missing], prefix, pr)
    keys = _ticks([item.entry.key for item, _ in missing])
    for item, status in missing:
        yield RULE.hit(
            item.path,
            _span(item),
            f"uncovered {item.entry.key}",
            practice=AGENTIC_PRACTICE if _agentic(item) else None,
            variant="added" if status == "added" else None,
            proposal=proposal,
            key=item.entry.key,
            keys=keys,
        )


_SHOWN = 5

# The agentic track's changes were merged without changelog entries (InferenceX #1201,
# #1393) until entries started naming `-agentic` config keys (#2109): a change to the
# agentic track alone needs an entry only where the base's changelog shows that practice
# (`knowledge.practices.agentic-changelog`)
AGENTIC_PRACTICE = "agentic-changelog"
AGENTIC = frozenset({"agentic-coding"})


def _agentic(item: _Changed) -> bool:
    """Whether the change touches the agentic track alone: an `-agentic` config, or only
    its agentic scenarios."""
    if "agentic" in item.entry.key:
        return True
    changed = item.scenarios if item.scenarios is not None else _declared(item.entry)
    return bool(changed) and changed <= AGENTIC


def _declared(entry: MasterEntry) -> frozenset[str]:
    found = _scenarios_of(entry.data)
    return frozenset(str(s) for s in found) if found else frozenset()


def _span(item: _Changed) -> Span:
    """The finding's place: the entry's key line; for an entry the base had, its whole
    value, so that a change anywhere in it puts the finding on what the PR changed (the
    gate blocks on it) while the report and an inline comment still name the key line."""
    if item.before is None:
        return Span(item.entry.start_line)
    return Span(item.entry.start_line, end_line=item.entry.end_line)


def _more(n: int) -> str:
    return f" (+{n})" if n > 0 else ""


def _is_master(path: str, patterns: tuple[str, ...]) -> bool:
    return any(glob_match(path, pat) for pat in patterns)


def _new_entries(change: ChangeSet, ctx: RuleContext) -> list[Entry] | None:
    """Changelog entries the change adds; None when the changelog cannot be judged."""
    path = ctx.config.changelog
    if change.file(path) is None:  # the changelog is untouched: nothing new, nothing to parse
        return [] if change.head.blob_id(path) is not None else None
    head: Changelog | None = ctx.parsed("changelog", path, tree=change.head)
    base: Changelog | None = ctx.parsed("changelog", path, tree=change.base)
    if head is None:
        return []  # the change deletes the changelog: CHL rules do not run; nothing is covered
    if not readable(head):
        return None  # CHL000 reports it
    if base is None:
        return list(head.entries)
    diff = diff_changelogs(base, head)
    return None if diff is None else list(diff.new)


def _base_entries(
    change: ChangeSet, ctx: RuleContext, masters: list[str]
) -> dict[str, MasterEntry] | None:
    """Entries of the changed master configs in the base, by key; None when one cannot be read.

    An entry moved from one master config to another changes both files, so
    the changed files are enough to tell a move from an addition; a master config
    moved to another place is read where the base keeps it.
    """
    out: dict[str, MasterEntry] = {}
    moved = moved_master_configs(ctx)
    for path in [*masters, *(moved[p] for p in masters if p in moved)]:
        cfg = ctx.parsed("master_config", path, tree=change.base)
        if cfg is None:
            continue  # a new master config file
        if cfg.problems:
            return None
        for key, entry in cfg.entries.items():
            out.setdefault(key, entry)
    return out


def _changed(
    change: ChangeSet, ctx: RuleContext, masters: list[str], base: Mapping[str, MasterEntry]
) -> Iterator[_Changed]:
    """Entries the change adds, or changes in a way the sweep can see. Removing points or
    scenarios is no change to announce; a change of metadata fields alone is marked."""
    spec = ctx.knowledge.section("changelog_coverage") or {}
    fields = [str(f) for f in spec.get("benchmark_fields") or ()]
    point_lists = [str(f) for f in spec.get("point_lists") or ()]
    renamed = {str(k): str(v) for k, v in (spec.get("renamed") or {}).items()}
    for path in masters:
        cfg = ctx.parsed("master_config", path, tree=change.head)
        if cfg is None or cfg.problems:
            continue  # deleted (nothing to cover) or unreadable (CFG000 reports it)
        tip = _tip_entries(ctx, path)
        for key, entry in cfg.entries.items():
            if key in tip and tip[key].data == entry.data:
                # what the base branch already has (main merged into the branch as one
                # commit, a branch built on a PR merged since): squash-merged onto the
                # tip, the entry does not change, so the change is not this PR's to announce
                continue
            before = base.get(key)
            if before is None:
                yield _Changed(path, entry, None, None)
                continue
            if before.data == entry.data:
                continue
            diffs = entry_diff(before.data, entry.data, fields, point_lists, renamed)
            bench = [d for d in diffs if d.kind == "benchmark"]
            if bench:
                if any(d.scenario is None for d in bench):
                    yield _Changed(path, entry, before, None)
                else:
                    scenarios = frozenset(str(d.scenario) for d in bench)
                    yield _Changed(path, entry, before, scenarios)
                continue
            meta = sorted({d.field or "" for d in diffs if d.kind == "metadata"} - {""})
            if meta:
                yield _Changed(path, entry, before, None, tuple(meta))


def _tip_entries(ctx: RuleContext, path: str) -> Mapping[str, MasterEntry]:
    """The entries of `path` on the base branch's tip, when it is ahead of the merge-base
    (`ctx.base_tip`); empty otherwise."""
    if ctx.base_tip is None:
        return {}
    cfg = ctx.parsed("master_config", path, tree=ctx.base_tip)
    return cfg.entries if cfg is not None and not cfg.problems else {}


def _scenarios_of(data: Any) -> dict[str, Any] | None:
    value = data.get("scenarios") if isinstance(data, dict) else None
    return value if isinstance(value, dict) else None


def _scenarios(entry: MasterEntry) -> frozenset[str]:
    found = _scenarios_of(entry.data)
    return frozenset(str(s) for s in found) if found else frozenset(SCENARIO_TYPES)


_ALL: frozenset[str] = frozenset({"*"})


def _selectors(
    new: list[Entry],
) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Plain keys and `*` patterns of the new entries, each with the scenarios it reruns."""
    exact: dict[str, frozenset[str]] = {}
    patterns: dict[str, frozenset[str]] = {}
    for entry in new:
        types = entry.get("scenario-type")
        scope = frozenset(str(t) for t in types) if isinstance(types, list) and types else _ALL
        for key in config_keys(entry):
            table = patterns if "*" in key else exact
            table[key] = _union(table.get(key), scope)
    return exact, patterns


def _union(a: frozenset[str] | None, b: frozenset[str]) -> frozenset[str]:
    if a is None:
        return b
    return _ALL if _ALL in (a, b) else a | b


def _scope(
    key: str, exact: dict[str, frozenset[str]], patterns: dict[str, frozenset[str]]
) -> frozenset[str] | None:
    """The scenarios the new entries rerun for `key`; None when no entry names it."""
    scope = exact.get(key)
    for pattern, types in patterns.items():
        if scope is _ALL:
            break
        if wildcard_match(pattern, key):
            scope = _union(scope, types)
    return scope


def _ticks(items: list[str]) -> str:
    return ", ".join(f"`{x}`" for x in items)


def _scalar(text: str) -> str:
    return text if _PLAIN.fullmatch(text) else json.dumps(text, ensure_ascii=False)


def _proposal(items: list[_Changed], prefix: str, pr: int | None) -> str:
    """The changelog entry to append for `items`, in the file's own layout."""
    lines = ["- config-keys:", *(f"    - {_scalar(i.entry.key)}" for i in items)]
    scenarios: set[str] = set()
    for item in items:
        scenarios |= item.scenarios if item.scenarios is not None else _scenarios(item.entry)
    if scenarios and scenarios < set(SCENARIO_TYPES):
        lines += ["  scenario-type:", *(f"    - {s}" for s in sorted(scenarios))]
    lines.append("  description:")
    lines += [f"    - {json.dumps(_describe(i), ensure_ascii=False)}" for i in items]
    lines.append(f"  pr-link: {prefix}{pr if pr is not None else 'XXX'}")
    return "\n".join(lines)


def _describe(item: _Changed) -> str:
    key = item.entry.key
    if item.before is None:
        return f"Add {key}"
    if item.scenarios is not None:
        return f"Update the {', '.join(sorted(item.scenarios))} scenario of {key}"
    old, new = item.before.data, item.entry.data
    if not isinstance(old, dict) or not isinstance(new, dict):
        return f"Update {key}"
    fields = [str(k) for k in [*new, *(k for k in old if k not in new)] if old.get(k) != new.get(k)]
    shown = ", ".join(fields[:4]) + (" and more" if len(fields) > 4 else "")
    return f"Update {shown} of {key}"
