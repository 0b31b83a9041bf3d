"""`bot`: lint recipes locally or in CI. An edge: argument parsing, I/O, exit codes.

Exit codes: 0 nothing at or above `--fail-on`; 1 findings at or above it;
2 usage error or unreadable input (one `bot: error: ...` line on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO

from bot import __version__
from bot.core.changeset import build_changeset
from bot.core.config import CONFIG_FILENAMES, Config, ConfigError, build_config
from bot.core.engine import Context, Report, lint, route
from bot.core.model import Finding
from bot.core.registry import RegistryError, RuleModule, all_rules, get_rule
from bot.core.tree import MemoryTree, Tree
from bot.docs import render_rule_markdown
from bot.parallel import lint_parallel
from bot.report import github, json_report, junit, rdjson, sarif, stats, text
from bot.sources import (
    FsTree,
    GitTree,
    OverlayTree,
    SourceError,
    changed_paths,
    find_repo_root,
    git_toplevel,
    github_repository,
    locate,
    merge_base,
    read_file,
    resolve_ref,
    write_file,
)

FORMATS = ("text", "json", "sarif", "github", "rdjson", "junit")
# formats read by people or by tools that resolve paths from the working directory
CWD_RELATIVE = ("text", "github", "rdjson", "junit")

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

Files named as PATH are checked with their path relative to the repository
root (the nearest directory above them holding .git, perf-changelog.yaml or
.recipe-bot.yml), so path-based rules see them where they live. In --base mode
the changed paths are those of `git diff BASE...HEAD` (from the merge-base),
and the configuration is read from BASE, so a PR cannot relax its own checks.

Text, github, rdjson and junit output print paths relative to the current
directory (absolute when outside it); json and sarif keep them relative to the
repository root. Checking no file at all (a mistyped path, an empty directory, a
change that touches no recipe) is an error unless --allow-empty.

exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or input error.
Silence one finding with `# bot: ignore[RCP001] reason` on its line or the line above.
"""

MAIN_EPILOG = """\
examples:
  bot lint --repo . --base origin/main     lint the changes of the current branch
  bot rules                                list every rule
  bot explain RCP001                       show a rule's documentation (English and 中文)

Run `bot lint --help` for all lint options.
"""


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `bot: error: ... (see 'bot lint --help')`."""

    def error(self, message: str) -> NoReturn:
        hint = f"{self.prog} --help"
        self.exit(2, f"bot: error: {message} (see '{hint}')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bot",
        description="recipe-review bot: deterministic, bilingual review of LLM inference "
        "benchmark recipes (InferenceX-shaped repositories).",
        epilog=MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

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
        type=_positive_int,
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
        type=_iso_date,
        metavar="YYYY-MM-DD",
        help="review date for dated knowledge such as deprecations (default: today)",
    )
    lp.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
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
    _add_lint_selection(lp)

    rp = sub.add_parser(
        "rules",
        help="list every rule",
        description="List every rule: id, severity, slug and title.",
    )
    rp.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="output format (default: text)",
    )

    ep = sub.add_parser(
        "explain",
        help="show one rule's documentation",
        description="Show a rule's documentation in English and Chinese: message, fix, rationale and examples.",
        epilog="examples:\n  bot explain RCP001\n  bot explain reasoning-parser-on-interleaved-thinking\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ep.add_argument("rule", metavar="ID|SLUG", help="rule id (RCP001) or slug")
    _add_server_commands(sub)
    _add_signoff_commands(sub)
    _add_review_commands(sub)
    _add_queue_commands(sub)
    _add_backtest_command(sub)
    return parser


def _add_backtest_command(sub: argparse._SubParsersAction[Any]) -> None:
    """`bot backtest` (bot.backtest.cli)."""
    from bot.backtest.cli import add_parser

    add_parser(sub, _Parser)


def _add_lint_selection(lp: argparse.ArgumentParser) -> None:
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


def _iso_date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {value!r}")
    return number


# --------------------------------------------------------------------------- lint


@dataclass
class Job:
    """One lint run over one tree."""

    tree: Tree
    config: Config
    paths: list[str] | None
    base: Tree | None = None
    changed: frozenset[str] | None = None
    explicit: tuple[str, ...] = ()
    # the directory paths are relative to, for display and SARIF's %SRCROOT%
    root: Path | None = None
    # the GitHub repository (`owner/name`) of the pull request, when known
    repository: str | None = None
    base_tip: Tree | None = None


def _config_from(tree: Tree | None, config_file: str | None, where: str) -> Config:
    if config_file is not None:
        return build_config(_decode(read_file(config_file), config_file), source=config_file)
    if tree is not None:
        for name in CONFIG_FILENAMES:
            data = tree.read(name)
            if data is not None:
                label = f"{name} ({where})" if where else name
                return build_config(_decode(data, label), source=label)
    return build_config(None)


def _decode(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: not valid UTF-8 (byte {exc.start})") from None


def _path_jobs(paths: Sequence[str], config_file: str | None) -> list[Job]:
    """Group PATH arguments by repository root; one job per root."""
    groups: dict[Path, tuple[FsTree, list[str], list[str]]] = {}
    for raw in paths:
        root, rel, is_dir = locate(raw)
        if root not in groups:
            groups[root] = (FsTree(root), [], [])
        tree, files, explicit = groups[root]
        if is_dir:
            files.extend(tree.files_under(rel))
        else:
            files.append(rel)
            explicit.append(rel)
    jobs = []
    for tree, files, explicit in groups.values():
        config = _config_from(tree, config_file, "")
        jobs.append(
            Job(
                tree=tree,
                config=config,
                paths=sorted(set(files)),
                explicit=tuple(explicit),
                root=tree.root,
                repository=github_repository(tree.root) if (tree.root / ".git").exists() else None,
            )
        )
    return jobs


def _stdin_job(name: str, config_file: str | None) -> Job:
    """`bot lint - --stdin-filename PATH`: PATH's repository with PATH read from stdin."""
    full = Path(os.path.abspath(name))
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
    data = sys.stdin.buffer.read()
    tree = OverlayTree(FsTree(root) if root.is_dir() else MemoryTree({}), {rel: data})
    return Job(
        tree=tree,
        config=_config_from(tree, config_file, ""),
        paths=[rel],
        explicit=(rel,),
        root=root,
    )


def _repo_job(args: argparse.Namespace, closers: list[GitTree]) -> Job:
    repo: str = args.repo
    if args.base is None:
        if args.head is None:
            tree: Tree = FsTree(repo)
        else:
            head_tree = GitTree(repo, args.head)
            closers.append(head_tree)
            tree = head_tree
        return Job(
            tree=tree,
            config=_config_from(tree, args.config, ""),
            paths=None,
            root=Path(os.path.realpath(repo)),
            repository=_origin_repository(repo),
        )
    base_sha = resolve_ref(repo, args.base)
    fork = merge_base(repo, args.base, args.head)
    base_tree = GitTree(repo, fork)
    closers.append(base_tree)
    if args.head is None:
        tree = FsTree(repo)
    else:
        head_tree = GitTree(repo, args.head)
        closers.append(head_tree)
        tree = head_tree
    if args.config is None and base_sha != fork:
        config_tree = GitTree(repo, base_sha)
        closers.append(config_tree)
    else:
        config_tree = base_tree
    config = _config_from(config_tree, args.config, f"at {args.base}")
    changed = frozenset(changed_paths(repo, args.base, args.head))
    tip = None
    if base_sha != fork:
        tip = config_tree if config_tree is not base_tree else GitTree(repo, base_sha)
        if tip is not config_tree:
            closers.append(tip)
    return Job(
        tree=tree,
        config=config,
        paths=sorted(changed),
        base=base_tree,
        changed=changed,
        root=Path(os.path.realpath(repo)),
        repository=github_repository(repo),
        base_tip=tip,
    )


def _origin_repository(repo: str) -> str | None:
    try:
        git_toplevel(repo)
    except SourceError:
        return None
    return github_repository(repo)


def _merge(reports: list[Report]) -> Report:
    findings: list[Finding] = [f for r in reports for f in r.findings]
    findings.sort(key=Finding.sort_key)
    files = [p for r in reports for p in r.files]
    return Report(
        findings=findings,
        files=files,
        suppressed=sum(r.suppressed for r in reports),
        silenced=[s for r in reports for s in r.silenced],
        suppressions=[s for r in reports for s in r.suppressions],
    )


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


def _relative_to_cwd(report: Report, root: Path | None) -> Report:
    cwd = Path(os.path.realpath(Path.cwd()))
    return Report(
        findings=[
            dataclasses.replace(f, path=display_path(root, f.path, cwd)) for f in report.findings
        ],
        files=[display_path(root, p, cwd) for p in report.files],
        suppressed=report.suppressed,
    )


def _render(report: Report, fmt: str, lang: str, color: bool, root: Path | None = None) -> str:
    if fmt == "json":
        return json_report.render(report, lang)
    if fmt == "sarif":
        return sarif.render(report, lang, root=str(root) if root is not None else None)
    if fmt == "github":
        return github.render(report, lang)
    if fmt == "rdjson":
        return rdjson.render(report, lang)
    if fmt == "junit":
        return junit.render(report, lang)
    return text.render(report, lang, color=color)


def _use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    if args.no_color or args.output or args.format != "text":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    isatty: Callable[[], bool] | None = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_PREFIX_RE = re.compile(r"[A-Z]{1,3}[0-9]{0,3}")


def _match_rules(item: str, rules: Sequence[RuleModule]) -> set[str]:
    """Rule ids an `--select`/`--ignore` item names: ALL, an id, a slug or an id prefix."""
    upper = item.upper()
    if upper == "ALL":
        return {rm.rule.id for rm in rules}
    exact = {rm.rule.id for rm in rules if upper == rm.rule.id or item == rm.rule.slug}
    if exact or not _PREFIX_RE.fullmatch(upper):
        return exact
    return {rm.rule.id for rm in rules if rm.rule.id.startswith(upper)}


def selected_rules(
    select: Sequence[str] | None,
    extend_select: Sequence[str] | None,
    ignore: Sequence[str] | None,
) -> list[RuleModule] | None:
    """The rules `--select`, `--extend-select` and `--ignore` leave; None: all of them."""
    if not (select or extend_select or ignore):
        return None
    rules = all_rules()

    def resolve(values: Sequence[str] | None, option: str) -> set[str]:
        ids: set[str] = set()
        for value in values or ():
            for item in (x.strip() for x in value.split(",")):
                if not item:
                    continue
                found = _match_rules(item, rules)
                if not found:
                    raise UsageError(
                        f"{option} {item!r} names no rule (run 'bot rules' for the list)"
                    )
                ids |= found
        return ids

    chosen = resolve(select, "--select") if select else {rm.rule.id for rm in rules}
    chosen |= resolve(extend_select, "--extend-select")
    chosen -= resolve(ignore, "--ignore")
    return [rm for rm in rules if rm.rule.id in chosen]


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
            root = find_repo_root(cwd)
            if root is None or not (root / ".git").exists():
                try:
                    root = git_toplevel(cwd)
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


def cmd_lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    _resolve_mode(args)
    rules = selected_rules(args.select, args.extend_select, args.ignore)
    advisor = _advisor(args) if args.advise else None
    changes: list[tuple[Any, Report]] = []
    advice = None
    closers: list[GitTree] = []
    reports: list[tuple[Job, Report]] = []
    try:
        if args.paths == ["-"]:
            jobs = [_stdin_job(args.stdin_filename, args.config)]
        elif args.paths:
            jobs = _path_jobs(args.paths, args.config)
        else:
            jobs = [_repo_job(args, closers)]
        for job in jobs:
            for path in job.explicit:
                if route(path, job.config) is None:
                    print(
                        f"bot: warning: {path} is not a recipe or the changelog by the configured "
                        "paths; not checked",
                        file=err,
                    )
            change = None
            review_date = args.date or datetime.date.today()
            repository = args.github_repo or job.repository
            if job.base is not None:
                change = build_changeset(
                    job.base, job.tree, job.changed or (), pr=args.pr, author=args.author
                )
                ctx = Context.for_change(
                    change,
                    job.config,
                    review_date=review_date,
                    repository=repository,
                    base_tip=job.base_tip,
                )
            else:
                ctx = Context.for_tree(
                    job.tree,
                    job.config,
                    pr=args.pr,
                    review_date=review_date,
                    repository=repository,
                )
            reports.append((job, lint_parallel(ctx, paths=job.paths, rules=rules)))
            if advisor is not None and change is not None:
                changes.append((ctx, reports[-1][1]))
        advice = _advise(advisor, changes, args) if advisor is not None else None
    finally:
        for tree in closers:
            tree.close()
        if advisor is not None:
            advisor.close()
    merged = _merge([r for _, r in reports])
    if not merged.files and not args.allow_empty:
        raise UsageError(
            f"no files checked: {_nothing_checked(args)} (pass --allow-empty to accept)"
        )
    root = reports[0][0].root if len(reports) == 1 else None
    shown = merged
    if args.format in CWD_RELATIVE or args.statistics:
        shown = _merge([_relative_to_cwd(r, job.root) for job, r in reports])
    if args.statistics:
        rendered = stats.render(shown, "json" if args.format == "json" else "text")
    else:
        rendered = _render(shown, args.format, args.lang, _use_color(args, out), root)
        if advice is not None:
            rendered = _with_advice(rendered, advice, args)
    if args.output:
        write_file(args.output, rendered)
    else:
        out.write(rendered)
        out.flush()
    if args.sarif_output:
        write_file(args.sarif_output, _render(merged, "sarif", args.lang, False, root))
    if args.exit_zero or args.fail_on == "never":
        return 0
    return 1 if merged.exceeds(args.fail_on) else 0


def _advisor(args: argparse.Namespace) -> Any:
    """The advisor for --advise, or a usage error (exit 2) naming what is missing."""
    from bot.advisor.client import AdvisorConfigError, advisor_settings

    try:
        settings = advisor_settings(os.environ)
    except AdvisorConfigError as exc:
        raise UsageError(str(exc)) from None
    if settings is None:
        if os.environ.get("ANTHROPIC_API_KEY", "").strip():
            raise UsageError("--advise: the advisor is off (BOT_ADVISOR=off)")
        raise UsageError("--advise needs ANTHROPIC_API_KEY (the advisor calls the Anthropic API)")
    from bot.advisor.client import Advisor, sdk_available

    if not sdk_available():
        raise UsageError("--advise needs the anthropic SDK: pip install 'recipe-review-bot[llm]'")
    import sqlite3

    try:
        return Advisor(settings)
    except (sqlite3.Error, OSError) as exc:
        raise UsageError(f"advisor cache {settings.cache_path}: {exc}") from None


def _advise(advisor: Any, changes: list[tuple[Any, Report]], args: argparse.Namespace) -> Any:
    from bot.advisor.client import AdviceRun
    from bot.advisor.questions import PrText, build_questions

    body = _read_body(args.pr_body) if args.pr_body else ""
    total = AdviceRun(model=advisor.settings.model)
    for ctx, report in changes:
        head = getattr(ctx.tree, "commit", None) or _worktree_id(ctx)
        questions = build_questions(
            ctx.change, PrText(body=body), head_paths=ctx.all_paths(), upstream=None
        )
        run = advisor.advise(questions, head_sha=str(head), findings=report.findings)
        total.items += run.items
        total.asked += run.asked
        total.calls += run.calls
        total.cached += run.cached
        total.skipped += run.skipped
        total.dropped += run.dropped
        total.errors += run.errors
        total.deferred = run.deferred if run.deferred is not None else total.deferred
        for name in ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens"):
            setattr(total.usage, name, getattr(total.usage, name) + getattr(run.usage, name))
    return total


def _worktree_id(ctx: Any) -> str:
    """A head id for a working tree: a hash of the changed files' contents."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(ctx.changed or ()):
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(ctx.tree.read(path) or b"\1")
    return "worktree-" + digest.hexdigest()[:40]


def _with_advice(rendered: str, run: Any, args: argparse.Namespace) -> str:
    from bot.advisor import render as advice_render

    if args.format == "json":
        data = json.loads(rendered)
        data["advice"] = advice_render.advice_json(run.items)
        data["advisor"] = advice_render.run_json(run)
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if args.format == "text":
        return rendered + "\n" + advice_render.text_section(run.items, run, args.lang)
    return rendered  # sarif, github: advice is not part of these formats


# --------------------------------------------------------------------------- rules, explain


def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    rules = [rm.rule for rm in all_rules()]
    if args.format == "json":
        data = [
            {
                "id": r.id,
                "slug": r.slug,
                "severity": r.severity,
                "conditions": [
                    {
                        "name": name,
                        "severity": c.severity,
                        "when": {"en": c.when.en, "zh": c.when.zh},
                    }
                    for name, c in r.conditions.items()
                ],
                "target": r.target,
                "title": {"en": r.title.en, "zh": r.title.zh},
            }
            for r in rules
        ]
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    if args.format == "markdown":
        from bot.docs import render_rules_table

        out.write(render_rules_table(rules) + "\n")
        return 0
    if not rules:
        out.write("no rules registered\n")
        return 0
    slug_w = max(len(r.slug) for r in rules)
    for r in rules:
        out.write(f"{r.id}  {r.severity:<7}  {r.slug:<{slug_w}}  {r.title.en}\n")
        for name, c in r.conditions.items():
            out.write(f"{'':6}  {c.severity:<7}  {'':<{slug_w}}  when {c.when.en} ({name})\n")
    return 0


def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    rm = get_rule(args.rule)
    if rm is None:
        raise UsageError(f"unknown rule {args.rule!r} (run 'bot rules' for the list)")
    out.write(render_rule_markdown(rm, level=1))
    return 0


# --------------------------------------------------------------------------- serve, replay

SERVE_DESCRIPTION = """\
Run the GitHub App webhook service: POST /webhook (signature checked, delivery
persisted in a SQLite queue, 202), GET /healthz, GET /readyz, GET /metrics, and
review workers that post one review per pull request head.
"""

REPLAY_EPILOG = """\
examples:
  bot replay delivery.json --event pull_request --dry-run
  bot replay payloads.json --event pull_request --index 3 --dry-run --format json
  GITHUB_API_URL=http://127.0.0.1:9000 bot replay delivery.json --event pull_request
  bot replay delivery.json --event pull_request --dry-run --local-repo .   # no GitHub

The payload is judged as a live delivery would be (ignored actions are reported
and exit 0); the review then runs once against GITHUB_API_URL with the configured
credentials (see `bot serve --help`). --dry-run reads from GitHub but writes
nothing: it prints the review, comments and status that would be posted.

exit status: 0 done (or ignored), 1 GitHub error, 2 usage or input error.
"""


def _add_server_commands(sub: argparse._SubParsersAction[Any]) -> None:
    from bot.server.settings import help_epilog

    sp = sub.add_parser(
        "serve",
        help="run the webhook service (GitHub App)",
        description=SERVE_DESCRIPTION,
        epilog=help_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sp.add_argument("--host", metavar="H", help="address to bind (default: $BOT_HOST or 127.0.0.1)")
    sp.add_argument(
        "--port", type=_port, metavar="P", help="port to listen on (default: $BOT_PORT or 8080)"
    )
    sp.add_argument("--config", metavar="FILE", help="TOML file of settings (default: $BOT_CONFIG)")

    rp = sub.add_parser(
        "replay",
        help="review a pull request from a recorded webhook payload",
        description="Process a recorded webhook payload against a real or fake GitHub: "
        "print (--dry-run) or post the review.",
        epilog=REPLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rp.add_argument("event_file", metavar="EVENT_FILE", help="JSON payload (or a list of them)")
    rp.add_argument(
        "--event", required=True, metavar="NAME", help="the X-GitHub-Event name (pull_request)"
    )
    rp.add_argument("--dry-run", action="store_true", help="print what would be posted")
    rp.add_argument(
        "--index", type=int, metavar="N", help="which payload when EVENT_FILE holds a list"
    )
    rp.add_argument(
        "--installation",
        type=_positive_int,
        metavar="ID",
        help="GitHub App installation (default: the payload's)",
    )
    rp.add_argument(
        "--format", choices=("text", "json"), default="text", help="dry-run output format"
    )
    rp.add_argument("--config", metavar="FILE", help="TOML file of settings (default: $BOT_CONFIG)")
    rp.add_argument(
        "--local-repo",
        metavar="DIR",
        help="with --dry-run: read the pull request from this local clone, not GitHub",
    )


def _port(value: str) -> int:
    number = _positive_int(value)
    if number > 65535:
        raise argparse.ArgumentTypeError(f"not a port: {value!r}")
    return number


def cmd_serve(args: argparse.Namespace) -> int:
    from bot.server.settings import SettingsError, load_settings

    try:
        settings = load_settings(
            os.environ, args.config, overrides={"host": args.host, "port": args.port}
        )
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    from bot.server.app import serve

    return serve(settings)


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from bot.server.replay import ReplayError, ReplayOptions, replay

    options = ReplayOptions(
        event_file=args.event_file,
        event=args.event,
        dry_run=args.dry_run,
        index=args.index,
        installation=args.installation,
        config=args.config,
        format=args.format,
        local_repo=args.local_repo,
    )
    try:
        return replay(options, os.environ, out, err)
    except ReplayError as exc:
        raise UsageError(str(exc)) from None


# --------------------------------------------------------------------------- signoff

SIGNOFF_EPILOG = """\
examples:
  bot signoff check --body comment.md --author alice --repo . --base origin/main --head HEAD --pr 2600
  bot signoff check --body - --author alice --repo . --base origin/main --head pr-2600 \\
      --permission write --teams @InferenceX/core --check-runs runs.json \\
      --reuse-sweep maintainer:admin --format json

Runs the checks the webhook service runs on a sign-off comment, offline. CODEOWNERS
and the checklist template are read from BASE, the PR's content is linted from the
merge-base of BASE and HEAD to HEAD, and the PR's commits are the commits in between.
What a local checkout cannot show is reported as unverified (and fails the verdict)
unless given: the signer's permission (--permission), their teams (--teams), the
check runs of the PR's commits (--check-runs, as `gh api .../commits/SHA/check-runs`
prints them) and who posted /reuse-sweep-run (--reuse-sweep).

exit status: 0 the verdict is PASS, 1 it is REJECTED, 2 usage or input error.
"""


def _add_signoff_commands(sub: argparse._SubParsersAction[Any]) -> None:
    sp = sub.add_parser(
        "signoff",
        help="verify a CODEOWNER sign-off comment",
        description="CODEOWNER sign-off checklist verification.",
    )
    ssub = sp.add_subparsers(dest="signoff_command", metavar="COMMAND", parser_class=_Parser)
    cp = ssub.add_parser(
        "check",
        help="verify a sign-off comment against a local checkout and print the verdict",
        description="Verify a sign-off comment (the checklist from docs/PR_REVIEW_CHECKLIST.md) "
        "and print the verdict comment the service would post.",
        epilog=SIGNOFF_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cp.add_argument(
        "--body",
        required=True,
        action="append",
        metavar="FILE",
        help="a sign-off comment body ('-': stdin); repeat with --author for several "
        "sign-offs, in the order posted (the last is the newest)",
    )
    cp.add_argument(
        "--author",
        required=True,
        action="append",
        metavar="LOGIN[:PERMISSION]",
        help="the author of the --body at the same position (an earlier signer's permission "
        "after a colon; the newest signer's comes from --permission)",
    )
    cp.add_argument(
        "--comment",
        action="append",
        metavar="FILE",
        help="another comment on the PR (e.g. `/reuse-sweep-run 123`, a disapproval), in the "
        "order posted; repeat with --comment-author",
    )
    cp.add_argument(
        "--comment-author",
        action="append",
        metavar="LOGIN[:PERMISSION]",
        help="the author of the --comment at the same position, and their permission",
    )
    cp.add_argument("--pr-author", metavar="LOGIN", help="who opened the PR")
    cp.add_argument(
        "--org-member",
        action="store_true",
        default=None,
        help="the signer is a member of the owning teams' organisation (for teams whose "
        "membership is not readable)",
    )
    cp.add_argument("--repo", default=".", metavar="DIR", help="git checkout (default: .)")
    cp.add_argument("--base", required=True, metavar="REF", help="the PR's base branch")
    cp.add_argument("--head", default="HEAD", metavar="REF", help="the PR's head (default: HEAD)")
    cp.add_argument("--pr", type=_positive_int, metavar="N", help="pull request number")
    cp.add_argument(
        "--permission",
        choices=("admin", "maintain", "write", "triage", "read", "none"),
        help="the signer's permission on the repository (default: unknown)",
    )
    cp.add_argument(
        "--teams",
        metavar="TEAM,...",
        help="every team the signer belongs to, e.g. @InferenceX/core ('' for none; "
        "default: membership unknown)",
    )
    cp.add_argument(
        "--check-runs",
        metavar="FILE",
        help="JSON check runs of the PR's commits: a list, or GitHub's {\"check_runs\": [...]} "
        "(default: unknown)",
    )
    cp.add_argument(
        "--reuse-sweep",
        action="append",
        metavar="LOGIN:PERMISSION",
        help="someone who posted /reuse-sweep-run, and their permission; 'none' when nobody "
        "did (repeatable; default: unknown)",
    )
    cp.add_argument("--edited-by", metavar="LOGIN", help="who last edited the comment")
    cp.add_argument("--bot-login", metavar="LOGIN", help="the bot's own account (never counts)")
    cp.add_argument(
        "--date",
        type=_iso_date,
        metavar="YYYY-MM-DD",
        help="review date for dated knowledge such as deprecations (default: today)",
    )
    cp.add_argument("--config", metavar="FILE", help="configuration file (default: BASE's)")
    cp.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    cp.add_argument(
        "--lang", choices=("en", "zh", "both"), default="both", help="language (default: both)"
    )


def _read_body(name: str) -> str:
    data = sys.stdin.buffer.read() if name == "-" else read_file(name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name}: not valid UTF-8 (byte {exc.start})") from None


def _load_check_runs(name: str, head_sha: str) -> tuple[Any, ...]:
    from bot.signoff.model import CheckRun

    try:
        data = json.loads(_read_body(name))
    except ValueError as exc:
        raise UsageError(f"{name}: not JSON ({exc})") from None
    pages = data if isinstance(data, list) else [data]
    runs: list[Any] = []
    for page in pages:
        items = (
            page.get("check_runs") if isinstance(page, dict) and "check_runs" in page else [page]
        )
        if not isinstance(items, list):
            raise UsageError(f"{name}: `check_runs` is not a list")
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise UsageError(f"{name}: a check run without a name")
            runs.append(
                CheckRun(
                    name=item["name"],
                    status=str(item.get("status") or "completed"),
                    conclusion=item.get("conclusion"),
                    head_sha=str(item.get("head_sha") or head_sha),
                )
            )
    return tuple(runs)


def _reuse_sweeps(values: list[str] | None) -> tuple[Any, ...] | None:
    from bot.signoff.model import ReuseSweep

    if values is None:
        return None
    out = []
    for value in values:
        if value.strip().lower() == "none":
            continue
        login, sep, permission = value.partition(":")
        if not login.strip() or not sep or not permission.strip():
            raise UsageError(f"--reuse-sweep wants LOGIN:PERMISSION or 'none', not {value!r}")
        out.append(ReuseSweep(login.strip().lstrip("@"), permission.strip().lower()))
    return tuple(out)


def _posted_comments(files: list[str], authors: list[str]) -> list[Any]:
    from bot.signoff.model import PostedComment

    if len(files) != len(authors):
        raise UsageError(
            f"give one --comment-author per --comment ({len(files)} --comment, "
            f"{len(authors)} --comment-author)"
        )
    out = []
    for name, who in zip(files, authors, strict=True):
        login, _, permission = who.partition(":")
        login = login.strip().lstrip("@")
        if not login:
            raise UsageError("--comment-author is empty")
        out.append(PostedComment(login, _read_body(name), permission.strip().lower() or None))
    return out


def _sweeps_in(comments: list[Any]) -> tuple[Any, ...]:
    from bot.signoff.detect import has_reuse_sweep
    from bot.signoff.model import ReuseSweep

    return tuple(ReuseSweep(c.author, c.permission) for c in comments if has_reuse_sweep(c.body))


def _first_text(tree: Tree, paths: Sequence[str]) -> str | None:
    for path in paths:
        data = tree.read(path)
        if data is not None:
            return data.decode("utf-8", errors="replace")
    return None


def cmd_signoff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.signoff_command != "check":
        raise UsageError("name a signoff command: check (see 'bot signoff check --help')")
    return cmd_signoff_check(args, out, err)


def cmd_signoff_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from bot.signoff.gather import SignedComment, Signer, gather
    from bot.signoff.render import render_verdict_comment
    from bot.signoff.verify import verify_all
    from bot.sources import git  # the PR's commits: `git rev-list`

    if len(args.body) != len(args.author):
        raise UsageError(
            f"give one --author per --body ({len(args.body)} --body, {len(args.author)} --author)"
        )
    signed = []
    for name, who in zip(args.body, args.author, strict=True):
        login, _, perm = who.partition(":")
        login = login.strip().lstrip("@")
        if not login:
            raise UsageError("--author is empty")
        signed.append((_read_body(name), login, perm.strip().lower() or None))
    body, author, _ = signed[-1]
    comments = _posted_comments(args.comment or [], args.comment_author or [])
    repo: str = args.repo
    head_sha = resolve_ref(repo, args.head)
    base_sha = resolve_ref(repo, args.base)
    fork = merge_base(repo, args.base, args.head)
    closers: list[GitTree] = []
    try:
        base_tree, head_tree, base_tip = (
            GitTree(repo, fork),
            GitTree(repo, head_sha),
            GitTree(repo, base_sha),
        )
        closers += [base_tree, head_tree, base_tip]
        config = _config_from(base_tip, args.config, f"at {args.base}")
        changed = frozenset(changed_paths(repo, args.base, args.head))
        change = build_changeset(base_tree, head_tree, changed, pr=args.pr, author=author)
        ctx = Context.for_change(change, config, review_date=args.date or datetime.date.today())
        report = lint(ctx, paths=sorted(changed))
        teams = None
        if args.teams is not None:
            teams = [t.strip() for t in args.teams.split(",") if t.strip()]
        # the options describe the newest signer; the others' permission is the one
        # given with their --author, if any
        resolved = head_sha
        others = {login: perm for _, login, perm in signed[:-1]}

        class _LocalSource:
            """`bot signoff check`'s `FactSource`: the local repository and the options."""

            head_sha = resolved

            def base_text(self, path: str) -> str | None:
                return _first_text(base_tip, [path])

            def template_text(self, path: str) -> str | None:
                return _first_text(base_tip, [path])

            def changed(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
                return tuple(sorted(changed)), ()

            def commits(self) -> tuple[str, ...] | None:
                out = git(repo, "rev-list", "--reverse", f"{fork}..{resolved}").decode().split()
                return tuple(out)

            def check_runs(self, commits: tuple[str, ...] | None) -> tuple[Any, ...] | None:
                return _load_check_runs(args.check_runs, resolved) if args.check_runs else None

            def reuse_sweeps(self) -> tuple[Any, ...] | None:
                if args.reuse_sweep is not None or not comments:
                    return _reuse_sweeps(args.reuse_sweep)
                return _sweeps_in(comments)

            def comments(self) -> tuple[Any, ...] | None:
                return tuple(comments) if args.comment else None

            def signer(
                self, login: str, codeowners: str | None, paths: tuple[str, ...], newest: bool
            ) -> Signer:
                is_bot = login.lower().endswith("[bot]")
                if not newest:
                    return Signer(others.get(login), {}, None, is_bot)
                membership: dict[str, bool | None] = {}
                if teams is not None and codeowners is not None:
                    from bot.signoff.codeowners import parse_codeowners

                    mine = {t.lower() for t in teams}
                    for team in parse_codeowners(codeowners).all_teams():
                        membership[team] = team.lower() in mine
                return Signer(args.permission, membership, args.org_member, is_bot)

            def lint(self) -> tuple[Context | None, Report]:
                return ctx, report

        everyone = gather(
            _LocalSource(),
            [SignedComment(login, text) for text, login, _ in signed[:-1]]
            + [SignedComment(author, body, args.edited_by)],
            config.knowledge,
            pr=args.pr,
            bot_login=args.bot_login,
            pr_author=args.pr_author,
        )
    finally:
        for tree in closers:
            tree.close()
    verdict = verify_all(everyone, config.knowledge)
    if args.format == "json":
        out.write(json.dumps(verdict.as_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(render_verdict_comment(verdict, lang=args.lang))
    out.flush()
    return 0 if verdict.verdict == "pass" else 1


# --------------------------------------------------------------------------- review

REVIEW_EPILOG = """\
examples:
  bot review --repo . --pr 2423 --base origin/main --head HEAD --dry-run
  bot review --repo . --pr 2423 --base origin/main --head pr-2423 --dry-run --format json

Runs the service's review pipeline (lint, split by the diff, render) on a pull
request read from local git, and prints exactly what the service would post:
the review with each inline comment and its body, the summary comment and the
commit status. Nothing is sent anywhere; no GitHub access is needed (like
`danger pr`). The changed files and patches are `git diff MERGE_BASE HEAD`, the
configuration is read from BASE, and the review is rendered as the bot's first
on the pull request (a local clone holds no comments).

exit status: 0 printed, 2 usage or input error.
"""


def _add_review_commands(sub: argparse._SubParsersAction[Any]) -> None:
    vp = sub.add_parser(
        "review",
        help="print the review the service would post on a pull request, from local git",
        description="Render the pull-request review the service would post, from local git.",
        epilog=REVIEW_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    vp.add_argument("--repo", default=".", metavar="DIR", help="git checkout (default: .)")
    vp.add_argument("--pr", required=True, type=_positive_int, metavar="N", help="PR number")
    vp.add_argument("--base", required=True, metavar="REF", help="the pull request's base branch")
    vp.add_argument("--head", default="HEAD", metavar="REF", help="its head (default: HEAD)")
    vp.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be posted (required: posting needs the service or `bot replay`)",
    )
    vp.add_argument("--author", metavar="LOGIN", help="the pull request's author")
    vp.add_argument(
        "--github-repo",
        metavar="OWNER/NAME",
        help="the pull request's repository (default: from the `origin` remote)",
    )
    vp.add_argument(
        "--date",
        type=_iso_date,
        metavar="YYYY-MM-DD",
        help="review date for dated knowledge such as deprecations (default: today)",
    )
    vp.add_argument(
        "--status-context", default="recipe-review", metavar="NAME", help="commit status name"
    )
    vp.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )


def local_pull(
    repo: str, number: int, base: str, head: str, github_repo: str | None, author: str | None
) -> Any:
    """The pull request as the pipeline sees it, from local git."""
    from bot.github.types import PullInfo

    head_sha = resolve_ref(repo, head)
    base_sha = resolve_ref(repo, base)
    known = github_repo or github_repository(repo)
    name = known or f"local/{Path(os.path.realpath(repo)).name}"
    return PullInfo(
        html_url=f"https://github.com/{known}/pull/{number}" if known else "",
        repo=name,
        number=number,
        head_sha=head_sha,
        base_sha=base_sha,
        base_ref=base,
        head_ref=head,
        author=author or "unknown",
    )


def cmd_review(args: argparse.Namespace, out: TextIO) -> int:
    from bot.github.localgit import LocalGitGateway
    from bot.review.pipeline import ReviewSettings, review_pull_request
    from bot.server.dryrun import DryRunGateway

    if not args.dry_run:
        raise UsageError(
            "bot review reads local git and posts nothing: pass --dry-run "
            "(the service, or `bot replay EVENT_FILE`, posts reviews)"
        )
    git_toplevel(args.repo)
    pull = local_pull(args.repo, args.pr, args.base, args.head, args.github_repo, args.author)
    local = LocalGitGateway(args.repo, {pull.number: pull})
    dry = DryRunGateway(local)
    try:
        posted = review_pull_request(
            dry,
            pull.repo,
            pull.number,
            settings=ReviewSettings(status_context=args.status_context, bot_login=local.login()),
            today=args.date or datetime.date.today(),
        )
    finally:
        local.close()
    target = f"{pull.repo}#{pull.number} at {pull.head_sha[:12]}"
    if args.format == "json":
        data = {"pull": target, "skipped": posted.skipped, "writes": json.loads(dry.to_json())}
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(f"dry run of the review of {target} (from local git)\n")
        out.write(dry.render())
    out.flush()
    return 0


# --------------------------------------------------------------------------- main


def _add_queue_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """`bot db migrate|status`, `bot queue status|retry` (bot.server.admin)."""
    from bot.server.admin import add_commands

    add_commands(sub, parser_class=_Parser)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        reason = exc.strerror or str(exc)
        return f"{exc.filename}: {reason[0].lower() + reason[1:] if reason else reason}"
    return str(exc) or type(exc).__name__


def _subparser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the subcommand `args` ran (the top-level one when none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            sub = action.choices.get(getattr(args, "command", None) or "")
            if isinstance(sub, argparse.ArgumentParser):
                return _subparser(sub, args)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `bot` command line; returns the exit status."""
    out, err = sys.stdout, sys.stderr
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # point at the subcommand's own help: `bot lint --help`
            _subparser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        if args.command == "lint":
            return cmd_lint(args, out, err)
        if args.command == "rules":
            return cmd_rules(args, out)
        if args.command == "explain":
            return cmd_explain(args, out)
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "replay":
            return cmd_replay(args, out, err)
        if args.command == "signoff":
            return cmd_signoff(args, out, err)
        if args.command == "review":
            return cmd_review(args, out)
        if args.command == "backtest":
            from bot.backtest.cli import main as run_backtest

            return run_backtest(args, out, err)
        if args.command in ("db", "queue"):
            from bot.server.admin import run as run_admin

            return run_admin(args, out, err)
        parser.print_help(err)
        return 2
    except BrokenPipeError:  # `bot lint ... | head`: stop quietly
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (UsageError, ConfigError, SourceError, RegistryError, OSError) as exc:
        print(f"bot: error: {_describe(exc)}", file=err)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
