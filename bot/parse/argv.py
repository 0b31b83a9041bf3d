"""Command lines read the way the tools read them. Pure.

A recipe runs `sudo -E pip install -q "$WHEEL"`, `timeout 600 patch -p1 -d "$SITE"`
or `python3 -X dev -m sglang.launch_server ...`. Rules ask one question of such a
line ("which directory does `patch` write to?", "which index does pip use?"), and
the answer depends on how the tool itself splits its arguments: which flags take a
value, whether `-dDIR` and `-qU` are allowed, where options end. That knowledge is
data here, one `Spec` per command in `SPECS` and one `Wrapper` per prefix command
in `WRAPPERS`, read by one getopt-style reader:

- `parse(words, spec)` -> `Args`: the options (`--flag value`, `--flag=value`,
  `-fVALUE`, short clusters `-qU` where the tool allows them, `--` ends options)
  and the positionals, each a `Str` that keeps its source position;
- `Args.option(name)` (the last value, as the tools read a repeated flag),
  `Args.values(name)`, `Args.has(name)`; `option(words, spec, name)` for one look-up;
- `unwrap(words)`: the command `sudo`, `env A=1`, `timeout 60`, `nohup`, `uv run`,
  `python -m`, ... really run;
- `pip_install(words)` and `requirement(text)`: what `pip install` / `uv pip install`
  installs, each requirement read as PEP 508 through `packaging`, a URL, a VCS
  reference or a local path; what cannot be read is an `unparsed` requirement.

Words are `Str` values from the interpreter: a word whose first part is unresolved
(`"$FLAGS"`) is never taken for an option. Nothing here raises on odd input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Literal

from bot.base.records import dataclass
from bot.parse.argspecs import ENGINE_BOOL_RE as ENGINE_BOOL_RE
from bot.parse.argspecs import SPECS as SPECS
from bot.parse.argspecs import WRAPPERS as WRAPPERS
from bot.parse.argspecs import Spec as Spec
from bot.parse.argspecs import Wrapper as Wrapper
from bot.parse.argspecs import spec_for as spec_for
from bot.parse.values import Seg, Str


def after(word: Str, cut: int) -> Str:
    """`word` without its first `cut` characters; segments (and unknown parts) kept."""
    segs: list[Seg] = []
    pos = 0
    for seg in word.segs:
        end = pos + len(seg.text)
        if end > cut:
            off = max(0, cut - pos)
            segs.append(replace(seg, text=seg.text[off:], col=seg.col + off) if off else seg)
        pos = end
    return Str(tuple(segs))


# a short-option cluster longer than this is not read past it (`-` and a megabyte of letters)
MAX_CLUSTER = 32
# wrappers stripped from one command at most (`nohup nohup ... cmd` is hostile input)
MAX_WRAPPERS = 16


@dataclass(frozen=True)
class Opt:
    name: str  # as the spec names it: an alias is mapped ("-o" -> "--output")
    written: str  # the flag as written ("-o", "--output")
    value: Str | None  # None: no value (a switch, or a value option at the end of argv)
    index: int  # the word it is written in


@dataclass(frozen=True)
class Args:
    words: tuple[Str, ...]
    opts: tuple[Opt, ...]
    positionals: tuple[Str, ...]
    # index in `words` of each positional, and of the first word that ends options
    # (the first positional of a `stop` command, the word after `--` or an `ends` option)
    positions: tuple[int, ...] = ()
    rest: int | None = None

    def has(self, *names: str) -> bool:
        return any(o.name in names for o in self.opts)

    def values(self, *names: str) -> list[Str]:
        return [o.value for o in self.opts if o.name in names and o.value is not None]

    def option(self, *names: str) -> Str | None:
        """The value of the last of these options (a repeated flag: the last one wins)."""
        found = self.values(*names)
        return found[-1] if found else None

    def first(self, *names: str) -> Opt | None:
        return next((o for o in self.opts if o.name in names), None)

    def after(self, index: int) -> tuple[Str, ...]:
        """The words after word `index` (what `python -c CODE` passes on as `sys.argv`)."""
        return self.words[index + 1 :]


def is_option(word: Str) -> bool:
    """Whether a word is written as an option: `-x`, `--x`, with its leading part resolved."""
    segs = word.segs
    if not segs or segs[0].unknown is not None:
        return False
    text = word.text
    return text.startswith("-") and text != "-"


_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def _flag_like(word: Str) -> bool:
    """What `guess` mode does not take as a value: a resolved `-x` that is not a number."""
    return word.known and word.text.startswith("-") and not _NUMBER.fullmatch(word.text)


def parse(words: Sequence[Str], spec: Spec) -> Args:
    """Split `words` (the arguments, without the command name) into options and positionals."""
    if spec.guess:
        return _parse_guess(tuple(words), spec)
    ws = tuple(words)
    opts: list[Opt] = []
    pos: list[Str] = []
    at: list[int] = []
    rest: int | None = None
    i, n = 0, len(ws)
    while i < n:
        w = ws[i]
        text = w.text
        if rest is not None or not is_option(w):
            if rest is None and spec.stop:
                rest = i
            if rest is not None:  # every word from here on is a positional
                pos.extend(ws[i:])
                at.extend(range(i, n))
                break
            pos.append(w)
            at.append(i)
            i += 1
            continue
        if text == "--":
            rest = i + 1
            i += 1
            continue
        if text.startswith("--") or not spec.clusters:
            name, eq, _ = text.partition("=")
            key = spec.canonical(name)
            if eq:
                opts.append(Opt(key, name, after(w, len(name) + 1), i))
            elif key in spec.values or name in spec.values:
                value = ws[i + 1] if i + 1 < n else None
                opts.append(Opt(key, name, value, i))
                i += 1
            else:
                opts.append(Opt(key, name, None, i))
            i += 1
            if key in spec.ends or name in spec.ends:
                rest = i
            continue
        # a cluster of short options: `-qU`, `-p1`, `-ofile`, `-i.bak`, `-xc CODE`
        j = 1
        ended = False
        while j < min(len(text), MAX_CLUSTER + 1):
            flag = "-" + text[j]
            key = spec.canonical(flag)
            takes = flag in spec.values or key in spec.values
            optional = flag in spec.optional or key in spec.optional
            if takes or optional:
                if j + 1 < len(text):
                    opts.append(Opt(key, flag, after(w, j + 1), i))
                elif takes:
                    opts.append(Opt(key, flag, ws[i + 1] if i + 1 < n else None, i))
                    i += 1
                else:
                    opts.append(Opt(key, flag, None, i))
                ended = key in spec.ends or flag in spec.ends
                break
            opts.append(Opt(key, flag, None, i))
            j += 1
        i += 1
        if ended:
            rest = i
    return Args(ws, tuple(opts), tuple(pos), tuple(at), rest)


def _parse_guess(ws: tuple[Str, ...], spec: Spec) -> Args:
    """Engine and benchmark CLIs (argparse with hundreds of flags, few of them listed)."""
    opts: list[Opt] = []
    pos: list[Str] = []
    at: list[int] = []
    i, n = 0, len(ws)
    while i < n:
        w = ws[i]
        text = w.text
        if text.startswith("--") and (w.known or "=" in text):
            name, eq, _ = text.partition("=")
            key = spec.canonical(name)
            if eq:
                opts.append(Opt(key, name, after(w, len(name) + 1), i))
                i += 1
                continue
            nxt = ws[i + 1] if i + 1 < n else None
            switch = (
                name in spec.bools
                or key in spec.bools
                or (spec.bool_re is not None and spec.bool_re.match(name) is not None)
            )
            if nxt is not None and not _flag_like(nxt) and not switch:
                opts.append(Opt(key, name, nxt, i))
                i += 2
                continue
            opts.append(Opt(key, name, None, i))
        elif _flag_like(w) and text != "-":
            opts.append(Opt(spec.canonical(text), text, None, i))
        else:
            pos.append(w)
            at.append(i)
        i += 1
    return Args(ws, tuple(opts), tuple(pos), tuple(at), None)


def option(words: Sequence[Str], spec: Spec | str, *names: str) -> Str | None:
    """The value of the last of `names` in `words` read with `spec` (or `SPECS[spec]`)."""
    s = SPECS.get(spec, Spec()) if isinstance(spec, str) else spec
    return parse(words, s).option(*names)


@dataclass(frozen=True)
class Unwrapped:
    """The command a line really runs, after its wrappers."""

    words: tuple[Str, ...]  # the command and its arguments
    start: int  # index of the command in the original words
    wrappers: tuple[str, ...]  # the wrappers stripped, outermost first
    env: tuple[Str, ...]  # `A=1` assignments the wrappers set (`env A=1`, `sudo A=1`)
    module: bool = False  # `python -m MODULE`: words[0] is the module name

    @property
    def name(self) -> str:
        """The command's base name; "" when it is not resolved."""
        head = self.words[0].value if self.words else None
        return head.rsplit("/", 1)[-1] if head else ""


_ASSIGN = re.compile(r"^[A-Za-z_]\w*=")
_PYTHON_NAME = re.compile(r"^python(\d+(\.\d+)*)?$")


def is_python(name: str) -> bool:
    """`python`, `python3`, `python3.12`."""
    return _PYTHON_NAME.match(name) is not None


def base(word: Str) -> str:
    """The base name of a resolved word (`/usr/bin/pip3` -> `pip3`); "" when unresolved."""
    v = word.value
    return v.rsplit("/", 1)[-1] if v else ""


def unwrap(words: Sequence[Str], modules: bool = True) -> Unwrapped:
    """`sudo -E env A=1 timeout 60 python3 -m pip install x` -> `pip install x`.

    A wrapper is stripped only when its command is found after it: `nohup` alone
    stays `nohup`, `command -v pip` (a query) stays `command`. With `modules`,
    `python -m MODULE args` is read as the module run with its arguments."""
    ws = words if isinstance(words, tuple) else tuple(words)
    head = base(ws[0]) if ws else ""
    if head not in WRAPPERS and not (modules and is_python(head)):
        return Unwrapped(ws, 0, (), ())  # the common case: nothing to strip
    start = 0
    stripped: list[str] = []
    env: list[Str] = []
    while start < len(ws) and len(stripped) < MAX_WRAPPERS:
        head = base(ws[start])
        wrapper = WRAPPERS.get(head)
        if wrapper is None or not ws[start].known:
            break
        args = parse(ws[start + 1 :], wrapper.spec)
        if any(args.has(q) for q in wrapper.queries):
            break
        k = args.rest if args.rest is not None else len(args.words)
        if wrapper.subcommands:
            if k >= len(args.words) or args.words[k].text not in wrapper.subcommands:
                break
            args = parse(args.words[k + 1 :], wrapper.spec)
            offset = start + 1 + k + 1
            k = args.rest if args.rest is not None else len(args.words)
        else:
            offset = start + 1
        cmd = offset + k
        sets: list[Str] = []
        if wrapper.assignments:
            while cmd < len(ws) and ws[cmd].known and _ASSIGN.match(ws[cmd].text):
                sets.append(ws[cmd])
                cmd += 1
        cmd += wrapper.leading
        if cmd >= len(ws):
            break
        stripped.append(head)
        env.extend(sets)
        start = cmd
    out = Unwrapped(ws[start:], start, tuple(stripped), tuple(env))
    if modules and out.words and is_python(out.name):
        py = parse(out.words[1:], SPECS["python"])
        first = py.first("-m", "-c")
        if first is not None and first.name == "-m" and first.value is not None:
            after_value = py.rest if py.rest is not None else len(py.words)
            attached = after_value == first.index + 1  # `-mpip`
            at = start + 1 + first.index + (0 if attached else 1)
            words = (first.value, *py.words[after_value:])
            return Unwrapped(words, at, (*out.wrappers, out.name), out.env, module=True)
    return out


# ---------------------------------------------------------------- pip install

ReqKind = Literal["name", "vcs", "url", "path", "unparsed"]
_VCS = ("git+", "hg+", "svn+", "bzr+")
_ARCHIVES = (".tar.gz", ".zip", ".tar.bz2", ".tgz")
# a PEP 508 requirement starts with a name, then extras, a version, a marker or `@ URL`
_NAMED = re.compile(r"^[A-Za-z0-9][\w.-]*\s*(\[[^\]]*\]\s*)?($|[<>=!~;@(])")


@dataclass(frozen=True)
class Req:
    """One requirement as pip reads it: PEP 508 (`vllm>=0.8`, `x @ URL`), a URL, a VCS
    reference, a local path, or `unparsed` (with the reason) when it is none of them."""

    text: str
    kind: ReqKind
    name: str | None  # the distribution named, as written; None when unknown
    specifier: str = ""
    extras: tuple[str, ...] = ()
    marker: str = ""
    url: str = ""  # vcs / url: the location (without `name @`)
    ref: str = ""  # vcs: the revision after `@`
    reason: str = ""  # unparsed: why


def _leaf_name(spec: str) -> str | None:
    """The distribution a URL, wheel, archive or directory names."""
    m = re.search(r"[#&]egg=([\w.-]+)", spec)
    if m:
        return m.group(1)
    path = re.sub(r"[?#].*$", "", spec).rstrip("/")
    if "://" in path:
        path = path.split("://", 1)[1]
        path = re.sub(r"@[^/]*$", "", path)  # git+https://host/org/repo.git@ref
    parts = [p for p in path.split("/") if p]
    leaf = parts[-1] if parts else path
    if leaf.endswith(".whl"):
        return leaf.split("-", 1)[0]
    for ext in _ARCHIVES:
        if leaf.endswith(ext):
            stem = leaf[: -len(ext)]
            # github archives: /org/repo/archive/<ref>.tar.gz
            if len(parts) >= 3 and parts[-2] == "archive":
                return parts[-3]
            return stem.rsplit("-", 1)[0] if "-" in stem else stem
    if leaf.endswith(".git"):
        return leaf[:-4]
    return leaf or None


def _vcs_ref(url: str) -> str:
    path = re.sub(r"#.*$", "", url).split("://", 1)[-1]
    m = re.search(r"@([^/@]+)$", path)
    return m.group(1) if m else ""


def requirement(text: str) -> Req:
    """Read one `pip install` argument. Never raises."""
    spec = text.strip()
    if not spec:
        return Req(text, "unparsed", None, reason="empty")
    # `name @ URL`, `name[extra]>=1; marker`; `x.whl` alone is a file
    pep508 = _NAMED.match(spec) is not None and (
        "@" in spec or not spec.endswith((".whl", *_ARCHIVES))
    )
    if not pep508:
        if spec.startswith(_VCS):
            return Req(text, "vcs", _leaf_name(spec), url=spec, ref=_vcs_ref(spec))
        if "://" in spec:
            return Req(text, "url", _leaf_name(spec), url=spec)
        if spec.rstrip("/") in (".", ".."):
            return Req(text, "path", None)
        if "/" in spec or spec.startswith("~") or spec.endswith((".whl", *_ARCHIVES)):
            return Req(text, "path", _leaf_name(spec))
    # on first use: most recipes install nothing, and `packaging` takes a while to load
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(spec)
    except InvalidRequirement as exc:
        return Req(text, "unparsed", None, reason=(str(exc).splitlines() or [""])[0])
    except Exception as exc:  # hostile input must not crash a lint
        return Req(text, "unparsed", None, reason=type(exc).__name__)
    url = req.url or ""
    kind: ReqKind = "name"
    if url:
        kind = "vcs" if url.startswith(_VCS) else "url" if "://" in url else "path"
    return Req(
        text,
        kind,
        req.name,
        specifier=str(req.specifier),
        extras=tuple(sorted(req.extras)),
        marker=str(req.marker) if req.marker is not None else "",
        url=url,
        ref=_vcs_ref(url) if kind == "vcs" else "",
    )


@dataclass(frozen=True)
class Install:
    """One requirement argument of `pip install`: the word as written and how it reads."""

    word: Str
    editable: bool
    req: Req | None  # None when the word is not resolved


@dataclass(frozen=True)
class PipInstall:
    tool: Literal["pip", "uv pip"]
    args: Args  # the arguments after `install`
    installs: tuple[Install, ...]  # positionals first, then `-e` editables
    requirement_files: tuple[Str, ...]
    constraint_files: tuple[Str, ...]
    index_url: Str | None
    extra_index_urls: tuple[Str, ...]
    find_links: tuple[Str, ...]

    @property
    def indexes(self) -> tuple[Str, ...]:
        """Every index or find-links location the install may read, in that order."""
        first = (self.index_url,) if self.index_url is not None else ()
        return first + self.extra_index_urls + self.find_links


_PIP_NAME = re.compile(r"pip(\d+(\.\d+)*)?")


def pip_install(words: Sequence[Str]) -> PipInstall | None:
    """`pip install ...`, `pip3 install`, `python -m pip install`, `uv pip install`, behind any
    wrapper; None when the line is not a pip install."""
    run = unwrap(words)
    ws = run.words
    name = run.name
    if name == "uv" and not run.module:
        top = parse(ws[1:], SPECS["uv"])
        k = top.rest
        if k is None or top.words[k].text != "pip":
            return None
        return _install("uv pip", top.words[k + 1 :], "uv pip")
    if _PIP_NAME.fullmatch(name):
        return _install("pip", ws[1:], "pip")
    return None


def _install(
    tool: Literal["pip", "uv pip"], words: Sequence[Str], spec_name: str
) -> PipInstall | None:
    top = parse(words, SPECS[spec_name])
    k = top.rest
    if k is None or top.words[k].text != "install":
        return None
    args = parse(top.words[k + 1 :], SPECS[f"{spec_name} install"])
    installs = [
        Install(w, False, requirement(w.text) if w.known else None) for w in args.positionals
    ]
    installs += [
        Install(w, True, requirement(w.text) if w.known else None)
        for w in args.values("--editable")
    ]
    return PipInstall(
        tool=tool,
        args=args,
        installs=tuple(installs),
        requirement_files=tuple(args.values("--requirement")),
        constraint_files=tuple(args.values("--constraint")),
        index_url=args.option("--index-url", "--default-index"),
        extra_index_urls=tuple(args.values("--extra-index-url", "--index")),
        find_links=tuple(args.values("--find-links")),
    )


def literal_words(texts: Iterable[str]) -> list[Str]:
    """Resolved words from plain strings (tests, and code that builds argv by hand)."""
    return [Str.lit(t) for t in texts]


__all__ = [
    "ENGINE_BOOL_RE",
    "SPECS",
    "WRAPPERS",
    "Args",
    "Install",
    "Opt",
    "PipInstall",
    "Req",
    "Spec",
    "Unwrapped",
    "Wrapper",
    "after",
    "base",
    "is_option",
    "is_python",
    "literal_words",
    "option",
    "parse",
    "pip_install",
    "requirement",
    "spec_for",
    "unwrap",
]
