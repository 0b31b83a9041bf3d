"""Which master-config points run which multi-node recipe, and how. Pure.

A multi-node point in `configs/*-master.yaml` names the recipe it runs in
its `additional-settings` (`CONFIG_FILE=recipes/vllm/...yaml`, and for an
eval twin `EVAL_CONFIG_FILE=...`) next to launch data the runner applies to
that recipe: `SYNTHETIC_ACCEPTANCE=true` makes the runner inject synthetic
acceptance into the throughput run (`runners/inject_synthetic_acceptance.py`,
a no-op under `EVAL_ONLY`), `SYNTHETIC_ACCEPTANCE_LENGTH` sets its AL. This
joins each recipe path to those points, with the line of each setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from bot.base.records import dataclass
from bot.parse.context import ParseContext
from bot.parse.master_config import MasterConfig, MasterEntry
from bot.parse.master_sets import head_master_configs

# where `CONFIG_FILE=recipes/<x>` lives in the repository (srt-slurm's
# `recipes/` is copied from this directory by the runners)
RECIPE_ROOTS = ("benchmarks/multi_node/srt-slurm-recipes/", "")


@dataclass(frozen=True)
class MasterLaunch:
    """One search-space point of a master-config entry that runs a recipe."""

    config: str  # master-config path
    key: str  # config key
    scenario: str  # "agentic-coding" | "fixed-seq-len" | ...
    # "throughput" (CONFIG_FILE) | "eval" (EVAL_CONFIG_FILE, or CONFIG_FILE reused)
    role: str
    line: int  # the line of the CONFIG_FILE setting
    spec_decoding: str | None
    # every `NAME=value` of the point's additional-settings -> (value, line)
    settings: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    # an eval run of a point with no EVAL_CONFIG_FILE: the runner reuses CONFIG_FILE
    reused: bool = False
    max_conc: int | None = None  # the point's highest concurrency

    @property
    def injects_acceptance(self) -> bool:
        value = self.settings.get("SYNTHETIC_ACCEPTANCE", ("", 0))[0]
        return self.role == "throughput" and value.strip().lower() == "true"


def _points(node: Any, path: tuple[Any, ...], scenario: str | None, out: list[Any]) -> None:
    if isinstance(node, dict):
        if "search-space" in node and isinstance(node["search-space"], list):
            seq = (node.get("isl"), node.get("osl"))
            for i, point in enumerate(node["search-space"]):
                out.append((point, (*path, "search-space", i), scenario, seq))
            return
        for k, v in node.items():
            _points(
                v, (*path, k), scenario or (k if path and path[-1] == "scenarios" else None), out
            )
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _points(v, (*path, i), scenario, out)


def _settings(node: Any, path: tuple[Any, ...], out: list[tuple[str, tuple[Any, ...]]]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "additional-settings" and isinstance(v, list):
                for i, item in enumerate(v):
                    if isinstance(item, str):
                        out.append((item, (*path, k, i)))
            else:
                _settings(v, (*path, k), out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _settings(v, (*path, i), out)


def _max_conc(point: Any) -> int | None:
    if not isinstance(point, dict):
        return None
    values: list[Any] = []
    if isinstance(point.get("conc-list"), list):
        values.extend(point["conc-list"])
    values.extend(point.get(k) for k in ("conc-start", "conc-end"))
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    return max(ints) if ints else None


def entry_launches(
    cfg: MasterConfig, entry: MasterEntry, evals: Mapping[str, Any] | None = None
) -> list[tuple[str, MasterLaunch]]:
    """(recipe path as written, launch) for every point of `entry` naming a recipe.

    `evals` (knowledge `master_launch`): when `eval_falls_back_to_config_file`,
    the runners run CONFIG_FILE for EVAL_ONLY if the point has no
    EVAL_CONFIG_FILE (InferenceX `runners/launch_*.sh`), so that file is also run
    as an eval (role "eval", `reused`), on the points the sweep generator picks
    for evals: a concurrency of at least `min_eval_conc`, and for fixed-seq-len
    the `eval_seq_len` only."""
    evals = evals or {}
    found: list[Any] = []
    _points(entry.data, (), None, found)
    out: list[tuple[str, MasterLaunch]] = []
    for point, path, scenario, seq in found:
        items: list[tuple[str, tuple[Any, ...]]] = []
        _settings(point, path, items)
        settings: dict[str, tuple[str, int]] = {}
        for text, ipath in items:
            name, sep, value = text.partition("=")
            if sep:
                settings.setdefault(name.strip(), (value.strip(), entry.line_at(ipath)))
        spec = point.get("spec-decoding") if isinstance(point, dict) else None
        runs: list[tuple[str, str, dict[str, Any]]] = [
            (name, role, {})
            for name, role in (("CONFIG_FILE", "throughput"), ("EVAL_CONFIG_FILE", "eval"))
            if name in settings
        ]
        if (
            evals.get("eval_falls_back_to_config_file")
            and "CONFIG_FILE" in settings
            and "EVAL_CONFIG_FILE" not in settings
            and _eval_eligible(point, scenario or "", seq, evals)
        ):
            runs.append(("CONFIG_FILE", "eval", {"reused": True, "max_conc": _max_conc(point)}))
        for name, role, extra in runs:
            value, line = settings[name]
            launch = MasterLaunch(
                cfg.path,
                entry.key,
                scenario or "",
                role,
                line,
                str(spec) if spec is not None else None,
                settings,
                **extra,
            )
            out.append((value.split(":", 1)[0], launch))
    return out


def _eval_eligible(
    point: Any, scenario: str, seq: tuple[Any, Any], evals: Mapping[str, Any]
) -> bool:
    floor = evals.get("min_eval_conc")
    top = _max_conc(point)
    if isinstance(floor, int) and (top is None or top < floor):
        return False
    want = evals.get("eval_seq_len")
    if scenario == "fixed-seq-len" and isinstance(want, dict):
        return seq == (want.get("isl"), want.get("osl"))
    return True


def recipe_path(written: str, exists: Any) -> str | None:
    """The repository path of `CONFIG_FILE=<written>`, when the tree has it."""
    for root in RECIPE_ROOTS:
        candidate = root + written.removeprefix("recipes/") if root else written
        if exists(candidate):
            return candidate
    return None


def master_launches(ctx: ParseContext) -> dict[str, list[MasterLaunch]]:
    """Recipe path -> the master-config points that run it (head tree, memoised)."""

    def build() -> dict[str, list[MasterLaunch]]:
        paths = set(ctx.all_paths())
        evals = ctx.knowledge.section("master_launch") or {}
        out: dict[str, list[MasterLaunch]] = {}
        for cfg in head_master_configs(ctx):
            for entry in cfg.entries.values():
                for written, launch in entry_launches(cfg, entry, evals):
                    path = recipe_path(written, paths.__contains__)
                    if path is not None:
                        out.setdefault(path, []).append(launch)
        return out

    return ctx.memo("master_launches", build)
