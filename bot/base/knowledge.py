"""Domain knowledge as the rules and parsers read it. Pure: data in, typed views out.

`bot.core.config` loads and validates it (the shipped `bot/knowledge/default.yaml`
merged with the target repository's overrides); everything else reads it through
this class: the typed accessors for the sections several modules read, `section()`
for the tables one rule owns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from bot.base.records import dataclass


@dataclass(frozen=True)
class GoldenEntry:
    """`knowledge.golden[]`: which golden-curve file belongs to which model, method, draft."""

    file: str
    model: str | None
    method: str | None
    drafts: tuple[str, ...] = ()


@dataclass(frozen=True)
class UpstreamEngine:
    """`knowledge.upstream_engines.<engine>`: its display name, images and frameworks."""

    name: str
    images: tuple[str, ...] = ()
    frameworks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skus:
    """`knowledge.skus`: established hardware and runner labels that break the pattern."""

    established: frozenset[str] = frozenset()
    runners: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MemoryDefaults:
    """`knowledge.memory`: draft-head memory limits and each engine's own default."""

    default_limit: Mapping[str, float] = field(default_factory=dict)
    engine_default: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ThinkingSwitches:
    """`knowledge.thinking`: what turns a model's thinking on or off in a launch."""

    # chat-template kwarg -> its value (lower case) -> "on" | "off"
    kwargs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # flag -> its value (lower case) -> "on" | "off"
    flags: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # environment variable -> the values (lower case) that mean on; any other means off
    env_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # words of a `--chat-template` file name that mean a thinking template
    chat_template_on: tuple[str, ...] = ("thinking",)


@dataclass(frozen=True)
class Mark:
    """`knowledge.practices.<name>.shown_by[]`: how a tree shows a practice.

    A path matching the glob `path`; with `contains`, one whose text holds it.
    """

    path: str
    contains: str | None = None


@dataclass(frozen=True)
class ModelTable:
    """`knowledge.model_tables.<path>`: a model table (multi-node) and what runs it."""

    launcher: str | None  # the launch script that runs the table with its flags
    eval_rewrite: str | None  # the setting the launcher rewrites for EVAL_ONLY runs


@dataclass(frozen=True)
class SharedLaunch:
    """`knowledge.shared_launch`: which files are launch code several recipes share, and
    how launch files name the repository (`bot.parse.deps.Layout`)."""

    paths: tuple[str, ...] = ()  # globs of shared launch files
    roots: tuple[str, ...] = ()  # prefixes that mean the repository's root
    own_dir: tuple[str, ...] = ()  # spellings of the launching file's own directory
    top: tuple[str, ...] = ()  # top-level directories a relative path may start at


@dataclass(frozen=True)
class CommandRunner:
    """`knowledge.recipe_helpers.command_runners.<helper>`: a helper that runs the command
    line a variable holds, and the benchmark client that command line is."""

    variable: str | None
    client: str | None


@dataclass(frozen=True)
class RecipeHelpers:
    """`knowledge.recipe_helpers`: the target repository's helper functions."""

    inert: frozenset[str] = frozenset()  # state-free helpers the interpreter skips
    command_runners: Mapping[str, CommandRunner] = field(default_factory=dict)


@dataclass(frozen=True)
class ReasoningEffort:
    """`knowledge.reasoning_effort`: where a launch sets the reasoning effort."""

    kwargs: tuple[str, ...] = ()  # chat-template kwargs and request fields that carry it
    env: tuple[str, ...] = ()  # server environment defaults for requests that set none


@dataclass(frozen=True)
class SrtBenchmark:
    """`knowledge.benchmark_client.srt_benchmarks.<type>`: the block key of a multi-node
    benchmark that turns the chat template on, and its value when left out."""

    chat_key: str
    default: bool


@dataclass(frozen=True)
class BenchmarkClient:
    """`knowledge.benchmark_client`: how recipes drive the throughput benchmark and what
    makes it chat-templated."""

    # client (command, script or module name) -> the flags that make it chat-templated
    commands: Mapping[str, str] = field(default_factory=dict)
    chat_flags: frozenset[str] = frozenset()
    chat_backends: frozenset[str] = frozenset()  # --backend / --endpoint-type values
    chat_endpoints: frozenset[str] = frozenset()
    chat_datasets: frozenset[str] = frozenset()  # --dataset-name values templated client-side
    chat_by_default: frozenset[str] = frozenset()  # clients on a chat endpoint by default
    # client -> the chat-template flags it accepts
    client_chat_flags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    srt_benchmarks: Mapping[str, SrtBenchmark] = field(default_factory=dict)


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in value or ())


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _floats(value: Any) -> Mapping[str, float]:
    return MappingProxyType({str(k): float(v) for k, v in _table(value).items()})


def _str_or_none(value: Any) -> str | None:
    """`value` as text; None when it is empty or absent."""
    return str(value) if value else None


@dataclass(frozen=True)
class Knowledge:
    """The merged knowledge (validated by `schemas/knowledge.schema.json`).

    The typed views are computed once per instance; `section()` returns a raw
    table for the sections a single rule reads.
    """

    data: Mapping[str, Any]

    @cached_property
    def golden(self) -> tuple[GoldenEntry, ...]:
        out = []
        for e in self.data.get("golden") or ():
            if isinstance(e, Mapping) and "file" in e:
                model, method = e.get("model"), e.get("method")
                out.append(
                    GoldenEntry(
                        file=str(e["file"]),
                        model=None if model is None else str(model),
                        method=None if method is None else str(method),
                        drafts=_strs(e.get("drafts")),
                    )
                )
        return tuple(out)

    @cached_property
    def spec_methods(self) -> Mapping[str, str]:
        """Spec-decode method names as engines spell them -> canonical method."""
        return MappingProxyType(
            {str(k): str(v) for k, v in _table(self.data.get("spec_methods")).items()}
        )

    @cached_property
    def thinking(self) -> ThinkingSwitches:
        table = _table(self.data.get("thinking"))

        def modes(value: Any) -> Mapping[str, Mapping[str, str]]:
            return MappingProxyType(
                {
                    str(k): MappingProxyType({str(a): str(b) for a, b in _table(v).items()})
                    for k, v in _table(value).items()
                }
            )

        return ThinkingSwitches(
            kwargs=modes(table.get("kwargs")),
            flags=modes(table.get("flags")),
            env_on=MappingProxyType(
                {str(k): _strs(v) for k, v in _table(table.get("env_on")).items()}
            ),
            chat_template_on=_strs(table["chat_template_on"])
            if "chat_template_on" in table
            else ("thinking",),
        )

    @cached_property
    def memory(self) -> MemoryDefaults:
        table = _table(self.data.get("memory"))
        return MemoryDefaults(
            default_limit=_floats(table.get("default_limit")),
            engine_default=_floats(table.get("engine_default")),
        )

    @cached_property
    def upstream_engines(self) -> Mapping[str, UpstreamEngine]:
        out = {}
        for key, spec in _table(self.data.get("upstream_engines")).items():
            spec = _table(spec)
            out[str(key)] = UpstreamEngine(
                name=str(spec.get("name", key)),
                images=_strs(spec.get("images")),
                frameworks=_strs(spec.get("frameworks")),
            )
        return MappingProxyType(out)

    @cached_property
    def skus(self) -> Skus:
        table = _table(self.data.get("skus"))
        return Skus(
            established=frozenset(s.lower() for s in _strs(table.get("established"))),
            runners=MappingProxyType(
                {str(k): str(v) for k, v in _table(table.get("runners")).items()}
            ),
        )

    @cached_property
    def model_families(self) -> tuple[frozenset[str], ...]:
        return tuple(frozenset(_strs(g)) for g in self.data.get("model_families") or ())

    @cached_property
    def primary_engines(self) -> Mapping[str, tuple[str, ...]]:
        return MappingProxyType(
            {str(k): _strs(v) for k, v in _table(self.data.get("primary_engines")).items()}
        )

    @cached_property
    def env_domains(self) -> Mapping[str, frozenset[str]]:
        """The values each recipe input can take ("" = unset); inputs without values dropped."""
        table = _table(self.data.get("env_domains"))
        return MappingProxyType({str(k): frozenset(_strs(v)) for k, v in table.items() if v})

    @cached_property
    def pr_link_prefix(self) -> str | None:
        """`changelog.pr_link_prefix`: the URL a changelog `pr-link` starts with."""
        explicit = _table(self.data.get("changelog")).get("pr_link_prefix")
        return str(explicit) if explicit else None

    @cached_property
    def archived_master_configs(self) -> tuple[str, ...]:
        return _strs(self.data.get("archived_master_configs"))

    @cached_property
    def master_config_schema_code(self) -> tuple[str, ...]:
        return _strs(self.data.get("master_config_schema_code"))

    @cached_property
    def practices(self) -> Mapping[str, tuple[Mark, ...]]:
        """`practices`: each practice that arrived with a change in the repository, and
        the marks that show it in a tree (any one of them is enough)."""
        out: dict[str, tuple[Mark, ...]] = {}
        for name, spec in _table(self.data.get("practices")).items():
            marks = []
            for m in _table(spec).get("shown_by") or ():
                if isinstance(m, Mapping) and m.get("path"):
                    contains = m.get("contains")
                    marks.append(Mark(str(m["path"]), None if contains is None else str(contains)))
            out[str(name)] = tuple(marks)
        return MappingProxyType(out)

    @cached_property
    def model_tables(self) -> Mapping[str, ModelTable]:
        """`model_tables`: the model tables by path (entries that are not tables dropped)."""
        out = {}
        for path, entry in _table(self.data.get("model_tables")).items():
            if isinstance(entry, Mapping):
                rewrite = entry.get("eval_rewrite")
                out[str(path)] = ModelTable(
                    launcher=_str_or_none(entry.get("launcher")),
                    eval_rewrite=rewrite if isinstance(rewrite, str) and rewrite else None,
                )
        return MappingProxyType(out)

    @cached_property
    def shared_launch(self) -> SharedLaunch:
        table = _table(self.data.get("shared_launch"))
        return SharedLaunch(
            paths=_strs(table.get("paths")),
            roots=_strs(table.get("roots")),
            own_dir=_strs(table.get("own_dir")),
            top=_strs(table.get("top")),
        )

    @cached_property
    def recipe_helpers(self) -> RecipeHelpers:
        table = _table(self.data.get("recipe_helpers"))
        runners = {
            str(name): CommandRunner(
                _str_or_none(spec.get("variable")), _str_or_none(spec.get("client"))
            )
            for name, spec in _table(table.get("command_runners")).items()
            if isinstance(spec, Mapping)
        }
        return RecipeHelpers(
            inert=frozenset(_strs(table.get("inert"))), command_runners=MappingProxyType(runners)
        )

    @cached_property
    def reasoning_effort(self) -> ReasoningEffort:
        table = _table(self.data.get("reasoning_effort"))
        return ReasoningEffort(kwargs=_strs(table.get("kwargs")), env=_strs(table.get("env")))

    @cached_property
    def benchmark_client(self) -> BenchmarkClient:
        table = _table(self.data.get("benchmark_client"))
        srt = {
            str(k): SrtBenchmark(str(v.get("chat_key", "")), bool(v.get("default")))
            for k, v in _table(table.get("srt_benchmarks")).items()
            if isinstance(v, Mapping)
        }
        return BenchmarkClient(
            commands=MappingProxyType(
                {str(k): str(v) for k, v in _table(table.get("commands")).items()}
            ),
            chat_flags=frozenset(_strs(table.get("chat_flags"))),
            chat_backends=frozenset(_strs(table.get("chat_backends"))),
            chat_endpoints=frozenset(_strs(table.get("chat_endpoints"))),
            chat_datasets=frozenset(_strs(table.get("chat_datasets"))),
            chat_by_default=frozenset(_strs(table.get("chat_by_default"))),
            client_chat_flags=MappingProxyType(
                {str(k): _strs(v) for k, v in _table(table.get("client_chat_flags")).items()}
            ),
            srt_benchmarks=MappingProxyType(srt),
        )

    @cached_property
    def runner_launchers(self) -> tuple[str, ...]:
        return _strs(self.data.get("runner_launchers"))

    def model(self, prefix: str | None) -> Mapping[str, Any]:
        if not prefix:
            return {}
        models: Mapping[str, Any] = self.data.get("models", {})
        return dict(models.get(self.prefix(prefix) or prefix, {}) or {})

    def prefix(self, name: str | None) -> str | None:
        """The model prefix knowledge uses for `name` (a prefix or one of its `aliases`)."""
        if not name:
            return name
        models: Mapping[str, Any] = self.data.get("models", {}) or {}
        if name in models:
            return name
        for key, entry in models.items():
            if isinstance(entry, Mapping) and name in (entry.get("aliases") or ()):
                return str(key)
        return name

    def section(self, name: str) -> Any:
        return self.data.get(name, {})
