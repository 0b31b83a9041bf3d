"""Check `bot lint --fix` on real InferenceX files: every fix lands, nothing new appears.

Two runs, each through the command line of this checkout (`python -m bot.cli`):

- the whole tree: a copy of an InferenceX checkout (the original is never written),
  `bot lint --repo COPY --fix` (safe fixes) and, on a second copy, with `--unsafe-fixes`;
- pull requests: the newest `--prs` heads of an InferenceX clone with `refs/pull/N/head`,
  each checked out into a scratch work tree (objects borrowed from the clone through
  `objects/info/alternates`) and fixed in change mode against its merge-base with `main`
  (`bot lint --repo WT --base MERGE_BASE --pr N --date HEAD_DATE --fix --unsafe-fixes`),
  as a contributor would before pushing.

For each: lint before (JSON), fix, lint again (JSON), and compare. A finding is
expected fixed when it carries a suggestion of a rule whose fix applies (safe, or unsafe
with `--unsafe-fixes`) and, in change mode, stands on a line the change touches. The
script counts the files fixed, the findings fixed (by rule, safe and unsafe), the
expected ones still there after fixing, and the new findings in the fixed files: both
must be 0. A finding after the fix is one from before when its fingerprint (rule, path,
offending text) is, so moved lines do not count; or, when the fix changed the value its
fingerprint quotes, when its rule, file and message are one's from before (counted
apart: "same finding, new subject").
It then runs `--fix` again (no byte may change) and `--diff` (empty, exit 0).

    python benchmarks/check_fix.py --tree /work/tree843 --repo /work/ix --prs 20

CI does not run it; `docs/benchmarks.md` (## Fix) quotes its figures.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.sources import CACHE_DIR_NAME

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.core.registry import get_rule  # noqa: E402

GITHUB_REPO = "SemiAnalysisAI/InferenceX"
Key = tuple[str, str, str]


def bot(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=None,
    )


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def level(rule: str) -> str | None:
    rm = get_rule(rule)
    return rm.rule.applicability.level if rm and rm.rule.applicability else None


def key(f: dict[str, Any]) -> Key:
    return (f["rule"], f["path"], f["fingerprint"])


def snapshot(root: Path) -> dict[str, bytes]:
    """The tree's files, without git's and the lint cache's (`bot.app.cache`)."""
    skip = {".git", CACHE_DIR_NAME}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and not skip & set(p.relative_to(root).parts)
    }


@dataclass
class Check:
    """What one fix run did to one tree."""

    name: str
    files: list[str] = field(default_factory=list)
    fixed: Counter[str] = field(default_factory=Counter)
    safe: int = 0
    unsafe: int = 0
    expected_left: list[Key] = field(default_factory=list)
    new: list[dict[str, Any]] = field(default_factory=list)
    # findings that stayed, with a fingerprint that quoted the value a fix changed
    requoted: list[dict[str, Any]] = field(default_factory=list)
    second_run_changed: list[str] = field(default_factory=list)
    diff_after: int = 0  # exit status of --diff after fixing (0: nothing left to fix)
    fix_secs: float = 0.0
    lint_secs: float = 0.0  # the lint before, without fixes
    findings_before: int = 0
    findings_after: int = 0
    error: str = ""


def check(name: str, root: Path, lint_args: list[str], unsafe: bool, change: bool) -> Check:
    """Lint, fix, lint again and compare, on the tree at `root` (written in place)."""
    out = Check(name)
    fix_args = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
    common = ["lint", *lint_args, "--format", "json", "--fail-on", "never", "--allow-empty"]
    t = time.perf_counter()
    first = bot(*common)
    out.lint_secs = time.perf_counter() - t
    if first.returncode != 0:
        out.error = first.stderr.strip()[-300:]
        return out
    before = json.loads(first.stdout)["findings"]
    files_before = snapshot(root)
    t = time.perf_counter()
    fixing = bot(*common, *fix_args)
    out.fix_secs = time.perf_counter() - t
    if fixing.returncode != 0:
        out.error = fixing.stderr.strip()[-300:]
        return out
    files_after = snapshot(root)
    out.files = sorted(p for p in files_after if files_after[p] != files_before.get(p))
    after = json.loads(bot(*common).stdout)["findings"]
    out.findings_before, out.findings_after = len(before), len(after)
    allowed = {"safe", "unsafe"} if unsafe else {"safe"}
    expected = [
        f
        for f in before
        if f["suggestion"] is not None
        and level(f["rule"]) in allowed
        and (not change or f["in_diff"])
    ]
    after_keys = {key(f) for f in after}
    before_keys = {key(f) for f in before}
    for f in expected:
        if key(f) in after_keys:
            out.expected_left.append(key(f))
        else:
            out.fixed[f["rule"]] += 1
            if level(f["rule"]) == "safe":
                out.safe += 1
            else:
                out.unsafe += 1
    fixed_files = set(out.files)
    # a finding after the fix is the one before when its fingerprint is, or (a fingerprint
    # that quotes the value a fix changed on the same line, e.g. RCP005 quoting the AL that
    # RCP003 corrected) when its rule, file and message are those of one before
    same_words = Counter((f["rule"], f["path"], f["message"]["en"]) for f in before)
    for f in after:
        if f["path"] not in fixed_files or key(f) in before_keys:
            continue
        words = (f["rule"], f["path"], f["message"]["en"])
        if same_words[words] > 0:
            same_words[words] -= 1
            out.requoted.append(f)
        else:
            out.new.append(f)
    again = bot(*common, *fix_args)
    if again.returncode != 0:
        out.error = again.stderr.strip()[-300:]
    third = snapshot(root)
    out.second_run_changed = sorted(p for p in third if third[p] != files_after.get(p))
    out.diff_after = bot(*common, "--diff", *fix_args[1:]).returncode
    return out


def tree_checks(tree: Path, unsafe: bool) -> Check:
    with tempfile.TemporaryDirectory(prefix="check-fix-tree-") as tmp:
        copy = Path(tmp) / "tree"
        shutil.copytree(tree, copy, symlinks=True)
        label = "whole tree, --fix --unsafe-fixes" if unsafe else "whole tree, --fix"
        return check(label, copy, ["--repo", str(copy)], unsafe, change=False)


def scratch(repo: Path) -> Path:
    """An empty work-tree repository reading `repo`'s objects."""
    objects = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")) / "objects"
    root = Path(tempfile.mkdtemp(prefix="check-fix-prs-"))
    git(root, "init", "-q")
    (root / ".git" / "objects" / "info" / "alternates").write_text(f"{objects}\n")
    return root


def newest_prs(repo: Path, count: int) -> list[int]:
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/pull/*/head").split()
    numbers = sorted((int(r.split("/")[2]) for r in refs), reverse=True)
    return numbers[:count]


def pr_checks(repo: Path, count: int, unsafe: bool) -> list[Check]:
    work = scratch(repo)
    out: list[Check] = []
    try:
        for pr in newest_prs(repo, count):
            head = git(repo, "rev-parse", f"refs/pull/{pr}/head")
            try:
                base = git(repo, "merge-base", "main", head)
                date = git(repo, "show", "-s", "--format=%cs", head)
                git(work, "checkout", "-q", "--force", "--detach", head)
                git(work, "clean", "-qfdx")
            except subprocess.CalledProcessError as exc:  # an object the clone lacks
                out.append(Check(f"#{pr}", error=f"skipped: {exc.stderr.strip()[-200:]}"))
                continue
            args = [
                "--repo",
                str(work),
                "--base",
                base,
                "--pr",
                str(pr),
                "--date",
                date,
                "--github-repo",
                GITHUB_REPO,
            ]
            out.append(check(f"#{pr}", work, args, unsafe, change=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def show(checks: list[Check], title: str) -> None:
    done = [c for c in checks if not c.error]
    fixed: Counter[str] = Counter()
    for c in done:
        fixed.update(c.fixed)
    files = sum(len(c.files) for c in done)
    print(
        f"\n{title}: {len(done)} checked"
        + (f", {len(checks) - len(done)} skipped" if len(done) < len(checks) else "")
    )
    for c in checks:
        if c.error:
            print(f"  {c.name}: {c.error}")
        elif c.files or c.expected_left or c.new:
            rules = ", ".join(f"{r} ×{n}" for r, n in sorted(c.fixed.items()))
            print(f"  {c.name}: {len(c.files)} files, {sum(c.fixed.values())} fixed ({rules})")
    print(f"  files fixed:                 {files}")
    print(
        f"  findings fixed:              {sum(fixed.values())} ({', '.join(f'{r} ×{n}' for r, n in sorted(fixed.items())) or '-'})"
    )
    print(
        f"  safe / unsafe:               {sum(c.safe for c in done)} / {sum(c.unsafe for c in done)}"
    )
    print(
        f"  findings before -> after:    {sum(c.findings_before for c in done)} -> {sum(c.findings_after for c in done)}"
    )
    left = [k for c in done for k in c.expected_left]
    print(f"  fixable findings left:       {len(left)}")
    for k in left:
        print(f"    {k}")
    new = [f for c in done for f in c.new]
    print(f"  new findings in fixed files: {len(new)}")
    for f in new:
        print(f"    {f['rule']} {f['path']}:{f['line']} {f['message']['en'][:100]}")
    requoted = [f for c in done for f in c.requoted]
    print(
        f"  same finding, new subject:   {len(requoted)} ({', '.join(sorted({f['rule'] for f in requoted})) or '-'})"
    )
    changed = [p for c in done for p in c.second_run_changed]
    print(f"  second --fix changed:        {len(changed)} files")
    print(f"  --diff after fixing, exit 1: {sum(1 for c in done if c.diff_after)}")
    secs = [c.fix_secs for c in done]
    if secs:
        plain = statistics.median(c.lint_secs for c in done)
        print(
            f"  run, median:                 lint {plain:.2f} s, lint --fix "
            f"{statistics.median(secs):.2f} s (same process start, one after the other)"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, help="an InferenceX checkout (copied, never written)")
    ap.add_argument("--repo", type=Path, help="an InferenceX clone with refs/pull/N/head")
    ap.add_argument("--prs", type=int, default=20, help="how many of the newest PRs")
    ap.add_argument("--safe-only", action="store_true", help="PRs: --fix without --unsafe-fixes")
    a = ap.parse_args()
    ok = True
    if a.tree:
        for unsafe in (False, True):
            c = tree_checks(a.tree, unsafe)
            show([c], c.name)
            ok = ok and not c.error and not c.expected_left and not c.new
    if a.repo:
        unsafe = not a.safe_only
        checks = pr_checks(a.repo, a.prs, unsafe)
        show(
            checks,
            f"{a.prs} newest PR heads, change mode, --fix{' --unsafe-fixes' if unsafe else ''}",
        )
        ok = ok and all(not c.expected_left and not c.new for c in checks)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
