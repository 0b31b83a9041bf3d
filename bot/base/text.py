"""Bilingual text: the same words in English and Chinese. Pure.

Every wording the bot shows is a `T`: a rule's record holds its own, the catalogue
`bot.core.wording` holds the frames around them (severity names, labels, the gate's
decision, notes).
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from bot.base.records import dataclass


@dataclass(frozen=True)
class T:
    """A text in English and Chinese, with the same `{placeholders}` in both."""

    en: str
    zh: str

    def placeholders(self) -> tuple[set[str], set[str]]:
        def names(s: str) -> set[str]:
            return {f for _, f, _, _ in string.Formatter().parse(s) if f}

        return names(self.en), names(self.zh)

    def format(self, params: Mapping[str, Any]) -> T:
        """Fill placeholders; a parameter `name_zh` overrides `name` in Chinese, and a
        `T` parameter gives each language its own words."""
        en = {k: v for k, v in params.items() if not k.endswith("_zh")}
        zh = dict(en)
        zh.update({k[:-3]: v for k, v in params.items() if k.endswith("_zh")})
        return T(
            en=self.en.format_map(Params({k: _in(v, "en") for k, v in en.items()})),
            zh=self.zh.format_map(Params({k: _in(v, "zh") for k, v in zh.items()})),
        )

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def _in(value: Any, lang: str) -> Any:
    return value.get(lang) if isinstance(value, T) else value


class Params(dict[str, Any]):
    """format_map helper: a missing placeholder stays visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
