"""Golden acceptance-length curves. Pure.

Each `golden_al_distribution/<file>.yaml` maps model key -> thinking_on /
thinking_off -> K -> AL. Its header comments name the source run, the draft,
the speculative-config attributes and which chat-template kwargs mean
thinking on/off; all of that is kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING

from bot.base.records import dataclass
from bot.parse import facts
from bot.parse.yamlsafe import YamlError, load_safe

if TYPE_CHECKING:
    from bot.parse.context import ParseContext
    from bot.parse.recipe import Recipe


@dataclass(frozen=True)
class GoldenCurve:
    file: str  # repository path
    name: str  # file name
    model_key: str
    curves: Mapping[str, Mapping[int, float]]  # "thinking_on" -> {K: AL}
    source_run: str | None = None
    draft: str | None = None
    spec_attrs: Mapping[str, str] = field(default_factory=dict)
    thinking_kwargs: Mapping[str, str] = field(default_factory=dict)  # mode -> kwargs text

    def al(self, mode: str, k: int) -> float | None:
        return self.curves.get(mode, {}).get(k)


@dataclass
class GoldenSet:
    curves: list[GoldenCurve]
    # the golden files that could not be read: (path, the typed error: kind, params, line)
    problems: list[tuple[str, YamlError]]

    def by_name(self, name: str) -> list[GoldenCurve]:
        return [c for c in self.curves if c.name == name]


_RUN = re.compile(r"Source GitHub Actions run:\s*(\S+)")
_DRAFT = re.compile(r"draft:\s*([\w./-]+)")
_SPEC = re.compile(r"speculative-config:\s*(.+)")
_KW = re.compile(r"(thinking_on|thinking_off)\s*:.*?chat_template_kwargs:\s*(\{.*\})")
_KW2 = re.compile(r"(thinking_on|thinking_off)\s+chat_template_kwargs:\s*(\{.*\})")


def parse_golden(path: str, text: str) -> list[GoldenCurve]:
    """Parse one golden file; raises YamlError when it is unreadable."""
    data = load_safe(text, label=path)
    header = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("#")]
    run = draft = None
    spec: dict[str, str] = {}
    kwargs: dict[str, str] = {}
    for line in header:
        if m := _RUN.search(line):
            run = m.group(1)
        if m := _DRAFT.search(line):
            draft = m.group(1).rstrip(")")
        if m := _SPEC.search(line):
            for part in m.group(1).split("|"):
                key, _, value = part.strip().partition("=")
                if value:
                    spec[key.strip()] = value.strip()
        if m := (_KW2.search(line) or _KW.search(line)):
            kwargs[m.group(1)] = m.group(2)
    out = []
    if not isinstance(data, dict):
        raise YamlError(
            f"{path}: expected a mapping of model -> thinking mode -> K -> AL", kind="shape"
        )
    for key, modes in data.items():
        if not isinstance(modes, dict):
            continue
        curves: dict[str, dict[int, float]] = {}
        for mode, table in modes.items():
            if not isinstance(table, dict):
                continue
            clean: dict[int, float] = {}
            for k, v in table.items():
                try:
                    clean[int(k)] = float(v)
                except (TypeError, ValueError):
                    continue
            curves[str(mode)] = clean
        out.append(
            GoldenCurve(
                file=path,
                name=path.rsplit("/", 1)[-1],
                model_key=str(key),
                curves=curves,
                source_run=run,
                draft=draft,
                spec_attrs=spec,
                thinking_kwargs=kwargs,
            )
        )
    return out


def load_golden_set(ctx: ParseContext) -> GoldenSet:
    """Every golden curve in the tree's golden directory (parsed once per blob)."""
    folder = ctx.config.golden_dir.rstrip("/") + "/"
    curves: list[GoldenCurve] = []
    problems: list[tuple[str, YamlError]] = []
    for path in ctx.all_paths():
        if not path.startswith(folder) or not path.endswith((".yaml", ".yml")):
            continue
        if "/" in path[len(folder) :]:
            continue
        got = ctx.parsed("golden", path)
        if isinstance(got, YamlError):
            problems.append((path, got))
        elif got:
            curves.extend(got)
    return GoldenSet(curves, problems)


def candidates(
    recipe: Recipe, spec: facts.Spec, ctx: ParseContext
) -> tuple[list[GoldenCurve], list[GoldenCurve]]:
    """(curves that apply to this launch, same-model curves that do not)."""
    knowledge = ctx.knowledge
    prefix = knowledge.prefix(recipe.model)
    entries = [e for e in knowledge.golden if e.model == prefix]
    if not entries:
        return [], []
    draft = facts.draft_identity(spec, recipe, knowledge)
    chosen = entries
    if draft is not None and any(draft in e.drafts for e in entries):
        chosen = [e for e in entries if draft in e.drafts]
    elif spec.method is not None and any(e.method == spec.method for e in entries):
        chosen = [e for e in entries if e.method == spec.method]
    golden = ctx.golden()
    names = {e.file for e in chosen}
    curves = [c for c in golden.curves if c.name in names]
    other = [c for c in golden.curves if c.name in {e.file for e in entries} - names]

    # spec-config attributes named in a curve header must match the launch
    def attrs_match(c: GoldenCurve) -> bool:
        return all(
            spec.attrs.get(k) == v
            for k, v in c.spec_attrs.items()
            if k != "rejection_sample_method"
        )

    if spec.attrs:
        # the launch spells its sampling attributes (vLLM): curves must agree
        matching = [c for c in curves if c.spec_attrs and attrs_match(c)]
        curves = matching or [c for c in curves if not c.spec_attrs] or curves
    # engines that cannot spell them keep every curve of the model and draft
    return curves, other
