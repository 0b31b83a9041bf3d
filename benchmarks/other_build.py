"""Run another build of the project (`--before DIR`: its source tree) entirely from DIR.

`PYTHONPATH=DIR python -m bot.cli` alone runs a mix when this checkout is installed in
development mode (`pip install -e`): `bot` comes from DIR, but `bot.rules` and
`bot.schemas`, which the source tree keeps as the top-level `rules/` and `schemas/`
folders, have no `bot/rules` in DIR and are found by the editable install's import
hook, which maps them to *this* checkout's folders. The command below drops that
hook and maps both packages to DIR's own folders, as an installed build of DIR would.
It also runs with `-P`: `python -m bot.cli` would put the working directory first on
`sys.path`, and a benchmark run from this checkout would import this build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

BOOT = r"""
import importlib.util, sys
root = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
import bot
for name in ("rules", "schemas"):
    spec = importlib.util.spec_from_file_location(
        f"bot.{name}", f"{root}/{name}/__init__.py", submodule_search_locations=[f"{root}/{name}"]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"bot.{name}"] = module
    spec.loader.exec_module(module)
    setattr(bot, name, module)
from bot.cli import main
raise SystemExit(main())
"""


def command(
    root: Path, argv: list[str], env: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The command and environment (`env`, default this process's, with `PYTHONPATH`)
    that run `bot ARGV` from the source tree `root`."""
    env = dict(os.environ if env is None else env, PYTHONPATH=str(root))
    # -P: the working directory does not come before PYTHONPATH
    return [sys.executable, "-P", "-c", BOOT, str(root), *argv], env
