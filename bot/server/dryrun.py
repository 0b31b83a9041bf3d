"""`DryRunGateway`: reads go to the real gateway, writes are recorded instead of performed.

`bot replay --dry-run` runs the review pipeline through it and prints `render()`.
Created comments and reviews get negative ids (never a real GitHub id), and they are
not visible to later reads: one pipeline run reads before it writes, so it needs
nothing more.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import cast

from bot.github.types import (
    CheckRunInfo,
    Comment,
    Gateway,
    PullFile,
    PullInfo,
    ReviewComment,
    SignoffGateway,
    Status,
)


@dataclass(frozen=True)
class Write:
    """One write the pipeline asked for."""

    kind: str  # create_review | create_issue_comment | edit_issue_comment | edit_review_comment | set_status
    repo: str
    number: int | None = None  # pull request
    id: int | None = None  # the id returned (create_*) or edited (edit_*)
    sha: str | None = None  # create_review, set_status
    body: str = ""
    comments: tuple[ReviewComment, ...] = ()
    status: Status | None = None


@dataclass
class DryRunGateway:
    inner: Gateway
    writes: list[Write] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1), repr=False)

    def _fake_id(self) -> int:
        return -next(self._ids)

    # ------------------------------------------------------------- reads: delegated

    def login(self) -> str:
        return self.inner.login()

    def pull(self, repo: str, number: int) -> PullInfo:
        return self.inner.pull(repo, number)

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        return self.inner.pull_files(repo, number)

    def merge_base(self, repo: str, base: str, head: str) -> str:
        return self.inner.merge_base(repo, base, head)

    def tree_paths(self, repo: str, ref: str) -> list[str]:
        return self.inner.tree_paths(repo, ref)

    def read(self, repo: str, path: str, ref: str) -> bytes | None:
        return self.inner.read(repo, path, ref)

    def blob_id(self, repo: str, path: str, ref: str) -> str | None:
        return self.inner.blob_id(repo, path, ref)

    def issue_comments(self, repo: str, number: int) -> list[Comment]:
        return self.inner.issue_comments(repo, number)

    def review_comments(self, repo: str, number: int) -> list[Comment]:
        return self.inner.review_comments(repo, number)

    def reviews(self, repo: str, number: int) -> list[Comment]:
        return self.inner.reviews(repo, number)

    # sign-off reads (when `inner` is a SignoffGateway)

    def collaborator_permission(self, repo: str, user: str) -> str | None:
        return cast(SignoffGateway, self.inner).collaborator_permission(repo, user)

    def team_membership(self, repo: str, org: str, team_slug: str, user: str) -> bool | None:
        return cast(SignoffGateway, self.inner).team_membership(repo, org, team_slug, user)

    def org_membership(self, repo: str, org: str, user: str) -> bool | None:
        inner = getattr(self.inner, "org_membership", None)
        return inner(repo, org, user) if inner is not None else None

    def pull_commits(self, repo: str, number: int) -> list[str]:
        return cast(SignoffGateway, self.inner).pull_commits(repo, number)

    def check_runs(self, repo: str, sha: str) -> list[CheckRunInfo]:
        return cast(SignoffGateway, self.inner).check_runs(repo, sha)

    # ------------------------------------------------------------- writes: recorded

    def create_review(
        self, repo: str, number: int, commit_sha: str, body: str, comments: Sequence[ReviewComment]
    ) -> int:
        review_id = self._fake_id()
        self.writes.append(
            Write(
                "create_review",
                repo,
                number=number,
                id=review_id,
                sha=commit_sha,
                body=body,
                comments=tuple(comments),
            )
        )
        return review_id

    def create_issue_comment(self, repo: str, number: int, body: str) -> int:
        comment_id = self._fake_id()
        self.writes.append(
            Write("create_issue_comment", repo, number=number, id=comment_id, body=body)
        )
        return comment_id

    def edit_issue_comment(self, repo: str, comment_id: int, body: str) -> None:
        self.writes.append(Write("edit_issue_comment", repo, id=comment_id, body=body))

    def edit_review_comment(self, repo: str, comment_id: int, body: str) -> None:
        self.writes.append(Write("edit_review_comment", repo, id=comment_id, body=body))

    def set_status(self, repo: str, sha: str, status: Status) -> None:
        self.writes.append(Write("set_status", repo, sha=sha, status=status))

    # ------------------------------------------------------------- output

    def render(self) -> str:
        """What would have been posted, as readable text."""
        if not self.writes:
            return "dry run: nothing would be written\n"
        out: list[str] = []
        for n, w in enumerate(self.writes, 1):
            out.append(f"--- [{n}] {_title(w)}")
            if w.status is not None:
                s = w.status
                out.append(f"state: {s.state}")
                out.append(f"description: {s.description}")
                if s.target_url:
                    out.append(f"target_url: {s.target_url}")
            if w.body:
                out.append(w.body.rstrip("\n"))
            for c in w.comments:
                where = (
                    f"{c.path}:{c.start_line}-{c.line}" if c.start_line else f"{c.path}:{c.line}"
                )
                out.append(f"  ▸ inline {where} ({c.side})")
                out.extend("    " + line for line in c.body.rstrip("\n").splitlines())
            out.append("")
        out.append(f"dry run: {len(self.writes)} write(s) recorded, none performed")
        return "\n".join(out) + "\n"

    def to_json(self) -> str:
        return json.dumps([asdict(w) for w in self.writes], ensure_ascii=False, indent=2) + "\n"


def _title(w: Write) -> str:
    if w.kind == "create_review":
        return (
            f"would create a review on {w.repo}#{w.number} at {w.sha} "
            f"with {len(w.comments)} inline comment(s)"
        )
    if w.kind == "create_issue_comment":
        return f"would comment on {w.repo}#{w.number}"
    if w.kind == "edit_issue_comment":
        return f"would edit comment {w.id} in {w.repo}"
    if w.kind == "edit_review_comment":
        return f"would edit review comment {w.id} in {w.repo}"
    context = w.status.context if w.status else "?"
    return f"would set status {context!r} on {w.repo}@{w.sha}"
