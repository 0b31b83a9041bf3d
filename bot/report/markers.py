"""The hidden markers of the bot's pull-request comments, and GitHub's size limit. Pure.

The review (`bot.review.render`) writes them; the review and the advise job
(`bot.advisor.service`) read them back to find the bot's own sticky summary, the
fingerprints of posted inline comments and the head a summary describes. Only
comments written by the bot's own account are trusted to carry them.
"""

from __future__ import annotations

import json
import re

from bot.core.wording import both, say

MAX_BODY = 65_000  # GitHub rejects bodies of 65,536 characters and more

FP_MARK = "<!-- recipe-review:fp={fp} -->"
SUMMARY_MARK = "<!-- recipe-review:summary -->"
SUMMARY_TITLE = "## recipe-review"
REVIEW_MARK = "<!-- recipe-review:review sha={sha} -->"
RESOLVED_MARK = "<!-- recipe-review:resolved -->"
# a finding whose inline comment GitHub refused on this head (422): kept in the summary
REFUSED_MARK = "<!-- recipe-review:refused fp={fp} -->"
_REFUSED_RE = re.compile(r"<!-- recipe-review:refused fp=([0-9a-f]{8,64}) -->")
STATE_MARK = "<!-- recipe-review:state {state} -->"
_FP_RE = re.compile(r"<!-- recipe-review:fp=([0-9a-f]{8,64}) -->")
_REVIEW_RE = re.compile(r"<!-- recipe-review:review sha=([0-9a-f]{7,64}) -->")
_STATE_RE = re.compile(r"<!-- recipe-review:state (\{.*?\}) -->", re.S)


def is_summary_comment(body: str) -> bool:
    """Whether one of the bot's own comments is the sticky summary, by its kind: it starts
    with the summary title and carries the summary marker (a verdict comment, which starts
    with its own marker, never counts, whatever text it quotes)."""
    return (body or "").startswith(SUMMARY_TITLE) and SUMMARY_MARK in body


def fingerprints_in(body: str) -> list[str]:
    return _FP_RE.findall(body or "")


def refused_fingerprints_in(body: str) -> list[str]:
    return _REFUSED_RE.findall(body or "")


def review_shas_in(body: str) -> list[str]:
    return _REVIEW_RE.findall(body or "")


def summary_head(body: str) -> str | None:
    """The head SHA the summary's hidden state describes."""
    m = _STATE_RE.search(body or "")
    try:
        data = json.loads(m.group(1)) if m else None
    except ValueError:
        return None
    head = data.get("head") if isinstance(data, dict) else None
    return head if isinstance(head, str) else None


def state_in(body: str) -> dict[str, list[str]]:
    """The summary's hidden state: fingerprint -> [rule, path, English title]."""
    m = _STATE_RE.search(body or "")
    if not m:
        return {}
    try:
        data = json.loads(m.group(1))
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(k): [str(x) for x in v][:3]
        for k, v in data.get("findings", {}).items()
        if isinstance(v, list)
    }


def truncate(body: str, limit: int = MAX_BODY) -> str:
    if len(body) <= limit:
        return body
    note = f"\n\n…\n\n_{both(say('truncated'))}_"
    markers = "".join(re.findall(r"<!-- recipe-review:[^>]*-->", body))
    if len(markers) > limit // 2:
        markers = "".join(
            m for m in re.findall(r"<!-- recipe-review:[^>]*-->", body) if "state" not in m
        )
    keep = limit - len(note) - len(markers) - 1
    return body[: max(0, keep)] + note + "\n" + markers
