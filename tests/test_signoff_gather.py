"""The one facts gatherer (`bot.signoff.gather`) that the service and `bot signoff check` share."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.core.config import build_config
from bot.core.engine import Context, Report
from bot.signoff.gather import SignedComment, Signer, gather
from bot.signoff.model import CheckRun, PostedComment, ReuseSweep

ROOT = Path(__file__).resolve().parents[1]


class _Source:
    head_sha = "h" * 40

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.asked: list[str] = []
        self.count: int | None = None

    def base_text(self, path: str) -> str | None:
        self.asked.append(f"base:{path}")
        return self.files.get(path)

    def template_text(self, path: str) -> str | None:
        self.asked.append(f"template:{path}")
        return self.files.get(path)

    def changed(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return ("a.sh", "docs/waiver/7.md"), ("docs/waiver/7.md",)

    def changed_count(self) -> int | None:
        return self.count

    def commits(self) -> tuple[str, ...] | None:
        return ("c1", "h" * 40)

    def check_runs(self, commits: tuple[str, ...] | None) -> tuple[CheckRun, ...] | None:
        assert commits == ("c1", "h" * 40)
        return (CheckRun("eval / x", "completed", "success", "h" * 40),)

    def reuse_sweeps(self) -> tuple[ReuseSweep, ...] | None:
        return (ReuseSweep("maint", "write"),)

    def comments(self) -> tuple[PostedComment, ...] | None:
        return (PostedComment("maint", "looks wrong", "write"),)

    def signer(
        self, login: str, codeowners: str | None, paths: tuple[str, ...], newest: bool
    ) -> Signer:
        assert codeowners == self.files.get("OWNERS") and paths[0] == "a.sh"
        return Signer("admin" if newest else "write", {"@o/t": newest}, None, login.endswith("]"))

    def lint(self) -> tuple[Context | None, Report]:
        return None, Report(findings=[], files=[])


def _knowledge(extra: str = "") -> Any:
    text = (
        "knowledge:\n  signoff:\n    codeowners: [OWNERS]\n    template: list.md\n"
        "    template_zh: list_zh.md\n    check_runs: {workflow: sweep.yml}\n" + extra
    )
    return build_config(text).knowledge


def test_the_files_come_from_the_knowledge_and_each_signer_is_read_once() -> None:
    src = _Source({"OWNERS": "* @o/t\n", "list.md": "- [ ] a\n", "sweep.yml": "name: x\n"})
    signed = [SignedComment("alice", "old"), SignedComment("bob", "new", edited_by="bob")]
    older, newest = gather(src, signed, _knowledge(), pr=7, bot_login="bot")
    assert src.asked == [
        "base:OWNERS",
        "template:list.md",
        "template:list_zh.md",
        "base:sweep.yml",
    ]
    assert newest.signer == "bob" and newest.body == "new" and newest.edited_by == "bob"
    assert newest.signer_permission == "admin" and newest.team_membership == {"@o/t": True}
    assert older.signer == "alice" and older.signer_permission == "write"
    assert older.team_membership == {"@o/t": False} and older.edited_by is None
    assert newest.codeowners_text == "* @o/t\n" and newest.template_zh_text is None
    assert newest.sweep_workflow_text == "name: x\n"
    assert newest.added_paths == ("docs/waiver/7.md",) and newest.pr_commits == ("c1", "h" * 40)
    assert newest.reuse_sweeps == (ReuseSweep("maint", "write"),)
    # the other comments are read only when a disapproval phrase is configured
    assert newest.comments is None
    extra = "    disapproval: {phrases: ['-1']}\n"
    (facts,) = gather(src, signed[1:], _knowledge(extra), pr=7, bot_login="bot")
    assert facts.comments == (PostedComment("maint", "looks wrong", "write"),)


def test_the_service_and_the_cli_build_their_facts_only_through_the_gatherer() -> None:
    for path in sorted((ROOT / "bot").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name in ("gather.py", "model.py") and path.parent.name == "signoff":
            continue
        assert not re.search(r"\bSignoffFacts\(", text), f"{path} builds SignoffFacts itself"
    for path in ("bot/signoff/service.py", "bot/cli/signoff.py"):
        assert "gather(" in (ROOT / path).read_text(encoding="utf-8"), path
