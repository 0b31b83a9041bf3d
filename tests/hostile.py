"""Hostile deliveries for the reliability battery (not a test module; the benchmark uses it too).

- `schema_payloads(event_defs)`: a Hypothesis strategy that walks the octokit webhook
  JSON Schema (`../shared/webhooks/octokit-webhooks-schema.json`) and builds payloads
  of those event shapes, every value possibly swapped for a hostile one (ids of 2**70,
  negative numbers, `../..` names, NUL bytes, wrong types, huge strings);
- `garbage()`: raw bytes, truncated or nested JSON, form bodies, invalid UTF-8;
- `signature_mutations(secret, body)`: wrong signatures for one body (bit flips,
  truncation, other secrets, other algorithms, case and whitespace games, repeats).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from bot.server.webhook import sign

SCHEMA = Path(__file__).resolve().parents[1].parent / "shared" / "webhooks"
SCHEMA_FILE = SCHEMA / "octokit-webhooks-schema.json"

# the events the bot reads, and others it must ignore cleanly
EVENT_DEFS = (
    "pull_request$opened",
    "pull_request$synchronize",
    "pull_request$reopened",
    "pull_request$edited",
    "pull_request$ready_for_review",
    "pull_request$closed",
    "issue_comment$created",
    "issue_comment$edited",
    "issue_comment$deleted",
    "pull_request_review$submitted",
    "pull_request_review$dismissed",
    "pull_request_review_comment$created",
    "ping$event",
    "installation$created",
)

HOSTILE: tuple[Any, ...] = (
    2**70,
    2**63,
    2**63 - 1,
    2**53,
    -(2**63) - 1,
    -1,
    0,
    1e308,
    -0.0,
    True,
    False,
    None,
    "",
    "../..",
    "a/..",
    "../../etc/passwd",
    "owner/name/extra",
    "\x00",
    "a\x00b/c",
    "\ud7ff" * 3,
    "9" * 400,
    "x" * 5000,
    "0" * 40,
    "G" * 40,
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00Z",
    "NaN",
    [],
    {},
    [[[[[]]]]],
    {"id": 2**70},
    {"login": "../.."},
)


def load_schema() -> dict[str, Any] | None:
    if not SCHEMA_FILE.is_file():
        return None
    data: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return data


def event_name(definition: str) -> str:
    return definition.split("$", 1)[0]


def _merge(parts: tuple[Any, ...]) -> Any:
    if all(isinstance(p, dict) for p in parts):
        out: dict[str, Any] = {}
        for p in parts:
            out.update(p)
        return out
    return parts[-1]


class _Walker:
    """Schema node -> strategy, memoised per (node, depth); hostile swaps at every level."""

    def __init__(self, schema: dict[str, Any], max_depth: int = 7) -> None:
        self.defs: dict[str, Any] = schema["definitions"]
        self.max_depth = max_depth
        self.hostile = st.sampled_from(HOSTILE)

    def node(self, schema: Any, depth: int) -> st.SearchStrategy[Any]:
        plain = self._plain(schema, depth)
        if depth == 0:
            return plain
        # mostly the schema's own shape, sometimes a hostile value in its place
        return st.one_of(plain, plain, plain, self.hostile)

    def _plain(self, schema: Any, depth: int) -> st.SearchStrategy[Any]:
        if not isinstance(schema, dict):
            return st.none()
        if depth > self.max_depth:
            return st.one_of(st.none(), st.integers(-5, 2**40), st.text(max_size=8))
        if "$ref" in schema:
            name = str(schema["$ref"]).rsplit("/", 1)[-1]
            return st.deferred(lambda: self._plain(self.defs.get(name, {}), depth + 1))
        if "enum" in schema:
            return st.sampled_from(list(schema["enum"]) or [None])
        if "const" in schema:
            return st.just(schema["const"])
        for key in ("oneOf", "anyOf"):
            if schema.get(key):
                return st.one_of(*(self._plain(s, depth + 1) for s in schema[key]))
        if schema.get("allOf"):
            parts = [self._plain(s, depth + 1) for s in schema["allOf"]]
            return st.tuples(*parts).map(_merge)
        kind = schema.get("type")
        if isinstance(kind, list):
            return st.one_of(*(self._plain({**schema, "type": k}, depth) for k in kind))
        if kind == "object" or "properties" in schema:
            props: dict[str, Any] = schema.get("properties", {})
            required = [k for k in schema.get("required", []) if k in props]
            optional = [k for k in props if k not in required][:8]
            return st.fixed_dictionaries(
                {k: self.node(props[k], depth + 1) for k in required},
                optional={k: self.node(props[k], depth + 1) for k in optional},
            )
        if kind == "array":
            return st.lists(self.node(schema.get("items", {}), depth + 1), max_size=3)
        if kind == "integer":
            return st.integers(min_value=-(2**64), max_value=2**64)
        if kind == "number":
            return st.floats(allow_nan=False)
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        if kind == "string":
            fmt = schema.get("format")
            if fmt == "date-time":
                return st.datetimes().map(lambda d: d.isoformat() + "Z")
            if fmt == "uri":
                return st.sampled_from(["https://github.com/o/r", "", "javascript:x"])
            return st.text(max_size=24)
        return st.one_of(st.none(), st.integers(), st.text(max_size=8))


def schema_payloads(
    schema: dict[str, Any], definitions: tuple[str, ...] = EVENT_DEFS
) -> st.SearchStrategy[tuple[str, Any]]:
    """(event name, payload) pairs generated from the octokit schema's event definitions."""
    walker = _Walker(schema)
    return st.one_of(
        *(
            st.tuples(st.just(event_name(d)), walker.node(schema["definitions"][d], 0))
            for d in definitions
            if d in schema["definitions"]
        )
    )


def garbage() -> st.SearchStrategy[bytes]:
    """Bodies that are not a well-formed JSON object."""
    return st.one_of(
        st.binary(max_size=512),
        st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.sampled_from(
            [
                b"",
                b"{",
                b"[" * 5000 + b"]" * 5000,
                b'{"a":' * 3000 + b"1" + b"}" * 3000,
                b"\xff\xfe{}",
                b"null",
                b"[]",
                b'"string"',
                b"1e999999",
                b'{"action": "opened", "pull_request": NaN}',
                b"payload=%7B%7D",
                b'{"installation": {"id": 1' + b"0" * 5000 + b"}}",
            ]
        ),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10)),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=8), inner, max_size=4)
            ),
            max_leaves=20,
        ).map(lambda v: json.dumps(v).encode()),
    )


def body_mutations(body: bytes, n: int) -> Iterator[bytes]:
    """Up to `n` distinct bodies one small edit away from `body` (a bit flipped, a byte
    inserted or removed), spread over the whole body."""
    seen = {body}
    edits = (
        lambda b, p: b[:p] + bytes([b[p] ^ 1]) + b[p + 1 :],
        lambda b, p: b[:p] + bytes([b[p] ^ 0x20]) + b[p + 1 :],
        lambda b, p: b[:p] + bytes([b[p] ^ 0x80]) + b[p + 1 :],
        lambda b, p: b[:p] + b" " + b[p:],
        lambda b, p: b[:p] + b[p + 1 :],
    )
    for edit in edits:
        for pos in range(len(body)):
            out = edit(body, pos)
            if out not in seen:
                seen.add(out)
                yield out
                if len(seen) > n:
                    return


def signature_mutations(secret: bytes, body: bytes, others: tuple[bytes, ...]) -> Iterator[str]:
    """Distinct `X-Hub-Signature-256` values that must all be refused for `body`."""
    good = sign(secret, body)
    digest = good[len("sha256=") :]
    seen = {good}

    def emit(value: str) -> Iterator[str]:
        if value not in seen:
            seen.add(value)
            yield value

    for i in range(len(digest)):  # every hex digit changed
        for c in "0123456789abcdef"[:8]:
            if digest[i] != c:
                yield from emit("sha256=" + digest[:i] + c + digest[i + 1 :])
    for n in range(0, 64, 2):  # truncated / extended
        yield from emit("sha256=" + digest[:n])
        yield from emit("sha256=" + digest + digest[: n + 1])
    for other in others:
        yield from emit(sign(other, body))
        yield from emit(sign(secret + other, body))
    variants = [
        "sha1=" + hmac.new(secret, body, hashlib.sha1).hexdigest(),
        "sha512=" + hmac.new(secret, body, hashlib.sha512).hexdigest(),
        "SHA256=" + digest,
        "sha256 =" + digest,
        "sha256:" + digest,
        digest,
        "sha256=" + hashlib.sha256(body).hexdigest(),
        "sha256=" + hashlib.sha256(secret + body).hexdigest(),
        sign(b"", body),
        sign(secret, body + b"\n"),
        sign(secret, body[:-1]),
        sign(secret, b""),
        "sha256=" + "0" * 64,
        "sha256=" + "g" * 64,
        "sha256=" + digest + " " + digest,
        f"{good},{good}",
        "sha256=" + digest[::-1],
        "",
        " ",
        "sha256=",
    ]
    for v in variants:
        yield from emit(v)
