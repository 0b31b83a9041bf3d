"""Install cost: the default install (the linter) against `.[server,llm]`, and the
pre-commit hook's first run from an empty `PRE_COMMIT_HOME`.

    python benchmarks/bench_install.py [--runs N] [--warm] [--rev REF ...]
        [--skip-installs] [--skip-pre-commit]

Each run creates a fresh virtual environment and installs this checkout into it with an
empty pip cache (a first-time user; `--warm` keeps one cache across runs instead), the
two installs alternating, and prints the median time and the environment's size (and its
growth over an empty environment). Then it installs `pre-commit` from PyPI into a tool
environment (not timed), makes a small git repository (a copy of the example) whose
`.pre-commit-config.yaml` names a revision of this checkout (`--rev`, default `HEAD`;
commit first: pre-commit clones the revision; several revisions alternate), and times
`pre-commit run --all-files` with an empty `PRE_COMMIT_HOME` and an empty pip cache (with
`--warm`, one cache filled by an unmeasured run: what is left is the local work): the
hook's environment is built, then the hook runs. Targets:
under 15 s and under 30 MB for the pre-commit environment. Needs network access to PyPI.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "inferencex-mini"


def size(path: Path) -> int:
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            full = Path(dirpath) / name
            if not full.is_symlink():
                total += full.stat().st_size
    return total


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return elapsed


def empty_venv_size(work: Path) -> int:
    venv = work / "empty"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    out = size(venv)
    shutil.rmtree(venv)
    return out


def install(work: Path, spec: str, cache: Path) -> tuple[float, int]:
    """(seconds for venv + pip install, bytes of the environment)."""
    venv = work / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    env = {**os.environ, "PIP_CACHE_DIR": str(cache), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    seconds = run([sys.executable, "-m", "venv", str(venv)], env)
    seconds += run([str(venv / "bin" / "pip"), "install", "--quiet", spec], env, cwd=ROOT)
    nbytes = size(venv)
    shutil.rmtree(venv)
    return seconds, nbytes


def bench_installs(work: Path, runs: int, warm: bool) -> None:
    base = empty_venv_size(work)
    specs = {"default (.)": ".", "server + llm (.[server,llm])": ".[server,llm]"}
    times: dict[str, list[float]] = {k: [] for k in specs}
    sizes: dict[str, int] = {}
    shared = work / "pip-cache"
    for n in range(runs):
        for label, spec in specs.items():
            cache = shared if warm else work / f"pip-cache-{n}-{spec}"
            seconds, nbytes = install(work, spec, cache)
            times[label].append(seconds)
            sizes[label] = nbytes
            if not warm:
                shutil.rmtree(cache, ignore_errors=True)
    print(f"fresh venv + pip install ({'warm' if warm else 'empty'} pip cache), {runs} run(s):")
    print(f"  empty venv: {mb(base)}")
    for label in specs:
        med = statistics.median(times[label])
        print(
            f"  {label:<30} {med:6.1f} s  {mb(sizes[label]):>9}  "
            f"(+{mb(sizes[label] - base)} over an empty venv)"
        )


def _rev(ref: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", ref], check=True, capture_output=True, text=True
    ).stdout.strip()


def _pre_commit_repo(work: Path, name: str, rev: str) -> Path:
    """A copy of the example, committed, whose hook is this checkout's `rev`."""
    repo = work / name
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns(".recipe_bot_cache"))
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {rev}\n    hooks:\n      - id: recipe-review\n",
        encoding="utf-8",
    )
    git = ["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "example"], check=True)
    return repo


def _first_run(tool: Path, repo: Path, home: Path, cache: Path) -> tuple[float, int, int]:
    """(seconds, bytes of PRE_COMMIT_HOME, bytes of the hook's environment)."""
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PIP_CACHE_DIR": str(cache),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    start = time.perf_counter()
    proc = subprocess.run(
        [str(tool / "bin" / "pre-commit"), "run", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    # the example's findings fail the hook (exit 1): the environment was built and ran
    if proc.returncode not in (0, 1) or "recipe-review" not in proc.stdout:
        raise SystemExit(f"pre-commit failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    envs = [p for p in home.glob("repo*/py_env-*") if p.is_dir()]
    out = (elapsed, size(home), sum(size(p) for p in envs))
    shutil.rmtree(home)
    return out


def bench_pre_commit(work: Path, runs: int, revs: list[str], warm: bool) -> None:
    tool = work / "tool"
    subprocess.run([sys.executable, "-m", "venv", str(tool)], check=True)
    run([str(tool / "bin" / "pip"), "install", "--quiet", "pre-commit"])
    version = subprocess.run(
        [str(tool / "bin" / "pre-commit"), "--version"], capture_output=True, text=True
    ).stdout.strip()
    repos = {ref: _pre_commit_repo(work, f"repo-{n}", _rev(ref)) for n, ref in enumerate(revs)}
    shared = work / "pip-cache-pre-commit"
    if warm:  # one run of each revision fills the shared pip cache, unmeasured
        for repo in repos.values():
            _first_run(tool, repo, work / "warm-home", shared)
    results: dict[str, list[tuple[float, int, int]]] = {ref: [] for ref in revs}
    for n in range(runs):  # the revisions alternate
        for ref, repo in repos.items():
            cache = shared if warm else work / f"pip-cache-{n}-{_rev(ref)[:12]}"
            results[ref].append(_first_run(tool, repo, work / "home", cache))
            if not warm:
                shutil.rmtree(cache, ignore_errors=True)
    cache_kind = "a warm" if warm else "an empty"
    print(f"pre-commit hook, first run ({version}, empty PRE_COMMIT_HOME, {cache_kind} pip cache):")
    for ref, rows in results.items():
        times = [t for t, _, _ in rows]
        _, total, hook_env = rows[-1]
        print(
            f"  {ref} ({_rev(ref)[:9]}): median {statistics.median(times):.1f} s of {runs} "
            f"({', '.join(f'{t:.1f}' for t in times)}); PRE_COMMIT_HOME {mb(total)}, "
            f"the hook's environment {mb(hook_env)}"
        )
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "pyproject.toml", "bot", "rules"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if dirty:
        print("  (bot/, rules/ or pyproject.toml have uncommitted changes: commits were measured)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1, help="installs of each kind (median)")
    ap.add_argument("--warm", action="store_true", help="one pip cache for every run")
    ap.add_argument("--skip-installs", action="store_true", help="only the pre-commit runs")
    ap.add_argument("--skip-pre-commit", action="store_true")
    ap.add_argument(
        "--rev",
        action="append",
        help="revision of this checkout the hook is installed from (repeatable; default HEAD)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-install-") as tmp:
        work = Path(tmp)
        if not args.skip_installs:
            bench_installs(work, args.runs, args.warm)
        if not args.skip_pre_commit:
            bench_pre_commit(work, args.runs, args.rev or ["HEAD"], args.warm)


if __name__ == "__main__":
    main()
