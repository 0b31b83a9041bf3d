"""`bot lint --fix` and its use case (`bot.app.fix`), with ruff's fix semantics.

Every rule whose findings carry a fix declares it safe, unsafe or display-only; `--fix`
applies the safe ones, `--unsafe-fixes` the unsafe ones too, overlapping fixes land in
later passes, every fixed file is parsed again, a second `--fix` changes nothing, and
`--diff` prints a patch `git apply` and `patch` accept. Each test names what it guards.
"""

from __future__ import annotations

import datetime
import io
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bot.app import (
    FixOptions,
    LintOptions,
    fix_change,
    fix_lint,
    fix_tree,
    lint_tree,
)
from bot.app.fix import FixedFile, FixResult, FixWriteError, write_fixes
from bot.app.local import open_local_change
from bot.app.pull import local_pull, pull_change
from bot.base.tree import MemoryTree
from bot.cli import main
from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, Report, lint
from bot.core.model import DISPLAY_ONLY, SAFE, Example
from bot.core.registry import RuleModule, all_rules
from bot.github.localgit import LocalGitGateway
from tests.example_copy import copy_example

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "inferencex-mini"
AGENTIC = "benchmarks/single_node/agentic/minimaxm3_fp8_h100_mtp.sh"
LOG = "perf-changelog.yaml"
TODAY = datetime.date(2026, 8, 20)
OPTIONS = LintOptions(review_date=TODAY, workers=1)
PULL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example repository (a copy), the current directory."""
    root = tmp_path / "mini"
    copy_example(root)
    monkeypatch.chdir(root)
    return root


def _replace_line(text: str, old: str, new: str | None) -> str:
    """`text` with the line `old` replaced by `new` (None: deleted); `old` occurs once."""
    lines = text.split("\n")
    assert lines.count(old) == 1, old
    i = lines.index(old)
    return "\n".join(lines[:i] + ([] if new is None else [new]) + lines[i + 1 :])


# --------------------------------------------------------------------------- the records


def _lint_example(rm: RuleModule, ex: Example) -> Report:
    tree = MemoryTree({ex.path: ex.text, **ex.files})
    day = datetime.date.fromisoformat(ex.review_date) if ex.review_date else TODAY
    config = build_config(None)
    if ex.base is not None:
        change = build_changeset(MemoryTree(ex.base), tree, [ex.path, *ex.files], pr=ex.pr)
        ctx = Context.for_change(change, config, review_date=day)
    else:
        ctx = Context.for_tree(tree, config, pr=ex.pr, review_date=day)
    return lint(ctx, paths=[ex.path], rules=[rm])


def test_every_rule_with_a_fix_declares_its_applicability() -> None:
    """A rule whose examples' findings carry a suggestion or a proposal declares how it
    may be applied, with a reason in both languages; a rule that declares one has a
    fix to declare; text to add elsewhere (a proposal alone) is display-only."""
    suggests: set[str] = set()
    proposes: set[str] = set()
    for rm in all_rules():
        if rm.rule.target == "signoff":
            continue
        for ex in rm.rule.bad:
            for f in _lint_example(rm, ex).findings:
                if f.suggestion is not None:
                    suggests.add(f.rule)
                if f.proposal is not None:
                    proposes.add(f.rule)
    declared = {rm.rule.id: rm.rule.applicability for rm in all_rules()}
    with_fix = suggests | proposes
    missing = sorted(r for r in with_fix if declared[r] is None)
    assert not missing, f"declare Applicability(SAFE | UNSAFE | DISPLAY_ONLY, reason) in {missing}"
    stale = sorted(r for r, a in declared.items() if a is not None and r not in with_fix)
    assert not stale, f"{stale} declare a fix applicability but no example carries a fix"
    for rule_id in with_fix:
        a = declared[rule_id]
        assert a is not None
        assert a.reason.en.strip() and a.reason.zh.strip(), rule_id
        assert a.reason.placeholders() == (set(), set()), rule_id
        if rule_id not in suggests:
            assert a.level == DISPLAY_ONLY, f"{rule_id}: a proposal alone is never applied"
    assert {"CHL002", "RCP001", "RCP002", "RCP003", "CFG002"} <= with_fix
    assert declared["CHL002"] is not None and declared["CHL002"].level == SAFE


def test_explain_and_the_docs_show_the_fix_applicability(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", "RCP002"]) == 0
    out = capsys.readouterr().out
    assert "Fix applicability / 自动修复" in out
    assert "`unsafe` (不安全): applied only with `bot lint --fix --unsafe-fixes`" in out
    assert "KV cache" in out and "KV 缓存" in out
    docs = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = docs[docs.index("## CHL002") : docs.index("## CHL003")]
    assert "`safe` (安全): `bot lint --fix` applies it" in section
    section = docs[docs.index("## CFG002") : docs.index("## CFG003")]
    assert "`display-only` (仅展示)" in section


# --------------------------------------------------------------------------- per rule


def test_chl002_fix_cuts_a_malformed_pr_link_back_to_its_pull_request(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (mini / LOG).read_text()
    bad = before.replace(f"{PULL}2301\n", f"{PULL}2301/files\n")
    (mini / LOG).write_text(bad)
    code, out, _ = run(capsys, LOG, "--fix", "--lang", "en", "--output-format", "concise")
    assert (mini / LOG).read_text() == before  # the link is whole again
    assert "Fixed 1 finding (CHL002 ×1) in 1 file; 1 remaining." in out
    assert code == 0  # the merged entry without a link is a warning


@pytest.fixture
def pr_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """main: the example without its agentic recipe and last changelog entry; the working
    tree adds both (the entry without its `pr-link`), as PR #2423 did."""
    repo = tmp_path / "pr"
    copy_example(repo)
    recipe = (repo / AGENTIC).read_text()
    log = (repo / LOG).read_text()
    (repo / AGENTIC).unlink()
    entry = log[log.rindex("\n- config-keys:") :]
    (repo / LOG).write_text(log[: -len(entry)] + "\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / AGENTIC).write_text(recipe)
    (repo / LOG).write_text(log)
    monkeypatch.chdir(repo)
    return repo


def test_chl002_fix_adds_the_pr_link_of_the_change(
    pr_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = (pr_repo / LOG).read_text()
    code, out, _ = run(
        capsys, "--base", "main", "--pr", "2423", "--fix", "--output-format", "concise"
    )
    assert (pr_repo / LOG).read_text() == log + f"  pr-link: {PULL}2423\n"
    assert ": CHL002 [" not in out and "Fixed 1 finding (CHL002 ×1) in 1 file; 2 remaining." in out
    assert code == 1  # RCP002 (unsafe fix) stays an error


def test_rcp001_fix_drops_the_reasoning_parser_only_with_unsafe_fixes(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recipe = (mini / AGENTIC).read_text()
    code, out, _ = run(capsys, AGENTIC, "--select", "RCP001", "--fix", "--lang", "en")
    assert (mini / AGENTIC).read_text() == recipe
    assert "Fixed 0 findings; 1 remaining. 1 unsafe fix can be applied with --unsafe-fixes." in out
    code, out, _ = run(
        capsys, AGENTIC, "--select", "RCP001", "--fix", "--unsafe-fixes", "--lang", "en"
    )
    assert (mini / AGENTIC).read_text() == _replace_line(
        recipe, "    --reasoning-parser minimax_m3", None
    )
    assert code == 0 and "Fixed 1 finding (RCP001 ×1) in 1 file; 0 remaining." in out


def test_rcp002_fix_sets_the_siblings_memory_fraction(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recipe = (mini / AGENTIC).read_text()
    code, _, _ = run(capsys, AGENTIC, "--select", "RCP002", "--fix")
    assert code == 1 and (mini / AGENTIC).read_text() == recipe  # unsafe: not applied
    code, _, _ = run(capsys, AGENTIC, "--select", "RCP002", "--fix", "--unsafe-fixes")
    assert code == 0
    assert (mini / AGENTIC).read_text() == _replace_line(
        recipe, "    --gpu-memory-utilization 0.95", "    --gpu-memory-utilization 0.90"
    )


def test_rcp003_fix_sets_the_golden_al_of_the_drafts_curve(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The GQA draft pinned to the plain EAGLE3 curve's 2.83: its own curve says 2.78."""
    recipe = (mini / AGENTIC).read_text()
    gqa = recipe.replace('"Inferact/MiniMax-M3-EAGLE3"', '"Inferact/MiniMax-M3-EAGLE3-GQA"')
    (mini / AGENTIC).write_text(gqa)
    code, _, _ = run(capsys, AGENTIC, "--select", "RCP003", "--fix", "--unsafe-fixes")
    assert code == 0
    assert (mini / AGENTIC).read_text() == _replace_line(
        gqa, "SYNTHETIC_ACCEPT_LEN=2.83", "SYNTHETIC_ACCEPT_LEN=2.78"
    )


_MASTER = """\
minimaxm3-fp8-h100-vllm-mtp:
  image: vllm/vllm-openai:v0.27.1
  model: MiniMaxAI/MiniMax-M3-MXFP8
  model-prefix: minimaxm3
  runner: h100
  precision: fp8
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, spec-decoding: mtp, conc-list: [1, 2, 4] }
"""


def test_cfg002_proposal_is_shown_never_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "cfg"
    copy_example(repo)
    (repo / "configs").mkdir()
    (repo / "configs" / "nvidia-master.yaml").write_text(_MASTER)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "configs" / "nvidia-master.yaml").write_text(_MASTER.replace("v0.27.1", "v0.28.0"))
    monkeypatch.chdir(repo)
    log = (repo / LOG).read_bytes()
    code, out, _ = run(capsys, "--base", "main", "--fix", "--unsafe-fixes", "--lang", "en")
    assert code == 1 and "CFG002" in out and "pull/XXX" in out  # the proposal, shown
    assert (repo / LOG).read_bytes() == log
    assert "Fixed 0 findings; 1 remaining." in out


# --------------------------------------------------------------------------- passes


_OVERLAP = (
    "#!/usr/bin/env bash\n"
    'SPEC_CONFIG=\'{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", '
    '"num_speculative_tokens": 3}\'\n'
    'vllm serve "$MODEL" --gpu-memory-utilization 0.95 --reasoning-parser minimax_m3 '
    '--tool-call-parser minimax_m3 --speculative-config "$SPEC_CONFIG" &\n'
)


def test_overlapping_fixes_are_applied_in_passes() -> None:
    """RCP002 and RCP001 both rewrite the launch line: one lands in the first pass, the
    other is computed again on the new line and lands in the second."""
    files = {**{p: b for p, b in _example_files().items() if p != AGENTIC}, AGENTIC: _OVERLAP}
    result = fix_tree(MemoryTree(files), options=OPTIONS, fixes=FixOptions(unsafe=True))
    assert [sorted(f.rule for f in p.applied) for p in result.passes] == [["RCP002"], ["RCP001"]]
    (fixed,) = result.files
    assert fixed.after.decode().splitlines()[-1] == (
        'vllm serve "$MODEL" --gpu-memory-utilization 0.90 '
        '--tool-call-parser minimax_m3 --speculative-config "$SPEC_CONFIG" &'
    )
    assert result.converged
    assert not [f for f in result.report.findings if f.rule in ("RCP001", "RCP002")]


def test_passes_are_bounded() -> None:
    files = {**{p: b for p, b in _example_files().items() if p != AGENTIC}, AGENTIC: _OVERLAP}
    result = fix_tree(
        MemoryTree(files), options=OPTIONS, fixes=FixOptions(unsafe=True, max_passes=1)
    )
    assert len(result.passes) == 1 and not result.converged
    assert [f.rule for f in result.report.findings if f.rule in ("RCP001", "RCP002")] == ["RCP001"]


def _example_files() -> dict[str, bytes]:
    return {
        p.relative_to(EXAMPLE).as_posix(): p.read_bytes() for p in EXAMPLE.rglob("*") if p.is_file()
    }


def test_a_second_fix_changes_nothing(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Passes run until no fix applies (overlapping fixes included), so a second run has
    nothing left to do."""
    (mini / LOG).write_text((mini / LOG).read_text().replace("2301\n", "2301/changes\n"))
    (mini / "benchmarks/single_node/agentic/minimaxm3_fp8_b200_mtp.sh").write_text(_OVERLAP)
    code, out, _ = run(capsys, ".", "--fix", "--unsafe-fixes", "--lang", "en")
    assert "Fixed 5 findings (CHL002 ×1, RCP001 ×2, RCP002 ×2) in 3 files" in out
    snapshot = {p: p.read_bytes() for p in mini.rglob("*") if p.is_file()}
    code, out, _ = run(capsys, ".", "--fix", "--unsafe-fixes", "--lang", "en")
    assert "Fixed 0 findings; 3 remaining." in out
    assert {p: p.read_bytes() for p in mini.rglob("*") if p.is_file()} == snapshot
    code, out, err = run(capsys, ".", "--diff", "--unsafe-fixes")
    assert (code, out) == (0, "") and "No fixes available." in err


# --------------------------------------------------------------------------- --diff


def test_diff_is_a_patch_git_apply_and_patch_accept(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CRLF lines and a last line without a newline included; applying the patch gives
    the bytes `--fix` writes."""
    crlf = (mini / AGENTIC).read_text().replace("\n", "\r\n").encode()
    (mini / AGENTIC).write_bytes(crlf)
    (mini / LOG).write_text((mini / LOG).read_text().replace("2301\n", "2301/files\n"))
    tail = mini / "benchmarks/single_node/agentic/minimaxm3_fp8_b200_mtp.sh"
    tail.write_text(_OVERLAP.rstrip("\n"))
    fixed = tmp_path / "fixed"
    shutil.copytree(mini, fixed)
    _git(mini, "init", "-q")
    _git(mini, "add", "-A")
    _git(mini, "commit", "-qm", "before")
    code, patch, err = run(capsys, ".", "--diff", "--unsafe-fixes")
    assert code == 1 and "Would fix 5 findings (CHL002 ×1, RCP001 ×2, RCP002 ×2) in 3 files." in err
    assert patch.count("\n--- a/") + patch.startswith("--- a/") == 3
    assert "\\ No newline at end of file" in patch
    assert _git(mini, "status", "--porcelain") == ""  # --diff writes nothing
    (tmp_path / "fix.patch").write_bytes(patch.encode())
    _git(mini, "apply", "--check", str(tmp_path / "fix.patch"))
    dry = subprocess.run(
        ["patch", "-p1", "--dry-run", "-i", str(tmp_path / "fix.patch")],
        cwd=mini,
        capture_output=True,
        text=True,
    )
    assert dry.returncode == 0, dry.stdout + dry.stderr
    _git(mini, "apply", str(tmp_path / "fix.patch"))
    os.chdir(fixed)
    assert "Fixed 5 findings" in run(capsys, ".", "--fix", "--unsafe-fixes")[1]
    for path in (AGENTIC, LOG, tail.relative_to(mini).as_posix()):
        assert (mini / path).read_bytes() == (fixed / path).read_bytes(), path
    assert (mini / AGENTIC).read_bytes().count(b"\r\n") == crlf.count(b"\r\n") - 1
    assert not (fixed / tail.relative_to(mini)).read_bytes().endswith(b"\n")


# --------------------------------------------------------------------------- re-parse


def test_a_fix_that_breaks_the_parse_is_refused() -> None:
    """Two fixes in one file: the one that leaves a bash quote open is refused, the
    other applied. (The rules' own suggestions never do this; a suggestion is made to
    break here.)"""
    tree = MemoryTree(_example_files())
    result = lint_tree(tree, options=OPTIONS)
    broken = []
    for f in result.report.findings:
        if f.rule == "RCP001":
            f = replace(f, suggestion='    --reasoning-parser "minimax_m3')
        broken.append(f)
    result.runs[0].report = replace(result.runs[0].report, findings=broken)
    fixed = fix_lint(result, options=OPTIONS, fixes=FixOptions(unsafe=True))
    assert [(r.finding.rule, r.reason) for r in fixed.refused] == [("RCP001", "unparseable")]
    assert [f.rule for f in fixed.fixed] == ["RCP002"]
    text = fixed.files[0].after.decode()
    assert "--gpu-memory-utilization 0.90\n" in text and '"minimax_m3' not in text
    assert "RCP001" in {f.rule for f in fixed.report.findings}  # tried once, left as it is
    assert len(fixed.passes) == 1


def test_a_stale_finding_is_not_applied() -> None:
    """A finding whose line no longer reads as it quoted (the file changed under it)."""
    tree = MemoryTree(_example_files())
    result = lint_tree(tree, options=OPTIONS)
    moved = [
        replace(f, span=replace(f.span, line=f.span.line - 1)) if f.rule == "RCP002" else f
        for f in result.report.findings
    ]
    result.runs[0].report = replace(result.runs[0].report, findings=moved)
    fixed = fix_lint(result, options=OPTIONS, fixes=FixOptions(unsafe=True))
    assert ("RCP002", "stale") in [(r.finding.rule, r.reason) for r in fixed.refused]
    assert b"--tensor-parallel-size" in fixed.files[0].after  # the line above is intact


# --------------------------------------------------------------------------- writing


def test_fix_keeps_mode_and_line_endings_and_leaves_no_temporary_file(
    mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = mini / AGENTIC
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    path.chmod(0o750)
    before = set(path.parent.iterdir())
    assert run(capsys, AGENTIC, "--fix", "--unsafe-fixes")[0] == 0
    data = path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") and b"0.90\r\n" in data
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert set(path.parent.iterdir()) == before


def test_fix_never_writes_outside_the_repository(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recipe that links outside the repository is neither read nor written; a file
    swapped for such a link between the lint and the write is refused, and the other
    files are written."""
    outside = tmp_path / "elsewhere.sh"
    outside.write_bytes((mini / AGENTIC).read_bytes())
    (mini / AGENTIC).unlink()
    (mini / AGENTIC).symlink_to(outside)
    assert run(capsys, ".", "--fix", "--unsafe-fixes")[0] == 0
    assert b"0.95" in outside.read_bytes()
    (mini / AGENTIC).unlink()
    (mini / AGENTIC).write_bytes(outside.read_bytes())
    (mini / LOG).write_text((mini / LOG).read_text().replace("2301\n", "2301/files\n"))
    result = fix_tree(
        MemoryTree(_files_of(mini)), root=mini, options=OPTIONS, fixes=FixOptions(unsafe=True)
    )
    assert [f.path for f in result.files] == [AGENTIC, LOG]
    (mini / AGENTIC).unlink()
    (mini / AGENTIC).symlink_to(outside)
    with pytest.raises(FixWriteError, match="resolves outside the repository"):
        write_fixes(result)
    assert b"0.95" in outside.read_bytes()
    assert f"{PULL}2301\n" in (mini / LOG).read_text()


def _files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_file_changed_since_it_was_linted_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "a.sh").write_bytes(b"new\n")
    result = FixResult(
        files=[FixedFile("a.sh", b"old\n", b"fixed\n", tmp_path)],
        passes=[],
        lint=None,  # type: ignore[arg-type]
        before=None,  # type: ignore[arg-type]
        converged=True,
        options=FixOptions(),
    )
    with pytest.raises(FixWriteError, match="changed on disk"):
        write_fixes(result)
    assert (tmp_path / "a.sh").read_bytes() == b"new\n"


def test_fix_with_head_is_a_usage_error(pr_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _git(pr_repo, "checkout", "-qb", "pr")
    _git(pr_repo, "add", "-A")
    _git(pr_repo, "commit", "-qm", "pr")
    code, _, err = run(capsys, "--base", "main", "--head", "HEAD", "--fix")
    assert code == 2
    assert "--fix writes the fixed files into the working tree, and --head HEAD" in err
    code, patch, _ = run(capsys, "--base", "main", "--head", "HEAD", "--pr", "2423", "--diff")
    assert code == 1 and f"+  pr-link: {PULL}2423" in patch  # --diff writes nothing: allowed


def test_fix_on_stdin_prints_the_fixed_text(
    mini: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recipe = (mini / AGENTIC).read_bytes()

    class Stdin:
        buffer = io.BytesIO(recipe)

    monkeypatch.setattr(sys, "stdin", Stdin)
    code, out, err = run(
        capsys, "-", "--stdin-filename", AGENTIC, "--fix", "--unsafe-fixes", "--lang", "en"
    )
    assert code == 0
    assert out == recipe.decode().replace("0.95", "0.90").replace(
        "    --reasoning-parser minimax_m3\n", ""
    )
    assert "Fixed 2 findings" in err  # the report goes to stderr
    assert (mini / AGENTIC).read_bytes() == recipe


# --------------------------------------------------------------------------- exit status


def test_exit_statuses_follow_ruff(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = (mini / AGENTIC).read_bytes()
    # --fix: what remains decides (RCP002, an error, stays: its fix is unsafe)
    assert run(capsys, ".", "--fix")[0] == 1
    assert run(capsys, ".", "--fix", "--exit-zero")[0] == 0
    # --fix-only: 0 whatever remains, and nothing is reported on stdout
    code, out, err = run(capsys, ".", "--fix-only")
    assert (code, out) == (0, "") and "Fixed 0 findings." in err
    # --diff: 1 when there is something to fix
    assert run(capsys, ".", "--diff")[0] == 0
    assert run(capsys, ".", "--diff", "--unsafe-fixes")[0] == 1
    assert run(capsys, ".", "--diff", "--unsafe-fixes", "--exit-zero")[0] == 0
    assert (mini / AGENTIC).read_bytes() == recipe
    # --exit-non-zero-on-fix: 1 when a file was fixed, even with nothing left
    code, _, _ = run(capsys, AGENTIC, "--fix-only", "--unsafe-fixes", "--exit-non-zero-on-fix")
    assert code == 1 and (mini / AGENTIC).read_bytes() != recipe
    assert run(capsys, AGENTIC, "--fix", "--exit-non-zero-on-fix")[0] == 0


# --------------------------------------------------------------------------- changes


def test_a_change_is_fixed_only_on_the_lines_it_touches(
    pr_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The recipe is on the base; the change edits one comment of it: RCP001 and RCP002
    stand on lines the change does not touch, so --fix leaves them."""
    _git(pr_repo, "add", "-A")
    _git(pr_repo, "commit", "-qm", "the recipe lands on main")
    recipe = (pr_repo / AGENTIC).read_text()
    edited = recipe.replace("# H100 MiniMax-M3", "# H100 MiniMax-M3 (edited)")
    (pr_repo / AGENTIC).write_text(edited)
    code, out, _ = run(capsys, "--base", "main", "--fix", "--unsafe-fixes", "--lang", "en")
    assert code == 1 and "RCP002" in out and "RCP001" in out
    assert "Fixed 0 findings; 2 remaining." in out
    assert (pr_repo / AGENTIC).read_text() == edited


def test_the_service_and_the_cli_fix_a_head_alike(pr_repo: Path) -> None:
    """`fix_change` on the gateway's change (GitHub's patches, lazy trees) and on local
    git give the same bytes: the check run's "apply safe fixes" is `bot lint --fix`."""
    _git(pr_repo, "checkout", "-qb", "pr")
    _git(pr_repo, "add", "-A")
    _git(pr_repo, "commit", "-qm", "pr")
    fixes = FixOptions(unsafe=True)
    with open_local_change(pr_repo, "main", "pr", pr=3, repository="acme/bench") as change:
        local = fix_change(change, options=OPTIONS, fixes=fixes)
    pull = local_pull(pr_repo, 3, "main", "pr", repository="acme/bench", author="alice")
    gw = LocalGitGateway(pr_repo, {3: pull})
    try:
        change = pull_change(gw, pull, gw.pull_files("acme/bench", 3))
        assert change.patches
        service = fix_change(change, options=OPTIONS, fixes=fixes)
    finally:
        gw.close()
    assert [(f.path, f.before, f.after) for f in service.files] == [
        (f.path, f.before, f.after) for f in local.files
    ]
    assert sorted(f.rule for f in local.fixed) == ["CHL002", "RCP001", "RCP002"]
    assert service.diff() == local.diff()


# --------------------------------------------------------------------------- pre-commit


def test_the_fixing_hook_fixes_and_reports(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ruamel.yaml import YAML

    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    plain = next(h for h in hooks if h["id"] == "recipe-review")
    hook = next(h for h in hooks if h["id"] == "recipe-review-fix")
    assert hook["files"] == plain["files"] and hook["language"] == "python"
    command = hook["entry"].split()
    assert command[:3] == ["bot", "lint", "--fix"]
    (mini / LOG).write_text((mini / LOG).read_text().replace("2301\n", "2301/files\n"))
    code = main([*command[1:], *hook["args"], LOG, AGENTIC])
    out = capsys.readouterr().out
    assert f"{PULL}2301\n" in (mini / LOG).read_text()
    assert code == 1 and "RCP002" in out and "\x1b[" not in out
    assert "Fixed 1 finding (CHL002 ×1) in 1 file" in out


def test_githubs_patches_do_not_decide_what_is_fixed(pr_repo: Path) -> None:
    """A change whose patch shows only part of a file (GitHub truncates large diffs) is
    fixed as its trees show it, as `bot lint --fix` on a checkout would."""
    recipe = (pr_repo / AGENTIC).read_text()
    proven = recipe.replace("0.95", "0.90").replace("    --reasoning-parser minimax_m3\n", "")
    (pr_repo / AGENTIC).write_text(proven)
    _git(pr_repo, "add", "-A")
    _git(pr_repo, "commit", "-qm", "the recipe lands on main, proven")
    _git(pr_repo, "checkout", "-qb", "pr")
    (pr_repo / AGENTIC).write_text(recipe.replace("# H100", "# h100"))
    _git(pr_repo, "commit", "-qam", "pr: a comment, the memory fraction, a reasoning parser")
    fixes = FixOptions(unsafe=True, max_passes=1)  # what the first pass decides
    first_hunk = "@@ -3,1 +3,1 @@\n-# H100 MiniMax-M3\n+# h100 MiniMax-M3"
    with open_local_change(pr_repo, "main", "pr", pr=3, repository="acme/bench") as change:
        local = fix_change(change, options=OPTIONS, fixes=fixes)
        change.patches = {AGENTIC: first_hunk}
        partial = fix_change(change, options=OPTIONS, fixes=fixes)
    assert sorted(f.rule for f in local.fixed) == ["RCP001", "RCP002"]
    assert partial.diff() == local.diff()
