"""Trees and changes read from a local checkout: the working tree or git commits.

    open_checkout(repo, head=None)         a tree to lint whole (`bot lint --repo DIR`)
    open_local_change(repo, base, head)    a pull request from BASE to HEAD (`--base`)
    LocalRepository(repo)                  one repository opened for many changes: pass it
                                           as `open_local_change(..., within=)`

Every failure a user can cause (not a repository, an unknown ref, no git) is a
`SourceError` with a one-line message; an object the repository lacks (a pruned blob,
a shallow cut) is a `MissingObject`, never an absent file. Commits are read through
git, so bare mirrors and alternates work; only the working tree needs a work tree.
What is opened here holds `git cat-file` processes: close it (`with`) when done.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import field
from pathlib import Path

from bot.app.lint import Change
from bot.base.records import dataclass
from bot.base.tree import Tree
from bot.sources import (
    FsTree,
    GitTree,
    MissingObject,
    ObjectReader,
    SourceError,
    changed_paths,
    find_repo_root,
    git,
    git_toplevel,
    github_repository,
    merge_base,
    resolve_ref,
)

__all__ = [
    "Checkout",
    "LocalRepository",
    "MissingObject",
    "SourceError",
    "commit_of",
    "commits_between",
    "open_checkout",
    "open_local_change",
    "origin_repository",
    "repository_root",
    "resolve_commit",
    "work_tree",
]


@dataclass
class Checkout:
    """A whole tree of a local repository: its working tree, or one commit."""

    tree: Tree
    root: Path  # the directory the tree's paths are relative to
    # the GitHub repository (`owner/name`) its `origin` remote names, if any
    repository: str | None
    closers: list[GitTree] = field(default_factory=list, repr=False)

    def close(self) -> None:
        for tree in self.closers:
            tree.close()
        self.closers.clear()

    def __enter__(self) -> Checkout:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalRepository:
    """A local git repository opened once for many changes (the commits a backtest lints).

    One `git cat-file` process reads the objects of every tree; each commit's tree is
    listed once and the `keep` most recently used are kept, so the commits of a pull
    request that share a merge-base share its tree (and the contents it has read); the
    `origin` remote is read once. A change opened `within` it does not own these trees:
    close the repository (`with`) when done.
    """

    def __init__(self, repo: str | os.PathLike[str], *, keep: int = 3) -> None:
        self.path = repo
        self.reader = ObjectReader(repo)
        self._keep = max(1, keep)
        self._trees: OrderedDict[str, GitTree] = OrderedDict()
        self._origin: tuple[str | None] | None = None

    def tree(self, ref: str) -> GitTree:
        """The tree of commit `ref`, listed once while it is among the `keep` last used."""
        sha = resolve_ref(self.path, ref, reader=self.reader)
        tree = self._trees.get(sha)
        if tree is None:
            tree = GitTree(self.path, sha, reader=self.reader)
            self._trees[sha] = tree
            while len(self._trees) > self._keep:
                self._trees.popitem(last=False)
        self._trees.move_to_end(sha)
        return tree

    def origin(self) -> str | None:
        """`owner/name` of the GitHub repository `origin` names, read once."""
        if self._origin is None:
            self._origin = (github_repository(self.path),)
        return self._origin[0]

    def close(self) -> None:
        self._trees.clear()
        self.reader.close()

    def __enter__(self) -> LocalRepository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def origin_repository(repo: str | os.PathLike[str]) -> str | None:
    """`owner/name` of the GitHub repository the `origin` remote of `repo` names; None when
    `repo` is not a git work tree or `origin` is not a GitHub URL."""
    try:
        git_toplevel(repo)
    except SourceError:
        return None
    return github_repository(repo)


def repository_root(start: str | os.PathLike[str]) -> Path | None:
    """The nearest directory at or above `start` holding `.git`, `perf-changelog.yaml` or
    `.recipe-bot.yml` (where `bot lint PATH` roots a file's path); None when there is none."""
    return find_repo_root(start)


def work_tree(repo: str | os.PathLike[str]) -> Path:
    """The top directory of the git work tree holding `repo`."""
    return git_toplevel(repo)


def resolve_commit(repo: str | os.PathLike[str], ref: str) -> str:
    """The commit SHA `ref` names in `repo`."""
    return resolve_ref(repo, ref)


def commit_of(tree: Tree) -> str:
    """The commit SHA of a tree read from git (`GitTree`)."""
    commit = getattr(tree, "commit", None)
    if not isinstance(commit, str):
        raise SourceError(f"{tree!r} is not a git commit")
    return commit


def commits_between(repo: str | os.PathLike[str], base: str, head: str) -> tuple[str, ...]:
    """The commits of `head` that `base` lacks, oldest first (`git rev-list`)."""
    out = git(repo, "rev-list", "--reverse", f"{base}..{head}").decode().split()
    return tuple(out)


def open_checkout(repo: str | os.PathLike[str], head: str | None = None) -> Checkout:
    """`repo`'s working tree, or its commit `head`."""
    if head is None:
        return Checkout(FsTree(repo), Path(os.path.realpath(repo)), origin_repository(repo))
    tree = GitTree(repo, head)
    return Checkout(tree, Path(os.path.realpath(repo)), origin_repository(repo), [tree])


def open_local_change(
    repo: str | os.PathLike[str],
    base: str,
    head: str | None = None,
    *,
    pr: int | None = None,
    author: str | None = None,
    repository: str | None = None,
    within: LocalRepository | None = None,
) -> Change:
    """The pull request from `base` to `head` (None: the working tree) in `repo`.

    As GitHub shows a pull request: the changed paths are those of `git diff
    BASE...HEAD` (from the merge-base), the base view is the merge-base, and the base
    branch's tip (`base` itself) holds the configuration. `repository` defaults to
    the `origin` remote's GitHub repository. `within` (`repo` opened as a
    `LocalRepository`) lends its trees and its `git cat-file` process; without it the
    change opens and owns its own."""
    reader = within.reader if within is not None else None
    base_sha = resolve_ref(repo, base, reader=reader)
    # the head resolved once: the merge-base, its tree and the diff read that commit
    head_sha = resolve_ref(repo, head or "HEAD", reader=reader)
    fork = merge_base(repo, base, head, reader=reader, resolved=(base_sha, head_sha))
    opened: list[GitTree] = []

    def tree(ref: str) -> GitTree:
        if within is not None:
            return within.tree(ref)
        opened.append(GitTree(repo, ref))
        return opened[-1]

    try:
        change = Change(
            base=tree(fork),
            head=tree(head_sha) if head is not None else FsTree(repo),
            paths=frozenset(),
            base_tip=tree(base_sha) if base_sha != fork else None,
            pr=pr,
            author=author,
            root=Path(os.path.realpath(repo)),
            config_ref=base,
            closers=list(opened),
        )
        change.paths = frozenset(
            changed_paths(repo, base_sha, head_sha if head is not None else None)
        )
        if repository is None:
            repository = within.origin() if within is not None else github_repository(repo)
        change.repository = repository
    except BaseException:
        for t in opened:
            t.close()
        raise
    return change
