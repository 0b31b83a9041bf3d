"""`bot.base.records.dataclass` against the standard library's, class shape by class shape.

Each shape is defined twice, once with each decorator, from the same body; instances
built from the same arguments must print, compare, hash, refuse assignment and copy
exactly alike."""

from __future__ import annotations

import ast
import dataclasses
import math
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bot.base import records

Decorator = Callable[..., Any]


def _shapes(dc: Decorator) -> dict[str, tuple[type, list[tuple[Any, ...]]]]:
    """name -> (class, argument tuples to build instances from)."""

    @dc(frozen=True)
    class Point:
        x: int
        y: int = 0

    @dc
    class Mutable:
        name: str
        items: list[int] = dataclasses.field(default_factory=list)

    @dc(frozen=True)
    class Partial:
        key: str
        note: str = dataclasses.field(default="", compare=False, repr=False)
        weight: float = dataclasses.field(default=1.0, hash=False)

    @dc(frozen=True, eq=False)
    class Identity:
        value: int

    @dc(frozen=True)
    class Empty:
        pass

    @dc(frozen=True)
    class One:
        value: Any

    @dc(frozen=True)
    class Child(Point):
        z: int = 0

    @dc(frozen=True)
    class OwnRepr:
        a: int

        def __repr__(self) -> str:
            return f"<{self.a}>"

    @dc(frozen=True)
    class OwnEq:
        a: int
        b: int = 0

        def __eq__(self, other: object) -> bool:
            return isinstance(other, OwnEq) and self.a == other.a

    @dc(frozen=True)
    class OwnHash:
        a: int

        def __hash__(self) -> int:
            return 7

    @dc
    class MutableOwnHash:
        a: int

        def __hash__(self) -> int:
            return 11

    @dc(frozen=True)
    class Nested:
        inner: Any
        items: tuple[Any, ...] = ()

    nan = math.nan
    return {
        "Point": (Point, [(1, 2), (1,), (2, 1), (-5, 10**20)]),
        "Mutable": (Mutable, [("a",), ("a", [1, 2]), ("b", [1])]),
        "Partial": (Partial, [("k",), ("k", "note"), ("k", "other", 2.0), ("j", "", 1.0)]),
        "Identity": (Identity, [(1,), (2,)]),
        "Empty": (Empty, [()]),
        "One": (One, [(1,), ("1",), ((1,),), (nan,), (None,)]),
        "Child": (Child, [(1, 2, 3), (1, 2), (1, 2, 4)]),
        "OwnRepr": (OwnRepr, [(1,), (2,)]),
        "OwnEq": (OwnEq, [(1, 1), (1, 2), (2, 1)]),
        "OwnHash": (OwnHash, [(1,), (2,)]),
        "MutableOwnHash": (MutableOwnHash, [(1,), (2,)]),
        "Nested": (Nested, [(None,), ("x", ("a", 1)), ((1.5, nan),)]),
    }


STD = _shapes(dataclasses.dataclass)
OURS = _shapes(records.dataclass)


def _hash(obj: Any) -> Any:
    try:
        value = hash(obj)
        return ("identity",) if value == object.__hash__(obj) else ("hash", value)
    except TypeError as exc:
        return ("unhashable", str(exc).replace("records.", ""))


@pytest.mark.parametrize("name", sorted(STD))
def test_instances_behave_as_the_standard_librarys(name: str) -> None:
    std_cls, args_list = STD[name]
    our_cls, _ = OURS[name]
    assert [f.name for f in dataclasses.fields(our_cls)] == [
        f.name for f in dataclasses.fields(std_cls)
    ]
    assert dataclasses.is_dataclass(our_cls)
    std = [std_cls(*a) for a in args_list]
    ours = [our_cls(*a) for a in args_list]
    for s, o in zip(std, ours, strict=True):
        assert repr(o) == repr(s)
        assert _hash(o) == _hash(s)
        assert dataclasses.astuple(o) == dataclasses.astuple(s)
        assert (o.__eq__(1) is NotImplemented) == (s.__eq__(1) is NotImplemented)
    for i in range(len(args_list)):
        for j in range(len(args_list)):
            assert (ours[i] == ours[j]) == (std[i] == std[j]), (i, j)
            assert (ours[i] != ours[j]) == (std[i] != std[j]), (i, j)
    # the same object, whatever its fields hold (NaN included), equals itself
    for s, o in zip(std, ours, strict=True):
        assert (o == o) == (s == s)
    assert std_cls.__hash__ is None or our_cls.__hash__ is not None
    assert (our_cls.__hash__ is None) == (std_cls.__hash__ is None)


@pytest.mark.parametrize("name", ["Point", "Partial", "Child", "Empty"])
def test_frozen_instances_refuse_assignment_and_copy_alike(name: str) -> None:
    std_cls, args_list = STD[name]
    our_cls, _ = OURS[name]
    for args in args_list:
        s, o = std_cls(*args), our_cls(*args)
        with pytest.raises(dataclasses.FrozenInstanceError):
            o.x = 3
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.x = 3
        assert repr(dataclasses.replace(o)) == repr(dataclasses.replace(s))
        assert dataclasses.replace(o) == o


@records.dataclass(frozen=True)
class Pickled:
    name: str
    size: int = 0


def test_instances_pickle_and_mutable_ones_assign() -> None:
    value = Pickled("a", 3)
    back = pickle.loads(pickle.dumps(value))
    assert back == value and hash(back) == hash(value) and repr(back) == repr(value)
    mutable = OURS["Mutable"][0]("a")
    mutable.name = "b"
    assert repr(mutable) == "_shapes.<locals>.Mutable(name='b', items=[])"


def test_a_recursive_value_prints_as_the_standard_librarys() -> None:
    std, ours = STD["Mutable"][0]("a"), OURS["Mutable"][0]("a")
    std.items.append(std)
    ours.items.append(ours)
    assert repr(ours) == repr(std)
    assert "..." in repr(ours)


def test_the_methods_are_shared_code_not_compiled_per_class() -> None:
    """The point of the module: repr, eq and hash come from closures compiled once."""
    point, child = OURS["Point"][0], OURS["Child"][0]
    assert point.__eq__.__code__ is child.__eq__.__code__
    assert point.__repr__.__code__ is child.__repr__.__code__
    assert point.__hash__.__code__ is child.__hash__.__code__


ROOT = Path(__file__).resolve().parents[1]


def test_the_linter_defines_its_dataclasses_with_the_cheap_decorator() -> None:
    """`bot lint` imports every module of `bot/` but the server's and every rule: a module
    there that takes `dataclass` from the standard library again pays its compile at
    every start. The server keeps the standard library's (it may not reach `bot.base`)."""
    offenders = []
    for path in sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "rules").rglob("*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("bot/server/") or rel == "bot/base/records.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            stdlib_import = (
                isinstance(node, ast.ImportFrom)
                and node.module == "dataclasses"
                and any(a.name == "dataclass" for a in node.names)
            )
            stdlib_call = (
                isinstance(node, ast.Attribute)
                and node.attr == "dataclass"
                and isinstance(node.value, ast.Name)
                and node.value.id == "dataclasses"
            )
            if stdlib_import or stdlib_call:
                offenders.append(rel)
    assert offenders == []


# -- the class itself: fields, docstring, signature, errors, the shapes left to the standard library


def _value(value: Any) -> str:
    if value is dataclasses.MISSING:
        return "MISSING"
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{value.__module__}.{value.__qualname__}"  # a function's repr holds its address
    return repr(value)


def _flags(f: Any) -> list[Any]:
    return [f.init, f.repr, f.compare, f.hash, f.kw_only]


def _describe(cls: Any) -> dict[str, Any]:
    import inspect

    init = cls.__dict__.get("__init__")
    if (
        init is not None
        and init.__code__.co_name == "__init__"
        and "args" in init.__code__.co_varnames
    ):
        # not compiled yet: build it as the first instance would
        cls.__init__ = records._compile_init(  # type: ignore[misc]
            cls, tuple(cls.__dataclass_fields__.values()), cls.__dataclass_params__.frozen
        )
    return {
        "fields": [
            [f.name, f.type, _value(f.default), _value(f.default_factory), *_flags(f)]
            for f in dataclasses.fields(cls)
        ],
        "doc": cls.__doc__,
        "match": getattr(cls, "__match_args__", None),
        "signature": str(inspect.signature(cls)),
        "params": repr(cls.__dataclass_params__),
        "hash": cls.__hash__ is None,
    }


ERRORS = {
    "mutable default": "class A:\n    items: list = []\n",
    "non-default after default": "class A:\n    a: int = 0\n    b: int\n",
    "field without annotation": "class A:\n    a = dataclasses.field(default=1)\n",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_a_wrong_class_is_refused_with_the_standard_librarys_error(name: str) -> None:
    def outcome(dc: Decorator) -> str:
        scope: dict[str, Any] = {"dataclasses": dataclasses}
        exec("from __future__ import annotations\n" + ERRORS[name], scope)
        try:
            dc(frozen=True)(scope["A"])
        except (TypeError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"
        return "accepted"

    assert outcome(records.dataclass) == outcome(dataclasses.dataclass) != "accepted"


def test_frozen_and_mutable_classes_do_not_inherit_from_each_other() -> None:
    for dc in (records.dataclass, dataclasses.dataclass):

        @dc(frozen=True)
        class Frozen:
            a: int

        @dc
        class Loose:
            a: int

        with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen"):
            dc(type("Sub", (Frozen,), {"__annotations__": {"b": "int"}}))
        with pytest.raises(TypeError, match="cannot inherit frozen dataclass from a non-frozen"):
            dc(frozen=True)(type("Sub", (Loose,), {"__annotations__": {"b": "int"}}))


def test_init_is_compiled_when_the_class_is_first_built() -> None:
    @records.dataclass(frozen=True)
    class Later:
        a: int
        b: list[int] = dataclasses.field(default_factory=list)

    @records.dataclass(frozen=True)
    class Sub(Later):
        c: str = "x"

    stub = Later.__dict__["__init__"]
    assert "args" in stub.__code__.co_varnames  # nothing compiled yet
    # the subclass first: its own __init__ is compiled, the base's is still waiting
    assert (
        repr(Sub(1))
        == "test_init_is_compiled_when_the_class_is_first_built.<locals>.Sub(a=1, b=[], c='x')"
    )
    assert Later.__dict__["__init__"] is stub
    one, two = Later(1), Later(2, [3])
    assert Later.__dict__["__init__"] is not stub
    assert (one.b, two.b, one.b is Later(1).b) == ([], [3], False)
    with pytest.raises(TypeError):
        Later()  # the compiled __init__ checks its arguments
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
        one.a = 5
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'a'"):
        del one.a


def test_a_plain_subclass_of_a_frozen_record_may_set_its_own_attributes() -> None:
    for dc in (records.dataclass, dataclasses.dataclass):

        @dc(frozen=True)
        class Base:
            a: int

        class Plain(Base):
            pass

        value = Plain(1)
        value.extra = 2  # type: ignore[attr-defined]
        assert value.extra == 2  # type: ignore[attr-defined]
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.a = 3


def test_shapes_it_does_not_build_are_the_standard_librarys() -> None:
    """ClassVar, InitVar and keyword-only fields go to the standard library whole."""
    for dc in (records.dataclass, dataclasses.dataclass):

        @dc(frozen=True)
        class Counted:
            a: int
            total: ClassVar[int] = 0
            b: int = dataclasses.field(default=0, kw_only=True)

        assert [f.name for f in dataclasses.fields(Counted)] == ["a", "b"]
        assert repr(Counted(1, b=2)).endswith("Counted(a=1, b=2)")


_DUMP = """
import dataclasses, importlib, json, pkgutil, sys
sys.path.insert(0, {root!r})
import bot.base.records as records
import tests.test_records as t
if {std}:
    def _stdlib(cls, init, repr, eq, frozen):
        return dataclasses.dataclass(cls, init=init, repr=repr, eq=eq, frozen=frozen)
    records._process = _stdlib
for pkg in ("bot", "rules"):
    mod = importlib.import_module(pkg)
    for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
        if not info.name.startswith("bot.server") and not info.name.endswith("__main__"):
            importlib.import_module(info.name)
out = {{}}
for name, module in sorted(sys.modules.items()):
    if not name.startswith(("bot.", "rules.")) or name.startswith("bot.server"):
        continue
    for attr, value in vars(module).items():
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
            out[name + "." + value.__qualname__] = t._describe(value)
print(json.dumps(out, default=repr, sort_keys=True))
"""


def test_every_record_of_the_linter_is_the_standard_librarys_class() -> None:
    """Each dataclass of `bot/` and `rules/`, imported as `bot lint` imports it and as the
    standard library's decorator would have made it: the same fields, docstring,
    `__match_args__`, constructor signature, params and hashability."""
    import json
    import subprocess
    import sys

    def dump(std: bool) -> dict[str, Any]:
        code = _DUMP.format(root=str(ROOT), std=std)
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},  # sets print in one order on both sides
        )
        return json.loads(out.stdout)

    ours, std = dump(False), dump(True)
    assert len(ours) > 100
    assert ours == std
