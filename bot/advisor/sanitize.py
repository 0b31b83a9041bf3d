"""Sanitising text on its way into a prompt, and model output on its way out. Pure.

Into a prompt (`sanitize_input`), as claude-code-action does for PR text: HTML comments,
zero-width, bidi and other invisible or control characters, image alt text, link titles,
hidden HTML attributes and HTML entities are removed or normalised, and tokens and keys
are redacted (`redact`). Out of the model (`clean_output`): every HTML comment, tag and
marker-like text (`recipe-review:`, `codeowner-signoff-verify`) is stripped, so nothing the
model writes can pass for one of the bot's hidden markers.
"""

from __future__ import annotations

import html
import re
import unicodedata

# zero-width, joiners, word joiner, BOM, soft hyphen, bidi embeddings/overrides/isolates,
# the Mongolian vowel separator, invisible operators and the tag block (U+E0000..)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]"
)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]*)(?:\s+[\"'(][^)]*[\"')])?\)")
# (titles may be backslash-quoted when the markdown sits inside a YAML or bash string)
_LINK_TITLE = re.compile(r"(\[[^\]]*\]\([^)\s]*)\s+(?:\\?\"[^\"]*?\\?\"|'[^']*'|\([^)]*\))\)")
_REF_TITLE = re.compile(r"^(\s*\[[^\]]+\]:\s*\S+)\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\))\s*$", re.M)
_HIDDEN_ATTR = re.compile(
    r"\s(?:alt|title|aria-label|aria-description|data-[\w-]+|placeholder)\s*=\s*"
    r"(?:\"[^\"]*\"|'[^']*'|[^\s>]+)",
    re.I,
)
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")

# secrets: GitHub tokens, Anthropic/OpenAI keys, AWS keys, Slack tokens, bearer/basic
# credentials, `key = value` assignments of secret-looking names, and PEM private keys
_SECRETS = (
    re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{10,}"),
    re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"),
    re.compile(r"(?i)\b(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=\-]{16,}"),
    re.compile(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S
    ),
    re.compile(
        r"(?i)((?:api[_-]?key|secret|password|passwd|token|access[_-]?key|auth)"
        r"[\w-]*\s*[:=]\s*)([\"']?)[^\s\"']{8,}\2"
    ),
)
REDACTED = "[REDACTED]"

# what the bot's hidden markers look like, in any spelling the model might echo
# (and the target repository's verifier verdict, which a status was once derived from)
_MARKER_WORDS = re.compile(
    r"(?i)recipe[\s_-]*review\s*:|codeowner[\s_-]*signoff[\s_-]*verify(?:[\s_-]*record)?|"
    r"verdict\W{0,8}pass"
)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<!|-->")


def redact(text: str) -> str:
    """`text` with tokens, keys and credentials replaced by [REDACTED]."""
    for pattern in _SECRETS[:-1]:
        text = pattern.sub(REDACTED, text)
    return _SECRETS[-1].sub(lambda m: m.group(1) + REDACTED, text)


def _entity(m: re.Match[str]) -> str:
    decoded = html.unescape(m.group(0))
    if decoded == m.group(0):
        return decoded
    if len(decoded) == 1 and (
        _INVISIBLE.match(decoded) or _CONTROL.match(decoded) or decoded in "<>"
    ):
        return ""
    return decoded


def strip_invisible(text: str) -> str:
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub("", text)
    # any remaining format (Cf) or private-use character
    return "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Co", "Cs"))


def sanitize_input(text: str) -> str:
    """PR text made safe to quote in a prompt (claude-code-action's sanitiser, and redaction)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _HTML_COMMENT.sub("", text)
    text = strip_invisible(text)
    text = _IMAGE.sub(r"![](\1)", text)
    text = _LINK_TITLE.sub(r"\1)", text)
    text = _REF_TITLE.sub(r"\1", text)
    text = _HIDDEN_ATTR.sub("", text)
    for _ in range(3):  # double-encoded entities
        new = _ENTITY.sub(_entity, text)
        if new == text:
            break
        text = new
    text = _HTML_COMMENT.sub("", text)  # comments spelled with entities
    text = strip_invisible(text)
    return redact(text)


def has_marker(text: str) -> bool:
    return bool(_MARKER_WORDS.search(text) or "<!--" in text or "-->" in text)


def clean_output(text: str) -> str:
    """Model output with every HTML comment, tag and marker-like text removed."""
    text = strip_invisible(text)
    text = html.unescape(text)
    text = _HTML_COMMENT.sub("", text)
    text = strip_invisible(text)
    prev = None
    while prev != text:
        prev = text
        text = _TAG.sub("", text)
        text = _MARKER_WORDS.sub("", text)
    return redact(text).replace("<", "‹").replace(">", "›")
