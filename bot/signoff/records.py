"""The sign-off service's records that cross a JSON boundary, typed. Pure.

Two kinds of JSON reach `bot.signoff.service`:

- `SignoffEvent`: a delivery's summary (`bot.server.webhook.signoff_event` for
  comments and reviews, the pull_request head for pushes), kept in the queue as JSON
  and handed to the service in the order delivered; `bot.server.ingress` checks it is
  small and flat before it is stored;
- `VerdictRecord`: what a verdict comment remembers, written as hidden JSON at its end
  and read back by the next run: the head's push time, the sign-off version it judged,
  and the withdrawals and tampering seen so far (`RecordedAct`).

Both are `TypedDict`s (`total=False`), not dataclasses: they are read from JSON that an
older bot or a queue row wrote, so every key may be missing and the service reads each
with `.get` and a conversion; a record is written back with exactly the keys it had.
"""

from __future__ import annotations

from typing import TypedDict


class SignoffEvent(TypedDict, total=False):
    """One delivery's summary, as the sign-off service reads it."""

    event: str  # pull_request | issue_comment | pull_request_review | pull_request_review_comment
    action: str
    # pull_request: the head and when it was pushed
    head_sha: str
    head_at: str
    # a comment, review or inline comment
    kind: str  # issue | review_summary | review
    id: int | None
    author: str
    author_type: str
    sender: str
    by_author: bool  # the sender is the item's author
    at: str  # the item's version time
    created_at: str
    signoff: bool  # the body holds the sign-off phrase now
    was_signoff: bool  # ... or held it before an edit
    forged: bool
    reuse: bool
    state: str
    commit_id: str


class RecordedAct(TypedDict, total=False):
    """A withdrawal of a sign-off, or an edit of one by someone other than its author."""

    kind: str  # issue | review_summary | review
    id: int
    at: str
    by: str  # who did it
    author: str  # whose comment it was
    # withdrawals only: deleted | dismissed | unsigned | verdict-edited | verdict-deleted
    why: str


class RecordedSignoff(TypedDict, total=False):
    """The sign-off version a verdict judged."""

    kind: str
    id: int
    at: str
    author: str


class VerdictRecord(TypedDict, total=False):
    """The hidden record at the end of a verdict comment."""

    v: int  # 1
    head: str
    head_at: str
    signoff: RecordedSignoff
    result: str  # pass | fail | stale | withdrawn | unsigned
    withdrawals: list[RecordedAct]
    tampered: list[RecordedAct]
