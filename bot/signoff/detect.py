"""Find a CODEOWNER sign-off in a comment body and read it into parts. Pure.

A sign-off is a conversation comment, a review summary or an inline review
comment whose body holds the phrase `SIGNOFF_PHRASE` on a *live* line: not
inside a block quote (`>`), a fenced or indented code block, an inline code
span or an HTML comment. What a quote or a code block shows is someone else's
sign-off (or the template), never the commenter's own.

From the phrase on, the sign-off is read as GitHub renders it:

- items: list entries (`-`, `*`, `+` or `1.`) with a task box `[ ]` / `[x]`;
  lines indented under an item continue it, and bullets without a box under an
  item are its note (a reviewer's "N/A: no agentic config" under an item);
- the "Additional detail section" (the heading and what follows it), with the
  template's placeholder `insert any additional info here` dropped;
- `Signed:` and what follows it.

Only `[x]` / `[X]` counts as checked: that is what GitHub renders as a ticked
box. Everything here is best effort over hostile input: bodies are capped at
`MAX_BODY` characters and every regular expression is linear.
"""

from __future__ import annotations

import re
from typing import Literal

from bot.base.records import dataclass
from bot.signoff.model import SIGNOFF_PHRASE

MAX_BODY = 200_000  # GitHub caps comment bodies at 65,536 characters
MAX_ITEMS = 200  # checklist items read from one sign-off (the template has 15)
PLACEHOLDER = "FILL_IN_GITHUB_USERNAME"
DETAIL_PLACEHOLDER = "insert any additional info here"

Absence = Literal["absent", "quoted", "code", "comment"]

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_QUOTE = re.compile(r"^(?: {0,3}>[ ]?)+")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+"
    r"(?:\[(?P<mark>[^\]\n]?)\][ \t]*)?(?P<text>.*)$"
)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(?P<text>.*?)[ \t#]*$")
_DETAIL = re.compile(
    r"^[\s*_#]*additional\s+details?(?:\s+section)?[\s*_]*[:：]?[\s*_]*(?P<rest>.*)$", re.I
)
_SIGNED = re.compile(r"^[\W_]*signed(?:[\s-]*off)?(?:\s*by)?\s*\**\s*[:：](?P<value>.*)$", re.I)
_LOGIN = re.compile(r"@?([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})")
_MENTION = re.compile(r"(?<![\w/])@([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})")
# exactly the repository's syntax (utils/find_reusable_sweep_run.py): the whole line
_REUSE = re.compile(r"^\s*/reuse-sweep-run(?:\s+(\d+))?\s*$")
_URL = re.compile(r"https?://[^\s<>()\[\]`'\"]+")


@dataclass(frozen=True)
class Line:
    """One line of a body as GitHub renders it."""

    no: int  # 1-based
    text: str  # the line with quote markers removed (HTML comments blanked)
    quoted: bool
    code: bool  # inside a fenced or indented code block

    @property
    def live(self) -> bool:
        return not self.quoted and not self.code


@dataclass(frozen=True)
class SignoffItem:
    text: str  # the item's words, continuation lines joined by a space
    checked: bool
    level: int  # 0 top level, 1 nested under the item before it, ...
    line: int
    mark: str | None = None  # the box's character (" ", "x", ...); None: no box at all
    note: str = ""  # what is written under the item without a box


@dataclass(frozen=True)
class Signoff:
    line: int  # the line holding the phrase
    items: tuple[SignoffItem, ...]
    detail: str  # the "Additional detail section", placeholder dropped
    notes: str  # other free text between the phrase and `Signed:`
    signed: str | None  # what follows `Signed:`, None when there is no such line
    signed_line: int | None
    text: str  # the sign-off's live lines, from the phrase to the end of the body

    @property
    def signed_login(self) -> str | None:
        """The login `Signed:` names (`@login` preferred), None when none is readable."""
        return signed_login(self.signed)

    @property
    def placeholder(self) -> bool:
        return self.signed is not None and PLACEHOLDER.lower() in self.signed.lower()

    @property
    def explanations(self) -> str:
        """Everything the reviewer wrote besides the items: detail section and loose notes."""
        return "\n".join(x for x in (self.detail, self.notes) if x.strip())

    def links(self) -> list[str]:
        return links_in(self.text)


def signed_login(value: str | None) -> str | None:
    if value is None:
        return None
    clean = value.replace("`", " ").replace("*", " ").replace("_", " ").strip()
    if not clean or PLACEHOLDER.lower().replace("_", " ") in clean.lower():
        return None
    m = _MENTION.search(clean)
    if m:
        return m.group(1)
    m = _LOGIN.match(clean)
    return m.group(1) if m else None


def links_in(text: str) -> list[str]:
    return [u.rstrip(".,;:!?") for u in _URL.findall(text)]


# ------------------------------------------------------------------ lines


def _strip_code_spans(text: str) -> str:
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text) if "`" in text else text


def _blank_comments(body: str) -> str:
    """HTML comments are invisible: blank them, keeping line numbers (an unclosed one hides
    the rest of the body, as GitHub renders it). Linear: one pass with `str.find`."""
    if "<!--" not in body:
        return body
    parts: list[str] = []
    pos = 0
    while (start := body.find("<!--", pos)) >= 0:
        end = body.find("-->", start + 4)
        stop = len(body) if end < 0 else end + 3
        parts += [body[pos:start], "\n" * body.count("\n", start, stop)]
        pos = stop
    parts.append(body[pos:])
    return "".join(parts)


def split_lines(body: str) -> list[Line]:
    """The body's lines, each marked quoted and/or inside a code block."""
    text = _blank_comments(body[:MAX_BODY].replace("\r\n", "\n").replace("\r", "\n"))
    out: list[Line] = []
    fence: str | None = None  # the open fence's marker
    fence_quoted = False
    indented_code = False
    prev_blank = True
    list_open = False
    for no, raw in enumerate(text.split("\n"), 1):
        m = _QUOTE.match(raw)
        quoted = m is not None
        line = raw[m.end() :] if m is not None else raw
        if fence is not None and quoted != fence_quoted:
            fence = None  # a fence never outlives its quote
        if fence is not None:
            m = _FENCE.match(line)
            if (
                m is not None
                and m.group(2)[0] == fence[0]
                and len(m.group(2)) >= len(fence)
                and not m.group(3).strip()
            ):
                fence = None
            out.append(Line(no, line, quoted, True))
            prev_blank = False
            continue
        m = _FENCE.match(line)
        if m is not None and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            fence, fence_quoted = m.group(2), quoted
            out.append(Line(no, line, quoted, True))
            prev_blank = indented_code = False
            continue
        blank = not line.strip()
        indent = _indent(line)
        if indented_code and (blank or indent >= 4):
            out.append(Line(no, line, quoted, not blank))
            prev_blank = blank
            continue
        indented_code = False
        if not blank and indent >= 4 and prev_blank and not list_open and not quoted:
            indented_code = True
            out.append(Line(no, line, quoted, True))
            prev_blank = False
            continue
        if not blank:
            if _ITEM.match(line):
                list_open = True
            elif indent < 2 and prev_blank:
                list_open = False
        out.append(Line(no, line, quoted, False))
        prev_blank = blank
    return out


def _has_phrase(text: str) -> bool:
    norm = re.sub(r"[\s*_]+", " ", _strip_code_spans(text)).lower()
    return re.sub(r"\s+", " ", SIGNOFF_PHRASE).lower() in norm


def _phrase_anywhere(text: str) -> bool:
    norm = re.sub(r"[\s*_`]+", " ", text).lower()
    return re.sub(r"\s+", " ", SIGNOFF_PHRASE).lower() in norm


def absence_reason(body: str) -> Absence:
    """Why `find_signoff` found nothing: the phrase is missing, quoted, in code or hidden."""
    lines = split_lines(body)
    seen_code = seen_quote = False
    for line in lines:
        if not _phrase_anywhere(line.text):
            continue
        if line.code:
            seen_code = True
        elif line.quoted:
            seen_quote = True
        elif not _has_phrase(line.text):
            seen_code = True  # only inside a code span
    if seen_quote:
        return "quoted"
    if seen_code:
        return "code"
    if "<!--" in body and _phrase_anywhere(body[:MAX_BODY]):
        return "comment"
    return "absent"


def has_phrase(body: str) -> bool:
    """Whether the phrase appears at all (live or not): a cheap pre-filter for webhooks."""
    return _phrase_anywhere(body[:MAX_BODY])


# ------------------------------------------------------------------ the sign-off


def find_signoff(body: str) -> Signoff | None:
    """The first live sign-off in `body`, or None (see `absence_reason`)."""
    if not body or not _phrase_anywhere(body[:MAX_BODY]):
        return None
    lines = split_lines(body)
    start = next((i for i, ln in enumerate(lines) if ln.live and _has_phrase(ln.text)), None)
    if start is None:
        return None
    return _read(lines, start)


def _indent(text: str) -> int:
    expanded = text.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


@dataclass
class _Open:
    text: list[str]
    checked: bool
    mark: str | None
    indent: int
    line: int
    note: list[str]


def _read(lines: list[Line], start: int) -> Signoff:
    head = lines[start]
    items: list[tuple[_Open, int]] = []  # (item, level)
    stack: list[int] = []  # indents of the open boxed items
    current: _Open | None = None
    in_detail = False
    detail: list[str] = []
    notes: list[str] = []
    signed: str | None = None
    signed_line: int | None = None
    live_text = [head.text]
    after_blank = False
    # the phrase line may carry more after the phrase ("... and have: - [x] ...") - ignored
    for ln in lines[start + 1 :]:
        if not ln.live:
            continue
        live_text.append(ln.text)
        if signed is not None:
            continue
        if _SIGNED.match(_strip_code_spans(ln.text).strip()):
            raw = ln.text.strip()
            cut = min((i for i in (raw.find(":"), raw.find("：")) if i >= 0), default=-1)
            signed = raw[cut + 1 :].strip()
            signed_line = ln.no
            current = None
            continue
        if not ln.text.strip():
            after_blank = True
            continue
        after_blank_now, after_blank = after_blank, False
        heading = _HEADING.match(ln.text)
        detail_head = _DETAIL.match(heading.group("text") if heading else ln.text)
        if not in_detail and detail_head is not None and not _ITEM.match(ln.text):
            in_detail = True  # `### Additional detail section:`, bold or plain
            current = None
            rest = detail_head.group("rest").strip()
            if rest:
                detail.append(rest)
            continue
        if heading:
            current = None
            (detail if in_detail else notes).append(heading.group("text"))
            continue
        if in_detail:
            stripped = ln.text.strip()
            if DETAIL_PLACEHOLDER in stripped.lower():
                stripped = re.sub(re.escape(DETAIL_PLACEHOLDER), "", stripped, flags=re.I)
                stripped = stripped.strip(" -*+\t")
            if stripped:
                detail.append(stripped)
            continue
        m = _ITEM.match(ln.text)
        indent = _indent(ln.text)
        if m and m.group("mark") is not None:
            while stack and stack[-1] >= indent:
                stack.pop()
            level = len(stack)
            stack.append(indent)
            mark = m.group("mark")
            current = _Open([m.group("text").strip()], mark in ("x", "X"), mark, indent, ln.no, [])
            items.append((current, level))
            continue
        if m and current is not None and indent > current.indent:
            current.note.append(m.group("text").strip())  # a bullet without a box under an item
            continue
        if m:
            # a bullet without a box at item level: an item whose box was removed
            while stack and stack[-1] >= indent:
                stack.pop()
            level = len(stack)
            stack.append(indent)
            current = _Open([m.group("text").strip()], False, None, indent, ln.no, [])
            items.append((current, level))
            continue
        if current is not None and (indent > current.indent or not after_blank_now):
            (current.note if current.note else current.text).append(ln.text.strip())
            continue
        current = None
        notes.append(ln.text.strip())
    return Signoff(
        line=head.no,
        items=tuple(
            SignoffItem(
                text=" ".join(o.text).strip(),
                checked=o.checked,
                level=level,
                line=o.line,
                mark=o.mark,
                note=" ".join(o.note).strip(),
            )
            for o, level in items[:MAX_ITEMS]
        ),
        detail="\n".join(detail).strip(),
        notes="\n".join(notes).strip(),
        signed=signed,
        signed_line=signed_line,
        text="\n".join(live_text),
    )


# ------------------------------------------------------------------ other commands


def has_reuse_sweep(body: str) -> bool:
    """Whether a live line of `body` starts with `/reuse-sweep-run`."""
    if "/reuse-sweep-run" not in body[:MAX_BODY]:
        return False
    return any(ln.live and _REUSE.match(_strip_code_spans(ln.text)) for ln in split_lines(body))
