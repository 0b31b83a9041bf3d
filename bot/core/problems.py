"""Whether the linted change brings a file's problem, judged by its base. Pure.

A file that bash or YAML itself cannot read is an error where the change brings it
(as ruff and shellcheck fail on a file they cannot parse) and a warning where it
was already so: RCP000, CHL000 and CFG000 ask this one question.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from bot.core.context import RuleContext

Parsed = Literal["recipe", "changelog", "master_config"]


def brought_by_change(ctx: RuleContext, parser: Parsed, path: str, kinds: Collection[str]) -> bool:
    """Whether the change brings the problem of `path` of one of `kinds`.

    Without a base (a whole tree, files named by hand) every problem counts as
    brought. With one, a file the change does not add or edit brings nothing, and
    one it edits brings the problem unless the base's copy of the same path (parsed
    by `parser`) has a problem of one of `kinds`."""
    if ctx.change is None:
        return True
    if ctx.changed is None or path not in ctx.changed:
        return False
    base = ctx.parsed(parser, path, tree=ctx.base) if ctx.base is not None else None
    if base is None:
        return True
    return not any(p.kind in kinds for p in base.problems)
