"""The sign-off's checks of what the PR submits, read from the lint of its files: the
upstream recipe link (check 3a), the engine-patch waiver (check 10) and the checks
decided by recipe, master-config and changelog rules (checks 6-9, 11, 12). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.base.records import dataclass
from bot.core.model import Join, T, part
from bot.signoff.check_template import gives_reason
from bot.signoff.detect import Signoff, links_in
from bot.signoff.model import (
    BenchmarkChange,
    Check,
    PrContent,
    SignoffFacts,
)
from bot.signoff.rows import (
    bench_name,
    first_finding,
    gate_for,
    gate_rows,
    make_row,
    row_says,
)
from bot.signoff.settings import Settings
from bot.signoff.wording import more as _more


def _not_linted(name: str) -> Check:
    return make_row(name, "unknown", "not-linted")


def recipe_link_rows(facts: SignoffFacts, signoff: Signoff, cfg: Settings) -> list[Check]:
    content = facts.content
    if content is None:
        return [_not_linted("recipe-link")]
    single = [b for b in content.benchmarks if not b.multi_node]
    needs = [b for b in single if set(b.engines) & cfg.recipe_engines]
    unsure = [b for b in single if not b.engines]
    if not needs:
        out: list[Check] = []
        if content.benchmarks and not single:
            out.append(make_row("recipe-link", "na", "multi-node"))
        elif single:
            engines = tuple(f"`{e}`" for e in sorted({e for b in single for e in b.engines}))
            shown = Join(engines) if engines else part("engines-unknown")
            out.append(make_row("recipe-link", "na", "no-single-node", shown=shown))
        else:
            out.append(make_row("recipe-link", "na", "no-recipe"))
        if unsure:
            out.append(
                make_row(
                    "recipe-upstream",
                    "human",
                    "engine-unknown",
                    benchmark=bench_name(unsure[0]),
                )
            )
        return out
    regexes = []
    for p in cfg.recipe_links:
        try:
            regexes.append(re.compile(p))
        except re.error:
            continue
    links = [u for u in links_in(signoff.text) if any(rx.match(u) for rx in regexes)]
    more = _more(len(needs) - 1)
    name = bench_name(needs[0])
    if not links:
        return [make_row("recipe-link", "fail", "no-link", name=name, more=more)]
    return [
        make_row("recipe-link", "pass", "linked", link=links[0], name=name, more=more),
        make_row("recipe-upstream", "human", "check", link=links[0], name=name),
    ]


def _is_script(b: BenchmarkChange) -> bool:
    """A single-node recipe script: what the recipe rules read."""
    return b.entry is None and not b.multi_node


_TOKENS = re.compile(r"[-_]")


def _covered(b: BenchmarkChange, scripts: Sequence[BenchmarkChange]) -> bool:
    """Whether a single-node master-config entry's recipe script is among `scripts`.

    By InferenceX's naming: `dsv4_fp4_b200_vllm_mtp.sh` runs `dsv4-fp4-b200-vllm-agentic-mtp`
    (the script's name parts are a subset of the entry's).
    """
    if b.entry is None or b.multi_node:
        return False
    key = set(_TOKENS.split(b.entry.lower()))
    for s in scripts:
        stem = s.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
        if set(_TOKENS.split(stem)) <= key:
            return True
    return False


def _unread(name: str, names: Sequence[str], what: T) -> Check:
    """`human`: the benchmarks `names` the rules do not read, for `what` by hand."""
    return make_row(name, "human", "unread", name=names[0], more=_more(len(names) - 1), what=what)


def waiver_rows(facts: SignoffFacts, signoff: Signoff, cfg: Settings) -> list[Check]:
    content = facts.content
    if content is None:
        return [_not_linted("waiver")]
    rules = cfg.rules.get("waiver", ())
    gate = gate_for(facts, rules, signoff)
    errors = list(gate.errors) if gate.state == "fail" else []
    ids = {r.upper() for r in rules}
    older = [f for f in facts.findings if f.rule in ids and f.in_diff is False]
    wdir = cfg.waiver_dir
    filed = [p for p in facts.added_paths if p.startswith(wdir + "/") and p.endswith(".md")]
    own = f"{wdir}/{facts.pr}.md" if facts.pr is not None else None
    if own is not None:
        filed = [p for p in filed if p == own] or filed
    scripts = [b for b in content.benchmarks if _is_script(b)]
    unread = [b.path for b in content.benchmarks if b.entry is None and b.multi_node]
    unread += list(content.unread)
    what = row_says("waiver", "what-unread")
    out: list[Check] = []
    if gate.state == "fail":
        return gate_rows("waiver", gate, facts, [])
    if filed:
        waiver = filed[0]
        tail = "/".join(waiver.split("/")[-2:])  # "waiver/2600.md"
        if tail not in signoff.text:
            out.append(make_row("waiver", "fail", "not-linked", waiver=waiver))
        else:
            out.append(make_row("waiver", "pass", "linked", waiver=waiver))
            out.append(make_row("waiver-content", "human", "check", waiver=waiver))
        unread = []
    elif scripts:
        out.append(make_row("waiver", "pass", "no-patch"))
    elif unread:
        out.append(_unread("waiver", unread, what))
        unread = []
    else:
        out.append(make_row("waiver", "na", "no-benchmark"))
    if unread and not errors:
        out.append(_unread("waiver-unread", unread, what))
    out = gate_rows("waiver", gate, facts, out)
    if older and not errors:
        out.append(
            make_row("patch-preexisting", "human", "check", finding=first_finding(older, facts))
        )
    return out


@dataclass(frozen=True)
class RuleCheck:
    name: str
    applies: str  # which benchmarks it is about: any | spec | agentic-spec | master | append-only
    reads: str  # what its rules read: recipes | master | changelog
    # its wording is in its SGN record (`rules/signoff/`): variants `na`, `ok` and, for a
    # check with an `-unread` row, `what-unread` (what a human checks there)

    @property
    def na(self) -> T:
        return row_says(self.name, "na")

    @property
    def ok(self) -> T:
        return row_says(self.name, "ok")

    @property
    def unread(self) -> T:
        return row_says(self.name, "what-unread")


RULE_CHECKS = (
    RuleCheck(
        "images",
        "master",
        "master",
    ),
    RuleCheck(
        "deprecated",
        "master",
        "master",
    ),
    RuleCheck(
        "architecture",
        "any",
        "recipes",
    ),
    RuleCheck(
        "chat-template",
        "spec",
        "recipes",
    ),
    RuleCheck(
        "golden-al",
        "agentic-spec",
        "recipes",
    ),
    RuleCheck(
        "append-only",
        "append-only",
        "changelog",
    ),
)


def _relevant(kind: str, b: BenchmarkChange) -> bool:
    if kind == "spec":
        return b.spec_decode
    if kind == "agentic-spec":
        return b.agentic and b.spec_decode
    if kind == "master":
        return b.entry is not None
    return True


def rule_check_rows(
    spec: RuleCheck, facts: SignoffFacts, cfg: Settings, signoff: Signoff
) -> list[Check]:
    content = facts.content
    if content is None:
        return [_not_linted(spec.name)]
    gate = gate_for(facts, cfg.rules.get(spec.name, ()), signoff)
    claim = _exception_claim(signoff) if spec.name == "images" else None
    if gate.state == "fail" and gate.errors and not gate.unacknowledged and claim is not None:
        # checks 6 (images) and 9/10 (engine order) allow exceptions for new hardware and
        # new architectures: the bot cannot judge one, so it lists the claim for the human
        found = first_finding(gate.errors, facts)
        return [make_row(spec.name, "human", "exception-claimed", claim=claim[:160], finding=found)]
    return gate_rows(spec.name, gate, facts, _rule_rows(spec, facts, cfg, content))


_EXCEPTION = re.compile(
    r"\bexception\b|\bexempt|\bnew hardware\b|\bnew (?:model )?architecture|例外|新硬件|新模型架构",
    re.I,
)


def _exception_claim(signoff: Signoff) -> str | None:
    """The sign-off's line claiming an image or engine-order exception, with a reason."""
    for line in signoff.explanations.splitlines():
        if _EXCEPTION.search(line) and gives_reason(line):
            return " ".join(line.split())
    return None


def _rule_rows(
    spec: RuleCheck, facts: SignoffFacts, cfg: Settings, content: PrContent
) -> list[Check]:
    if spec.applies == "append-only":
        if not content.append_only:
            return [Check(spec.name, "na", spec.na)]
        return [
            Check(spec.name, "pass", spec.ok),
            make_row("append-only-isolation", "human", "check"),
        ]
    relevant = [b for b in content.benchmarks if _relevant(spec.applies, b)]
    if not relevant:
        return [Check(spec.name, "na", spec.na)]
    if spec.reads != "recipes":
        return [Check(spec.name, "pass", spec.ok)]
    scripts = [b for b in relevant if _is_script(b)]
    others = [bench_name(b) for b in relevant if not _is_script(b) and not _covered(b, scripts)]
    if not others:
        return [Check(spec.name, "pass", spec.ok)]
    if not scripts:
        return [_unread(spec.name, others, spec.unread)]
    return [Check(spec.name, "pass", spec.ok), _unread(f"{spec.name}-unread", others, spec.unread)]
