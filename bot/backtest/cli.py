"""`bot backtest`: what the bot would have said on a repository's own pull requests. An edge.

Registered by the `bot` command line (`add_parser`), run by `main`. Importing
this module loads nothing heavy: the plotting library and the progress bar
(the `backtest` extra) are imported when a backtest runs.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from bot.app.select import SelectionError, select_rules
from bot.backtest import (
    answer,
    collect,
    history,
    judge,
    report_html,
    report_json,
    report_md,
    runner,
)
from bot.backtest.compare import compare
from bot.backtest.store import Store, StoreError, open_other
from bot.base.records import dataclass
from bot.core.config import ConfigError, build_config
from bot.core.registry import RegistryError
from bot.sources import SourceError, git, github_repository

EXTRA = "pip install 'recipe-review-bot[backtest]'"

EPILOG = f"""\
examples:
  bot backtest --repo . --limit 100 --github-repo OWNER/NAME
  bot backtest --repo mirror --prs 2300-2709 -j 2 --out /tmp/bt
  bot backtest --repo mirror --prs 2640-2709 --commits -j 2 --out /tmp/bt
  bot backtest --repo mirror --prs 2300-2709 --config candidate.yml --out /tmp/bt2 \\
      --compare /tmp/bt/backtest.sqlite
  bot backtest --repo mirror --prs 2300-2709 --out /tmp/bt --judge verdicts.tsv

Each PR head (refs/pull/N/head) is linted against its merge-base with the base
branch, as `bot lint --repo DIR --base MERGE_BASE --head HEAD --pr N --date
HEAD_DATE` would; with --commits every commit of the PR is too, which gives
the answer key: findings a later commit removed ("fixed later"), findings
still on the head of a merged PR ("stayed"). Results are kept per PR and
commit in OUT/backtest.sqlite, so a second run lints only what is new; the
report (OUT/index.html with OUT/assets/, OUT/summary.md, OUT/backtest.json,
OUT/judge-template.tsv) covers every PR the store holds under the same rules,
selection and configuration. See docs/backtest.md.

Needs the backtest extra: {EXTRA}
exit status: 0 report written, 2 usage or input error.
"""


class BacktestError(Exception):
    """A usage or input error: one line, exit status 2."""


def add_parser(sub: Any, parser_class: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    bp: argparse.ArgumentParser = sub.add_parser(
        "backtest",
        help="lint a repository's past pull requests and report how the findings fared",
        description="Lint the pull requests in a repository's history (refs/pull/N/head) and "
        "report, per rule, how many findings a later commit fixed and how many stayed.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bp.add_argument(
        "--repo", required=True, metavar="DIR", help="git repository with refs/pull/*/head"
    )
    bp.add_argument("--base", default="main", metavar="BRANCH", help="base branch (default: main)")
    bp.add_argument(
        "--out",
        default="backtest-out",
        metavar="DIR",
        help="folder for the report and its store backtest.sqlite (default: backtest-out)",
    )
    bp.add_argument("--prs", metavar="SPEC", help="PR numbers: 2400-2700,2423 (default: all)")
    bp.add_argument(
        "--since", type=_date, metavar="YYYY-MM-DD", help="only PRs whose head is this recent"
    )
    bp.add_argument("--limit", type=_positive, metavar="N", help="only the N newest PRs chosen")
    bp.add_argument(
        "--commits", action="store_true", help="lint every commit of each PR, not only its head"
    )
    bp.add_argument(
        "-j",
        "--jobs",
        type=_positive,
        metavar="N",
        help="worker processes (default: the machine's cores)",
    )
    bp.add_argument(
        "--select", action="append", metavar="RULES", help="run only these rules (as `bot lint`)"
    )
    bp.add_argument("--extend-select", action="append", metavar="RULES", help="run these rules too")
    bp.add_argument("--ignore", action="append", metavar="RULES", help="do not run these rules")
    bp.add_argument(
        "--config",
        metavar="FILE",
        help="a candidate .recipe-bot.yml for every PR (default: the repository's own, "
        "read at each PR's merge-base)",
    )
    bp.add_argument(
        "--compare",
        metavar="OTHER.sqlite",
        help="another backtest's store: report what this run's rules add or remove",
    )
    bp.add_argument(
        "--judge",
        metavar="FILE",
        help="hand verdicts (PR RULE PATH TP|FP|debatable per line): report precision",
    )
    bp.add_argument(
        "--github-repo",
        metavar="OWNER/NAME",
        help="the GitHub repository, for links and pr-link checks (default: the origin remote)",
    )
    bp.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="what to print: the markdown summary (text) or the whole report as JSON",
    )
    bp.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    return bp


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def missing_extra() -> list[str]:
    return [m for m in ("matplotlib", "tqdm") if importlib.util.find_spec(m) is None]


def main(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Run a backtest from parsed arguments; the exit status."""
    missing = missing_extra()
    if missing:
        print(
            f"bot: error: bot backtest needs the backtest extra ({', '.join(missing)} missing): "
            f"{EXTRA}",
            file=err,
        )
        return 2
    try:
        return _run(args, out, err)
    except (BacktestError, ConfigError, SourceError, RegistryError, OSError) as exc:
        print(f"bot: error: {exc}", file=err)
        return 2


def _rule_ids(args: argparse.Namespace) -> list[str] | None:
    try:
        chosen = select_rules(args.select, args.extend_select, args.ignore).rules
    except SelectionError as exc:
        raise BacktestError(str(exc)) from None
    return None if chosen is None else [rm.rule.id for rm in chosen]


@dataclass(frozen=True)
class _Inputs:
    """What a backtest reads besides the repository's history, checked before it starts."""

    repo: str
    rules: list[str] | None
    config_text: str | None
    verdicts: list[judge.Judgement] | None
    numbers: set[int] | None
    repository: str | None


def _inputs(args: argparse.Namespace) -> _Inputs:
    repo = os.path.realpath(args.repo)
    if not Path(repo).is_dir():
        raise BacktestError(f"not a directory: {args.repo}")
    git(repo, "rev-parse", "--git-dir")  # a SourceError names a non-repository
    rules = _rule_ids(args)
    config_text = None
    if args.config:
        config_text = Path(args.config).read_text(encoding="utf-8")
        build_config(config_text, source=args.config)  # a broken candidate fails here, once
    verdicts = None
    if args.judge:
        try:
            verdicts = judge.parse_verdicts(
                Path(args.judge).read_text(encoding="utf-8"), args.judge
            )
        except judge.JudgeError as exc:
            raise BacktestError(str(exc)) from None
    try:
        numbers = history.parse_numbers(args.prs) if args.prs else None
    except ValueError as exc:
        raise BacktestError(f"--prs {args.prs!r}: {exc}") from None
    repository = args.github_repo or github_repository(repo)
    return _Inputs(repo, rules, config_text, verdicts, numbers, repository)


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    inputs = _inputs(args)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = args.jobs or runner.default_jobs()
    try:
        store = Store(out_dir / "backtest.sqlite")
        other = open_other(args.compare) if args.compare else None
    except StoreError as exc:
        raise BacktestError(str(exc)) from None
    try:
        bt = _backtest(args, inputs, store, other, jobs, err)
    finally:
        store.close()
        if other is not None:
            other.close()
    page = report_html.write(bt, out_dir)
    summary = report_md.render(bt)
    (out_dir / "summary.md").write_text(summary, encoding="utf-8")
    (out_dir / "backtest.json").write_text(report_json.render(bt), encoding="utf-8")
    (out_dir / "judge-template.tsv").write_text(
        judge.template(judge.groups(bt.outcomes)), encoding="utf-8"
    )
    if args.format == "json":
        out.write(report_json.render(bt))
    else:
        out.write(summary)
        out.write(f"\nreport: {page}\n")
    out.flush()
    return 0


def _backtest(
    args: argparse.Namespace,
    inputs: _Inputs,
    store: Store,
    other: Store | None,
    jobs: int,
    err: TextIO,
) -> collect.Backtest:
    """Lint what the store does not hold yet, then collect every outcome."""
    repo, rules, repository = inputs.repo, inputs.rules, inputs.repository
    key, description = runner.settings_key(
        runner.engine_fingerprint(), rules, inputs.config_text, repository
    )
    store.add_settings(key, description)
    main_line = history.MainLine(repo, args.base)
    pulls = history.list_pulls(repo)
    if not pulls:
        raise BacktestError(
            f"{args.repo} has no refs/pull/N/head (fetch them: git fetch origin "
            "'+refs/pull/*/head:refs/pull/*/head')"
        )
    chosen = history.select_pulls(pulls, inputs.numbers, args.since, args.limit)
    if not chosen:
        raise BacktestError("no pull request matches --prs/--since/--limit")
    run_id = store.start_run(key, {k: _plain(v) for k, v in vars(args).items()})
    plans = runner.plan_all(store, main_line, chosen, args.commits)
    stats = runner.run(
        store,
        key,
        repo,
        plans,
        with_commits=args.commits,
        jobs=jobs,
        config=inputs.config_text,
        rules=rules,
        repository=repository,
        progress=not args.no_progress and err.isatty(),
        err=err,
    )
    store.finish_run(run_id, stats.seconds, stats.linted, stats.reused)
    outcomes = collect.outcomes(store, key, repo)
    bt = collect.Backtest(
        repo=repo,
        base_branch=args.base,
        settings_key=key,
        settings=description,
        links=collect.Links(repository),
        outcomes=outcomes,
        rules=answer.rule_table(outcomes),
        totals=answer.totals(outcomes, store.lint_seconds(key)),
        weeks=answer.per_week(outcomes),
        run={
            "pulls": stats.pulls,
            "linted": stats.linted,
            "reused": stats.reused,
            "missing": stats.missing,
            "errors": stats.errors,
            "seconds": round(stats.seconds, 3),
            "jobs": jobs,
        },
        titles=collect.rule_titles(),
    )
    if inputs.verdicts is not None:
        bt.judge = judge.judge(inputs.verdicts, outcomes)
    if other is not None:
        bt.comparison = compare(store, key, outcomes, other)
    return bt


def _plain(value: object) -> object:
    """An argument as JSON keeps it (dates as text)."""
    if value is None or isinstance(value, str | int | float | bool | list):
        return value
    return str(value)
