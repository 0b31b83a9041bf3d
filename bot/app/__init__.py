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

Fix (`bot/app/fix.py`; its docstring is the reference)
    fix_paths(paths) / fix_content(path, data) / fix_tree(tree) / fix_change(change)
                                             lint, apply the fixes that apply, lint again,
                                             pass after pass; nothing is written
    fix_lint(result)                         the same from any LintResult
    FixOptions(unsafe, max_passes)           `--unsafe-fixes`, the bound on passes
    FixResult                                files (path, before, after), passes (fixed,
                                             refused), lint (what remains), diff()
    write_fixes(result)                      write a local run's fixed files in place

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

How the other use cases build on these
- backtest (`bot.backtest.worker`): per commit of a pull request,
  `open_local_change(repo, merge_base, commit, pr=N, within=opened)` in a `with`
  block, `opened` being the repository opened once (`bot.app.local.LocalRepository`:
  one `git cat-file` process, a merge-base tree listed once for the commits forking
  from it), and `lint_change(change, options=LintOptions(review_date=commit_date,
  workers=1, cache=shared))`; a shared `ParseCache` makes each commit cost only the
  files it changed. A missing object raises `bot.app.local.MissingObject`.
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
    "FixedFile": "bot.app.fix",
    "FixOptions": "bot.app.fix",
    "FixPass": "bot.app.fix",
    "FixResult": "bot.app.fix",
    "FixWriteError": "bot.app.fix",
    "Refused": "bot.app.fix",
    "fix_change": "bot.app.fix",
    "fix_content": "bot.app.fix",
    "fix_lint": "bot.app.fix",
    "fix_paths": "bot.app.fix",
    "fix_tree": "bot.app.fix",
    "write_fixes": "bot.app.fix",
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
    from bot.app.fix import FixedFile as FixedFile
    from bot.app.fix import FixOptions as FixOptions
    from bot.app.fix import FixPass as FixPass
    from bot.app.fix import FixResult as FixResult
    from bot.app.fix import FixWriteError as FixWriteError
    from bot.app.fix import Refused as Refused
    from bot.app.fix import fix_change as fix_change
    from bot.app.fix import fix_content as fix_content
    from bot.app.fix import fix_lint as fix_lint
    from bot.app.fix import fix_paths as fix_paths
    from bot.app.fix import fix_tree as fix_tree
    from bot.app.fix import write_fixes as write_fixes
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
