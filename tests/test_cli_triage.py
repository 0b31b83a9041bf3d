"""Triage output (issue 24 point 4) and `bot review`'s repository (point 7).

`--output-format concise` (one line per finding) beside the full text format, `--sort
severity`, `--statistics` by the severity each finding was reported at, and a warning when
`--ignore` removes every rule a `--select` names. Runs on a copy of the example (RCP002
error, RCP001 warning, CHL002 warning).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from bot.cli.lint import output_format
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


def test_concise_is_one_line_per_finding(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "lint", ".", "--output-format", "concise", "--lang", "en")
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[:3] == [
        f"{AGENTIC}:30:30: RCP002 [error] `--gpu-memory-utilization 0.95` leaves no headroom "
        "for the draft model `Inferact/MiniMax-M3-EAGLE3`; the proven spec-decode sibling "
        "`benchmarks/single_node/fixed_seq_len/minimaxm3_fp8_h100_mtp.sh` runs 0.90",
        f"{AGENTIC}:39:24: RCP001 [warning] `--reasoning-parser minimax_m3` moves MiniMax-M3's "
        "think block out of `message.content`, so a multi-turn agent loses it on the next turn "
        "(harms the EVAL_ONLY run when SWE-bench via mini-swe-agent is selected)",
        "perf-changelog.yaml:12:1: CHL002 [warning] Merged entry still lacks its `pr-link`",
    ]
    assert lines[3:] == ["1 error, 2 warnings, 0 info in 3 files checked"]
    # both languages on the same line; paths from the current directory as in the full format
    (mini / "sub").mkdir()
    code, out, _ = run(capsys, "lint", str(mini), "--output-format", "concise")
    assert out.splitlines()[2] == (
        "perf-changelog.yaml:12:1: CHL002 [warning] Merged entry still lacks its `pr-link` / "
        "已合并条目仍缺少 `pr-link`"
    )


def test_format_and_output_format(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def fmt(*argv: str) -> str:
        return output_format(build_parser().parse_args(["lint", *argv]))

    assert fmt() == "full" and fmt("--format", "text") == "full"
    assert fmt("--format", "sarif") == "sarif"
    assert fmt("--output-format", "concise") == "concise"
    assert fmt("--format", "json", "--output-format", "json") == "json"
    # --format's default leaves --output-format free; an explicit text is `full`
    assert fmt("--format", "text", "--output-format", "full") == "full"
    code, full, _ = run(capsys, "lint", ".", "--output-format", "full")
    _, text, _ = run(capsys, "lint", ".", "--format", "text")
    assert code == 1 and full == text
    code, _, err = run(capsys, "lint", ".", "--format", "json", "--output-format", "concise")
    assert code == 2
    assert err == (
        "bot: error: --format json and --output-format concise disagree; give one of them\n"
    )


def test_sort_severity_puts_errors_first(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a warning in a file sorted before the error's
    (mini / "benchmarks/single_node/agentic/minimaxm3_fp8_b200_mtp.sh").write_text(
        (mini / AGENTIC)
        .read_text(encoding="utf-8")
        .replace("--gpu-memory-utilization 0.95", "--gpu-memory-utilization 0.90"),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "lint", ".", "--format", "json")
    assert code == 1
    by_path = [(f["path"].rsplit("/", 1)[-1], f["severity"]) for f in json.loads(out)["findings"]]
    assert by_path[0] == ("minimaxm3_fp8_b200_mtp.sh", "warning")
    _, out, _ = run(capsys, "lint", ".", "--format", "json", "--sort", "severity")
    findings = json.loads(out)["findings"]
    severities = [f["severity"] for f in findings]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert severities[0] == "error"
    # within a severity, path order
    warnings = [(f["path"], f["line"]) for f in findings if f["severity"] == "warning"]
    assert warnings == sorted(warnings)
    _, concise, _ = run(capsys, "lint", ".", "--output-format", "concise", "--sort", "severity")
    assert "[error]" in concise.splitlines()[0]
    _, text, _ = run(capsys, "lint", ".", "--sort", "severity")
    assert text.splitlines()[0].startswith(f"{AGENTIC}:30:30  error")


def test_statistics_count_the_emitted_severity(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows carry the severity the findings were reported at: the repository's override
    (RCP002 lowered to a warning) shows, not the rule's default."""
    second = mini / "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp_b.sh"
    second.write_text((mini / AGENTIC).read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run(capsys, "lint", ".", "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "2  RCP001  warning  [*] reasoning-parser-on-interleaved-thinking",
        "2  RCP002  error    [*] gpu-memory-too-high-for-draft-head",
        "1  CHL002  warning  pr-link-missing-or-wrong",
    ]
    (mini / ".recipe-bot.yml").write_text("rules:\n  severity:\n    RCP002: warning\n")
    _, out, _ = run(capsys, "lint", ".", "--statistics", "--format", "json")
    rows = json.loads(out)
    assert [(r["code"], r["severity"], r["count"]) for r in rows] == [
        ("RCP001", "warning", 2),
        ("RCP002", "warning", 2),
        ("CHL002", "warning", 1),
    ]


def test_statistics_split_a_rule_reported_at_two_severities() -> None:
    from bot.core.engine import Report
    from bot.core.model import ERROR, WARNING, Finding, Span, T
    from bot.report import stats

    def finding(severity: str, line: int) -> Finding:
        return Finding(
            rule="RCP003",
            slug="golden-al-mismatch",
            severity=severity,  # type: ignore[arg-type]
            path="x.sh",
            span=Span(line),
            title=T("t", "t"),
            message=T("m", "m"),
            fix=None,
            subject=str(line),
        )

    report = Report(
        findings=[finding(ERROR, 1), finding(WARNING, 2), finding(ERROR, 3)], files=["x.sh"]
    )
    assert stats.render(report).splitlines() == [
        "2  RCP003  error    golden-al-mismatch",
        "1  RCP003  warning  golden-al-mismatch",
    ]


def test_select_and_ignore_of_the_same_rule_warns(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "lint", ".", "--select", "RCP001,CHL", "--ignore", "RCP001", "--format", "json"
    )
    assert code == 0
    assert sorted(f["rule"] for f in json.loads(out)["findings"]) == ["CHL002"]
    assert err == ("bot: warning: --select RCP001 has no effect: --ignore RCP001 removes RCP001\n")
    # by slug on one side and a prefix on the other: still the same rule
    _, _, err = run(
        capsys,
        "lint",
        ".",
        "--extend-select",
        "reasoning-parser-on-interleaved-thinking",
        "--ignore",
        "RCP00",
        "--format",
        "json",
    )
    assert err.startswith(
        "bot: warning: --extend-select reasoning-parser-on-interleaved-thinking has no effect: "
        "--ignore RCP00 removes RCP001\n"
    )
    # a prefix selected and one of its rules ignored is the documented way: no warning
    _, _, err = run(capsys, "lint", ".", "--select", "RCP", "--ignore", "RCP001")
    assert err == ""


# ------------------------------------------------------------------ bot review


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip()


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    repo = tmp_path / "bench"
    copy_example(repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "checkout", "-qb", "pr")
    changelog = repo / "perf-changelog.yaml"
    changelog.write_text(changelog.read_text() + "\n- config-keys: [x]\n  description: [y]\n")
    _git(repo, "commit", "-qam", "entry")
    return repo


REVIEW = ["review", "--pr", "5", "--base", "main", "--head", "pr", "--dry-run"]


def test_review_without_a_github_repository_says_so(
    clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *REVIEW, "--repo", str(clone))
    assert code == 2 and out == ""
    assert err == (
        "bot: error: bot review needs the pull request's GitHub repository: the `origin` "
        f"remote of {clone} is not a GitHub URL; pass --github-repo OWNER/NAME\n"
    )
    _git(clone, "remote", "add", "origin", "/srv/git/bench.git")  # not GitHub
    code, _, err = run(capsys, *REVIEW, "--repo", str(clone))
    assert code == 2 and "pass --github-repo OWNER/NAME" in err
    assert "local/" not in err


@pytest.mark.parametrize(
    ("given", "origin", "expected"),
    [
        (["--github-repo", "acme/bench"], None, "acme/bench"),
        ([], "git@github.com:fork/bench.git", "fork/bench"),
        (["--github-repo", "acme/bench"], "https://github.com/fork/bench", "acme/bench"),
    ],
)
def test_review_takes_the_repository_from_the_option_or_origin(
    clone: Path,
    capsys: pytest.CaptureFixture[str],
    given: list[str],
    origin: str | None,
    expected: str,
) -> None:
    if origin:
        _git(clone, "remote", "add", "origin", origin)
    code, out, err = run(capsys, *REVIEW, "--repo", str(clone), "--format", "json", *given)
    assert code == 0, err
    data = json.loads(out)
    assert data["pull"].startswith(f"{expected}#5 at ")
    writes = json.dumps(data["writes"], ensure_ascii=False)
    assert f"https://github.com/{expected}/pull/5" in writes
