"""`bot backtest`: what the bot would have said on a repository's own pull requests.

An edge package (git, SQLite, processes, files); docs/backtest.md is the user's guide.

- `lintchange`: the one lint entry point (a commit against its merge-base, objects via git);
- `history`: PRs, merge-bases, commits and the merged-PR heuristic from git alone;
- `store`: results per (settings, PR, commit, merge-base) in SQLite, so runs resume;
- `worker`, `runner`: the process pool and what it still has to lint;
- `answer`: the answer key (fixed later, stayed) and the per-rule figures (pure);
- `judge`, `compare`: hand verdicts and a comparison with another store;
- `collect`, `plots`, `report_html`, `report_md`, `report_json`: the report;
- `cli`: the command's arguments and its run.
"""
