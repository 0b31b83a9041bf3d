"""A rule record's examples, run as the engine runs them, and rendered for review.

`example_findings(rm, example)` lints one `Example` of a rule record the way
`tests/test_rule_examples.py` does: the `# [ID]` markers removed, the example a pull
request when it has a base (so whole-change rules run too), every rule for the
suppression rules, the shipped configuration. `render_snapshot(rm)` is the text of
`tests/snapshots/rules/<ID>.md`: every finding of every bad example, worded in both
languages. The snapshot test compares the file with it; `bot new-rule` writes it.
"""

from __future__ import annotations

import re
from datetime import date

from bot.core.changeset import build_changeset
from bot.core.config import Config, build_config
from bot.core.engine import Context, lint
from bot.core.model import Example, Finding
from bot.core.registry import RuleModule, all_rules
from bot.core.tree import MemoryTree

MARKER = re.compile(r"\s*#\s*\[([A-Z]{3}\d{3})\]\s*$")


def strip_markers(text: str, rule_id: str) -> tuple[str, set[int]]:
    """`text` without trailing `# [ID]` markers, and the lines marked with `rule_id`."""
    out: list[str] = []
    marked: set[int] = set()
    for no, line in enumerate(text.splitlines(keepends=True), 1):
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        while m := MARKER.search(body):
            if m.group(1) == rule_id:
                marked.add(no)
            body = body[: m.start()]
        out.append(body + ending)
    return "".join(out), marked


def example_findings(
    rm: RuleModule, example: Example, config: Config | None = None
) -> list[Finding]:
    """The findings of rule `rm` on `example`, markers removed."""
    text, _ = strip_markers(example.text, rm.rule.id)
    tree = MemoryTree({example.path: text, **example.files})
    base = MemoryTree(example.base) if example.base is not None else None
    config = config if config is not None else build_config(None)
    day = date.fromisoformat(example.review_date) if example.review_date else None
    if base is not None:
        change = build_changeset(base, tree, [example.path, *example.files], pr=example.pr)
        ctx = Context.for_change(change, config, review_date=day)
    else:
        ctx = Context.for_tree(tree, config, pr=example.pr, review_date=day)
    # the suppression rules judge other rules' findings, so every rule runs for them
    rules = [*all_rules(), rm] if rm.rule.target == "suppression" else [rm]
    rules = list({r.rule.id: r for r in rules}.values())
    found = lint(ctx, paths=[example.path], rules=rules).findings
    return [f for f in found if f.rule == rm.rule.id]


def render_snapshot(rm: RuleModule, config: Config | None = None) -> str:
    """Every finding of every bad example of `rm`, as `tests/snapshots/rules/<ID>.md`."""
    rule = rm.rule
    out = [f"# {rule.id} `{rule.slug}`: every finding of every bad example, as rendered", ""]
    for n, ex in enumerate(rule.bad, 1):
        out += [f"## bad {n}: {ex.path}", ""]
        for f in example_findings(rm, ex, config):
            out.append(f"- `{f.rule}` {f.severity} line {f.line}")
            out.append(f"  - en: {f.message.en}")
            out.append(f"  - zh: {f.message.zh}")
            if f.fix is not None:
                out.append(f"  - fix en: {f.fix.en}")
                out.append(f"  - fix zh: {f.fix.zh}")
        out.append("")
    return "\n".join(out)
