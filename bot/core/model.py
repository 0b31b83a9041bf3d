"""Core data types: bilingual text, rules, findings. Pure: no I/O."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import field, replace
from typing import Any, Literal

from bot.base.records import dataclass
from bot.base.span import Span as Span  # re-exported: rules build findings with it
from bot.base.text import Params
from bot.base.text import T as T  # re-exported: rules word their records with it
from bot.core.wording import JOINERS, SEVERITY, say

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}

ERROR: Severity = "error"
WARNING: Severity = "warning"
INFO: Severity = "info"


@dataclass(frozen=True)
class Part:
    """A parameter worded by a named variant of the same rule record.

    The variant is filled with its own value-only parameters (which may be parts
    or joins again) in each language, so a message composed of several clauses
    still takes every word of both languages from the record.
    """

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


def part(variant: str, /, **params: Any) -> Part:
    return Part(variant, params)


@dataclass(frozen=True)
class Join:
    """A list of values as one parameter, joined in each language's way."""

    items: tuple[Any, ...]
    word: Literal["and", "or", "list", "clauses"] = "list"


def render_param(value: Any, lang: str, variants: Mapping[str, T], owner: str = "") -> str:
    """A parameter in one language: a value as is, a `T` (bilingual data from the
    knowledge), a `Join` of values, or a `Part` worded by a variant of the record."""
    if isinstance(value, Part):
        if value.name not in variants:
            raise KeyError(f"{owner}: no variant {value.name!r} for a part")
        filled = {k: render_param(v, lang, variants, owner) for k, v in value.params.items()}
        return variants[value.name].get(lang).format_map(Params(filled))
    if isinstance(value, Join):
        sep = JOINERS[value.word].get(lang)
        return sep.join(render_param(v, lang, variants, owner) for v in value.items)
    if isinstance(value, T):
        return value.get(lang)
    return str(value)


def _joined(texts: list[T], word: str) -> T:
    sep = JOINERS[word]
    return T(en=sep.en.join(t.en for t in texts), zh=sep.zh.join(t.zh for t in texts))


@dataclass(frozen=True)
class Example:
    """A file that a rule must fire on (bad) or stay silent on (good).

    Lines that must fire carry a trailing marker `# [RCP001]` (any comment
    syntax ending in `[ID]`). `files` holds other files of the same
    repository the check needs (a sibling recipe, a golden curve, ...).
    """

    path: str
    text: str
    files: Mapping[str, str] = field(default_factory=dict)
    pr: int | None = None
    # the same repository before the change, for rules that compare base and head
    base: Mapping[str, str] | None = None
    note: str = ""
    # the review date (`YYYY-MM-DD`) for rules that judge dated knowledge
    review_date: str | None = None


@dataclass(frozen=True)
class Ratchet:
    """What a finding breaks, for judging it by the base (`bot.core.practice`).

    `constraint` names the requirement together with the kind of thing it applies
    to (the same text for every item of that kind); `item` names the thing (a
    master-config key); `prior` says whether that item was already in the base.
    """

    constraint: str
    item: str
    prior: bool = False


@dataclass(frozen=True)
class Finding:
    rule: str
    slug: str
    severity: Severity
    path: str
    span: Span
    title: T
    message: T
    fix: T | None
    # normalised offending text; with rule and path it makes the fingerprint,
    # so a finding survives a rebase that only moves lines.
    subject: str
    suggestion: str | None = None
    # in PR mode: whether the finding's lines were added or changed by the PR
    # (`ChangeSet.place`, the answer the gate and the reporters read)
    in_diff: bool | None = None
    # the source line at `span.line`, for reporters that quote it
    line_text: str | None = None
    # text to add elsewhere (e.g. the changelog entry a master-config change
    # needs); unlike `suggestion` it never replaces the finding's own lines
    proposal: str | None = None
    # in PR mode: the head lines (first, last) an inline review comment on the finding
    # covers, None when the diff does not show its line (`ChangeSet.place`, the answer
    # the review's inline/summary split reads)
    comment_lines: tuple[int, int] | None = None
    # the repository practice the finding relies on (a key of `knowledge.practices`):
    # reported only where the base shows it (`bot.core.practice`)
    practice: str | None = None
    # the constraint it breaks, when the base's own items decide whether it is in force
    ratchet: Ratchet | None = None

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def fingerprint(self) -> str:
        norm = re.sub(r"\s+", " ", self.subject).strip()
        raw = f"{self.rule}\x00{self.path}\x00{norm}".encode()
        return hashlib.sha256(raw).hexdigest()[:16]

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.col, self.rule)


@dataclass(frozen=True)
class Condition:
    """A declared case in which a rule reports at another severity than its default."""

    severity: Severity
    when: T  # no placeholders: shown as is by `bot rules`, `bot explain`, the docs, SARIF


FixLevel = Literal["safe", "unsafe", "display-only"]
FIX_LEVELS: tuple[FixLevel, ...] = ("safe", "unsafe", "display-only")
SAFE: FixLevel = "safe"
UNSAFE: FixLevel = "unsafe"
DISPLAY_ONLY: FixLevel = "display-only"


@dataclass(frozen=True)
class Applicability:
    """How the mechanical fix of a rule's findings (`suggestion`, `proposal`) may be
    applied, as ruff's `Applicability`: `safe` fixes change nothing beyond what the rule
    asks for and `bot lint --fix` applies them; `unsafe` ones may change what a benchmark
    measures or how it runs and are applied only with `--unsafe-fixes`; `display-only`
    ones are shown (review suggestions, SARIF fixes, the text report) and never applied.
    `reason` says why, in both languages, without placeholders."""

    level: FixLevel
    reason: T


@dataclass(frozen=True)
class Rule:
    id: str
    slug: str
    severity: Severity
    # "signoff": a row of the sign-off verdict, computed by `bot/signoff/verify.py` with the
    # wording of this record; the lint engine never runs it
    target: Literal["recipe", "changelog", "master_config", "change", "suppression", "signoff"]
    title: T
    message: T
    rationale: T
    fix: T | None = None
    bad: tuple[Example, ...] = ()
    good: tuple[Example, ...] = ()
    # Alternative wordings for special cases of the same defect, keyed by name.
    variants: Mapping[str, T] = field(default_factory=dict)
    variant_fixes: Mapping[str, T] = field(default_factory=dict)
    # Every case that raises or lowers `severity`, by name. A finding's severity is the
    # default or one of these: `hit(condition=NAME)`; nothing else can set it.
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    # the repository practice every finding of the rule relies on (a key of
    # `knowledge.practices`); a hit may name another
    practice: str | None = None
    # How its findings' suggestions and proposals may be applied (`bot lint --fix`);
    # required of every rule whose findings carry one, None for a rule without
    applicability: Applicability | None = None

    def severity_of(self, condition: str | None) -> Severity:
        if condition is None:
            return self.severity
        if condition not in self.conditions:
            raise KeyError(f"{self.id}: undeclared severity condition {condition!r}")
        return self.conditions[condition].severity

    def severity_summary(self) -> T:
        """`warning (error when …)`: the default and every declared condition."""
        default = SEVERITY[self.severity]
        if not self.conditions:
            return default
        clauses = [
            say("severity-when", severity=SEVERITY[c.severity], when=c.when)
            for c in self.conditions.values()
        ]
        return say("severity-summary", severity=default, conditions=_joined(clauses, "clauses"))

    def hit(
        self,
        path: str,
        span: Span,
        subject: str,
        *,
        variant: str | None = None,
        condition: str | None = None,
        suggestion: str | None = None,
        proposal: str | None = None,
        practice: str | None = None,
        ratchet: Ratchet | None = None,
        **params: Any,
    ) -> Finding:
        """Build a finding of this rule with its message filled in."""
        if "severity" in params:
            raise TypeError(f"{self.id}: a severity is declared as a Condition, not passed")
        prose = sorted(k for k in params if k.endswith("_zh"))
        if prose:
            raise TypeError(
                f"{self.id}: {prose} - a wording is a variant of the record (pass a Part), "
                "parameters are values"
            )
        severity = self.severity_of(condition)
        message = self.variants[variant] if variant else self.message
        fix = self.variant_fixes.get(variant, self.fix) if variant else self.fix
        en = {k: render_param(v, "en", self.variants, self.id) for k, v in params.items()}
        zh = {k: render_param(v, "zh", self.variants, self.id) for k, v in params.items()}

        def fill(text: T) -> T:
            return T(en=text.en.format_map(Params(en)), zh=text.zh.format_map(Params(zh)))

        return Finding(
            rule=self.id,
            slug=self.slug,
            severity=severity,
            path=path,
            span=span,
            title=self.title,
            message=fill(message),
            fix=fill(fix) if fix else None,
            subject=subject,
            suggestion=suggestion,
            proposal=proposal,
            practice=practice if practice is not None else self.practice,
            ratchet=ratchet,
        )


def with_severity(finding: Finding, severity: Severity) -> Finding:
    return replace(finding, severity=severity)
