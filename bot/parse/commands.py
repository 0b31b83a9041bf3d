"""What a command line does with files, read through `argv`. Pure.

The recipe model keeps every executed command as a `Run` (its words resolved). The
readings here answer the questions a rule asks of one such command, with the
argument rules of the real tool (`bot.parse.argv`):

- `patch(words)`: `git apply` / `git am` / `patch`, and the directory they apply in;
- `writes(words)`: the files `sed -i`, `cp`/`mv`/`ln`/`install`/`rsync`/`tee` and
  `curl -o`/`wget -O` write;
- `python_code(words, stdin)`: the code `python -c CODE` or `python - <<EOF` runs;
- `script(words)`: the script a shell, a Python interpreter or a path runs;
- `clone_url(words)`: the repository `git clone` checks out;
- `python_writes(code)`, `script_relative(text)`: facts about code and paths.

A reading is None when the command is not of that kind or only inspects (`git apply
--check`, `patch --dry-run`). The caller strips wrappers first (`argv.unwrap`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from bot.base.records import dataclass
from bot.parse.argv import SPECS, base, is_python, parse, spec_for
from bot.parse.values import Str

SHELLS = frozenset({"bash", "sh", "zsh"})
COPIERS = frozenset({"cp", "mv", "ln", "install", "rsync", "tee"})
DOWNLOADERS = frozenset({"curl", "wget"})


@dataclass(frozen=True)
class Patch:
    cmd: Literal["git apply", "git am", "patch"]
    target: Str | None  # the directory it applies in (`-d`, `--directory`, `git -C`)


@dataclass(frozen=True)
class Writes:
    kind: Literal["sed", "copy", "download"]
    cmd: str  # the command's name
    targets: tuple[Str, ...]  # the files or directories written, in order


@dataclass(frozen=True)
class PythonCode:
    code: str
    args: tuple[Str, ...]  # what the code gets as `sys.argv[1:]`
    heredoc: bool  # True: `python - <<EOF`; False: `python -c CODE`


def patch(words: Sequence[Str]) -> Patch | None:
    if not words:
        return None
    name = base(words[0])
    if name == "git":
        top = parse(words[1:], SPECS["git"])
        if top.rest is None or top.words[top.rest].text not in ("apply", "am"):
            return None
        sub = top.words[top.rest].text
        args = parse(top.words[top.rest + 1 :], SPECS[f"git {sub}"])
        if args.has("--check", "--stat", "--numstat", "--summary") and not args.has("--apply"):
            return None  # inspects a patch without applying it
        target = args.option("--directory")
        cmd: Literal["git apply", "git am"] = "git apply" if sub == "apply" else "git am"
        return Patch(cmd, target if target is not None else top.option("-C"))
    if name == "patch":
        args = parse(words[1:], SPECS["patch"])
        if args.has("--dry-run", "--check"):
            return None
        return Patch("patch", args.option("--directory"))
    return None


def writes(words: Sequence[Str]) -> Writes | None:
    if not words:
        return None
    name = base(words[0])
    args = parse(words[1:], spec_for(name))
    if name == "sed":
        if not args.has("--in-place"):
            return None
        files = args.positionals
        if not args.has("--expression", "--file"):
            files = files[1:]  # the first positional is the script
        return Writes("sed", name, tuple(files))
    if name in COPIERS:
        dest = args.option("--target-directory")
        if dest is not None:
            return Writes("copy", name, (dest,))
        files = args.positionals
        if name == "tee":
            return Writes("copy", name, tuple(files))
        return Writes("copy", name, tuple(files[-1:]) if len(files) >= 2 else ())
    if name == "curl":
        out = args.option("--output")
        return Writes("download", name, (out,) if out is not None else ())
    if name == "wget":
        out = args.option("--output-document")
        if out is None:
            out = args.option("--directory-prefix")
        return Writes("download", name, (out,) if out is not None else ())
    return None


def python_code(words: Sequence[Str], stdin: Str | None) -> PythonCode | None:
    """The code a Python interpreter runs from `-c` or from a heredoc on stdin."""
    if not words or not is_python(base(words[0])):
        return None
    args = parse(words[1:], SPECS["python"])
    first = args.first("-c", "-m")
    if first is not None:
        if first.name == "-m" or first.value is None:
            return None
        rest = args.rest if args.rest is not None else len(args.words)
        return PythonCode(first.value.text, args.words[rest:], heredoc=False)
    pos = args.positionals
    if stdin is not None and (not pos or pos[0].text == "-"):
        return PythonCode(stdin.text, pos[1:], heredoc=True)
    return None


def script(words: Sequence[Str], stdin: Str | None = None) -> Str | None:
    """The script file a command runs: `bash x.sh`, `python3 x.py`, `./x.sh`."""
    if not words:
        return None
    name = base(words[0])
    if name in SHELLS:
        args = parse(words[1:], SPECS[name])
        if args.has("-c"):
            return None
        return args.positionals[0] if args.positionals else None
    if is_python(name):
        args = parse(words[1:], SPECS["python"])
        if args.has("-m", "-c") or python_code(words, stdin) is not None:
            return None
        pos = args.positionals
        return pos[0] if pos and pos[0].text != "-" else None
    if words[0].text.endswith((".sh", ".py")) and "/" in words[0].text:
        return words[0]
    return None


def clone_url(words: Sequence[Str]) -> Str | None:
    """The repository `git clone URL [DIR]` checks out."""
    if not words or base(words[0]) != "git":
        return None
    top = parse(words[1:], SPECS["git"])
    if top.rest is None or top.words[top.rest].text != "clone":
        return None
    args = parse(top.words[top.rest + 1 :], SPECS["git clone"])
    return args.positionals[0] if args.positionals else None


# Python code that writes files: `Path.write_text`, `open(..., "w")`, `shutil.copy`, `os.replace`
_WRITES = re.compile(
    r"\.write_(?:text|bytes)\(|\bopen\([^)\n]*,\s*(?:mode\s*=\s*)?[\"'][rbt+]*[wax]"
    r"|shutil\.(?:copy\w*|move)\(|os\.(?:replace|rename)\("
)
# `$(dirname "$0")/x.sh`, `"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/x.sh"`
_DIRNAME = re.compile(
    r"^\$\(\s*(?:cd\s+\"?\$\(\s*)?dirname\s+\"?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?\"?\s*\)"
    r"(?:\"?\s*&&\s*pwd\s*\))?/(?P<rest>.+)$"
)


def python_writes(code: str) -> bool:
    """Whether Python code writes, copies or moves a file."""
    return _WRITES.search(code) is not None


def script_relative(text: str) -> str | None:
    """`x.sh` of a path written relative to the running script's own folder, else None."""
    m = _DIRNAME.match(text)
    return m.group("rest") if m else None


def imports(code: str) -> list[str]:
    """The top-level modules Python code imports (`import a.b`, `from c import d`)."""
    return re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][\w]*)", code, re.M)


__all__ = [
    "COPIERS",
    "DOWNLOADERS",
    "SHELLS",
    "Patch",
    "PythonCode",
    "Writes",
    "clone_url",
    "imports",
    "patch",
    "python_code",
    "python_writes",
    "script",
    "script_relative",
    "writes",
]


def client(words: Sequence[Str], names: Iterable[object]) -> tuple[str, int] | None:
    """(name, index of its first argument) when `words` drive one of the benchmark
    clients `names` (a name of several words, `vllm bench serve`, matches in order),
    looked for among the first six words (wrappers, `python3 -m`)."""
    bases = [w.text.rsplit("/", 1)[-1] for w in words[:6]]
    for name in names:
        toks = str(name).split()
        for i in range(len(bases) - len(toks) + 1):
            if bases[i : i + len(toks)] == toks:
                return str(name), i + len(toks)
    return None
