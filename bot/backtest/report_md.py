"""The backtest's markdown summary. Pure: a `Backtest` in, markdown out."""

from __future__ import annotations

from bot.backtest.answer import RuleRow
from bot.backtest.collect import Backtest

COLUMNS = (
    "rule",
    "findings",
    "PRs",
    "on head",
    "before head",
    "fixed later",
    "fixed-later rate",
    "line edited",
    "stayed (merged)",
    "PRs blocked",
    "median ms/PR",
)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f} %"


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if value < 10 else f"{value:.0f}"


def secs(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"


def rule_cells(row: RuleRow) -> list[str]:
    return [
        row.rule,
        str(row.findings),
        str(row.pulls),
        str(row.on_head),
        str(row.early),
        str(row.fixed_later),
        pct(row.fixed_rate),
        str(row.line_edited),
        str(row.stayed_merged),
        str(row.blocked_pulls),
        ms(row.median_ms),
    ]


def summary_lines(bt: Backtest) -> list[str]:
    t = bt.totals
    run = bt.run
    return [
        f"PRs: {t.pulls} ({t.linted} linted, {t.with_commits} with every commit linted, "
        f"{t.skipped_missing} skipped for a missing object, {t.failed} failed); "
        f"merged: {t.merged}",
        f"Commits linted: {t.commits_linted} ({t.commits_missing} skipped for a missing object); "
        f"findings: {t.findings}",
        f"Lint time per PR head: median {secs(t.median_seconds)}, p90 {secs(t.p90_seconds)}; "
        f"all stored lints: {t.lint_seconds:.1f} s",
        f"This run: {run.get('linted', 0)} commits linted, {run.get('reused', 0)} reused from the "
        f"store, {run.get('seconds', 0.0):.1f} s wall with -j {run.get('jobs', 1)}",
    ]


def render(bt: Backtest) -> str:
    where = bt.links.repository or bt.repo
    out = [f"# Backtest of {where} (base `{bt.base_branch}`)", ""]
    out += [f"- {line}" for line in summary_lines(bt)]
    out += ["", "## Per rule", ""]
    judged = bt.judge is not None
    header = [*COLUMNS, *(["precision (TP/FP/debatable)"] if judged else [])]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "|".join("---" if i == 0 else "--:" for i in range(len(header))) + "|")
    for row in bt.rules:
        cells = rule_cells(row)
        if bt.judge is not None:
            p = bt.judge.rules.get(row.rule)
            cells.append(
                f"{pct(p.precision)} ({p.tp}/{p.fp}/{p.debatable})"
                if p and (p.tp + p.fp + p.debatable)
                else "–"
            )
        out.append("| " + " | ".join(cells) + " |")
    out += [
        "",
        "`before head`: findings seen on a commit before the PR's head (PRs linted with "
        "`--commits`); `fixed later`: of those, absent from the head; `line edited`: the "
        "commit that removed it changed the line; `stayed (merged)`: on the head of a merged "
        "PR; `PRs blocked`: heads with an error-severity finding; `median ms/PR`: the rule's "
        "own check time on a PR head where it ran (parsing is shared and not counted).",
    ]
    if bt.judge is not None:
        total = bt.judge.overall()
        out += [
            "",
            "## Hand verdicts",
            "",
            f"Precision over judged groups: {pct(total.precision)} ({total.tp} TP, {total.fp} FP, "
            f"{total.debatable} debatable, {total.unjudged} unjudged)"
            + (f"; {len(bt.judge.stale)} verdicts match no finding" if bt.judge.stale else ""),
        ]
    if bt.comparison is not None:
        c = bt.comparison
        out += [
            "",
            "## Compared with " + c.other,
            "",
            f"{c.commits} commits of {c.pulls} PRs in both stores.",
            "",
        ]
        per_rule = c.per_rule()
        if per_rule:
            out += ["| rule | added | removed |", "|---|--:|--:|"]
            out += [f"| {r} | {a} | {d} |" for r, (a, d) in per_rule.items()]
        else:
            out.append("No finding added or removed.")
    return "\n".join(out) + "\n"
