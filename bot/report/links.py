"""Where the project and its rule documentation live: the links reports print. Pure.

The reporters link each finding to its rule's section of the generated
documentation (`docs/rules.md`); the docs generator (`bot.docs`) writes that
file with the same anchors (`anchor`).
"""

from __future__ import annotations

PROJECT_URL = "https://github.com/recipe-review-bot/recipe-review-bot"
RULES_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"


def anchor(rule_id: str) -> str:
    """The id of a rule's section in the generated documentation."""
    return rule_id.lower()


def rule_url(rule_id: str, base: str = RULES_URL) -> str:
    """The rule's section of the generated documentation."""
    return f"{base}#{anchor(rule_id)}"
