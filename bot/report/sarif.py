"""SARIF 2.1.0 report, for GitHub code scanning and other SARIF viewers. Pure.

One run. `tool.driver.rules` describes each rule that a result names, once: its
help (title, fix, rationale in both languages) and a `helpUri` to its section of
the rule documentation; the examples stay in the docs, so a log of three findings
stays a few kilobytes. Artifact URIs are percent-encoded paths relative to
`%SRCROOT%`, which `run.originalUriBaseIds` resolves to the repository root when
it is known. A suggestion becomes `fixes[].artifactChanges` (a replacement of the
finding's whole lines, as ruff emits its fixes). Results carry
`partialFingerprints["recipeReview/v1"]` (the finding's fingerprint), so code
scanning tracks an alert across commits that only move lines. Columns count UTF-16
code units (`run.columnKind` says so): a finding's character column is converted on
its line, so a character outside the BMP (an emoji) before it counts two.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from bot import __version__
from bot.base.span import column_in
from bot.core.engine import Report
from bot.core.model import Finding, Rule
from bot.core.registry import RuleModule, all_rules
from bot.core.wording import both, say
from bot.report.links import PROJECT_URL, RULES_URL, rule_url
from bot.report.text import bilingual, langs, message_with_fix

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "recipeReview/v1"
TOOL = "recipe-review-bot"
INFO_URI = PROJECT_URL
SRCROOT = "%SRCROOT%"

LEVEL = {"error": "error", "warning": "warning", "info": "note"}
# columns count UTF-16 code units: SARIF's most common reading (the SARIF SDK's
# default), so a viewer that ignores `columnKind` still lands on the right character
COLUMN_KIND = "utf16CodeUnits"


def encode_path(path: str) -> str:
    """A relative `/`-separated path as a URI reference: every byte outside the
    unreserved set and `/` percent-encoded (a space, `%`, `#`, `?`, non-ASCII)."""
    return quote(path.replace("\\", "/"), safe="/-._~")


def root_uri(root: str) -> str:
    """`file:` URI of an absolute directory, ending with `/` as SARIF requires."""
    path = root.replace("\\", "/")
    if not path.startswith("/"):
        path = "/" + path  # a Windows drive: file:///C:/...
    uri = "file://" + quote(path, safe="/-._~:")
    return uri if uri.endswith("/") else uri + "/"


def _help(rule: Rule) -> dict[str, str]:
    text = [f"{rule.title.en}", f"{rule.title.zh}"]
    md = [f"**{rule.title.en}**  ", f"**{rule.title.zh}**"]
    if rule.fix is not None:
        fix, fix_md = say("fix", fix=rule.fix), say("fix-md", fix=rule.fix)
        text += ["", fix.en, fix.zh]
        md += ["", f"{fix_md.en}  ", fix_md.zh]
    rationale = [rule.rationale.en.strip(), "", rule.rationale.zh.strip()]
    text += ["", *rationale, "", f"Documentation: {rule_url(rule.id)}"]
    md += ["", *rationale, "", f"[{both(say('documentation'))}]({rule_url(rule.id)})"]
    return {"text": "\n".join(text), "markdown": "\n".join(md)}


def _descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.slug,
        "shortDescription": {"text": rule.title.en},
        "fullDescription": {"text": f"{rule.title.en} / {rule.title.zh}"},
        "helpUri": rule_url(rule.id),
        "help": _help(rule),
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {
            "tags": [rule.target],
            "title_zh": rule.title.zh,
            # the declared cases that report at another level than defaultConfiguration's
            "severityConditions": [
                {"name": name, "level": LEVEL[c.severity], "when": c.when.en}
                for name, c in rule.conditions.items()
            ],
        },
    }


def _fallback_descriptor(f: Finding) -> dict[str, Any]:
    return {
        "id": f.rule,
        "name": f.slug,
        "shortDescription": {"text": f.title.en},
        "fullDescription": {"text": f"{f.title.en} / {f.title.zh}"},
        "helpUri": RULES_URL,
        "help": {"text": f"{f.title.en}\n{f.title.zh}"},
        "defaultConfiguration": {"level": LEVEL[f.severity]},
        "properties": {"title_zh": f.title.zh},
    }


def _location(f: Finding) -> dict[str, Any]:
    return {"uri": encode_path(f.path), "uriBaseId": SRCROOT}


def _fix(f: Finding, lang: str) -> dict[str, Any]:
    """The suggestion as a SARIF fix: the finding's whole lines replaced (deleted when
    the suggestion is empty)."""
    assert f.suggestion is not None
    inserted = f.suggestion + "\n" if f.suggestion else ""
    what = f.fix if f.fix is not None else f.title
    return {
        "description": {"text": bilingual(what, lang)},
        "artifactChanges": [
            {
                "artifactLocation": _location(f),
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": f.span.line,
                            "startColumn": 1,
                            "endLine": f.span.last_line + 1,
                            "endColumn": 1,
                        },
                        "insertedContent": {"text": inserted},
                    }
                ],
            }
        ],
    }


def _region(f: Finding) -> dict[str, Any]:
    """The finding's region with columns in UTF-16 code units (`COLUMN_KIND`), counted on
    the finding's line; an end column on another line is left out (the region then runs
    to the end of its last line)."""
    region: dict[str, Any] = {
        "startLine": f.span.line,
        "startColumn": column_in(f.line_text, f.span.col, "utf16"),
    }
    if f.span.end_line is not None:
        region["endLine"] = f.span.end_line
    if f.span.end_col is not None and f.span.last_line == f.span.line:
        region["endColumn"] = column_in(f.line_text, f.span.end_col, "utf16")
    return region


def _result(f: Finding, index: int, lang: str) -> dict[str, Any]:
    region = _region(f)
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": LEVEL[f.severity],
        "message": {"text": message_with_fix(f, lang)},
        "locations": [{"physicalLocation": {"artifactLocation": _location(f), "region": region}}],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": {"slug": f.slug},
    }
    if f.suggestion is not None:
        result["fixes"] = [_fix(f, lang)]
    if f.proposal is not None:
        result["properties"]["proposal"] = f.proposal
    return result


def sarif_dict(
    report: Report,
    lang: str = "both",
    rules: Sequence[RuleModule | Rule] | None = None,
    *,
    root: str | None = None,
) -> dict[str, Any]:
    """The SARIF log. `root`: absolute path of the repository root (`%SRCROOT%`)."""
    langs(lang)
    known = {
        rule.id: rule
        for rule in (
            r.rule if isinstance(r, RuleModule) else r
            for r in (rules if rules is not None else all_rules())
        )
    }
    descriptors: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for f in report.findings:
        if f.rule not in index:
            index[f.rule] = len(descriptors)
            rule = known.get(f.rule)
            descriptors.append(_descriptor(rule) if rule else _fallback_descriptor(f))
    base: dict[str, Any] = {"description": {"text": "The repository root"}}
    if root is not None:
        base["uri"] = root_uri(root)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFO_URI,
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {SRCROOT: base},
                "columnKind": COLUMN_KIND,
                "results": [_result(f, index[f.rule], lang) for f in report.findings],
                "properties": {"filesChecked": len(report.files), "suppressed": report.suppressed},
            }
        ],
    }


def render(
    report: Report,
    lang: str = "both",
    *,
    rules: Sequence[RuleModule | Rule] | None = None,
    root: str | None = None,
) -> str:
    """The report as a SARIF 2.1.0 log, ending with a newline."""
    return (
        json.dumps(sarif_dict(report, lang, rules, root=root), ensure_ascii=False, indent=2) + "\n"
    )
