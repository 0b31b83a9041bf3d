"""What a verified delivery may carry into storage: ranges and names checked before persisting.

Pure (no I/O). `bot.server.webhook` uses these checks while it reads a payload, and
`check_record` is the last gate any queue backend can call before it writes: a record
it rejects is stored as `malformed` (400) instead of failing a shared commit.

- Ids (installation, comment, review, pull request numbers) are positive integers
  that JSON, JavaScript, SQLite and PostgreSQL all hold exactly: 1 .. 2**53 - 1
  (GitHub's own ids are JavaScript numbers). `True` is not an id.
- A repository is `owner/name` as GitHub spells one: the owner starts with a letter
  or digit and has letters, digits, `-` or `_` (at most 39 characters); the name has
  letters, digits, `.`, `-`, `_` (at most 100) and is neither `.` nor `..`.
- A head is a 40- or 64-digit lower-case hex commit id.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.server.queue import DeliveryRecord

MAX_ID = 2**53 - 1
MAX_PULL_NUMBER = 2**31 - 1
MAX_SUMMARY_TEXT = 200  # characters of any string kept from a payload summary

_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,38}")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_DELIVERY = re.compile(r"[A-Za-z0-9_.:-]{1,100}")


def valid_id(value: Any, maximum: int = MAX_ID) -> bool:
    """A positive integer id within range (bools are not ids)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= maximum


def valid_repo(full_name: Any) -> bool:
    """`owner/name` as GitHub allows it; `../..`, `a/.` and `a/b/c` are not."""
    if not isinstance(full_name, str) or full_name.count("/") != 1:
        return False
    owner, name = full_name.split("/")
    return (
        _OWNER.fullmatch(owner) is not None
        and _NAME.fullmatch(name) is not None
        and name not in (".", "..")
    )


def valid_sha(value: Any, *, empty_ok: bool = False) -> bool:
    if value == "" and empty_ok:
        return True
    return isinstance(value, str) and _SHA.fullmatch(value) is not None


def _summary_problem(summary: Any) -> str | None:
    """A sign-off delivery summary (`webhook.signoff_event`): small, flat, ids in range."""
    if not isinstance(summary, dict) or len(summary) > 40:
        return "the delivery summary is not a small object"
    for key, value in summary.items():
        if not isinstance(key, str) or len(key) > 40:
            return "the delivery summary has an invalid key"
        if value is None or isinstance(value, bool):
            continue
        if isinstance(value, int):
            if not valid_id(value):
                return f"the delivery summary's {key} is out of range"
        elif isinstance(value, str):
            if len(value) > MAX_SUMMARY_TEXT:
                return f"the delivery summary's {key} is too long"
        else:
            return f"the delivery summary's {key} is not a scalar"
    return None


def check_record(record: DeliveryRecord) -> str | None:
    """Why `record` must not be persisted as it is (None: it may be).

    Run on every record before a queue stores it; the caller then stores a
    `malformed` record with this reason instead (no pull request, no job)."""
    if not _DELIVERY.fullmatch(record.delivery_id):
        return "invalid delivery id"
    if not isinstance(record.size, int) or not 0 <= record.size <= MAX_ID:
        return "invalid body size"
    pull = record.pull
    if pull is not None:
        if not valid_repo(pull.repo):
            return f"invalid repository name {pull.repo[:100]!r}"
        if not valid_id(pull.number, MAX_PULL_NUMBER):
            return "pull request number out of range"
        if not valid_sha(pull.head_sha):
            return "head is not a commit id"
        if pull.installation_id is not None and not valid_id(pull.installation_id):
            return "installation.id out of range"
        if pull.updated_at is not None and not (0 <= pull.updated_at < 2**40):
            return "pull_request.updated_at out of range"
    req = record.signoff
    if req is not None:
        if not valid_repo(req.repo):
            return f"invalid repository name {req.repo[:100]!r}"
        if not valid_id(req.number, MAX_PULL_NUMBER):
            return "pull request number out of range"
        if not valid_sha(req.head_sha, empty_ok=True):
            return "head is not a commit id"
        if req.installation_id is not None and not valid_id(req.installation_id):
            return "installation.id out of range"
        problem = _summary_problem(req.event)
        if problem is not None:
            return problem
    return None
