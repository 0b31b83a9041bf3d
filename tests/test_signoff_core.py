"""Sign-off parts: detection in a comment body, CODEOWNERS, the checklist template."""

from __future__ import annotations

import ast
import importlib
import time
from pathlib import Path

import pytest
from test_import_boundary import violations

from bot.signoff import codeowners as co
from bot.signoff.detect import (
    absence_reason,
    find_signoff,
    has_phrase,
    has_reuse_sweep,
    signed_login,
    split_lines,
)
from bot.signoff.template import match_items, parse_template, similarity

PHRASE = "As a PR reviewer and CODEOWNER, I have reviewed this and have"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "inferencex"
REAL_EN = SHARED / "docs" / "PR_REVIEW_CHECKLIST.md"
REAL_ZH = SHARED / "docs" / "PR_REVIEW_CHECKLIST_zh.md"
REAL_OWNERS = SHARED / ".github" / "CODEOWNERS"
needs_shared = pytest.mark.skipif(not REAL_EN.exists(), reason="../shared absent")

# A checklist document of our own in the shape of InferenceX's: prose, then the
# template in a fenced block (items, one nested), the detail section and `Signed:`.
TEMPLATE_DOC = f"""\
# Review checklist

Fill this in when you approve.

## Template
```
{PHRASE}:
- [ ] Verified that this is the latest version of [the checklist](https://example.test/docs/CHECKLIST.md)
- [ ] Verified that the sweep for this PR is green and linked the workflow run.
- [ ] Verified that speculative decoding PRs benchmark through chat templates.
- [ ] For agentic workloads: verified that spec-decode configs simulate acceptance at the committed golden acceptance length.
- [ ] Verified that every single-node vLLM/SGLang recipe in this PR is published upstream:
  - [ ] I linked the corresponding upstream PR in the vLLM recipe repo or the SGLang cookbook and verified that it is MERGED.
- [ ] Verified that the pinned image runs unpatched, or that a waiver under docs/waiver/ covers the patch.
- [ ] If this PR uses `append-only: true`, verified that only new points are generated and no existing point changes.
- [ ] If any of the above criteria cannot reasonably be satisfied, I have explained why below.

### Additional detail section:
- insert any additional info here

Signed: `FILL_IN_GITHUB_USERNAME`
```
"""

# The Chinese edition: an older English template (no append-only item, the
# recipe items in their earlier wording) and numbered notes in Chinese.
TEMPLATE_DOC_ZH = f"""\
# 审阅清单

## 模板
```
{PHRASE}:
- [ ] Verified that this is the latest version of [the checklist](https://example.test/docs/CHECKLIST.md)
- [ ] Verified that the sweep for this PR is green and linked the workflow run.
- [ ] Verified that speculative decoding PRs benchmark through chat templates.
- [ ] For agentic workloads: verified that spec-decode configs simulate acceptance at the committed golden acceptance length.
- [ ] Verified that the single-node vLLM/SGLang recipes in this PR are published upstream:
  - [ ] If they are not, I have verified that a PR has been opened upstream and linked it below.
- [ ] Verified that the pinned image runs unpatched, or that a waiver under docs/waiver/ covers the patch.
- [ ] If any of the above criteria cannot reasonably be satisfied, I have explained why below.

### Additional detail section:
- insert any additional info here

Signed: `FILL_IN_GITHUB_USERNAME`
```

## 各条目说明

1. 已确认使用的是清单的最新版本。
2. 已确认本 PR 的扫描全部通过，并附上工作流链接。
3. 已确认投机解码 PR 通过 chat template 进行基准测试。
4. 对 agentic 工作负载：已确认投机解码配置按已提交的黄金接受长度模拟接受。
5. 已确认本 PR 中每个单节点 vLLM/SGLang 配方都已在上游发布，并链接了已合并的上游 PR。
6. 已确认固定镜像未打补丁，或补丁已由 docs/waiver/ 下的豁免覆盖。
7. 如果上述任何条目无法合理满足，已在下方说明原因。
"""


def template_block(doc: str = TEMPLATE_DOC) -> str:
    return doc.split("```")[1].strip("\n")


def filled(doc: str = TEMPLATE_DOC, login: str = "alice", detail: str = "") -> str:
    body = template_block(doc).replace("- [ ]", "- [x]")
    body = body.replace("FILL_IN_GITHUB_USERNAME", login)
    return body.replace("insert any additional info here", detail or "nothing to add")


# ------------------------------------------------------------------ detection


def test_a_filled_template_is_read_item_by_item() -> None:
    s = find_signoff("Thanks!\n\n" + filled(detail="vLLM recipe: https://recipes.vllm.ai/x"))
    assert s is not None
    assert s.line == 3
    assert [i.level for i in s.items] == [0, 0, 0, 0, 0, 1, 0, 0, 0]
    assert all(i.checked for i in s.items)
    assert s.items[5].text.startswith("I linked the corresponding upstream PR")
    assert s.detail == "- vLLM recipe: https://recipes.vllm.ai/x"
    assert s.signed == "`alice`" and s.signed_login == "alice" and not s.placeholder
    assert "https://recipes.vllm.ai/x" in s.links()


def test_the_template_itself_is_unchecked_and_unsigned() -> None:
    s = find_signoff(template_block())
    assert s is not None
    assert not any(i.checked for i in s.items)
    assert s.placeholder and s.signed_login is None
    assert s.detail == ""  # the placeholder line is dropped


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("> " + filled().replace("\n", "\n> "), "quoted"),
        ("Their sign-off:\n\n```\n" + filled() + "\n```\n", "code"),
        ("~~~markdown\n" + filled() + "\n~~~\n", "code"),
        ("Text.\n\n    " + filled().replace("\n", "\n    "), "code"),
        (f"The phrase is `{PHRASE}:` and then the items.", "code"),
        (f"<!--\n{filled()}\n-->\nLGTM", "comment"),
        ("LGTM, ship it", "absent"),
    ],
    ids=["quote", "fence", "tilde-fence", "indented", "code-span", "html-comment", "absent"],
)
def test_a_signoff_only_in_a_quote_or_code_is_not_one(body: str, why: str) -> None:
    assert find_signoff(body) is None
    assert absence_reason(body) == why


def test_a_quoted_signoff_before_the_real_one_is_skipped() -> None:
    quoted = "> " + filled(login="bob").replace("\n", "\n> ")
    s = find_signoff(f"{quoted}\n\nAnd mine:\n\n{filled(login='alice')}")
    assert s is not None and s.signed_login == "alice"


def test_fences_close_and_lines_after_them_are_live() -> None:
    body = "```bash\necho hi\n```\n\n" + filled()
    assert find_signoff(body) is not None
    lines = split_lines("```\na\n```\nb")
    assert [ln.code for ln in lines] == [True, True, True, False]


def test_notes_under_an_item_and_wrapped_items() -> None:
    body = (
        f"{PHRASE}:\n"
        "- [x] Verified one thing\n"
        "  that wraps onto a second line\n"
        "- [ ] For agentic workloads: verified the golden AL\n"
        "  - N/A: no agentic config in this PR\n"
        "* [X] Verified with another bullet\n"
        "1. [x] Verified in an ordered list\n"
        "- Verified without a box\n"
        "\n"
        "**Additional detail section:** see the run https://github.com/o/r/actions/runs/1\n"
        "more detail\n"
        "\n"
        "Signed: @alice (AMD)\n"
        "/reuse-sweep-run\n"
    )
    s = find_signoff(body)
    assert s is not None
    texts = [i.text for i in s.items]
    assert texts[0] == "Verified one thing that wraps onto a second line"
    assert s.items[1].note == "N/A: no agentic config in this PR" and not s.items[1].checked
    assert s.items[2].checked and s.items[3].checked
    assert s.items[4].mark is None and not s.items[4].checked
    assert s.detail == "see the run https://github.com/o/r/actions/runs/1\nmore detail"
    assert s.signed_login == "alice"


@pytest.mark.parametrize(
    ("value", "login"),
    [
        ("`alice`", "alice"),
        ("@alice", "alice"),
        ("**@Alice-B**", "Alice-B"),
        ("Alice Smith (@asmith)", "asmith"),
        ("`FILL_IN_GITHUB_USERNAME`", None),
        ("", None),
        (None, None),
    ],
)
def test_signed_login(value: str | None, login: str | None) -> None:
    assert signed_login(value) == login


def test_reuse_sweep_command_at_the_start_of_a_live_line() -> None:
    assert has_reuse_sweep("/reuse-sweep-run")
    assert has_reuse_sweep("LGTM\n  /reuse-sweep-run 123456")
    assert not has_reuse_sweep("please post /reuse-sweep-run")
    assert not has_reuse_sweep("> /reuse-sweep-run")
    assert not has_reuse_sweep("```\n/reuse-sweep-run\n```")
    assert not has_reuse_sweep("/reuse-sweep-runs")


def test_hostile_bodies_are_bounded() -> None:
    body = PHRASE + "\n" + "- [x] a\n" * 50_000
    s = find_signoff(body)
    assert s is not None and len(s.items) == 200
    assert has_phrase(PHRASE.upper())
    start = time.perf_counter()
    for hostile in (
        "<!--" * 40_000 + PHRASE,  # unclosed comments: linear, and the phrase stays hidden
        "`" * 100_000 + PHRASE,
        ">" * 100_000 + PHRASE,
        "```\n" * 40_000 + PHRASE,
        "``a`" * 40_000 + "\n" + PHRASE,
    ):
        find_signoff(hostile)
        absence_reason(hostile)
        has_reuse_sweep(hostile)
    assert time.perf_counter() - start < 2.0
    assert absence_reason("<!--" * 10 + PHRASE) == "comment"


# ------------------------------------------------------------------ CODEOWNERS

DOC_EXAMPLE = """\
# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/* docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/github
"""


@pytest.mark.parametrize(
    ("path", "owners"),
    [
        ("some/deeply/nested/file.rb", ("@global-owner1", "@global-owner2")),
        ("src/app.js", ("@js-owner",)),
        ("x/y.go", ("docs@example.com",)),
        ("notes.txt", ("@octo-org/octocats",)),
        ("build/logs/a/b.log", ("@octocat",)),  # `**/logs` comes after `/build/logs/`
        ("docs/getting-started.md", ("@doctocat",)),  # `/docs/` comes after `docs/*`
        ("apps/x/y.py", ("@octocat",)),
        ("a/apps/y.py", ("@octocat",)),
        ("apps/github/z.py", ()),  # a pattern without owners leaves the path unowned
        ("scripts/run.sh", ("@doctocat", "@octocat")),
        ("deep/logs/x", ("@octocat",)),
    ],
)
def test_github_documentation_examples(path: str, owners: tuple[str, ...]) -> None:
    assert co.parse_codeowners(DOC_EXAMPLE).owners_of(path) == owners


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("docs/*", "docs/a.md", True),
        ("docs/*", "docs/build/a.md", False),  # GitHub: direct children only
        ("docs/", "docs/build/a.md", True),
        ("docs/", "docs", False),
        ("/build/logs/", "build/logs/a/b.log", True),
        ("/build/logs/", "x/build/logs/a.log", False),
        ("/docs", "docs/a/b", True),
        ("docs", "x/docs/a", True),
        ("configs/amd-master.yaml", "configs/amd-master.yaml", True),
        ("configs/amd-master.yaml", "x/configs/amd-master.yaml", False),
        ("MODELS.md", "sub/MODELS.md", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**", "a/x/y", True),
        ("*.md", "a/b/c.md", True),
        ("?.md", "a.md", True),
        ("!x", "x", False),
        ("[ab].md", "a.md", False),
        ("*", "anything/at/all", True),
    ],
)
def test_patterns(pattern: str, path: str, hit: bool) -> None:
    assert co.matches(pattern, path) is hit


def test_last_matching_line_wins_and_owners_do_not_accumulate() -> None:
    owners = co.parse_codeowners("* @org/core\nconfigs/nv.yaml @a @b\n")
    rule = owners.rule_for("configs/nv.yaml")
    assert rule is not None and rule.owners == ("@a", "@b") and not rule.catch_all
    general = owners.rule_for("README.md")
    assert general is not None and general.catch_all


def test_required_teams() -> None:
    text = "* @org/core\nconfigs/amd.yaml @x @org/amd\nconfigs/nv.yaml @y @org/nv\n"
    assert co.required_teams(text, ["configs/amd.yaml"]) == {"@org/amd"}
    assert co.required_teams(text, ["configs/amd.yaml", "configs/nv.yaml"]) == {
        "@org/amd",
        "@org/nv",
    }
    # a catch-all path: any team listed anywhere makes the signer a CODEOWNER
    assert co.required_teams(text, ["README.md"]) == {"@org/core", "@org/amd", "@org/nv"}
    # a signer listed by name on the owning line needs no team at all
    assert co.required_teams(text, ["configs/amd.yaml", "README.md"], signer="X") == set()
    assert co.required_teams(text, ["configs/amd.yaml"], signer="y") == {"@org/amd"}


def test_hostile_paths_match_quickly() -> None:
    owners = co.parse_codeowners(DOC_EXAMPLE + "a/**/b/*.md @y\n")
    start = time.perf_counter()
    for path in ("a/" * 2000 + "x.md", "a" * 4000, "/".join(["ab"] * 1300)):
        owners.rule_for(path)
    assert time.perf_counter() - start < 0.5


@needs_shared
def test_real_codeowners() -> None:
    owners = co.parse_codeowners(REAL_OWNERS.read_text(encoding="utf-8"))
    amd = owners.rule_for("configs/amd-master.yaml")
    assert amd is not None and "billishyahao" in amd.users and not amd.teams
    assert owners.rule_for("benchmarks/single_node/agentic/x.sh").catch_all  # type: ignore[union-attr]
    assert owners.owners_of("experimental/operatorx/a/b.py") == ("@hbarclay",)
    text = REAL_OWNERS.read_text(encoding="utf-8")
    assert co.required_teams(text, ["configs/nvidia-master.yaml"]) == {"@InferenceX/core"}
    assert co.required_teams(text, ["configs/amd-master.yaml"]) == set()


# ------------------------------------------------------------------ template


def test_template_items_numbers_and_chinese_wording() -> None:
    t = parse_template(TEMPLATE_DOC, TEMPLATE_DOC_ZH)
    assert t is not None
    assert [i.number for i in t.items] == ["1", "2", "3", "4", "5", "5.1", "6", "7", "8"]
    assert t.items[5].parent == 4 and t.items[5].level == 1
    # notes follow the Chinese document's own (older) template, aligned by similarity
    assert t.items[1].zh.startswith("已确认本 PR 的扫描全部通过")
    assert t.items[4].zh.startswith("已确认本 PR 中每个单节点")
    assert t.items[8].zh.startswith("如果上述任何条目")
    assert t.items[6].zh.startswith("已确认固定镜像未打补丁")
    assert t.items[7].zh == ""  # append-only: newer than the Chinese notes
    assert t.items[5].zh == ""  # nested: no note of its own
    assert t.items[6].short_zh().startswith("已确认")


def test_no_template_block() -> None:
    assert parse_template("# Checklist\n\nNo template here.\n") is None
    assert parse_template("```\n" + PHRASE + "\n```\n") is None  # a block without items


def test_matching_tolerates_order_drift_links_and_chinese() -> None:
    t = parse_template(TEMPLATE_DOC, TEMPLATE_DOC_ZH)
    assert t is not None
    s = find_signoff(filled())
    assert s is not None
    items = list(s.items)
    items.reverse()
    assert all(m.signoff is not None for m in match_items(t, items))
    drifted = filled().replace("Verified that the sweep", "Verified that the full sweep")
    drifted = drifted.replace(
        "workflow run.", "workflow run: https://github.com/o/r/actions/runs/9"
    )
    s2 = find_signoff(drifted)
    assert s2 is not None and all(m.signoff is not None for m in match_items(t, s2.items))
    chinese = find_signoff(
        f"{PHRASE}:\n- [x] 已确认本 PR 的扫描全部通过，并附上工作流链接。\n\nSigned: @alice"
    )
    assert chinese is not None
    found = [m.item.number for m in match_items(t, chinese.items) if m.signoff is not None]
    assert found == ["2"]


def test_a_stale_copy_misses_the_new_and_the_changed_items() -> None:
    t = parse_template(TEMPLATE_DOC, TEMPLATE_DOC_ZH)
    assert t is not None
    stale = find_signoff(filled(TEMPLATE_DOC_ZH))
    assert stale is not None
    missing = [m.item.number for m in match_items(t, stale.items) if m.signoff is None]
    assert missing == ["5.1", "7"]  # the MERGED requirement and the append-only item


def test_similarity_prefers_rare_words() -> None:
    t = parse_template(TEMPLATE_DOC)
    assert t is not None
    same = similarity(t, t.items[5].text, t.items[5].text)
    assert same == pytest.approx(1.0)
    assert similarity(t, t.items[5].text, "") == 0.0


@needs_shared
def test_real_template_and_its_chinese_edition() -> None:
    t = parse_template(REAL_EN.read_text(encoding="utf-8"), REAL_ZH.read_text(encoding="utf-8"))
    assert t is not None
    assert len(t.items) == 15 and [i.number for i in t.items][10:12] == ["11", "11.1"]
    assert t.items[0].zh.startswith("已确认在填写此清单时")
    assert t.items[13].zh == ""  # append-only: the Chinese notes predate it
    assert t.items[14].zh.startswith("如果上述任何条目无法合理满足")
    en_block = REAL_EN.read_text(encoding="utf-8").split("```")[1]
    s = find_signoff(en_block)
    assert s is not None and all(m.signoff is not None for m in match_items(t, s.items))
    # a copy of the Chinese document's (stale) template
    zh_block = REAL_ZH.read_text(encoding="utf-8").split("```")[1]
    stale = find_signoff(zh_block)
    assert stale is not None
    missing = [m.item.number for m in match_items(t, stale.items) if m.signoff is None]
    assert missing == ["11.1", "13"]


# ------------------------------------------------------------------ purity


def test_signoff_core_does_not_reach_the_edges() -> None:
    package = importlib.import_module("bot.signoff")
    pure = ("model", "detect", "template", "codeowners", "verify", "render", "content")
    for folder in package.__path__:
        for name in pure:
            path = Path(folder) / f"{name}.py"
            tree = ast.parse(path.read_text(encoding="utf-8"))
            assert not list(violations(tree)), path
