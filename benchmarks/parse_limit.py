"""The parse limit: read and parse every file `bot lint --repo` routes, with the libraries the
bot parses them with, and do nothing else, on two cores.

    python benchmarks/parse_limit.py PLAN.json

`PLAN.json` is `{"root": DIR, "shares": [[path, ...], [path, ...]]}`:
`bench_lint_tree.py` writes it with the paths the bot routes, split between the two cores
by measured cost. This script imports only tree-sitter, tree-sitter-bash and ruamel.yaml
(no `bot` module), so its time is the floor for any linter built on those parsers:

- a bash script (`.sh`): its bytes parsed by tree-sitter-bash, as `bot.parse.bash.parse_tree`
  does (the bot's recipes and launcher scripts);
- YAML (`.yaml`, `.yml`): its text decoded and walked to the end through ruamel's C event
  parser (`YAML(typ="safe", pure=False).parse`), the loader the bot reads srt-slurm
  recipes, model tables, master configs and the changelog with
  (`bot.parse.yamlsafe.thread_yaml("events")`).

The first share is parsed in a forked child, the second in this process, as `bot lint`
forks one worker (`bot/parallel.py`). Prints one JSON line: in-process wall time (from
before the imports), CPU time of both processes, files, bytes, syntax-tree nodes and YAML
events seen (proof that the work was done), and the larger process's peak RSS.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402

import tree_sitter_bash  # noqa: E402
from ruamel.yaml import YAML  # noqa: E402
from tree_sitter import Language, Parser  # noqa: E402


def parse_share(root: str, paths: list[str]) -> dict[str, int]:
    """Read and parse `paths`; what was seen, counted."""
    bash = Parser(Language(tree_sitter_bash.language()))
    events = YAML(typ="safe", pure=False)
    seen = {"files": 0, "bytes": 0, "nodes": 0, "events": 0, "errors": 0}
    for path in paths:
        with open(os.path.join(root, path), "rb") as f:
            data = f.read()
        seen["files"] += 1
        seen["bytes"] += len(data)
        if path.endswith(".sh"):
            tree = bash.parse(data)
            seen["nodes"] += tree.root_node.descendant_count
        else:
            try:
                for _ in events.parse(data.decode("utf-8", errors="replace")):
                    seen["events"] += 1
            except Exception:  # a file the parser refuses still counts as read
                seen["errors"] += 1
    return seen


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    root, shares = plan["root"], plan["shares"]
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        code = 0
        try:
            out = json.dumps(parse_share(root, shares[0])).encode()
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(out)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_fd)
    mine = parse_share(root, shares[1])
    with os.fdopen(read_fd, "rb") as pipe:
        theirs = json.loads(pipe.read() or b"{}")
    _, status = os.waitpid(pid, 0)
    if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
        print("parse_limit: the child failed", file=sys.stderr)
        return 1
    wall = time.perf_counter() - T0
    self_usage = resource.getrusage(resource.RUSAGE_SELF)
    child_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(u.ru_utime + u.ru_stime for u in (self_usage, child_usage))
    seen = {k: mine[k] + theirs.get(k, 0) for k in mine}
    peak_kib = max(self_usage.ru_maxrss, child_usage.ru_maxrss)
    print(json.dumps({"inprocess_s": wall, "cpu_s": cpu, "peak_rss_kib": peak_kib, **seen}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
