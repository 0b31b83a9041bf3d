"""`bot lint`'s work: decide which use case a command line means, lint, print the report.

The use cases (`bot.app`) lint and return data; this module decides which one a
command line means, shows paths from the current directory (as ruff does) and
renders the chosen format, with the advisor's output joined as data. `bot.cli.lint`
registers the options and loads this module when the cache cannot answer.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO, cast

from bot.app.cache import RunMemo, RunReads
from bot.app.config import load_repo_config
from bot.app.files import locate
from bot.app.lint import LintOptions, LintResult, lint_change, lint_content, lint_paths, lint_tree
from bot.app.local import (
    SourceError,
    open_checkout,
    repository_root,
    work_tree,
)
from bot.app.select import Selection, SelectionError, select_rules
from bot.cli import fix_options
from bot.cli.common import UsageError, read_body
from bot.cli.lint import CWD_RELATIVE, cache_of, output_format, use_color
from bot.cli.target import open_change
from bot.core.engine import Report
from bot.core.model import SEVERITY_RANK, Finding
from bot.report import stats
from bot.report.paths import PathMap, as_given

if TYPE_CHECKING:
    from bot.app.fix import FixResult

# A feature's modules are loaded by name when the command line asks for it, as
# `bot.cli` loads a command's module: a plain lint loads neither the fixer
# (`bot.app.fix`), nor the advisor (`bot.advisor`), nor the output formats it does
# not print.
FIXING = "bot.cli.fixing"
ADVISING = "bot.cli.advising"
RENDERERS = {
    "json": "bot.report.json_report",
    "sarif": "bot.report.sarif",
    "github": "bot.report.github",
    "rdjson": "bot.report.rdjson",
    "junit": "bot.report.junit",
    "concise": "bot.report.concise",
    "full": "bot.report.text",
}


def _feature(name: str) -> ModuleType:
    return importlib.import_module(name)


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
        root, _, _ = locate(args.paths[0])
        return lint_paths(
            args.paths,
            config_file=args.config,
            pr=args.pr,
            repository=args.github_repo,
            options=replace(options, results=cache_of(args, root)),
        )
    if args.base is None:
        checkout = trees.enter_context(open_checkout(args.repo, args.head))
        return lint_tree(
            checkout.tree,
            config=load_repo_config(checkout.tree, file=args.config),
            root=checkout.root,
            pr=args.pr,
            repository=args.github_repo or checkout.repository,
            options=replace(options, results=cache_of(args, checkout.root)),
        )
    change, config = open_change(args, trees)
    return lint_change(change, config=config, options=options)


def run(args: argparse.Namespace, out: TextIO, err: TextIO, memo: RunMemo | None = None) -> int:
    """Lint as the command line says and print; with `memo`, what is printed and written
    is kept for the next run of the same command line (`bot.app.cache`)."""
    with rare_collections():
        if memo is None:
            return _run(args, out, err, None)
        outputs = _Outputs(out, err)
        code = _run(args, outputs.out, outputs.err, outputs)
        memo.record(outputs.reads, outputs.stdout(), outputs.stderr(), outputs.files, code)
        return code


# the cyclic garbage collector's thresholds while linting (generation 0 allocations,
# then collections of the younger generation before the next is collected)
LINT_GC_THRESHOLDS = (50_000, 20, 100)


@contextmanager
def rare_collections() -> Iterator[None]:
    """Collect cyclic garbage rarely while linting, and restore the thresholds after.

    A lint keeps what it builds (syntax trees, values with positions, interpreter
    paths, findings) to the end, so at CPython's default thresholds the collector
    walks that growing heap again and again while finding little to free: about a
    sixth of a whole-tree lint's CPU on InferenceX, against 0.1 s at these
    thresholds, for about 5 MiB more peak memory. The forked worker inherits them."""
    before = gc.get_threshold()
    gc.set_threshold(*LINT_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


class _Outputs:
    """What a run prints and writes, kept for the cache while it is passed on."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.tees = (_Tee(out), _Tee(err))
        # passed on as the streams they stand for
        self.out = cast(TextIO, self.tees[0])
        self.err = cast(TextIO, self.tees[1])
        self.files: dict[str, str] = {}
        self.reads: list[tuple[Path | None, RunReads | None]] = []

    def stdout(self) -> str:
        return self.tees[0].kept.getvalue()

    def stderr(self) -> str:
        return self.tees[1].kept.getvalue()


class _Tee(io.TextIOBase):
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()


def _write(path: str, text: str, outputs: _Outputs | None) -> None:
    Path(path).write_text(text, encoding="utf-8")
    if outputs is not None:
        outputs.files[path] = text


def _run(args: argparse.Namespace, out: TextIO, err: TextIO, outputs: _Outputs | None) -> int:
    _resolve_mode(args)
    fix_options.check(args)
    fmt = output_format(args)
    selection = _selection(args, err)
    fixing = _feature(FIXING) if fix_options.wanted(args) else None
    advising = _feature(ADVISING) if args.advise else None
    advisor = advising.open_advisor() if advising is not None else None
    options = LintOptions(rules=selection.rules, review_date=args.date)
    advice = None
    fixed: FixResult | None = None
    # the file read from stdin, kept when fixing: its fixed bytes are printed
    stdin = sys.stdin.buffer.read() if args.paths == ["-"] and fixing is not None else None
    try:
        with ExitStack() as trees:
            if fixing is not None:
                fixed = fixing.fix(args, options, trees, stdin)
                result = fixed.lint
            else:
                result = _lint(args, options, trees)
            if advising is not None:  # the advisor reads the change's trees
                pr_body = read_body(args.pr_body) if args.pr_body else ""
                advice = advising.advise(advisor, result.runs, pr_body)
    finally:
        if advisor is not None:
            advisor.close()
    if outputs is not None:
        outputs.reads = [(r.root, r.reads) for r in result.runs]
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
    if fixing is not None and fixed is not None:
        done = fixing.finish(args, fixed, out, err, stdin)
        if done is not None:
            return cast(int, done)
        if stdin is not None:
            out = err  # stdout holds the fixed file; the report goes to stderr, as ruff's
    paths = _display_paths(result.root) if fmt in CWD_RELATIVE else as_given
    shown = _ordered(report, paths, args.sort)
    if args.statistics:
        rendered = stats.render(shown, "json" if fmt == "json" else "text")
    else:
        rendered = _render(shown, fmt, args.lang, use_color(args, out), paths, result.root, advice)
    if fixing is not None and fixed is not None:
        if fmt in ("full", "concise") and not args.statistics and not args.output:
            rendered += fixing.summary(fixed) + "\n"
        else:
            print(fixing.summary(fixed), file=err)
    if args.output:
        _write(args.output, rendered, outputs)
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
        _write(args.sarif_output, sarif_log, outputs)
    failing = args.fail_on != "never" and report.exceeds(args.fail_on)
    if fixing is not None and fixed is not None:
        return cast(int, fixing.exit_status(args, fixed, failing))
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

    return replace(report, findings=sorted(report.findings, key=key))


def _render(
    report: Report,
    fmt: str,
    lang: str,
    color: bool,
    paths: PathMap,
    root: Path | None,
    advice: Any,
) -> str:
    renderer = _feature(RENDERERS[fmt])
    if fmt == "json":
        extra = _feature(ADVISING).json_extra(advice) if advice is not None else None
        return cast(str, renderer.render(report, lang, extra=extra))
    if fmt == "sarif":
        return cast(
            str, renderer.render(report, lang, root=str(root) if root is not None else None)
        )
    if fmt in ("github", "rdjson", "junit"):
        return cast(str, renderer.render(report, lang, paths=paths))
    rendered = cast(str, renderer.render(report, lang, color=color, paths=paths))
    if advice is not None:  # sarif, github, rdjson, junit: advice is not part of them
        rendered += "\n" + _feature(ADVISING).text_section(advice, lang)
    return rendered
