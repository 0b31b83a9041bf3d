"""The default install is the linter: `bot lint` never imports the service's or the advisor's
dependencies, and the commands that need an extra say in one line what to install.

Each case runs in a fresh interpreter. "Not installed" is simulated by a `None` entry in
`sys.modules`, which makes Python refuse the import as it would a missing package (the
clean-install step of `.ci/run` installs `.` alone and lints the example for real).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.example_copy import copy_example

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inferencex-mini"
SERVER = ("fastapi", "starlette", "uvicorn", "github", "procrastinate", "psycopg", "psycopg_pool")
LLM = ("anthropic",)
HEAVY = (*SERVER, *LLM, "httptools", "uvloop", "jwt", "requests", "nacl", "cryptography")


def _run(code: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=180
    )


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example as a git repository with a branch that changes the agentic recipe."""

    repo = tmp_path / "repo"
    copy_example(repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    _git(repo, "checkout", "-qb", "pr")
    recipe = repo / "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
    recipe.write_text(recipe.read_text() + "# touched\n")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "touch")
    return repo


def test_lint_imports_none_of_the_extras(repo: Path, tmp_path: Path) -> None:
    """Every lint mode and format, with the extras installed: none of them is imported."""
    out = tmp_path / "out"
    runs = [
        ["lint", str(repo), "--format", "json", "-o", f"{out}.1"],
        ["lint", "--repo", str(repo), "--format", "sarif", "-o", f"{out}.2"],
        ["lint", "--repo", str(repo), "--base", "main", "--head", "pr", "-o", f"{out}.3"],
        ["lint", "--repo", str(repo), "--base", "main", "--output-format", "concise"],
        ["lint", str(repo), "--statistics", "--format", "github"],
        ["rules"],
        ["explain", "RCP001"],
    ]
    code = (
        "import io, json, sys, contextlib\n"
        "from bot.cli import main\n"
        f"codes = []\n"
        f"for argv in {runs!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        codes.append(main(argv))\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "print(json.dumps({'codes': codes, 'heavy': heavy}))\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["codes"] == [1, 1, 1, 1, 1, 0, 0]
    assert data["heavy"] == []


def _without(modules: tuple[str, ...]) -> str:
    return f"import sys\nfor name in {modules!r}:\n    sys.modules[name] = None\n"


def test_lint_runs_without_the_extras(repo: Path) -> None:
    code = (
        _without((*SERVER, *LLM))
        + "from bot.cli import main\n"
        + f"assert main(['lint', {str(repo)!r}, '--format', 'json', '-o', '/dev/null']) == 1\n"
        + f"assert main(['lint', '--repo', {str(repo)!r}, '--base', 'main', '-o', '/dev/null'])"
        " == 1\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["serve"], "bot serve"),
        (["replay", "payload.json", "--event", "pull_request"], "bot replay"),
        (["replay", "payload.json", "--event", "pull_request", "--dry-run"], "bot replay"),
        (["db", "migrate"], "bot db"),
        (["db", "status", "--db", "queue.sqlite3"], "bot db"),
        (["queue", "status"], "bot queue"),
        (["queue", "retry", "3"], "bot queue"),
    ],
)
def test_service_commands_without_the_server_extra_say_what_to_install(
    argv: list[str], command: str, tmp_path: Path
) -> None:
    code = _without(SERVER) + f"from bot.cli import main\nraise SystemExit(main({argv!r}))\n"
    proc = _run(code, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"bot: error: {command} needs the server extra (missing: ")
    assert lines[0].endswith("pip install 'recipe-review-bot[server]'")
    assert "fastapi" in lines[0] and "github" in lines[0]


def test_advise_without_the_llm_extra_says_what_to_install() -> None:
    code = (
        _without(LLM)
        + "import os\nos.environ['ANTHROPIC_API_KEY'] = 'k'\n"
        + "from bot.cli import main\n"
        + "raise SystemExit(main(['lint', 'examples/inferencex-mini', '--advise']))\n"
    )
    proc = _run(code)
    assert proc.returncode == 2
    assert proc.stderr == (
        "bot: error: --advise needs the anthropic SDK: pip install 'recipe-review-bot[llm]'\n"
    )


def test_help_and_local_commands_need_no_extra(repo: Path) -> None:
    """`bot --help` lists every command and `bot review --dry-run` (local git) runs with the
    default install alone."""
    code = (
        _without((*SERVER, *LLM))
        + "import contextlib, io\nfrom bot.cli import main\n"
        + "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        + "    assert main(['--help']) == 0\n"
        + f"    assert main(['review', '--repo', {str(repo)!r}, '--pr', '7', '--base', 'main',"
        " '--head', 'pr', '--dry-run', '--github-repo', 'acme/bench']) == 0\n"
        + "assert 'serve' in out.getvalue() and 'dry run of the review' in out.getvalue()\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr


# loaded on first use only: a lint that needs none of them must not pay their import
SLOW = ("jsonschema", "packaging", "importlib.metadata")


def test_a_recipe_lint_loads_only_what_it_uses(tmp_path: Path) -> None:
    """A recipe linted alone, with no configuration file and no cache, validates no schema,
    parses no pip requirement and hashes no installed version: none of the libraries
    for those is imported (about a tenth of a second of start-up)."""
    repo = tmp_path / "repo"
    copy_example(repo)
    for name in (".recipe-bot.yml", ".recipe-bot.yaml"):
        (repo / name).unlink(missing_ok=True)
    recipe = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
    code = (
        "import io, json, sys, contextlib\n"
        "from bot.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['lint', {recipe!r}, '--no-cache', '--format', 'json'])\n"
        f"slow = sorted(m for m in sys.modules if m in {SLOW!r})\n"
        "print(json.dumps({'code': code, 'slow': slow}))\n"
    )
    proc = _run(code, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["code"] in (0, 1)
    assert data["slow"] == []


# a feature `bot lint` loads by name when its option asks for it (`bot.cli.lint_run`)
FEATURES = (
    "bot.advisor",
    "bot.cli.advising",
    "bot.app.fix",
    "bot.cli.fixing",
    "bot.github",
    "bot.report.sarif",
    "bot.report.junit",
    "bot.report.rdjson",
    "bot.report.github",
    "bot.report.text",
)


def _features_loaded(argv: list[str], cwd: Path) -> tuple[int, list[str]]:
    code = (
        "import io, json, sys, contextlib\n"
        "from bot.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        f"features = sorted({{m for m in sys.modules for f in {FEATURES!r}\n"
        "    if m == f or m.startswith(f + '.')})\n"
        "print(json.dumps({'code': code, 'features': features}))\n"
    )
    proc = _run(code, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return data["code"], data["features"]


def test_a_plain_lint_loads_no_feature_it_does_not_use(tmp_path: Path) -> None:
    """Neither the fixer, nor the advisor, nor the GitHub client types, nor an output
    format other than the one printed is imported by a lint that does not ask for them;
    each is loaded when its option does."""
    repo = tmp_path / "repo"
    copy_example(repo)
    recipe = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
    code, loaded = _features_loaded(["lint", recipe, "--no-cache", "--format", "json"], repo)
    assert code in (0, 1)
    assert loaded == []
    code, loaded = _features_loaded(["lint", recipe, "--no-cache", "--diff"], repo)
    assert code in (0, 1)
    assert {"bot.app.fix", "bot.cli.fixing"} <= set(loaded)
    assert not any(m.startswith("bot.advisor") for m in loaded)
    code, loaded = _features_loaded(["lint", recipe, "--no-cache", "--format", "sarif"], repo)
    assert loaded == ["bot.report.sarif", "bot.report.text"]  # sarif words it as text does
