"""Check: what the rules emit on a real tree is what every surface declares.

Runs the real command line over a repository, as a user would, and checks that

- `bot rules --format json`, `bot rules --format markdown` and the rule table of docs/rules.md
  (or a table between `<!-- rules:start -->` and `<!-- rules:end -->`) declare the same default
  severity and the same severity conditions for every rule;
- every finding of `bot lint --repo DIR --format json` has a severity its rule declares
  (the default, or one of its conditions), by each of those surfaces;
- the SARIF of the same lint states each rule's default as `defaultConfiguration.level`
  and its conditions under `properties.severityConditions`, and every result's level is
  one of them.

It prints how many findings each (rule, severity) has and what declares that severity,
every disagreement, and how long each command took (one run each). Exit status 1 on
any disagreement.

    python benchmarks/check_rule_table.py --repo /tmp/ix-main
    python benchmarks/check_rule_table.py --repo /path/to/InferenceX --date 2026-08-22 --json

The repository defaults to `$INFERENCEX_DIR`, else `../ix` next to the project.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
README_START, README_END = "<!-- rules:start -->", "<!-- rules:end -->"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}

# a rule's declaration: (default severity, {condition name: severity})
Declared = tuple[str, dict[str, str]]


def run_bot(args: list[str]) -> tuple[str, float, int]:
    """The installed command line's stdout, its wall time in seconds and its exit status."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        check=False,
    )
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1: lint found errors
        raise SystemExit(f"bot {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return proc.stdout, wall, proc.returncode


def parse_severity_cell(cell: str) -> Declared:
    """`warning; error (multi-turn-evals), info (x)` -> ("warning", {...})."""
    default, _, rest = cell.strip().partition(";")
    conditions = {}
    for m in re.finditer(r"(error|warning|info) \(([a-z0-9-]+)\)", rest):
        conditions[m.group(2)] = m.group(1)
    return default.strip(), conditions


def table_rows(markdown: str) -> dict[str, dict[str, Any]]:
    """The rule table's rows by id: slug, declared severities, target, titles."""
    rows: dict[str, dict[str, Any]] = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) != 6:
            continue
        m = re.match(r"\[?([A-Z]{3}\d{3})\]?", cells[0])
        if m is None:
            continue
        rows[m.group(1)] = {
            "slug": cells[1].strip("`"),
            "declared": parse_severity_cell(cells[2]),
            "target": cells[3],
            "title": (cells[4], cells[5]),
        }
    return rows


def rule_table(path: Path) -> str:
    """The rule table of a Markdown file: between the README markers when it has them,
    else the first table headed `| ID | Slug |` (docs/rules.md)."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(README_START), text.find(README_END)
    if start >= 0 and end > start:
        return text[start + len(README_START) : end]
    head = text.find("| ID | Slug |")
    if head < 0:
        raise SystemExit(f"{path} has no rule table")
    stop = text.find("\n\n", head)
    return text[head : stop if stop >= 0 else len(text)]


def allowed(declared: Declared) -> dict[str, list[str]]:
    """Severity -> what declares it ("default" or condition names)."""
    default, conditions = declared
    out: dict[str, list[str]] = {default: ["default"]}
    for name, severity in conditions.items():
        out.setdefault(severity, []).append(name)
    return out


def check(repo: Path, date: str | None, table: Path) -> dict[str, Any]:
    problems: list[str] = []
    timings: dict[str, float] = {}

    text, timings["bot rules --format json"], _ = run_bot(["rules", "--format", "json"])
    listed = {
        r["id"]: (r["severity"], {c["name"]: c["severity"] for c in r["conditions"]})
        for r in json.loads(text)
    }
    text, timings["bot rules --format markdown"], _ = run_bot(["rules", "--format", "markdown"])
    surfaces: dict[str, dict[str, Declared]] = {
        "bot rules --format json": listed,
        "bot rules --format markdown": {k: v["declared"] for k, v in table_rows(text).items()},
        "rule table": {k: v["declared"] for k, v in table_rows(rule_table(table)).items()},
    }
    for name, table in surfaces.items():
        if set(table) != set(listed):
            problems.append(
                f"{name} lists {sorted(set(table) ^ set(listed))} differently from bot rules"
            )
        for rule_id, declared in table.items():
            if rule_id in listed and declared != listed[rule_id]:
                problems.append(
                    f"{name}: {rule_id} declares {declared}, bot rules {listed[rule_id]}"
                )

    lint = ["lint", "--repo", str(repo), "--format"]
    extra = ["--date", date] if date else []
    text, timings["bot lint --format json"], status = run_bot([*lint, "json", *extra])
    findings = json.loads(text)["findings"]
    if not findings:
        problems.append("bot lint reported nothing: is this the right repository?")
    counts: Counter[tuple[str, str]] = Counter((f["rule"], f["severity"]) for f in findings)
    emitted = []
    for (rule_id, severity), n in sorted(counts.items()):
        by: dict[str, list[str] | None] = {}
        for name, table in surfaces.items():
            declared = table.get(rule_id)
            by[name] = allowed(declared).get(severity) if declared else None
            if by[name] is None:
                problems.append(
                    f"{rule_id} emitted {severity} ({n}x), which {name} does not declare"
                )
        emitted.append(
            {
                "rule": rule_id,
                "severity": severity,
                "count": n,
                "declared_as": by["bot rules --format json"],
            }
        )

    text, timings["bot lint --format sarif"], _ = run_bot([*lint, "sarif", *extra])
    run = json.loads(text)["runs"][0]
    for d in run["tool"]["driver"]["rules"]:
        default, conditions = listed.get(d["id"], ("?", {}))
        level = d["defaultConfiguration"]["level"]
        if level != SARIF_LEVEL.get(default):
            problems.append(
                f"SARIF: {d['id']} defaultConfiguration.level {level}, declared {default}"
            )
        stated = {
            c["name"]: c["level"] for c in d.get("properties", {}).get("severityConditions", [])
        }
        if stated != {k: SARIF_LEVEL[v] for k, v in conditions.items()}:
            problems.append(f"SARIF: {d['id']} severityConditions {stated}, declared {conditions}")
    sarif_results = Counter((r["ruleId"], r["level"]) for r in run["results"])
    for (rule_id, level), n in sorted(sarif_results.items()):
        default, conditions = listed.get(rule_id, ("?", {}))
        if level not in {
            SARIF_LEVEL[s] for s in (default, *conditions.values()) if s in SARIF_LEVEL
        }:
            problems.append(f"SARIF: {rule_id} result level {level} ({n}x) is not declared")
    if sum(sarif_results.values()) != len(findings):
        problems.append(
            f"SARIF has {sum(sarif_results.values())} results, JSON {len(findings)} findings"
        )

    return {
        "repo": str(repo),
        "rules_declared": len(listed),
        "rules_with_conditions": sum(1 for _, c in listed.values() if c),
        "findings": len(findings),
        "lint_exit_status": status,
        "emitted": emitted,
        "problems": problems,
        "seconds": {k: round(v, 2) for k, v in timings.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_repo = os.environ.get("INFERENCEX_DIR") or str(PROJECT_ROOT.parent / "ix")
    parser.add_argument("--repo", type=Path, default=Path(default_repo))
    parser.add_argument("--date", help="review date for dated knowledge (YYYY-MM-DD)")
    parser.add_argument(
        "--table",
        type=Path,
        default=PROJECT_ROOT / "docs" / "rules.md",
        help="the Markdown file whose rule table is checked (default: docs/rules.md)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if not args.repo.is_dir():
        print(f"no repository at {args.repo}; pass --repo or set INFERENCEX_DIR", file=sys.stderr)
        return 2
    result = check(args.repo, args.date, args.table)
    if args.json:
        print(json.dumps(result, indent=2))
        return 1 if result["problems"] else 0
    print(f"repository: {result['repo']}")
    print(
        f"rules declared: {result['rules_declared']} "
        f"({result['rules_with_conditions']} with severity conditions)"
    )
    print(f"findings: {result['findings']} (bot lint exit status {result['lint_exit_status']})")
    print()
    print(f"{'rule':<8} {'severity':<8} {'count':>5}  declared as")
    for e in result["emitted"]:
        declared = ", ".join(e["declared_as"] or ["NOT DECLARED"])
        print(f"{e['rule']:<8} {e['severity']:<8} {e['count']:>5}  {declared}")
    print()
    for name, seconds in result["seconds"].items():
        print(f"{name}: {seconds:.2f} s")
    print()
    if result["problems"]:
        print(f"{len(result['problems'])} disagreement(s):")
        for p in result["problems"]:
            print(f"  - {p}")
        return 1
    print(
        "every emitted (rule, severity) is declared by bot rules (json and markdown), the "
        "the rule table of docs/rules.md and SARIF, and the four agree"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
