"""`new_rule`: scaffold a recipe rule in a checkout of this project.

It writes the four files a rule needs, each one the test suite checks:

- `rules/recipe/<ID>_<slug>.py`: the rule module, a bilingual `RULE` record and a
  `check` that works from the start: it reports one obviously named placeholder flag
  (`--placeholder-for-<id>`) on an engine launch, and the record's bad and good
  examples exercise it (`tests/test_rule_examples.py` runs them);
- `tests/rule_cases/<ID>.yml`: a case file with one case of the same placeholder;
- `tests/snapshots/rules/<ID>.md`: the rule's rendered findings (`render_snapshot`);
- `docs/rules.md`: regenerated with the new rule (what `python -m bot.docs --write` writes).

The registry finds the module by its file name; nothing else is registered. The author
then replaces the placeholder flag, the texts and the examples with the rule's own, and
refreshes the snapshot and the docs (CONTRIBUTING.md says how).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from bot.app.examples import render_snapshot
from bot.base.records import dataclass
from bot.core.model import SEVERITIES, Rule
from bot.core.registry import ID_RE, SLUG_RE, RuleModule, all_rules, expected_module_name
from bot.docs import render_rules_markdown

# the rule packages a scaffold can write, by id prefix: (folder under rules/, target)
PACKAGES = {"RCP": ("recipe", "recipe")}


class ScaffoldError(Exception):
    """A rule that cannot be scaffolded: bad or taken id or slug, not a checkout."""


@dataclass(frozen=True)
class Scaffold:
    rule_id: str
    slug: str
    written: tuple[Path, ...]  # the files written, rule module first


def checkout_root() -> Path | None:
    """The checkout this bot runs from (an editable install), or None."""
    spec = importlib.util.find_spec("bot.rules")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))).resolve().parent
    return root if (root / "pyproject.toml").is_file() and (root / "tests").is_dir() else None


def _check_names(root: Path, rule_id: str, slug: str, severity: str) -> tuple[str, str]:
    if not ID_RE.match(rule_id):
        raise ScaffoldError(
            f"bad rule id {rule_id!r}: three capitals and three digits, e.g. RCP014"
        )
    if rule_id[:3] not in PACKAGES:
        raise ScaffoldError(
            f"the scaffold writes recipe rules (RCP...); {rule_id[:3]} rules are written by "
            "hand (CONTRIBUTING.md)"
        )
    if not SLUG_RE.match(slug):
        raise ScaffoldError(f"bad slug {slug!r}: kebab-case, e.g. my-new-check")
    if severity not in SEVERITIES:
        raise ScaffoldError(f"bad severity {severity!r}: one of {', '.join(SEVERITIES)}")
    if not (root / "rules").is_dir() or not (root / "tests").is_dir():
        raise ScaffoldError(f"{root} is not a checkout of this project (no rules/ and tests/)")
    for rm in all_rules():
        if rm.rule.id == rule_id:
            raise ScaffoldError(f"rule {rule_id} exists: {rm.module}")
        if rm.rule.slug == slug:
            raise ScaffoldError(f"slug {slug!r} is taken by {rm.rule.id}")
    taken = sorted(root.glob(f"rules/*/{rule_id}_*.py"))
    if taken:
        raise ScaffoldError(f"rule {rule_id} exists: {taken[0].relative_to(root)}")
    return PACKAGES[rule_id[:3]]


def _title(slug: str) -> str:
    return slug.replace("-", " ").capitalize()


def rule_source(rule_id: str, slug: str, severity: str) -> str:
    """The text of the scaffolded rule module."""
    flag = f"--placeholder-for-{rule_id.lower()}"
    return f'''"""{rule_id}: {_title(slug)}.

Written by `bot new-rule`. The check is a working placeholder: it reports the engine flag
`PLACEHOLDER_FLAG`, which no real recipe passes, and the examples below exercise it, so the
test suite runs the rule from the start. Replace the flag, the record's texts and the
examples with the rule's own (CONTRIBUTING.md, "Adding a rule").
"""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.context import RuleContext
from bot.core.model import {severity.upper()}, Example, Finding, Rule, T
from bot.parse.recipe import Recipe

# what this placeholder rule reports: replace it with the rule's own logic
PLACEHOLDER_FLAG = "{flag}"

RULE = Rule(
    id="{rule_id}",
    slug="{slug}",
    severity={severity.upper()},
    target="recipe",
    title=T(
        en="Placeholder rule `{slug}`",
        zh="占位规则 `{slug}`",
    ),
    message=T(
        en="`{{flag}}` is the placeholder flag of a scaffolded rule",
        zh="`{{flag}}` 是新建规则的占位参数",
    ),
    fix=T(
        en="Remove `{{flag}}`",
        zh="删除 `{{flag}}`",
    ),
    rationale=T(
        en=(
            "A scaffolded rule that reports the flag `{flag}` on an engine launch, so that its "
            "examples run as tests. The rationale says why the rule exists: the harm, the "
            "evidence (a review comment, an InferenceX pull request) and what the rule does not "
            "report."
        ),
        zh=(
            "新建的规则：报告引擎启动命令中的 `{flag}` 参数，使其示例可以作为测试运行。"
            "理由部分应说明规则存在的原因：造成的危害、依据（审查意见、InferenceX 的 PR），"
            "以及规则不报告的情形。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/placeholder_fp8_h100.sh",
            note="the placeholder flag on a vLLM launch",
            text=(
                "#!/usr/bin/env bash\\n"
                'vllm serve "$MODEL" \\\\\\n'
                "    --tensor-parallel-size 8 \\\\\\n"
                "    --max-model-len 8192 \\\\\\n"
                "    {flag} &  # [{rule_id}]\\n"
            ),
        ),
    ),
    good=(
        Example(
            path="benchmarks/single_node/fixed_seq_len/placeholder_fp8_h100.sh",
            note="the same launch without it",
            text=(
                "#!/usr/bin/env bash\\n"
                'vllm serve "$MODEL" \\\\\\n'
                "    --tensor-parallel-size 8 \\\\\\n"
                "    --max-model-len 8192 &\\n"
            ),
        ),
    ),
)


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    for launch in recipe.launches:
        for flag in launch.flags.get(PLACEHOLDER_FLAG, []):
            yield RULE.hit(
                recipe.path,
                flag.span,
                f"{{launch.engine}} {{PLACEHOLDER_FLAG}}",
                flag=PLACEHOLDER_FLAG,
            )
'''


def case_source(rule_id: str, severity: str) -> str:
    """The text of the scaffolded case file."""
    flag = f"--placeholder-for-{rule_id.lower()}"
    return f"""# Cases of {rule_id}, run by tests/test_rule_examples.py (format: README.md here).
rule: {rule_id}
cases:
  - name: placeholder-flag-on-sglang
    note: written by bot new-rule; replace with the rule's own cases
    files:
      benchmarks/single_node/fixed_seq_len/placeholder_fp8_h200_sglang.sh: |
        #!/usr/bin/env bash
        python3 -m sglang.launch_server --model-path "$MODEL" {flag} &
    findings:
      - {{line: 2, severity: {severity}}}
"""


def load_rule_file(path: Path, package: str) -> RuleModule:
    """The rule module at `path`, imported under its registry name."""
    name = f"bot.rules.{package}.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ScaffoldError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    rule: Any = module.RULE
    if not isinstance(rule, Rule):
        raise ScaffoldError(f"{path}: RULE is not a Rule")
    return RuleModule(rule=rule, check=module.check, module=name)


def new_rule(root: Path, rule_id: str, slug: str, severity: str = "warning") -> Scaffold:
    """Write a new rule's module, case file, snapshot and docs under checkout `root`."""
    package, _ = _check_names(root, rule_id, slug, severity)
    leaf = f"{rule_id}_{slug.replace('-', '_')}"
    rule_path = root / "rules" / package / f"{leaf}.py"
    case_path = root / "tests" / "rule_cases" / f"{rule_id}.yml"
    snap_path = root / "tests" / "snapshots" / "rules" / f"{rule_id}.md"
    docs_path = root / "docs" / "rules.md"
    for path in (case_path, snap_path):
        if path.exists():
            raise ScaffoldError(f"{path.relative_to(root)} exists")
    rule_path.parent.mkdir(parents=True, exist_ok=True)
    rule_path.write_text(rule_source(rule_id, slug, severity), encoding="utf-8")
    rm = load_rule_file(rule_path, package)
    if expected_module_name(rm.rule) != leaf:  # the record and the file name agree
        raise ScaffoldError(f"{rule_path}: file name must be {expected_module_name(rm.rule)}.py")
    case_path.parent.mkdir(parents=True, exist_ok=True)
    case_path.write_text(case_source(rule_id, severity), encoding="utf-8")
    snap_path.parent.mkdir(parents=True, exist_ok=True)
    snap_path.write_text(render_snapshot(rm), encoding="utf-8")
    rules = sorted([*all_rules(), rm], key=lambda r: r.rule.id)
    docs_path.parent.mkdir(parents=True, exist_ok=True)
    docs_path.write_text(render_rules_markdown(rules), encoding="utf-8")
    return Scaffold(rule_id, slug, (rule_path, case_path, snap_path, docs_path))


__all__ = ["PACKAGES", "Scaffold", "ScaffoldError", "checkout_root", "new_rule", "rule_source"]
