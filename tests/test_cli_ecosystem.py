"""`bot lint` as ruff, reviewdog, JUnit and GitHub Actions users expect it.

Runs the real rule registry on a copy of `examples/inferencex-mini` (three
findings: RCP002 error with a suggestion, RCP001 warning whose suggestion deletes
a line, CHL002 warning).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from bot.cli import main
from bot.core.engine import Report
from bot.core.model import ERROR, INFO, WARNING, Rule, Span, T
from bot.report import github, junit, rdjson
from tests.example_copy import copy_example

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "inferencex-mini"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"


@pytest.fixture
def mini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "mini"
    copy_example(root)
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def rules_in(out: str) -> list[str]:
    return sorted(f["rule"] for f in json.loads(out)["findings"])


# ------------------------------------------------------------------ selection


def test_select_ignore_extend_select_by_id_slug_and_prefix(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def lint(*opts: str) -> list[str]:
        code, out, err = run(capsys, "lint", ".", "--format", "json", "--allow-empty", *opts)
        assert code in (0, 1), err
        return rules_in(out)

    assert lint() == ["CHL002", "RCP001", "RCP002"]
    assert lint("--select", "RCP") == ["RCP001", "RCP002"]
    assert lint("--select", "gpu-memory-too-high-for-draft-head") == ["RCP002"]
    assert lint("--select", "RCP002", "--extend-select", "CHL") == ["CHL002", "RCP002"]
    assert lint("--select", "RCP002,chl002") == ["CHL002", "RCP002"]
    assert lint("--ignore", "RCP001", "--ignore", "pr-link-missing-or-wrong") == ["RCP002"]
    assert lint("--select", "ALL", "--ignore", "RCP00") == ["CHL002"]
    code, _, err = run(capsys, "lint", ".", "--select", "RCP1234,NOPE")
    assert code == 2
    assert err == "bot: error: --select 'RCP1234' names no rule (run 'bot rules' for the list)\n"


def test_fail_on_levels_and_exit_zero(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def code(*opts: str) -> int:
        return run(capsys, "lint", ".", *opts)[0]

    assert code() == 1  # RCP002 is an error
    assert code("--ignore", "RCP002") == 0  # warnings only
    assert code("--ignore", "RCP002", "--fail-on", "warning") == 1
    assert code("--ignore", "RCP002", "--fail-on", "info") == 1
    assert code("--fail-on", "never") == 0
    assert code("--exit-zero") == 0
    assert code("--exit-zero", "--select", "NOPE") == 2  # usage errors stay 2


def test_statistics(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "lint", ".", "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "1  CHL002  warning  pr-link-missing-or-wrong",
        "1  RCP001  warning  [*] reasoning-parser-on-interleaved-thinking",
        "1  RCP002  error    [*] gpu-memory-too-high-for-draft-head",
    ]
    code, out, _ = run(capsys, "lint", ".", "--statistics", "--format", "json")
    rows = json.loads(out)
    assert rows[0] == {
        "code": "CHL002",
        "name": "pr-link-missing-or-wrong",
        "severity": "warning",
        "count": 1,
        "fixable": False,
    }


# ------------------------------------------------------------------ stdin, empty, messages


def test_stdin_with_stdin_filename(
    mini: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (mini / AGENTIC).read_text(encoding="utf-8")
    fixed = text.replace("--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.90")
    assert fixed != text
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(fixed.encode())))
    code, out, err = run(capsys, "lint", "-", "--stdin-filename", AGENTIC, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    # the stdin text is linted (RCP002 gone) at its path, so recipe rules apply
    assert [(f["rule"], f["path"]) for f in data["findings"]] == [("RCP001", AGENTIC)]
    assert data["summary"]["files"] == 1
    code, _, err = run(capsys, "lint", "-")
    assert code == 2 and "--stdin-filename" in err
    code, _, err = run(capsys, "lint", "-", "x.sh", "--stdin-filename", AGENTIC)
    assert code == 2 and "'-' (stdin)" in err


def test_nothing_checked_is_an_error_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "lint", "empty")
    assert (code, out) == (2, "")
    assert err.startswith("bot: error: no files checked: empty: no recipe, changelog")
    assert run(capsys, "lint", "empty", "--allow-empty")[0] == 0
    code, _, err = run(capsys, "lint", "mistyped.sh")
    assert code == 2 and err == "bot: error: mistyped.sh: no such file or directory\n"


def test_unknown_lint_option_points_to_lint_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "lint", "--selct", "RCP001")
    assert code == 2
    assert err == "bot: error: unrecognized arguments: --selct (see 'bot lint --help')\n"
    code, _, err = run(capsys, "rules", "--bogus")
    assert code == 2 and "(see 'bot rules --help')" in err


def test_base_outside_a_git_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "lint", "--base", "origin/main")
    assert code == 2
    assert "is not a git repository" in err and str(tmp_path) in err
    code, _, err = run(capsys, "lint", "--repo", str(tmp_path), "--base", "main")
    assert code == 2 and err == f"bot: error: not a git repository: {tmp_path}\n"


def test_pr_link_suggestion_uses_the_repository_of_the_origin_remote(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("git is not installed")

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
            cwd=mini,
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "base")
    git("remote", "add", "origin", "git@github.com:my-fork/benchmarks.git")
    git("checkout", "-qb", "pr")
    log = mini / "perf-changelog.yaml"
    log.write_text(
        log.read_text(encoding="utf-8")
        + '\n- config-keys:\n    - x\n  description:\n    - "y"\n  pr-link: TBD\n',
        encoding="utf-8",
    )
    git("commit", "-qam", "entry")
    code, out, err = run(
        capsys, "lint", "--base", "main", "--head", "pr", "--pr", "7", "--format", "json",
        "--select", "CHL002",
    )  # fmt: skip
    assert code == 1, err
    (finding,) = json.loads(out)["findings"]
    assert finding["suggestion"] == "  pr-link: https://github.com/my-fork/benchmarks/pull/7"
    _, out, _ = run(
        capsys, "lint", "--base", "main", "--head", "pr", "--pr", "7", "--format", "json",
        "--select", "CHL002", "--github-repo", "Other/Repo",
    )  # fmt: skip
    (finding,) = json.loads(out)["findings"]
    assert finding["suggestion"] == "  pr-link: https://github.com/Other/Repo/pull/7"


# ------------------------------------------------------------------ formats

RULE = Rule(
    id="RCP901",
    slug="test-rule",
    severity=ERROR,
    target="recipe",
    title=T(en="Test rule", zh="测试规则"),
    message=T(en="bad `{n}`", zh="错误 `{n}`"),
    fix=T(en="Drop it", zh="删除它"),
    rationale=T(en="Tests.", zh="测试。"),
)


def _report(
    n_errors: int, n_warnings: int, changed: set[int] | frozenset[int] = frozenset()
) -> Report:
    findings = [
        replace(RULE.hit("a.sh", Span(i), f"e{i}", n=i), in_diff=i in changed)
        for i in range(1, n_errors + 1)
    ]
    findings += [
        replace(RULE.hit("b.sh", Span(i), f"w{i}", n=i), severity=WARNING)
        for i in range(1, n_warnings + 1)
    ]
    return Report(findings=findings, files=["a.sh", "b.sh"])


def test_github_at_most_ten_per_level_changed_lines_first() -> None:
    report = _report(14, 3, changed={12, 13})
    lines = github.render(report, "en").splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 10
    shown = [int(line.split("line=")[1].split(",")[0]) for line in errors]
    assert 12 in shown and 13 in shown  # changed lines first ...
    assert shown == sorted(shown)  # ... report order kept
    assert shown == [1, 2, 3, 4, 5, 6, 7, 8, 12, 13]
    assert len([line for line in lines if line.startswith("::warning ")]) == 3
    (note,) = [line for line in lines if "not shown as annotations" in line]
    assert note.startswith("4 more finding(s) not shown as annotations")
    assert not note.startswith("::")  # a plain line: it is not an 11th annotation
    assert lines[-1].startswith("14 errors, 3 warnings")
    small = github.render(_report(2, 0), "both")
    assert "not shown" not in small


def test_rdjson_shape_and_suggestions() -> None:
    f = RULE.hit("a b.sh", Span(3, 5, None, 9), "x", n=1, suggestion="    --x 1 \\")
    g = replace(RULE.hit("c.sh", Span(7, 1, 8), "y", n=2, suggestion=""), severity=INFO)
    data: dict[str, Any] = json.loads(rdjson.render(Report(findings=[f, g], files=["a"]), "en"))
    assert data["source"]["name"] == "recipe-review-bot"
    first, second = data["diagnostics"]
    assert first["location"] == {
        "path": "a b.sh",
        "range": {"start": {"line": 3, "column": 5}, "end": {"line": 3, "column": 9}},
    }
    assert first["severity"] == "ERROR" and first["code"]["value"] == "RCP901"
    assert first["code"]["url"].endswith("#rcp901")
    assert first["message"] == "bad `1`\nFix: Drop it"
    assert first["suggestions"] == [
        {
            "range": {"start": {"line": 3, "column": 1}, "end": {"line": 4, "column": 1}},
            "text": "    --x 1 \\\n",
        }
    ]
    assert second["severity"] == "INFO"
    assert second["suggestions"][0]["text"] == ""  # a deletion of lines 7-8
    assert second["suggestions"][0]["range"]["end"] == {"line": 9, "column": 1}


def test_junit_is_xml_with_a_suite_per_file() -> None:
    report = _report(2, 1)
    report.files.append("clean.sh")
    root = ET.fromstring(junit.render(report, "both"))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures")) == ("4", "3")
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"a.sh", "b.sh", "clean.sh"}
    assert suites["a.sh"].get("failures") == "2"
    case = suites["a.sh"].find("testcase")
    assert case is not None and case.get("file") == "a.sh" and case.get("line") == "1"
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "RCP901"
    assert failure.get("message") == "bad `1` / 错误 `1`"
    assert "修复：删除它" in (failure.text or "")
    (clean,) = suites["clean.sh"].iter("testcase")
    assert clean.find("failure") is None


def test_cli_writes_every_format(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("text", "json", "sarif", "github", "rdjson", "junit"):
        code, out, err = run(capsys, "lint", ".", "--format", fmt)
        assert code == 1, (fmt, err)
        assert AGENTIC in out, fmt
    code, out, _ = run(capsys, "lint", ".", "--format", "junit")
    assert ET.fromstring(out).get("failures") == "3"
    code, out, _ = run(capsys, "lint", ".", "--format", "sarif")
    base = json.loads(out)["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]
    assert base["uri"] == mini.resolve().as_uri() + "/"
