"""Benchmark: apply every suggestion the bot makes on real pull requests, as GitHub would.

For the newest `--count` pull-request heads of an InferenceX clone, it lints each head
against its merge-base with `--base` (as the service reviews a PR), renders every
finding that carries a suggestion into its inline comment body, cuts the
```` ```suggestion ```` block out of the Markdown and replaces the finding's lines
with it (an empty block deletes them). A recipe is then parsed again: every launch
must keep every flag that is not on the replaced lines, with the same value, and gain
none. It prints the counts per rule and each unsafe suggestion (there should be none),
and the time per pull request.

    python benchmarks/bench_suggestions.py --repo /path/to/InferenceX --count 80
    python benchmarks/bench_suggestions.py --repo /work/.mirror/SemiAnalysisAI+InferenceX/repo

`--repo` may be a bare mirror: the script reads it through a scratch repository whose
`objects/info/alternates` names the mirror's objects. CI does not run this benchmark.
"""

from __future__ import annotations

import argparse
import datetime
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.changeset import build_changeset
from bot.core.config import CONFIG_FILENAMES, build_config
from bot.core.engine import Context, lint, route
from bot.parse.recipe import parse_recipe
from bot.review.render import comment_body
from bot.sources import GitTree, changed_paths, merge_base

BLOCK = re.compile(r"^(`{3,})suggestion\n(.*?)^\1$", re.S | re.M)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def scratch(mirror: Path) -> Path:
    """A work-tree repository reading `mirror`'s objects and refs."""
    git_dir = Path(git(mirror, "rev-parse", "--absolute-git-dir"))
    root = Path(tempfile.mkdtemp(prefix="bench-suggestions-"))
    git(root, "init", "-q")
    (root / ".git" / "objects" / "info" / "alternates").write_text(
        str(git_dir / "objects") + "\n", encoding="utf-8"
    )
    refs = git(mirror, "for-each-ref", "--format=%(objectname) %(refname)", "refs/")
    lines = [f"update {ref} {sha}" for sha, ref in (r.split() for r in refs.splitlines())]
    subprocess.run(
        ["git", "update-ref", "--stdin"],
        cwd=root,
        input="\n".join(lines) + "\n",
        text=True,
        check=True,
    )
    return root


def flags(path: str, text: str) -> list[list[tuple[str, int, str, frozenset[int]]]]:
    out = []
    for launch in parse_recipe(path, text).launches:
        rows = []
        for name, found in launch.flags.items():
            for f in found:
                value = f.value.text if f.value is not None else ""
                lines = frozenset(s.line for s in f.value.segs) if f.value else frozenset()
                rows.append((name, f.span.line, value, lines))
        out.append(rows)
    return out


def unsafe(path: str, text: str, start: int, end: int, body: str) -> str | None:
    """Why applying the comment's suggestion to `text` breaks a launch, or None."""
    m = BLOCK.search(body)
    if m is None:
        return "no suggestion block in the comment"
    new = m.group(2).splitlines(keepends=True)
    lines = text.splitlines(keepends=True)
    applied = "".join(lines[: start - 1] + new + lines[end:])
    shift = len(new) - (end - start + 1)
    before, after = flags(path, text), flags(path, applied)
    if len(before) != len(after):
        return f"{len(before)} launches became {len(after)}"
    for old, now in zip(before, after, strict=True):
        moved = {(n, ln + shift if ln > end else ln): v for n, ln, v, _ in old}
        have = {(n, ln): v for n, ln, v, _ in now}
        for name, line, value, value_lines in old:
            if start <= line <= end:
                continue
            key = (name, line + shift if line > end else line)
            if key not in have:
                return f"lost `{name}`"
            if not any(start <= n <= end for n in value_lines) and have[key] != value:
                return f"changed `{name} {value}`"
        for name, line, _, _ in now:
            if not start <= line < start + len(new) and (name, line) not in moved:
                return f"gained `{name}`"
    return None


def yaml_unsafe(text: str, start: int, end: int, body: str) -> str | None:
    """Why the suggestion leaves a YAML file unparseable, or None."""
    from ruamel.yaml import YAML

    m = BLOCK.search(body)
    if m is None:
        return "no suggestion block in the comment"
    lines = text.splitlines(keepends=True)
    applied = "".join(lines[: start - 1] + m.group(2).splitlines(keepends=True) + lines[end:])
    try:
        YAML(typ="safe").load(applied)
    except Exception as exc:
        return f"YAML no longer loads: {str(exc).splitlines()[0]}"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default="../ix", help="InferenceX clone or bare mirror")
    ap.add_argument("--base", default="main", help="the branch PRs target (default: main)")
    ap.add_argument("--count", type=int, default=80, help="newest PR heads to check")
    ap.add_argument("--date", default="2026-11-30", help="review date (YYYY-MM-DD)")
    opts = ap.parse_args()
    root = scratch(Path(opts.repo))
    refs = git(root, "for-each-ref", "--format=%(refname)", "refs/pull/").split()
    numbers = sorted(
        (int(m.group(1)) for r in refs if (m := re.fullmatch(r"refs/pull/(\d+)/head", r))),
        reverse=True,
    )[: opts.count]
    base_sha = git(root, "rev-parse", opts.base)
    per_rule: Counter[str] = Counter()
    problems: list[str] = []
    times: list[float] = []
    checked = 0
    for number in numbers:
        head = f"refs/pull/{number}/head"
        t0 = time.perf_counter()
        try:
            fork = merge_base(root, base_sha, head)
            changed = changed_paths(root, base_sha, head)
        except Exception as exc:  # a head whose objects are missing from the mirror
            print(f"#{number}: skipped ({exc})")
            continue
        with (
            GitTree(root, fork) as base,
            GitTree(root, head) as tree,
            GitTree(root, base_sha) as tip,
        ):
            text = next((tip.read(n) for n in CONFIG_FILENAMES if tip.read(n)), None)
            config = build_config(text.decode("utf-8", "replace") if text else None)
            change = build_changeset(base, tree, changed, pr=number)
            ctx = Context.for_change(
                change,
                config,
                review_date=datetime.date.fromisoformat(opts.date),
                repository="SemiAnalysisAI/InferenceX",
            )
            report = lint(ctx, paths=changed)
            checked += 1
            for f in report.findings:
                if f.suggestion is None:
                    continue
                per_rule[f.rule] += 1
                data = tree.read(f.path) or b""
                source = data.decode("utf-8", "replace")
                body = comment_body(f, None, "")
                if route(f.path, config) == "recipe":
                    why = unsafe(f.path, source, f.span.line, f.span.last_line, body)
                else:
                    why = yaml_unsafe(source, f.span.line, f.span.last_line, body)
                if why:
                    problems.append(f"#{number} {f.rule} {f.path}:{f.line}: {why}")
        times.append(time.perf_counter() - t0)
    print(f"pull requests linted: {checked} (newest {opts.count} heads)")
    print(
        f"suggestions applied: {sum(per_rule.values())}  "
        + ", ".join(f"{rule} x{n}" for rule, n in sorted(per_rule.items()))
    )
    print(f"unsafe suggestions: {len(problems)} (recipes re-parsed, YAML re-loaded)")
    for line in problems:
        print("  " + line)
    if times:
        print(f"time per PR: median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    shutil.rmtree(root, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
