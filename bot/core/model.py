"""Core data types: bilingual text, rules, findings. Pure: no I/O."""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bot.base.span import Span as Span  # re-exported: rules build findings with it

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}

SEVERITY_ZH: dict[str, str] = {"error": "错误", "warning": "警告", "info": "提示"}

ERROR: Severity = "error"
WARNING: Severity = "warning"
INFO: Severity = "info"


@dataclass(frozen=True)
class T:
    """A text in English and Chinese, with the same `{placeholders}` in both."""

    en: str
    zh: str

    def placeholders(self) -> tuple[set[str], set[str]]:
        def names(s: str) -> set[str]:
            return {f for _, f, _, _ in string.Formatter().parse(s) if f}

        return names(self.en), names(self.zh)

    def format(self, params: Mapping[str, Any]) -> T:
        """Fill placeholders; a parameter `name_zh` overrides `name` in Chinese."""
        en = {k: v for k, v in params.items() if not k.endswith("_zh")}
        zh = dict(en)
        zh.update({k[:-3]: v for k, v in params.items() if k.endswith("_zh")})
        return T(en=self.en.format_map(_Params(en)), zh=self.zh.format_map(_Params(zh)))

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


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


JOINERS: dict[str, T] = {
    "and": T(en=" and ", zh="、"),
    "or": T(en=" or ", zh=" 或 "),
    "list": T(en=", ", zh="、"),
    "clauses": T(en="; ", zh="；"),  # clauses of one sentence
}


def render_param(value: Any, lang: str, variants: Mapping[str, T], owner: str = "") -> str:
    """A parameter in one language: a value as is, a `T` (bilingual data from the
    knowledge), a `Join` of values, or a `Part` worded by a variant of the record."""
    if isinstance(value, Part):
        if value.name not in variants:
            raise KeyError(f"{owner}: no variant {value.name!r} for a part")
        filled = {k: render_param(v, lang, variants, owner) for k, v in value.params.items()}
        return variants[value.name].get(lang).format_map(_Params(filled))
    if isinstance(value, Join):
        sep = JOINERS[value.word].get(lang)
        return sep.join(render_param(v, lang, variants, owner) for v in value.items)
    if isinstance(value, T):
        return value.get(lang)
    return str(value)


class _Params(dict[str, Any]):
    """format_map helper: a missing placeholder stays visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


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
        if not self.conditions:
            return T(en=self.severity, zh=SEVERITY_ZH[self.severity])
        en = "; ".join(f"{c.severity} when {c.when.en}" for c in self.conditions.values())
        zh = "；".join(
            f"{c.when.zh}时为{SEVERITY_ZH[c.severity]}" for c in self.conditions.values()
        )
        return T(
            en=f"{self.severity} ({en})",
            zh=f"{SEVERITY_ZH[self.severity]}（{zh}）",
        )

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
            return T(en=text.en.format_map(_Params(en)), zh=text.zh.format_map(_Params(zh)))

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
        )


def with_severity(finding: Finding, severity: Severity) -> Finding:
    return replace(finding, severity=severity)
