"""The fix use case: apply the findings' mechanical fixes, pass after pass, as ruff does.

    fix_paths(paths)             files or directories as they are on disk
    fix_content(path, data)      one file's bytes (stdin) as if at `path`
    fix_tree(tree)               every routed file of a tree, or the files named
    fix_change(change)           the lines a change (a pull request) adds or changes
    fix_lint(result)             what any `lint_*` use case found (the four above call it)
    FixOptions(unsafe, max_passes)

Each returns a `FixResult`; nothing is written. `write_fixes(result)` writes the fixed
files of a local run in place (atomically, keeping each file's mode); the service
commits `FixResult.files` through the GitHub gateway's trees; `FixResult.diff()` is
the unified diff of both.

How a pass goes
1. Pick the findings whose fix applies: a `suggestion` (replacement text for the
   finding's lines; "" deletes them) of a rule whose record declares it `safe`, or
   `unsafe` with `FixOptions(unsafe=True)` (`Rule.applicability`, ruff's
   `Applicability`); `display-only` fixes and `proposal`s (text to add elsewhere) are
   never applied. On a change, only findings on lines the change adds or changes
   (`Finding.in_diff`): a fix never edits what the pull request did not touch.
2. Per file, in line order: an edit whose lines overlap an edit already taken is left
   for the next pass (the lint after this pass computes it again on the new text); the
   same edit asked by two findings is made once. An edit whose first line no longer
   reads as the finding quoted it (`Finding.line_text`) is refused (`stale`), and so is
   one that changes nothing (`no-op`).
3. Every edited file is parsed again with its parser; a file that would parse with more
   problems than before (a bash syntax error, YAML the loader refuses) keeps only the
   edits that parse, one by one in line order, and the others are refused
   (`unparseable`). Line endings stay the file's own: a replacement line takes the
   ending of the line it replaces.
4. Lint again: the same use case over an overlay of the fixed bytes on the original
   tree (`bot.sources.OverlayTree`), with the same configuration, review date, pull
   request and one shared `ParseCache`, so only the fixed files are parsed again.
   Repeat until no fix applies or `max_passes` passes ran (`FixResult.converged`).

A fix refused once is not tried again in a later pass. On a change, fixing lints the
change as its trees show it (difflib over base and head, never GitHub's `patch`), so
`bot lint --base B --fix` on a checkout and the service on the same head produce the
same bytes.

`FixResult`: `files` (each changed file's bytes before and after, by its path in the
repository), `passes` (the findings each pass fixed, and those it refused), `lint` (the
lint after the last pass: what remains), `report`, `fixed`, `converged`, `diff()`;
`fixable(report, options)` and `hidden_unsafe(report)` count what a report could fix.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field, replace
from functools import cached_property
from pathlib import Path
from typing import Literal

from bot.app.lint import (
    Change,
    LintOptions,
    LintResult,
    LintRun,
    lint_change,
    lint_content,
    lint_paths,
    lint_tree,
)
from bot.base.records import dataclass
from bot.base.tree import Tree
from bot.core.config import Config
from bot.core.context import Context, ParseCache, route
from bot.core.engine import Report
from bot.core.model import SAFE, UNSAFE, Finding, FixLevel
from bot.core.registry import get_rule
from bot.sources import OverlayTree

# ruff stops after 100; a pass here re-lints the run, and no rule's fix feeds another's
MAX_PASSES = 10

# the default `LintOptions` of every use case here (an immutable value)
_LINT = LintOptions()

Refusal = Literal["stale", "no-op", "unparseable", "not-utf8"]


@dataclass(frozen=True)
class FixOptions:
    """Which fixes to apply, and how many passes at most."""

    # also apply fixes their rule declares `unsafe` (`--unsafe-fixes`)
    unsafe: bool = False
    max_passes: int = MAX_PASSES

    def applies(self, level: FixLevel | None) -> bool:
        return level == SAFE or (self.unsafe and level == UNSAFE)


@dataclass(frozen=True)
class FixedFile:
    """One file the fixes changed."""

    # relative to `root` (the repository of its lint run), as the report gives it
    path: str
    before: bytes
    after: bytes
    # the local directory `path` is relative to; None for remote trees
    root: Path | None = None


@dataclass(frozen=True)
class Refused:
    """A fix not applied, and why: `stale` (its line no longer reads as the finding
    quoted it), `no-op` (it changes nothing), `unparseable` (the file would no longer
    parse), `not-utf8` (the file is not UTF-8 text)."""

    finding: Finding
    reason: Refusal


@dataclass
class FixPass:
    """One pass: the findings whose fixes it applied, and the fixes it refused."""

    applied: list[Finding] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)


@dataclass
class FixResult:
    # every file whose bytes changed, in path order
    files: list[FixedFile]
    # pass by pass (several lint runs' passes of the same number merged)
    passes: list[FixPass]
    # the lint after the last pass: what remains; `before` is the lint before any fix
    lint: LintResult
    before: LintResult
    # False when `max_passes` ran out while a fix still applied
    converged: bool
    options: FixOptions

    @property
    def report(self) -> Report:
        """What remains after fixing."""
        return self.lint.report

    @property
    def root(self) -> Path | None:
        return self.lint.root

    @property
    def fixed(self) -> list[Finding]:
        """Every finding a pass fixed, pass by pass."""
        return [f for p in self.passes for f in p.applied]

    @property
    def refused(self) -> list[Refused]:
        return [r for p in self.passes for r in p.refused]

    @cached_property
    def changed(self) -> dict[str, bytes]:
        """The fixed bytes by path (as `display_path` names it: relative to `root`)."""
        return {self.display_path(f): f.after for f in self.files}

    def display_path(self, f: FixedFile) -> str:
        """`f`'s path relative to the result's root (several repositories: their common
        directory), as the merged report names it."""
        root = self.root
        if root is None or f.root is None or f.root == root:
            return f.path
        return (f.root / f.path).relative_to(root).as_posix()

    def diff(self) -> str:
        """A unified diff of every fixed file (`a/PATH`, `b/PATH` relative to `root`),
        which `git apply` and `patch -p1` accept from the root."""
        return "".join(unified_diff(self.display_path(f), f.before, f.after) for f in self.files)


# --------------------------------------------------------------------------- applicability


def fix_level(finding: Finding) -> FixLevel | None:
    """How `finding`'s fix may be applied: its rule's declared applicability when the
    finding carries a suggestion; `display-only` for a proposal alone (text to add
    elsewhere is never applied); None when it carries no fix."""
    if finding.suggestion is None:
        return "display-only" if finding.proposal is not None else None
    rm = get_rule(finding.rule)
    if rm is None or rm.rule.applicability is None:
        return "display-only"
    return rm.rule.applicability.level


def fixable(report: Report, options: FixOptions, *, changed_only: bool = False) -> list[Finding]:
    """The findings of `report` whose fix `options` would apply."""
    return [
        f
        for f in report.findings
        if options.applies(fix_level(f)) and (not changed_only or f.in_diff)
    ]


def hidden_unsafe(report: Report, *, changed_only: bool = False) -> list[Finding]:
    """Findings whose fix is `unsafe`: `--unsafe-fixes` would apply them."""
    return [
        f for f in report.findings if fix_level(f) == UNSAFE and (not changed_only or f.in_diff)
    ]


# --------------------------------------------------------------------------- use cases


def fix_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    config_file: str | os.PathLike[str] | None = None,
    pr: int | None = None,
    repository: str | None = None,
    options: LintOptions = _LINT,
    fixes: FixOptions = FixOptions(),
) -> FixResult:
    """Fix files and directories as they are on disk (`bot lint PATH... --fix`)."""
    options = _with_cache(options)
    result = lint_paths(
        paths, config_file=config_file, pr=pr, repository=repository, options=options
    )
    return fix_lint(result, options=options, fixes=fixes)


def fix_content(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    config_file: str | os.PathLike[str] | None = None,
    pr: int | None = None,
    repository: str | None = None,
    options: LintOptions = _LINT,
    fixes: FixOptions = FixOptions(),
) -> FixResult:
    """Fix `data` as the file at `path` (stdin). The fixed bytes are
    `result.files[0].after` when anything changed, else `data`."""
    options = _with_cache(options)
    result = lint_content(
        path, data, config_file=config_file, pr=pr, repository=repository, options=options
    )
    return fix_lint(result, options=options, fixes=fixes)


def fix_tree(
    tree: Tree,
    *,
    config: Config | None = None,
    paths: Sequence[str] | None = None,
    root: Path | None = None,
    pr: int | None = None,
    repository: str | None = None,
    options: LintOptions = _LINT,
    fixes: FixOptions = FixOptions(),
) -> FixResult:
    """Fix `paths` of `tree` (default: every routed path), no base to compare with."""
    options = _with_cache(options)
    result = lint_tree(
        tree,
        config=config,
        paths=paths,
        root=root,
        pr=pr,
        repository=repository,
        options=options,
    )
    return fix_lint(result, options=options, fixes=fixes)


def fix_change(
    change: Change,
    *,
    config: Config | None = None,
    options: LintOptions = _LINT,
    fixes: FixOptions = FixOptions(),
) -> FixResult:
    """Fix the findings on lines `change` adds or changes, its head judged against its
    base. GitHub's patches are set aside: the trees alone decide, so a local checkout
    and the service fix a head alike. `change` stays open (and the caller's to close).
    A threaded service passes `LintOptions(workers=1, review_date=...)` (no fork), as
    `bot.app.pull.lint_pull` does."""
    options = _with_cache(options)
    plain = Change(
        base=change.base,
        head=change.head,
        paths=change.paths,
        base_tip=change.base_tip,
        pr=change.pr,
        author=change.author,
        repository=change.repository,
        patches=None,
        root=change.root,
        config_ref=change.config_ref,
    )
    result = lint_change(plain, config=config, options=options)
    return fix_lint(result, options=options, fixes=fixes)


def fix_lint(
    result: LintResult, *, options: LintOptions = _LINT, fixes: FixOptions = FixOptions()
) -> FixResult:
    """Fix what `result` (any `lint_*` use case's) found, run by run, and lint again
    after each pass with the same inputs. Pass the `options` `result` was linted with
    (its `cache` then spares parsing unchanged files again)."""
    options = _with_cache(options)
    runs = [_fix_run(run, options, fixes) for run in result.runs]
    passes: list[FixPass] = []
    for fixed in runs:
        for n, one in enumerate(fixed.passes):
            if n == len(passes):
                passes.append(FixPass())
            passes[n].applied += one.applied
            passes[n].refused += one.refused
    files = sorted((f for r in runs for f in r.files), key=lambda f: (str(f.root), f.path))
    return FixResult(
        files=files,
        passes=passes,
        lint=LintResult([r.last for r in runs]),
        before=result,
        converged=all(r.converged for r in runs),
        options=fixes,
    )


def _with_cache(options: LintOptions) -> LintOptions:
    return options if options.cache is not None else replace(options, cache=ParseCache())


# --------------------------------------------------------------------------- one run


@dataclass
class _RunFixed:
    files: list[FixedFile]
    passes: list[FixPass]
    last: LintRun
    converged: bool


def _relinter(run: LintRun, options: LintOptions) -> Callable[[Mapping[str, bytes]], LintRun]:
    """Lint `run`'s inputs again with `fixed` over its trees: same configuration, review
    date, pull request, repository and paths."""
    ctx = run.ctx
    same = replace(options, review_date=ctx.review_date)
    change = ctx.change
    if change is None:
        paths = sorted(run.report.files)

        def again_tree(fixed: Mapping[str, bytes]) -> LintRun:
            return lint_tree(
                OverlayTree(ctx.tree, dict(fixed)),
                config=ctx.config,
                paths=paths,
                explicit=run.explicit,
                root=run.root,
                pr=ctx.pr_number,
                repository=ctx.repository,
                options=same,
            ).runs[0]

        return again_tree

    def again_change(fixed: Mapping[str, bytes]) -> LintRun:
        head = OverlayTree(change.head, dict(fixed))
        redo = Change(
            base=change.base,
            head=head,
            paths=change.named,
            base_tip=ctx.base_tip,
            pr=change.pr,
            author=change.author,
            repository=ctx.repository,
            root=run.root,
        )
        return lint_change(redo, config=ctx.config, options=same).runs[0]

    return again_change


def _fix_run(run: LintRun, options: LintOptions, fixes: FixOptions) -> _RunFixed:
    relint = _relinter(run, options)
    tree = run.ctx.change.head if run.ctx.change is not None else run.ctx.tree
    changed_only = run.ctx.change is not None
    original: dict[str, bytes] = {}
    fixed: dict[str, bytes] = {}
    refused_keys: set[tuple[str, str, str]] = set()
    passes: list[FixPass] = []
    current = run
    converged = True
    while True:
        todo = [
            f
            for f in fixable(current.report, fixes, changed_only=changed_only)
            if _key(f) not in refused_keys
        ]
        if not todo:
            break
        if len(passes) >= fixes.max_passes:
            converged = False
            break
        one = FixPass()
        edits: dict[str, bytes] = {}
        for path, found in _by_path(todo).items():
            data = fixed.get(path)
            if data is None:
                data = tree.read(path)
            if data is None:
                continue
            new, applied, refused = _fix_file(path, data, found, current.ctx)
            one.applied += applied
            one.refused += refused
            refused_keys.update(_key(r.finding) for r in refused)
            if new != data:
                original.setdefault(path, data)
                edits[path] = new
        passes.append(one)
        if not edits:
            break  # every fix of this pass was refused
        fixed.update(edits)
        current = relint(fixed)
    files = [
        FixedFile(path, original[path], data, run.root)
        for path, data in sorted(fixed.items())
        if data != original[path]
    ]
    return _RunFixed(files, passes, current, converged)


def _key(f: Finding) -> tuple[str, str, str]:
    return (f.rule, f.path, f.fingerprint)


def _by_path(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.path, []).append(f)
    return out


# --------------------------------------------------------------------------- one file


@dataclass(frozen=True)
class _Edit:
    first: int  # 1-based, inclusive
    last: int
    lines: tuple[str, ...]  # replacement lines, without line endings


def _edit_of(f: Finding) -> _Edit:
    assert f.suggestion is not None
    lines = (
        () if f.suggestion == "" else tuple(s.removesuffix("\r") for s in f.suggestion.split("\n"))
    )
    return _Edit(f.span.line, f.span.last_line, lines)


def split_lines(text: str) -> list[str]:
    """`text`'s lines with their endings, split at `\\n` only (a lone `\\r`, a form
    feed or a Unicode line separator stays inside its line, as bash and git see it)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def _body(line: str) -> str:
    return line[: len(line) - len(_ending(line))]


def apply_edits(lines: list[str], edits: Sequence[_Edit]) -> list[str]:
    """`lines` with non-overlapping `edits` (in line order) made; each replacement line
    takes the ending of the line it replaces (the last replaced line's for the last)."""
    out: list[str] = []
    at = 1
    for e in edits:
        out += lines[at - 1 : e.first - 1]
        old = lines[e.first - 1 : e.last]
        if e.lines:
            inner = _ending(old[0]) or _dominant(lines)
            tail = _ending(old[-1])
            out += [text + inner for text in e.lines[:-1]]
            out.append(e.lines[-1] + tail)
        at = e.last + 1
    out += lines[at - 1 :]
    return out


def _dominant(lines: list[str]) -> str:
    return "\r\n" if any(line.endswith("\r\n") for line in lines) else "\n"


def _fix_file(
    path: str, data: bytes, found: list[Finding], ctx: Context
) -> tuple[bytes, list[Finding], list[Refused]]:
    """`data` with the fixes of `found` that apply in this pass; the findings fixed and
    the fixes refused. Overlapping fixes past the first are left for the next pass."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data, [], [Refused(f, "not-utf8") for f in found]
    lines = split_lines(text)
    refused: list[Refused] = []
    taken: list[tuple[_Edit, list[Finding]]] = []
    last = 0
    for f in sorted(found, key=lambda f: (f.span.line, f.span.last_line, f.span.col, f.rule)):
        e = _edit_of(f)
        same = next((t for t in taken if t[0] == e), None)
        if same is not None:
            same[1].append(f)  # the same edit, asked twice: made once
            continue
        if e.first <= last:
            continue  # overlaps an edit taken: the next pass computes it again
        if not 0 < e.first <= e.last <= len(lines) or not _quoted(f, lines[e.first - 1]):
            refused.append(Refused(f, "stale"))
            continue
        if tuple(_body(x) for x in lines[e.first - 1 : e.last]) == e.lines:
            refused.append(Refused(f, "no-op"))
            continue
        taken.append((e, [f]))
        last = e.last
    if not taken:
        return data, [], refused
    kept = taken
    if _parses_worse(path, "".join(apply_edits(lines, [e for e, _ in taken])), text, ctx):
        kept = []
        for e, fs in taken:
            trial = "".join(apply_edits(lines, [k for k, _ in kept] + [e]))
            if _parses_worse(path, trial, text, ctx):
                refused += [Refused(f, "unparseable") for f in fs]
            else:
                kept.append((e, fs))
    new = "".join(apply_edits(lines, [e for e, _ in kept]))
    return new.encode("utf-8"), [f for _, fs in kept for f in fs], refused


def _quoted(f: Finding, line: str) -> bool:
    """Whether `line` is the line the finding quoted (the engine quotes 400 characters)."""
    if f.line_text is None:
        return False
    return _body(line)[:400] == f.line_text


def _parses_worse(path: str, new: str, old: str, ctx: Context) -> bool:
    """Whether `new` parses, as the file at `path`, with a problem `old` does not have."""
    kind = route(path, ctx.config)
    if kind is None:
        return False
    parse = ctx.parsers[kind]
    before = Counter(_kinds(parse(path, old, ctx.run)))
    after = Counter(_kinds(parse(path, new, ctx.run)))
    return bool(after - before)


def _kinds(parsed: object) -> list[str]:
    problems = getattr(parsed, "problems", None) or ()
    return [str(getattr(p, "kind", "") or type(p).__name__) for p in problems]


# --------------------------------------------------------------------------- output


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """One file's unified diff with `a/` and `b/` prefixes; a last line without a
    newline is marked as git marks it."""
    old = split_lines(before.decode("utf-8", errors="replace"))
    new = split_lines(after.decode("utf-8", errors="replace"))
    out: list[str] = []
    for line in difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", n=3):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\n") + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


class FixWriteError(Exception):
    """A fixed file that cannot be written where it belongs."""


def write_fixes(result: FixResult) -> list[Path]:
    """Write each fixed file of a local run in place: to a temporary file beside it,
    with the file's mode, then renamed over it (a reader sees the old bytes or the new,
    never half). A path that resolves outside its repository, or a file whose bytes
    changed since it was linted, is not written: `FixWriteError` names each such file
    once the others are written. Returns the paths written."""
    written: list[Path] = []
    failed: list[str] = []
    for f in result.files:
        try:
            written.append(_write_one(f))
        except FixWriteError as exc:
            failed.append(str(exc))
    if failed:
        raise FixWriteError("; ".join(failed))
    return written


def _write_one(f: FixedFile) -> Path:
    if f.root is None:
        raise FixWriteError(f"{f.path}: not a local file")
    root = Path(os.path.realpath(f.root))
    target = Path(os.path.realpath(root / f.path))
    if root not in target.parents:
        raise FixWriteError(f"{f.path}: resolves outside the repository ({target})")
    try:
        current = target.read_bytes()
        mode = target.stat().st_mode & 0o7777
    except OSError as exc:
        raise FixWriteError(f"{f.path}: {exc.strerror or exc}") from None
    if current != f.before:
        raise FixWriteError(f"{f.path}: changed on disk while it was being fixed")
    try:
        _atomic_write(target, f.after, mode)
    except OSError as exc:
        raise FixWriteError(f"{f.path}: {exc.strerror or exc}") from None
    return target


def _atomic_write(target: Path, data: bytes, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".fix")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
