"""A repository's pydantic models, read statically: field names, requiredness, types. Pure.

The target repository validates its master configs with pydantic models
(InferenceX `utils/matrix_logic/validation.py`). A pull request may change
them, adding a field or a value; the bot then judges the PR's entries by the
models the PR brings. The module is read with `ast` only, never imported or
run: it is hostile input like everything a PR holds.

What is read, per `class X(BaseModel)` (and classes derived from one):

- each annotated field: the key it is written under (its `alias=`, resolved
  through string constants and `Enum` members such as `Fields.DP_ATTN.value`,
  and its attribute name when `populate_by_name=True` or no alias is given),
  whether it is required (no default, no `default=`/`default_factory=`; an
  `Optional[...]` without a default is still required, as in pydantic 2), and
  its type as a small tree (`int`, `Literal[...]`, `List[...]`, `Optional`,
  `Union`, another model, a module-level alias of one of these);
- whether unknown keys are forbidden (`model_config = ConfigDict(extra='forbid')`
  or an inner `class Config: extra = 'forbid'`); pydantic's default ignores them.

Model validators (`@model_validator`) are code, not declarations: they are not
read, and nothing here claims to know the cross-field rules they enforce.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import field
from typing import Literal

from bot.base.records import dataclass
from bot.parse.schema_errors import SchemaProblem
from bot.parse.yamlsafe import type_name

MAX_BYTES = 1024 * 1024
MAX_CLASSES = 500

TypeKind = Literal["any", "none", "scalar", "literal", "list", "dict", "union", "model"]


@dataclass(frozen=True)
class TypeRef:
    """A field's annotation as a tree.

    `scalar` names a builtin (`int`, `str`, `bool`, `float`); `literal` holds the
    allowed values; `list` and `dict` hold their element (value) type in `args`;
    `union` holds its options; `model` names another model of the module.
    """

    kind: TypeKind
    name: str = ""
    values: tuple[object, ...] = ()
    args: tuple[TypeRef, ...] = ()

    def options(self) -> Iterator[TypeRef]:
        """The non-union types this one stands for."""
        if self.kind == "union":
            for arg in self.args:
                yield from arg.options()
        else:
            yield self


ANY = TypeRef("any")


@dataclass(frozen=True)
class FieldSpec:
    attribute: str
    keys: tuple[str, ...]  # the keys a document may write it under
    type: TypeRef
    required: bool


@dataclass(frozen=True)
class ModelSpec:
    name: str
    fields: Mapping[str, FieldSpec]  # by key (alias and, where accepted, attribute name)
    forbid_extra: bool
    line: int
    populate_by_name: bool = False


@dataclass(frozen=True)
class ModelTable:
    """The models of one module; `error` is set when the module could not be read."""

    path: str
    models: Mapping[str, ModelSpec] = field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.models)

    def model(self, name: str) -> ModelSpec | None:
        return self.models.get(name)


def parse_models(path: str, text: str) -> ModelTable:
    """The pydantic models `text` declares. Never raises: a module that cannot be read
    comes back with `error` set and no models."""
    if len(text) > MAX_BYTES:
        return ModelTable(path, error="too-large")
    try:
        module = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return ModelTable(path, error=type(exc).__name__)
    try:
        return ModelTable(path, _Reader(module).models())
    except RecursionError:
        return ModelTable(path, error="RecursionError")


class _Reader:
    def __init__(self, module: ast.Module) -> None:
        self.module = module
        self.constants: dict[str, object] = {}
        self.enums: dict[str, dict[str, object]] = {}
        self.aliases: dict[str, ast.expr] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        for node in module.body:
            if isinstance(node, ast.ClassDef) and len(self.classes) < MAX_CLASSES:
                self.classes[node.name] = node
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    if isinstance(node.value, ast.Constant):
                        self.constants[target.id] = node.value.value
                    else:
                        self.aliases[target.id] = node.value
            elif (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and node.value is not None
            ):
                self.aliases[node.target.id] = node.value
        for name, cls in self.classes.items():
            if any(_base_name(b) == "Enum" or _base_name(b).endswith("Enum") for b in cls.bases):
                members: dict[str, object] = {}
                for stmt in cls.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)
                        and isinstance(stmt.value, ast.Constant)
                    ):
                        members[stmt.targets[0].id] = stmt.value.value
                self.enums[name] = members

    # -- which classes are models ------------------------------------------------------

    def _is_model(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        cls = self.classes.get(name)
        if cls is None or name in seen:
            return False
        for base in cls.bases:
            b = _base_name(base)
            if b == "BaseModel" or self._is_model(b, seen | {name}):
                return True
        return False

    def models(self) -> dict[str, ModelSpec]:
        out: dict[str, ModelSpec] = {}
        for name in self.classes:
            if self._is_model(name):
                out[name] = self._model(name, frozenset())
        return out

    def _model(self, name: str, seen: frozenset[str]) -> ModelSpec:
        cls = self.classes[name]
        fields: dict[str, FieldSpec] = {}
        forbid: bool | None = None
        populate = False
        for base in cls.bases:  # inherited fields and settings first, own ones override
            b = _base_name(base)
            if b in self.classes and b not in seen and self._is_model(b):
                parent = self._model(b, seen | {name})
                fields.update(parent.fields)
                forbid = parent.forbid_extra
                populate = parent.populate_by_name
        specs: list[tuple[str, ast.expr, ast.expr | None]] = []
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "model_config" for t in stmt.targets
            ):
                settings = self._call_kwargs(stmt.value)
                if "extra" in settings:
                    forbid = settings["extra"] == "forbid"
                if "populate_by_name" in settings:
                    populate = settings["populate_by_name"] is True
            elif isinstance(stmt, ast.ClassDef) and stmt.name == "Config":
                for inner in stmt.body:
                    if (
                        isinstance(inner, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "extra" for t in inner.targets)
                        and isinstance(inner.value, ast.Constant)
                    ):
                        forbid = inner.value.value == "forbid"
                    if (
                        isinstance(inner, ast.Assign)
                        and any(
                            isinstance(t, ast.Name) and t.id == "allow_population_by_field_name"
                            for t in inner.targets
                        )
                        and isinstance(inner.value, ast.Constant)
                    ):
                        populate = inner.value.value is True
            elif (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and not stmt.target.id.startswith("_")
                and _base_name(stmt.annotation) != "ClassVar"
                and stmt.target.id != "model_config"
            ):
                specs.append((stmt.target.id, stmt.annotation, stmt.value))
        for attribute, annotation, value in specs:
            alias, required = self._field_call(value)
            keys = (alias, attribute) if alias and populate else (alias or attribute,)
            for stale in [k for k, f in fields.items() if f.attribute == attribute]:
                del fields[stale]
            spec = FieldSpec(attribute, keys, self._type(annotation, 0), required)
            for key in keys:
                fields[key] = spec
        return ModelSpec(name, fields, bool(forbid), cls.lineno, populate)

    # -- values ------------------------------------------------------------------------

    def _value(self, node: ast.expr) -> object:
        """A constant, a module constant, or `Enum.MEMBER.value`; None when not one."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "value"
            and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
        ):
            return self.enums.get(node.value.value.id, {}).get(node.value.attr)
        return None

    def _call_kwargs(self, node: ast.expr) -> dict[str, object]:
        if isinstance(node, ast.Call):
            return {k.arg: self._value(k.value) for k in node.keywords if k.arg}
        if isinstance(node, ast.Dict):
            return {
                str(self._value(k)): self._value(v)
                for k, v in zip(node.keys, node.values, strict=False)
                if k is not None
            }
        return {}

    def _field_call(self, value: ast.expr | None) -> tuple[str | None, bool]:
        """(alias, required) of a field's default expression."""
        if value is None:
            return None, True
        if not (isinstance(value, ast.Call) and _base_name(value.func) == "Field"):
            return None, False  # a plain default
        alias: str | None = None
        required = True
        if value.args:
            first = value.args[0]
            required = isinstance(first, ast.Constant) and first.value is Ellipsis
        for kw in value.keywords:
            if kw.arg == "alias":
                found = self._value(kw.value)
                alias = found if isinstance(found, str) else None
            elif kw.arg in ("default", "default_factory"):
                required = isinstance(kw.value, ast.Constant) and kw.value.value is Ellipsis
        return alias, required

    # -- types -------------------------------------------------------------------------

    def _type(self, node: ast.expr, depth: int) -> TypeRef:
        if depth > 20:
            return ANY
        if isinstance(node, ast.Constant):
            if node.value is None:
                return TypeRef("none")
            if isinstance(node.value, str):  # a forward reference
                try:
                    inner = ast.parse(node.value, mode="eval").body
                except SyntaxError:
                    return ANY
                return self._type(inner, depth + 1)
            return ANY
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return TypeRef(
                "union", args=(self._type(node.left, depth + 1), self._type(node.right, depth + 1))
            )
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = _base_name(node)
            if name in ("int", "str", "bool", "float", "bytes"):
                return TypeRef("scalar", name)
            if name in ("list", "List", "Sequence", "set", "Set", "tuple", "Tuple"):
                return TypeRef("list", args=(ANY,))
            if name in ("dict", "Dict", "Mapping"):
                return TypeRef("dict", args=(ANY,))
            if name in self.classes and self._is_model(name):
                return TypeRef("model", name)
            if name in self.enums:
                return TypeRef("literal", name, values=tuple(self.enums[name].values()))
            if name in self.aliases and isinstance(node, ast.Name):
                return self._type(self.aliases[name], depth + 1)
            return ANY
        if isinstance(node, ast.Subscript):
            head = _base_name(node.value)
            args = _subscript_args(node.slice)
            if head == "Optional" and args:
                return TypeRef("union", args=(self._type(args[0], depth + 1), TypeRef("none")))
            if head == "Union":
                return TypeRef("union", args=tuple(self._type(a, depth + 1) for a in args))
            if head == "Literal":
                return TypeRef("literal", values=tuple(self._value(a) for a in args))
            if head == "Annotated" and args:
                return self._type(args[0], depth + 1)
            if head in ("list", "List", "Sequence", "set", "Set", "tuple", "Tuple"):
                return TypeRef("list", args=(self._type(args[0], depth + 1) if args else ANY,))
            if head in ("dict", "Dict", "Mapping"):
                value = self._type(args[1], depth + 1) if len(args) > 1 else ANY
                return TypeRef("dict", args=(value,))
            return ANY
        return ANY


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _base_name(node.func)
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)
    return ""


def _subscript_args(node: ast.expr) -> Sequence[ast.expr]:
    return node.elts if isinstance(node, ast.Tuple) else [node]


# -- questions about a document ----------------------------------------------------------

Verdict = Literal["accepts", "rejects", "unknown"]

_YAML_TYPES: Mapping[str, tuple[str, ...]] = {
    "integer": ("int", "float"),
    "number": ("float",),
    "string": ("str",),
    "boolean": ("bool",),
    "list": (),
    "mapping": (),
    "null": (),
}


def types_at(table: ModelTable, root: str, path: Sequence[object]) -> list[TypeRef] | None:
    """The types the models give the value at `path` below an instance of `root`.

    None when the path leaves what the models declare (an unknown key, a model
    that is not in the module, an untyped value): nothing can be said there.
    """
    model = table.model(root)
    if model is None:
        return None
    current: list[TypeRef] = [TypeRef("model", root)]
    for step in path:
        following: list[TypeRef] = []
        for t in current:
            for opt in t.options():
                if opt.kind == "any":
                    return None
                if (isinstance(step, int) and opt.kind == "list") or (
                    isinstance(step, str) and opt.kind == "dict"
                ):
                    following.append(opt.args[0])
                elif isinstance(step, str) and opt.kind == "model":
                    spec = table.model(opt.name)
                    if spec is None:
                        return None
                    found = spec.fields.get(step)
                    if found is not None:
                        following.append(found.type)
        if not following:
            return None
        current = following
    return current


def _models(table: ModelTable, types: list[TypeRef]) -> list[ModelSpec] | None:
    out: list[ModelSpec] = []
    for t in types:
        for opt in t.options():
            if opt.kind == "none":
                continue
            if opt.kind != "model":
                return None
            spec = table.model(opt.name)
            if spec is None:
                return None
            out.append(spec)
    return out or None


def key_allowed(table: ModelTable, root: str, path: Sequence[object], key: str) -> Verdict:
    """Whether the mapping at `path` may hold `key`."""
    types = types_at(table, root, path)
    models = _models(table, types) if types is not None else None
    if models is None:
        return "unknown"
    if any(key in m.fields or not m.forbid_extra for m in models):
        return "accepts"
    return "rejects"


def key_required(table: ModelTable, root: str, path: Sequence[object], key: str) -> Verdict:
    """Whether the mapping at `path` must hold `key`: "rejects" means it may be left out."""
    types = types_at(table, root, path)
    models = _models(table, types) if types is not None else None
    if models is None:
        return "unknown"
    if all(key in m.fields and m.fields[key].required for m in models):
        return "accepts"
    return "rejects"


def value_allowed(
    table: ModelTable, root: str, path: Sequence[object], value: object, yaml_type: str
) -> Verdict:
    """Whether the models accept `value` (a YAML `yaml_type`) at `path`, by its type."""
    types = types_at(table, root, path)
    if types is None:
        return "unknown"
    for t in types:
        for opt in t.options():
            if opt.kind == "any":
                return "unknown"
            if opt.kind == "none" and value is None:
                return "accepts"
            if opt.kind == "literal":
                if any(v == value and type(v) is type(value) for v in opt.values):
                    return "accepts"
            elif opt.kind == "scalar":
                if opt.name in _YAML_TYPES.get(yaml_type, ()):
                    return "accepts"
            elif (opt.kind == "list" and yaml_type == "list") or (
                opt.kind in ("dict", "model") and yaml_type == "mapping"
            ):
                return "accepts"
    return "rejects"


def declares(table: ModelTable, root: str, problem: SchemaProblem) -> bool:
    """Whether the models declare what `problem` says the schema forbids.

    Only a field's own shape is judged: a key the schema does not know, a key it
    requires, a value outside its enum or of another type. A problem the schema
    words itself (`x-messages`: a cross-field rule written as a conditional) is a
    model validator's business, which is code and not read here: False.
    """
    if problem.custom is not None:
        return False
    path = list(problem.path)
    if problem.kind == "unknown" and problem.name is not None:
        return key_allowed(table, root, path, problem.name) == "accepts"
    if problem.kind == "missing" and problem.name is not None:
        return key_required(table, root, path, problem.name) == "rejects"
    if problem.kind in ("enum", "type"):
        return (
            value_allowed(table, root, path, problem.value, type_name(problem.value)) == "accepts"
        )
    return False
