"""Rule cases as data: `tests/rule_cases/<RULE>.yml`, read and run by one generic runner
(as sqlfluff's `test/fixtures/rules/std_rule_cases/*.yml`). Not a test module:
`tests/test_rule_examples.py` runs every case next to the rules' own examples.

The format is documented in `tests/rule_cases/README.md`. A case is a repository (the
head of a pull request when it has a `base`) and the exact findings the rules give on
it: rule id, path, line, severity and the message variant of the rule record (None for
the rule's main message).
"""

from __future__ import annotations

import datetime
import fnmatch
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import lintkit
from ruamel.yaml import YAML

from bot.core.config import build_config
from bot.core.engine import Report
from bot.core.model import Finding, Rule
from bot.core.registry import RuleModule, all_rules, get_rule

CASES = Path(__file__).resolve().parent / "rule_cases"

FILE_KEYS = {"rule", "cases", "both"}
CASE_KEYS = {
    "name",
    "note",
    "files",
    "base",
    "mode",
    "pr",
    "author",
    "changed",
    "paths",
    "rules",
    "config",
    "review_date",
    "findings",
}
FINDING_KEYS = {"rule", "path", "line", "severity", "variant", "message"}


class CaseError(ValueError):
    """A case file that does not follow the format."""


@dataclass(frozen=True)
class Expected:
    rule: str
    path: str
    line: int
    severity: str
    variant: str | None = None
    message: str | None = None  # the exact English message, when the case pins it

    def row(self) -> tuple[str, str, int, str, str | None]:
        return (self.rule, self.path, self.line, self.severity, self.variant)


@dataclass(frozen=True)
class Case:
    file_rule: str
    name: str
    files: Mapping[str, str]
    findings: tuple[Expected, ...]
    base: Mapping[str, str] | None = None
    mode: str = "paths"
    pr: int | None = None
    author: str | None = None
    changed: tuple[str, ...] | None = None
    paths: tuple[str, ...] | None = None
    rules: tuple[str, ...] = ()
    config: str | None = None
    review_date: str | None = None
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.file_rule}-{self.name}"


def _texts(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise CaseError(f"{where}: a mapping of path to file text")
    return dict(value)


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CaseError(f"{where}: a list of strings")
    return tuple(value)


def _rule(rule_id: str, where: str) -> Rule:
    rm = get_rule(rule_id)
    if rm is None or rm.rule.id != rule_id:
        raise CaseError(f"{where}: no rule {rule_id}")
    return rm.rule


def parse_case_file(path: Path, data: Any) -> list[Case]:
    rule_id = path.stem
    if not isinstance(data, Mapping) or not {"rule", "cases"} <= set(data) <= FILE_KEYS:
        raise CaseError(f"{path.name}: top level is `rule:`, `cases:` and an optional `both:`")
    # files every case's repository holds, and its base when it has one (the marks of a
    # practice the cases rely on), unless the case writes that path itself
    both = _texts(data["both"], f"{path.name} both") if "both" in data else {}
    if data["rule"] != rule_id:
        raise CaseError(f"{path.name}: `rule: {data['rule']}` does not match the file name")
    _rule(rule_id, path.name)
    if not isinstance(data["cases"], list) or not data["cases"]:
        raise CaseError(f"{path.name}: `cases:` is a non-empty list")
    out: list[Case] = []
    seen: set[str] = set()
    for n, raw in enumerate(data["cases"], 1):
        where = f"{path.name} case {n}"
        if not isinstance(raw, Mapping):
            raise CaseError(f"{where}: a mapping")
        unknown = set(raw) - CASE_KEYS
        missing = {"name", "files", "findings"} - set(raw)
        if unknown or missing:
            raise CaseError(f"{where}: unknown keys {sorted(unknown)}, missing {sorted(missing)}")
        name = raw["name"]
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
            raise CaseError(f"{where}: `name` is kebab-case")
        if name in seen:
            raise CaseError(f"{where}: duplicate name {name!r}")
        seen.add(name)
        files = _texts(raw["files"], f"{where} files")
        base = _texts(raw["base"], f"{where} base") if "base" in raw else None
        mode = raw.get("mode", "pr" if base is not None else "paths")
        own_files = dict(files)
        if mode not in ("paths", "tree", "pr") or (mode == "pr" and base is None):
            raise CaseError(f"{where}: `mode` is pr (which needs a base), paths or tree")
        if mode == "tree" and base is not None:
            raise CaseError(f"{where}: a whole-tree run has no base")
        default_path = (
            _strings(raw["paths"], where)[0] if raw.get("paths") else next(iter(own_files), "")
        )
        files = {**files, **{k: v for k, v in both.items() if k not in files}}
        if base is not None:
            base = {**base, **{k: v for k, v in both.items() if k not in base}}
        expected = []
        if not isinstance(raw["findings"], list):
            raise CaseError(f"{where}: `findings:` is a list ([] for none)")
        for f in raw["findings"]:
            if not isinstance(f, Mapping) or not set(f) <= FINDING_KEYS or "line" not in f:
                raise CaseError(f"{where}: a finding has {sorted(FINDING_KEYS)}, with `line`")
            rule = str(f.get("rule", rule_id))
            record = _rule(rule, where)
            variant = f.get("variant")
            if variant is not None and variant not in record.variants:
                raise CaseError(f"{where}: {rule} has no variant {variant!r}")
            expected.append(
                Expected(
                    rule=rule,
                    path=str(f.get("path", default_path)),
                    line=int(f["line"]),
                    severity=str(f.get("severity", record.severity)),
                    variant=variant,
                    message=str(f["message"]) if "message" in f else None,
                )
            )
        review_date = raw.get("review_date")
        out.append(
            Case(
                file_rule=rule_id,
                name=name,
                files=files,
                findings=tuple(expected),
                base=base,
                mode=mode,
                pr=raw.get("pr", 7 if mode == "pr" else None),
                author=raw.get("author"),
                changed=_strings(raw["changed"], where) if "changed" in raw else None,
                paths=_strings(raw["paths"], where) if "paths" in raw else None,
                rules=_strings(raw["rules"], where) if "rules" in raw else (rule_id,),
                config=raw.get("config"),
                review_date=str(review_date) if review_date is not None else None,
                note=str(raw.get("note", "")),
            )
        )
    return out


@cache
def load_cases() -> tuple[Case, ...]:
    yaml = YAML(typ="safe", pure=True)
    cases: list[Case] = []
    for path in sorted(CASES.glob("*.yml")):
        cases.extend(parse_case_file(path, yaml.load(path.read_text(encoding="utf-8"))))
    return tuple(cases)


def select_rules(patterns: tuple[str, ...]) -> list[RuleModule]:
    chosen = [rm for rm in all_rules() if any(fnmatch.fnmatchcase(rm.rule.id, p) for p in patterns)]
    if not chosen:
        raise CaseError(f"no rule matches {patterns}")
    return chosen


def run_case(case: Case) -> Report:
    config = build_config(case.config, source=".recipe-bot.yml") if case.config else None
    review_date = datetime.date.fromisoformat(case.review_date) if case.review_date else None
    rules = select_rules(case.rules)
    if case.mode == "pr":
        assert case.base is not None
        return lintkit.lint_pr(
            case.files,
            case.base,
            pr=case.pr,
            author=case.author,
            changed=case.changed,
            paths=case.paths,
            rules=rules,
            config=config,
            review_date=review_date,
        )
    return lintkit.lint_files(
        case.files,
        paths=case.paths,
        rules=rules,
        config=config,
        pr=case.pr,
        base=case.base,
        review_date=review_date,
    )


# ----------------------------------------------------------------------------- variants


@cache
def _template(text: str) -> re.Pattern[str]:
    """A message template (`str.format` syntax) as a regex matching its renderings."""
    out = []
    for literal, name, _, _ in string.Formatter().parse(text):
        out.append(re.escape(literal))
        if name is not None:
            out.append(".*?")
    return re.compile("".join(out), re.DOTALL)


def variant_of(rule: Rule, finding: Finding) -> str | None:
    """The record wording a finding was rendered from: None (the main message) or a variant
    name; of several that match, the one with the most fixed text."""
    candidates = [(None, rule.message.en), *((k, v.en) for k, v in rule.variants.items())]
    matching = [
        (len(_template(text).pattern), name)
        for name, text in candidates
        if _template(text).fullmatch(finding.message.en)
    ]
    if not matching:
        raise AssertionError(
            f"{finding.rule}: no wording of the record renders {finding.message.en!r}"
        )
    return max(matching, key=lambda m: m[0])[1]


def actual(report: Report) -> list[Expected]:
    return [
        Expected(
            f.rule,
            f.path,
            f.line,
            f.severity,
            variant_of(_rule(f.rule, f.path), f),
            f.message.en,
        )
        for f in report.findings
    ]
