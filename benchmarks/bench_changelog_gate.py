"""Benchmark: replay real InferenceX commit pairs through the repository's changelog gate and ours.

For each pair (base, head) it runs the target repository's own validator,
`utils/validate_perf_changelog.py --base-ref BASE --head-ref HEAD`, exactly as
`run-sweep.yml` does (from a checkout of HEAD, because the validator reads the
master configs and the sweep generator from its working directory), and our
changelog gate (rules CHL* and CFG002) in this process on the same two commits
read from git. It prints both verdicts and times per pair, then the agreement
and the time ratio.

Pairs: the last `--count` first-parent commits that touch `perf-changelog.yaml`
or `configs/*-master.yaml`, each against its first parent, plus a few more
real pairs: spans of consecutive merges, a merge replayed backwards (it
deletes an entry), two reverts, a pr-link-only correction and the conflict
resolution the repository's own tests pin (PR 1717). For a pair whose head
predates `utils/validate_perf_changelog.py`, today's validator runs (as in that
test). The `contract` column is informational: the same file's byte contract
(`compare_entries` + `validate_raw_change`), which the merge helper
`prepare_perf_changelog_merge.py` enforces but the CI check does not run.

Our time is cold: the parse cache is emptied before every pair, and the time
includes reading both commits from git. Theirs is the validator's process
wall time (it starts `process_changelog.py`, which starts the sweep generator);
the checkout of HEAD is not counted.

    python benchmarks/bench_changelog_gate.py                 # ../ix, 60 commits + extras
    python benchmarks/bench_changelog_gate.py --repo /path/to/InferenceX --count 20
    python benchmarks/bench_changelog_gate.py --json

Needs `git`, and PyYAML and pydantic in this Python (the validator imports
them): `pip install pyyaml pydantic`. CI does not run this benchmark.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
VALIDATOR = "utils/validate_perf_changelog.py"
CHANGELOG = "perf-changelog.yaml"
WATCHED = (CHANGELOG, "configs/*-master.yaml")
TIMEOUT_S = 600.0
HOSTILE_BUDGET_S = 5.0

# Real pairs beyond the recent history, by what they exercise: (base, head, what).
# A base of None means the head's first parent.
EXTRA_PAIRS: tuple[tuple[str | None, str, str], ...] = (
    (None, "69af6a4e1", "revert that deletes an entry"),
    (None, "584396d71", "revert that deletes an entry"),
    (None, "862fcad18", "pr-link-only corrections of merged entries"),
    (
        "add33814cce15d0b71e3c98eca4bb2f7ad8aba96",
        "60bf726a7f324a01e8850d228c8f0f7a6f203dbd",
        "PR 1717 conflict resolution (pinned by the repository's tests)",
    ),
)


@dataclass
class Pair:
    base: str
    head: str
    kind: str
    pr: int | None
    note: str = ""
    files: list[str] = field(default_factory=list)
    theirs: str = ""  # "pass" | "reject" | "n/a"
    their_reason: str = ""
    their_s: float | None = None
    their_from: str = ""  # "" or "HEAD": the validator came from the newest commit
    contract: str = ""  # the repository's byte contract: "pass" | "reject" | "-"
    contract_reason: str = ""
    ours: str = ""
    our_rules: list[str] = field(default_factory=list)
    our_warnings: list[str] = field(default_factory=list)
    our_s: float | None = None

    @property
    def compared(self) -> bool:
        return self.theirs in ("pass", "reject")

    @property
    def agree(self) -> bool:
        return self.theirs == self.ours


# --------------------------------------------------------------------------- git


def git(repo: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    if check and proc.returncode != 0:
        raise SystemExit(f"bench_changelog_gate: git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def resolve(repo: Path, ref: str) -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", ref + "^{commit}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() or None


def has_file(repo: Path, ref: str, path: str) -> bool:
    proc = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{ref}:{path}"],
        capture_output=True,
        check=False,
    )
    return proc.returncode == 0


def pr_of(repo: Path, sha: str) -> int | None:
    """The pull request a squash merge came from: the last `(#N)` of its subject."""
    subject = git(repo, "log", "-1", "--format=%s", sha)
    found = re.findall(r"\(#(\d+)\)", subject)
    return int(found[-1]) if found else None


def changed_files(repo: Path, base: str, head: str) -> list[str]:
    """Paths that differ between two commits (two-dot, as the validator's `git diff`)."""
    out = git(repo, "diff", "--name-only", "--no-renames", base, head)
    return sorted(p for p in out.splitlines() if p)


def collect_pairs(repo: Path, count: int) -> list[Pair]:
    shas = git(
        repo, "log", "--first-parent", f"-n{count}", "--format=%H", "HEAD", "--", *WATCHED
    ).split()
    pairs = [Pair(f"{sha}^1", sha, "merge", pr_of(repo, sha)) for sha in shas]
    if shas:
        # spans of consecutive merges, as a push to main that carries several
        for i, depth in ((0, 3), (5, 2), (10, 4)):
            if i < len(shas):
                head = shas[i]
                pairs.append(Pair(f"{head}~{depth}", head, f"span of {depth}", None))
        # the newest merge backwards: its entry is deleted
        pairs.append(Pair(shas[0], f"{shas[0]}^1", "backwards", None, "deletes the newest entry"))
    for base, head, note in EXTRA_PAIRS:
        if resolve(repo, head) is None:
            continue
        pairs.append(Pair(base or f"{head}^1", head, "extra", pr_of(repo, head), note))
    for pair in pairs:
        pair.base = resolve(repo, pair.base) or pair.base
        pair.head = resolve(repo, pair.head) or pair.head
        pair.files = [
            p
            for p in changed_files(repo, pair.base, pair.head)
            if p == CHANGELOG or re.fullmatch(r"configs/[^/]*-master\.yaml", p)
        ]
    return pairs


# --------------------------------------------------------------------------- theirs


def validator_env() -> dict[str, str]:
    """This Python first on PATH: `process_changelog.py` starts the generator as `python3`."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    return env


def missing_deps() -> list[str]:
    return [m for m in ("yaml", "pydantic") if importlib.util.find_spec(m) is None]


def run_theirs(repo: Path, worktree: Path, pair: Pair, newest: str) -> None:
    checkout = pair.head
    if not has_file(repo, pair.head, VALIDATOR):
        # the pair predates the validator: run today's, as the repository's own
        # test of the PR 1717 pair does (it reads the pair's commits from git)
        checkout, pair.their_from = newest, "HEAD"
    git(worktree, "checkout", "--quiet", "--force", "--detach", checkout)
    git(worktree, "clean", "-fdxq")
    cmd = [
        sys.executable,
        VALIDATOR,
        "--changelog-file",
        CHANGELOG,
        "--base-ref",
        pair.base,
        "--head-ref",
        pair.head,
    ]
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd,
            cwd=worktree,
            capture_output=True,
            text=True,
            env=validator_env(),
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pair.their_s = time.perf_counter() - start
        pair.theirs = "n/a"
        pair.their_reason = f"timed out after {TIMEOUT_S:.0f} s"
        return
    pair.their_s = time.perf_counter() - start
    pair.theirs = "pass" if proc.returncode == 0 else "reject"
    if proc.returncode != 0:
        pair.their_reason = _reason(proc.stderr or proc.stdout)
    run_contract(worktree, pair)


# The byte contract of the same file (`compare_entries` + `validate_raw_change`), which
# the merge helper `prepare_perf_changelog_merge.py` enforces; informational only.
CONTRACT = r"""
import sys
sys.path.insert(0, "utils")
from validate_perf_changelog import (
    ChangelogValidationError, compare_entries, parse_changelog, read_git_file,
    validate_raw_change,
)
base_ref, head_ref, pr = sys.argv[1], sys.argv[2], sys.argv[3]
base = read_git_file(base_ref, "perf-changelog.yaml")
head = read_git_file(head_ref, "perf-changelog.yaml")
if base == head:
    print("-")
    raise SystemExit(0)
try:
    additions, corrections = compare_entries(
        parse_changelog(base, "base"), parse_changelog(head, "head"), int(pr) if pr else None
    )
    validate_raw_change(base, head, len(additions), corrections)
except ChangelogValidationError as exc:
    print("reject: " + str(exc).splitlines()[0])
    raise SystemExit(0)
print("pass")
"""


def run_contract(worktree: Path, pair: Pair) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CONTRACT, pair.base, pair.head, str(pair.pr or "")],
        cwd=worktree,
        capture_output=True,
        text=True,
        env=validator_env(),
        timeout=TIMEOUT_S,
        check=False,
    )
    out = proc.stdout.strip()
    if proc.returncode != 0 or not out:
        pair.contract, pair.contract_reason = "n/a", _reason(proc.stderr)
    elif out.startswith("reject: "):
        pair.contract, pair.contract_reason = "reject", out[len("reject: ") :][:160]
    else:
        pair.contract = out


def _reason(text: str) -> str:
    """The validator's own explanation, on one line."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    for marker in ("ValueError:", "ChangelogValidationError", "ERROR:", "Error"):
        hits = [ln for ln in lines if marker in ln]
        if hits:
            return hits[-1][:160]
    return (lines[-1] if lines else "no output")[:160]


# --------------------------------------------------------------------------- ours


def gate_rules() -> list[Any]:
    from bot.core.registry import all_rules

    return [rm for rm in all_rules() if rm.rule.id.startswith("CHL") or rm.rule.id == "CFG002"]


def run_ours(repo: Path, pair: Pair, rules: list[Any]) -> None:
    from bot.core.changeset import build_changeset
    from bot.core.config import build_config
    from bot.core.engine import Context, lint, route
    from bot.sources import GitTree

    # cold: each context has its own parse cache, so every pair parses both sides again
    start = time.perf_counter()
    with GitTree(repo, pair.base) as base, GitTree(repo, pair.head) as head:
        raw = base.read(".recipe-bot.yml")
        config = build_config(raw.decode("utf-8", "replace") if raw is not None else None)
        changed = changed_files(repo, pair.base, pair.head)
        paths = [p for p in changed if route(p, config) in ("changelog", "master_config")]
        change = build_changeset(base, head, changed, pr=pair.pr)
        ctx = Context.for_change(change, config)
        report = lint(ctx, paths=paths, rules=rules)
    pair.our_s = time.perf_counter() - start
    errors = [f for f in report.findings if f.severity == "error"]
    pair.ours = "reject" if errors else "pass"
    pair.our_rules = sorted({f"{f.rule}@{f.line}" for f in errors})
    pair.our_warnings = sorted({f"{f.rule}@{f.line}" for f in report.findings if f not in errors})


# --------------------------------------------------------------------------- hostile


class Overlay:
    """A tree that replaces some files of another tree."""

    def __init__(self, tree: Any, files: dict[str, bytes]) -> None:
        self._tree = tree
        self._files = files

    def read(self, path: str) -> bytes | None:
        return self._files[path] if path in self._files else self._tree.read(path)

    def paths(self) -> Iterable[str]:
        return sorted(set(self._tree.paths()) | set(self._files))

    def blob_id(self, path: str) -> str | None:
        from bot.core.tree import content_id

        if path in self._files:
            return content_id(self._files[path])
        result: str | None = self._tree.blob_id(path)
        return result


def hostile_cases(base_text: str) -> dict[str, bytes]:
    link = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
    levels = ["  k0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"]
    for i in range(1, 9):
        levels.append(f"  k{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n")
    bomb = base_text + "\n- config-keys:\n    - dsv4-fp4-b200-vllm-agentic-mtp\n" + "".join(levels)

    def entries(n: int) -> str:
        return "".join(
            f"\n- config-keys:\n    - dsv4-fp4-*-bench-{i}\n  description:\n"
            f'    - "Rerun {i}"\n  pr-link: {link}{2800 + i}\n'
            for i in range(n)
        )

    return {
        "alias bomb appended": bomb.encode(),
        "50 MB changelog": (
            base_text + "\n- config-keys:\n    - " + "x" * (50 << 20) + "\n"
        ).encode(),
        "10,000 entries appended": (base_text + entries(10_000)).encode(),
        "7,000 entries appended (under the node limit)": (base_text + entries(7_000)).encode(),
    }


def run_hostile(repo: Path, rules: list[Any]) -> list[dict[str, Any]]:
    from bot.core.changeset import build_changeset
    from bot.core.config import build_config
    from bot.core.engine import Context, lint
    from bot.sources import GitTree

    out: list[dict[str, Any]] = []
    with GitTree(repo, "HEAD") as base:
        raw = base.read(CHANGELOG)
        base_text = raw.decode("utf-8") if raw is not None else ""
        for name, data in hostile_cases(base_text).items():
            head = Overlay(base, {CHANGELOG: data})
            start = time.perf_counter()
            crashed = ""
            findings: list[str] = []
            try:
                change = build_changeset(base, head, [CHANGELOG], pr=2800)
                ctx = Context.for_change(change, build_config(None))
                report = lint(ctx, paths=[CHANGELOG], rules=rules)
                counts: dict[str, int] = {}
                for f in report.findings:
                    counts[f.rule] = counts.get(f.rule, 0) + 1
                findings = [f"{k}x{v}" for k, v in sorted(counts.items())]
                first = report.findings[0].message.en[:90] if report.findings else ""
            except Exception as exc:  # the point of the exercise: report, do not hide
                crashed = f"{type(exc).__name__}: {exc}"[:160]
                first = ""
            elapsed = time.perf_counter() - start
            out.append(
                {
                    "case": name,
                    "bytes": len(data),
                    "seconds": elapsed,
                    "findings": findings,
                    "first": first,
                    "crashed": crashed,
                    "ok": not crashed and bool(findings) and elapsed <= HOSTILE_BUDGET_S,
                }
            )
    return out


# --------------------------------------------------------------------------- report


def fmt_s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_pairs(pairs: list[Pair]) -> None:
    print(
        f"{'head':9} {'kind':11} {'files':5} {'theirs':7} {'s':>6}  {'ours':7} {'s':>5}  "
        f"{'agree':5}  {'contract':8}  detail"
    )
    for p in pairs:
        flags = ("C" if CHANGELOG in p.files else "-") + (
            "M" if any(f != CHANGELOG for f in p.files) else "-"
        )
        agree = "yes" if p.compared and p.agree else ("-" if not p.compared else "NO")
        detail = []
        if p.their_from:
            detail.append(f"validator from {p.their_from}")
        if p.their_reason:
            detail.append(f"theirs: {p.their_reason}")
        if p.contract_reason:
            detail.append(f"contract: {p.contract_reason}")
        if p.our_rules:
            detail.append("ours: " + " ".join(p.our_rules[:6]))
        if p.our_warnings:
            detail.append("warn: " + " ".join(p.our_warnings[:4]))
        if p.note:
            detail.append(f"({p.note})")
        print(
            f"{p.head[:9]} {p.kind:11} {flags:5} {p.theirs:7} {fmt_s(p.their_s):>6}  "
            f"{p.ours:7} {fmt_s(p.our_s):>5}  {agree:5}  {p.contract or '-':8}  "
            f"{' | '.join(detail)}"
        )


def summarise(pairs: list[Pair]) -> dict[str, Any]:
    compared = [p for p in pairs if p.compared and p.our_s is not None]
    theirs = [p.their_s for p in compared if p.their_s is not None]
    ours = [p.our_s for p in compared if p.our_s is not None]
    per_pair = [p.their_s / p.our_s for p in compared if p.their_s is not None and p.our_s]
    return {
        "pairs": len(pairs),
        "compared": len(compared),
        "agree": sum(p.agree for p in compared),
        "both_reject": sum(p.agree and p.ours == "reject" for p in compared),
        "both_pass": sum(p.agree and p.ours == "pass" for p in compared),
        "disagreements": [
            {
                "head": p.head[:9],
                "kind": p.kind,
                "theirs": p.theirs,
                "ours": p.ours,
                "our_rules": p.our_rules,
                "contract": p.contract,
                "why": p.their_reason,
            }
            for p in compared
            if not p.agree
        ],
        "at_least_3x": sum(r >= 3 for r in per_pair),
        "validator_from_head": sum(p.their_from == "HEAD" for p in compared),
        "theirs_median_s": statistics.median(theirs) if theirs else None,
        "ours_median_s": statistics.median(ours) if ours else None,
        "ratio_of_medians": (statistics.median(theirs) / statistics.median(ours))
        if theirs and ours
        else None,
        "per_pair_ratio_median": statistics.median(per_pair) if per_pair else None,
        "per_pair_ratio_min": min(per_pair) if per_pair else None,
        "theirs_total_s": sum(theirs),
        "ours_total_s": sum(ours),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repo",
        type=Path,
        default=None,
        help="InferenceX clone with history (default: $INFERENCEX_DIR, else ../ix)",
    )
    ap.add_argument("--count", type=int, default=60, help="recent merges to replay (default 60)")
    ap.add_argument("--no-extras", action="store_true", help="only the recent merges")
    ap.add_argument("--no-hostile", action="store_true", help="skip the hostile changelogs")
    ap.add_argument("--json", action="store_true", help="print machine-readable figures")
    args = ap.parse_args(argv)
    env = os.environ.get("INFERENCEX_DIR")
    repo = (args.repo or (Path(env) if env else PROJECT_ROOT.parent / "ix")).resolve()
    if not (repo / ".git").exists():
        print(f"bench_changelog_gate: not a git clone: {repo} (pass --repo DIR)", file=sys.stderr)
        return 2
    missing = missing_deps()
    if missing:
        print(
            "bench_changelog_gate: the repository's validator needs "
            f"{' and '.join(missing)} in this Python ({sys.executable}).\n"
            "  install them with: pip install pyyaml pydantic",
            file=sys.stderr,
        )
        return 2
    sys.path.insert(0, str(PROJECT_ROOT))

    pairs = collect_pairs(repo, args.count)
    if args.no_extras:
        pairs = [p for p in pairs if p.kind == "merge"]
    rules = gate_rules()
    newest = resolve(repo, "HEAD") or "HEAD"
    with tempfile.TemporaryDirectory(prefix="bench-changelog-gate-") as tmp:
        worktree = Path(tmp) / "wt"
        git(repo, "worktree", "add", "--quiet", "--detach", str(worktree), pairs[0].head)
        try:
            for n, pair in enumerate(pairs, 1):
                print(f"[{n}/{len(pairs)}] {pair.head[:9]}", file=sys.stderr, flush=True)
                run_ours(repo, pair, rules)
                run_theirs(repo, worktree, pair, newest)
        finally:
            git(repo, "worktree", "remove", "--force", str(worktree), check=False)
            git(repo, "worktree", "prune", check=False)
    hostile = [] if args.no_hostile else run_hostile(repo, rules)
    summary = summarise(pairs)

    if args.json:
        print(
            json.dumps(
                {"pairs": [asdict(p) for p in pairs], "summary": summary, "hostile": hostile},
                indent=2,
            )
        )
    else:
        print_pairs(pairs)
        print()
        s = summary
        print(
            f"pairs: {s['pairs']}, compared: {s['compared']} "
            f"({s['validator_from_head']} with today's validator), "
            f"agree: {s['agree']} (both reject {s['both_reject']}, both pass {s['both_pass']})"
        )
        for d in s["disagreements"]:
            print(
                f"  disagree {d['head']} ({d['kind']}): theirs {d['theirs']}, ours {d['ours']} "
                f"{' '.join(d['our_rules'])}; contract {d['contract']}  {d['why']}"
            )
        print(
            f"median per pair: theirs {fmt_s(s['theirs_median_s'])} s, "
            f"ours {fmt_s(s['ours_median_s'])} s (cold); "
            f"ratio of medians {s['ratio_of_medians']:.1f}x; "
            f"per-pair ratio median {s['per_pair_ratio_median']:.1f}x, "
            f"min {s['per_pair_ratio_min']:.1f}x; {s['at_least_3x']}/{s['compared']} pairs >= 3x; "
            f"totals {s['theirs_total_s']:.1f} s vs {s['ours_total_s']:.1f} s"
        )
        if hostile:
            print()
            print(f"hostile changelogs in PR mode against {CHANGELOG} at HEAD (budget 5 s):")
            for h in hostile:
                status = "ok" if h["ok"] else "FLAGGED"
                print(
                    f"  {h['case']:46} {h['bytes']:>11,} B  {h['seconds']:5.2f} s  {status:7} "
                    f"{' '.join(h['findings']) or '-'}  {h['crashed'] or h['first']}"
                )
    bad_hostile = any(not h["ok"] for h in hostile)
    return 1 if bad_hostile else 0


if __name__ == "__main__":
    raise SystemExit(main())
