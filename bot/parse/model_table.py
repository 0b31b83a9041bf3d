"""Model tables: per-model engine flags a multi-node launcher loads at run time. Pure.

InferenceX's AMD disaggregated launchers (`benchmarks/multi_node/amd_utils/
server_vllm.sh`, ...) read their per-model server flags from a YAML table with
`eval "$(python3 -c "... yaml.safe_load(...) ...")"`, text the bash interpreter
cannot follow. The table itself is therefore read as the launch source: each
top-level model entry gives one launch per role (`prefill_flags`,
`decode_flags`), its flags split as bash splits the string the launcher
evaluates, and its environment from the space-separated `KEY=VALUE` strings
(`env` for both roles, `prefill_env` / `decode_env` for one). The launcher
passes these flags to every run, EVAL_ONLY included, so the launches hold on
both arms (`eval_only` None) unless the launcher rewrites them for evals (the
rules judge that from the launcher, see RCP005).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from bot.base.problem import problem
from bot.base.span import Span
from bot.parse.recipe import Launch, Recipe, parse_flags, yaml_problem
from bot.parse.values import Str
from bot.parse.yamlpos import PosMap, load_positioned
from bot.parse.yamlsafe import YamlError

ROLES = (("prefill_flags", "prefill"), ("decode_flags", "decode"))
ROLE_ENV = {"prefill": ("env", "prefill_env"), "decode": ("env", "decode_env")}
ENGINES = ("vllm", "sglang", "atom", "trtllm")
_SHAPE = re.compile(r"^[ \t]+(?:prefill|decode)_flags:", re.M)


def is_model_table(text: str) -> bool:
    """A YAML file whose entries carry `prefill_flags` / `decode_flags` strings."""
    # both keys end in `_flags:`: a text without it needs no line-by-line search
    return "_flags:" in text and bool(_SHAPE.search(text))


def table_engine(path: str) -> str | None:
    """`models_vllm.yaml` -> "vllm"; None when the name does not say."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    token = stem.split("_", 1)[1] if "_" in stem else ""
    return token if token in ENGINES else None


def parse_model_table(path: str, text: str) -> Recipe:
    recipe = Recipe(
        path=path,
        text=text,
        kind="model_table",
        model=None,  # one table serves many models: model-specific rules stay silent
        precision=None,
        sku=None,
        mtp=False,
        multi_node=True,
    )
    engine = table_engine(path)
    try:
        doc = load_positioned(text, label="model table")
    except YamlError as exc:
        recipe.problems.append(yaml_problem(exc))
        return recipe
    if not isinstance(doc, PosMap):
        recipe.problems.append(problem("table_not_mapping"))
        return recipe
    if engine is None:
        recipe.problems.append(problem("table_engine_unknown"))
        return recipe
    for name, entry in doc.items():
        if not isinstance(entry, PosMap):
            continue
        for key, role in ROLES:
            value = entry.get(key)
            if not isinstance(value, str):
                continue
            line, col = _value_pos(entry, key)
            words = _words(value, line, col)
            if words is None:
                recipe.problems.append(problem("not_word_list", line, key=f"{name}.{key}"))
                continue
            env: dict[str, Str] = {}
            for env_key in ROLE_ENV[role]:
                raw = entry.get(env_key)
                if isinstance(raw, str):
                    eline, ecol = _value_pos(entry, env_key)
                    env.update(_env(raw, eline, ecol))
            recipe.launches.append(
                Launch(
                    engine=engine,
                    words=words,
                    flags=parse_flags(words, line),
                    env=env,
                    engine_yaml=None,
                    engine_yaml_text=None,
                    span=Span(line, col),
                    assumptions=(),
                    eval_only=None,
                    role=role,
                )
            )
    return recipe


def _value_pos(entry: PosMap, key: str) -> tuple[int, int]:
    try:
        line, col = entry.lc.value(key)
    except (AttributeError, KeyError, TypeError):
        line, col = entry.lc.line, entry.lc.col
    return line + 1, col + 1


def _words(value: str, line: int, col: int) -> list[Str] | None:
    """The string split as bash splits it when the launcher evaluates the command."""
    try:
        parts = shlex.split(value, posix=True)
    except ValueError:
        return None
    out: list[Str] = []
    pos = 0
    for word in parts:
        # the column of the word's first character in the written string (the YAML
        # scalar may escape quotes, so this is where the word starts, near enough)
        found = value.find(word[:8], pos) if word else -1
        at = found if found >= 0 else pos
        out.append(Str.lit(word, line, col + 1 + at))
        pos = at + 1
    return out


def _env(raw: str, line: int, col: int) -> dict[str, Any]:
    out: dict[str, Str] = {}
    pos = 0
    for token in raw.split():
        at = raw.find(token, pos)
        pos = at + len(token)
        key, sep, val = token.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_]\w*", key):
            out[key] = Str.lit(val, line, col + 1 + at + len(key) + 1)
    return out
