"""Gateway calls as data: which methods there are, which of them write, hooks around each.

`bot.github.types` declares the methods (the `Gateway` and `SignoffGateway` Protocols, the
names of the ones that change GitHub in `WRITES`, optional reads in `OPTIONAL`); this
module reads that table, so nothing else lists the methods one by one:

- `GatewayBase`: a gateway class deriving from it runs `CallHook`s around every gateway
  method it defines (the service's metrics, job deadline and the PostgreSQL backend's
  shared pacing are hooks). `hooked(gateway, *hooks)` is the same gateway with more
  hooks: a shallow copy sharing its caches, clients and pacing state.
- `FallbackGateway`: also answers the gateway methods its class does not define, through
  `fallback(name)` (the local-clone gateway refuses every write there; test fakes answer
  reads with an empty answer and record writes).
- `bind`, `empty_answer`: a call's arguments by parameter name, and the "nothing there"
  answer of a read, from the Protocol's signature.

Adding a gateway method therefore touches two files: its signature in `bot.github.types`
and its implementation in `bot.github.gateway` (`tests/test_gateway_table.py` checks it).
"""

from __future__ import annotations

import contextvars
import copy
import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from bot.github.types import (
    WRITES,
    CommitGateway,
    Gateway,
    GitHubError,
    OptionalReads,
    SignoffGateway,
)

G = TypeVar("G")
B = TypeVar("B", bound="GatewayBase")


def _protocol_methods() -> dict[str, Callable[..., Any]]:
    out: dict[str, Callable[..., Any]] = {}
    for proto in (Gateway, SignoffGateway, CommitGateway, OptionalReads):
        for name, value in vars(proto).items():
            if not name.startswith("_") and callable(value):
                out.setdefault(name, value)
    return out


_METHODS = _protocol_methods()
METHODS: tuple[str, ...] = tuple(_METHODS)
"""Every gateway method: `Gateway`'s, `SignoffGateway`'s, `CommitGateway`'s, then the
optional ones."""
OPTIONAL: frozenset[str] = frozenset(n for n in METHODS if n in vars(OptionalReads))


def is_method(name: str) -> bool:
    return name in _METHODS


def is_write(name: str) -> bool:
    return name in WRITES


@functools.cache
def signature(name: str) -> inspect.Signature:
    """The Protocol signature of gateway method `name`, annotations resolved, without `self`."""
    fn = _METHODS[name]
    hints = typing.get_type_hints(fn)
    sig = inspect.signature(fn)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in list(sig.parameters.values())[1:]
    ]
    return sig.replace(parameters=params, return_annotation=hints.get("return", Any))


def bind(name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A call of `name` as {parameter: value}; TypeError when the arguments do not fit."""
    bound = signature(name).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def empty_answer(name: str) -> Any:
    """What a read answers when there is nothing: [] for lists, None when None is allowed,
    False for a flag, "" for text; a read of one object (`pull`) raises GitHub's 404.
    A write has no such answer (ValueError)."""
    if is_write(name):
        raise ValueError(f"{name} is a write")
    returns = signature(name).return_annotation
    if returns is None or type(None) in typing.get_args(returns):
        return None
    origin = typing.get_origin(returns) or returns
    for kind in (list, tuple, dict, set, frozenset, bool, str, int, bytes):
        if origin is kind:
            return kind()
    raise GitHubError(f"{name}: Not Found", 404)


class CallHook(Protocol):
    """Runs around a gateway call. `before` may wait (pacing) or raise (refuse the call)."""

    def before(self, name: str, write: bool) -> None: ...

    def failed(self, name: str, error: GitHubError) -> None: ...


_inside: contextvars.ContextVar[bool] = contextvars.ContextVar("gateway_call", default=False)


def _run(
    hooks: tuple[CallHook, ...], name: str, call: Callable[..., Any], *args: Any, **kw: Any
) -> Any:
    """`call` with `hooks` around it, once per outermost gateway call (a method that calls
    another gateway method, or its base class's, is one call)."""
    if not hooks or _inside.get():
        return call(*args, **kw)
    token = _inside.set(True)
    try:
        write = is_write(name)
        for hook in reversed(hooks):  # the last one added is the outermost
            hook.before(name, write)
        try:
            return call(*args, **kw)
        except GitHubError as exc:
            for hook in hooks:
                hook.failed(name, exc)
            raise
    finally:
        _inside.reset(token)


def _hooked_method(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def method(self: GatewayBase, *args: Any, **kw: Any) -> Any:
        return _run(self._hooks, name, fn, self, *args, **kw)

    method.__gateway_hooked__ = True  # type: ignore[attr-defined]
    return method


class GatewayBase:
    """Runs the instance's `CallHook`s around every gateway method its class defines."""

    _hooks: tuple[CallHook, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in list(_METHODS):
            fn = cls.__dict__.get(name)
            if callable(fn) and not getattr(fn, "__gateway_hooked__", False):
                setattr(cls, name, _hooked_method(name, fn))

    def with_hooks(self: B, *hooks: CallHook) -> B:
        """This gateway with `hooks` added (outermost last): a shallow copy, so keep
        the state a gateway shares between calls in objects, not in plain attributes."""
        clone = copy.copy(self)
        clone._hooks = (*self._hooks, *hooks)
        return clone


class FallbackGateway(GatewayBase):
    """A `GatewayBase` that answers the gateway methods its class lacks through `fallback`."""

    def fallback(self, name: str) -> Callable[..., Any] | None:
        """The implementation of gateway method `name` (not defined by the class), or None
        when the gateway does not have it (optional methods: `getattr(gw, name, None)`)."""
        return None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not is_method(name):
            raise AttributeError(name)
        impl = self.fallback(name)
        if impl is None:
            raise AttributeError(name)
        hooks = self._hooks

        def call(*args: Any, **kw: Any) -> Any:
            bind(name, args, kw)  # a wrong call fails as it would on a real method
            return _run(hooks, name, impl, *args, **kw)

        call.__name__ = name
        return call


def hooked(gateway: G, *hooks: CallHook) -> G:
    """`gateway` with `hooks` run around each of its calls (see `GatewayBase.with_hooks`)."""
    if not isinstance(gateway, GatewayBase):
        raise TypeError(
            f"{type(gateway).__name__} does not derive from bot.github.calls.GatewayBase"
        )
    return gateway.with_hooks(*hooks)
