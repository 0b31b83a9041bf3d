"""What the bot needs from GitHub, as plain data and Protocols. Pure.

`bot.github.gateway` implements `Gateway` with PyGithub (the only module that
imports it); tests use the same gateway against a fake GitHub on loopback.
The review pipeline and the webhook worker see only this interface.

This file is the table of gateway methods: their signatures (`Gateway`,
`SignoffGateway`, `OptionalReads`) and which of them write (`WRITES`).
`bot.github.calls` reads it, so the dry run, the service's hooks (metrics,
deadline, shared pacing) and the test fakes need no code per method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args


class GitHubError(Exception):
    """A GitHub call failed. `status` is the HTTP status (0 when no response); `request`
    the request that failed ("POST /app/installations/7/access_tokens"), when known."""

    def __init__(
        self,
        message: str,
        status: int = 0,
        retry_after: float | None = None,
        request: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.request = request

    @property
    def token_exchange(self) -> bool:
        """The installation token could not be had (not the request it was for)."""
        return self.request.startswith("POST /app/installations/")

    @property
    def transient(self) -> bool:
        """Worth retrying later: server errors, rate limits, no response."""
        return (
            self.status == 0
            or self.status >= 500
            or (self.status in (403, 429) and (self.retry_after is not None))
        )


@dataclass(frozen=True)
class PullInfo:
    repo: str  # "owner/name" of the base repository
    number: int
    head_sha: str
    base_sha: str
    base_ref: str
    head_ref: str
    author: str
    draft: bool = False
    state: str = "open"
    html_url: str = ""
    title: str = ""  # what the author wrote: hostile input (the advisor quotes it as data)
    body: str = ""
    changed_files: int | None = None  # every file the PR changes (GitHub lists 3,000 at most)


@dataclass(frozen=True)
class PullFile:
    path: str
    status: str  # added | modified | removed | renamed | copied | changed | unchanged
    previous_path: str | None = None
    patch: str | None = None


@dataclass(frozen=True)
class Comment:
    """An existing comment: conversation (issue) comment or inline review comment."""

    id: int
    body: str
    author: str
    path: str | None = None
    line: int | None = None
    in_reply_to: int | None = None
    # a conversation comment, an inline review comment, or a review's own body
    kind: Literal["issue", "review", "review_summary"] = "issue"
    html_url: str = ""
    # GitHub's timestamps, ISO 8601 as sent ("" when unknown); a review has no
    # updated_at, so both carry its submitted_at
    created_at: str = ""
    updated_at: str = ""
    author_type: str = ""  # "User" | "Bot" | "Organization" | "" unknown
    state: str = ""  # reviews: APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED | PENDING
    commit_id: str = ""  # reviews and inline comments: the commit they were made on


@dataclass(frozen=True)
class ReviewComment:
    """An inline comment to post in a review (RIGHT side unless stated)."""

    path: str
    line: int
    body: str
    start_line: int | None = None
    side: Literal["LEFT", "RIGHT"] = "RIGHT"


StatusState = Literal["success", "failure", "pending", "error"]


def status_state(text: str) -> StatusState | None:
    """`text` as a commit status state; None when GitHub documents no such state."""
    return next((s for s in get_args(StatusState) if s == text), None)


@dataclass(frozen=True)
class Status:
    state: StatusState
    context: str
    description: str
    target_url: str | None = None


@dataclass(frozen=True)
class CheckRunInfo:
    """One check run of a commit (GET /commits/{sha}/check-runs)."""

    name: str
    status: str  # queued | in_progress | completed
    conclusion: (
        str | None
    )  # success | failure | skipped | neutral | cancelled | ... (None: running)
    head_sha: str
    details_url: str = ""
    id: int | None = None


PERMISSIONS = ("admin", "maintain", "write", "triage", "read", "none")


@dataclass
class Posted:
    """What one review run wrote (for logs, metrics and tests)."""

    review_id: int | None = None
    inline: int = 0
    summary_comment_id: int | None = None
    resolved: int = 0
    status: Status | None = None
    skipped: list[str] = field(default_factory=list)
    head_sha: str | None = None  # the head GitHub showed: the one reviewed (or skipped)
    # inline comments GitHub refused (a 422 on the review): listed in the summary instead
    refused: int = 0
    partial: bool = False  # GitHub listed only part of the PR's files


class Gateway(Protocol):
    def login(self) -> str:
        """The bot's own account login (from GET /user or GET /app)."""

    def pull(self, repo: str, number: int) -> PullInfo: ...

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        """The PR's changed files, all pages (GitHub caps the list at 3,000)."""

    def merge_base(self, repo: str, base: str, head: str) -> str:
        """The merge-base commit of two commits (GET /compare/{base}...{head})."""

    def tree_paths(self, repo: str, ref: str) -> list[str]:
        """Every file path at `ref` (recursive git tree)."""

    def read(self, repo: str, path: str, ref: str) -> bytes | None:
        """A file's bytes at `ref`, or None when it does not exist there."""

    def blob_id(self, repo: str, path: str, ref: str) -> str | None: ...

    def issue_comments(self, repo: str, number: int) -> list[Comment]: ...

    def review_comments(self, repo: str, number: int) -> list[Comment]: ...

    def reviews(self, repo: str, number: int) -> list[Comment]:
        """Submitted reviews (body and author), as Comment(kind="review_summary")."""

    def create_review(
        self, repo: str, number: int, commit_sha: str, body: str, comments: Sequence[ReviewComment]
    ) -> int: ...

    def create_issue_comment(self, repo: str, number: int, body: str) -> int: ...

    def edit_issue_comment(self, repo: str, comment_id: int, body: str) -> None: ...

    def edit_review_comment(self, repo: str, comment_id: int, body: str) -> None: ...

    def set_status(self, repo: str, sha: str, status: Status) -> None: ...


class SignoffGateway(Gateway, Protocol):
    """What the sign-off gate needs beyond the review: a `Gateway` plus four reads.

    A separate Protocol, so every existing `Gateway` (the dry run, test doubles)
    stays one; `bot.github.gateway.PyGithubGateway` implements both.
    """

    def collaborator_permission(self, repo: str, user: str) -> str | None:
        """`user`'s role on `repo`: admin | maintain | write | triage | read | none.

        "none" when GitHub says so or does not know the user (404); None when the
        permission cannot be read (403 or another permanent error). A transient
        failure raises `GitHubError` (the job is retried)."""

    def team_membership(self, repo: str, org: str, team_slug: str, user: str) -> bool | None:
        """Is `user` an active member of `org`/`team_slug`? False on 404 or a pending
        membership; None when it cannot be read (403, another permanent error).
        `repo` picks the App installation to ask with."""

    def pull_commits(self, repo: str, number: int) -> list[str]:
        """The SHAs of the PR's commits, oldest first, all pages (GitHub lists at most 250)."""

    def check_runs(self, repo: str, sha: str) -> list[CheckRunInfo]:
        """Every check run of commit `sha`, all pages."""


class OptionalReads(Protocol):
    """Reads a gateway may lack: callers ask `getattr(gateway, name, None)` first."""

    def org_membership(self, repo: str, org: str, user: str) -> bool | None:
        """Is `user` a member of `org`? None when GitHub will not say."""


WRITES = frozenset(
    {
        "create_review",
        "create_issue_comment",
        "edit_issue_comment",
        "edit_review_comment",
        "set_status",
    }
)
"""The gateway methods that change GitHub; every other method only reads."""
