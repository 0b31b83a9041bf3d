"""Find rule modules under `bot.rules` (the top-level `rules/` folder).

A rule module exposes `RULE` and `check`; nothing registers itself. The
registry refuses duplicate ids and a file name that does not match its id.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from bot.base.records import dataclass
from bot.core.model import Finding, Rule

ID_RE = re.compile(r"^(RCP|CHL|CFG|SGN|PRL)\d{3}$")
SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class RegistryError(Exception):
    pass


@dataclass(frozen=True)
class RuleModule:
    rule: Rule
    check: Callable[..., Iterator[Finding]]
    module: str


def expected_module_name(rule: Rule) -> str:
    return f"{rule.id}_{rule.slug.replace('-', '_')}"


def _iter_modules(package: ModuleType) -> Iterator[ModuleType]:
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.ispkg:
            continue
        yield importlib.import_module(info.name)


def load_rules(package_name: str = "bot.rules") -> list[RuleModule]:
    package = importlib.import_module(package_name)
    found: dict[str, RuleModule] = {}
    for module in _iter_modules(package):
        rule: Any = getattr(module, "RULE", None)
        check: Any = getattr(module, "check", None)
        if rule is None and check is None:
            continue
        if isinstance(rule, Rule) and rule.target == "signoff" and check is None:
            # a sign-off check: `bot/signoff/verify.py` computes its row from the facts
            check = _signoff_row
        if not isinstance(rule, Rule) or not callable(check):
            raise RegistryError(f"{module.__name__}: a rule module needs RULE (a Rule) and check()")
        if not ID_RE.match(rule.id):
            raise RegistryError(f"{module.__name__}: bad rule id {rule.id!r}")
        if not SLUG_RE.match(rule.slug):
            raise RegistryError(f"{module.__name__}: bad slug {rule.slug!r}")
        leaf = module.__name__.rsplit(".", 1)[-1]
        if leaf != expected_module_name(rule):
            raise RegistryError(
                f"{module.__name__}: file name must be {expected_module_name(rule)}.py"
            )
        for name, cond in rule.conditions.items():
            if not SLUG_RE.match(name) or cond.severity == rule.severity:
                raise RegistryError(
                    f"{module.__name__}: condition {name!r} must be kebab-case and change "
                    f"the severity (default {rule.severity})"
                )
        if rule.id in found:
            raise RegistryError(f"duplicate rule id {rule.id} in {module.__name__}")
        found[rule.id] = RuleModule(rule=rule, check=check, module=module.__name__)
    return [found[k] for k in sorted(found)]


def _signoff_row(*_: Any) -> Iterator[Finding]:
    raise TypeError("a sign-off check is computed by bot.signoff.verify, not by the lint engine")


def is_signoff(rule: Rule) -> bool:
    return rule.target == "signoff"


def signoff_rule(name: str) -> Rule | None:
    """The SGN record of the sign-off row `name` (its slug)."""
    for rm in all_rules():
        if rm.rule.target == "signoff" and rm.rule.slug == name:
            return rm.rule
    return None


@functools.cache
def _registry() -> tuple[RuleModule, ...]:
    """The rule modules importable in this process: code, loaded once, never written."""
    return tuple(load_rules())


def all_rules() -> list[RuleModule]:
    return list(_registry())


def resolve_rule(name: str) -> str | None:
    """The lint rule id that `name` (an id, any case, or a slug) names; None if none does.

    Sign-off checks (SGN) are not lint rules: nothing suppresses or disables them."""
    rm = get_rule(name.strip())
    return rm.rule.id if rm is not None and not is_signoff(rm.rule) else None


def get_rule(rule_id: str) -> RuleModule | None:
    key = rule_id.upper()
    for rm in all_rules():
        if rm.rule.id == key or rm.rule.slug == rule_id.lower():
            return rm
    return None
