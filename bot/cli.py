"""`bot`: lint recipes locally or in CI. An edge: argument parsing, I/O, exit codes.

Exit codes: 0 nothing at or above `--fail-on`; 1 findings at or above it;
2 usage error or unreadable input (one `bot: error: ...` line on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
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
from bot.core.registry import RegistryError, all_rules, get_rule
from bot.core.tree import Tree
from bot.docs import render_rule_markdown
from bot.parallel import lint_parallel
from bot.report import github, json_report, sarif, text
from bot.sources import (
    FsTree,
    GitTree,
    SourceError,
    changed_paths,
    find_repo_root,
    locate,
    merge_base,
    read_file,
    resolve_ref,
    write_file,
)

FORMATS = ("text", "json", "sarif", "github")

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

Files named as PATH are checked with their path relative to the repository
root (the nearest directory above them holding .git, perf-changelog.yaml or
.recipe-bot.yml), so path-based rules see them where they live. In --base mode
the changed paths are those of `git diff BASE...HEAD` (from the merge-base),
and the configuration is read from BASE, so a PR cannot relax its own checks.

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
        choices=("error", "warning"),
        default="error",
        help="lowest severity that makes the exit status 1 (default: error)",
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
    return parser


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
            Job(tree=tree, config=config, paths=sorted(set(files)), explicit=tuple(explicit))
        )
    return jobs


def _repo_job(args: argparse.Namespace, closers: list[GitTree]) -> Job:
    repo: str = args.repo
    if args.base is None:
        if args.head is None:
            tree: Tree = FsTree(repo)
        else:
            head_tree = GitTree(repo, args.head)
            closers.append(head_tree)
            tree = head_tree
        return Job(tree=tree, config=_config_from(tree, args.config, ""), paths=None)
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
        base_tip=tip,
    )


def _merge(reports: list[Report]) -> Report:
    findings: list[Finding] = [f for r in reports for f in r.findings]
    findings.sort(key=Finding.sort_key)
    files = [p for r in reports for p in r.files]
    return Report(findings=findings, files=files, suppressed=sum(r.suppressed for r in reports))


def _render(report: Report, fmt: str, lang: str, color: bool) -> str:
    if fmt == "json":
        return json_report.render(report, lang)
    if fmt == "sarif":
        return sarif.render(report, lang)
    if fmt == "github":
        return github.render(report, lang)
    return text.render(report, lang, color=color)


def _use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    if args.no_color or args.output or args.format != "text":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    isatty: Callable[[], bool] | None = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def cmd_lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.paths and args.repo:
        raise UsageError("give PATH arguments or --repo DIR, not both")
    if args.paths and (args.base or args.head):
        raise UsageError(
            "--base/--head need --repo DIR (PATH arguments are linted as they are on disk)"
        )
    if not args.paths and not args.repo:
        if args.base or args.head:
            root = find_repo_root(Path.cwd())
            if root is None:
                raise UsageError("--base/--head need --repo DIR")
            args.repo = str(root)
        else:
            args.paths = ["."]
    closers: list[GitTree] = []
    try:
        jobs = _path_jobs(args.paths, args.config) if args.paths else [_repo_job(args, closers)]
        reports = []
        for job in jobs:
            for path in job.explicit:
                if route(path, job.config) is None:
                    print(
                        f"bot: warning: {path} is not a recipe or the changelog by the configured "
                        "paths; not checked",
                        file=err,
                    )
            mode = "pr" if job.base is not None else ("paths" if args.paths else "tree")
            change = None
            if job.base is not None:
                change = build_changeset(
                    job.base, job.tree, job.changed or (), pr=args.pr, author=args.author
                )
            ctx = Context(
                tree=job.tree,
                config=job.config,
                pr=args.pr,
                base=job.base,
                changed=job.changed,
                mode=mode,
                change=change,
                review_date=args.date or datetime.date.today(),
                base_tip=job.base_tip,
            )
            reports.append(lint_parallel(ctx, paths=job.paths))
    finally:
        for tree in closers:
            tree.close()
    report = _merge(reports)
    rendered = _render(report, args.format, args.lang, _use_color(args, out))
    if args.output:
        write_file(args.output, rendered)
    else:
        out.write(rendered)
        out.flush()
    return 1 if report.exceeds(args.fail_on) else 0


# --------------------------------------------------------------------------- rules, explain


def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    rules = [rm.rule for rm in all_rules()]
    if args.format == "json":
        data = [
            {
                "id": r.id,
                "slug": r.slug,
                "severity": r.severity,
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
    cp.add_argument("--body", required=True, metavar="FILE", help="the comment body ('-': stdin)")
    cp.add_argument("--author", required=True, metavar="LOGIN", help="the comment's author")
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
    from bot.signoff.content import with_content
    from bot.signoff.model import SignoffFacts
    from bot.signoff.render import render_verdict_comment
    from bot.signoff.verify import verify
    from bot.sources import _git  # the PR's commits: `git rev-list`

    body = _read_body(args.body)
    repo: str = args.repo
    author = args.author.strip().lstrip("@")
    if not author:
        raise UsageError("--author is empty")
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
        table = config.knowledge.section("signoff") or {}
        changed = frozenset(changed_paths(repo, args.base, args.head))
        change = build_changeset(base_tree, head_tree, changed, pr=args.pr, author=author)
        ctx = Context(
            tree=head_tree,
            config=config,
            pr=args.pr,
            base=base_tree,
            changed=changed,
            mode="pr",
            change=change,
            review_date=args.date or datetime.date.today(),
        )
        report = lint(ctx, paths=sorted(changed))
        commits = _git(repo, "rev-list", "--reverse", f"{fork}..{head_sha}").decode().split()
        teams = None
        if args.teams is not None:
            teams = [t.strip() for t in args.teams.split(",") if t.strip()]
        codeowners = _first_text(base_tip, table.get("codeowners") or [".github/CODEOWNERS"])
        membership: dict[str, bool | None] = {}
        if teams is not None and codeowners is not None:
            from bot.signoff.codeowners import parse_codeowners

            mine = {t.lower() for t in teams}
            for team in parse_codeowners(codeowners).all_teams():
                membership[team] = team.lower() in mine
        facts = SignoffFacts(
            head_sha=head_sha,
            signer=author,
            body=body,
            pr=args.pr,
            signer_is_bot=author.lower().endswith("[bot]"),
            bot_login=args.bot_login,
            changed_paths=tuple(sorted(changed)),
            codeowners_text=codeowners,
            template_text=_first_text(
                base_tip, [str(table.get("template", "docs/PR_REVIEW_CHECKLIST.md"))]
            ),
            template_zh_text=_first_text(
                base_tip, [str(table.get("template_zh", "docs/PR_REVIEW_CHECKLIST_zh.md"))]
            ),
            signer_permission=args.permission,
            team_membership=membership,
            pr_commits=tuple(commits),
            check_runs=_load_check_runs(args.check_runs, head_sha) if args.check_runs else None,
            reuse_sweeps=_reuse_sweeps(args.reuse_sweep),
            edited_by=args.edited_by,
        )
        facts = with_content(facts, ctx, report)
    finally:
        for tree in closers:
            tree.close()
    verdict = verify(facts, config.knowledge)
    if args.format == "json":
        out.write(json.dumps(verdict.as_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(render_verdict_comment(verdict, lang=args.lang))
    out.flush()
    return 0 if verdict.verdict == "pass" else 1


# --------------------------------------------------------------------------- main


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        reason = exc.strerror or str(exc)
        return f"{exc.filename}: {reason[0].lower() + reason[1:] if reason else reason}"
    return str(exc) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `bot` command line; returns the exit status."""
    out, err = sys.stdout, sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
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
