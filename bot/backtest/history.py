"""What a repository's git history says about its pull requests. An edge (git I/O).

- `list_pulls`: every `refs/pull/<N>/head` with its head commit and date.
- `MainLine`: the base branch, read once: its commits, their trees, and the PR
  numbers its commit subjects name.
- `plan_pull`: one PR's merge-base, commits and merge state.
- `line_changed`: whether a later commit edited (or deleted) a given line.

How a merged PR is told from a git mirror alone (GitHub's merge state is not
in git), first match wins:

1. `ancestor`: the PR head is reachable from the base branch (a merge commit or
   a fast-forward kept the PR's own commits);
2. `subject`: a first-parent commit of the base branch has a subject ending in
   `(#N)` (GitHub's squash and rebase merges) or starting `Merge pull request
   #N ` (GitHub's merge commits);
3. `tree`: a commit of the base branch has exactly the PR head's tree (a
   squash of an up-to-date head, whatever its subject says).

Anything else counts as not merged: open, closed unmerged, or merged in a way
that left no trace above. A revert's own `(#M)` names the revert's PR, not the
reverted one, so a reverted PR still counts as merged.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable

from bot.base.records import dataclass
from bot.sources import SourceError, git

_SQUASH = re.compile(r"\(#(\d+)\)\s*$")
_MERGE = re.compile(r"^Merge pull request #(\d+) ")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)


@dataclass(frozen=True)
class Pull:
    number: int
    head: str
    date: datetime.date  # the head commit's committer date


# a commit of a PR and its own merge-base with the base branch (None: none could be found)
Step = tuple[str, "str | None"]


@dataclass(frozen=True)
class PullPlan:
    """One PR as the backtest lints it."""

    number: int
    head: str
    date: datetime.date
    base: str | None  # the head's merge-base with the base branch; None when it cannot be found
    # every commit, oldest first, ending with `head`, each with its own merge-base; None: not listed
    commits: tuple[Step, ...] | None
    merged: str | None  # how it was found merged ("ancestor", "subject", "tree"), or None
    merge_commit: str | None
    problem: str | None = None  # why it cannot be linted (a missing object, no merge-base)

    def steps(self) -> tuple[Step, ...]:
        """The commits to follow: every commit when listed, else the head alone."""
        return self.commits if self.commits is not None else ((self.head, self.base),)


def parse_numbers(spec: str) -> set[int]:
    """`2400-2700,2423` as a set of PR numbers; ValueError on a malformed spec."""
    out: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        if sep:
            a, b = int(lo), int(hi)
            if a > b:
                raise ValueError(f"empty range {part!r}")
            out.update(range(a, b + 1))
        else:
            out.add(int(part))
    return out


def list_pulls(repo: str) -> list[Pull]:
    """Every `refs/pull/<N>/head`, newest number first. A ref whose commit is absent is kept
    with the date 1970-01-01 (the lint then reports the missing object)."""
    out = git(
        repo,
        "for-each-ref",
        "--format=%(refname)%00%(objectname)%00%(committerdate:short)",
        "refs/pull/",
    )
    pulls = []
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, rest = line.partition("\x00")
        sha, _, day = rest.partition("\x00")
        parts = name.split("/")
        if len(parts) != 4 or parts[3] != "head" or not parts[2].isdigit():
            continue
        try:
            date = datetime.date.fromisoformat(day)
        except ValueError:
            date = datetime.date(1970, 1, 1)
        pulls.append(Pull(int(parts[2]), sha, date))
    pulls.sort(key=lambda p: -p.number)
    return pulls


def select_pulls(
    pulls: Iterable[Pull],
    numbers: set[int] | None = None,
    since: datetime.date | None = None,
    limit: int | None = None,
) -> list[Pull]:
    """`--prs`, `--since` (head date on or after), then `--limit` (the newest N), newest first."""
    chosen = [
        p
        for p in pulls
        if (numbers is None or p.number in numbers) and (since is None or p.date >= since)
    ]
    chosen.sort(key=lambda p: -p.number)
    return chosen[:limit] if limit is not None else chosen


class MainLine:
    """The base branch, read once per run."""

    def __init__(self, repo: str, ref: str) -> None:
        self.repo = repo
        try:
            self.tip = git(repo, "rev-parse", "--verify", "--quiet", ref + "^{commit}").decode()
        except SourceError:
            raise SourceError(f"unknown base branch {ref!r} in {repo}") from None
        self.tip = self.tip.strip()
        log = git(repo, "log", "--format=%H%x00%T%x00%P%x00%s", self.tip)
        self.commits: set[str] = set()
        self.trees: dict[str, str] = {}
        self.parents: dict[str, tuple[str, ...]] = {}
        for line in log.decode("utf-8", "replace").splitlines():
            sha, tree, parents, _ = line.split("\x00", 3)
            self.commits.add(sha)
            self.trees.setdefault(tree, sha)
            self.parents[sha] = tuple(parents.split())
        first = git(repo, "log", "--first-parent", "--format=%H%x00%s", self.tip)
        self.first_parent: list[str] = []  # newest first
        self.by_number: dict[int, str] = {}
        for line in first.decode("utf-8", "replace").splitlines():
            sha, _, subject = line.partition("\x00")
            self.first_parent.append(sha)
            m = _SQUASH.search(subject) or _MERGE.match(subject)
            if m:
                # the oldest mention wins: a later "(#N)" is usually a follow-up or revert
                self.by_number[int(m.group(1))] = sha

    def merged(self, number: int, head: str) -> tuple[str | None, str | None]:
        """(how, merge commit) by the heuristic in the module docstring, or (None, None)."""
        if head in self.commits:
            return "ancestor", self._merging(head)
        if number in self.by_number:
            return "subject", self.by_number[number]
        tree = self._tree(head)
        if tree is not None and tree in self.trees:
            return "tree", self.trees[tree]
        return None, None

    def _tree(self, commit: str) -> str | None:
        try:
            return (
                git(self.repo, "rev-parse", "--verify", "--quiet", commit + "^{tree}")
                .decode()
                .strip()
            )
        except SourceError:
            return None

    def _merging(self, head: str) -> str:
        """The oldest first-parent commit of the branch that contains `head`."""
        chain = self.first_parent  # newest first; containment is monotone along it
        lo, hi = 0, len(chain) - 1
        while lo < hi:  # find the last index (oldest) whose commit contains head
            mid = (lo + hi + 1) // 2
            if _is_ancestor(self.repo, head, chain[mid]):
                lo = mid
            else:
                hi = mid - 1
        return chain[lo]

    def against(self, pull: Pull) -> str:
        """The branch commit a PR's commits are compared with: the tip, or for a head already
        on the branch, the branch as it was just before the commit that brought it in (for a
        fast-forward, the head's parent: only its last commit is then known as the PR's)."""
        if pull.head not in self.commits:
            return self.tip
        parents = self.parents.get(self._merging(pull.head), ())
        if not parents:
            raise SourceError(f"{pull.head[:12]} is a root commit")
        return parents[0]


def _is_ancestor(repo: str, a: str, b: str) -> bool:
    try:
        git(repo, "merge-base", "--is-ancestor", a, b)
    except SourceError:
        return False
    return True


def _merge_base(repo: str, a: str, b: str) -> str:
    try:
        out = git(repo, "merge-base", a, b).decode().strip()
    except SourceError:
        out = ""
    if not out:
        raise SourceError(f"no merge-base of {a[:12]} and {b[:12]} (a shallow or partial mirror?)")
    return out


def plan_pull(main: MainLine, pull: Pull, with_commits: bool) -> PullPlan:
    """The merge-base, the commits (with `with_commits`) and the merge state of one PR.

    Each commit is paired with its own merge-base with the branch: a commit made before
    the PR merged the base branch in forks from an older branch commit than its head."""
    how, merge_commit = main.merged(pull.number, pull.head)
    try:
        against = main.against(pull)
        base = _merge_base(main.repo, against, pull.head)
        commits: tuple[Step, ...] | None = None
        if with_commits:
            listed = git(main.repo, "rev-list", "--reverse", "--topo-order", f"{base}..{pull.head}")
            shas = [c for c in listed.decode().split() if c != pull.head]
            steps: list[Step] = []
            for sha in shas:
                try:
                    steps.append((sha, _merge_base(main.repo, against, sha)))
                except SourceError:
                    steps.append((sha, None))
            commits = (*steps, (pull.head, base))
    except SourceError as exc:
        return PullPlan(pull.number, pull.head, pull.date, None, None, how, merge_commit, str(exc))
    return PullPlan(pull.number, pull.head, pull.date, base, commits, how, merge_commit)


def commit_dates(repo: str, shas: Iterable[str]) -> dict[str, datetime.date]:
    """Committer dates of commits (one `git log --no-walk`); absent commits are left out."""
    wanted = sorted(set(shas))
    out: dict[str, datetime.date] = {}
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        try:
            text = git(repo, "log", "--no-walk=unsorted", "--format=%H %cs", *chunk).decode()
        except SourceError:  # a missing commit: ask one by one
            text = ""
            for sha in chunk:
                try:
                    text += git(repo, "log", "-1", "--format=%H %cs", sha).decode()
                except SourceError:
                    continue
        for line in text.splitlines():
            sha, _, day = line.partition(" ")
            try:
                out[sha] = datetime.date.fromisoformat(day.strip())
            except ValueError:
                continue
    return out


def line_changed(repo: str, old: str, new: str, path: str, line: int) -> bool | None:
    """Whether going from commit `old` to `new` deleted or edited line `line` of `path`
    (as numbered in `old`); a deleted file changes every line. None when git cannot tell."""
    try:
        out = git(repo, "diff", "-U0", "--no-renames", "--no-ext-diff", old, new, "--", path)
    except SourceError:
        return None
    if b"\n+++ /dev/null" in out or out.startswith(b"deleted file") or b"\ndeleted file" in out:
        return True
    for m in _HUNK.finditer(out):
        start = int(m.group(1))
        count = int(m.group(2)) if m.group(2) is not None else 1
        if count and start <= line < start + count:
            return True
    return False
