"""Check, over a whole InferenceX-shaped tree, what `bot/core/shared.py` relies on.

A PR that changes shared launch code is reviewed by linting, on base and head, only the
reached recipes whose checks can read the changed file: those that run it, and the model
tables it launches. That holds if a recipe rule reads an unrouted shared launch file only
in those cases. This lints every recipe of the tree on its own, records every file the
lint reads, and lists any shared launch file a recipe's lint reads without running it
(an untied read: the shortcut would then miss what a change to that file introduces).

    python benchmarks/check_shared_reads.py /path/to/InferenceX-tree

Exit status 1 when there is an untied read.
"""

from __future__ import annotations

import datetime
import sys

from bot.base.glob import glob_match
from bot.core import shared
from bot.core.config import build_config
from bot.core.context import Context, route
from bot.core.engine import lint
from bot.core.registry import all_rules
from bot.sources import FsTree


class _Logged:
    """A tree that remembers the paths read from it."""

    def __init__(self, tree: FsTree) -> None:
        self.tree = tree
        self.reads: set[str] = set()

    def read(self, path: str) -> bytes | None:
        self.reads.add(path)
        return self.tree.read(path)

    def paths(self):  # type: ignore[no-untyped-def]
        return self.tree.paths()

    def blob_id(self, path: str) -> str | None:
        return self.tree.blob_id(path)


def main(argv: list[str]) -> int:
    root = argv[1] if len(argv) > 1 else "../ix"
    tree = _Logged(FsTree(root))
    config = build_config(None)
    ctx = Context.for_tree(tree, config, review_date=datetime.date.today())  # type: ignore[arg-type]
    globs = config.knowledge.section("shared_launch")["paths"]
    rules = [r for r in all_rules() if r.rule.target not in ("change", "suppression")]
    graph = shared._graph(ctx, tree)  # type: ignore[arg-type]
    recipes = ctx.recipes(tree)  # type: ignore[arg-type]
    tied = untied = 0
    for path in recipes:
        tree.reads = set()
        lint(ctx, [path], rules)
        for read in sorted(tree.reads):
            if read == path or route(read, config) is not None:
                continue
            if not any(glob_match(read, g) for g in globs):
                continue
            if read in graph.runs.get(path, set()) or path in graph.tables.get(read, set()):
                tied += 1
            else:
                untied += 1
                print(f"untied read: {path} -> {read}")
    print(f"recipes {len(recipes)}  shared-file reads tied {tied}  untied {untied}")
    return 1 if untied else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
