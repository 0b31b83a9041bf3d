"""Target-repository configuration and domain knowledge. Pure: text in, data out.

Knowledge ships as `bot/knowledge/default.yaml`; a target repository may
override any part of it in `.recipe-bot.yml` under `knowledge:`. Both are
validated with JSON Schemas from `schemas/`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import field
from importlib import resources
from typing import Any

from bot.base.knowledge import Knowledge as Knowledge  # re-exported
from bot.base.records import dataclass
from bot.core.configfile import CONFIG_FILENAMES as CONFIG_FILENAMES  # re-exported
from bot.core.configfile import ConfigError as ConfigError  # re-exported
from bot.core.model import SEVERITIES, Severity
from bot.core.registry import all_rules, resolve_rule
from bot.parse.yamlsafe import YamlError, load_safe


def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("bot.schemas").joinpath(name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _validate(data: Any, schema_name: str, label: str) -> None:
    import jsonschema  # on first use: a lint that validates nothing never loads it

    schema = load_schema(schema_name)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise ConfigError(f"{label}: {where}: {err.message}")


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


@dataclass(frozen=True)
class Config:
    recipes: tuple[str, ...] = ()
    recipes_exclude: tuple[str, ...] = ()
    changelog: str = "perf-changelog.yaml"
    golden_dir: str = "golden_al_distribution"
    master_configs: tuple[str, ...] = ()
    disabled: frozenset[str] = frozenset()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    knowledge: Knowledge = field(default_factory=lambda: Knowledge({}))
    source: str = "defaults"


def _rule_id(name: str, source: str, where: str) -> str:
    """The rule id `name` (an id or a slug) names; an unknown one is a clear error."""
    rid = resolve_rule(str(name))
    if rid is None:
        known = ", ".join(rm.rule.id for rm in all_rules() if rm.rule.target != "signoff")
        raise ConfigError(
            f"{source}: {where}: unknown rule {name!r} (not a rule id or slug; known ids: {known})"
        )
    return rid


def default_knowledge_text() -> str:
    return resources.files("bot.knowledge").joinpath("default.yaml").read_text(encoding="utf-8")


def knowledge_digest(text: str) -> str:
    """What `default.json` records of the YAML text it was compiled from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_knowledge() -> dict[str, Any]:
    """The shipped knowledge as data: read from `bot/knowledge/default.json` (what
    `default.yaml` parses to, written by `python -m bot.knowledge`) when that file was
    compiled from this very YAML text, else parsed from the YAML. JSON reads in a
    hundredth of the YAML's time at every start; a stale or missing JSON costs only that."""
    text = default_knowledge_text()
    try:
        raw = resources.files("bot.knowledge").joinpath("default.json").read_text(encoding="utf-8")
        compiled = json.loads(raw)
        if compiled.get("source_sha256") == knowledge_digest(text):
            data: dict[str, Any] = compiled["data"]
            return data
    except (OSError, ValueError, AttributeError, KeyError):
        pass
    try:
        return dict(load_safe(text, label="default knowledge"))
    except YamlError as exc:  # pragma: no cover - shipped data
        raise ConfigError(str(exc)) from exc


def build_config(repo_config_text: str | None, *, source: str = "defaults") -> Config:
    """Defaults for an InferenceX-shaped repository, overridden by the repo's config."""
    kdata = default_knowledge()
    user: Mapping[str, Any] = {}
    if repo_config_text is not None:
        try:
            loaded = load_safe(repo_config_text, label=source)
        except YamlError as exc:
            raise ConfigError(str(exc)) from exc
        if loaded is None:
            loaded = {}
        _validate(loaded, "config.schema.json", source)
        user = loaded
    own_knowledge = user.get("knowledge", {}) or {}
    knowledge = deep_merge(kdata, own_knowledge)
    if own_knowledge:
        # the shipped knowledge alone is checked once, by the tests
        # (tests/test_knowledge_sections.py::test_the_shipped_knowledge_meets_its_schema), not on every run
        _validate(knowledge, "knowledge.schema.json", f"{source}: knowledge")
    paths = deep_merge(knowledge.get("paths", {}), user.get("paths", {}) or {})
    rules_cfg = user.get("rules", {}) or {}
    severity = {
        _rule_id(k, source, "rules.severity"): v
        for k, v in (rules_cfg.get("severity", {}) or {}).items()
    }
    disabled = frozenset(
        _rule_id(str(r), source, "rules.disable") for r in rules_cfg.get("disable", []) or []
    )
    # the rules the repository puts behind a sign-off row must exist too
    own = ((user.get("knowledge") or {}).get("signoff") or {}).get("rules") or {}
    for row, ids in own.items():
        for rid in ids or []:
            _rule_id(str(rid), source, f"knowledge.signoff.rules.{row}")
    for sev in severity.values():
        if sev not in SEVERITIES:  # pragma: no cover - schema enforces
            raise ConfigError(f"{source}: unknown severity {sev!r}")
    return Config(
        recipes=tuple(paths.get("recipes", ())),
        recipes_exclude=tuple(paths.get("recipes_exclude", ())),
        changelog=str(paths.get("changelog", "perf-changelog.yaml")),
        golden_dir=str(paths.get("golden", "golden_al_distribution")),
        master_configs=tuple(paths.get("master_configs", ())),
        disabled=disabled,
        severity=severity,
        knowledge=Knowledge(knowledge),
        source=source,
    )
