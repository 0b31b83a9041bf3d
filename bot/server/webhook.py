"""Webhook deliveries as data: the signature check and what a delivery asks for. No I/O.

`verify_signature` runs over the raw body before anything parses it. `classify`
turns a verified, parsed payload into a `Decision`: review a pull request, answer a
ping, ignore it (with the reason), or record it as malformed. The server and
`bot replay` share it, so a replayed payload is judged exactly as a live one.

With `signoff=True` it also routes the CODEOWNER sign-off gate (`bot.signoff.service`):
comment, review and inline-comment events that create, edit, delete or dismiss a
sign-off (or post a `/reuse-sweep-run` command, or carry a verdict marker or
"Verdict: PASS" text: a forgery to report) become a `signoff` decision, and a new head
(`synchronize`, `reopened`, `ready_for_review`, a base change) adds a sign-off request
to the review. `signoff_event` keeps what the service needs from the payload (who
wrote, who sent, when, whether it was a sign-off before and after), never the body.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from urllib.parse import parse_qs

from bot.review.checkrun import FIX_ACTION
from bot.server.ingress import valid_id, valid_repo
from bot.signoff.detect import has_phrase, has_reuse_sweep

SIGNATURE_PREFIX = "sha256="
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_DELIVERY = re.compile(r"[A-Za-z0-9_.:-]{1,100}")
# event and action names: GitHub's have digits too (`projects_v2_item`, `projects_v2`)
_EVENT = re.compile(r"[a-z][a-z0-9_]{0,63}")

# pull_request actions that ask for a review; `edited` only when the base branch changed.
REVIEW_ACTIONS = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})
# ... and, of those, the ones that give the sign-off gate a head to (re)judge
SIGNOFF_PULL_ACTIONS = frozenset({"reopened", "synchronize", "ready_for_review", "edited"})
# comment-like events the sign-off gate follows: event -> (actions, payload key of the item)
SIGNOFF_EVENTS: dict[str, tuple[frozenset[str], str]] = {
    "issue_comment": (frozenset({"created", "edited", "deleted"}), "comment"),
    "pull_request_review": (frozenset({"submitted", "edited", "dismissed"}), "review"),
    "pull_request_review_comment": (frozenset({"created", "edited", "deleted"}), "comment"),
}
ITEM_KINDS = {  # the `Comment.kind` each event's item is
    "issue_comment": "issue",
    "pull_request_review": "review_summary",
    "pull_request_review_comment": "review",
}
VERDICT_MARK_PREFIX = "<!-- codeowner-signoff-verify"
_FORGED = re.compile(r"codeowner-signoff-verify|verdict\W{0,8}pass", re.I)
_LOGIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\[bot\])?")
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def sign(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for `body` (used by tests and benchmarks)."""
    return SIGNATURE_PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify_signature(header: str | None, body: bytes, secrets: Sequence[bytes]) -> str | None:
    """None when `header` is a valid signature of `body` under one of `secrets`, else why not.

    Every secret is compared in constant time (no early exit on the first match), so
    timing does not reveal which secret matched or how much of the digest did.
    """
    if not secrets:
        return "no webhook secret configured"
    if not header:
        return "missing X-Hub-Signature-256"
    if not header.startswith(SIGNATURE_PREFIX):
        return "X-Hub-Signature-256 lacks the sha256= prefix"
    digest = header[len(SIGNATURE_PREFIX) :].strip().lower()
    if not _HEX64.fullmatch(digest):
        return "X-Hub-Signature-256 is not a SHA-256 hex digest"
    matched = False
    for secret in secrets:
        expected = hmac.new(secret, body, hashlib.sha256).hexdigest()
        matched |= hmac.compare_digest(expected, digest)
    return None if matched else "signature does not match"


@dataclass(frozen=True)
class PullEvent:
    """The part of a pull_request delivery the queue needs."""

    repo: str
    number: int
    head_sha: str
    updated_at: float | None  # pull_request.updated_at as a Unix time: orders heads
    installation_id: int | None
    sender: str
    draft: bool


@dataclass(frozen=True)
class SignoffRequest:
    """A sign-off job to queue: the PR and the delivery's summary (`signoff_event`)."""

    repo: str
    number: int
    installation_id: int | None
    head_sha: str  # "" when the payload names no head (issue_comment)
    event: dict[str, Any]


Kind = Literal["review", "signoff", "fix", "ping", "ignore", "malformed"]


@dataclass(frozen=True)
class Decision:
    kind: Kind
    reason: str = ""
    action: str | None = None
    pull: PullEvent | None = None
    # kind "signoff", or kind "review" of a new head that the sign-off gate judges too
    signoff: SignoffRequest | None = None


class Malformed(ValueError):
    pass


def parse_body(body: bytes, content_type: str | None) -> Any:
    """The JSON payload of a delivery (JSON, or form-encoded `payload=`). Raises Malformed."""
    raw: str | bytes = body
    if content_type and content_type.split(";")[0].strip().lower() == (
        "application/x-www-form-urlencoded"
    ):
        try:
            fields = parse_qs(body.decode("utf-8"), strict_parsing=False, max_num_fields=10)
        except (UnicodeDecodeError, ValueError) as exc:
            raise Malformed(f"form body: {exc}") from None
        if "payload" not in fields:
            raise Malformed("form body without a payload field")
        raw = fields["payload"][0]
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise Malformed(f"not JSON: {str(exc)[:200]}") from None


def valid_delivery_id(value: str | None) -> bool:
    return bool(value) and _DELIVERY.fullmatch(value or "") is not None


def valid_event_name(value: str | None) -> bool:
    return bool(value) and _EVENT.fullmatch(value or "") is not None


def classify(
    event: str,
    payload: Any,
    *,
    review_drafts: bool = False,
    is_self: Callable[[str, str], bool] = lambda login, kind: False,
    signoff: bool = False,
    check_run: str | None = None,
) -> Decision:
    """What a verified delivery asks for. Never raises on any payload shape.

    `signoff`: route the sign-off gate's events too (`BOT_SIGNOFF_ENABLED`).
    `check_run`: the name of the review's check run (`BOT_CHECK_RUN_NAME`), whose
    "Re-run" (`check_run`/`check_suite` `rerequested`) queues a review of its head and
    whose "Apply safe fixes" button (`requested_action`) a fix job; None: check
    events are ignored."""
    if not isinstance(payload, dict):
        return Decision("malformed", "payload is not a JSON object")
    action = payload.get("action")
    action = action if isinstance(action, str) and _EVENT.fullmatch(action) else None
    if event == "ping":
        return Decision("ping", "ping", action)
    if signoff and event in SIGNOFF_EVENTS:
        return _classify_signoff(event, action, payload, is_self)
    if check_run is not None and event in ("check_run", "check_suite"):
        return _classify_check(event, action, payload, check_run, is_self)
    if event != "pull_request":
        return Decision("ignore", f"event {event}", action)
    decision = _classify_pull(event, action, payload, review_drafts, is_self)
    if (
        signoff
        and decision.kind == "review"
        and decision.pull is not None
        and not decision.pull.draft
        and action in SIGNOFF_PULL_ACTIONS
    ):
        pull = decision.pull
        summary = {
            "event": event,
            "action": action,
            "sender": pull.sender,
            "head_sha": pull.head_sha,
            "head_at": _iso(_str(payload.get("pull_request"), "updated_at")),
        }
        request = SignoffRequest(
            pull.repo, pull.number, pull.installation_id, pull.head_sha, summary
        )
        return Decision(decision.kind, decision.reason, action, pull, request)
    return decision


_EXTERNAL = re.compile(r"(\d{1,10})(?::[A-Za-z0-9_.-]{1,60})?")


def _check_pull_number(obj: dict[str, Any], repo_id: Any) -> int | None:
    """The pull request a check run or suite is for: the first one of this repository
    its payload lists, else (a check run of a fork's pull request, whose payload lists
    none) the number our App wrote in its `external_id`."""
    pulls = obj.get("pull_requests")
    for pr in pulls if isinstance(pulls, list) else []:
        if not isinstance(pr, dict):
            continue
        base = pr.get("base")
        base_repo = base.get("repo") if isinstance(base, dict) else None
        same = not isinstance(base_repo, dict) or base_repo.get("id") in (None, repo_id)
        number = pr.get("number")
        if same and isinstance(number, int) and valid_id(number, 2**31 - 1):
            return number
    m = _EXTERNAL.fullmatch(_str(obj, "external_id"))
    if m and 0 < int(m.group(1)) < 2**31:
        return int(m.group(1))
    return None


def _classify_check(
    event: str,
    action: str | None,
    payload: dict[str, Any],
    name: str,
    is_self: Callable[[str, str], bool],
) -> Decision:
    """`check_run`/`check_suite` `rerequested` (GitHub's "Re-run" buttons) → a review of
    that head, queued like a push; `check_run.requested_action` "apply-safe-fixes" → a fix
    job for that head. Only the review's own check run counts (by name)."""
    if action is None:
        return Decision("malformed", f"{event} delivery without an action")
    wanted = {"check_run": ("rerequested", "requested_action"), "check_suite": ("rerequested",)}
    if action not in wanted[event]:
        return Decision("ignore", f"action {action}", action)
    obj = payload.get(event)
    if not isinstance(obj, dict):
        return Decision("malformed", f"{event} delivery without a {event} object")
    if event == "check_run" and _str(obj, "name") != name:
        return Decision("ignore", "another check run", action)
    sender = payload.get("sender")
    login = _str(sender, "login")
    if login and is_self(login, _str(sender, "type")):
        return Decision("ignore", "sent by the bot itself", action)
    if action == "requested_action":
        requested = payload.get("requested_action")
        if _str(requested, "identifier") != FIX_ACTION:
            return Decision("ignore", "an action this bot does not offer", action)
    repository = payload.get("repository")
    repo = _str(repository, "full_name")
    if not valid_repo(repo):
        return Decision("malformed", "no valid owner/name repository in the payload")
    head_sha = _str(obj, "head_sha").lower()
    if not _SHA.fullmatch(head_sha):
        return Decision("malformed", f"{event}.head_sha is not a commit id")
    repo_id = repository.get("id") if isinstance(repository, dict) else None
    number = _check_pull_number(obj, repo_id)
    if number is None:
        return Decision("ignore", f"the {event} names no pull request", action)
    try:
        inst_id = _installation_id(payload)
    except Malformed as exc:
        return Decision("malformed", str(exc), action)
    # orders this request among the pull request's heads like a delivery's updated_at:
    # the run's completion (or start), the suite's last update
    stamp = _str(obj, "completed_at") or _str(obj, "started_at") or _str(obj, "updated_at")
    pull = PullEvent(repo, number, head_sha, _timestamp(stamp), inst_id, login[:100], False)
    kind: Kind = "fix" if action == "requested_action" else "review"
    return Decision(kind, f"{event}.{action}", action, pull)


def _classify_pull(
    event: str,
    action: str | None,
    payload: dict[str, Any],
    review_drafts: bool,
    is_self: Callable[[str, str], bool],
) -> Decision:
    if action is None:
        return Decision("malformed", "pull_request delivery without an action")
    sender = payload.get("sender")
    login = _str(sender, "login")
    sender_type = _str(sender, "type")
    if login and is_self(login, sender_type) and action != "synchronize":
        # the bot's own push (the "Apply safe fixes" commit) is a new head to review
        return Decision("ignore", "sent by the bot itself", action)
    if action == "edited":
        changes = payload.get("changes")
        if not (isinstance(changes, dict) and "base" in changes):
            return Decision("ignore", "action edited without a base change", action)
    elif action not in REVIEW_ACTIONS:
        return Decision("ignore", f"action {action}", action)
    try:
        pull = _pull_event(payload, login)
    except Malformed as exc:
        return Decision("malformed", str(exc), action)
    pr = payload["pull_request"]
    if pr.get("state", "open") != "open":
        return Decision("ignore", "pull request is not open", action, pull)
    if pull.draft and not review_drafts:
        return Decision("ignore", "draft pull request", action, pull)
    return Decision("review", f"{event}.{action}", action, pull)


def _str(obj: Any, key: str) -> str:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else ""


def _iso(text: str) -> str:
    return text if len(text) <= 40 and _ISO.fullmatch(text) else ""


def _login(obj: Any) -> str:
    login = _str(obj, "login")
    return login if _LOGIN.fullmatch(login) else ""


def _forged(body: str) -> bool:
    """Text only the bot's own verdict may carry: its marker, or "Verdict: PASS"."""
    return _FORGED.search(body[:200_000]) is not None


def signoff_event(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The part of a comment, review or inline-comment delivery the sign-off service reads.

    `signoff`/`was_signoff`: the body holds the sign-off phrase now / held it before an
    edit (`changes.body.from`); `by_author`: the sender is the item's author (an edit or
    deletion by anyone else is tampering); `at`: the item's version time (updated_at, a
    review's submitted_at); `forged`: the body carries the verdict marker or "Verdict:
    PASS"; `reuse`: a `/reuse-sweep-run` command. Bounded: no body is kept."""
    key = SIGNOFF_EVENTS[event][1]
    item = payload.get(key)
    item = item if isinstance(item, dict) else {}
    body = item.get("body")
    body = body if isinstance(body, str) else ""
    changes = payload.get("changes")
    before = changes.get("body") if isinstance(changes, dict) else None
    before_body = before.get("from") if isinstance(before, dict) else None
    author = _login(item.get("user"))
    sender = _login(payload.get("sender"))
    item_id = item.get("id")
    at = _iso(_str(item, "updated_at")) or _iso(_str(item, "submitted_at"))
    summary: dict[str, Any] = {
        "event": event,
        "action": _str(payload, "action"),
        "kind": ITEM_KINDS[event],
        "id": item_id if valid_id(item_id) else None,
        "author": author,
        "author_type": _str(item.get("user"), "type")[:20],
        "sender": sender,
        "by_author": bool(author) and author.lower() == sender.lower(),
        "at": at,
        "created_at": _iso(_str(item, "created_at")) or at,
        "signoff": has_phrase(body),
        "was_signoff": isinstance(before_body, str) and has_phrase(before_body),
        "forged": _forged(body),
        "reuse": has_reuse_sweep(body),
        "state": _str(item, "state").upper()[:30],
        "commit_id": _str(item, "commit_id").lower()[:64],
    }
    return summary


def _classify_signoff(
    event: str, action: str | None, payload: dict[str, Any], is_self: Callable[[str, str], bool]
) -> Decision:
    actions, _ = SIGNOFF_EVENTS[event]
    if action is None:
        return Decision("malformed", f"{event} delivery without an action")
    if action not in actions:
        return Decision("ignore", f"action {action}", action)
    sender = payload.get("sender")
    login = _str(sender, "login")
    if login and is_self(login, _str(sender, "type")):
        return Decision("ignore", "sent by the bot itself", action)
    if event == "issue_comment":
        issue = payload.get("issue")
        if not isinstance(issue, dict) or "pull_request" not in issue:
            return Decision("ignore", "comment on an issue, not a pull request", action)
        pr: Any = issue
        head_sha = ""
    else:
        pr = payload.get("pull_request")
        if not isinstance(pr, dict):
            return Decision("malformed", f"{event} delivery without a pull_request object")
        head_sha = _str(pr.get("head"), "sha").lower()
        head_sha = head_sha if _SHA.fullmatch(head_sha) else ""
    number = pr.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or not 0 < number < 2**31:
        return Decision("malformed", f"{event}: the pull request number is not a positive integer")
    repo = _str(payload.get("repository"), "full_name")
    if not valid_repo(repo):
        return Decision("malformed", "no valid owner/name repository in the payload")
    if pr.get("state", "open") != "open":
        return Decision("ignore", "pull request is not open", action)
    if pr.get("draft") is True:
        return Decision("ignore", "draft pull request", action)
    summary = signoff_event(event, payload)
    if summary["author"] and is_self(summary["author"], summary["author_type"]):
        # the bot's own comment changed by someone else: its verdict is no longer its own
        if not summary["by_author"]:
            summary["forged"] = True
        else:
            return Decision("ignore", "the bot's own comment", action)
    relevant = summary["signoff"] or summary["was_signoff"] or summary["forged"] or summary["reuse"]
    if not relevant:
        return Decision("ignore", "not a sign-off", action)
    try:
        inst_id = _installation_id(payload)
    except Malformed as exc:
        return Decision("malformed", str(exc), action)
    request = SignoffRequest(repo, number, inst_id, head_sha, summary)
    return Decision("signoff", f"{event}.{action}", action, None, request)


def _pull_event(payload: dict[str, Any], sender: str) -> PullEvent:
    pr = payload.get("pull_request")
    if not isinstance(pr, dict):
        raise Malformed("pull_request delivery without a pull_request object")
    number = pr.get("number", payload.get("number"))
    if not isinstance(number, int) or isinstance(number, bool) or not 0 < number < 2**31:
        raise Malformed("pull_request.number is not a positive integer")
    head = pr.get("head")
    head_sha = _str(head, "sha").lower()
    if not _SHA.fullmatch(head_sha):
        raise Malformed("pull_request.head.sha is not a commit id")
    base = pr.get("base")
    repo = _str(base.get("repo") if isinstance(base, dict) else None, "full_name")
    repo = repo or _str(payload.get("repository"), "full_name")
    if not valid_repo(repo):
        raise Malformed("no valid owner/name repository in the payload")
    inst_id = _installation_id(payload)
    updated = _timestamp(_str(pr, "updated_at"))
    return PullEvent(
        repo=repo,
        number=number,
        head_sha=head_sha,
        updated_at=updated,
        installation_id=inst_id,
        sender=sender[:100],
        draft=pr.get("draft") is True,
    )


def _installation_id(payload: dict[str, Any]) -> int | None:
    """`installation.id`: None when absent; an integer out of range is malformed (it
    cannot be stored, and no installation has it)."""
    installation = payload.get("installation")
    inst_id = installation.get("id") if isinstance(installation, dict) else None
    if inst_id is None or isinstance(inst_id, bool) or not isinstance(inst_id, int):
        return None
    if not valid_id(inst_id):
        raise Malformed("installation.id is out of range")
    return inst_id


def _timestamp(text: str) -> float | None:
    if not text or len(text) > 40:
        return None
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):  # OverflowError: year 9999 west of UTC
        return None
    return stamp if 0 <= stamp < 2**40 else None
