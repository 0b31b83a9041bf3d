"""`dataclass`, as the standard library's, defined in a fraction of the time.

Python 3.11's `dataclasses.dataclass` compiles every method it adds from source text
(`exec`): `__init__`, `__repr__`, `__eq__`, and for a frozen class `__hash__`,
`__setattr__` and `__delattr__`, each about a tenth of a millisecond. With some 140
dataclasses imported by every `bot lint`, that was about a quarter of its start-up.
This decorator lets the standard library make `__init__` (and a frozen class's
`__setattr__`/`__delattr__`), and adds `__repr__`, `__eq__` and `__hash__` made of
closures over the class's fields, compiled once for all classes. What they return is
the standard library's, value for value (`tests/test_records.py` holds them side by
side): the same repr text (`__qualname__`, `repr=False` fields left out, recursion
guarded), equality only between instances of the very same class over the fields with
`compare=True`, the hash of the same tuple, `__hash__` set to `None` or kept by the same
rules (`unsafe_hash` is not offered).

`bot.server`, which may not reach `bot.base` (an import contract), keeps the standard
library's. Type checkers see the standard library's decorator (the `TYPE_CHECKING`
branch), so `dataclasses.fields`, `replace` and field typing work as for any dataclass.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

T = TypeVar("T")


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of the named attributes (`attrgetter` gives a bare value for one name)."""
    if not names:
        return lambda _obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    many: Callable[[Any], tuple[Any, ...]] = attrgetter(*names)
    return many


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    get = _getter(names)

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        values = get(self)
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(names, values, strict=True))
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _eq(names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    get = _getter(names)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return get(self) == get(other)
        return NotImplemented

    return __eq__


def _hash(names: tuple[str, ...]) -> Callable[[Any], int]:
    get = _getter(names)

    def __hash__(self: Any) -> int:
        return hash(get(self))

    return __hash__


def _process(cls: type[T], init: bool, repr: bool, eq: bool, frozen: bool) -> type[T]:
    # what the class body defines itself, read before the standard library adds anything
    own = cls.__dict__
    class_hash = own.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (
        class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in own)
    )
    own_repr, own_eq = "__repr__" in own, "__eq__" in own
    out = dataclasses.dataclass(cls, init=init, repr=False, eq=False, frozen=frozen)
    fields = dataclasses.fields(out)  # type: ignore[arg-type]
    if repr and not own_repr:
        out.__repr__ = _repr(tuple(f.name for f in fields if f.repr))  # type: ignore[method-assign]
    if not eq:
        return out
    if not own_eq:
        out.__eq__ = _eq(tuple(f.name for f in fields if f.compare))  # type: ignore[method-assign]
    if explicit_hash:
        return out
    if frozen:
        hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        out.__hash__ = _hash(hashed)  # type: ignore[assignment]
    else:
        out.__hash__ = None  # type: ignore[assignment]
    return out


if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:

    def dataclass(
        cls: type[T] | None = None,
        /,
        *,
        init: bool = True,
        repr: bool = True,
        eq: bool = True,
        frozen: bool = False,
    ) -> Any:
        """`dataclasses.dataclass` with `init`, `repr`, `eq` and `frozen`."""

        def wrap(c: type[T]) -> type[T]:
            return _process(c, init, repr, eq, frozen)

        return wrap if cls is None else wrap(cls)
