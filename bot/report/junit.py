"""JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure). Pure.

One `<testsuite>` per file checked; each finding is a failing `<testcase>`
(`<failure type="RCP001">`), a file without findings one passing test case, so
the counts say how many files were checked. Info findings are failures too:
the report shows everything, the exit status decides what fails the job.
"""

from __future__ import annotations

from itertools import groupby
from xml.etree import ElementTree as ET

from bot.core.engine import Report
from bot.core.model import Finding
from bot.core.wording import say
from bot.report.paths import PathMap, as_given
from bot.report.text import bilingual, langs


def _case(f: Finding, lang: str, paths: PathMap) -> ET.Element:
    path = paths(f.path)
    case = ET.Element(
        "testcase",
        {
            "classname": path,
            "name": f"{f.rule} {f.slug} at line {f.span.line}, column {f.span.col}",
            "file": path,
            "line": str(f.span.line),
        },
    )
    message = bilingual(f.message, lang, sep=" / ")
    failure = ET.SubElement(case, "failure", {"type": f.rule, "message": message})
    body = [f"{path}:{f.span.line}:{f.span.col}: {f.severity} {f.rule} {f.slug}"]
    body += [f.message.get(code) for code in langs(lang)]
    if f.fix is not None:
        label = say("fix-label")
        body += [label.get(c) + f.fix.get(c) for c in langs(lang)]
    failure.text = "\n".join(body)
    return case


def render(report: Report, lang: str = "both", *, paths: PathMap = as_given) -> str:
    """The report as a JUnit XML document, ending with a newline. `paths` maps a path of
    the report to the path printed."""
    langs(lang)
    by_path = {path: list(group) for path, group in groupby(report.findings, key=lambda f: f.path)}
    files = list(dict.fromkeys([*report.files, *by_path]))
    root = ET.Element(
        "testsuites",
        {
            "name": "recipe-review",
            "tests": str(sum(len(by_path.get(p, [])) or 1 for p in files)),
            "failures": str(len(report.findings)),
            "errors": "0",
        },
    )
    for path in files:
        findings = by_path.get(path, [])
        shown = paths(path)
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": shown,
                "tests": str(len(findings) or 1),
                "failures": str(len(findings)),
                "errors": "0",
                "skipped": "0",
            },
        )
        if not findings:
            ET.SubElement(suite, "testcase", {"classname": shown, "name": "no findings"})
        suite.extend(_case(f, lang, paths) for f in findings)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
