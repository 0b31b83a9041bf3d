"""`bot backtest`: what the bot would have said on a repository's own pull requests.

An edge package (git, SQLite, processes, files); docs/backtest.md is the user's guide.

- `worker`: each commit against its merge-base, through the application layer
  (`bot.app.open_local_change`, `bot.app.lint_change`), with per-rule timing;
- `history`: PRs, merge-bases, commits and the merged-PR heuristic from git alone;
- `store`: results per (settings, PR, commit, merge-base) in SQLite, so runs resume;
- `runner`: the process pool and what it still has to lint;
- `answer`: the answer key (fixed later, stayed) and the per-rule figures (pure);
- `judge`, `compare`: hand verdicts and a comparison with another store;
- `collect`, `plots`, `report_html`, `report_md`, `report_json`: the report;
- `cli`: the command's arguments and its run.
"""
