"""Trees and changes read from a local checkout: the working tree or git commits.

    open_checkout(repo, head=None)         a tree to lint whole (`bot lint --repo DIR`)
    open_local_change(repo, base, head)    a pull request from BASE to HEAD (`--base`)
    local_pull(repo, number, base, head)   the pull request as the review pipeline sees it

Every failure a user can cause (not a repository, an unknown ref, no git) is a
`SourceError` with a one-line message. What is opened here holds `git cat-file`
processes: close it (`with`) when done.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from bot.app.lint import Change
from bot.base.tree import Tree
from bot.github.types import PullInfo
from bot.sources import (
    FsTree,
    GitTree,
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
    "SourceError",
    "commit_of",
    "commits_between",
    "local_pull",
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
) -> Change:
    """The pull request from `base` to `head` (None: the working tree) in `repo`.

    As GitHub shows a pull request: the changed paths are those of `git diff
    BASE...HEAD` (from the merge-base), the base view is the merge-base, and the base
    branch's tip (`base` itself) holds the configuration. `repository` defaults to
    the `origin` remote's GitHub repository."""
    base_sha = resolve_ref(repo, base)
    fork = merge_base(repo, base, head)
    change = Change(
        base=GitTree(repo, fork),
        head=FsTree(repo),
        paths=frozenset(),
        pr=pr,
        author=author,
        root=Path(os.path.realpath(repo)),
        config_ref=base,
    )
    try:
        change.closers.append(change.base)
        if head is not None:
            change.head = GitTree(repo, head)
            change.closers.append(change.head)
        if base_sha != fork:
            change.base_tip = GitTree(repo, base_sha)
            change.closers.append(change.base_tip)
        change.paths = frozenset(changed_paths(repo, base, head))
        change.repository = repository or github_repository(repo)
    except BaseException:
        change.close()
        raise
    return change


def local_pull(
    repo: str | os.PathLike[str],
    number: int,
    base: str,
    head: str,
    *,
    repository: str,
    author: str | None = None,
) -> PullInfo:
    """Pull request `number` of GitHub repository `repository` (`owner/name`), from
    `base` to `head` of the local clone `repo`, as the review pipeline sees it."""
    return PullInfo(
        html_url=f"https://github.com/{repository}/pull/{number}",
        repo=repository,
        number=number,
        head_sha=resolve_ref(repo, head),
        base_sha=resolve_ref(repo, base),
        base_ref=base,
        head_ref=head,
        author=author or "unknown",
    )
