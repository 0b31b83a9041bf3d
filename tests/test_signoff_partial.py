"""A PR whose file list GitHub cut short (3,000 files at most, documented): the sign-off
facts say so (listed N of M) and no row judged from the changed files passes.

The service end of it (3,001 files on the contract-checked fake GitHub) is
`tests/test_github_signoff_behaviour.py`.
"""

from __future__ import annotations

import dataclasses

import pytest
from test_signoff_core import filled
from test_signoff_gather import _knowledge, _Source
from test_signoff_verify import RECIPE, RECIPE_LINK, blocking, facts, finding, reason

from bot.core.config import Knowledge, build_config
from bot.signoff.gather import SignedComment, gather
from bot.signoff.model import PartialList
from bot.signoff.verify import verify, verify_all

CUT = PartialList(listed=3000, changed=3001)
# every row judged from the changed files: who owns them and what the recipe rules read
FILE_ROWS = {
    "owner",
    "recipe-link",
    "images",
    "deprecated",
    "architecture",
    "chat-template",
    "waiver",
    "golden-al",
    "append-only",
}


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return build_config(None).knowledge


def test_the_gatherer_says_when_the_file_list_is_partial() -> None:
    src = _Source({"OWNERS": "* @o/t\n"})
    signed = [SignedComment("bob", "new")]
    (whole,) = gather(src, signed, _knowledge(), pr=7, bot_login="bot")
    assert whole.files_partial is None  # the source lists every file
    src.count = 2
    (same,) = gather(src, signed, _knowledge(), pr=7, bot_login="bot")
    assert same.files_partial is None  # `changed()` holds both
    src.count = 3001
    (cut,) = gather(src, signed, _knowledge(), pr=7, bot_login="bot")
    assert cut.files_partial == PartialList(listed=2, changed=3001)


def test_no_row_judged_from_the_changed_files_passes_on_a_partial_list(
    knowledge: Knowledge,
) -> None:
    assert verify(facts(), knowledge).verdict == "pass"
    v = verify(facts(files_partial=CUT), knowledge)
    assert v.verdict == "fail"
    assert blocking(v) == dict.fromkeys(FILE_ROWS, "unknown")
    assert reason(v, "owner") == (
        "could not verify ownership: GitHub lists 3,000 of the 3,001 files this PR changes, "
        "and the owners of the other 1 are unknown; a maintainer checks them by hand"
    )
    owner = next(c for c in v.checks if c.name == "owner")
    assert owner.reason.zh.startswith("无法核实归属：GitHub 只列出了本 PR 修改的 3,001 个文件")
    assert reason(v, "images") == (
        "could not verify: GitHub lists 3,000 of the 3,001 files this PR changes; "
        "the other 1 were not read, so a human checks them"
    )
    # what does not read the file list is judged as before
    rows = {c.name: c.status for c in v.checks}
    assert rows["ci-green"] == rows["template"] == rows["signed"] == "pass"


def test_what_a_row_found_wrong_still_fails_and_a_human_row_stays(knowledge: Knowledge) -> None:
    v = verify(facts(files_partial=CUT, findings=(finding("RCP007"),)), knowledge)
    assert blocking(v)["architecture"] == "fail"
    assert "RCP007 fired here" in reason(v, "architecture")
    rows = {c.name: c.status for c in v.checks}
    assert rows["recipe-upstream"] == rows["eval-accuracy"] == "human"
    stranger = facts(
        signer="carol",
        body=filled(login="carol", detail=RECIPE_LINK),
        team_membership={"@org/core": False, "@org/amd": False},
        files_partial=CUT,
    )
    v = verify(stranger, knowledge)
    assert blocking(v)["owner"] == "fail"  # owns none of the listed files
    assert "is owned by" in reason(v, "owner")


def test_an_item_left_unchecked_as_not_applicable_needs_a_reason_on_a_partial_list(
    knowledge: Knowledge,
) -> None:
    """Whether an item applies is read from the changed files: the unlisted ones may be
    a speculative-decoding recipe."""
    body = filled(detail=RECIPE_LINK)
    body = "\n".join(
        ln.replace("- [x]", "- [ ]") if "speculative decoding PRs" in ln else ln
        for ln in body.splitlines()
    )
    assert "template" not in blocking(verify(facts(body=body), knowledge))
    v = verify(facts(body=body, files_partial=CUT), knowledge)
    assert blocking(v)["template"] == "fail"
    assert "“Verified that speculative decoding PRs" in reason(v, "template")


def test_sign_offs_covering_every_listed_group_do_not_cover_a_partial_list(
    knowledge: Knowledge,
) -> None:
    """Several sign-offs combine across CODEOWNERS groups, but the groups of the files
    GitHub did not list are unknown: the newest signer's own owner row stands."""
    paths = ("configs/amd-master.yaml", "configs/nvidia-master.yaml", RECIPE)
    alice = facts(changed_paths=paths)
    nv = facts(
        signer="nvowner",
        body=filled(login="nvowner", detail=RECIPE_LINK),
        changed_paths=paths,
        team_membership={"@org/core": False, "@org/amd": False},
    )
    both = verify_all([alice, nv], knowledge)
    assert both.verdict == "pass" and "every CODEOWNERS group" in reason(both, "owner")
    cut = [dataclasses.replace(f, files_partial=CUT) for f in (alice, nv)]
    v = verify_all(cut, knowledge)
    assert v.verdict == "fail"
    assert blocking(v)["owner"] == "fail"  # nvowner alone does not own amd-master
    assert "groups" not in reason(v, "owner")
