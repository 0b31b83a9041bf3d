"""The report's two plots, drawn with matplotlib to SVG files. Data in, SVG text out.

matplotlib's object API (no pyplot: no global figure state, no GUI backend),
text kept as text (`svg.fonttype: none`), and a fixed hash salt and no date,
so the same data draws the same bytes.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Mapping, Sequence
from typing import Any

from bot.backtest.answer import RuleRow

_COLORS = {"error": "#c0392b", "warning": "#e67e22", "info": "#2e86c1"}
_RC: Any = {"svg.hashsalt": "bot-backtest", "svg.fonttype": "none", "font.size": 9}


def _svg(fig: object) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})  # type: ignore[attr-defined]
    return buf.getvalue()


def findings_per_week(weeks: Mapping[datetime.date, Mapping[str, int]]) -> str:
    """Stacked bars of findings on PR heads by severity, per week, with the PRs linted."""
    import matplotlib
    from matplotlib import dates as mdates
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8, 3.2), layout="constrained")
        ax = fig.add_subplot()
        weeks_sorted = sorted(weeks)
        to_num: Any = mdates.date2num
        days: Any = to_num(weeks_sorted)
        if not weeks_sorted:
            ax.text(0.5, 0.5, "no PR linted", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            return _svg(fig)
        bottom = [0] * len(days)
        for severity in ("error", "warning", "info"):
            values = [weeks[d].get(severity, 0) for d in weeks_sorted]
            ax.bar(days, values, width=5, bottom=bottom, color=_COLORS[severity], label=severity)
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        ax.set_ylim(0, max(1, *bottom) * 1.08)
        ax.set_ylabel("findings on PR heads")
        ax.set_title("Findings per week (by the PR head's commit date)")
        prs = ax.twinx()
        prs.plot(
            days,
            [weeks[d].get("PRs", 0) for d in weeks_sorted],
            color="#555",
            marker=".",
            lw=1,
            label="PRs linted",
        )
        prs.set_ylabel("PRs linted")
        prs.set_ylim(bottom=0)
        prs.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        formatter: Any = mdates.DateFormatter
        ax.xaxis.set_major_formatter(formatter("%Y-%m-%d"))
        handles, labels = ax.get_legend_handles_labels()
        more, more_labels = prs.get_legend_handles_labels()
        ax.legend(handles + more, labels + more_labels, loc="upper left", fontsize=8)
        fig.autofmt_xdate()
        return _svg(fig)


def fixed_later_rate(rows: Sequence[RuleRow]) -> str:
    """Horizontal bars: per rule, the share of findings seen before the head that a later
    commit removed, with the counts."""
    import matplotlib
    from matplotlib.figure import Figure

    shown = [r for r in rows if r.early]
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8, max(2.0, 0.32 * len(shown) + 1.0)), layout="constrained")
        ax = fig.add_subplot()
        if not shown:
            ax.text(
                0.5,
                0.5,
                "no finding before a PR head (run with --commits)",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
            ax.set_axis_off()
            return _svg(fig)
        names = [r.rule for r in shown]
        rates = [r.fixed_rate or 0.0 for r in shown]
        edited = [r.line_edited / r.early for r in shown]
        ax.barh(names, rates, color="#7fb3d5", label="fixed later")
        ax.barh(names, edited, color="#1f618d", label="fixed later, line edited")
        for i, r in enumerate(shown):
            ax.text(
                min(rates[i], 1.0) + 0.01, i, f"{r.fixed_later}/{r.early}", va="center", fontsize=8
            )
        ax.set_xlim(0, 1.15)
        ax.invert_yaxis()
        ax.set_xlabel(
            "fixed-later rate (removed by a later commit of the PR / seen before its head)"
        )
        ax.set_title("Fixed-later rate per rule")
        ax.legend(loc="lower right", fontsize=8)
        return _svg(fig)
