"""The lint cache: results of earlier runs on disk, reused while their inputs are unchanged.

As ruff keeps `.ruff_cache`, `bot lint` keeps `.recipe_bot_cache` in the repository
root (`--cache-dir DIR` elsewhere, `--no-cache` not at all). Two kinds of entries,
each a JSON file written once under a key that names everything it depends on:

- a file's result (`files/`): the findings, suppressions and suppressed count of one
  linted file, keyed by the bot's code (`code_version`: every module, rule, schema and
  knowledge file, and the parser libraries' versions), the configuration and
  knowledge (`config_fingerprint`), the selected rules, the run's pull request and
  repository, the file's path and its content hash (git blob id). The entry lists
  what else the lint read (`bot.core.reads`: other files by blob id, the tree's list
  of paths, the review date); it is reused only while all of those are unchanged,
  so one changed recipe re-lints that recipe and every file whose lint read it.
- a run's output (`runs/`): what a whole `bot lint` printed and wrote, keyed by the
  command line, the working directory and the raw configuration bytes; reused when
  every file the run read is unchanged and no file was added or removed, without
  loading the linter at all (`bot.cli.lint`).

Writes are atomic (a temporary file in the same directory, then `os.replace`), so
concurrent runs never see half an entry: the last writer of a key wins, and all
writers of a key write the same content. Anything unreadable is a miss. The cache
trusts its directory: a run on a checkout that may carry a crafted cache directory
(a pull request's files in CI) should pass `--no-cache` or a `--cache-dir` outside it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.base.span import Span
from bot.base.tree import Tree
from bot.core.configfile import CONFIG_FILENAMES
from bot.core.model import Finding, Ratchet, T
from bot.core.reads import Reads
from bot.core.suppress import Suppression
from bot.sources import CACHE_DIR_NAME, FsTree, SourceError

if TYPE_CHECKING:
    from bot.core.config import Config

# the layout and encoding of entries: bump when either changes
FORMAT = "1"
DEFAULT_DIR = CACHE_DIR_NAME  # FsTree leaves it out of every listing
# the packages whose code decides results, and the libraries that parse for them
CODE_PACKAGES = ("bot", "bot.rules", "bot.schemas")
CODE_SUFFIXES = (".py", ".yaml", ".yml", ".json")
LIBRARIES = ("tree-sitter", "tree-sitter-bash", "ruamel.yaml", "ruamel.yaml.clib", "jsonschema")


class LintCache:
    """A cache directory: JSON entries by kind and key, written atomically."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._ready = False

    def __repr__(self) -> str:
        return f"LintCache({str(self.directory)!r})"

    def inside(self, root: str | os.PathLike[str]) -> str | None:
        """The cache directory relative to `root` when it is inside it (its files are
        no part of what is linted), else None."""
        try:
            rel = Path(os.path.realpath(self.directory)).relative_to(os.path.realpath(root))
        except ValueError:
            return None
        return rel.as_posix() if rel.parts else None

    @classmethod
    def at(cls, root: str | os.PathLike[str], directory: str | None = None) -> LintCache:
        """The cache of the repository at `root`: `directory` (relative to the current
        directory when not absolute), else `root/.recipe_bot_cache`."""
        return cls(Path(directory).absolute() if directory else Path(root) / DEFAULT_DIR)

    def _path(self, kind: str, key: str) -> Path:
        return self.directory / FORMAT / kind / key[:2] / f"{key}.json"

    def load(self, kind: str, key: str) -> Any:
        """The entry stored under `key`, or None (absent or unreadable)."""
        try:
            with open(self._path(kind, key), encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return None

    def store(self, kind: str, key: str, data: Any) -> None:
        """Write an entry atomically; a cache that cannot be written is skipped silently."""
        with contextlib.suppress(OSError, ValueError, TypeError):
            self._prepare()
            target = self._path(kind, key)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(data, fh, ensure_ascii=False, separators=(",", ":"))
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise

    def _prepare(self) -> None:
        """Create the directory with a `.gitignore` of `*` (as ruff does) and a
        CACHEDIR.TAG, so neither git nor backup tools pick it up."""
        if self._ready:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in (
            (".gitignore", "# Automatically created by recipe-review bot.\n*\n"),
            (
                "CACHEDIR.TAG",
                "Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by recipe-review bot.\n",
            ),
        ):
            path = self.directory / name
            if not path.exists():
                with contextlib.suppress(OSError):
                    _write_atomic(path, text)
        self._ready = True


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


# --------------------------------------------------------------------------- keys


def digest(*parts: object) -> str:
    """A key over `parts` (their `repr`, separated)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def code_files() -> list[Path]:
    """Every file of the bot's code the results depend on: the modules, the rules,
    the schemas and the knowledge it ships."""
    out: list[Path] = []
    for package in CODE_PACKAGES:
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for dirpath, dirnames, filenames in os.walk(folder):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                out.extend(Path(dirpath) / f for f in filenames if f.endswith(CODE_SUFFIXES))
    return sorted(set(out))


def code_version() -> str:
    """A hash of the bot's code (`code_files`) and of the parser libraries' versions."""
    import importlib.metadata  # on first use: a run without the cache never loads it

    h = hashlib.sha256(FORMAT.encode())
    for path in code_files():
        with contextlib.suppress(OSError):
            h.update(path.name.encode() + b"\x00" + path.read_bytes() + b"\x00")
    for dist in LIBRARIES:
        try:
            h.update(f"{dist}={importlib.metadata.version(dist)}\x00".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"{dist}=-\x00".encode())
    return h.hexdigest()


def config_fingerprint(config: Config) -> str:
    """A hash of what a configuration decides: the paths, the rules' overrides and the
    knowledge merged from the shipped file and the repository's own."""
    return digest(
        config.recipes,
        config.recipes_exclude,
        config.changelog,
        config.golden_dir,
        config.master_configs,
        sorted(config.disabled),
        sorted(config.severity.items()),
        config.knowledge.data,
        config.source,
    )


def listing_hash(paths: Iterable[str], skip: str | None = None) -> str:
    """A hash of a tree's list of paths, those under `skip` (a cache directory inside
    the tree) left out."""
    prefix = skip.rstrip("/") + "/" if skip else None
    kept = sorted(p for p in paths if prefix is None or not p.startswith(prefix))
    return hashlib.sha256("\x00".join(kept).encode("utf-8", "surrogatepass")).hexdigest()


# --------------------------------------------------------------------------- reads


def reads_data(reads: Reads) -> dict[str, Any]:
    return {
        "blobs": sorted([t, p, b] for (t, p), b in reads.blobs.items()),
        "listed": sorted(reads.listed),
        "date": reads.date,
    }


def reads_of(data: Mapping[str, Any]) -> Reads:
    return Reads(
        blobs={(str(t), str(p)): b for t, p, b in data["blobs"]},
        listed=set(data["listed"]),
        date=bool(data["date"]),
    )


def still_valid(
    data: Mapping[str, Any],
    trees: Mapping[str, Tree],
    listings: Mapping[str, str],
    date: str | None,
) -> bool:
    """Whether what an entry's lint read (`reads_data`, with the listing hashes and date
    it saw) is what `trees` hold now."""
    try:
        for name, path, blob in data["reads"]["blobs"]:
            tree = trees.get(name)
            if tree is None or tree.blob_id(path) != blob:
                return False
        for name in data["reads"]["listed"]:
            if data["listings"].get(name) != listings.get(name):
                return False
        return not data["reads"]["date"] or data["date"] == date
    except (KeyError, TypeError, ValueError):
        return False


# --------------------------------------------------------------------------- values


def _t(text: T | None) -> list[str] | None:
    return None if text is None else [text.en, text.zh]


def _t_of(data: Sequence[str] | None) -> T | None:
    return None if data is None else T(en=str(data[0]), zh=str(data[1]))


def finding_data(f: Finding) -> dict[str, Any]:
    s = f.span
    return {
        "rule": f.rule,
        "slug": f.slug,
        "severity": f.severity,
        "path": f.path,
        "span": [s.line, s.col, s.end_line, s.end_col],
        "title": _t(f.title),
        "message": _t(f.message),
        "fix": _t(f.fix),
        "subject": f.subject,
        "suggestion": f.suggestion,
        "in_diff": f.in_diff,
        "line_text": f.line_text,
        "proposal": f.proposal,
        "comment_lines": list(f.comment_lines) if f.comment_lines is not None else None,
        "practice": f.practice,
        "ratchet": (
            [f.ratchet.constraint, f.ratchet.item, f.ratchet.prior]
            if f.ratchet is not None
            else None
        ),
    }


def finding_of(d: Mapping[str, Any]) -> Finding:
    title, message = _t_of(d["title"]), _t_of(d["message"])
    assert title is not None and message is not None
    lines = d["comment_lines"]
    return Finding(
        rule=d["rule"],
        slug=d["slug"],
        severity=d["severity"],
        path=d["path"],
        span=Span(*d["span"]),
        title=title,
        message=message,
        fix=_t_of(d["fix"]),
        subject=d["subject"],
        suggestion=d["suggestion"],
        in_diff=d["in_diff"],
        line_text=d["line_text"],
        proposal=d["proposal"],
        comment_lines=(int(lines[0]), int(lines[1])) if lines is not None else None,
        practice=d.get("practice"),
        ratchet=Ratchet(str(r[0]), str(r[1]), bool(r[2])) if (r := d.get("ratchet")) else None,
    )


def suppression_data(s: Suppression) -> dict[str, Any]:
    return {
        "path": s.path,
        "line": s.line,
        "col": s.col,
        "written": list(s.written),
        "rules": list(s.rules),
        "unknown": list(s.unknown),
        "reason": s.reason,
        "text": s.text,
        "closed": s.closed,
        "used": sorted(s.used),
        "added_by_pr": s.added_by_pr,
    }


def suppression_of(d: Mapping[str, Any]) -> Suppression:
    return Suppression(
        path=d["path"],
        line=d["line"],
        col=d["col"],
        written=tuple(d["written"]),
        rules=tuple(d["rules"]),
        unknown=tuple(d["unknown"]),
        reason=d["reason"],
        text=d["text"],
        closed=d["closed"],
        used=set(d["used"]),
        added_by_pr=d["added_by_pr"],
    )


# --------------------------------------------------------------------------- whole runs


class RunMemo:
    """A whole `bot lint` run of files on disk: what it printed and wrote, replayed while
    no file was added or removed and every file it read holds what it held.

    The key is the command line, the working directory and what decides colour, the
    code, the `--config` file's bytes and, for each repository root linted, its
    configuration files and git configuration (the `origin` remote) as bytes."""

    def __init__(
        self,
        cache: LintCache,
        roots: Sequence[Path],
        *,
        command: object,
        config: bytes | None,
        where: object,
        tty: bool,
        date: str,
    ) -> None:
        self.cache = cache
        self.roots = list(roots)
        self.date = date
        self.key = digest(
            "run",
            code_version(),
            command,
            config,
            where,
            tty,
            [(str(root), _root_files(root)) for root in self.roots],
        )

    def replay(self) -> dict[str, Any] | None:
        """What the run printed (`stdout`, `stderr`), the files it wrote (`files`) and its
        exit status (`code`), when still valid; else None."""
        entry = self.cache.load("runs", self.key)
        try:
            if not isinstance(entry, dict) or entry["format"] != FORMAT:
                return None
            if entry["date"] is not None and entry["date"] != self.date:
                return None
            for item in entry["trees"]:
                tree = FsTree(item["root"])
                if listing_hash(tree.paths(), self.cache.inside(tree.root)) != item["listing"]:
                    return None
                if any(tree.blob_id(path) != blob for path, blob in item["blobs"]):
                    return None
            for key in ("stdout", "stderr", "files", "code"):
                entry[key]
        except (KeyError, TypeError, ValueError, SourceError):
            return None
        return entry

    def record(
        self,
        runs: Sequence[tuple[Path | None, RunReads | None]],
        stdout: str,
        stderr: str,
        files: Mapping[str, str],
        code: int,
    ) -> None:
        """Keep a run's output; skipped unless every tree it linted was one of the roots,
        read whole from disk with its reads noted."""
        if not runs:
            return
        trees = []
        date_read = False
        for root, got in runs:
            if got is None or root not in self.roots or got.listing is None:
                return
            if any(name != "head" for name, _ in got.reads.blobs):
                return
            blobs = sorted([path, blob] for (_, path), blob in got.reads.blobs.items())
            trees.append({"root": str(root), "listing": got.listing, "blobs": blobs})
            date_read = date_read or got.reads.date
        self.cache.store(
            "runs",
            self.key,
            {
                "format": FORMAT,
                "date": self.date if date_read else None,
                "trees": trees,
                "stdout": stdout,
                "stderr": stderr,
                "files": dict(files),
                "code": code,
            },
        )


class RunReads:
    """What one lint run read, all files together, and the list of paths it linted from."""

    def __init__(self, reads: Reads, listing: str | None) -> None:
        self.reads = reads
        self.listing = listing


def _root_files(root: Path) -> list[object]:
    """The bytes of the files outside the lint that decide a root's results: its
    configuration (the first of `CONFIG_FILENAMES`) and git's (the `origin` remote)."""
    out: list[object] = []
    for name in (*CONFIG_FILENAMES, ".git", ".git/config"):
        path = root / name
        try:
            out.append(None if path.is_dir() else path.read_bytes())
        except OSError:
            out.append(False)
    return out
