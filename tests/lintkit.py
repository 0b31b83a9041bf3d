"""Shared lint helpers of the test modules (not a test module; `conftest.py` exposes them
as fixtures too).

One place builds the configuration, picks rules and runs the engine on in-memory files,
the way a whole-tree run (`lint_files`) or a pull request (`lint_pr`: base → head, with
its change set) does it.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from functools import cache

from bot.core.changeset import build_changeset
from bot.core.config import Config, build_config
from bot.core.engine import Context, Report, lint
from bot.core.model import Finding
from bot.core.registry import RuleModule, all_rules
from bot.core.tree import MemoryTree

Files = Mapping[str, str | bytes]


@cache
def default_config() -> Config:
    """The configuration with no repository config file: the shipped knowledge."""
    return build_config(None)


def config_with(knowledge_yaml: str) -> Config:
    """A repository config (`.recipe-bot.yml`) whose `knowledge:` section is `knowledge_yaml`
    (indented by the caller)."""
    return build_config("knowledge:\n" + knowledge_yaml, source=".recipe-bot.yml")


def rule(rule_id: str) -> RuleModule:
    return next(rm for rm in all_rules() if rm.rule.id == rule_id)


def rules_for(target: str, *ids: str) -> list[RuleModule]:
    """The rules of one target (`recipe`, `changelog`, `master_config`, ...), or only `ids`."""
    return [rm for rm in all_rules() if rm.rule.target == target and (not ids or rm.rule.id in ids)]


def lint_files(
    files: Files,
    *,
    paths: Iterable[str] | None = None,
    rules: list[RuleModule] | None = None,
    config: Config | None = None,
    pr: int | None = None,
    base: Files | None = None,
    review_date: datetime.date | None = None,
) -> Report:
    """Lint `paths` (default: every file) of a tree holding `files`; with `base` it is a
    change from `base` that touches the linted paths."""
    paths = list(paths) if paths is not None else None
    tree = MemoryTree(dict(files))
    if base is None:
        ctx = Context.for_tree(tree, config or default_config(), pr=pr, review_date=review_date)
    else:
        # a base to compare with makes it a change that touches the linted paths
        changed = sorted(paths) if paths is not None else sorted(files)
        change = build_changeset(MemoryTree(dict(base)), tree, changed, pr=pr)
        ctx = Context.for_change(change, config or default_config(), review_date=review_date)
    return lint(ctx, paths=list(paths) if paths is not None else list(files), rules=rules)


def lint_pr(
    head: Files,
    base: Files,
    *,
    pr: int | None = 7,
    author: str | None = None,
    changed: Iterable[str] | None = None,
    paths: Iterable[str] | None = None,
    rules: list[RuleModule] | None = None,
    config: Config | None = None,
    review_date: datetime.date | None = None,
) -> Report:
    """Lint `paths` (default: the changed files) as pull request `pr` changes base → head.
    `changed` defaults to the files whose text differs."""
    base_tree, head_tree = MemoryTree(dict(base)), MemoryTree(dict(head))
    if changed is None:
        changed = sorted(p for p in {*base, *head} if head.get(p) != base.get(p))
    changed = sorted(changed)
    change = build_changeset(base_tree, head_tree, changed, pr=pr, author=author)
    ctx = Context.for_change(change, config or default_config(), review_date=review_date)
    return lint(ctx, paths=list(paths) if paths is not None else changed, rules=rules)


def lines(findings: Iterable[Finding]) -> list[int]:
    return [f.line for f in findings]
