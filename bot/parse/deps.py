"""Which repository files a launch file sources, runs or copies. Pure.

A recipe `source`s `benchmarks/benchmark_lib.sh`; a runner (`runners/launch_*.sh`)
runs `benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_h100.sh`
or copies a directory of srt-slurm recipes; the AMD `job.slurm` sources
`$WS_PATH/server_sglang.sh`; an srt-slurm recipe names its `setup_script` and runs
`bash /infmax-workspace/benchmarks/multi_node/agentic_srt.sh`. This module reads
those references from the text, statically, and resolves each against the
repository's paths: a word is a reference when it names a script (`*.sh`,
`*.slurm`, `*.env`) or a path under one of the repository's top directories.
Expansions that name the file's own directory (`$(dirname "$0")`,
`$SCRIPT_DIR`) resolve to it, container and checkout roots (`/workspace/`,
`$GITHUB_WORKSPACE/`) to the repository's root, and any other expansion stands for
any text, so `..._${PRECISION}_h100.sh` reaches every H100 recipe. A name without a
directory it can be resolved in (`setup_script: x.sh`, `$WS_PATH/x.sh`) is found
beside the file, else by its name when few files carry it.

`bot.core.shared` builds the graph of these references and, for a pull request
that changes a shared file, finds the recipes it reaches.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable, Sequence

from bot.base.records import dataclass

_SCRIPT = re.compile(r"\.(?:sh|slurm|env)$")
_EXPANSION = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?]")
# a name matched by file name alone reaches at most this many files
_BY_NAME = 3
# a pattern with expansions reaches at most this many files
MAX_MATCHES = 2000


@dataclass(frozen=True)
class Layout:
    """How launch files name the repository (`knowledge.shared_launch`)."""

    roots: tuple[str, ...] = ()  # prefixes that stand for the repository's root
    own_dir: tuple[str, ...] = ()  # expansions that stand for the file's own directory
    top: tuple[str, ...] = ("benchmarks/", "runners/", "utils/")  # the repository's top dirs


def references(path: str, text: str, layout: Layout) -> tuple[str, ...]:
    """The repository paths (as glob patterns) `path`'s text sources, runs or copies."""
    return tuple(dict.fromkeys(p for p, _ in uses(path, text, layout)))


def uses(path: str, text: str, layout: Layout) -> list[tuple[str, bool]]:
    """`references`, each with whether the file only sources it (`source x.sh`,
    `. x.sh`) rather than running, copying or naming it."""
    here = posixpath.dirname(path)
    out: list[tuple[str, bool]] = []
    # only a line that names a script or a top directory can hold a reference
    marks = (".sh", ".slurm", ".env", *layout.top)
    for raw_line in text.splitlines():
        if not any(m in raw_line for m in marks):
            continue
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        before = ""
        for word, assigned in _words(_unquote(line)):
            sourced = before in ("source", ".")
            before = word
            if len(word) > 300:
                continue
            if assigned and not _SCRIPT.search(word):
                continue  # `DIR=.../amd_utils`: a value, not a file the script runs
            pattern = _resolve(word, here, layout)
            if pattern is not None and (pattern, sourced) not in out:
                out.append((pattern, sourced))
    return out


def _unquote(line: str) -> str:
    """A line with its quotes dropped and a trailing comment cut (paths keep their
    expansions: `"$(dirname "$0")/../x.sh"` reads `$(dirname $0)/../x.sh`)."""
    line = re.sub(r"\s#.*$", "", line)
    return line.replace('"', "").replace("'", "")


_SEPARATORS = frozenset(" \t;|&<>(){}=,`")


def _words(line: str) -> list[tuple[str, bool]]:
    """The line split where the shell splits words, keeping `$(...)` and `${...}` whole;
    each word with whether it is the value of an assignment (`X=a/b.sh`: `a/b.sh`)."""
    words: list[tuple[str, bool]] = []
    buf: list[str] = []
    depth = 0
    assigned = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "$" and i + 1 < len(line) and line[i + 1] in "({":
            depth += 1
            buf.append(line[i : i + 2])
            i += 2
            continue
        if depth and ch in ")}":
            depth -= 1
            buf.append(ch)
        elif not depth and ch in _SEPARATORS:
            if buf:
                words.append(("".join(buf), assigned))
                buf = []
            assigned = ch == "="
        else:
            buf.append(ch)
        i += 1
    if buf:
        words.append(("".join(buf), assigned))
    return words


def _resolve(word: str, here: str, layout: Layout) -> str | None:
    """The glob of repository paths `word` names, or None when it names none."""
    w = word
    for own in layout.own_dir:
        own = own.replace('"', "")
        if w.startswith(own):
            w = (here + w[len(own) :]) if here else w[len(own) :].lstrip("/")
            break
    for root in layout.roots:
        if w.startswith(root):
            w = w[len(root) :]
            break
    # the repository's top directories anchor a path after any prefix
    # (`${DOCKER_MOUNT_PATH}/benchmarks/multi_node/amd_utils`)
    anchored = False
    for top in layout.top:
        i = w.find("/" + top) if not w.startswith(top) else -1
        if w.startswith(top):
            anchored = True
            break
        if i >= 0:
            w = w[i + 1 :]
            anchored = True
            break
    is_script = bool(_SCRIPT.search(w))
    if not anchored and not is_script:
        return None
    if w.startswith("/") or w.startswith("~"):
        return None  # outside the repository
    if not anchored:
        if w.startswith("$") or "/" not in w:
            # an unknown directory: the file's own name, found later beside it or by name
            return "?name:" + _EXPANSION.sub("*", posixpath.basename(w))
        w = posixpath.join(here, w) if here else w
    w = _EXPANSION.sub("*", w)
    w = posixpath.normpath(w)
    if w.startswith("..") or w in (".", "*"):
        return None
    return w


def resolve(
    patterns: Iterable[str], here: str, paths: Sequence[str], by_name: dict[str, list[str]]
) -> set[str]:
    """The repository paths `patterns` (from `references`) reach; a directory reaches
    every file under it."""
    out: set[str] = set()
    for pattern in patterns:
        if pattern.startswith("?name:"):
            name = pattern[len("?name:") :]
            beside = posixpath.join(here, name) if here else name
            hits = [p for p in paths if fnmatch.fnmatchcase(p, beside)]
            if not hits and "*" not in name:
                hits = by_name.get(name, [])
                if len(hits) > _BY_NAME:
                    hits = []
            out.update(hits)
            continue
        out.update(_matches(pattern, tuple(paths)))
    return out


def _matches(pattern: str, paths: tuple[str, ...]) -> list[str]:
    if "*" not in pattern and "?" not in pattern and "[" not in pattern:
        prefix = pattern.rstrip("/") + "/"
        return [p for p in paths if p == pattern or p.startswith(prefix)][:MAX_MATCHES]
    rx = _glob(pattern)
    return [p for p in paths if rx.match(p)][:MAX_MATCHES]


def _glob(pattern: str) -> re.Pattern[str]:
    """`*` matches any text (an expansion may hold a subdirectory: `${SCENARIO_SUBDIR}`);
    a pattern that names a directory matches the files under it too."""
    body = "".join(".*" if ch == "*" else re.escape(ch) for ch in pattern)
    return re.compile(body + r"(?:/.*)?\Z")
