"""A copy of the example repository for a test to change, without the lint cache that
running the README's first command leaves in it (`.recipe_bot_cache`): a test then
starts from the example as committed, whatever was run in the checkout before."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.sources import CACHE_DIR_NAME

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inferencex-mini"


def copy_example(dest: Path) -> Path:
    """Copy the example repository to `dest` (which must not exist); `dest`."""
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns(CACHE_DIR_NAME))
    return dest
