"""The seed scenario: InferenceX PR #2423 as first pushed, replayed as a PR.

Head = examples/inferencex-mini (a new agentic MiniMax-M3 H100 recipe with the
plain EAGLE3 draft, K=3, synthetic AL 2.83, gpu-memory-utilization 0.95, both
parsers, and a changelog entry without pr-link). Base = the same tree without
the new recipe and the new changelog entry. Exactly three findings, one per
defect, and no RCP003 (2.83 is right for the plain draft).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.tree import MemoryTree

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inferencex-mini"
NEW_RECIPE = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"


def _files(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in root.rglob("*")
        if p.is_file()
    }


def _base_of(head: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in head.items() if k != NEW_RECIPE}
    changelog = head["perf-changelog.yaml"]
    base["perf-changelog.yaml"] = changelog[: changelog.rindex("\n- config-keys:")] + "\n"
    return base


def _seed_findings(head: dict[str, str], pr: int = 2423) -> list[tuple[str, str, int]]:
    base = _base_of(head)
    changed = frozenset(p for p in head if base.get(p) != head[p])
    change = build_changeset(MemoryTree(base), MemoryTree(head), changed, pr=pr)
    ctx = Context.for_change(change, build_config(head.get(".recipe-bot.yml")))
    report = lint(ctx, paths=sorted(changed))
    return [(f.rule, f.path, f.line) for f in report.findings]


def test_seed_gives_exactly_three_findings() -> None:
    head = _files(EXAMPLE)
    found = _seed_findings(head)
    assert sorted(r for r, _, _ in found) == ["CHL002", "RCP001", "RCP002"]
    lines = head[NEW_RECIPE].splitlines()
    by_rule = {r: (p, line) for r, p, line in found}
    assert by_rule["RCP001"][0] == NEW_RECIPE
    assert "--reasoning-parser minimax_m3" in lines[by_rule["RCP001"][1] - 1]
    assert "--gpu-memory-utilization 0.95" in lines[by_rule["RCP002"][1] - 1]
    assert by_rule["CHL002"][0] == "perf-changelog.yaml"


def test_seed_fixed_recipe_is_clean() -> None:
    head = _files(EXAMPLE)
    fixed = head[NEW_RECIPE].replace(
        "--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.90"
    )
    fixed = fixed.replace("    --reasoning-parser minimax_m3\n", "")
    head[NEW_RECIPE] = fixed
    head["perf-changelog.yaml"] += (
        "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2423\n"
    )
    assert _seed_findings(head) == []


def test_gqa_value_on_plain_draft_is_golden_mismatch() -> None:
    head = _files(EXAMPLE)
    head[NEW_RECIPE] = head[NEW_RECIPE].replace(
        "SYNTHETIC_ACCEPT_LEN=2.83", "SYNTHETIC_ACCEPT_LEN=2.78"
    )
    rules = [r for r, _, _ in _seed_findings(head)]
    assert rules.count("RCP003") == 1


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_seed_through_cli_and_git(tmp_path: Path) -> None:
    """The same PR through `bot lint --repo --base --head` on a real git repository."""
    head = _files(EXAMPLE)
    repo = tmp_path / "repo"

    def write(files: dict[str, str]) -> None:
        for rel, text in files.items():
            target = repo / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    repo.mkdir()
    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    write(_base_of(head))
    git("add", "-A")
    git("commit", "-qm", "base")
    write(head)
    git("add", "-A")
    git("commit", "-qm", "PR 2423")
    from bot.cli import main

    out = tmp_path / "out.json"
    code = main(
        [
            "lint",
            "--repo",
            str(repo),
            "--base",
            "HEAD~1",
            "--head",
            "HEAD",
            "--pr",
            "2423",
            "--format",
            "json",
            "--output",
            str(out),
        ]
    )
    data = json.loads(out.read_text())
    assert code == 1
    assert sorted(f["rule"] for f in data["findings"]) == ["CHL002", "RCP001", "RCP002"]
