"""`bot lint --fix`, `--unsafe-fixes`, `--diff`, `--fix-only`: the options and their output.

Not a command of its own: `bot.cli.lint` registers these options and, when one asks for
fixes, calls `fix()` instead of linting, then `finish()` to write the files (or print
the diff, or the fixed stdin) and the summary. The use case is `bot.app.fix`.

Exit status, as ruff's `check`:
- `--fix`: 1 when findings at or above `--fail-on` remain after fixing, else 0; with
  `--exit-non-zero-on-fix` also 1 when a file was fixed.
- `--fix-only`: 0 (what remains is not reported); with `--exit-non-zero-on-fix` 1 when a
  file was fixed.
- `--diff`: 1 when there is something to fix (the diff is not empty), else 0; nothing is
  written and what remains is not reported.
- `--exit-zero` makes each of them 0; 2 is still a usage or input error (a file that
  cannot be written included).
"""

from __future__ import annotations

import argparse
from collections import Counter
from contextlib import ExitStack
from typing import TextIO

from bot.app.config import load_repo_config
from bot.app.fix import (
    FixOptions,
    FixResult,
    FixWriteError,
    Refused,
    fix_change,
    fix_content,
    fix_paths,
    fix_tree,
    hidden_unsafe,
    write_fixes,
)
from bot.app.lint import LintOptions
from bot.app.local import open_checkout
from bot.cli.common import UsageError
from bot.cli.fix_options import add_options as add_options
from bot.cli.fix_options import check as check
from bot.cli.fix_options import wanted as wanted
from bot.cli.fix_options import writes as writes
from bot.cli.target import open_change
from bot.core.engine import Report

REASONS = {
    "stale": "its line no longer reads as the finding quoted it",
    "no-op": "it changes nothing",
    "unparseable": "the file would no longer parse",
    "not-utf8": "the file is not UTF-8 text",
}


def fix(
    args: argparse.Namespace, options: LintOptions, trees: ExitStack, stdin: bytes | None
) -> FixResult:
    """The fix use case the command line names (the same modes as linting)."""
    fixes = FixOptions(unsafe=args.unsafe_fixes)
    if args.paths == ["-"]:
        assert stdin is not None
        return fix_content(
            args.stdin_filename,
            stdin,
            config_file=args.config,
            pr=args.pr,
            repository=args.github_repo,
            options=options,
            fixes=fixes,
        )
    if args.paths:
        return fix_paths(
            args.paths,
            config_file=args.config,
            pr=args.pr,
            repository=args.github_repo,
            options=options,
            fixes=fixes,
        )
    if args.base is None:
        checkout = trees.enter_context(open_checkout(args.repo, args.head))
        return fix_tree(
            checkout.tree,
            config=load_repo_config(checkout.tree, file=args.config),
            root=checkout.root,
            pr=args.pr,
            repository=args.github_repo or checkout.repository,
            options=options,
            fixes=fixes,
        )
    change, config = open_change(args, trees)
    return fix_change(change, config=config, options=options, fixes=fixes)


def finish(
    args: argparse.Namespace, fixed: FixResult, out: TextIO, err: TextIO, stdin: bytes | None
) -> int | None:
    """Print the diff or the fixed stdin, or write the files; warn about refused fixes.
    Returns the exit status when nothing else is to be printed (`--diff`, `--fix-only`),
    None when the caller reports what remains."""
    for refused in fixed.refused:
        _warn_refused(refused, err)
    if not fixed.converged:
        print(
            f"bot: warning: fixes did not settle after {fixed.options.max_passes} passes; "
            "run --fix again and report the file if it keeps changing",
            file=err,
        )
    if args.diff:
        text = fixed.diff()
        _emit(args, text, out)
        print(_would_fix(fixed), file=err)
        if args.exit_zero:
            return 0
        return 1 if fixed.files else 0
    if args.paths == ["-"]:
        assert stdin is not None
        data = fixed.files[0].after if fixed.files else stdin
        _emit_bytes(data, out)
    else:
        try:
            write_fixes(fixed)
        except FixWriteError as exc:
            raise UsageError(f"fix not written: {exc}") from None
    if args.fix_only:
        print(summary(fixed, remaining=False), file=err)
        if args.exit_zero:
            return 0
        return 1 if args.exit_non_zero_on_fix and fixed.fixed else 0
    return None


def exit_status(args: argparse.Namespace, fixed: FixResult, failing: bool) -> int:
    """`--fix`: findings left at or above `--fail-on`, or (`--exit-non-zero-on-fix`) a fix."""
    if args.exit_zero:
        return 0
    if args.exit_non_zero_on_fix and fixed.fixed:
        return 1
    return 1 if failing else 0


def summary(fixed: FixResult, *, remaining: bool = True) -> str:
    """`Fixed 3 findings (RCP001 ×1, ...) in 2 files; 1 remaining.` and, when unsafe fixes
    were held back, how to apply them."""
    n = len(fixed.fixed)
    text = f"Fixed {_count(n, 'finding')}"
    if n:
        text += f" ({_by_rule(fixed)}) in {_count(len(fixed.files), 'file')}"
    if remaining:
        text += f"; {len(fixed.report.findings)} remaining"
    text += "."
    return text + _hint(fixed.report, fixed.options, changed_only=_on_change(fixed))


def _hint(report: Report, options: FixOptions, *, changed_only: bool) -> str:
    if options.unsafe:
        return ""
    hidden = len(hidden_unsafe(report, changed_only=changed_only))
    if not hidden:
        return ""
    fixes = "fix" if hidden == 1 else "fixes"
    return f" {hidden} unsafe {fixes} can be applied with --unsafe-fixes."


def _would_fix(fixed: FixResult) -> str:
    n = len(fixed.fixed)
    if not n:
        return "No fixes available." + _hint(
            fixed.report, fixed.options, changed_only=_on_change(fixed)
        )
    text = f"Would fix {_count(n, 'finding')} ({_by_rule(fixed)}) in {_count(len(fixed.files), 'file')}."
    return text + _hint(fixed.report, fixed.options, changed_only=_on_change(fixed))


def _on_change(fixed: FixResult) -> bool:
    return any(run.ctx.change is not None for run in fixed.lint.runs)


def _by_rule(fixed: FixResult) -> str:
    counts = Counter(f.rule for f in fixed.fixed)
    return ", ".join(f"{rule} ×{n}" for rule, n in sorted(counts.items()))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _warn_refused(refused: Refused, err: TextIO) -> None:
    f = refused.finding
    print(
        f"bot: warning: {f.path}:{f.span.line}: {f.rule} fix not applied: "
        f"{REASONS[refused.reason]}",
        file=err,
    )


def _emit(args: argparse.Namespace, text: str, out: TextIO) -> None:
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        return
    out.write(text)
    out.flush()


def _emit_bytes(data: bytes, out: TextIO) -> None:
    """The fixed stdin, byte for byte where the stream allows it."""
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        out.write(data.decode("utf-8", errors="surrogateescape"))
        out.flush()
