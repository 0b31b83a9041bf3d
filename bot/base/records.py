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

import abc
import dataclasses
import inspect
import reprlib
import sys
import types
from collections.abc import Callable, Iterable
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
    fields = _fields(cls, frozen)
    if fields is None:  # a shape this module does not build itself
        return _standard(cls, init, repr, eq, frozen)
    own = cls.__dict__
    explicit_hash = _explicit_hash(own)
    cls.__dataclass_params__ = _PARAMS(init, repr, eq, False, False, frozen)  # type: ignore[attr-defined]
    cls.__dataclass_fields__ = fields  # type: ignore[attr-defined]
    listed = tuple(fields.values())
    init_fields = [f for f in listed if f.init]
    made_init = init and "__init__" not in own
    if made_init:
        type.__setattr__(cls, "__init__", _lazy_init(cls, listed, frozen))
    if repr and "__repr__" not in own:
        type.__setattr__(cls, "__repr__", _repr(tuple(f.name for f in listed if f.repr)))
    if eq and "__eq__" not in own:
        type.__setattr__(cls, "__eq__", _eq(tuple(f.name for f in listed if f.compare)))
    if frozen:
        names = frozenset(f.name for f in listed)
        for name, method in (("__setattr__", _frozen_set), ("__delattr__", _frozen_del)):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
            type.__setattr__(cls, name, method(cls, names))
    if eq and not explicit_hash:
        type.__setattr__(cls, "__hash__", _made_hash(listed, frozen))
    if not cls.__doc__:
        cls.__doc__ = _doc(cls, init_fields) if made_init else _sig_doc(cls)
    if "__match_args__" not in own:
        type.__setattr__(cls, "__match_args__", tuple(f.name for f in init_fields))
    abc.update_abstractmethods(cls)
    return cls


def _standard(cls: type[T], init: bool, repr: bool, eq: bool, frozen: bool) -> type[T]:
    """The standard library's decorator, with the shared `__repr__`, `__eq__`, `__hash__`."""
    own = cls.__dict__
    explicit_hash = _explicit_hash(own)
    own_repr, own_eq = "__repr__" in own, "__eq__" in own
    out = dataclasses.dataclass(cls, init=init, repr=False, eq=False, frozen=frozen)
    fields = dataclasses.fields(out)  # type: ignore[arg-type]
    if repr and not own_repr:
        out.__repr__ = _repr(tuple(f.name for f in fields if f.repr))  # type: ignore[method-assign]
    if not eq:
        return out
    if not own_eq:
        out.__eq__ = _eq(tuple(f.name for f in fields if f.compare))  # type: ignore[method-assign]
    if not explicit_hash:
        out.__hash__ = _made_hash(fields, frozen)  # type: ignore[method-assign]
    return out


def _explicit_hash(own: Any) -> bool:
    """Whether the class body defines `__hash__` itself (not the `None` an `__eq__` implies)."""
    class_hash = own.get("__hash__", dataclasses.MISSING)
    return not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in own))


def _made_hash(fields: Iterable[dataclasses.Field[Any]], frozen: bool) -> Any:
    """The `__hash__` an `eq` class gets: over the hashed fields when frozen, else None."""
    if not frozen:
        return None
    return _hash(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))


# the standard library's own markers, where this Python has them under these names
_PARAMS: Any = getattr(dataclasses, "_DataclassParams", None)
_FIELD: Any = getattr(dataclasses, "_FIELD", None)
_FACTORY: Any = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", None)
_USABLE = (
    _FIELD is not None
    and _FACTORY is not None
    and _PARAMS is not None
    and len(inspect.signature(_PARAMS).parameters) == 6  # Python 3.11's (init ... frozen)
)
# annotations naming these need the standard library's reading
_SPECIAL = ("ClassVar", "InitVar", "KW_ONLY")


def _fields(cls: type, frozen: bool) -> dict[str, dataclasses.Field[Any]] | None:
    """The class's fields, base classes' first, as the standard library collects them;
    None for what this module leaves to it (slots, ClassVar, InitVar, keyword-only
    fields, annotations that are not strings, another Python's internals)."""
    if not _USABLE or "__slots__" in cls.__dict__:
        return None
    fields: dict[str, dataclasses.Field[Any]] = {}
    bases = frozen_bases = 0
    for base in cls.__mro__[-1:0:-1]:
        base_fields = getattr(base, "__dataclass_fields__", None)
        if base_fields is None:
            continue
        bases += 1
        frozen_bases += bool(getattr(base, "__dataclass_params__").frozen)  # noqa: B009
        for inherited in base_fields.values():
            if inherited._field_type is not _FIELD or inherited.kw_only:
                return None
            fields[inherited.name] = inherited
    own = cls.__dict__
    annotations = own.get("__annotations__", {})
    for name, kind in annotations.items():  # first, what only the standard library reads
        default = own.get(name)
        if not isinstance(kind, str) or any(s in kind for s in _SPECIAL):
            return None
        if isinstance(default, types.MemberDescriptorType):
            return None
        if isinstance(default, dataclasses.Field) and default.kw_only is True:
            return None
    for name, kind in annotations.items():
        default = own.get(name, dataclasses.MISSING)
        f: Any = default
        if not isinstance(f, dataclasses.Field):
            f = dataclasses.field(default=default)
        f.name, f.type = name, kind
        f._field_type = _FIELD
        f.kw_only = False
        if f.default is not dataclasses.MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        fields[name] = f
        if isinstance(default, dataclasses.Field):
            if f.default is dataclasses.MISSING:
                type.__delattr__(cls, name)
            else:
                type.__setattr__(cls, name, f.default)
    for name, value in own.items():
        if isinstance(value, dataclasses.Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    if bases and frozen_bases and not frozen:
        raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
    if bases and not frozen_bases and frozen:
        raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    seen_default = False
    for f in fields.values():
        if not f.init:
            continue
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            seen_default = True
    return fields


def _lazy_init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Any:
    """An `__init__` that compiles the real one (the standard library's text) the first
    time the class is instantiated and puts it in its own place: a class never built
    in a run never pays for the compile."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real: Any = cls.__dict__.get("__init__")
        if real is __init__:
            real = _compile_init(cls, fields, frozen)
            type.__setattr__(cls, "__init__", real)
        real(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compile_init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Any:
    """The `__init__` the standard library writes for these fields (Python 3.11)."""
    self_name = "__dataclass_self__" if "self" in {f.name for f in fields} else "self"
    names: dict[str, Any] = {
        "__dataclass_HAS_DEFAULT_FACTORY__": _FACTORY,
        "__dataclass_builtins_object__": object,
    }
    params, body = [self_name], []
    for f in fields:
        default = f"__dataclass_dflt_{f.name}__"
        if f.init:
            if f.default_factory is not dataclasses.MISSING:
                names[default] = f.default_factory
                params.append(f"{f.name}=__dataclass_HAS_DEFAULT_FACTORY__")
                value = (
                    f"{default}() if {f.name} is __dataclass_HAS_DEFAULT_FACTORY__ else {f.name}"
                )
            elif f.default is not dataclasses.MISSING:
                names[default] = f.default
                params.append(f"{f.name}={default}")
                value = f.name
            else:
                params.append(f.name)
                value = f.name
        elif f.default_factory is not dataclasses.MISSING:
            names[default] = f.default_factory
            value = f"{default}()"
        else:
            continue
        if frozen:
            body.append(
                f"__dataclass_builtins_object__.__setattr__({self_name},{f.name!r},{value})"
            )
        else:
            body.append(f"{self_name}.{f.name}={value}")
    if hasattr(cls, "__post_init__"):
        body.append(f"{self_name}.__post_init__()")
    inner = "\n".join(f"  {line}" for line in body or ["pass"])
    source = (
        f"def __create_fn__({', '.join(names)}):\n"
        f" def __init__({', '.join(params)}):\n{inner}\n"
        " return __init__"
    )
    module = sys.modules.get(cls.__module__)
    scope: dict[str, Any] = {}
    exec(source, module.__dict__ if module is not None else {}, scope)
    fn = scope["__create_fn__"](**names)
    fn.__qualname__ = f"{cls.__qualname__}.__init__"
    hints: dict[str, Any] = {f.name: f.type for f in fields if f.init}
    fn.__annotations__ = {**hints, "return": None}
    return fn


def _frozen_set(cls: Any, names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    return __setattr__


def _frozen_del(cls: Any, names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __delattr__


def _doc(cls: type, init_fields: list[dataclasses.Field[Any]]) -> str:
    """`Name(a: 'int', b: 'str' = 'x')`: the docstring the standard library gives a class
    without one, written from the fields (its `inspect.signature` reads the compiled
    `__init__`, which is not compiled yet)."""
    parts = []
    for f in init_fields:
        text = f"{f.name}: {f.type!r}"
        if f.default_factory is not dataclasses.MISSING:
            text += f" = {_FACTORY!r}"
        elif f.default is not dataclasses.MISSING:
            text += f" = {f.default!r}"
        parts.append(text)
    return f"{cls.__name__}({', '.join(parts)})"


def _sig_doc(cls: type) -> str:
    try:
        text = str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        text = ""
    return cls.__name__ + text


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
