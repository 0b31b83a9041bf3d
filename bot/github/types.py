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
from dataclasses import field
from typing import Any, Literal, Protocol, get_args

from bot.base.records import dataclass


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
    # "owner/name" of the repository holding the head branch (a fork's, or `repo`); None
    # when GitHub shows none (the fork was deleted)
    head_repo: str | None = None


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
    external_id: str = ""  # what the App that created it wrote there
    app_slug: str = ""  # the App that created it


@dataclass(frozen=True)
class Annotation:
    """A check run annotation (`output.annotations[]`): lines are 1-based and inclusive;
    columns only on a one-line annotation."""

    path: str
    start_line: int
    end_line: int
    annotation_level: str  # notice | warning | failure
    message: str
    title: str = ""
    raw_details: str = ""
    start_column: int | None = None
    end_column: int | None = None

    @property
    def key(self) -> tuple[str, int, int, str, str]:
        """What tells two annotations apart (GitHub lists them without ids)."""
        return (self.path, self.start_line, self.end_line, self.annotation_level, self.title)

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.annotation_level,
            "message": self.message,
        }
        if self.title:
            item["title"] = self.title
        if self.raw_details:
            item["raw_details"] = self.raw_details
        one_line = self.start_line == self.end_line
        if one_line and self.start_column is not None and self.end_column is not None:
            item["start_column"] = self.start_column
            item["end_column"] = self.end_column
        return item


@dataclass(frozen=True)
class CheckRunAction:
    """A button on a completed check run (`actions[]`); GitHub sends
    `check_run.requested_action` with `identifier` when it is pressed."""

    label: str  # at most 20 characters
    description: str  # at most 40
    identifier: str  # at most 20


@dataclass(frozen=True)
class CheckRunOutput:
    title: str
    summary: str  # Markdown, at most 65,535 characters
    text: str = ""  # Markdown, at most 65,535 characters
    annotations: tuple[Annotation, ...] = ()  # at most 50 per request


@dataclass(frozen=True)
class CheckRun:
    """A check run to create, or the fields of one to update (None: left as it is)."""

    name: str
    head_sha: str
    status: str | None = None  # queued | in_progress | completed
    conclusion: str | None = None  # success | failure | neutral | action_required | ...
    external_id: str | None = None
    details_url: str | None = None
    started_at: str | None = None  # ISO 8601, UTC
    completed_at: str | None = None
    output: CheckRunOutput | None = None
    actions: tuple[CheckRunAction, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The REST body (`POST /check-runs`; an update sends it without `head_sha`):
        the fields that are set."""
        body: dict[str, Any] = {"name": self.name, "head_sha": self.head_sha}
        for key in ("status", "conclusion", "external_id", "details_url", "started_at"):
            value = getattr(self, key)
            if value is not None:
                body[key] = value
        if self.completed_at is not None:
            body["completed_at"] = self.completed_at
        if self.output is not None:
            out: dict[str, Any] = {"title": self.output.title, "summary": self.output.summary}
            if self.output.text:
                out["text"] = self.output.text
            if self.output.annotations:
                out["annotations"] = [a.to_json() for a in self.output.annotations]
            body["output"] = out
        if self.actions is not None:
            body["actions"] = [
                {"label": a.label, "description": a.description, "identifier": a.identifier}
                for a in self.actions
            ]
        return body


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
    check_run_id: int | None = None  # the check run completed for the head
    check_runs_refused: bool = False  # GitHub refused to create one (403: not an App)
    conclusion: str | None = None  # its conclusion
    annotations: int = 0  # annotations sent to it by this run


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

    def check_runs(self, repo: str, sha: str) -> list[CheckRunInfo]:
        """Every check run of commit `sha`, all pages."""

    def check_run_annotations(self, repo: str, check_run_id: int) -> list[Annotation]:
        """The annotations of a check run, all pages."""

    def create_check_run(self, repo: str, run: CheckRun) -> int:
        """Create a check run (a GitHub App only); returns its id."""

    def update_check_run(self, repo: str, check_run_id: int, run: CheckRun) -> None:
        """Update a check run; `run.output.annotations` are appended (50 at most)."""


class SignoffGateway(Gateway, Protocol):
    """What the sign-off gate needs beyond the review: a `Gateway` plus three reads.

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


@dataclass(frozen=True)
class TreeChange:
    """One entry of a new git tree (`POST /git/trees`): a blob at `path`, or (sha None)
    the path deleted."""

    path: str
    sha: str | None
    mode: str = "100644"


class CommitGateway(Gateway, Protocol):
    """What the "Apply safe fixes" action needs beyond the review: the Git Data API."""

    def app_permissions(self, repo: str) -> dict[str, str]:
        """The permissions of the App's installation on `repo` ({"contents": "write", ...},
        from its access token); {} when the credential is not an App's."""

    def file_mode(self, repo: str, path: str, ref: str) -> str | None:
        """The git mode of the file at `path` in `ref` ("100644", "100755"), None when
        there is no such file."""

    def commit_tree(self, repo: str, sha: str) -> str:
        """The SHA of commit `sha`'s tree."""

    def create_blob(self, repo: str, content: bytes) -> str:
        """Store a blob; returns its SHA."""

    def create_tree(self, repo: str, base_tree: str, changes: Sequence[TreeChange]) -> str:
        """A tree: `base_tree` with `changes` applied; returns its SHA."""

    def create_commit(self, repo: str, message: str, tree: str, parents: Sequence[str]) -> str:
        """A commit as the authenticated identity (the App's bot); returns its SHA."""

    def update_ref(self, repo: str, ref: str, sha: str) -> None:
        """Move `ref` ("heads/<branch>") to `sha`, fast-forward only (`force: false`):
        GitHub answers 422 when `sha` does not descend from the ref's commit."""


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
        "create_check_run",
        "update_check_run",
        "create_blob",
        "create_tree",
        "create_commit",
        "update_ref",
    }
)
"""The gateway methods that change GitHub; every other method only reads."""
