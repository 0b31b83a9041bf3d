"""The YAML event classes the walkers compare with, and events the C parser makes
without ruamel's chain of Python constructors.

ruamel builds each event through two or three Python `__init__`s (`ScalarEvent` ->
`NodeEvent` -> `Event`), and its C parser calls the classes by their names in its own
module for every event: on the 25k events of `nvidia-master.yaml` that was a third of
reading them. Each of the five frequent classes here has a subclass with one flat
`__init__` that sets the same slots to the same values, and the C extension's names
are pointed at them once, when this module is imported. Whatever reads events with
`isinstance` (ruamel's composer) still sees the classes it knows; the walkers of
`bot.parse` compare `type(event) is ...` with the names this module exports, which are
the subclasses when they are installed and ruamel's own classes otherwise (no C
extension, or a ruamel whose constructors do not have the shape checked here).
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml import events as _stock
from ruamel.yaml.events import AliasEvent as AliasEvent  # re-exported
from ruamel.yaml.events import CommentCheck
from ruamel.yaml.events import DocumentStartEvent as DocumentStartEvent  # re-exported

try:
    import _ruamel_yaml as _c
except ImportError:  # pragma: no cover - ruamel.yaml.clib is absent outside CPython
    _c = None


class _Scalar(_stock.ScalarEvent):
    __slots__ = ()

    def __init__(
        self,
        anchor: Any,
        tag: Any,
        implicit: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        style: Any = None,
        comment: Any = None,
    ) -> None:
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.comment = None if comment is CommentCheck else comment
        self.anchor = anchor
        self.ctag = tag
        self.implicit = implicit
        self.value = value
        self.style = style


def _collection_start(stock: type) -> type:
    def __init__(
        self: Any,
        anchor: Any,
        tag: Any,
        implicit: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        flow_style: Any = None,
        comment: Any = None,
        nr_items: int | None = None,
    ) -> None:
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.comment = None if comment is CommentCheck else comment
        self.anchor = anchor
        self.ctag = tag
        self.implicit = implicit
        self.flow_style = flow_style
        self.nr_items = nr_items

    return type(stock.__name__, (stock,), {"__slots__": (), "__init__": __init__})


def _collection_end(stock: type) -> type:
    def __init__(
        self: Any, start_mark: Any = None, end_mark: Any = None, comment: Any = CommentCheck
    ) -> None:
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.comment = None if comment is CommentCheck else comment

    return type(stock.__name__, (stock,), {"__slots__": (), "__init__": __init__})


_Scalar.__name__ = _Scalar.__qualname__ = "ScalarEvent"

# the parameters each stock constructor takes, in order: the fast ones assume them
_START = ("self", "anchor", "tag", "implicit", "start_mark", "end_mark", "flow_style")
_SHAPES: dict[str, tuple[str, ...]] = {
    "ScalarEvent": ("self", "anchor", "tag", "implicit", "value", "start_mark", "end_mark"),
    "MappingStartEvent": _START,
    "SequenceStartEvent": _START,
    "MappingEndEvent": ("self", "start_mark", "end_mark", "comment"),
    "SequenceEndEvent": ("self", "start_mark", "end_mark", "comment"),
}
_FAST: dict[str, type] = {
    "ScalarEvent": _Scalar,
    "MappingStartEvent": _collection_start(_stock.MappingStartEvent),
    "SequenceStartEvent": _collection_start(_stock.SequenceStartEvent),
    "MappingEndEvent": _collection_end(_stock.MappingEndEvent),
    "SequenceEndEvent": _collection_end(_stock.SequenceEndEvent),
}


def _install() -> bool:
    """Point the C parser at the fast classes; False (nothing changed) where it does
    not use ruamel's classes by these names or their constructors differ."""
    if _c is None:
        return False
    for name, shape in _SHAPES.items():
        stock = getattr(_stock, name)
        current = getattr(_c, name, None)
        if current is _FAST[name]:
            continue  # installed already (a reload)
        varnames = stock.__init__.__code__.co_varnames[: len(shape)]
        if current is not stock or varnames != shape:
            return False
    for name, fast in _FAST.items():
        setattr(_c, name, fast)
    # the parser must really build them: one that looks its classes up elsewhere would
    # hand the walkers ruamel's own, which they would no longer recognise
    made = {type(e).__name__: type(e) for e in iter(_c.CParser("a: [1]\n").get_event, None)}
    if any(made.get(name) is not fast for name, fast in _FAST.items()):
        for name in _FAST:
            setattr(_c, name, getattr(_stock, name))
        return False
    return True


INSTALLED = _install()
_chosen = _FAST if INSTALLED else {name: getattr(_stock, name) for name in _FAST}
ScalarEvent: Any = _chosen["ScalarEvent"]
MappingStartEvent: Any = _chosen["MappingStartEvent"]
SequenceStartEvent: Any = _chosen["SequenceStartEvent"]
MappingEndEvent: Any = _chosen["MappingEndEvent"]
SequenceEndEvent: Any = _chosen["SequenceEndEvent"]
