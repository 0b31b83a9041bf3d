"""SARIF 2.1.0 report, for GitHub code scanning and other SARIF viewers. Pure.

One run; `tool.driver.rules` describes every rule of the registry plus any
rule a finding names that the registry does not know. Results carry
`partialFingerprints["recipeReview/v1"]` (the finding's fingerprint), so code
scanning tracks an alert across commits that only move lines.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot import __version__
from bot.core.engine import Report
from bot.core.model import Finding, Rule
from bot.core.registry import RuleModule, all_rules
from bot.docs import render_rule_markdown
from bot.report.text import bilingual, langs

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "recipeReview/v1"
TOOL = "recipe-review-bot"
INFO_URI = "https://github.com/SemiAnalysisAI/InferenceX"

LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _descriptor(rule: Rule) -> dict[str, Any]:
    help_text = [rule.title.en, rule.title.zh, "", rule.message.en, rule.message.zh]
    if rule.fix is not None:
        help_text += ["", f"Fix: {rule.fix.en}", f"修复：{rule.fix.zh}"]
    help_text += ["", rule.rationale.en.strip(), "", rule.rationale.zh.strip()]
    return {
        "id": rule.id,
        "name": rule.slug,
        "shortDescription": {"text": rule.title.en},
        "fullDescription": {"text": f"{rule.rationale.en.strip()}\n\n{rule.rationale.zh.strip()}"},
        "help": {"text": "\n".join(help_text), "markdown": render_rule_markdown(rule, level=2)},
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
        "help": {"text": f"{f.title.en}\n{f.title.zh}"},
        "defaultConfiguration": {"level": LEVEL[f.severity]},
        "properties": {"title_zh": f.title.zh},
    }


def _message(f: Finding, lang: str) -> str:
    text = bilingual(f.message, lang)
    if f.fix is not None:
        fixes = {"en": f"Fix: {f.fix.en}", "zh": f"修复：{f.fix.zh}"}
        text += "\n" + "\n".join(fixes[code] for code in langs(lang))
    return text


def _result(f: Finding, index: int, lang: str) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": f.span.line, "startColumn": max(1, f.span.col)}
    if f.span.end_line is not None:
        region["endLine"] = f.span.end_line
    if f.span.end_col is not None:
        region["endColumn"] = f.span.end_col
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": LEVEL[f.severity],
        "message": {"text": _message(f, lang)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": {"slug": f.slug},
    }
    if f.suggestion is not None:
        result["properties"]["suggestion"] = f.suggestion
    return result


def sarif_dict(
    report: Report, lang: str = "both", rules: Sequence[RuleModule | Rule] | None = None
) -> dict[str, Any]:
    langs(lang)
    known = [
        r.rule if isinstance(r, RuleModule) else r
        for r in (rules if rules is not None else all_rules())
    ]
    descriptors = [_descriptor(rule) for rule in known]
    index = {rule.id: n for n, rule in enumerate(known)}
    for f in report.findings:
        if f.rule not in index:
            index[f.rule] = len(descriptors)
            descriptors.append(_fallback_descriptor(f))
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
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index[f.rule], lang) for f in report.findings],
                "properties": {"filesChecked": len(report.files), "suppressed": report.suppressed},
            }
        ],
    }


def render(
    report: Report, lang: str = "both", *, rules: Sequence[RuleModule | Rule] | None = None
) -> str:
    """The report as a SARIF 2.1.0 log, ending with a newline."""
    return json.dumps(sarif_dict(report, lang, rules), ensure_ascii=False, indent=2) + "\n"
