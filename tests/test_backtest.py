"""`bot backtest` on a synthetic repository whose PR history is known (tests/backtest_repo.py).

The answer key's figures are asserted exactly; a second run must lint nothing;
`--judge`, `--config`, `--compare`, `--select` and the process pool are run for real.
"""

from __future__ import annotations

import datetime
import io
import json
from pathlib import Path
from typing import Any

import backtest_repo
import pytest

from bot import cli
from bot.app.local import LocalRepository, MissingObject
from bot.backtest import cli as backtest_cli
from bot.backtest import history, judge, worker
from bot.core.registry import all_rules
from tests.test_git_trees import bare_mirror


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("bt") / "repo"
    return root, backtest_repo.build(root)


def backtest(*argv: str) -> tuple[int, str, str]:
    """`bot backtest ARGV` as the command line parses it; (status, stdout, stderr)."""
    args = cli.build_parser().parse_args(["backtest", "--no-progress", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = backtest_cli.main(args, out, err)
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> dict[str, Any]:
    code, out, err = backtest(*argv, "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def rules_of(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["rule"]: r for r in data["rules"]}


FIGURES = (
    "findings",
    "pulls",
    "on_head",
    "before_head",
    "fixed_later",
    "line_edited",
    "stayed_merged",
    "blocked_pulls",
)


def figures(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in FIGURES}


@pytest.fixture(scope="module")
def commits_run(
    repo: tuple[Path, dict[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    root, _ = repo
    out = tmp_path_factory.mktemp("bt-out")
    data = run_json(
        "--repo",
        str(root),
        "--commits",
        "-j",
        "1",
        "--out",
        str(out),
        "--github-repo",
        "acme/recipes",
    )
    return out, data


def test_answer_key_figures_exactly(commits_run: tuple[Path, dict[str, Any]]) -> None:
    _, data = commits_run
    rules = rules_of(data)
    assert figures(rules["RCP012"]) == {
        "findings": 3,
        "pulls": 3,
        "on_head": 2,
        "before_head": 2,
        "fixed_later": 1,
        "line_edited": 1,
        "stayed_merged": 1,
        "blocked_pulls": 0,
    }
    assert rules["RCP012"]["fixed_later_rate"] == 0.5
    assert figures(rules["RCP008"]) == {
        "findings": 2,
        "pulls": 1,
        "on_head": 0,
        "before_head": 2,
        "fixed_later": 2,
        "line_edited": 0,
        "stayed_merged": 0,
        "blocked_pulls": 0,
    }
    # every other rule that ran found nothing
    assert {r for r, row in rules.items() if row["findings"]} == {"RCP008", "RCP012"}
    totals = data["totals"]
    assert (totals["pulls"], totals["linted"], totals["with_commits"]) == (6, 5, 5)
    assert (totals["skipped_missing"], totals["failed"], totals["merged"]) == (1, 0, 3)
    assert totals["commits_linted"] == 9
    assert data["run"]["linted"] == 10 and data["run"]["reused"] == 0


def test_each_commit_against_its_own_merge_base(commits_run: tuple[Path, dict[str, Any]]) -> None:
    """PR 6 merged main in after its first commit: that commit forks from M0, not from
    the head's merge-base (against which it would seem to delete a changelog entry)."""
    _, data = commits_run
    pr6 = next(p for p in data["pulls"] if p["number"] == 6)
    assert (pr6["status"], pr6["commits_linted"], pr6["commits_known"]) == ("ok", 2, 2)
    assert [f for f in data["findings"] if f["pr"] == 6] == []


def test_each_finding_outcome_and_links(
    commits_run: tuple[Path, dict[str, Any]], repo: tuple[Path, dict[str, str]]
) -> None:
    _, shas = repo
    _, data = commits_run
    seen = {(f["pr"], f["rule"], Path(f["path"]).name): f for f in data["findings"]}
    dsr1 = seen[(1, "RCP012", "dsr1_fp8_h200.sh")]
    assert (dsr1["outcome"], dsr1["last_sha"], dsr1["removed_by"]) == (
        "fixed",
        shas["pr1c1"],
        shas["pr1c2"],
    )
    k3 = seen[(1, "RCP008", "kimik3_fp4_mi355x_mtp.sh")]
    assert (k3["outcome"], k3["line_edited"], k3["removed_by"]) == ("removed", False, shas["pr1c3"])
    assert seen[(2, "RCP012", "qwen_fp8_b200.sh")]["outcome"] == "open"
    kimi = seen[(3, "RCP012", "kimi_fp8_h200.sh")]
    assert kimi["outcome"] == "stayed"
    assert kimi["urls"] == {
        "pr": "https://github.com/acme/recipes/pull/3",
        "commit": f"https://github.com/acme/recipes/commit/{shas['pr3c1']}",
        "line": f"https://github.com/acme/recipes/blob/{shas['pr3c1']}/{backtest_repo.KIMI}#L2",
    }
    merged = {p["number"]: p["merged"] for p in data["pulls"]}
    assert merged == {1: "subject", 2: None, 3: "ancestor", 4: None, 5: "tree", 6: None}
    lost = next(p for p in data["pulls"] if p["number"] == 4)
    assert lost["status"] == "missing"
    assert lost["detail"].startswith(f"{backtest_repo.LOST} at {shas['pr4c1'][:12]}: blob ")


def test_second_run_reuses_the_store(
    commits_run: tuple[Path, dict[str, Any]],
    repo: tuple[Path, dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, first = commits_run
    root, _ = repo

    calls: list[object] = []

    def no_lint(*args: object, **kw: object) -> None:
        calls.append(args)
        raise AssertionError("a stored result was linted again")

    monkeypatch.setattr(worker, "lint_change", no_lint)
    again = run_json(
        "--repo",
        str(root),
        "--commits",
        "-j",
        "1",
        "--out",
        str(out),
        "--github-repo",
        "acme/recipes",
    )
    assert calls == []
    assert again["run"]["linted"] == 0
    assert again["run"]["reused"] == 10
    assert again["rules"] == first["rules"]
    assert again["findings"] == first["findings"]


def test_heads_only_then_commits_in_one_store(
    repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, _ = repo
    heads = run_json("--repo", str(root), "-j", "1", "--out", str(tmp_path))
    rcp012 = rules_of(heads)["RCP012"]
    # heads only: nothing is seen before a head, so nothing can be fixed later
    assert figures(rcp012) == {
        "findings": 2,
        "pulls": 2,
        "on_head": 2,
        "before_head": 0,
        "fixed_later": 0,
        "line_edited": 0,
        "stayed_merged": 1,
        "blocked_pulls": 0,
    }
    assert heads["run"]["linted"] == 6
    more = run_json(
        "--repo", str(root), "--prs", "1-2", "--commits", "-j", "1", "--out", str(tmp_path)
    )
    # only the commits before the heads of PRs 1 and 2 are new work
    assert (more["run"]["linted"], more["run"]["reused"]) == (3, 2)
    assert figures(rules_of(more)["RCP012"])["fixed_later"] == 1
    assert more["totals"]["pulls"] == 6  # the report covers the whole store


def test_process_pool_gives_the_same_answer(
    commits_run: tuple[Path, dict[str, Any]], repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, _ = repo
    _, serial = commits_run
    pooled = run_json(
        "--repo",
        str(root),
        "--commits",
        "-j",
        "2",
        "--out",
        str(tmp_path),
        "--github-repo",
        "acme/recipes",
    )
    assert pooled["rules"] == [
        {**r, "median_ms": pooled_ms}
        for r, pooled_ms in zip(
            serial["rules"], [r["median_ms"] for r in pooled["rules"]], strict=True
        )
    ]
    assert pooled["findings"] == serial["findings"]


def test_judge_reports_precision(
    commits_run: tuple[Path, dict[str, Any]], repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    out, _ = commits_run
    root, _ = repo
    template = (out / "judge-template.tsv").read_text()
    assert f"1\tRCP012\t{backtest_repo.DSR1}\t?\t" in template
    verdicts = tmp_path / "verdicts.tsv"
    verdicts.write_text(
        "# PR RULE PATH VERDICT note\n"
        f"1 RCP012 {backtest_repo.DSR1} TP split later\n"
        f"2 RCP012 {backtest_repo.QWEN} FP\n"
        f"3 RCP012 {backtest_repo.KIMI} debatable merged as is\n"
        "1 RCP008 * tp\n"
        "9 RCP001 x.sh FP no such finding\n"
    )
    data = run_json(
        "--repo", str(root), "--commits", "-j", "1", "--out", str(out), "--judge", str(verdicts)
    )
    assert data["judge"]["rules"]["RCP012"] == {
        "tp": 1,
        "fp": 1,
        "debatable": 1,
        "unjudged": 0,
        "precision": 0.5,
    }
    assert data["judge"]["rules"]["RCP008"]["tp"] == 2  # `*`: both paths of the PR
    assert data["judge"]["overall"]["precision"] == 0.75
    assert [(j["pr"], j["rule"]) for j in data["judge"]["stale"]] == [(9, "RCP001")]


def test_judge_file_errors_name_the_line() -> None:
    with pytest.raises(judge.JudgeError, match=r"v\.tsv:2: verdict 'maybe'"):
        judge.parse_verdicts("1 RCP001 a.sh TP\n2 RCP001 a.sh maybe\n", "v.tsv")
    with pytest.raises(judge.JudgeError, match=r"v\.tsv:1: want"):
        judge.parse_verdicts("1 RCP001\n", "v.tsv")


def test_candidate_config_compared_with_the_first_run(
    commits_run: tuple[Path, dict[str, Any]], repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    out, _ = commits_run
    root, _ = repo
    candidate = tmp_path / "candidate.yml"
    candidate.write_text("rules:\n  disable: [RCP012]\n")
    data = run_json(
        "--repo",
        str(root),
        "--commits",
        "-j",
        "1",
        "--out",
        str(tmp_path / "b"),
        "--config",
        str(candidate),
        "--compare",
        str(out / "backtest.sqlite"),
    )
    assert "RCP012" not in {f["rule"] for f in data["findings"]}
    assert data["compare"]["per_rule"] == {"RCP012": {"added": 0, "removed": 3}}
    assert data["compare"]["commits"] == 9
    assert data["settings"]["config"] == "rules:\n  disable: [RCP012]\n"


def test_select_limits_the_rules(repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, _ = repo
    data = run_json(
        "--repo", str(root), "-j", "1", "--out", str(tmp_path), "--select", "RCP008", "--prs", "1,3"
    )
    assert [r["rule"] for r in data["rules"]] == ["RCP008"]
    assert data["totals"]["pulls"] == 2


def test_usage_errors_are_one_line(repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, _ = repo
    for argv, message in [
        (["--prs", "9-3"], "--prs '9-3': empty range"),
        (["--prs", "400-410"], "no pull request matches"),
        (["--select", "NOPE"], "--select 'NOPE' names no rule"),
        (["--base", "trunk"], "unknown base branch 'trunk'"),
    ]:
        code, _, err = backtest("--repo", str(root), "--out", str(tmp_path), *argv)
        assert code == 2, (argv, err)
        assert err.count("\n") == 1 and message in err, err


def test_without_the_extra_it_says_what_to_install(
    repo: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name: str, *a: Any) -> Any:
        return None if name == "matplotlib" else real(name, *a)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    code, _, err = backtest("--repo", str(repo[0]), "--out", str(tmp_path))
    assert code == 2
    assert err == (
        "bot: error: bot backtest needs the backtest extra (matplotlib missing): "
        "pip install 'recipe-review-bot[backtest]'\n"
    )
    assert not (tmp_path / "backtest.sqlite").exists()


def test_missing_blob_raises_instead_of_reading_as_absent(
    repo: tuple[Path, dict[str, str]],
) -> None:
    """PR 4's recipe blob is gone from the object store: linting it raises (the commit is
    skipped as "missing"), it is not linted as a deleted file."""
    root, shas = repo

    def lint(repository: LocalRepository, sha: str, pr: int) -> list[str]:
        report = worker.lint_commit(
            repository,
            shas["push"],
            sha,
            pr=pr,
            date=datetime.date(2026, 8, 3),
            config=None,
            rules=all_rules(),
            repository=None,
        )
        return [f.rule for f in report.findings]

    with LocalRepository(root) as repository:
        with pytest.raises(MissingObject, match=r"lost_fp8_h100\.sh at [0-9a-f]{12}: blob "):
            lint(repository, shas["pr4c1"], 4)
        # the repository's one `git cat-file` process keeps working after a missing object
        assert lint(repository, shas["pr2c1"], 2) == ["RCP012"]


def test_a_bare_mirror_with_alternates_gives_the_same_answer(
    commits_run: tuple[Path, dict[str, Any]], repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """No work tree: a bare repository borrowing its objects through alternates."""
    root, _ = repo
    _, serial = commits_run
    mirror = bare_mirror(root, tmp_path / "mirror.git")
    data = run_json(
        "--repo",
        str(mirror),
        "--commits",
        "-j",
        "1",
        "--out",
        str(tmp_path / "out"),
        "--github-repo",
        "acme/recipes",
    )
    assert data["findings"] == serial["findings"]
    assert [figures(r) for r in data["rules"]] == [figures(r) for r in serial["rules"]]
    assert data["totals"]["skipped_missing"] == 1 and data["totals"]["commits_linted"] == 9


def test_line_changed(repo: tuple[Path, dict[str, str]]) -> None:
    root, shas = repo
    old, new = shas["pr1c1"], shas["pr1c2"]
    assert history.line_changed(str(root), old, new, backtest_repo.DSR1, 2) is True
    assert history.line_changed(str(root), old, new, backtest_repo.DSR1, 1) is False
    assert history.line_changed(str(root), old, new, backtest_repo.K3, 2) is False
    gone = history.line_changed(str(root), shas["pr2c1"], shas["m0"], backtest_repo.QWEN, 1)
    assert gone is True  # the file is deleted


def test_parse_numbers_and_select() -> None:
    assert history.parse_numbers("3-5, 9") == {3, 4, 5, 9}
    pulls = [history.Pull(n, "x", datetime.date(2026, 8, n)) for n in (1, 2, 3, 4)]
    chosen = history.select_pulls(pulls, {1, 2, 3}, datetime.date(2026, 8, 2), 1)
    assert [p.number for p in chosen] == [3]
