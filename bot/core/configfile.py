"""Where a repository's configuration lives, and how reading it fails. Pure, light.

Kept apart from `bot.core.config` (which loads YAML and JSON Schemas) so that the
command line can name these without loading either.
"""

from __future__ import annotations

CONFIG_FILENAMES = (".recipe-bot.yml", ".recipe-bot.yaml", ".github/recipe-bot.yml")


class ConfigError(Exception):
    pass
