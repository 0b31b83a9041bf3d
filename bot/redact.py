"""Redaction of credentials in text that leaves the process: log lines and stored errors.

Pure. `Redactor(secrets)` replaces, in any text:

- GitHub tokens: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and `github_pat_` (prefix kept);
- JSON Web Tokens (three base64url segments, the first two JSON objects: `eyJ...`),
  such as a GitHub App's signed assertion;
- Anthropic API keys (`sk-ant-...`);
- PEM blocks (`-----BEGIN ... -----` to `-----END ... -----`, or to the end of the
  text when a message was cut inside one), also with `\\n` escapes;
- the value after `Authorization: token|bearer|basic`, `"token": "..."`,
  `access_token=...` and similar key/value spellings;
- every configured secret (the webhook secrets, the token, the App's private key)
  literally, when it is at least `MIN_SECRET` characters long (shorter values would
  erase ordinary words).

`RedactingFormatter` applies it to every formatted log record, tracebacks included.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

MARK = "[REDACTED]"
MIN_SECRET = 6

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]{0,40}-----"
            r"(?:.*?-----END [A-Z0-9 ]{0,40}-----|[A-Za-z0-9+/=\s\\:,-]*)",
            re.S,
        ),
        f"-----{MARK} PEM BLOCK-----",
    ),
    (re.compile(r"\b(github_pat_)[A-Za-z0-9_]{10,}"), rf"\1{MARK}"),
    (re.compile(r"\b(gh[pousr]_)[A-Za-z0-9]{10,}"), rf"\1{MARK}"),
    (re.compile(r"\b(sk-ant-)[A-Za-z0-9_-]{6,}"), rf"\1{MARK}"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), f"{MARK}-JWT"),
    (
        re.compile(
            r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?(?:token|bearer|basic)\s+)[^\s\"',;}]+"
        ),
        rf"\1{MARK}",
    ),
    (
        re.compile(
            r"(?i)([\"']?\b(?:access_token|refresh_token|client_secret|private_key|password"
            r"|secret|token)[\"']?\s*[:=]\s*[\"']?)(?!\[REDACTED)[^\s\"',;}&]{6,}"
        ),
        rf"\1{MARK}",
    ),
)


class Redactor:
    """Callable: `redactor(text)` is `text` without credentials."""

    def __init__(self, secrets: Iterable[str | bytes | None] = ()) -> None:
        literal: set[str] = set()
        for s in secrets:
            if s is None:
                continue
            text = s.decode("utf-8", "replace") if isinstance(s, bytes) else s
            for variant in (text, text.strip()):
                if len(variant) >= MIN_SECRET:
                    literal.add(variant)
                    literal.add(variant.replace("\n", "\\n"))  # as JSON or repr shows it
        self._literal = (
            re.compile("|".join(re.escape(s) for s in sorted(literal, key=len, reverse=True)))
            if literal
            else None
        )

    def __call__(self, text: str) -> str:
        if self._literal is not None:
            text = self._literal.sub(MARK, text)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text


redact = Redactor()  # the patterns only (no configured secrets)


class RedactingFormatter(logging.Formatter):
    """A `logging.Formatter` whose every line (message, arguments, traceback) is redacted."""

    def __init__(self, fmt: str | None = None, *, redactor: Redactor | None = None) -> None:
        super().__init__(fmt)
        self.redactor = redactor or redact

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor(super().format(record))
