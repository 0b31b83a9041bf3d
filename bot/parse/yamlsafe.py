"""YAML loading for hostile input. Pure: text in, data (or YamlError) out.

Bulk reads use ruamel.yaml's C-backed safe loader. The loaded value is then
checked for alias expansion (a "billion laughs" document is a small DAG that
explodes when walked) and nesting depth before anything else touches it.
Round-trip loading (line numbers) is used only on small documents or slices.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping
from itertools import accumulate
from typing import Any, Literal

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import ScalarNode

try:
    from _ruamel_yaml import CParser as _CParser
except ImportError:  # pragma: no cover - ruamel.yaml.clib is absent outside CPython
    _CParser = None

MAX_BYTES = 16 * 1024 * 1024
MAX_NODES = 2_000_000
MAX_DEPTH = 200


# What stopped a YAML read, as data. The text cannot be read by YAML itself:
# "syntax" (the parser refuses it), "duplicate-key", "not-utf8", "nul", "shape" (YAML
# this reader refuses: several documents, an alias naming no anchor, a mapping as a
# key, a merge of a non-mapping), "unreadable" (the loader failed otherwise). The
# text may be valid, but is beyond the bounds the bot reads: "too-large",
# "too-many-nodes", "too-deep".
YamlKind = Literal[
    "syntax",
    "duplicate-key",
    "not-utf8",
    "nul",
    "shape",
    "unreadable",
    "too-large",
    "too-many-nodes",
    "too-deep",
]
LIMIT_KINDS: frozenset[str] = frozenset({"too-large", "too-many-nodes", "too-deep"})


class YamlError(Exception):
    """A YAML text that could not be read. `str()` is a one-line message for people
    (a CLI error, a log); rules read `kind` and `params` (`detail`: what the loader
    itself said, or what was refused; `key`, `limit`, `size` where they apply)."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        *,
        kind: YamlKind,
        params: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.line = line
        self.kind: YamlKind = kind
        self.params: Mapping[str, str] = dict(params or {})


# ruamel's own words for a duplicate key: the only place its message names the key
_DUPLICATE_RE = re.compile(r'found duplicate key "(?P<key>[^"]*)"')


def refused(
    label: str, kind: YamlKind, what: str, line: int | None = None, **params: str
) -> YamlError:
    """A `YamlError` whose message is `label: what` and whose `detail` is `what`."""
    return YamlError(f"{label}: {what}", line, kind=kind, params={"detail": what, **params})


def loader_words(text: str) -> str:
    """The loader's own message as one detail: the hint ruamel appends to a
    duplicate-key error dropped, at most 300 characters."""
    return text.split("; To suppress this check", 1)[0].strip().rstrip(";")[:300]


def _loader(typ: str) -> YAML:
    yaml = YAML(typ=typ, pure=False) if typ == "safe" else YAML(typ=typ)
    yaml.allow_duplicate_keys = False
    return yaml


class _PerThread(threading.local):
    """This thread's ruamel instances: a `YAML` keeps reader and parser state, so
    threads never share one."""

    def __init__(self) -> None:
        self.loaders: dict[str, YAML] = {}
        # `PlainScalars`: the "events" loader's implicit resolvers, and the values it
        # resolved, shared by every parse on this thread
        self.resolvers: Mapping[str, Any] | None = None
        self.scalars: dict[str, Any] = {}


_THREAD = _PerThread()


def thread_yaml(kind: str = "safe") -> YAML:
    """This thread's `YAML` of `kind`: "safe" (C loader, no duplicate keys), "rt"
    (round trip), "events" (C parser for event walks) or "pure" (ruamel's own
    safe parser). Configured once per thread; never shared between threads."""
    loaders = _THREAD.loaders
    yaml = loaders.get(kind)
    if yaml is None:
        if kind == "events":
            yaml = YAML(typ="safe", pure=False)
        elif kind == "pure":
            yaml = YAML(typ="safe", pure=True)
        else:
            yaml = _loader(kind)
        loaders[kind] = yaml
    # every parse or load appends a DocInfo its parser reads as `doc_infos[-1]`: kept
    # whole, a service's thread would hold one per file it ever read
    if len(yaml.doc_infos) > _DOC_INFOS:
        del yaml.doc_infos[: -_DOC_INFOS // 2]
    return yaml


_DOC_INFOS = 32


def yaml_events(text: str) -> Iterator[Any]:
    """The events of `text` as `thread_yaml("events").parse(text)` yields them.

    With ruamel's C extension, straight from a `CParser` of its own (what `parse`
    makes, less its Python generator, a class built per call and a DocInfo kept)."""
    yaml = thread_yaml("events")
    if _CParser is None or yaml.Parser is not _CParser:  # pragma: no cover - no C parser
        events: Iterator[Any] = yaml.parse(text)
        return events
    return iter(_CParser(text).get_event, None)


NOT_RESOLVED = object()  # PlainScalars.resolve: leave this scalar to the safe loader
_SIMPLE_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float", "str", "timestamp")
)
_STR_TAG = "tag:yaml.org,2002:str"


class PlainScalars:
    """Plain (unquoted, untagged) scalars as the safe loader reads them (YAML 1.2).

    One instance per parse. The values it resolves are remembered for every parse on
    the thread (a master config repeats the same few hundred scalars, and 471 recipes
    the same few thousand): the "events" loader always reads YAML 1.2 (no directive
    reaches its resolver), so a scalar's value depends on its text alone, and every
    value kept (None, a bool, an int, a float, a string, a date) is immutable. Up to
    MAX short scalars are kept.
    """

    MAX = 100_000
    MAX_KEPT_LEN = 100

    def __init__(self) -> None:
        yaml = thread_yaml("events")
        thread = _THREAD
        if thread.resolvers is None:
            thread.resolvers = dict(yaml.resolver.versioned_resolver)
        self._resolvers: Mapping[str, Any] = thread.resolvers
        self._constructor = yaml.constructor
        self._memo: dict[str, Any] = thread.scalars
        # the values resolved so far: `known.get(text)` is `resolve(text)` wherever
        # it answers (a walk looks here first and calls `resolve` only on a miss)
        self.known: Mapping[str, Any] = self._memo

    def resolve(self, value: str) -> Any:
        """The scalar's value, or NOT_RESOLVED (merge keys, value keys)."""
        first = value[0] if value else ""
        if first not in self._resolvers:
            return value
        got = self._memo.get(value, NOT_RESOLVED)
        if got is not NOT_RESOLVED:
            return got
        tag = _STR_TAG
        for candidate, regexp in self._resolvers[first]:
            if regexp.match(value):
                tag = str(candidate)
                break
        if tag == _STR_TAG:
            result: Any = value
        elif tag in _SIMPLE_TAGS:
            node = ScalarNode(tag, value)
            result = self._constructor.yaml_constructors[tag](self._constructor, node)
        else:  # `<<` merge keys, `=` value keys: leave them to the safe loader
            return NOT_RESOLVED
        if len(value) <= self.MAX_KEPT_LEN and len(self._memo) < self.MAX:
            self._memo[value] = result
        return result


def _problem_line(exc: Exception) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None and getattr(mark, "line", None) is not None:
        return int(mark.line) + 1
    return None


def check_shape(data: Any, label: str) -> None:
    """Refuse documents whose expanded size or depth is unreasonable."""
    sizes: dict[int, int] = {}

    def size(node: Any, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise refused(
                label, "too-deep", f"nesting deeper than {MAX_DEPTH} levels", limit=str(MAX_DEPTH)
            )
        if isinstance(node, dict):
            children: Any = list(node.keys()) + list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        total = 1
        for child in children:
            total += size(child, depth + 1)
            if total > MAX_NODES:
                raise refused(
                    label,
                    "too-many-nodes",
                    f"document expands to more than {MAX_NODES:,} nodes "
                    "(YAML aliases used as a bomb?)",
                    limit=f"{MAX_NODES:,}",
                )
        sizes[key] = total
        return total

    size(data, 0)


_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_DEEP_FLOW = re.compile(rf"(?:[\[{{]\s*){{{MAX_DEPTH}}}|(?:-[ \t]+){{{MAX_DEPTH}}}")


def check_depth(text: str, label: str) -> None:
    """Refuse deep nesting before the C loader sees it (it overflows its stack)."""
    m = _DEEP_FLOW.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        raise refused(
            label, "too-deep", f"nesting deeper than {MAX_DEPTH} levels", line, limit=str(MAX_DEPTH)
        )
    if text.count("[") + text.count("{") > MAX_DEPTH:
        brackets = _NOT_BRACKET.sub("", text)
        depth = max(accumulate(map(_STEP.__getitem__, brackets)), default=0)
        if depth > MAX_DEPTH:
            raise refused(
                label, "too-deep", f"nesting deeper than {MAX_DEPTH} levels", limit=str(MAX_DEPTH)
            )


def load_safe(text: str | bytes, *, label: str = "YAML") -> Any:
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise too_large(
                label, f"{len(text):,} bytes is over the {MAX_BYTES:,}-byte limit", len(text)
            )
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise refused(label, "not-utf8", f"not valid UTF-8 (byte {exc.start})") from exc
    if len(text) > MAX_BYTES:
        raise too_large(
            label, f"{len(text):,} characters is over the {MAX_BYTES:,} limit", len(text)
        )
    if "\x00" in text:
        raise refused(
            label, "nul", "contains NUL bytes", text[: text.index("\x00")].count("\n") + 1
        )
    check_depth(text, label)
    try:
        # nesting is capped (check_depth) well below the interpreter's recursion limit
        data = thread_yaml("safe").load(text)
    except YAMLError as exc:
        first = str(exc).strip().splitlines()
        msg = "; ".join(x.strip() for x in first if x.strip() and not x.startswith("  "))[:300]
        raise _invalid(label, msg, _problem_line(exc)) from exc
    except RecursionError as exc:
        raise _too_deep_to_read(label) from exc
    except Exception as exc:  # ruamel raises assorted errors on odd input
        raise unreadable(label, exc) from exc
    check_shape(data, label)
    return data


def too_large(label: str, what: str, size: int) -> YamlError:
    return refused(label, "too-large", what, size=f"{size:,}", limit=f"{MAX_BYTES:,}")


def unreadable(label: str, exc: Exception) -> YamlError:
    """The loader failed on the text without a YAML error (ruamel's assorted errors)."""
    message = f"{label}: unreadable YAML: {type(exc).__name__}: {exc}"[:300]
    detail = message[len(label) + 2 :]
    return YamlError(message, kind="unreadable", params={"detail": loader_words(detail)})


def _too_deep_to_read(label: str) -> YamlError:
    what = "nesting too deep to read"
    return YamlError(f"{label}: {what}", kind="too-deep", params={"detail": what})


def _invalid(label: str, msg: str, line: int | None) -> YamlError:
    """The loader refused the text: `msg` in its own words (a duplicate key named)."""
    detail = loader_words(msg)
    if m := _DUPLICATE_RE.search(detail):
        return YamlError(
            f"{label}: invalid YAML: {msg}",
            line,
            kind="duplicate-key",
            params={"detail": detail, "key": m.group("key")},
        )
    return YamlError(
        f"{label}: invalid YAML: {msg}", line, kind="syntax", params={"detail": detail}
    )


def load_roundtrip(text: str, *, label: str = "YAML") -> Any:
    """Round-trip load (keys and items keep `.lc` line/col). Small inputs only."""
    if len(text) > MAX_BYTES:
        raise too_large(label, "too large for positional parsing", len(text))
    check_depth(text, label)
    try:
        data = _loader("rt").load(text)
    except YAMLError as exc:
        raise _invalid(
            label, str(exc).splitlines()[0] if str(exc) else str(exc), _problem_line(exc)
        ) from exc
    except RecursionError as exc:
        raise _too_deep_to_read(label) from exc
    except Exception as exc:
        raise unreadable(label, exc) from exc
    check_shape(data, label)
    return data


# ------------------------------------------------------------ shared helpers


def type_name(value: Any) -> str:
    """The YAML name of a loaded value's type, for messages."""
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    return "string"


def line_at(text: str, offset: int) -> int:
    """1-based line of a character offset."""
    return text.count("\n", 0, offset) + 1


FileYamlKind = Literal["yaml", "duplicate-key", "too-many-nodes", "too-deep"]


def file_problem(
    exc: YamlError, depth_limit: int = MAX_DEPTH
) -> tuple[FileYamlKind, dict[str, str]]:
    """A whole file's `YamlError` as the (kind, params) of CHL000 and CFG000:
    duplicate-key, too-many-nodes (an alias bomb: small text, huge document),
    too-deep, or yaml with the loader's `detail`."""
    if exc.kind == "duplicate-key":
        return "duplicate-key", {"key": exc.params["key"]}
    if exc.kind == "too-many-nodes":
        return "too-many-nodes", {"limit": exc.params["limit"]}
    if exc.kind == "too-deep":
        return "too-deep", {"limit": exc.params.get("limit", str(depth_limit))}
    return "yaml", {"detail": exc.params.get("detail", "")[:300]}
