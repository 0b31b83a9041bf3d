"""`bot.base.records.dataclass` against the standard library's, class shape by class shape.

Each shape is defined twice, once with each decorator, from the same body; instances
built from the same arguments must print, compare, hash, refuse assignment and copy
exactly alike."""

from __future__ import annotations

import ast
import dataclasses
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
