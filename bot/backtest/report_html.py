"""The backtest's HTML page: one file plus an `assets/` folder, readable offline. An edge.

`index.html` links `assets/report.css` and shows the two SVG plots drawn by
`bot.backtest.plots`; nothing is loaded from the network and no script runs.
Every finding links to its PR, to the commit it was last seen on and to its
line there (GitHub addresses, when the repository is known).
"""

from __future__ import annotations

import html
from pathlib import Path

from bot.backtest import plots
from bot.backtest.answer import Tracked
from bot.backtest.collect import Backtest
from bot.backtest.report_md import COLUMNS, pct, rule_cells, summary_lines

CSS = """\
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border: 1px solid #ccc; padding: .25em .5em; vertical-align: top; }
th { background: #f2f2f2; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.findings td { font-size: 13px; }
.plot { display: block; margin: .6em 0; width: 100%; max-width: 900px; border: 1px solid #eee; }
.sev-error { color: #c0392b; font-weight: 600; } .sev-warning { color: #b9770e; } .sev-info { color: #2e86c1; }
.o-fixed { background: #e8f6ef; } .o-removed { background: #f4f9f4; } .o-stayed { background: #fdf2e9; }
code { font-size: 12px; } .muted { color: #777; }
"""

OUTCOME_TEXT = {
    "fixed": "fixed later (line edited)",
    "removed": "fixed later (line untouched)",
    "stayed": "stayed (merged)",
    "open": "on head (not merged)",
}


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _a(href: str | None, text: str) -> str:
    return f'<a href="{_e(href)}">{_e(text)}</a>' if href else _e(text)


def _finding_row(bt: Backtest, t: Tracked) -> str:
    f = t.finding
    links = bt.links
    where = _a(links.line(t.sha, f.path, f.line), f"{f.path}:{f.line}")
    commit = _a(links.commit(t.sha), t.sha[:10])
    verdict = ""
    if bt.judge is not None:
        verdict = f"<td>{_e(bt.judge.verdicts.get((t.pr, f.rule, f.path), ''))}</td>"
    removed = _a(links.commit(t.removed_by), t.removed_by[:10]) if t.removed_by else ""
    return (
        f'<tr class="o-{t.outcome}">'
        f"<td>{_a(links.pr(t.pr), f'#{t.pr}')}</td>"
        f"<td>{_e(f.rule)}</td>"
        f'<td class="sev-{_e(f.severity)}">{_e(f.severity)}</td>'
        f"<td>{where}</td><td>{commit}</td>"
        f"<td>{_e(OUTCOME_TEXT[t.outcome])}{' by ' + removed if removed else ''}</td>"
        f"{verdict}<td>{_e(f.message_en)}</td></tr>"
    )


def render(bt: Backtest) -> str:
    where = bt.links.repository or bt.repo
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Backtest of {_e(where)}</title>",
        '<link rel="stylesheet" href="assets/report.css">',
        "</head><body>",
        f"<h1>Backtest of {_e(where)} <span class='muted'>(base <code>{_e(bt.base_branch)}</code>)</span></h1>",
        "<ul id='summary'>" + "".join(f"<li>{_e(s)}</li>" for s in summary_lines(bt)) + "</ul>",
        "<h2>Per rule</h2>",
    ]
    judged = bt.judge is not None
    head = "".join(f"<th>{_e(c)}</th>" for c in COLUMNS) + ("<th>precision</th>" if judged else "")
    rows = []
    for row in bt.rules:
        cells = rule_cells(row)
        title = bt.titles.get(row.rule, "")
        tds = [f'<td title="{_e(title)}">{_e(cells[0])}</td>'] + [
            f'<td class="n">{_e(c)}</td>' for c in cells[1:]
        ]
        if bt.judge is not None:
            p = bt.judge.rules.get(row.rule)
            shown = (
                f"{pct(p.precision)} ({p.tp}/{p.fp}/{p.debatable})"
                if p and (p.tp + p.fp + p.debatable)
                else "–"
            )
            tds.append(f'<td class="n">{_e(shown)}</td>')
        rows.append("<tr>" + "".join(tds) + "</tr>")
    parts.append(
        f'<table id="rules"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
    parts += [
        "<h2>Plots</h2>",
        '<img id="plot-weeks" class="plot" src="assets/findings-per-week.svg" '
        'alt="findings per week">',
        '<img id="plot-fixed" class="plot" src="assets/fixed-later-rate.svg" '
        'alt="fixed-later rate per rule">',
    ]
    if bt.judge is not None:
        total = bt.judge.overall()
        parts.append(
            f"<h2>Hand verdicts</h2><p>Precision over judged groups: {_e(pct(total.precision))} "
            f"({total.tp} TP, {total.fp} FP, {total.debatable} debatable, {total.unjudged} "
            f"unjudged).</p>"
        )
        if bt.judge.stale:
            items = "".join(
                f"<li>line {j.line}: #{j.pr} {_e(j.rule)} {_e(j.path)} {_e(j.verdict)}</li>"
                for j in bt.judge.stale
            )
            parts.append(f"<p>Verdicts that match no finding:</p><ul>{items}</ul>")
    if bt.comparison is not None:
        c = bt.comparison
        parts.append(
            f"<h2>Compared with {_e(c.other)}</h2><p>{c.commits} commits of {c.pulls} PRs in "
            "both stores.</p>"
        )
        if c.changes:
            body = "".join(
                f"<tr><td>{_e(ch.kind)}</td><td>{_a(bt.links.pr(ch.pr), f'#{ch.pr}')}</td>"
                f"<td>{_e(ch.finding.rule)}</td>"
                f"<td>{_a(bt.links.line(ch.sha, ch.finding.path, ch.finding.line), f'{ch.finding.path}:{ch.finding.line}')}</td>"
                f"<td>{_e(ch.finding.message_en)}</td></tr>"
                for ch in c.changes
            )
            parts.append(
                '<table id="compare"><thead><tr><th>change</th><th>PR</th><th>rule</th>'
                f"<th>where</th><th>message</th></tr></thead><tbody>{body}</tbody></table>"
            )
        else:
            parts.append("<p>No finding added or removed.</p>")
    findings = [t for o in bt.outcomes for t in o.findings]
    verdict_head = "<th>verdict</th>" if judged else ""
    parts += [
        f"<h2>Findings ({len(findings)})</h2>",
        '<table id="findings" class="findings"><thead><tr><th>PR</th><th>rule</th>'
        "<th>severity</th><th>where (last seen)</th><th>commit</th><th>outcome</th>"
        f"{verdict_head}<th>message</th></tr></thead><tbody>",
        *(_finding_row(bt, t) for t in findings),
        "</tbody></table>",
    ]
    skipped = [o for o in bt.outcomes if o.status != "ok"]
    if skipped:
        items = "".join(
            f"<li>{_a(bt.links.pr(o.plan.number), f'#{o.plan.number}')}: {_e(o.status)}: "
            f"{_e(o.detail or '')}</li>"
            for o in skipped
        )
        parts.append(f"<h2>PRs not linted ({len(skipped)})</h2><ul id='skipped'>{items}</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write(bt: Backtest, out_dir: Path) -> Path:
    """Write `index.html` and its assets into `out_dir`; the page's path."""
    assets = out_dir / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    (assets / "report.css").write_text(CSS, encoding="utf-8")
    (assets / "findings-per-week.svg").write_text(
        plots.findings_per_week(bt.weeks), encoding="utf-8"
    )
    (assets / "fixed-later-rate.svg").write_text(plots.fixed_later_rate(bt.rules), encoding="utf-8")
    page = out_dir / "index.html"
    page.write_text(render(bt), encoding="utf-8")
    return page
