"""Replay: lint the last N merged commits that touch master configs, as pull requests.

For each commit of an InferenceX checkout that changes `configs/*-master.yaml`
(newest first), the commit's parent is the base and the commit the head; the
paths the commit changes are linted in PR mode with the commit's date as the
review date, and the master-config (CFG) findings are printed. A merged commit
is a change that reviewers accepted, so every finding here must be either a
real defect or a false positive to fix.

    python benchmarks/replay_master_configs.py                  # ../ix, 30 commits
    python benchmarks/replay_master_configs.py --repo /path/to/InferenceX --count 50
    python benchmarks/replay_master_configs.py --all-rules      # every rule, not only CFG
    python benchmarks/replay_master_configs.py --json

The repository defaults to `$INFERENCEX_DIR`, else `../ix` next to the project.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def commits(repo: Path, count: int) -> list[tuple[str, datetime.date, str]]:
    """(sha, commit date, subject) of the newest `count` commits touching master configs."""
    out = _git(
        repo,
        "log",
        f"-n{count}",
        "--format=%H%x00%cs%x00%s",
        "--",
        ":(glob)configs/*-master.yaml",
    )
    rows = []
    for line in out.splitlines():
        sha, day, subject = line.split("\x00", 2)
        rows.append((sha, datetime.date.fromisoformat(day), subject))
    return rows


def replay(repo: Path, count: int, all_rules: bool) -> list[dict[str, Any]]:
    sys.path.insert(0, str(PROJECT_ROOT))
    from bot.core.changeset import build_changeset
    from bot.core.config import build_config
    from bot.core.engine import Context, lint
    from bot.core.registry import all_rules as registry
    from bot.sources import GitTree, changed_paths

    rules = registry() if all_rules else [r for r in registry() if r.rule.id.startswith("CFG")]
    results = []
    for sha, day, subject in commits(repo, count):
        started = time.perf_counter()
        with GitTree(repo, f"{sha}^") as base, GitTree(repo, sha) as head:
            cfg_text = base.read(".recipe-bot.yml")
            config = build_config(cfg_text.decode() if cfg_text else None)
            paths = changed_paths(repo, f"{sha}^", sha)
            change = build_changeset(base, head, paths)
            ctx = Context.for_change(change, config, review_date=day)
            report = lint(ctx, paths=[p for p in paths if head.read(p) is not None], rules=rules)
        results.append(
            {
                "commit": sha[:9],
                "date": day.isoformat(),
                "subject": subject,
                "seconds": round(time.perf_counter() - started, 3),
                "findings": [
                    {
                        "rule": f.rule,
                        "severity": f.severity,
                        "path": f.path,
                        "line": f.line,
                        "in_diff": f.in_diff,
                        "message": f.message.en,
                    }
                    for f in report.findings
                ],
            }
        )
    return results


def main(argv: list[str] | None = None) -> int:
    default_repo = os.environ.get("INFERENCEX_DIR") or str(PROJECT_ROOT.parent / "ix")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=default_repo, help="InferenceX checkout with history")
    parser.add_argument("--count", type=int, default=30, help="commits to replay (default 30)")
    parser.add_argument("--all-rules", action="store_true", help="report every rule, not only CFG")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    repo = Path(args.repo)
    if not (repo / ".git").exists():
        print(f"replay: {repo} is not a git checkout; nothing to replay", file=sys.stderr)
        return 0
    results = replay(repo, args.count, args.all_rules)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    total = 0
    for row in results:
        found = row["findings"]
        total += len(found)
        print(f"{row['commit']} {row['date']} ({row['seconds']:.2f}s) {row['subject'][:90]}")
        for f in found:
            where = "in diff" if f["in_diff"] else "outside diff"
            print(
                f"    {f['severity']:7} {f['rule']} {f['path']}:{f['line']} ({where}) {f['message']}"
            )
    print(f"\n{len(results)} commits, {total} findings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
