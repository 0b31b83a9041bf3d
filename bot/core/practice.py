"""The base decides what is in force. Pure.

A requirement is enforced on a pull request only where its base shows it, so a
PR opened weeks ago, or a repository whose practice moves faster than the
bot's knowledge, is judged by the rules it was written under. Two kinds of
requirement follow the base, each named on the finding and decided here, once,
for every rule:

- **Practices** that arrived with a change in the repository: a waiver rule, an
  eval path, a client flag. `knowledge.practices` names each with the marks
  that show it in a tree (a path, or a path holding a text), never a date. A
  finding that relies on one carries its name (`Finding.practice`, or the
  rule's `Rule.practice`); in a pull request it is kept only where the base
  shows the practice. A whole tree, or files named by hand, has no base: it is
  judged by today's knowledge.
- **Constraints** that the repository's own files follow (the master-config
  schema). A finding that breaks one carries a `Ratchet`: the constraint, with
  the kind of thing it applies to, and the item it is about. The engine runs the
  same rule over the base as a whole tree. A constraint some item of the base
  already breaks is not in force: of it, only what the PR makes worse is
  reported, an item that kept the constraint in the base and breaks it at the
  head. A constraint every item of the base keeps stays in force for every item.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from bot.base.glob import glob_match
from bot.base.knowledge import Mark
from bot.base.records import dataclass
from bot.base.tree import Tree
from bot.core.context import Context, route
from bot.core.model import Finding
from bot.core.registry import RuleModule

# a mark's path may name a configured path instead of a fixed one: the changelog, or any
# master config (`paths.changelog`, `paths.master_configs` of the configuration)
CHANGELOG_PLACEHOLDER = "{changelog}"
MASTER_CONFIGS_PLACEHOLDER = "{master_configs}"


def configured(
    marks: Sequence[Mark], changelog: str, master_configs: Sequence[str]
) -> tuple[Mark, ...]:
    """`marks` with `{changelog}` and `{master_configs}` paths replaced by the paths the
    configuration names, so a repository that keeps them elsewhere shows the practice."""
    out: list[Mark] = []
    for mark in marks:
        if mark.path == CHANGELOG_PLACEHOLDER:
            out.append(Mark(changelog, mark.contains))
        elif mark.path == MASTER_CONFIGS_PLACEHOLDER:
            out.extend(Mark(glob, mark.contains) for glob in master_configs)
        else:
            out.append(mark)
    return tuple(out)


def shows(tree: Tree, paths: Sequence[str], marks: Sequence[Mark]) -> bool:
    """Whether `tree` (whose file list is `paths`) bears any of `marks`.

    A practice with no marks is shown everywhere: knowledge that names no mark
    applies as before.
    """
    if not marks:
        return True
    for mark in marks:
        for path in paths:
            if not glob_match(path, mark.path):
                continue
            if mark.contains is None:
                return True
            data = tree.read(path)
            if data is not None and mark.contains.encode() in data:
                return True
    return False


@dataclass(frozen=True)
class BaseState:
    """What the base's own items break, from the rule run over the base as a whole tree."""

    # constraint -> the items of the base that break it
    broken: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> BaseState:
        out: dict[str, set[str]] = {}
        for f in findings:
            if f.ratchet is not None:
                out.setdefault(f.ratchet.constraint, set()).add(f.ratchet.item)
        return cls({k: frozenset(v) for k, v in out.items()})

    def in_force(self, constraint: str) -> bool:
        return constraint not in self.broken

    def worse(self, finding: Finding) -> bool:
        """Whether the head's `finding` is something the PR makes worse."""
        r = finding.ratchet
        if r is None or self.in_force(r.constraint):
            return True
        # not in force: only an item that kept the constraint in the base regressed
        return r.prior and r.item not in self.broken[r.constraint]


def judged_by_base(raw: list[Finding], ctx: Context, rules: Sequence[RuleModule]) -> list[Finding]:
    """`raw` less the findings the PR's base does not hold it to. A whole tree, or files
    named by hand, has no base: today's knowledge applies and nothing is dropped."""
    if ctx.change is None:
        return raw
    names = sorted({f.practice for f in raw if f.practice is not None})
    ratcheted = {f.rule for f in raw if f.ratchet is not None}
    if not names and not ratcheted:
        return raw
    base = ctx.change.base
    practices = ctx.knowledge.practices

    def shown_by_base(name: str) -> bool:
        marks = configured(practices.get(name, ()), ctx.config.changelog, ctx.config.master_configs)
        return ctx.memo(f"practice:{name}", lambda: shows(base, ctx.all_paths(base), marks))

    shown = {name: shown_by_base(name) for name in names}
    bases = {
        rm.rule.id: BaseState.of(_base_run(rm, ctx)) for rm in rules if rm.rule.id in ratcheted
    }
    return keep(raw, shown, bases)


def keep(
    findings: Sequence[Finding],
    shown: Mapping[str, bool],
    bases: Mapping[str, BaseState],
) -> list[Finding]:
    """`findings` less those the base does not hold the PR to.

    `shown` answers, per practice named by a finding, whether the base shows it;
    `bases` holds, per rule whose findings carry a ratchet, what its base breaks.
    """
    out = []
    for f in findings:
        if f.practice is not None and not shown.get(f.practice, True):
            continue
        state = bases.get(f.rule)
        if state is not None and not state.worse(f):
            continue
        out.append(f)
    return out


def _base_run(rm: RuleModule, ctx: Context) -> Iterator[Finding]:
    """The rule's findings on the PR's base, linted as a whole tree."""
    assert ctx.change is not None
    base = Context.for_tree(
        ctx.change.base,
        ctx.config,
        review_date=ctx.review_date,
        repository=ctx.repository,
        parsers=ctx.parsers,
        cache=ctx.cache,
    )
    for path in base.all_paths():
        if route(path, ctx.config) != rm.rule.target:
            continue
        parsed = base.parsed(rm.rule.target, path)
        if parsed is not None:
            yield from rm.check(parsed, base)
