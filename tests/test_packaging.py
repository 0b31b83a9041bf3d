"""Packaging for the ecosystem: the Docker build context and user, the pre-commit hook,
the GitHub Action (its lint step is run here with bash, as a runner would), the
example workflow."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from bot.cli import main
from tests.example_copy import copy_example

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "inferencex-mini"


def _yaml(path: Path) -> object:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ Docker


def _ignored(rel: str, patterns: list[tuple[bool, str]]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents wins."""
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    verdict = False
    for negate, pat in patterns:
        pat = pat.rstrip("/")
        for candidate in prefixes:
            if fnmatch.fnmatchcase(candidate, pat) or (
                pat.startswith("**/") and fnmatch.fnmatchcase(candidate.split("/")[-1], pat[3:])
            ):
                verdict = not negate
                break
    return verdict


def build_context() -> dict[str, int]:
    patterns = []
    for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            patterns.append((line.startswith("!"), line.lstrip("!")))
    files: dict[str, int] = {}
    for dirpath, _, names in os.walk(ROOT):
        for name in names:
            full = Path(dirpath) / name
            rel = full.relative_to(ROOT).as_posix()
            if not _ignored(rel, patterns) and full.is_file():
                files[rel] = full.stat().st_size
    return files


def test_docker_build_context_is_small_and_holds_what_the_dockerfile_copies() -> None:
    files = build_context()
    total = sum(files.values())
    assert total < 5 * 1024 * 1024, f"build context is {total:,} bytes"
    assert not any(p.startswith((".git/", ".venv/", "tests/", "benchmarks/")) for p in files)
    assert not any("__pycache__" in p for p in files)
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            for src in line.split()[1:-1]:
                assert any(p == src or p.startswith(src + "/") for p in files), src
    assert (
        "bot/cli/__init__.py" in files
        and "rules/recipe/RCP001_reasoning_parser_on_interleaved_thinking.py" in files
    )
    assert "schemas/findings.schema.json" in files and "bot/knowledge/default.yaml" in files


def test_dockerfile_runs_as_a_numeric_non_root_user() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    users = re.findall(r"^USER\s+(\S+)", dockerfile, re.M)
    assert users and re.fullmatch(r"[1-9][0-9]*(:[1-9][0-9]*)?", users[-1]), users
    uid = users[-1].split(":")[0]
    assert f"--uid {uid}" in dockerfile and f"chown {uid}:" in dockerfile


# ------------------------------------------------------------------ pre-commit


def test_pre_commit_hook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hooks = _yaml(ROOT / ".pre-commit-hooks.yaml")
    assert isinstance(hooks, list)
    hook = next(h for h in hooks if h["id"] == "recipe-review")
    for key in ("name", "entry", "language"):
        assert isinstance(hook[key], str) and hook[key]
    assert hook["language"] == "python"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    command = hook["entry"].split()
    assert re.search(rf'^{command[0]} = "bot\.cli:main"', pyproject, re.M)
    # pre-commit runs `entry args... FILES` on the staged files its `files` regex matches
    root = tmp_path / "repo"
    copy_example(root)
    (root / ".git").mkdir()
    staged = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )
    matched = [p for p in staged if re.search(hook["files"], p)]
    assert "perf-changelog.yaml" in matched
    assert "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh" in matched
    assert ".recipe-bot.yml" not in matched
    cwd = os.getcwd()
    os.chdir(root)
    try:
        code = main([*command[1:], *hook["args"], *matched])
        out, _ = capsys.readouterr()
        assert code == 1 and "RCP002" in out and "\x1b[" not in out
        # a commit that stages no lintable file passes
        assert main([*command[1:], *hook["args"], ".recipe-bot.yml"]) == 0
    finally:
        os.chdir(cwd)


# ------------------------------------------------------------------ GitHub Action


def test_example_workflow_uses_the_action_with_full_history() -> None:
    flow = _yaml(ROOT / "examples" / "workflows" / "recipe-review.yml")
    assert isinstance(flow, dict)
    (job,) = flow["jobs"].values()
    checkout, review = job["steps"]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0
    assert review["uses"].startswith("recipe-review-bot/recipe-review-bot@")
    assert flow["permissions"]["security-events"] == "write"
    assert "docs/ci.md" in (ROOT / "examples" / "workflows" / "recipe-review.yml").read_text(
        encoding="utf-8"
    )
