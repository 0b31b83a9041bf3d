"""The application layer: the use cases every entry point shares.

The CLI (`bot.cli`), the review pipeline (`bot.review`), the sign-off service
(`bot.signoff`) and the advise job (`bot.advisor`) call these; none of them
builds a lint run itself. Results are typed data (`LintResult`), never rendered
text: the caller renders them (`bot.report`, `bot.review.render`).

Configuration and rule selection
    load_repo_config(tree, ref=, file=)      `.recipe-bot.yml` of a tree (the base of a
                                             change), of a file, or the defaults
    select_rules(select, extend_select, ignore) -> Selection (rules, overridden selectors)

Lint
    lint_paths(paths)                        files or directories on disk, by repository
    lint_content(path, data)                 bytes linted as if at `path` (stdin)
    lint_tree(tree, config=, paths=)         a whole tree, or some of its files
    lint_change(change, config=)             a change: its head judged against its base
    LintOptions(rules, review_date, workers, cache)   how, whatever is linted

A `Change` holds the trees of a change (base = merge-base, head, the base
branch's tip), the touched paths, the PR number, author and repository, and
GitHub's patches when the caller has them. Make one from local git
(`bot.app.local.open_local_change`), from the GitHub gateway
(`bot.app.pull.pull_change`), or by hand from any `Tree`s. It owns what it
opened: use it as a context manager.

Each use case returns a `LintResult`: one `LintRun` per tree linted, with the
engine's `Report` (paths relative to the repository root, as the core gives
them; findings know whether the change touches their lines and where an inline
comment can sit), the run's `Context` (trees, `ChangeSet`, configuration, parse
cache) and the local directory the paths are relative to. `result.report` merges
the runs.

For the next use cases
- fix: lint (any use case), apply the findings' suggestions to the files, then
  re-lint each fixed file with `lint_content(path, new_bytes, ...)` or a
  `lint_tree` over an overlay of the fixed files; pass one `LintOptions(cache=...)`
  (`bot.core.context.ParseCache`) to every pass so unchanged files are not parsed
  again.
- backtest: per commit of a pull request, `open_local_change(repo, merge_base,
  commit, pr=N)` in a `with` block and `lint_change(change, options=LintOptions(
  review_date=commit_date, cache=shared))`; a shared `ParseCache` makes each
  commit cost only the files it changed. Build a `Change` by hand to reuse one
  opened base tree across commits.
- a lint cache: key a run by the blob ids of its inputs (`Tree.blob_id`), the
  configuration's source and the selected rules; `LintResult` is plain data.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The names above, each from its module, loaded on first use (PEP 562): importing one
# module of the package (`bot.app.cache`, which `bot lint` reads before anything else)
# does not load the linter.
EXPORTS = {
    "load_repo_config": "bot.app.config",
    "Change": "bot.app.lint",
    "LintOptions": "bot.app.lint",
    "LintResult": "bot.app.lint",
    "LintRun": "bot.app.lint",
    "lint_change": "bot.app.lint",
    "lint_content": "bot.app.lint",
    "lint_paths": "bot.app.lint",
    "lint_tree": "bot.app.lint",
    "Selection": "bot.app.select",
    "SelectionError": "bot.app.select",
    "select_rules": "bot.app.select",
}

if TYPE_CHECKING:
    from bot.app.config import load_repo_config as load_repo_config
    from bot.app.lint import Change as Change
    from bot.app.lint import LintOptions as LintOptions
    from bot.app.lint import LintResult as LintResult
    from bot.app.lint import LintRun as LintRun
    from bot.app.lint import lint_change as lint_change
    from bot.app.lint import lint_content as lint_content
    from bot.app.lint import lint_paths as lint_paths
    from bot.app.lint import lint_tree as lint_tree
    from bot.app.select import Selection as Selection
    from bot.app.select import SelectionError as SelectionError
    from bot.app.select import select_rules as select_rules


def __getattr__(name: str) -> Any:
    if name not in EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(EXPORTS[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *EXPORTS])
