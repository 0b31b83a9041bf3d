"""Shared fixtures of the advisor tests: the seed PR as a change, and hostile variants."""

from __future__ import annotations

import datetime
from pathlib import Path

from bot.core.changeset import ChangeSet, build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, Report, lint
from bot.core.tree import MemoryTree

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inferencex-mini"
RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
SIBLING = "benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh"
CHANGELOG = "perf-changelog.yaml"
TODAY = datetime.date(2026, 11, 30)


def seed_files() -> dict[str, str]:
    return {
        p.relative_to(EXAMPLE).as_posix(): p.read_text(encoding="utf-8")
        for p in EXAMPLE.rglob("*")
        if p.is_file()
    }


def seed_base(head: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in head.items() if k != RECIPE}
    log = head[CHANGELOG]
    base[CHANGELOG] = log[: log.rindex("\n- config-keys:")] + "\n"
    return base


def change_of(
    base: dict[str, str], head: dict[str, str], pr: int = 2423
) -> tuple[ChangeSet, Report]:
    bt, ht = MemoryTree(dict(base)), MemoryTree(dict(head))
    paths = sorted(set(base) | set(head))
    changed = {p for p in paths if base.get(p) != head.get(p)}
    change = build_changeset(bt, ht, changed, pr=pr)
    config = build_config(head.get(".recipe-bot.yml"), source=".recipe-bot.yml")
    ctx = Context.for_change(change, config, review_date=TODAY)
    return change, lint(ctx, paths=sorted(changed))
