"""The delivery summaries the sign-off service reads are described by their TypedDict
(`bot.signoff.records.SignoffEvent`): every key the webhook's summaries of real
deliveries (`../shared/webhooks`) carry is declared there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.server.webhook import SIGNOFF_EVENTS, classify, signoff_event
from bot.signoff.records import SignoffEvent

HOOKS = Path(__file__).resolve().parent.parent.parent / "shared" / "webhooks"


DECLARED = set(SignoffEvent.__annotations__)


def _payloads(event: str) -> list[dict[str, Any]]:
    path = HOOKS / f"{event}.json"
    if not path.is_file():
        pytest.skip("../shared/webhooks is absent")
    data = json.loads(path.read_text(encoding="utf-8"))
    return [p for p in (data if isinstance(data, list) else [data]) if isinstance(p, dict)]


@pytest.mark.parametrize("event", sorted(SIGNOFF_EVENTS))
def test_a_comment_summary_has_only_declared_keys(event: str) -> None:
    payloads = _payloads(event)
    assert payloads
    for payload in payloads:
        summary = signoff_event(event, payload)
        assert set(summary) <= DECLARED, set(summary) - DECLARED


def test_a_push_summary_has_only_declared_keys() -> None:
    seen = 0
    for payload in _payloads("pull_request"):
        pushed = {**payload, "action": "synchronize"}
        pushed["pull_request"] = {**pushed.get("pull_request", {}), "state": "open", "draft": False}
        request = classify("pull_request", pushed, signoff=True).signoff
        if request is not None:
            seen += 1
            assert set(request.event) <= DECLARED, set(request.event) - DECLARED
    assert seen
