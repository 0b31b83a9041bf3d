"""`load_repo_config`: the configuration a lint run uses. Written once for every entry point.

The CLI, the review pipeline and the sign-off service read a repository's
`.recipe-bot.yml` the same way: from the base of a change (the base branch's
tip when it moved past the merge-base), so a pull request cannot relax its own
checks; from the tree itself for a whole-tree or file lint; or from a file the
user names (`--config FILE`). The file must be UTF-8 and valid against
`schemas/config.schema.json`; anything else is a `ConfigError` with a one-line
message naming the file and where it was read.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

from bot.base.tree import Tree
from bot.core.config import CONFIG_FILENAMES, Config, ConfigError, build_config
from bot.sources import read_file


def load_repo_config(
    tree: Tree | None,
    *,
    ref: str | None = None,
    file: str | os.PathLike[str] | None = None,
    built: MutableMapping[tuple[str | None, str], Config] | None = None,
) -> Config:
    """The configuration of the repository `tree` holds, or of `file` when given.

    The first of `CONFIG_FILENAMES` that `tree` holds is read; without one (or without
    a tree) the defaults apply. `ref` names the commit `tree` is, for messages:
    `.recipe-bot.yml (at origin/main): ...`. Raises `ConfigError` for a file that is
    not UTF-8 or not a valid configuration, `OSError` for a `file` that cannot be read.
    `built`: configurations built before, by text and label (a service's; a failure is
    not kept).
    """
    if file is not None:
        label = os.fspath(file)
        return _build(_decode(read_file(file), label), label, built)
    if tree is not None:
        for name in CONFIG_FILENAMES:
            data = tree.read(name)
            if data is not None:
                label = f"{name} (at {ref})" if ref else name
                return _build(_decode(data, label), label, built)
    return _build(None, "defaults", built)


def _build(
    text: str | None, label: str, built: MutableMapping[tuple[str | None, str], Config] | None
) -> Config:
    if built is None:
        return build_config(text, source=label) if text is not None else build_config(None)
    key = (text, label)
    config = built.get(key)
    if config is None:
        config = build_config(text, source=label) if text is not None else build_config(None)
        built[key] = config
    return config


def _decode(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: not valid UTF-8 (byte {exc.start})") from None
