"""Bytes per review on real pull requests: what the service would post, before and after.

For each pull request the review is rendered as the service would post it, from local
git (`bot review --dry-run --format json`: the service's pipeline over the clone, every
write recorded, none sent), by two builds of the bot: `--before` (a reference build)
and `--after` (this one). Each PR is reviewed at its head (`refs/pull/N/head`) against
its merge-base with `main`, on the date of its head commit, as the bot's first review.

Counted, in UTF-8 bytes: the bodies a reader gets in the pull request's conversation and
"Files changed": the review's body, each inline comment, the summary comment (the
commit status's 140-character description is left out). The check run (after only) is
counted apart: its title, summary, details and annotation messages, shown on the Checks
tab rather than in the conversation.

    python benchmarks/bench_review_size.py --repo /work/ix \\
        --before /work/ref1/.venv/bin/bot --after .venv/bin/bot --prs 2690-2709
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "SemiAnalysisAI/InferenceX"


def git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def render(bot: str, repo: str, pr: int, base: str, date: str) -> dict[str, Any]:
    argv = [bot, "review", "--repo", repo, "--pr", str(pr), "--base", base]
    argv += ["--head", f"refs/pull/{pr}/head", "--dry-run", "--github-repo", REPOSITORY]
    argv += ["--date", date, "--format", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"#{pr}: {bot} failed: {done.stderr.strip()[-400:]}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def size(text: str | None) -> int:
    return len((text or "").encode("utf-8"))


def measure(writes: list[dict[str, Any]]) -> dict[str, int]:
    """Bytes of the conversation (review, inline comments, summary) and of the check run."""
    out = {"review": 0, "inline": 0, "inline_n": 0, "summary": 0, "check_run": 0}
    for w in writes:
        kind = w["kind"]
        if kind == "create_review":
            out["review"] += size(w.get("body"))
            out["inline"] += sum(size(c.get("body")) for c in w.get("comments", []))
            out["inline_n"] += len(w.get("comments", []))
        elif kind in ("create_issue_comment", "edit_issue_comment"):
            out["summary"] += size(w.get("body"))
        elif kind in ("create_check_run", "update_check_run"):
            run = (w.get("extra") or {}).get("run") or {}
            o = run.get("output") or {}
            out["check_run"] += size(o.get("title")) + size(o.get("summary"))
            out["check_run"] += size(o.get("text"))
            out["check_run"] += sum(size(a.get("message")) for a in o.get("annotations", []))
    return out


def conversation(m: dict[str, int]) -> int:
    return m["review"] + m["inline"] + m["summary"]


def prs(spec: str) -> list[int]:
    if "-" in spec:
        lo, hi = spec.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in spec.split(",")]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repo", default="/work/ix", help="a clone with refs/pull/N/head and main")
    ap.add_argument("--before", required=True, help="the reference build's `bot`")
    ap.add_argument("--after", default=str(ROOT / ".venv" / "bin" / "bot"), help="this `bot`")
    ap.add_argument("--prs", default="2690-2709", help="N-M or N,M,...")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    rows = []
    print(
        f"{'PR':>6} {'find':>4} {'inl b':>5} {'inl a':>5} {'before B':>9} {'after B':>9} "
        f"{'after/before':>12} {'check run B':>11}"
    )
    for pr in prs(args.prs):
        head = f"refs/pull/{pr}/head"
        try:
            base = git(args.repo, "merge-base", "main", head)
            date = git(args.repo, "log", "-1", "--format=%cs", head)
        except subprocess.CalledProcessError:
            print(f"{pr:>6}  skipped (objects missing)")
            continue
        before = measure(render(args.before, args.repo, pr, base, date)["writes"])
        after_data = render(args.after, args.repo, pr, base, date)
        after = measure(after_data["writes"])
        findings = 0
        for w in after_data["writes"]:
            if w["kind"] == "update_check_run":
                title = ((w.get("extra") or {}).get("run") or {}).get("output") or {}
                text = str(title.get("title", ""))
                # "… · 6 error(s), 5 warning(s), 0 info / …"
                nums = [int(t) for t in text.replace("(", " ").split() if t.isdigit()]
                findings = sum(nums[:3])
        b, a = conversation(before), conversation(after)
        rows.append(
            {
                "pr": pr,
                "findings": findings,
                "inline_before": before["inline_n"],
                "inline_after": after["inline_n"],
                "before": b,
                "after": a,
                "before_parts": before,
                "after_parts": after,
                "check_run": after["check_run"],
            }
        )
        print(
            f"{pr:>6} {findings:>4} {before['inline_n']:>5} {after['inline_n']:>5} {b:>9,} "
            f"{a:>9,} {a / b:>12.2f} {after['check_run']:>11,}"
        )
    tb = sum(r["before"] for r in rows)
    ta = sum(r["after"] for r in rows)
    with_findings = [r for r in rows if r["findings"]]
    print(
        f"total  {tb:,} -> {ta:,} bytes ({ta / tb:.2f}x); median per review "
        f"{statistics.median(r['before'] for r in rows):,.0f} -> "
        f"{statistics.median(r['after'] for r in rows):,.0f}"
    )
    if with_findings:
        print(
            f"reviews with findings ({len(with_findings)}): median "
            f"{statistics.median(r['before'] for r in with_findings):,.0f} -> "
            f"{statistics.median(r['after'] for r in with_findings):,.0f} bytes; largest "
            f"{max(r['before'] for r in rows):,} -> {max(r['after'] for r in rows):,}"
        )
    parts = ("review", "inline", "summary")
    for side in ("before", "after"):
        sums = {p: sum(r[f"{side}_parts"][p] for r in rows) for p in parts}
        print(f"  {side:6}: " + ", ".join(f"{p} {v:,}" for p, v in sums.items()))
    print(f"  check run (after, Checks tab): {sum(r['check_run'] for r in rows):,} bytes")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
