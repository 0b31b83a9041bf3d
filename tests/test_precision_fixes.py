"""Precision fixes found by running the bot over real InferenceX PRs (issue 8, item 5)."""

from __future__ import annotations

import lintkit
import pytest

from bot.core.changeset import build_changeset
from bot.core.config import build_config
from bot.core.engine import Context, lint
from bot.core.registry import all_rules
from bot.core.tree import MemoryTree
from bot.parse.changelog import entry_changes, parse_changelog

MASTER = "configs/nvidia-master.yaml"
KNOWLEDGE = build_config(None).knowledge
TILERT = (
    "glm5.1-fp8-b200-tilert:\n"
    "  image: tilert/tilert:0.3\n"
    "  model: zai-org/GLM-5.1-FP8\n"
    "  model-prefix: glm5.1\n"
    "  runner: b200\n"
    "  precision: fp8\n"
    "  framework: tilert\n"
    "  multinode: true\n"
    "  scenarios:\n"
    "    fixed-seq-len:\n"
    "    - isl: 8192\n"
    "      osl: 1024\n"
    "      search-space:\n"
    "      - {tp: 8, conc-start: 4, conc-end: 64}\n"
)
ARCHIVED_SGLANG = (
    "glm5-fp8-b200-sglang:\n"
    "  image: lmsysorg/sglang:v0.5.9\n"
    "  model: zai-org/GLM-5-FP8\n"
    "  model-prefix: glm5\n"
    "  runner: b200\n"
    "  precision: fp8\n"
    "  framework: sglang\n"
    "  multinode: false\n"
    "  scenarios:\n"
    "    fixed-seq-len:\n"
    "    - isl: 1024\n"
    "      osl: 1024\n"
    "      search-space:\n"
    "      - {tp: 8, conc-start: 4, conc-end: 64}\n"
)


def _cfg004(head: dict[str, str], base: dict[str, str]) -> list[str]:
    # a repository whose base states the order (`knowledge.practices.engine-submission-policy`)
    policy = {"MODELS.md": "## Engine submission policy\n"}
    report = lintkit.lint_pr(
        {**policy, **head}, {**policy, **base}, pr=1, paths=[MASTER], rules=[lintkit.rule("CFG004")]
    )
    return [f.subject for f in report.findings]


def _rcp008(head: dict[str, str], base: dict[str, str], pr: int = 42) -> list[str]:
    rules = [rm for rm in all_rules() if rm.rule.id == "RCP008"]
    # a repository with the waiver rule (`knowledge.practices.waiver-rule`)
    folder = {"docs/waiver/.gitkeep": ""}
    bt, ht = MemoryTree({**folder, **base}), MemoryTree({**folder, **head})
    changed = {p for p in set(head) | set(base) if head.get(p) != base.get(p)}
    ctx = Context.for_change(build_changeset(bt, ht, changed, pr=pr), build_config(None))
    return [f.message.en for f in lint(ctx, paths=[RECIPE], rules=rules).findings]


RECIPE = "benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh"
SITE = "/usr/local/lib/python3.12/site-packages/vllm/v1/attention/backends/mla/common.py"


def test_curl_and_wget_into_site_packages_patch_the_engine() -> None:
    for cmd in (
        f"curl -sSL -o {SITE} https://example.com/common.py",
        f"wget -q -O {SITE} https://x/y.py",
    ):
        text = f"#!/usr/bin/env bash\n{cmd}\nvllm serve m &\n"
        found = _rcp008({RECIPE: text}, {})
        assert len(found) == 1 and "installed engine" in found[0], found
    text = "#!/usr/bin/env bash\ncurl -sSL -o /tmp/data.json https://x/y.json\nvllm serve m &\n"
    assert _rcp008({RECIPE: text}, {}) == []


def test_existing_waiver_naming_the_patch_script_covers_a_new_recipe() -> None:
    helper = "benchmarks/single_node/agentic/apply_k3_patches.sh"
    patch = f"#!/usr/bin/env bash\nsed -i 's/a/b/' {SITE}\n"
    text = '#!/usr/bin/env bash\nbash "$(dirname "$0")/apply_k3_patches.sh"\nvllm serve m &\n'
    waiver = {"docs/waiver/2501.md": "Waiver for `apply_k3_patches.sh` (upstream fix pending).\n"}
    base = {helper: patch, **waiver}
    assert _rcp008({RECIPE: text, **base}, base) == []
    assert _rcp008({RECIPE: text, helper: patch}, {helper: patch}) != []


# ------------------------------------------------------------------ changelog bytes

CHANGELOG = "perf-changelog.yaml"
PULL = "https://github.com/SemiAnalysisAI/InferenceX/pull/"


def _entry(key: str, link: str) -> str:
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "Bump the image"\n  pr-link: {link}\n'
    )


# the append rule of InferenceX #1067, which CHL003 relies on, and the byte contract of
# #1821, which CHL007 relies on (`knowledge.practices`)
_APPEND_RULE = {
    "AGENTS.md": "New entries MUST be appended to the END of the file.\n",
    "utils/validate_perf_changelog.py": "def validate_raw_change(base, head): ...\n",
}


def _changelog_pr(head: str, base: str, pr: int, tip: str | None = None) -> Context:
    """The changelog changed by pull request `pr`; `tip`: the base branch's newer tip."""
    change = build_changeset(
        MemoryTree({CHANGELOG: base, **_APPEND_RULE}),
        MemoryTree({CHANGELOG: head, **_APPEND_RULE}),
        [CHANGELOG],
        pr=pr,
    )
    return Context.for_change(
        change,
        build_config(None),
        base_tip=MemoryTree({CHANGELOG: tip}) if tip is not None else None,
    )


def _changelog(head: str, base: str, pr: int) -> list[tuple[str, str]]:
    report = lintkit.lint_files(
        {CHANGELOG: head}, pr=pr, base={CHANGELOG: base}, rules=lintkit.rules_for("changelog")
    )
    return [(f.rule, f.severity) for f in report.findings]


def test_a_merged_entry_reformatted_below_an_insertion_keeps_its_own_pr_link() -> None:
    # InferenceX #1040: an entry inserted just above the last merged one (#1043), whose
    # first line gained trailing spaces in a merge of main. Paired in order, the new entry
    # looked like an edit of #1043's and #1043's like the PR's own new entry, so CHL002
    # asked it to name #1040; it is the merged entry reformatted (CHL004 reports that).
    a = _entry("a-fp8-h100-vllm", f"{PULL}1020")
    merged = _entry("g-fp4-mi355x-atom", f"{PULL}1043")
    new = _entry("q-fp8-mi355x-atom", f"{PULL}1040")
    base = a + "\n" + merged
    head = a + "\n" + new + "\n" + merged.replace("- config-keys:\n", "- config-keys:  \n", 1)
    found = _changelog(head, base, 1040)
    assert ("CHL002", "error") not in found
    assert ("CHL004", "error") in found
    # the new entry is the PR's, the merged one a change of the base's
    changes = entry_changes(parse_changelog(CHANGELOG, head), parse_changelog(CHANGELOG, base))
    assert [(c.entry.get("pr-link")[-4:], c.is_new) for c in changes] == [
        ("1040", True),
        ("1043", False),
    ]
    # an entry edited in place is still paired with its base entry
    fixed = a + "\n" + merged.replace("1043", "1044")
    changes = entry_changes(parse_changelog(CHANGELOG, fixed), parse_changelog(CHANGELOG, base))
    assert [(c.entry.get("pr-link")[-4:], c.is_new) for c in changes] == [("1044", False)]


# ------------------------------------------------------------------ CFG005


def _cfg005(head: str, base: str) -> list[str]:
    import datetime

    report = lintkit.lint_pr(
        {MASTER: head},
        {MASTER: base},
        pr=1,
        changed=[MASTER],
        paths=[MASTER],
        rules=[lintkit.rule("CFG005")],
        review_date=datetime.date(2026, 8, 22),
    )
    return [f.subject for f in report.findings]


# ------------------------------------------------------------------ CFG001


def test_schema_findings_when_the_pr_changes_the_schema_code() -> None:
    rules = [rm for rm in all_rules() if rm.rule.id == "CFG001"]
    bad = TILERT.replace("  precision: fp8\n", "  precision: fp8\n  trace-source: agentx\n")
    code = "utils/matrix_logic/validation.py"

    def run(head_code: str) -> list[tuple[str, str]]:
        base = {MASTER: "", code: "class Entry: ...\n"}
        head = {MASTER: bad, code: head_code}
        bt, ht = MemoryTree(base), MemoryTree(head)
        changed = {p for p in head if head[p] != base.get(p)}
        ctx = Context.for_change(build_changeset(bt, ht, changed, pr=1), build_config(None))
        return [(f.severity, f.message.en) for f in lint(ctx, paths=[MASTER], rules=rules).findings]

    same = run("class Entry: ...\n")
    assert same and all(sev == "error" for sev, _ in same)
    changed = run("class Entry:\n    trace_source: str\n")
    assert len(changed) == len(same)
    assert all(sev == "warning" and "changes the schema code" in msg for sev, msg in changed)


def test_rcp002_absent_flag_runs_at_the_engine_default() -> None:
    path = "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
    text = (
        "#!/usr/bin/env bash\n"
        'vllm serve "$MODEL" --speculative-config \'{"method": "dspark", '
        '"model": "Inferact/Kimi-K3-DSpark", "num_speculative_tokens": 3}\' &\n'
    )
    rules = [rm for rm in all_rules() if rm.rule.id == "RCP002"]

    def run(cfg: str | None) -> list[int]:
        config = build_config(cfg, source=".recipe-bot.yml")
        change = build_changeset(MemoryTree({}), MemoryTree({path: text}), [path])
        ctx = Context.for_change(change, config)
        return [f.line for f in lint(ctx, paths=[path], rules=rules).findings]

    assert run(None) == []  # vLLM's default 0.90 is the limit
    assert run("knowledge:\n  memory:\n    default_limit: {vllm: 0.85}\n") == [2]


def test_bulk_link_migration_is_a_link_correction_not_a_history_edit() -> None:
    old = "https://github.com/SemiAnalysisAI/InferenceMAX/pull/"

    def entry(key: str, n: int, prefix: str, see: int) -> str:
        return (
            f"- config-keys:\n    - {key}\n  description:\n"
            f'    - "Same recipe as {prefix}{see}"\n  pr-link: {prefix}{n}\n'
        )

    def log(prefix: str, see: tuple[int, int, int] = (5, 6, 7)) -> str:
        keys = ("a-fp8-h100-vllm", "b-fp8-h100-vllm", "c-fp8-h100-vllm")
        return "\n".join(
            entry(k, i + 1, prefix, s) for i, (k, s) in enumerate(zip(keys, see, strict=True))
        )

    base = log(old)
    renamed = _changelog(log(PULL), base, 9)
    assert not any(rule in ("CHL004", "CHL008") for rule, _ in renamed), renamed
    # a changed pull-request number inside a description is a history edit
    edited = _changelog(log(old, see=(5, 6, 8)), base, 9)
    assert ("CHL004", "error") in edited


def test_a_link_migration_counts_the_entries_whose_only_url_is_their_pr_link() -> None:
    # InferenceX #759 moved every link to the new name; one entry also cites one
    old = "https://github.com/InferenceMAX/InferenceMAX/pull/"

    def cited(prefix: str) -> str:
        return (
            "- config-keys:\n    - c-fp8-h100-vllm\n  description:\n"
            f'    - "fix model_prefix bug from {prefix}5"\n  pr-link: {prefix}3\n'
        )

    def log(a: str, b: str, c: str) -> str:
        return (
            _entry("a-fp8-h100-vllm", f"{a}1")
            + "\n"
            + _entry("b-fp8-h100-vllm", f"{b}2")
            + "\n"
            + cited(c)
        )

    renamed = _changelog(log(PULL, PULL, PULL), log(old, old, old), 9)
    assert not any(rule in ("CHL004", "CHL008") for rule, _ in renamed), renamed
    # alone, a rewritten link inside a description is a history edit
    alone = _changelog(log(old, old, PULL), log(old, old, old), 9)
    assert ("CHL004", "error") in alone, alone


def test_entries_a_stale_branch_carries_from_the_base_tip_are_not_the_prs() -> None:
    a = _entry("a-fp8-h100-vllm", f"{PULL}10")
    x = _entry("x-fp8-h100-vllm", f"{PULL}50")  # merged on main after the branch forked
    p = _entry("p-fp8-h100-vllm", f"{PULL}60")  # this PR's own entry
    merge_base, tip, head = a, a + "\n" + x, a + "\n" + x + "\n" + p
    rules = [rm for rm in all_rules() if rm.rule.target == "changelog"]

    def run(with_tip: bool) -> list[str]:
        ctx = _changelog_pr(head, merge_base, 60, tip=tip if with_tip else None)
        return [f.rule for f in lint(ctx, paths=[CHANGELOG], rules=rules).findings]

    assert "CHL002" in run(False)  # without the tip, #50's entry looks like this PR's
    assert run(True) == []


# ------------------------------------------------------------------ feasible paths


def test_numeric_and_string_tests_of_one_variable_stay_consistent() -> None:
    from bot.parse import facts
    from bot.parse.recipe import parse_recipe

    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$TP" -eq 4 ]; then\n'
        "  MEM=0.98\n"
        "else\n"
        "  MEM=0.95\n"
        "fi\n"
        'if [ "$TP" = "4" ]; then\n'
        "  EAGER=--enforce-eager\n"
        "else\n"
        "  EAGER=--no-enforce-eager\n"
        "fi\n"
        'vllm serve m --gpu-memory-utilization "$MEM" $EAGER &\n'
    )
    recipe = parse_recipe("benchmarks/single_node/fixed_seq_len/x_fp8_h100.sh", text)
    seen = set()
    for launch in recipe.launches:
        mem = facts.memory(launch, KNOWLEDGE)
        assert mem is not None
        seen.add((mem.value, launch.flag("--enforce-eager") is not None))
    # TP=4 takes 0.98 with --enforce-eager; any other TP 0.95 without: no mixed path
    assert seen == {("0.98", True), ("0.95", False)}


def _memory_paths(text: str) -> set[tuple[str | None, bool]]:
    from bot.parse import facts
    from bot.parse.recipe import parse_recipe

    recipe = parse_recipe("benchmarks/single_node/fixed_seq_len/x_fp8_h100.sh", text)
    seen = set()
    for launch in recipe.launches:
        mem = facts.memory(launch, KNOWLEDGE)
        seen.add((mem.value if mem else None, launch.flag("--enforce-eager") is not None))
    return seen


COMPLEMENT = {("0.98", False), ("0.95", True)}
DISJOINT = {("0.98", False), ("0.95", True), ("0.95", False)}


@pytest.mark.parametrize(
    ("first", "second", "paths"),
    [
        ('[ "$CONC" -le 8 ]', '[ "$CONC" -gt 8 ]', COMPLEMENT),  # the else arm
        ('[ "$CONC" -lt 9 ]', '[ "$CONC" -ge 9 ]', COMPLEMENT),
        ('[ "$CONC" -ge 9 ]', '[ "$CONC" -lt 9 ]', COMPLEMENT),
        ('[ "$CONC" -le 8 ]', '[ "$CONC" -gt 16 ]', DISJOINT),  # <= 8 cannot be > 16
        ('[ "$CONC" -eq 4 ]', '[ "$CONC" -gt 8 ]', DISJOINT),  # an -eq value decides it
        ('[ "$CONC" -le 8 ]', '[ "$CONC" -eq 32 ]', DISJOINT),  # a bound decides an -eq
        # <= 8 is never 12: the first arm always takes the second test
        (
            "[[ $CONC -le 8 ]]",
            "[[ ${CONC} -ne 12 ]]",
            {("0.98", True), ("0.95", True), ("0.95", False)},
        ),
    ],
)
def test_range_tests_of_one_variable_stay_consistent(
    first: str, second: str, paths: set[tuple[str, bool]]
) -> None:
    text = (
        "#!/usr/bin/env bash\n"
        f"if {first}; then\n"
        "  MEM=0.98\n"
        "else\n"
        "  MEM=0.95\n"
        "fi\n"
        f"if {second}; then\n"
        "  EAGER=--enforce-eager\n"
        "fi\n"
        'vllm serve m --gpu-memory-utilization "$MEM" $EAGER &\n'
    )
    assert _memory_paths(text) == paths


def test_overlapping_ranges_keep_every_feasible_path() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$CONC" -le 16 ]; then MEM=0.98; else MEM=0.95; fi\n'
        'if [ "$CONC" -gt 8 ]; then EAGER=--enforce-eager; fi\n'
        'vllm serve m --gpu-memory-utilization "$MEM" $EAGER &\n'
    )
    # 9..16 takes both; <= 8 only the first; > 16 only the second
    assert _memory_paths(text) == {("0.98", True), ("0.98", False), ("0.95", True)}


EVAL_DOMAIN = {"EVAL_ONLY": frozenset({"", "true", "false"})}


def _paths_with(
    text: str, domains: dict[str, frozenset[str]] | None
) -> set[tuple[str | None, bool]]:
    from bot.parse import facts
    from bot.parse.recipe import parse_recipe

    recipe = parse_recipe("benchmarks/single_node/fixed_seq_len/x_fp8_h100.sh", text, domains)
    return {
        (
            m.value if (m := facts.memory(la, KNOWLEDGE)) else None,
            la.flag("--enforce-eager") is not None,
        )
        for la in recipe.launches
    }


def test_env_domain_leaves_the_unset_arm_and_keeps_tests_consistent() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$EVAL_ONLY" = "true" ]; then MEM=0.98\n'
        'elif [ "$EVAL_ONLY" = "false" ]; then MEM=0.95\n'
        "else MEM=0.90; fi\n"
        'if [ -z "$EVAL_ONLY" ]; then EAGER=--enforce-eager; fi\n'
        'vllm serve m --gpu-memory-utilization "$MEM" $EAGER &\n'
    )
    # true and false are not empty; the else arm (neither) is the unset run
    assert _paths_with(text, EVAL_DOMAIN) == {("0.98", False), ("0.95", False), ("0.90", True)}
    # without the domain the else arm may be any other value, empty or not
    assert _paths_with(text, None) == {
        ("0.98", False),
        ("0.95", False),
        ("0.90", True),
        ("0.90", False),
    }


def test_a_value_outside_the_domain_is_never_taken() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$EVAL_ONLY" = "1" ]; then MEM=0.98; else MEM=0.95; fi\n'
        'if [ "${EVAL_ONLY:-1}" = "1" ]; then EAGER=--enforce-eager; fi\n'
        'vllm serve m --gpu-memory-utilization "$MEM" $EAGER &\n'
    )
    # `"$EVAL_ONLY" = 1` is infeasible; `${EVAL_ONLY:-1}` (a default) is not judged by the domain
    assert _paths_with(text, EVAL_DOMAIN) == {("0.95", True), ("0.95", False)}


def test_env_domains_come_from_the_knowledge_and_a_repo_can_add_inputs() -> None:
    from bot.core.config import build_config
    from bot.core.engine import Context
    from bot.core.tree import MemoryTree

    path = "benchmarks/single_node/fixed_seq_len/x_fp8_h100.sh"
    text = (
        "#!/usr/bin/env bash\n"
        'if [ "$SPEC" = "yes" ]; then MEM=0.98; else MEM=0.95; fi\n'
        'vllm serve m --gpu-memory-utilization "$MEM" &\n'
    )
    tree = MemoryTree({path: text})
    default = Context.for_tree(tree, build_config(None))
    assert default.env_domains()["EVAL_ONLY"] == frozenset({"", "true", "false"})
    assert len(default.recipe(path).launches) == 2
    own = build_config("knowledge:\n  env_domains:\n    SPEC: ['on', 'off']\n")
    ctx = Context.for_tree(tree, own)
    # "yes" is not a value SPEC takes in this repository: one path
    assert [la.flag("--gpu-memory-utilization").value.text for la in ctx.recipe(path).launches] == [
        "0.95"
    ]


def test_a_stacked_branch_carries_an_entry_main_merged_mid_file() -> None:
    # PR #60 was built on #50's branch; #50 inserted its entry between merged ones and
    # main kept it there when it merged. Against the merge-base alone #50's entry looks
    # inserted by this PR; the tip shows it is not, wherever it stands.
    a = _entry("a-fp8-h100-vllm", f"{PULL}10")
    b = _entry("b-fp8-h100-vllm", f"{PULL}20")
    x = _entry("x-fp8-h100-vllm", f"{PULL}50")
    p = _entry("p-fp8-h100-vllm", f"{PULL}60")
    merge_base, tip = a + "\n" + b, a + "\n" + x + "\n" + b
    head = tip + "\n" + p
    rules = [rm for rm in all_rules() if rm.rule.target == "changelog"]

    def run(with_tip: bool) -> list[str]:
        ctx = _changelog_pr(head, merge_base, 60, tip=tip if with_tip else None)
        return sorted(f.rule for f in lint(ctx, paths=[CHANGELOG], rules=rules).findings)

    assert "CHL003" in run(False)
    assert run(True) == []


def test_the_prs_own_entry_is_its_own_even_when_the_tip_has_it() -> None:
    # re-reviewing a PR after it merged: its entry is on the tip, and still its own
    a = _entry("a-fp8-h100-vllm", f"{PULL}10")
    p = _entry("p-fp8-h100-vllm", f"{PULL}60")
    head = a + p  # no blank line between: a separator warning on the PR's own entry
    ctx = _changelog_pr(head, a, 60, tip=head)
    rules = [rm for rm in all_rules() if rm.rule.target == "changelog"]
    found = [(f.rule, f.severity) for f in lint(ctx, paths=[CHANGELOG], rules=rules).findings]
    assert found == [("CHL007", "warning")]  # not "rewrites merged history" (CHL008)
