"""The `bot` command line: modes, formats, exit codes, errors; in-process and as a console script.

In-process tests replace the rule registry with one fake rule (`TST001`: fires on
every recipe line containing `BAD_FLAG`) so they do not depend on which real rules
exist. The subprocess test runs the installed `bot` script with the real registry.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bot import __version__, sources
from bot.cli import build_parser, main
from bot.cli.lint import use_color
from bot.core import registry
from bot.core.config import load_schema
from bot.core.engine import Context
from bot.core.model import ERROR, Example, Finding, Rule, Span, T
from bot.core.registry import RuleModule
from bot.core.tree import content_id
from bot.sources import FsTree, GitTree, SourceError, changed_paths, find_repo_root, locate

RECIPE_DIR = "benchmarks/single_node/agentic"
RECIPE = f"{RECIPE_DIR}/minimaxm3_fp4_b300_vllm_mtp.sh"
OTHER = f"{RECIPE_DIR}/qwen3_fp8_h200_vllm.sh"
CLEAN = '#!/usr/bin/env bash\nsource "$(dirname "$0")/../../benchmark_lib.sh"\nvllm serve "$MODEL" --port 8000\n'
BAD = CLEAN + "vllm serve x BAD_FLAG\n"

FAKE = Rule(
    id="RCP999",
    slug="test-bad-flag",
    severity=ERROR,
    target="recipe",
    title=T(en="Test rule", zh="测试规则"),
    message=T(en="`BAD_FLAG` in `{file}`", zh="`{file}` 中有 `BAD_FLAG`"),
    fix=T(en="Drop `BAD_FLAG`", zh="删除 `BAD_FLAG`"),
    rationale=T(en="Tests.", zh="测试。"),
    bad=(Example(path=RECIPE, text="BAD_FLAG  # [RCP999]\n"),),
    good=(Example(path=RECIPE, text="ok\n"),),
)
SEEN: list[Context] = []


def fake_check(recipe: Any, ctx: Context) -> Iterator[Finding]:
    SEEN.append(ctx)
    for no, line in enumerate(recipe.text.splitlines(), 1):
        if "BAD_FLAG" in line:
            yield FAKE.hit(
                recipe.path, Span(no, line.index("BAD_FLAG") + 1), line, file=recipe.path
            )


@pytest.fixture
def fake_rules(monkeypatch: pytest.MonkeyPatch) -> list[Context]:
    fake = (RuleModule(rule=FAKE, check=fake_check, module="test"),)
    monkeypatch.setattr(registry, "_registry", lambda: fake)
    SEEN.clear()
    return SEEN


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    proc = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout.strip()


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repo: `main` with two clean recipes, branch `pr` that breaks one of them.

    The tests run in it, so printed paths (relative to the cwd) read from its root."""
    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, RECIPE, CLEAN)
    write(root, OTHER, CLEAN)
    write(root, "README.md", "hello\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    write(root, RECIPE, BAD)
    git(root, "commit", "-q", "-am", "break it")
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out)
    jsonschema.validate(
        data, load_schema("findings.schema.json"), cls=jsonschema.Draft202012Validator
    )
    return data


# --------------------------------------------------------------------------- lint modes


def test_lint_file_uses_path_relative_to_repo_root(
    repo: Path,
    fake_rules: list[Context],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(repo / RECIPE_DIR)
    code, out, err = run(capsys, "lint", "--no-color", Path(RECIPE).name)
    assert code == 1, err
    # rules see the path from the repository root; text prints it from the cwd, as ruff does
    assert f"  `BAD_FLAG` in `{RECIPE}`" in out
    assert out.startswith(f"{Path(RECIPE).name}:4:14  error  RCP999 test-bad-flag")
    assert "  修复：删除 `BAD_FLAG`" in out
    assert "1 error, 0 warnings, 0 info in 1 file checked" in out
    assert fake_rules[0].changed is None and fake_rules[0].base is None
    code, out, _ = run(capsys, "lint", "--format", "json", Path(RECIPE).name)
    assert as_json(out)["findings"][0]["path"] == RECIPE  # the contract: from the root
    monkeypatch.chdir(repo.parent)
    code, out, _ = run(capsys, "lint", "--format", "github", str(repo / RECIPE))
    assert out.startswith(f"::error file=repo/{RECIPE},line=4,")
    (repo.parent / "elsewhere").mkdir()
    monkeypatch.chdir(repo.parent / "elsewhere")
    code, out, _ = run(capsys, "lint", str(repo / RECIPE))
    assert out.startswith(f"{repo / RECIPE}:4:14")  # outside the cwd: absolute


def test_lint_directory_and_json(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "lint", "--format", "json", str(repo / "benchmarks"))
    assert code == 1
    data = as_json(out)
    assert data["summary"]["files"] == 2
    assert [(f["path"], f["line"]) for f in data["findings"]] == [(RECIPE, 4)]


def test_lint_whole_repo(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "lint", "--repo", str(repo), "--format", "json")
    data = as_json(out)
    assert code == 1 and data["summary"]["files"] == 2 and len(data["findings"]) == 1


def test_lint_base_head_lints_only_changed_paths(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, OTHER, BAD)  # uncommitted: not part of --head pr
    code, out, _ = run(
        capsys,
        "lint",
        "--repo",
        str(repo),
        "--base",
        "main",
        "--head",
        "pr",
        "--format",
        "json",
        "--pr",
        "7",
    )
    data = as_json(out)
    assert code == 1
    assert data["summary"]["files"] == 1
    assert {f["path"] for f in data["findings"]} == {RECIPE}
    ctx = fake_rules[0]
    assert ctx.changed == frozenset({RECIPE}) and ctx.pr == 7
    assert ctx.base is not None and ctx.base.read(RECIPE) == CLEAN.encode()
    assert ctx.tree.read(RECIPE) == BAD.encode()


def test_lint_base_with_working_tree_head(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, OTHER, BAD)  # modified, uncommitted
    write(repo, f"{RECIPE_DIR}/new_fp8_b200_vllm.sh", BAD)  # untracked
    code, out, _ = run(capsys, "lint", "--repo", str(repo), "--base", "main", "--format", "json")
    data = as_json(out)
    assert code == 1
    assert {f["path"] for f in data["findings"]} == {
        RECIPE,
        OTHER,
        f"{RECIPE_DIR}/new_fp8_b200_vllm.sh",
    }
    assert fake_rules[0].changed is not None and OTHER in fake_rules[0].changed


def test_lint_no_changes_is_clean(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["lint", "--repo", str(repo), "--base", "pr", "--head", "pr", "--lang", "en"]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == (
        "bot: error: no files checked: the change from pr touches no recipe, changelog or "
        "master config by the configured paths (pass --allow-empty to accept)\n"
    )
    code, out, _ = run(capsys, *argv, "--allow-empty")
    assert code == 0
    assert out == "No problems found in 0 files checked\n"


def test_fail_on_and_clean_exit(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(capsys, "lint", str(repo / OTHER))
    assert code == 0
    code, _, _ = run(capsys, "lint", str(repo / OTHER), "--fail-on", "warning")
    assert code == 0


def test_severity_override_and_fail_on_warning(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "bot.yml"
    config.write_text("rules:\n  severity:\n    RCP999: warning\n", encoding="utf-8")
    code, _, _ = run(capsys, "lint", str(repo / RECIPE), "--config", str(config))
    assert code == 0
    code, _, _ = run(
        capsys, "lint", str(repo / RECIPE), "--config", str(config), "--fail-on", "warning"
    )
    assert code == 1


def test_other_formats_and_output_file(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "out.sarif"
    code, out, _ = run(
        capsys, "lint", str(repo / RECIPE), "--format", "sarif", "--output", str(target)
    )
    assert code == 1 and out == ""
    log = json.loads(target.read_text(encoding="utf-8"))
    assert log["runs"][0]["results"][0]["ruleId"] == "RCP999"
    code, out, _ = run(capsys, "lint", str(repo / RECIPE), "--format", "github", "--lang", "zh")
    assert out.startswith(f"::error file={RECIPE},line=4,col=14,title=RCP999 test-bad-flag::`")
    assert "修复：删除" in out


def test_unrouted_file_warns(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "lint", str(repo / "README.md"))
    assert code == 2
    assert "bot: warning: README.md is not a recipe" in err
    assert "bot: error: no files checked: " in err and "--allow-empty" in err
    code, _, err = run(capsys, "lint", "--allow-empty", str(repo / "README.md"))
    assert code == 0


def test_repo_config_is_read_from_base_ref(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    # the PR tries to disable the rule in its own config: --base mode must ignore that
    write(repo, ".recipe-bot.yml", "rules:\n  disable: [RCP999]\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "relax")
    code, _, _ = run(capsys, "lint", "--repo", str(repo), "--base", "main", "--head", "pr")
    assert code == 1
    code, _, _ = run(capsys, "lint", "--repo", str(repo))  # working tree config applies
    assert code == 0


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["lint", "does/not/exist.sh"], "does/not/exist.sh: no such file or directory"),
        (["lint", "--repo", "{repo}", "--base", "nope"], "unknown ref 'nope'"),
        (["lint", "--repo", "{repo}", "--base", "main", "--head", "nope"], "unknown ref 'nope'"),
        (["lint", "--repo", "{tmp}", "--base", "main"], "not a git repository"),
        (["lint", "--repo", "{repo}/missing"], "not a directory"),
        (["lint", "{repo}", "--repo", "{repo}"], "not both"),
        (["lint", "{repo}", "--base", "main"], "--base/--head need --repo"),
        (["lint", "--format", "xml"], "invalid choice: 'xml'"),
        (["lint", "--pr", "abc", "{repo}"], "not a number"),
        (["lint", "{repo}", "--config", "{tmp}/none.yml"], "none.yml: no such file or directory"),
        (["lint", "{repo}", "--config", "{tmp}/bad.yml"], "bad.yml"),
        (["explain", "NOPE999"], "unknown rule 'NOPE999'"),
    ],
)
def test_errors_are_one_line_exit_2(
    argv: list[str],
    needle: str,
    repo: Path,
    tmp_path: Path,
    fake_rules: list[Context],
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "bad.yml").write_text("rules: [unclosed\n", encoding="utf-8")
    argv = [a.replace("{repo}", str(repo)).replace("{tmp}", str(tmp_path)) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bot: error: ") and needle in lines[0]
    assert "Traceback" not in err


def test_invalid_repo_config_is_exit_2(
    repo: Path, fake_rules: list[Context], capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, ".recipe-bot.yml", "rules:\n  severity:\n    RCP999: fatal\n")
    code, _, err = run(capsys, "lint", "--repo", str(repo))
    assert code == 2
    assert err.startswith("bot: error: .recipe-bot.yml") and err.count("\n") == 1


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2 and "bot lint" in err


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "lint", "--help")
    assert code == 0
    assert "examples:" in out and "--base origin/main" in out and "exit status" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"bot {__version__}"


# --------------------------------------------------------------------------- rules, explain


def test_rules_and_explain(fake_rules: list[Context], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0 and out == "RCP999  error    test-bad-flag  Test rule\n"
    code, out, _ = run(capsys, "rules", "--format", "json")
    assert json.loads(out)[0]["title"] == {"en": "Test rule", "zh": "测试规则"}
    for key in ("RCP999", "rcp999", "test-bad-flag"):
        code, out, _ = run(capsys, "explain", key)
        assert code == 0
        assert out.startswith("# RCP999 `test-bad-flag`")
        for needle in (
            "Test rule",
            "测试规则",
            "Drop `BAD_FLAG`",
            "删除 `BAD_FLAG`",
            "Tests.",
            "测试。",
            "BAD_FLAG  # [RCP999]",
        ):
            assert needle in out


# --------------------------------------------------------------------------- the installed script


def _bot_script() -> list[str]:
    exe = shutil.which("bot", path=os.path.dirname(sys.executable)) or shutil.which("bot")
    if exe is None:  # pragma: no cover
        pytest.skip("the `bot` console script is not installed (pip install -e .)")
    return [exe]


def test_console_script(repo: Path) -> None:
    bot = _bot_script()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    version = subprocess.run(
        [*bot, "--version"], capture_output=True, text=True, env=env, check=False
    )
    assert version.returncode == 0 and version.stdout.strip() == f"bot {__version__}"
    proc = subprocess.run(
        [*bot, "lint", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    data = as_json(proc.stdout)
    assert data["summary"]["files"] == 1
    bad = subprocess.run(
        [*bot, "lint", "--repo", str(repo), "--base", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().startswith("bot: error: unknown ref 'nope'")
    assert "Traceback" not in bad.stderr
    rules = subprocess.run([*bot, "rules"], capture_output=True, text=True, check=False)
    assert rules.returncode == 0


# --------------------------------------------------------------------------- sources


def test_fs_tree(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root, "a/b.sh", "echo hi\n")
    write(root, ".git/config", "secret\n")
    write(tmp_path, "outside.txt", "outside\n")
    (root / "a" / "link_out").symlink_to(tmp_path / "outside.txt")
    (root / "a" / "link_in").symlink_to(root / "a" / "b.sh")
    (root / "loop").symlink_to(root, target_is_directory=True)
    tree = FsTree(root)
    assert list(tree.paths()) == ["a/b.sh", "a/link_in"]
    assert tree.read("a/b.sh") == b"echo hi\n"
    assert tree.read("a/link_in") == b"echo hi\n"
    for bad in ("a/link_out", ".git/config", "../outside.txt", "/etc/passwd", "a", "missing", ""):
        assert tree.read(bad) is None, bad
        assert tree.blob_id(bad) is None, bad
    assert tree.files_under("a") == ["a/b.sh", "a/link_in"]
    with pytest.raises(SourceError):
        FsTree(tmp_path / "nope")


def test_fs_tree_blob_id_is_git_sha_and_tracks_edits(repo: Path) -> None:
    tree = FsTree(repo)
    assert tree.blob_id(RECIPE) == git(repo, "hash-object", RECIPE)
    write(repo, RECIPE, "changed\n")
    os.utime(repo / RECIPE, ns=(1, 1))
    assert tree.blob_id(RECIPE) == git(repo, "hash-object", RECIPE)


def test_fs_tree_large_file_is_hashed_without_caching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "MAX_CACHED_FILE", 4)
    write(tmp_path, "big.txt", "0123456789")
    tree = FsTree(tmp_path)
    assert tree.blob_id("big.txt") == content_id(b"0123456789")
    assert tree.read("big.txt") == b"0123456789"


def test_git_tree(repo: Path) -> None:
    with GitTree(repo, "main") as base, GitTree(repo, "pr") as head:
        assert set(base.paths()) == {RECIPE, OTHER, "README.md"}
        assert base.read(RECIPE) == CLEAN.encode()
        assert head.read(RECIPE) == BAD.encode()
        assert head.blob_id(RECIPE) == git(repo, "rev-parse", f"pr:{RECIPE}")
        assert head.read("missing") is None and head.blob_id("missing") is None
        for _ in range(3):  # one cat-file process serves many reads
            assert head.read(OTHER) == CLEAN.encode()
    with GitTree(repo / "benchmarks", "pr") as sub:  # a subdirectory is its own root
        assert RECIPE.removeprefix("benchmarks/") in set(sub.paths())


def test_git_errors(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="unknown ref 'nope'"):
        GitTree(repo, "nope")
    with pytest.raises(SourceError, match="unknown ref '--all'"):
        GitTree(repo, "--all")
    with pytest.raises(SourceError, match="not a git repository"):
        changed_paths(tmp_path, "main")
    with pytest.raises(SourceError, match="not a directory"):
        GitTree(tmp_path / "missing", "main")


def test_changed_paths(repo: Path) -> None:
    assert changed_paths(repo, "main", "pr") == [RECIPE]
    # base...head: changes on main after the fork are not the PR's
    git(repo, "checkout", "-q", "main")
    write(repo, "README.md", "moved on\n")
    git(repo, "commit", "-q", "-am", "main moves")
    git(repo, "checkout", "-q", "pr")
    assert changed_paths(repo, "main", "pr") == [RECIPE]
    write(repo, OTHER, BAD)
    write(repo, "new.txt", "x\n")
    write(repo, ".gitignore", "ignored.txt\n")
    write(repo, "ignored.txt", "x\n")
    assert changed_paths(repo, "main") == sorted([RECIPE, OTHER, "new.txt", ".gitignore"])
    assert changed_paths(repo / "benchmarks", "main", "pr") == [RECIPE.removeprefix("benchmarks/")]


def test_colour_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    args = build_parser().parse_args(["lint"])
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(args, Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(args, Tty())  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    args = build_parser().parse_args(["lint", "--no-color"])
    assert not use_color(args, Tty())  # type: ignore[arg-type]


def test_locate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "proj/perf-changelog.yaml", "")
    write(tmp_path, "proj/benchmarks/a.sh", "")
    write(tmp_path, "loose/sub/b.sh", "")
    real = Path(os.path.realpath(tmp_path))
    assert locate(tmp_path / "proj/benchmarks/a.sh") == (real / "proj", "benchmarks/a.sh", False)
    assert locate(tmp_path / "proj/benchmarks") == (real / "proj", "benchmarks", True)
    if find_repo_root(tmp_path / "loose") is None:  # no marker above tmp_path
        monkeypatch.chdir(tmp_path / "loose")
        assert locate("sub/b.sh") == (real / "loose", "sub/b.sh", False)
        assert locate(tmp_path / "proj/benchmarks/a.sh")[0] == real / "proj"
        monkeypatch.chdir(tmp_path / "proj")
        assert locate(tmp_path / "loose/sub/b.sh") == (real / "loose/sub", "b.sh", False)
    with pytest.raises(FileNotFoundError):
        locate(tmp_path / "nope")
