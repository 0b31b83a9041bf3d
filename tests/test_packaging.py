"""Packaging for the ecosystem: the Docker build context and user, the pre-commit hook,
the GitHub Action (its lint step is run here with bash, as a runner would), the
example workflow."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from bot.cli import main

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
    (hook,) = hooks
    assert hook["id"] == "recipe-review"
    for key in ("name", "entry", "language"):
        assert isinstance(hook[key], str) and hook[key]
    assert hook["language"] == "python"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    command = hook["entry"].split()
    assert re.search(rf'^{command[0]} = "bot\.cli:main"', pyproject, re.M)
    # pre-commit runs `entry args... FILES` on the staged files its `files` regex matches
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
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


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_action_is_a_composite_that_lints_the_change_and_uploads_sarif(tmp_path: Path) -> None:
    if shutil.which("git") is None or shutil.which("bash") is None:  # pragma: no cover
        pytest.skip("git and bash are needed")
    action = _yaml(ROOT / "action.yml")
    assert isinstance(action, dict)
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    (lint,) = [s for s in steps if s.get("id") == "lint"]
    assert "lint" in lint["run"] and "--base" in lint["run"]
    assert "${{" not in lint["run"]  # inputs come through env, never spliced into bash

    # run the lint step as a runner would: a PR branch that breaks the example recipe
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    recipe = repo / "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
    bad = recipe.read_text(encoding="utf-8")
    recipe.write_text(
        bad.replace("0.95", "0.90").replace("    --reasoning-parser minimax_m3 \\\n", ""),
        encoding="utf-8",
    )
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-qb", "pr")
    recipe.write_text(bad, encoding="utf-8")
    _git(repo, "commit", "-qam", "pr")
    output = tmp_path / "github_output"
    bot = Path(sys.executable).with_name("bot")
    env = {
        **os.environ,
        "RECIPE_REVIEW_BOT": str(bot),
        "GITHUB_OUTPUT": str(output),
        "INPUT_BASE": base,
        "INPUT_PR": "2423",
        "INPUT_REPOSITORY": "SemiAnalysisAI/InferenceX",
        "INPUT_FAIL_ON": "error",
        "INPUT_LANG": "en",
        "INPUT_SARIF_FILE": "out.sarif",
        "INPUT_ARGS": "--ignore CHL002",
    }
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", lint["run"]],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "exit-code=1" in output.read_text(encoding="utf-8")
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert {a.split()[0] for a in annotations} == {"::error", "::warning"}, proc.stdout
    log = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))
    assert sorted(r["ruleId"] for r in log["runs"][0]["results"]) == ["RCP001", "RCP002"]


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
