"""`bot lint`: parse the options, call `bot.app`, print the report.

The use cases (`bot.app`) lint and return data; this module decides which one a
command line means, shows paths from the current directory (as ruff does) and
renders the chosen format, with the advisor's output joined as data.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sqlite3
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from bot.advisor import render as advice_render
from bot.advisor.client import Advisor, AdvisorConfigError, advisor_settings, sdk_available
from bot.advisor.local import advise_runs
from bot.app.config import load_repo_config
from bot.app.fix import FixResult
from bot.app.lint import LintOptions, LintResult, lint_change, lint_content, lint_paths, lint_tree
from bot.app.local import (
    SourceError,
    open_checkout,
    open_local_change,
    repository_root,
    work_tree,
)
from bot.app.select import Selection, SelectionError, select_rules
from bot.cli import fixing
from bot.cli.common import Subparsers, UsageError, iso_date, positive_int, read_body
from bot.core.engine import Report
from bot.core.model import SEVERITY_RANK, Finding
from bot.report import concise, github, json_report, junit, rdjson, sarif, stats, text
from bot.report.paths import PathMap, as_given

FORMATS = ("text", "json", "sarif", "github", "rdjson", "junit")
# ruff's names: `full` is the text format, `concise` one line per finding
OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github", "rdjson", "junit")
# formats read by people or by tools that resolve paths from the working directory
CWD_RELATIVE = ("full", "concise", "github", "rdjson", "junit")
SORTS = ("path", "severity")

LINT_EPILOG = """\
modes:
  bot lint PATH...                      lint files or directories as they are on disk
  bot lint --repo DIR                   lint every recipe and the changelog of DIR
  bot lint --repo DIR --base REF        lint what changed since REF (working tree as head)
  bot lint --repo DIR --base REF --head REF
                                        lint what a PR from REF to REF changes

examples:
  bot lint benchmarks/single_node/agentic/minimaxm3_fp4_b300_vllm_mtp.sh
  bot lint --repo . --base origin/main --pr 2423
  bot lint --repo . --base origin/main --head HEAD --format sarif --output bot.sarif
  bot lint --repo . --format github --lang en       # annotations in GitHub Actions
  bot lint --repo . --select RCP --ignore RCP007 --statistics
  cat x.sh | bot lint - --stdin-filename benchmarks/single_node/agentic/x.sh
  bot lint --repo . --fix                # apply the safe fixes to the working tree
  bot lint --repo . --base origin/main --diff --unsafe-fixes   # every fix, as a patch

Files named as PATH are checked with their path relative to the repository
root (the nearest directory above them holding .git, perf-changelog.yaml or
.recipe-bot.yml), so path-based rules see them where they live. In --base mode
the changed paths are those of `git diff BASE...HEAD` (from the merge-base),
and the configuration is read from BASE, so a PR cannot relax its own checks.

Text, github, rdjson and junit output print paths relative to the current
directory (absolute when outside it); json and sarif keep them relative to the
repository root. Checking no file at all (a mistyped path, an empty directory, a
change that touches no recipe) is an error unless --allow-empty.

--fix applies the fixes a rule declares safe (`bot explain ID`), --unsafe-fixes
the unsafe ones too; in --base mode only on lines the change adds or changes.
--diff prints them as a patch for `git apply` instead of writing them.

exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or input error.
With --fix: findings left after fixing decide; --fix-only: 0; --diff: 1 when
there is something to fix; --exit-non-zero-on-fix: 1 when a file was fixed.
Silence one finding with `# bot: ignore[RCP001] reason` on its line or the line above.
"""


def register(sub: Subparsers) -> None:
    lp = sub.add_parser(
        "lint",
        help="check recipes and the changelog",
        description="Check recipe scripts and perf-changelog.yaml and report findings.",
        epilog=LINT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lp.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to lint")
    lp.add_argument(
        "--repo", metavar="DIR", help="repository to lint (whole tree, or with --base the changes)"
    )
    lp.add_argument(
        "--base", metavar="REF", help="lint only paths changed since the merge-base with REF"
    )
    lp.add_argument("--head", metavar="REF", help="head commit (default: the working tree)")
    lp.add_argument(
        "--pr",
        type=positive_int,
        metavar="N",
        help="pull request number (rules check pr-link against it)",
    )
    lp.add_argument(
        "--author",
        metavar="LOGIN",
        help="pull request author (recorded with the change)",
    )
    lp.add_argument(
        "--date",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help="review date for dated knowledge such as deprecations (default: today)",
    )
    lp.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    lp.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        metavar="{full,concise,json,...}",
        help="output format in ruff's names: full (= --format text), concise (one line per "
        "finding), json, sarif, github, rdjson, junit; overrides --format, which must "
        "agree when both are given",
    )
    lp.add_argument(
        "--lang",
        choices=("en", "zh", "both"),
        default="both",
        help="message language (default: both)",
    )
    lp.add_argument(
        "--fail-on",
        choices=("info", "warning", "error", "never"),
        default="error",
        help="lowest severity that makes the exit status 1; never: exit 0 on findings "
        "(default: error)",
    )
    lp.add_argument(
        "--config",
        metavar="FILE",
        help="configuration file (default: the repository's .recipe-bot.yml, read from BASE with --base)",
    )
    lp.add_argument(
        "--no-color",
        action="store_true",
        help="never colour text output (NO_COLOR is honoured too)",
    )
    lp.add_argument(
        "--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    lp.add_argument(
        "--sarif-output",
        metavar="FILE",
        help="also write the findings as a SARIF log to FILE, from the same run "
        "(e.g. with --format github, as the GitHub Action does)",
    )
    lp.add_argument(
        "--advise",
        action="store_true",
        help="also ask the LLM advisor (needs ANTHROPIC_API_KEY and the llm extra; advice only, "
        "never changes findings or the exit status; PR mode)",
    )
    lp.add_argument(
        "--pr-body",
        metavar="FILE",
        help="with --advise: the pull request's description (quoted to the advisor as data)",
    )
    _add_selection(lp)
    fixing.add_options(lp)
    lp.set_defaults(func=run)


def _add_selection(lp: argparse.ArgumentParser) -> None:
    """ruff-like options: rule selection, statistics, exit status, stdin."""
    lp.add_argument(
        "--select",
        action="append",
        metavar="RULES",
        help="run only these rules: ids, slugs or id prefixes (RCP, CHL00), comma-separated; "
        "ALL for every rule",
    )
    lp.add_argument(
        "--extend-select",
        action="append",
        metavar="RULES",
        help="run these rules in addition to --select",
    )
    lp.add_argument("--ignore", action="append", metavar="RULES", help="do not run these rules")
    lp.add_argument(
        "--statistics",
        action="store_true",
        help="print one line per rule with its count instead of the findings",
    )
    lp.add_argument(
        "--sort",
        choices=SORTS,
        default="path",
        help="order of the findings: path (file, line, column) or severity (errors first, "
        "then by path) (default: path)",
    )
    lp.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when findings reach --fail-on (2 still means a usage or input error)",
    )
    lp.add_argument(
        "--allow-empty",
        action="store_true",
        help="exit 0 when no file is checked (default: that is an error, exit 2)",
    )
    lp.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="with PATH '-': the path of the file read from stdin (decides which rules apply)",
    )
    lp.add_argument(
        "--github-repo",
        metavar="OWNER/NAME",
        help="the pull request's GitHub repository, for pr-link checks "
        "(default: from the `origin` remote)",
    )


# --------------------------------------------------------------------------- options


def output_format(args: argparse.Namespace) -> str:
    """The format to print: `--output-format`, else `--format` (`text` is `full`)."""
    given = "full" if args.format == "text" else args.format
    chosen = getattr(args, "output_format", None)
    if chosen is None:
        return given
    if args.format != "text" and chosen != given:
        raise UsageError(
            f"--format {args.format} and --output-format {chosen} disagree; give one of them"
        )
    return str(chosen)


def use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    if args.no_color or args.output or output_format(args) not in ("full", "concise"):
        return False
    if os.environ.get("NO_COLOR"):
        return False
    isatty: Callable[[], bool] | None = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _resolve_mode(args: argparse.Namespace) -> None:
    """Check the PATH / --repo / --base combination; fill in the defaults."""
    if args.stdin_filename and not args.paths and not args.repo:
        args.paths = ["-"]
    if "-" in args.paths:
        if args.paths != ["-"] or args.repo:
            raise UsageError("'-' (stdin) is the only PATH when given; drop the other PATHs")
        if not args.stdin_filename:
            raise UsageError(
                "'-' reads the file from stdin: give --stdin-filename PATH, its path in the "
                "repository, so the bot knows which rules apply"
            )
    elif args.stdin_filename:
        raise UsageError("--stdin-filename goes with the PATH '-' (read from stdin)")
    if args.paths and args.repo:
        raise UsageError("give PATH arguments or --repo DIR, not both")
    if args.paths and (args.base or args.head):
        raise UsageError(
            "--base/--head need --repo DIR (PATH arguments are linted as they are on disk)"
        )
    if not args.paths and not args.repo:
        if args.base or args.head:
            cwd = Path.cwd()
            root = repository_root(cwd)
            if root is None or not (root / ".git").exists():
                try:
                    root = work_tree(cwd)
                except SourceError:
                    option = "--base" if args.base else "--head"
                    raise UsageError(
                        f"{option} compares git commits, but {cwd} is not a git repository "
                        "(run it inside a clone, or give --repo DIR)"
                    ) from None
            args.repo = str(root)
        else:
            args.paths = ["."]


def _nothing_checked(args: argparse.Namespace) -> str:
    what = "no recipe, changelog or master config by the configured paths"
    if args.paths == ["-"]:
        return f"{args.stdin_filename} is {what.replace('no ', 'not a ', 1)}"
    if args.paths:
        return f"{' '.join(args.paths)}: {what}"
    if args.base:
        return f"the change from {args.base} touches {what}"
    return f"{args.repo}: {what}"


def _selection(args: argparse.Namespace, err: TextIO) -> Selection:
    try:
        selection = select_rules(args.select, args.extend_select, args.ignore)
    except SelectionError as exc:
        raise UsageError(str(exc)) from None
    for o in selection.overridden:
        rules = ", ".join(o.rules)
        print(
            f"bot: warning: {o.option} {o.selector} has no effect: "
            f"--ignore {', '.join(o.ignored_by)} removes {rules}",
            file=err,
        )
    return selection


# --------------------------------------------------------------------------- lint


def _lint(args: argparse.Namespace, options: LintOptions, trees: ExitStack) -> LintResult:
    """The use case the command line names; what it opens stays open in `trees`."""
    if args.paths == ["-"]:
        return lint_content(
            args.stdin_filename,
            sys.stdin.buffer.read(),
            config_file=args.config,
            pr=args.pr,
            repository=args.github_repo,
            options=options,
        )
    if args.paths:
        return lint_paths(
            args.paths,
            config_file=args.config,
            pr=args.pr,
            repository=args.github_repo,
            options=options,
        )
    if args.base is None:
        checkout = trees.enter_context(open_checkout(args.repo, args.head))
        return lint_tree(
            checkout.tree,
            config=load_repo_config(checkout.tree, file=args.config),
            root=checkout.root,
            pr=args.pr,
            repository=args.github_repo or checkout.repository,
            options=options,
        )
    change = trees.enter_context(
        open_local_change(
            args.repo,
            args.base,
            args.head,
            pr=args.pr,
            author=args.author,
            repository=args.github_repo,
        )
    )
    config = load_repo_config(change.config_tree, ref=change.config_ref, file=args.config)
    return lint_change(change, config=config, options=options)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    _resolve_mode(args)
    fixing.check(args)
    fmt = output_format(args)
    selection = _selection(args, err)
    advisor = _advisor() if args.advise else None
    options = LintOptions(rules=selection.rules, review_date=args.date)
    advice = None
    fixed: FixResult | None = None
    # the file read from stdin, kept when fixing: its fixed bytes are printed
    stdin = sys.stdin.buffer.read() if args.paths == ["-"] and fixing.wanted(args) else None
    try:
        with ExitStack() as trees:
            if fixing.wanted(args):
                fixed = fixing.fix(args, options, trees, stdin)
                result = fixed.lint
            else:
                result = _lint(args, options, trees)
            if advisor is not None:  # the advisor reads the change's trees
                pr_body = read_body(args.pr_body) if args.pr_body else ""
                advice = advise_runs(advisor, result.runs, pr_body)
    finally:
        if advisor is not None:
            advisor.close()
    for lint_run in result.runs:
        for path in lint_run.unrouted:
            print(
                f"bot: warning: {path} is not a recipe or the changelog by the configured "
                "paths; not checked",
                file=err,
            )
    report = result.report
    if not report.files and not args.allow_empty:
        raise UsageError(
            f"no files checked: {_nothing_checked(args)} (pass --allow-empty to accept)"
        )
    if fixed is not None:
        done = fixing.finish(args, fixed, out, err, stdin)
        if done is not None:
            return done
        if stdin is not None:
            out = err  # stdout holds the fixed file; the report goes to stderr, as ruff's
    paths = _display_paths(result.root) if fmt in CWD_RELATIVE else as_given
    shown = _ordered(report, paths, args.sort)
    if args.statistics:
        rendered = stats.render(shown, "json" if fmt == "json" else "text")
    else:
        rendered = _render(shown, fmt, args.lang, use_color(args, out), paths, result.root, advice)
    if fixed is not None:
        if fmt in ("full", "concise") and not args.statistics and not args.output:
            rendered += fixing.summary(fixed) + "\n"
        else:
            print(fixing.summary(fixed), file=err)
    if args.output:
        Path(args.output).write_text(rendered, encoding="utf-8")
    else:
        out.write(rendered)
        out.flush()
    if args.sarif_output:
        sarif_log = _render(
            _ordered(report, as_given, args.sort),
            "sarif",
            args.lang,
            False,
            as_given,
            result.root,
            None,
        )
        Path(args.sarif_output).write_text(sarif_log, encoding="utf-8")
    failing = args.fail_on != "never" and report.exceeds(args.fail_on)
    if fixed is not None:
        return fixing.exit_status(args, fixed, failing)
    if args.exit_zero:
        return 0
    return 1 if failing else 0


# --------------------------------------------------------------------------- display


def display_path(root: Path | None, rel: str, cwd: Path) -> str:
    """`rel` (relative to `root`) as ruff prints paths: relative to `cwd` when
    inside it, else absolute."""
    if root is None:
        return rel
    full = root / rel
    try:
        return full.relative_to(cwd).as_posix()
    except ValueError:
        return full.as_posix()


def _display_paths(root: Path | None) -> PathMap:
    cwd = Path(os.path.realpath(Path.cwd()))
    shown: dict[str, str] = {}

    def show(path: str) -> str:
        if path not in shown:
            shown[path] = display_path(root, path, cwd)
        return shown[path]

    return show


def _ordered(report: Report, paths: PathMap, sort: str) -> Report:
    """The report with its findings in the order printed: by the path as shown, or errors
    first (`--sort severity`). The findings themselves are the report's."""
    if paths is as_given and sort == "path":
        return report

    def key(f: Finding) -> tuple[Any, ...]:
        where = (paths(f.path), f.span.line, f.span.col, f.rule)
        return (-SEVERITY_RANK[f.severity], *where) if sort == "severity" else where

    return dataclasses.replace(report, findings=sorted(report.findings, key=key))


def _render(
    report: Report,
    fmt: str,
    lang: str,
    color: bool,
    paths: PathMap,
    root: Path | None,
    advice: Any,
) -> str:
    if fmt == "json":
        extra = None
        if advice is not None:
            extra = {
                "advice": advice_render.advice_json(advice.items),
                "advisor": advice_render.run_json(advice),
            }
        return json_report.render(report, lang, extra=extra)
    if fmt == "sarif":
        return sarif.render(report, lang, root=str(root) if root is not None else None)
    if fmt == "github":
        return github.render(report, lang, paths=paths)
    if fmt == "rdjson":
        return rdjson.render(report, lang, paths=paths)
    if fmt == "junit":
        return junit.render(report, lang, paths=paths)
    if fmt == "concise":
        rendered = concise.render(report, lang, color=color, paths=paths)
    else:
        rendered = text.render(report, lang, color=color, paths=paths)
    if advice is not None:  # sarif, github, rdjson, junit: advice is not part of them
        rendered += "\n" + advice_render.text_section(advice.items, advice, lang)
    return rendered


# --------------------------------------------------------------------------- advisor


def _advisor() -> Advisor:
    """The advisor for --advise, or a usage error (exit 2) naming what is missing."""
    try:
        settings = advisor_settings(os.environ)
    except AdvisorConfigError as exc:
        raise UsageError(str(exc)) from None
    if settings is None:
        if os.environ.get("ANTHROPIC_API_KEY", "").strip():
            raise UsageError("--advise: the advisor is off (BOT_ADVISOR=off)")
        raise UsageError("--advise needs ANTHROPIC_API_KEY (the advisor calls the Anthropic API)")
    if not sdk_available():
        raise UsageError("--advise needs the anthropic SDK: pip install 'recipe-review-bot[llm]'")
    try:
        return Advisor(settings)
    except (sqlite3.Error, OSError) as exc:
        raise UsageError(f"advisor cache {settings.cache_path}: {exc}") from None
