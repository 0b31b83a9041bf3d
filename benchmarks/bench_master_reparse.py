"""Benchmark: a pull request's master configs, head after base, with and without the
run's memory of the base (`MasterConfigMemory`), and the check that both agree.

For each pull request of a git clone that changes a master config (`configs/*-master.yaml`
or `.github/configs/*-master.yaml`), the base text (at the merge-base with `--main`) is
parsed, then the head text: once by a full parse, once re-read from the remembered base.
The two head parses must be equal (entries, values, lines, raw text, problems). The two
ways alternate in every pull request, in one process; prints CPU medians per head parse
and how many heads were re-read rather than fully parsed.

    python benchmarks/bench_master_reparse.py --repo /path/to/InferenceX-clone --prs 2400-2709
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.parse.master_config import MasterConfig, MasterConfigMemory, parse_master_config

PATHS = ("configs/nvidia-master.yaml", "configs/amd-master.yaml")


def git(repo: Path, *args: str) -> str | None:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def shape(cfg: MasterConfig) -> tuple[Any, ...]:
    lines = {id(e._lines): dict(e._lines) for e in cfg.entries.values()}
    entries = [(k, e.data, e.start_line, e.end_line, e.raw) for k, e in cfg.entries.items()]
    return entries, list(lines.values()), [(p.kind, p.line) for p in cfg.problems]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--main", default="main")
    ap.add_argument("--prs", default="2400-2709", help="A-B")
    args = ap.parse_args(argv)
    lo, hi = (int(x) for x in args.prs.split("-"))
    full_t: list[float] = []
    memo_t: list[float] = []
    reread = pairs = 0
    for pr in range(lo, hi + 1):
        head = git(args.repo, "rev-parse", f"refs/pull/{pr}/head")
        if head is None:
            continue
        base = git(args.repo, "merge-base", args.main, head.strip())
        if base is None:
            continue
        for path in PATHS:
            old = git(args.repo, "show", f"{base.strip()}:{path}")
            new = git(args.repo, "show", f"{head.strip()}:{path}")
            if old is None or new is None or old == new:
                continue
            memory = MasterConfigMemory()
            parse_master_config(path, old, memory)
            taken = memory.reparse(path, new) is not None
            t = time.process_time()
            full = parse_master_config(path, new)
            full_t.append(time.process_time() - t)
            t = time.process_time()
            again = parse_master_config(path, new, memory)
            memo_t.append(time.process_time() - t)
            if shape(full) != shape(again):
                print(f"#{pr} {path}: the re-read differs from the full parse", file=sys.stderr)
                return 1
            pairs += 1
            reread += taken
    if not pairs:
        print("bench_master_reparse: no pull request changes a master config", file=sys.stderr)
        return 1
    f, m = statistics.median(full_t), statistics.median(memo_t)
    print(
        f"{pairs} head master configs of PRs #{lo}-#{hi} (head after its merge-base): "
        f"{reread} re-read from the base, {pairs - reread} fully parsed; all equal to a full parse"
    )
    print(
        f"head parse CPU median: full {f * 1000:.1f} ms, with the base remembered "
        f"{m * 1000:.1f} ms (ratio {m / f:.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
