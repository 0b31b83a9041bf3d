"""`LocalGitGateway`: the review pipeline's `Gateway` read from a local clone, no GitHub.

`bot review --dry-run` and `bot replay --local-repo DIR --dry-run` run the very
pipeline the service runs (lint, plan, render) through `DryRunGateway(LocalGitGateway)`,
so what they print is the review the service would post, like `danger pr`. What
GitHub alone knows is given or assumed: the pull request's number, base and head
come from the caller; the changed files and their patches are `git diff
MERGE_BASE HEAD` (what GitHub shows for a pull request); a local clone holds no
comments, so the review is rendered as the bot's first on that pull request.

Writes raise: wrap the gateway in `DryRunGateway`, which records them instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from bot.github.calls import FallbackGateway, is_write
from bot.github.types import (
    Annotation,
    CheckRunInfo,
    Comment,
    GitHubError,
    PullFile,
    PullInfo,
)
from bot.sources import GitTree, git, merge_base

_STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "C": "copied"}


class LocalGitGateway(FallbackGateway):
    def __init__(
        self,
        repo_dir: str | os.PathLike[str],
        pulls: Mapping[int, PullInfo],
        *,
        login: str = "recipe-review[bot]",
    ) -> None:
        self.repo_dir = str(repo_dir)
        self.pulls = dict(pulls)
        self._login = login
        self._trees: dict[str, GitTree] = {}

    def close(self) -> None:
        for tree in self._trees.values():
            tree.close()
        self._trees.clear()

    def _tree(self, ref: str) -> GitTree:
        if ref not in self._trees:
            self._trees[ref] = GitTree(self.repo_dir, ref)
        return self._trees[ref]

    # ----------------------------------------------------------------- reads

    def login(self) -> str:
        return self._login

    def pull(self, repo: str, number: int) -> PullInfo:
        pull = self.pulls.get(number)
        if pull is None or pull.repo != repo:
            raise GitHubError(f"no pull request {repo}#{number} in the local clone", 404)
        return pull

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        pull = self.pull(repo, number)
        fork = merge_base(self.repo_dir, pull.base_sha, pull.head_sha)
        opts = ("--no-color", "--no-ext-diff", "-M", "--relative", fork, pull.head_sha)
        names = git(self.repo_dir, "diff", "--name-status", "-z", *opts).split(b"\x00")
        files: list[PullFile] = []
        i = 0
        while i < len(names) and names[i]:
            code = names[i].decode()[:1]
            if code in ("R", "C"):
                old, new = names[i + 1], names[i + 2]
                i += 3
            else:
                old = new = names[i + 1]
                i += 2
            path = new.decode("utf-8", "surrogateescape")
            previous = old.decode("utf-8", "surrogateescape") if code in ("R", "C") else None
            patch = self._patch(fork, pull.head_sha, path, previous)
            files.append(PullFile(path, _STATUS.get(code, "changed"), previous, patch))
        return files

    def _patch(self, base: str, head: str, path: str, previous: str | None) -> str | None:
        """GitHub's `patch`: the file's hunks without the header; None for binary files."""
        paths = [previous, path] if previous else [path]
        out = git(
            self.repo_dir,
            "diff",
            "--no-color",
            "--no-ext-diff",
            "-M",
            "--relative",
            "-U3",
            base,
            head,
            "--",
            *paths,
        ).decode("utf-8", "replace")
        lines = out.split("\n")
        for n, line in enumerate(lines):
            if line.startswith("@@"):
                body = lines[n:]
                while body and body[-1] == "":
                    body.pop()
                return "\n".join(body)
            if line.startswith("Binary files "):
                return None
        return None

    def merge_base(self, repo: str, base: str, head: str) -> str:
        return merge_base(self.repo_dir, base, head)

    def tree_paths(self, repo: str, ref: str) -> list[str]:
        return list(self._tree(ref).paths())

    def read(self, repo: str, path: str, ref: str) -> bytes | None:
        return self._tree(ref).read(path)

    def blob_id(self, repo: str, path: str, ref: str) -> str | None:
        return self._tree(ref).blob_id(path)

    def issue_comments(self, repo: str, number: int) -> list[Comment]:
        return []

    def review_comments(self, repo: str, number: int) -> list[Comment]:
        return []

    def reviews(self, repo: str, number: int) -> list[Comment]:
        return []

    def check_runs(self, repo: str, sha: str) -> list[CheckRunInfo]:
        return []  # a clone holds none: the review is rendered as the head's first

    def check_run_annotations(self, repo: str, check_run_id: int) -> list[Annotation]:
        return []

    # ----------------------------------------------------------------- writes

    def fallback(self, name: str) -> Callable[..., Any] | None:
        """Every write (the method table's `WRITES`) refuses: a clone cannot be written to."""
        if not is_write(name):
            return None

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise GitHubError("a local clone cannot be written to; use --dry-run", 0)

        return refuse
