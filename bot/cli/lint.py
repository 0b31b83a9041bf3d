"""`bot lint`: its options, and the answer from the cache when nothing changed.

The command's work is in `bot.cli.lint_run`, loaded by name only when the cache
(`bot.app.cache`) cannot replay the run: a lint of an unchanged tree prints what
the last one printed without loading the linter, its parsers or its rules, as ruff
answers from `.ruff_cache`.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from bot.app.cache import DEFAULT_DIR, LintCache, RunMemo
from bot.app.files import locate
from bot.cli import fix_options
from bot.cli.common import Subparsers, UsageError, iso_date, positive_int

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
    fix_options.add_options(lp)
    _add_cache(lp)
    lp.set_defaults(func=run)


def _add_cache(lp: argparse.ArgumentParser) -> None:
    lp.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache of earlier results (also BOT_NO_CACHE=1)",
    )
    lp.add_argument(
        "--cache-dir",
        metavar="DIR",
        help=f"keep the cache in DIR (also BOT_CACHE_DIR; default: {DEFAULT_DIR} in the "
        "repository root)",
    )


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


# --------------------------------------------------------------------------- run


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    memo = _memo(args, out)
    if memo is not None:
        replayed = memo.replay()
        if replayed is not None:
            return _print(replayed, out, err)
    return int(linter().run(args, out, err, memo=memo))


def linter() -> ModuleType:
    """The command's work (`bot.cli.lint_run`), loaded by name when the cache cannot
    answer, as `bot.cli` loads commands."""
    return importlib.import_module("bot.cli.lint_run")


def cache_of(args: argparse.Namespace, root: Path) -> LintCache | None:
    """The cache a run uses: none with `--no-cache` (or `BOT_NO_CACHE=1`), else
    `--cache-dir` (or `BOT_CACHE_DIR`), else the repository's `.recipe_bot_cache`."""
    if args.no_cache or os.environ.get("BOT_NO_CACHE", "").strip().lower() in ("1", "true", "yes"):
        return None
    return LintCache.at(root, args.cache_dir or os.environ.get("BOT_CACHE_DIR") or None)


def _memo(args: argparse.Namespace, out: TextIO) -> RunMemo | None:
    """The replayable run a command line names: a whole tree (`--repo DIR`) or files on
    disk, without stdin, a change (`--base`/`--head`) or the advisor; None otherwise."""
    if args.advise or args.base or args.head or args.stdin_filename:
        return None
    if fix_options.wanted(args):  # fixing writes files: never a replayed run
        return None
    if (args.paths and args.repo) or "-" in args.paths:
        return None
    try:
        if args.repo:
            roots = [Path(os.path.realpath(args.repo))]
            if not roots[0].is_dir():
                return None
        else:
            roots = []
            for raw in args.paths or ["."]:
                root, _, _ = locate(raw)
                if root not in roots:
                    roots.append(root)
    except OSError:
        return None
    cache = cache_of(args, roots[0])
    if cache is None:
        return None
    config = Path(args.config).read_bytes() if args.config else None
    isatty: Callable[[], bool] | None = getattr(out, "isatty", None)
    return RunMemo(
        cache,
        roots,
        command=sorted((k, repr(v)) for k, v in vars(args).items() if k != "func"),
        config=config,
        where=(os.path.realpath(Path.cwd()), bool(os.environ.get("NO_COLOR"))),
        tty=bool(isatty and isatty()),
        date=(args.date or datetime.date.today()).isoformat(),
    )


def _print(replayed: dict[str, Any], out: TextIO, err: TextIO) -> int:
    """Write what a replayed run printed and wrote; its exit status."""
    for name, text in dict(replayed["files"]).items():
        Path(name).write_text(str(text), encoding="utf-8")
    if replayed["stderr"]:
        err.write(str(replayed["stderr"]))
    out.write(str(replayed["stdout"]))
    out.flush()
    return int(replayed["code"])
