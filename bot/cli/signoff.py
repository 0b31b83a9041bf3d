"""`bot signoff check`: verify a CODEOWNER sign-off comment offline, from local git.

The checks are the service's (`bot.signoff.gather`, `bot.signoff.verify`); the
pull request's content is linted by `bot.app.lint_change`, as the service does.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from bot.app.config import load_repo_config
from bot.app.lint import Change, LintOptions, LintResult, lint_change
from bot.app.local import commit_of, commits_between, open_local_change
from bot.base.tree import Tree
from bot.cli.common import Parser, Subparsers, UsageError, iso_date, positive_int, read_body
from bot.core.engine import Context, Report
from bot.signoff.codeowners import parse_codeowners
from bot.signoff.detect import has_reuse_sweep
from bot.signoff.gather import SignedComment, Signer, gather
from bot.signoff.model import CheckRun, PostedComment, ReuseSweep
from bot.signoff.render import render_verdict_comment
from bot.signoff.verify import verify_all

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


def register(sub: Subparsers) -> None:
    sp = sub.add_parser(
        "signoff",
        help="verify a CODEOWNER sign-off comment",
        description="CODEOWNER sign-off checklist verification.",
    )
    ssub = sp.add_subparsers(dest="signoff_command", metavar="COMMAND", parser_class=Parser)
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
    cp.add_argument("--pr", type=positive_int, metavar="N", help="pull request number")
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
        type=iso_date,
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
    sp.set_defaults(func=run)


def _load_check_runs(name: str, head_sha: str) -> tuple[CheckRun, ...]:
    try:
        data = json.loads(read_body(name))
    except ValueError as exc:
        raise UsageError(f"{name}: not JSON ({exc})") from None
    pages = data if isinstance(data, list) else [data]
    runs: list[CheckRun] = []
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


def _reuse_sweeps(values: list[str] | None) -> tuple[ReuseSweep, ...] | None:
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


def _posted_comments(files: list[str], authors: list[str]) -> list[PostedComment]:
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
        out.append(PostedComment(login, read_body(name), permission.strip().lower() or None))
    return out


def _sweeps_in(comments: list[PostedComment]) -> tuple[ReuseSweep, ...]:
    return tuple(ReuseSweep(c.author, c.permission) for c in comments if has_reuse_sweep(c.body))


def _text(tree: Tree, path: str) -> str | None:
    data = tree.read(path)
    return None if data is None else data.decode("utf-8", errors="replace")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.signoff_command != "check":
        raise UsageError("name a signoff command: check (see 'bot signoff check --help')")
    return check(args, out, err)


def check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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
        signed.append((read_body(name), login, perm.strip().lower() or None))
    body, author, _ = signed[-1]
    comments = _posted_comments(args.comment or [], args.comment_author or [])
    with open_local_change(args.repo, args.base, args.head, pr=args.pr, author=author) as change:
        config = load_repo_config(change.config_tree, ref=change.config_ref, file=args.config)
        result = lint_change(change, config=config, options=LintOptions(review_date=args.date))
        source = _LocalSource(args, change, result, signed, comments)
        everyone = gather(
            source,
            [SignedComment(login, text) for text, login, _ in signed[:-1]]
            + [SignedComment(author, body, args.edited_by)],
            config.knowledge,
            pr=args.pr,
            bot_login=args.bot_login,
            pr_author=args.pr_author,
        )
    verdict = verify_all(everyone, config.knowledge)
    if args.format == "json":
        out.write(json.dumps(verdict.as_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(render_verdict_comment(verdict, lang=args.lang))
    out.flush()
    return 0 if verdict.verdict == "pass" else 1


class _LocalSource:
    """`bot signoff check`'s `FactSource`: the local repository and the options."""

    def __init__(
        self,
        args: argparse.Namespace,
        change: Change,
        result: LintResult,
        signed: list[tuple[str, str, str | None]],
        comments: list[PostedComment],
    ) -> None:
        self.args = args
        self.change = change
        self.result = result
        self.head_sha = commit_of(change.head)
        self._comments = comments
        # the options describe the newest signer; the others' permission is the one
        # given with their --author, if any
        self._others = {login: perm for _, login, perm in signed[:-1]}
        self._teams: list[str] | None = None
        if args.teams is not None:
            self._teams = [t.strip() for t in args.teams.split(",") if t.strip()]

    def base_text(self, path: str) -> str | None:
        return _text(self.change.config_tree, path)

    def template_text(self, path: str) -> str | None:
        return _text(self.change.config_tree, path)

    def changed(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return tuple(sorted(self.change.paths)), ()

    def changed_count(self) -> int | None:
        return None  # git lists every changed path

    def commits(self) -> tuple[str, ...] | None:
        return commits_between(self.args.repo, commit_of(self.change.base), self.head_sha)

    def check_runs(self, commits: tuple[str, ...] | None) -> tuple[CheckRun, ...] | None:
        if not self.args.check_runs:
            return None
        return _load_check_runs(self.args.check_runs, self.head_sha)

    def reuse_sweeps(self) -> tuple[ReuseSweep, ...] | None:
        if self.args.reuse_sweep is not None or not self._comments:
            return _reuse_sweeps(self.args.reuse_sweep)
        return _sweeps_in(self._comments)

    def comments(self) -> tuple[PostedComment, ...] | None:
        return tuple(self._comments) if self.args.comment else None

    def signer(
        self, login: str, codeowners: str | None, paths: tuple[str, ...], newest: bool
    ) -> Signer:
        is_bot = login.lower().endswith("[bot]")
        if not newest:
            return Signer(self._others.get(login), {}, None, is_bot)
        membership: dict[str, bool | None] = {}
        if self._teams is not None and codeowners is not None:
            mine = {t.lower() for t in self._teams}
            for team in parse_codeowners(codeowners).all_teams():
                membership[team] = team.lower() in mine
        return Signer(self.args.permission, membership, self.args.org_member, is_bot)

    def lint(self) -> tuple[Context | None, Report]:
        return self.result.runs[0].ctx, self.result.report
