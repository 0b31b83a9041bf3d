"""Webhook deliveries as data: the signature check and what a delivery asks for. No I/O.

`verify_signature` runs over the raw body before anything parses it. `classify`
turns a verified, parsed payload into a `Decision`: review a pull request, answer a
ping, ignore it (with the reason), or record it as malformed. The server and
`bot replay` share it, so a replayed payload is judged exactly as a live one.
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

SIGNATURE_PREFIX = "sha256="
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_DELIVERY = re.compile(r"[A-Za-z0-9_.:-]{1,100}")
_EVENT = re.compile(r"[a-z_]{1,64}")  # event and action names

# pull_request actions that ask for a review; `edited` only when the base branch changed.
REVIEW_ACTIONS = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})


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


Kind = Literal["review", "ping", "ignore", "malformed"]


@dataclass(frozen=True)
class Decision:
    kind: Kind
    reason: str = ""
    action: str | None = None
    pull: PullEvent | None = None


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
) -> Decision:
    """What a verified delivery asks for. Never raises on any payload shape."""
    if not isinstance(payload, dict):
        return Decision("malformed", "payload is not a JSON object")
    action = payload.get("action")
    action = action if isinstance(action, str) and _EVENT.fullmatch(action) else None
    if event == "ping":
        return Decision("ping", "ping", action)
    if event != "pull_request":
        return Decision("ignore", f"event {event}", action)
    if action is None:
        return Decision("malformed", "pull_request delivery without an action")
    sender = payload.get("sender")
    login = _str(sender, "login")
    sender_type = _str(sender, "type")
    if login and is_self(login, sender_type):
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
    if not _REPO.fullmatch(repo):
        raise Malformed("no owner/name repository in the payload")
    installation = payload.get("installation")
    inst_id = installation.get("id") if isinstance(installation, dict) else None
    if not isinstance(inst_id, int) or isinstance(inst_id, bool) or inst_id <= 0:
        inst_id = None
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


def _timestamp(text: str) -> float | None:
    if not text or len(text) > 40:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
