"""The lint use cases: files on disk, a whole tree, a change. Typed results, never text.

    lint_paths(paths)            files or directories as they are on disk
    lint_content(path, data)     one file's bytes (stdin) as if at `path` in its repository
    lint_tree(tree)              every routed file of a tree, or the files named
    lint_change(change)          what a change (a pull request) does to its base

Each returns a `LintResult`: one `LintRun` per tree linted (the engine's `Report`,
the run's `Context` with its trees, change and configuration, and the local
directory its paths are relative to). Paths are as the core gives them,
relative to the repository root; how to show them is the printer's business.
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from bot.app import cache as lint_cache
from bot.app.cache import LintCache, RunReads
from bot.app.config import load_repo_config
from bot.base.records import dataclass
from bot.base.tree import MemoryTree, Tree
from bot.core.changeset import FileStatus, build_changeset
from bot.core.config import Config
from bot.core.context import ParseCache
from bot.core.engine import Context, Report, dedupe, route
from bot.core.model import Finding
from bot.core.reads import Reads
from bot.core.registry import RuleModule, all_rules
from bot.parallel import lint_each, lint_parallel
from bot.sources import FsTree, OverlayTree, find_repo_root, github_repository, locate


@dataclass(frozen=True)
class LintOptions:
    """How to lint, whatever is linted."""

    # the rules to run (`select_rules(...).rules`); None: every rule
    rules: Sequence[RuleModule] | None = None
    # the review date for dated knowledge (deprecations); None: today
    review_date: datetime.date | None = None
    # processes: 2 forks one worker for half of a large run (`bot.parallel`); 1 stays in
    # this process (a threaded service must not fork)
    workers: int = 2
    # parsed files by blob id, shared by runs that lint the same blobs (the commits of
    # one pull request, a re-run after a fix); None: a fresh cache per run
    cache: ParseCache | None = None
    # results of earlier runs on disk (`bot.app.cache`): a file whose inputs are
    # unchanged is not linted again (whole trees and files; a change is always linted)
    results: LintCache | None = None

    def today(self) -> datetime.date:
        return self.review_date or datetime.date.today()


@dataclass
class Change:
    """A change to lint: a base and a head tree and what the pull request says.

    Built from local git (`bot.app.local.open_local_change`), from the GitHub gateway
    (`bot.app.pull.pull_change`) or by hand from any two trees. It owns the trees
    opened for it: `close()` (or `with`) stops their `git cat-file` processes.
    """

    base: Tree  # the merge-base: what the change is compared with
    head: Tree
    # every path the change touches (git's or GitHub's list, previous paths of renames too)
    paths: frozenset[str]
    # the base branch's tip when it moved past the merge-base: the changelog rules tell
    # entries merged since from the change's own; the configuration is read from it
    base_tip: Tree | None = None
    pr: int | None = None
    author: str | None = None
    # the GitHub repository (`owner/name`) of the pull request, for pr-link checks
    repository: str | None = None
    # GitHub's `patch` of each file: its hunks decide what is changed and commentable
    # (`bot.core.changeset`); None: difflib over the two trees decides
    patches: Mapping[str, str | None] | None = None
    # how each path with a patch compares, head with base: added, deleted or modified
    # (`bot.core.changeset.build_changeset` then reads neither side of it)
    statuses: Mapping[str, FileStatus] | None = None
    # the local directory the paths are relative to (display, SARIF's %SRCROOT%)
    root: Path | None = None
    # how messages name the commit the configuration is read from ("origin/main")
    config_ref: str | None = None
    closers: list[Tree] = field(default_factory=list, repr=False)

    @property
    def config_tree(self) -> Tree:
        """Where the change's configuration is read: the base branch, never the head."""
        return self.base_tip if self.base_tip is not None else self.base

    def close(self) -> None:
        for tree in self.closers:
            closer = getattr(tree, "close", None)
            if callable(closer):
                closer()
        self.closers.clear()

    def __enter__(self) -> Change:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class LintRun:
    """One tree linted: the engine's report and the context it ran in."""

    ctx: Context
    report: Report
    # the local directory the report's paths are relative to; None for remote trees
    root: Path | None = None
    # files named one by one (PATH arguments, stdin): the CLI warns when one is not routed
    explicit: tuple[str, ...] = ()
    # with a results cache: what the run's files read, for a cache of the whole run
    reads: RunReads | None = None

    @property
    def unrouted(self) -> tuple[str, ...]:
        """Files named one by one that no parser reads under this run's configuration."""
        return tuple(p for p in self.explicit if route(p, self.ctx.config) is None)


@dataclass
class LintResult:
    runs: list[LintRun]

    @cached_property
    def root(self) -> Path | None:
        """The directory the merged report's paths are relative to: the one run's root, or
        the common directory of several (None when a run has no local root)."""
        roots = [r.root for r in self.runs]
        if len(roots) == 1 or any(r is None for r in roots):
            return roots[0] if len(roots) == 1 else None
        return Path(os.path.commonpath([str(r) for r in roots if r is not None]))

    @cached_property
    def report(self) -> Report:
        """Every run's report in one, findings in path order. Several local runs (files of
        several repositories) are merged under `root`, their paths prefixed with each
        repository's place in it."""
        if len(self.runs) == 1:
            return self.runs[0].report
        reports = [self._rebased(run) for run in self.runs]
        findings: list[Finding] = [f for r in reports for f in r.findings]
        findings.sort(key=Finding.sort_key)
        return Report(
            findings=findings,
            files=[p for r in reports for p in r.files],
            suppressed=sum(r.suppressed for r in reports),
            silenced=[s for r in reports for s in r.silenced],
            suppressions=[s for r in reports for s in r.suppressions],
            shared=[s for r in reports for s in r.shared],
        )

    def _rebased(self, run: LintRun) -> Report:
        root = self.root
        if root is None or run.root is None or run.root == root:
            return run.report
        prefix = run.root.relative_to(root).as_posix() + "/"
        r = run.report
        return Report(
            findings=[replace(f, path=prefix + f.path) for f in r.findings],
            files=[prefix + p for p in r.files],
            suppressed=r.suppressed,
            silenced=[
                replace(
                    s,
                    finding=replace(s.finding, path=prefix + s.finding.path),
                    suppression=replace(s.suppression, path=prefix + s.suppression.path),
                )
                for s in r.silenced
            ],
            suppressions=[replace(s, path=prefix + s.path) for s in r.suppressions],
            shared=[
                replace(
                    c,
                    path=prefix + c.path,
                    dependents=tuple(prefix + p for p in c.dependents),
                    linted=tuple(prefix + p for p in c.linted),
                )
                for c in r.shared
            ],
        )

    def exceeds(self, level: str) -> bool:
        """Whether a finding is at or above `level` (error, warning, info)."""
        return any(run.report.exceeds(level) for run in self.runs)


# --------------------------------------------------------------------------- use cases


def _rules(options: LintOptions) -> list[RuleModule] | None:
    return list(options.rules) if options.rules is not None else None


def lint_tree(
    tree: Tree,
    *,
    config: Config | None = None,
    paths: Sequence[str] | None = None,
    explicit: Sequence[str] = (),
    root: Path | None = None,
    pr: int | None = None,
    repository: str | None = None,
    options: LintOptions = LintOptions(),
) -> LintResult:
    """Lint `paths` of `tree` (default: every routed path) with no base to compare with.

    `config` defaults to the tree's own `.recipe-bot.yml`."""
    if config is None:
        config = load_repo_config(tree)
    ctx = Context.for_tree(
        tree,
        config,
        pr=pr,
        review_date=options.today(),
        repository=repository,
        cache=options.cache,
        track=options.results is not None,
    )
    selected = sorted(set(paths)) if paths is not None else None
    reads = None
    if options.results is not None:
        report, reads = _lint_cached(ctx, tree, selected, options, options.results)
    else:
        report = lint_parallel(ctx, paths=selected, rules=_rules(options), workers=options.workers)
    return LintResult([LintRun(ctx, report, root, tuple(explicit), reads)])


def _lint_cached(
    ctx: Context,
    tree: Tree,
    paths: list[str] | None,
    options: LintOptions,
    store: LintCache,
) -> tuple[Report, RunReads | None]:
    """`lint_parallel` with each file's result taken from `store` while what its lint
    read is unchanged; the files linted are stored for the next run. Also what all the
    files read (None when a file's lint reported on another file: nothing is kept)."""
    chosen = _rules(options)
    # an empty selection (`--select X --ignore X`) runs no rule, as without the cache
    rules = all_rules() if chosen is None else chosen
    selected = paths if paths is not None else ctx.all_paths()
    routed = [p for p in selected if route(p, ctx.config) is not None]
    run_key = lint_cache.digest(
        "files",
        lint_cache.code_version(),
        lint_cache.config_fingerprint(ctx.config),
        sorted(rm.rule.id for rm in rules),
        ctx.pr,
        ctx.repository,
    )
    date = options.today().isoformat()
    trees = {"head": tree}
    root = getattr(tree, "root", None)
    skip = store.inside(root) if isinstance(root, (str, os.PathLike)) else None
    listings = {"head": lint_cache.listing_hash(ctx.all_paths(), skip)}
    reports: dict[str, Report] = {}
    keys: dict[str, str] = {}
    everything = Reads()
    for path in routed:
        blob = tree.blob_id(path)
        if blob is None:
            continue
        keys[path] = key = lint_cache.digest(run_key, path, blob)
        entry = store.load("files", key)
        if entry is not None and lint_cache.still_valid(entry, trees, listings, date):
            with contextlib.suppress(KeyError, TypeError, ValueError, AssertionError):
                reports[path] = report_of(entry["report"])
                everything.merge(lint_cache.reads_of(entry["reads"]))
    misses = [p for p in routed if p not in reports]
    fresh = lint_each(ctx, misses, rules, workers=options.workers) if misses else {}
    if any(_elsewhere(path, report) for path, (report, _) in fresh.items()):
        # a file's lint reported on another file: results are not the file's own
        report = lint_parallel(ctx, paths=selected, rules=rules, workers=options.workers)
        return report, None
    for path, (report, reads) in fresh.items():
        reports[path] = report
        everything.merge(reads)
        if path in keys:
            store.store(
                "files",
                keys[path],
                {
                    "path": path,
                    "reads": lint_cache.reads_data(reads),
                    "listings": {name: listings[name] for name in reads.listed},
                    "date": date if reads.date else None,
                    "report": report_data(report),
                },
            )
    return merge_reports(list(reports.values())), RunReads(everything, listings["head"])


def report_data(report: Report) -> dict[str, Any]:
    """A file's report as JSON data (tree mode: no silenced findings, no shared checks)."""
    return {
        "findings": [lint_cache.finding_data(f) for f in report.findings],
        "files": list(report.files),
        "suppressed": report.suppressed,
        "suppressions": [lint_cache.suppression_data(s) for s in report.suppressions],
    }


def report_of(data: Mapping[str, Any]) -> Report:
    return Report(
        findings=[lint_cache.finding_of(f) for f in data["findings"]],
        files=[str(p) for p in data["files"]],
        suppressed=int(data["suppressed"]),
        suppressions=[lint_cache.suppression_of(s) for s in data["suppressions"]],
    )


def _elsewhere(path: str, report: Report) -> bool:
    return any(f.path != path for f in report.findings) or any(
        s.path != path for s in report.suppressions
    )


def merge_reports(reports: Sequence[Report]) -> Report:
    """Reports of disjoint files as one, as `lint_parallel` merges its two halves."""
    findings: list[Finding] = [f for r in reports for f in r.findings]
    findings.sort(key=Finding.sort_key)
    return Report(
        findings=dedupe(findings),
        files=sorted({p for r in reports for p in r.files}),
        suppressed=sum(r.suppressed for r in reports),
        silenced=[s for r in reports for s in r.silenced],
        suppressions=sorted(
            (s for r in reports for s in r.suppressions), key=lambda m: (m.path, m.line, m.col)
        ),
        shared=[s for r in reports for s in r.shared],
    )


def lint_change(
    change: Change, *, config: Config | None = None, options: LintOptions = LintOptions()
) -> LintResult:
    """Lint what `change` touches, its head judged against its base.

    `config` defaults to the configuration of the change's base (`Change.config_tree`),
    so a pull request cannot relax its own checks."""
    if config is None:
        config = load_repo_config(change.config_tree, ref=change.config_ref)
    changeset = build_changeset(
        change.base,
        change.head,
        change.paths,
        pr=change.pr,
        author=change.author,
        patches=change.patches,
        statuses=change.statuses,
    )
    ctx = Context.for_change(
        changeset,
        config,
        review_date=options.today(),
        repository=change.repository,
        base_tip=change.base_tip,
        cache=options.cache,
    )
    report = lint_parallel(
        ctx, paths=sorted(change.paths), rules=_rules(options), workers=options.workers
    )
    return LintResult([LintRun(ctx, report, change.root)])


def lint_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    config_file: str | os.PathLike[str] | None = None,
    pr: int | None = None,
    repository: str | None = None,
    options: LintOptions = LintOptions(),
) -> LintResult:
    """Lint files and directories as they are on disk.

    Each is checked with its path relative to its repository root (the nearest
    directory above it holding `.git`, `perf-changelog.yaml` or `.recipe-bot.yml`), so
    path-based rules see it where it lives; paths of several repositories make one run
    each, with each repository's configuration (or `config_file`). `repository`
    defaults to each git repository's `origin` remote."""
    groups: dict[Path, tuple[FsTree, list[str], list[str]]] = {}
    for raw in paths:
        root, rel, is_dir = locate(raw)
        if root not in groups:
            groups[root] = (FsTree(root), [], [])
        tree, files, named = groups[root]
        if is_dir:
            files.extend(tree.files_under(rel))
        else:
            files.append(rel)
            named.append(rel)
    configs = [load_repo_config(tree, file=config_file) for tree, _, _ in groups.values()]
    runs: list[LintRun] = []
    for (tree, files, named), config in zip(groups.values(), configs, strict=True):
        origin = repository
        if origin is None and (tree.root / ".git").exists():
            origin = github_repository(tree.root)
        runs += lint_tree(
            tree,
            config=config,
            paths=files,
            explicit=named,
            root=tree.root,
            pr=pr,
            repository=origin,
            options=options,
        ).runs
    return LintResult(runs)


def lint_content(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    config_file: str | os.PathLike[str] | None = None,
    pr: int | None = None,
    repository: str | None = None,
    options: LintOptions = LintOptions(),
) -> LintResult:
    """Lint `data` as the file at `path` (which need not exist), in the repository that
    holds `path`, every other file read from disk: `bot lint - --stdin-filename PATH`."""
    full = Path(os.path.abspath(path))
    start = full.parent
    while not start.exists() and start != start.parent:
        start = start.parent
    root = find_repo_root(start)
    if root is None:
        cwd = Path.cwd()
        root = cwd if cwd in full.parents else full.parent
    root = Path(os.path.realpath(root))
    full = Path(os.path.realpath(start)) / full.relative_to(start)
    rel = full.relative_to(root).as_posix()
    inner: Tree = FsTree(root) if root.is_dir() else MemoryTree({})
    tree = OverlayTree(inner, {rel: data})
    return lint_tree(
        tree,
        config=load_repo_config(tree, file=config_file),
        paths=[rel],
        explicit=[rel],
        root=root,
        pr=pr,
        repository=repository,
        options=options,
    )
