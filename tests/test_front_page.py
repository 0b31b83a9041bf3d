"""The README is a user's front page: short, every link resolves, every topic linked.

Also checks the links of CONTRIBUTING.md and docs/*.md (relative files and their
`#anchors`, as GitHub derives them from headings and `<a id>` tags), and that the README's
test command is the one `.ci/run` runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```+|~~~+).*?^\1\s*$", re.M | re.S)


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"`|<[^>]*>", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found: set[str] = set()
    seen: dict[str, int] = {}
    for m in re.finditer(r"^#{1,6} (.+)$", text, re.M):
        base = github_anchor(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    found |= set(re.findall(r'<a id="([^"]+)"', text))
    return found


def broken_links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    bad = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file, _, frag = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif frag and dest.suffix == ".md" and frag not in anchors(dest):
            bad.append(f"{target}: no such anchor in {dest.name}")
    return bad


def test_the_readme_is_short_and_tells_no_story() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    for word in ("closing note", "this stop", "session", "helper"):
        assert word not in text.lower(), word


def test_the_readme_links_every_topic() -> None:
    text = README.read_text(encoding="utf-8")
    linked = set(LINK.findall(text))
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{doc.name}" in linked, f"README does not link docs/{doc.name}"
    assert "CONTRIBUTING.md" in linked


@pytest.mark.parametrize(
    "path",
    [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))],
    ids=lambda p: p.name,
)
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A title\n\n## Some `code_x` here\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#some-code_x-here) [file](missing.md) [anchor](a.md#nope) [self](#x)\n"
        "`[in code](missing.md)`\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "a.md#nope: no such anchor in a.md",
        "#x: no such anchor in b.md",
    ]


def test_the_readme_commands_are_the_ones_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_cmd = (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest"
    )
    assert test_cmd in readme and test_cmd in ci
    lint_cmd = (
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/bot lint "
        "examples/inferencex-mini"
    )
    assert lint_cmd in readme
