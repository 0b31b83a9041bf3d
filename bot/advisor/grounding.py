"""Validating the model's answer: schema, grounding, and what advice may say. Pure.

The answer must be one JSON object of the schema below (unknown fields refused). Each item
must cite a path shown to the model, a citable line (new side of a hunk) of it, and a
verbatim quote of at least 8 characters from that very line. Items that fail this, that
repeat a deterministic finding (same path, a line inside the finding's span), or whose
text carries @mentions, links, images, HTML or marker-like text are dropped, each with a
reason. What survives is cleaned once more (`sanitize.clean_output`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from bot.advisor.questions import Question
from bot.advisor.sanitize import clean_output, has_marker, sanitize_input
from bot.base.records import dataclass
from bot.core.model import Finding

if TYPE_CHECKING:
    import jsonschema

VERDICTS = ("concern", "no_concern", "cannot_tell")
MIN_QUOTE = 8
MAX_MESSAGE = 600

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["items"],
    "properties": {
        "items": {
            "type": "array",
            "maxItems": 5,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["verdict", "path", "line", "quote", "message", "confidence"],
                "properties": {
                    "verdict": {"enum": list(VERDICTS)},
                    "path": {"type": "string", "minLength": 1, "maxLength": 500},
                    "line": {"type": "integer", "minimum": 1},
                    "quote": {"type": "string", "maxLength": 500},
                    "message": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["en", "zh"],
                        "properties": {
                            "en": {"type": "string", "minLength": 1, "maxLength": MAX_MESSAGE},
                            "zh": {"type": "string", "minLength": 1, "maxLength": MAX_MESSAGE},
                        },
                    },
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                },
            },
        }
    },
}


@cache
def _answer_validator() -> jsonschema.protocols.Validator:
    import jsonschema  # on first use: a lint that asks the advisor nothing never loads it

    return jsonschema.Draft202012Validator(ANSWER_SCHEMA)


# Keywords the Messages API refuses in a strict tool's `input_schema` (its structured-output
# subset of JSON Schema). `api_schema` moves them into the description, as the SDK's own
# `transform_schema` does, so the model still reads them; `parse_answer` enforces them.
API_UNSUPPORTED = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    }
)


def api_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` in the subset the Messages API accepts for a strict tool: what it refuses
    goes into the description as `{keyword: value, ...}`; the rest is kept as it is."""
    out: dict[str, Any] = {}
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":
            out[key] = {name: api_schema(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = api_schema(value)
        elif key in API_UNSUPPORTED or (key == "minItems" and value not in (0, 1)):
            moved[key] = value
        else:
            out[key] = value
    if moved:
        described = out.get("description")
        note = "{" + ", ".join(f"{key}: {value}" for key, value in moved.items()) + "}"
        out["description"] = (described + "\n\n" if described is not None else "") + note
    return out


_MENTION = re.compile(r"(?<![\w.])@[A-Za-z0-9][\w-]*")
_LINK = re.compile(r"(?i)\b(?:https?|ftp|file|javascript|data):|\bwww\.|\]\(|\]\[|<[a-z]+:")
_IMAGE = re.compile(r"!\[")
_HTML = re.compile(r"</?[A-Za-z][^>]*>|&#?\w+;")


@dataclass(frozen=True)
class Advice:
    question: str
    verdict: str
    path: str
    line: int
    quote: str
    message_en: str
    message_zh: str
    confidence: float

    def as_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "verdict": self.verdict,
            "path": self.path,
            "line": self.line,
            "quote": self.quote,
            "message": {"en": self.message_en, "zh": self.message_zh},
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class Checked:
    items: tuple[Advice, ...]
    dropped: tuple[str, ...]  # one reason per dropped item
    error: str | None = None  # the whole answer was refused (not JSON, schema, truncated)


def parse_answer(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The answer object, or an error. A single ```json fence around it is tolerated."""
    raw = text.strip()
    fence = re.fullmatch(r"```(?:json)?\s*\n(.*)\n```", raw, re.S)
    if fence:
        raw = fence.group(1).strip()
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg})"
    except ValueError as exc:  # e.g. an integer too long to convert
        return None, f"not JSON ({exc})"
    errors = sorted(_answer_validator().iter_errors(data), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.path) or "(top)"
        return None, f"schema: {where}: {e.message[:200]}"
    return data, None


def _forbidden(text: str) -> str | None:
    if has_marker(text):
        return "marker-like text"
    if _MENTION.search(text):
        return "@mention"
    if _IMAGE.search(text):
        return "image"
    if _LINK.search(text):
        return "link"
    if _HTML.search(text):
        return "HTML"
    return None


def check_answer(
    text: str,
    question: Question,
    findings: Sequence[Finding] = (),
    *,
    truncated: bool = False,
) -> Checked:
    """Validate one answer to `question`; `findings` are the deterministic ones."""
    if truncated:
        return Checked((), (), "truncated (max_tokens reached)")
    data, error = parse_answer(text)
    if data is None:
        return Checked((), (), error)
    items: list[Advice] = []
    dropped: list[str] = []
    seen: set[tuple[str, int, str]] = set()
    for raw in data["items"]:
        path, line, quote = raw["path"], raw["line"], raw["quote"]
        src = question.source(path)
        if src is None:
            dropped.append(f"path not shown: {path[:80]!r}")
            continue
        if line not in src.citable:
            dropped.append(f"{path}:{line}: not a new-side hunk line")
            continue
        line_text = sanitize_input(src.text_of(line) or "")  # as the model saw it
        if len(quote.strip()) < MIN_QUOTE or quote not in line_text:
            dropped.append(f"{path}:{line}: quote not verbatim from that line")
            continue
        bad = next(
            (
                why
                for why in (
                    _forbidden(raw["message"]["en"]),
                    _forbidden(raw["message"]["zh"]),
                    "marker-like text" if has_marker(quote) else None,
                )
                if why
            ),
            None,
        )
        if bad:
            dropped.append(f"{path}:{line}: message carries {bad}")
            continue
        if any(f.path == path and f.span.line <= line <= f.span.last_line for f in findings):
            dropped.append(f"{path}:{line}: repeats a deterministic finding")
            continue
        key = (path, line, raw["verdict"])
        if key in seen:
            dropped.append(f"{path}:{line}: duplicate")
            continue
        seen.add(key)
        items.append(
            Advice(
                question=question.id,
                verdict=raw["verdict"],
                path=path,
                line=line,
                quote=quote,
                message_en=clean_output(raw["message"]["en"]).strip(),
                message_zh=clean_output(raw["message"]["zh"]).strip(),
                confidence=round(float(raw["confidence"]), 3),
            )
        )
    return Checked(tuple(items), tuple(dropped))
