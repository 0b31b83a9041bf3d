"""A reordered history, and entries carried from the base tip placed where the head has
them (found on InferenceX #1161, #1145 and #306)."""

from __future__ import annotations

from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.registry import all_rules
from bot.core.tree import MemoryTree
from bot.parse.changelog import entry_changes, parse_changelog
from bot.parse.changelog_diff import diff_changelogs
from tests.test_precision_fixes import ARCHIVED_SGLANG

CHANGELOG = "perf-changelog.yaml"
PULL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"
APPEND_RULE = {"AGENTS.md": "New entries MUST be appended to the END of the file.\n"}


def entry(key: str, n: int, text: str = "Bump the image") -> str:
    return f'- config-keys:\n    - {key}\n  description:\n    - "{text}"\n  pr-link: {PULL}{n}\n'


def log(*entries: str, sep: str = "\n") -> str:
    return sep.join(entries)


A, B, C, D, E = (
    entry(f"{k}-fp8-h100-vllm", n) for k, n in zip("abcde", (10, 20, 30, 40, 50), strict=True)
)


def lint_change(head: str, base: str, pr: int, tip: str | None = None) -> list[tuple[str, str]]:
    change = build_changeset(
        MemoryTree({CHANGELOG: base, **APPEND_RULE}),
        MemoryTree({CHANGELOG: head, **APPEND_RULE}),
        [CHANGELOG],
        pr=pr,
    )
    ctx = Context.for_change(
        change, build_config(None), base_tip=MemoryTree({CHANGELOG: tip}) if tip else None
    )
    rules = [rm for rm in all_rules() if rm.rule.target == "changelog"]
    report = lint(ctx, paths=[CHANGELOG], rules=rules)
    return [(f.rule, f.message.en) for f in report.findings]


def test_a_reordered_history_moves_entries_and_adds_none() -> None:
    base = log(A, B, C, D, E)
    fixed = entry("b-fp8-h100-vllm", 21)  # B moved, its pr-link corrected
    head = log(A, C, D, fixed, E)
    diff = diff_changelogs(parse_changelog(CHANGELOG, base), parse_changelog(CHANGELOG, head))
    assert diff is not None
    assert diff.new == () and diff.deletions == ()
    assert [(m.before.get("pr-link"), m.after.get("pr-link")) for m in diff.moved] == [
        (f"{PULL}20", f"{PULL}21")
    ]
    assert [e.kind for e in diff.edits] == ["pr-link"]
    changes = entry_changes(parse_changelog(CHANGELOG, head), parse_changelog(CHANGELOG, base))
    # only the corrected link is a change, and of the merged entry, not a new one
    assert [(c.entry.get("pr-link"), c.is_new) for c in changes] == [(f"{PULL}21", False)]
    found = lint_change(head, base, 99)
    chl005 = [text for rule, text in found if rule == "CHL005"]
    assert len(chl005) == 1 and "was moved from line 7 of the base" in chl005[0], found
    assert not any(rule in ("CHL002", "CHL003", "CHL006") for rule, _ in found), found


def test_a_new_entry_in_a_reordered_history_is_still_new() -> None:
    base = log(A, B, C)
    head = log(C, A, B, entry("p-fp8-h100-vllm", 99))
    diff = diff_changelogs(parse_changelog(CHANGELOG, base), parse_changelog(CHANGELOG, head))
    assert diff is not None
    assert [e.get("pr-link") for e in diff.appended] == [f"{PULL}99"]
    assert len(diff.moved) == 1 and diff.deletions == ()


def test_a_link_corrected_in_place_is_an_edit_not_a_move() -> None:
    base = log(A, B, C)
    head = log(A, entry("b-fp8-h100-vllm", 21), C)
    diff = diff_changelogs(parse_changelog(CHANGELOG, base), parse_changelog(CHANGELOG, head))
    assert diff is not None
    assert diff.moved == () and [e.kind for e in diff.edits] == ["pr-link"]
    assert not any(rule == "CHL005" for rule, _ in lint_change(head, base, 21))


def test_an_entry_deleted_and_another_added_is_not_a_move() -> None:
    base = log(A, B, C)
    head = log(A, C, entry("p-fp8-h100-vllm", 99))
    found = lint_change(head, base, 99)
    chl005 = [text for rule, text in found if rule == "CHL005"]
    assert len(chl005) == 1 and "was deleted" in chl005[0], found


def test_an_entry_carried_at_the_top_stays_at_the_top() -> None:
    # InferenceX #1145: main's newest entry (#1131) sits at the top of main and of the
    # branch; put at the end of the merge-base's history it looked inserted and deleted
    top = entry("t-fp4-b200-sglang", 31)
    merge_base, tip = log(A, B), log(top, A, B)
    head = log(top, A, B, entry("p-fp8-h100-vllm", 45))
    assert lint_change(head, merge_base, 45, tip=tip) == []
    # without the tip, #31's entry is judged as this PR's
    assert any(rule == "CHL002" for rule, _ in lint_change(head, merge_base, 45))


def test_carried_entries_keep_the_heads_separators() -> None:
    # InferenceX #306: an early history had no blank line between entries; the carried
    # entry, given one, made the unchanged file look rewritten (CHL008)
    merge_base = log(A, B, sep="")
    tip = head = log(A, B, C, sep="")
    assert lint_change(head, merge_base, 306, tip=tip) == []


def test_carried_separators_keep_their_spaces() -> None:
    # InferenceX #671: main's separators were lines of four spaces; rebuilt as empty
    # lines, the unchanged file looked rewritten (CHL008)
    merge_base = log(A, B, sep="    \n")
    tip = head = log(A, B, C, sep="    \n")
    assert lint_change(head, merge_base, 671, tip=tip) == []


MASTER = "configs/nvidia-master.yaml"


def master(conc_end: int) -> str:
    """One master-config entry, its search space ending at `conc_end`."""
    return ARCHIVED_SGLANG.replace("conc-end: 64", f"conc-end: {conc_end}")


def test_a_config_change_the_base_tip_already_has_is_not_the_prs() -> None:
    # InferenceX #671 merged main into its branch as a one-parent commit: a config change
    # main had merged without a changelog entry came along. Squash-merged onto main, that
    # entry does not change: it is not this PR's to announce
    own = entry("gptoss-fp4-h100-vllm", 671)
    merge_base = {CHANGELOG: A, MASTER: master(64), **APPEND_RULE}
    tip = {CHANGELOG: A, MASTER: master(256), **APPEND_RULE}
    head = {CHANGELOG: log(A, own), MASTER: master(256), **APPEND_RULE}
    rules = [rm for rm in all_rules() if rm.rule.id == "CFG002"]

    def run(tip_tree: dict[str, str] | None) -> list[str]:
        change = build_changeset(
            MemoryTree(merge_base), MemoryTree(head), [CHANGELOG, MASTER], pr=671
        )
        base_tip = MemoryTree(tip_tree) if tip_tree is not None else None
        ctx = Context.for_change(change, build_config(None), base_tip=base_tip)
        return [f.rule for f in lint(ctx, paths=[CHANGELOG, MASTER], rules=rules).findings]

    assert run(tip) == []
    # the PR's own change of the entry still needs its entry
    assert run({**tip, MASTER: master(128)}) == ["CFG002"]
    # without the tip, the change looks like this PR's
    assert run(None) == ["CFG002"]


def test_practices_follow_the_configured_paths() -> None:
    # a repository that keeps its changelog elsewhere still shows `changelog-pr-link`: the
    # mark names the configured changelog (`{changelog}`), not InferenceX's path
    log_path = "docs/perf-log.yaml"
    config = build_config("paths:\n  changelog: docs/perf-log.yaml\n")
    unlinked = '- config-keys:\n    - p-fp8-h100-vllm\n  description:\n    - "New"\n'
    change = build_changeset(
        MemoryTree({log_path: A}), MemoryTree({log_path: log(A, unlinked)}), [log_path], pr=5
    )
    ctx = Context.for_change(change, config)
    rules = [rm for rm in all_rules() if rm.rule.id == "CHL002"]
    found = [f.message.en for f in lint(ctx, paths=[log_path], rules=rules).findings]
    assert found == ["Entry has no `pr-link`"]


def test_a_link_corrected_in_place_beside_a_twin_elsewhere_is_not_a_move() -> None:
    # an entry and its twin (same data, other link) further down: the PR corrects the
    # first's link in place and drops the twin; the correction must not be taken for the
    # twin moved up (InferenceX's main has 16 such twins)
    twin = entry("x-fp8-h100-vllm", 1)
    base = log(twin, A, entry("x-fp8-h100-vllm", 2), B)
    head = log(entry("x-fp8-h100-vllm", 11), A, B)
    diff = diff_changelogs(parse_changelog(CHANGELOG, base), parse_changelog(CHANGELOG, head))
    assert diff is not None and diff.moved == ()
    assert [(e.kind, e.before.get("pr-link")) for e in diff.edits] == [("pr-link", f"{PULL}1")]
    assert [[x.get("pr-link") for x in d.entries] for d in diff.deletions] == [[f"{PULL}2"]]


def test_a_moved_entry_without_a_link_is_worded_in_both_languages() -> None:
    bare = '- config-keys:\n    - z-fp8-h100-vllm\n  description:\n    - "Old"\n'
    base, head = log(A, bare, C, D, E), log(A, C, D, bare, E)
    change = build_changeset(
        MemoryTree({CHANGELOG: base, **APPEND_RULE}),
        MemoryTree({CHANGELOG: head, **APPEND_RULE}),
        [CHANGELOG],
        pr=99,
    )
    ctx = Context.for_change(change, build_config(None))
    rules = [rm for rm in all_rules() if rm.rule.id == "CHL005"]
    (f,) = lint(ctx, paths=[CHANGELOG], rules=rules).findings
    assert f.message.en == (
        "Merged entry for `z-fp8-h100-vllm` (without a `pr-link`) was moved from line 7 of the "
        "base: merged history keeps its order"
    )
    assert "（没有 `pr-link`）" in f.message.zh and "no `pr-link`" not in f.message.zh


def test_the_prs_own_edit_of_a_carried_separator_is_seen() -> None:
    # the separator above a carried entry is the tip's: a PR that drops it changes what
    # squash-merging onto the tip keeps, however its own branch writes it
    bytes_rule = {"utils/validate_perf_changelog.py": "def validate_raw_change(base, head): ...\n"}
    merge_base, tip = log(A, B), log(A, B, C)
    head = A + "\n" + B + C + "\n" + entry("p-fp8-h100-vllm", 77)
    change = build_changeset(
        MemoryTree({CHANGELOG: merge_base, **APPEND_RULE, **bytes_rule}),
        MemoryTree({CHANGELOG: head, **APPEND_RULE, **bytes_rule}),
        [CHANGELOG],
        pr=77,
    )
    ctx = Context.for_change(
        change, build_config(None), base_tip=MemoryTree({CHANGELOG: tip, **bytes_rule})
    )
    rules = [rm for rm in all_rules() if rm.rule.target == "changelog"]
    found = [(f.rule, f.severity) for f in lint(ctx, paths=[CHANGELOG], rules=rules).findings]
    assert found == [("CHL008", "warning")], found
