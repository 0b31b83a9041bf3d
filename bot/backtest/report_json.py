"""The backtest as JSON (`--format json`, and `backtest.json` beside the page). Pure.

Shape (version 1; consumers ignore members they do not know)::

    {"version": 1, "repository", "base_branch", "settings": {...},
     "totals": {...}, "run": {...},
     "rules": [{"rule", "findings", "pulls", "on_head", "before_head", "fixed_later",
                "fixed_later_rate", "line_edited", "stayed_merged", "blocked_pulls",
                "median_ms", "severities", "precision"?}],
     "weeks": [{"week": "YYYY-MM-DD", "error", "warning", "info", "PRs"}],
     "pulls": [{"number", "head", "base", "date", "merged", "merge_commit", "status",
                "detail", "head_seconds", "commits_linted", "commits_known", "url"}],
     "findings": [{"pr", "rule", "severity", "path", "line", "fingerprint", "message",
                   "first_sha", "last_sha", "on_head", "before_head", "removed_by",
                   "line_edited", "outcome", "merged", "urls": {"pr", "commit", "line"}}],
     "judge"?: {"overall": {...}, "rules": {...}, "stale": [...]},
     "compare"?: {"other", "commits", "pulls", "per_rule", "changes": [...]}}
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from bot.backtest.collect import Backtest
from bot.backtest.compare import Comparison
from bot.backtest.judge import Precision

VERSION = 1


def _precision(p: Precision) -> dict[str, Any]:
    return {
        "tp": p.tp,
        "fp": p.fp,
        "debatable": p.debatable,
        "unjudged": p.unjudged,
        "precision": p.precision,
    }


def to_dict(bt: Backtest) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": VERSION,
        "repository": bt.links.repository,
        "base_branch": bt.base_branch,
        "settings": {"key": bt.settings_key, **bt.settings},
        "totals": dataclasses.asdict(bt.totals),
        "run": bt.run,
        "rules": _rules(bt),
        "weeks": [{"week": w.isoformat(), **counts} for w, counts in bt.weeks.items()],
        "pulls": _pulls(bt),
        "findings": _findings(bt),
    }
    if bt.judge is not None:
        data["judge"] = {
            "overall": _precision(bt.judge.overall()),
            "rules": {k: _precision(v) for k, v in sorted(bt.judge.rules.items())},
            "stale": [dataclasses.asdict(j) for j in bt.judge.stale],
        }
    if bt.comparison is not None:
        data["compare"] = _comparison(bt.comparison)
    return data


def _rules(bt: Backtest) -> list[dict[str, Any]]:
    rules = []
    for r in bt.rules:
        row: dict[str, Any] = {
            "rule": r.rule,
            "findings": r.findings,
            "pulls": r.pulls,
            "on_head": r.on_head,
            "before_head": r.early,
            "fixed_later": r.fixed_later,
            "fixed_later_rate": r.fixed_rate,
            "line_edited": r.line_edited,
            "stayed_merged": r.stayed_merged,
            "blocked_pulls": r.blocked_pulls,
            "median_ms": r.median_ms,
            "severities": r.severities,
        }
        if bt.judge is not None and r.rule in bt.judge.rules:
            row["precision"] = _precision(bt.judge.rules[r.rule])
        rules.append(row)
    return rules


def _pulls(bt: Backtest) -> list[dict[str, Any]]:
    return [
        {
            "number": o.plan.number,
            "head": o.plan.head,
            "base": o.plan.base,
            "date": o.plan.date.isoformat(),
            "merged": o.plan.merged,
            "merge_commit": o.plan.merge_commit,
            "status": o.status,
            "detail": o.detail,
            "head_seconds": o.head_seconds,
            "commits_linted": o.commits_linted,
            "commits_known": o.commits_known,
            "url": bt.links.pr(o.plan.number),
        }
        for o in bt.outcomes
    ]


def _findings(bt: Backtest) -> list[dict[str, Any]]:
    links = bt.links
    findings = []
    for o in bt.outcomes:
        for t in o.findings:
            f = t.finding
            findings.append(
                {
                    "pr": t.pr,
                    "rule": f.rule,
                    "severity": f.severity,
                    "path": f.path,
                    "line": f.line,
                    "fingerprint": f.fingerprint,
                    "message": {"en": f.message_en, "zh": f.message_zh},
                    "first_sha": t.first_sha,
                    "last_sha": t.sha,
                    "on_head": t.on_head,
                    "before_head": t.early,
                    "removed_by": t.removed_by,
                    "line_edited": t.line_edited,
                    "outcome": t.outcome,
                    "merged": t.merged,
                    "urls": {
                        "pr": links.pr(t.pr),
                        "commit": links.commit(t.sha),
                        "line": links.line(t.sha, f.path, f.line),
                    },
                }
            )
    return findings


def _comparison(c: Comparison) -> dict[str, Any]:
    return {
        "other": c.other,
        "other_settings": c.other_settings,
        "commits": c.commits,
        "pulls": c.pulls,
        "per_rule": {k: {"added": a, "removed": d} for k, (a, d) in c.per_rule().items()},
        "changes": [
            {
                "kind": ch.kind,
                "pr": ch.pr,
                "sha": ch.sha,
                "rule": ch.finding.rule,
                "path": ch.finding.path,
                "line": ch.finding.line,
                "message": ch.finding.message_en,
            }
            for ch in c.changes
        ],
    }


def render(bt: Backtest) -> str:
    return json.dumps(to_dict(bt), ensure_ascii=False, indent=2) + "\n"
