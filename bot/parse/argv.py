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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement

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


def _fs(names: str) -> frozenset[str]:
    """A set of flags written as one space-separated string (the tables stay readable)."""
    return frozenset(names.split())


@dataclass(frozen=True)
class Spec:
    """How one command reads its arguments.

    `values`: options that take a value (`-o FILE`, `-oFILE`, `--output FILE`,
    `--output=FILE`). `optional`: options whose value can only be attached
    (`sed -i.bak`, `--in-place=.bak`). `aliases`: other spellings, mapped to the name
    rules ask for. `clusters`: short options combine (`-qU`, `-xvf`; a value option
    ends the cluster and takes its rest). `stop`: options end at the first positional
    (`bash`, `sudo`, `python`, `git` before its subcommand). `ends`: options after
    which every word is a positional (`python -c CODE args...`). `guess`: the tool's
    flags are not listed (engine and benchmark CLIs): a `--flag` takes the next word
    unless that looks like a flag or the flag is in `bools` or matches `bool_re`.
    """

    values: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    aliases: Mapping[str, str] = field(default_factory=dict)
    clusters: bool = True
    stop: bool = False
    ends: frozenset[str] = frozenset()
    guess: bool = False
    bools: frozenset[str] = frozenset()
    bool_re: re.Pattern[str] | None = None

    def canonical(self, name: str) -> str:
        return self.aliases.get(name, name)


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


# ----------------------------------------------------------------------- specs

# Flags that take no value on the engine command lines (`vllm serve`, `sglang.launch_server`,
# `trtllm-serve`, ATOM): the rest of `--flag value` is read by `guess`.
ENGINE_BOOL_RE = re.compile(
    r"^--(enable|disable|no)[-_]|^--(trust[-_]remote[-_]code|language-model-only|"
    r"enforce-eager|async-scheduling|use-chat-template|apply-chat-template|"
    r"enable-auto-tool-choice|skip-server-warmup|disable-radix-cache)$"
)

_PIP_VALUES = _fs(
    "-r --requirement -c --constraint -e --editable -i --index-url "
    "--extra-index-url -f --find-links -t --target --prefix --root --python "
    "--src --cache-dir --log --timeout --retries --trusted-host "
    "--upgrade-strategy --progress-bar --platform --python-version "
    "--implementation --abi --global-option --config-settings -C --proxy "
    "--cert --client-cert --exists-action --no-binary --only-binary "
    "--use-feature --use-deprecated --keyring-provider --report --group"
)
_PIP_ALIASES = {
    "-r": "--requirement",
    "-c": "--constraint",
    "-e": "--editable",
    "-i": "--index-url",
    "-f": "--find-links",
    "-t": "--target",
    "-C": "--config-settings",
    "-U": "--upgrade",
}
_UV_PIP_VALUES = _PIP_VALUES | _fs(
    "--index --default-index --index-strategy --torch-backend -p --resolution "
    "--prerelease --exclude-newer --link-mode --extra -P --upgrade-package "
    "--reinstall-package --no-build-isolation-package --python-platform "
    "--override --build-constraint -b --refresh-package --no-binary-package "
    "--only-binary-package --directory --project --config-file --color "
    "--allow-insecure-host"
)
_GIT_GLOBAL = Spec(
    values=_fs("-C -c --git-dir --work-tree --namespace --config-env"),
    optional=_fs("--exec-path --list-cmds"),
    stop=True,
)
_PYTHON = Spec(values=_fs("-c -m -X -W --check-hash-based-pycs"), ends=_fs("-c -m"), stop=True)
_SHELL = Spec(
    values=_fs("-o -O --rcfile --init-file"),
    aliases={"--init-file": "--rcfile"},
    stop=True,
)

SPECS: Mapping[str, Spec] = {
    "pip": Spec(
        values=_fs(
            "--python --log --cache-dir --timeout --retries --proxy --cert "
            "--client-cert --exists-action --trusted-host --use-feature "
            "--use-deprecated --keyring-provider"
        ),
        stop=True,
    ),
    "pip install": Spec(values=_PIP_VALUES, aliases=_PIP_ALIASES),
    "uv": Spec(
        values=_fs(
            "--directory --project --config-file --cache-dir --color --python -p "
            "--allow-insecure-host"
        ),
        stop=True,
    ),
    "uv pip": Spec(values=_fs("--directory --project --config-file --cache-dir"), stop=True),
    "uv pip install": Spec(
        values=_UV_PIP_VALUES,
        aliases={**_PIP_ALIASES, "-p": "--python", "-b": "--build-constraint"},
    ),
    "python": _PYTHON,
    "bash": _SHELL,
    "sh": _SHELL,
    "zsh": _SHELL,
    "git": _GIT_GLOBAL,
    "git apply": Spec(
        values=_fs("-p -C --directory --exclude --include --whitespace"),
        optional=_fs("--build-fake-ancestor"),
    ),
    "git am": Spec(
        values=_fs("-p -C --directory --exclude --include --whitespace -S"),
        optional=_fs("--gpg-sign --quoted-cr --patch-format"),
    ),
    "git clone": Spec(
        values=_fs(
            "-b --branch -o --origin -c --config --depth --reference "
            "--reference-if-able --separate-git-dir -j --jobs -u --upload-pack "
            "--shallow-since --shallow-exclude --server-option --bundle-uri "
            "--revision --template --filter"
        ),
        optional=_fs("--recurse-submodules"),
        aliases={"-b": "--branch", "-o": "--origin", "-c": "--config", "-j": "--jobs"},
    ),
    "patch": Spec(
        values=_fs(
            "-p --strip -d --directory -i --input -o --output -r --reject-file -B "
            "--prefix -D --ifdef -F --fuzz -V --version-control -Y --basename-prefix "
            "-z --suffix -g --get --quoting-style"
        ),
        aliases={"-d": "--directory", "-p": "--strip", "-i": "--input", "-o": "--output"},
    ),
    "sed": Spec(
        values=_fs("-e --expression -f --file -l --line-length"),
        optional=_fs("-i --in-place"),
        aliases={"-e": "--expression", "-f": "--file", "-i": "--in-place", "-l": "--line-length"},
    ),
    "cp": Spec(
        values=_fs("-t --target-directory -S --suffix"),
        optional=_fs("--backup --preserve --reflink --sparse --no-preserve"),
        aliases={"-t": "--target-directory", "-S": "--suffix"},
    ),
    "mv": Spec(
        values=_fs("-t --target-directory -S --suffix"),
        optional=_fs("--backup"),
        aliases={"-t": "--target-directory", "-S": "--suffix"},
    ),
    "ln": Spec(
        values=_fs("-t --target-directory -S --suffix"),
        optional=_fs("--backup"),
        aliases={"-t": "--target-directory", "-S": "--suffix"},
    ),
    "install": Spec(
        values=_fs(
            "-t --target-directory -S --suffix -m --mode -o --owner -g --group --strip-program"
        ),
        optional=_fs("--backup --context"),
        aliases={"-t": "--target-directory", "-S": "--suffix", "-m": "--mode"},
    ),
    "rsync": Spec(
        values=_fs(
            "-e --rsh -f --filter --exclude --include --exclude-from --include-from "
            "--files-from -B --block-size -T --temp-dir --chmod --chown --rsync-path "
            "--backup-dir --suffix --compare-dest --copy-dest --link-dest --log-file "
            "--password-file --bwlimit --timeout --contimeout --port --max-size "
            "--min-size --max-delete --partial-dir --out-format --usermap --groupmap "
            "--iconv"
        ),
        optional=_fs("--info --debug"),
    ),
    "tee": Spec(optional=_fs("--output-error")),
    "curl": Spec(
        values=_fs(
            "-o --output -d --data --data-raw --data-binary --data-urlencode -H "
            "--header -X --request -u --user -A --user-agent -e --referer -b --cookie "
            "-c --cookie-jar -x --proxy -T --upload-file -F --form -m --max-time -w "
            "--write-out -K --config -E --cert -C --continue-at -r --range -Y "
            "--speed-limit -y --speed-time -z --time-cond -U --proxy-user -Q --quote "
            "--url --retry --retry-delay --retry-max-time --connect-timeout "
            "--output-dir --cacert --capath --key --limit-rate --max-filesize "
            "--resolve --interface --json"
        ),
        aliases={"-o": "--output"},
    ),
    "wget": Spec(
        values=_fs(
            "-O --output-document -P --directory-prefix -o --output-file -a "
            "--append-output -i --input-file -B --base -t --tries -T --timeout -w "
            "--wait -e --execute -U --user-agent -Q --quota -l --level -A --accept -R "
            "--reject -D --domains --header --user --password --post-data --post-file "
            "--limit-rate --bind-address"
        ),
        aliases={"-O": "--output-document", "-P": "--directory-prefix"},
    ),
    "tar": Spec(values=_fs("-f --file -C --directory -T --files-from -X")),
    "awk": Spec(values=_fs("-F --field-separator -v --assign -f --file")),
    # engine and benchmark-client command lines: argparse, flags read by `guess`
    "engine": Spec(guess=True, bool_re=ENGINE_BOOL_RE),
    "benchmark-client": Spec(
        guess=True,
        bool_re=ENGINE_BOOL_RE,
        bools=_fs(
            "--ignore-eos --save-result --streaming --profile --disable-tqdm "
            "--trust-remote-code --use-server-token-count"
        ),
    ),
}


def spec_for(command: str) -> Spec:
    """The spec of a command (`"git apply"`, `"sed"`); an unknown one has no value options."""
    return SPECS.get(command, Spec())


# --------------------------------------------------------------------- wrappers


@dataclass(frozen=True)
class Wrapper:
    """A command that runs another: its options, then `leading` positionals, then the command."""

    spec: Spec = Spec(stop=True)
    leading: int = 0  # positionals before the command (`timeout 60 cmd`, `taskset 0xff cmd`)
    assignments: bool = False  # `env A=1 B=2 cmd`, `sudo A=1 cmd`
    subcommands: frozenset[str] = frozenset()  # `nsys profile cmd`, `uv run cmd`
    queries: frozenset[str] = frozenset()  # options that make it run nothing (`command -v`)


def _w(
    values: str = "",
    leading: int = 0,
    assignments: bool = False,
    queries: frozenset[str] = frozenset(),
) -> Wrapper:
    spec = Spec(values=_fs(values), stop=True)
    return Wrapper(spec, leading=leading, assignments=assignments, queries=queries)


WRAPPERS: Mapping[str, Wrapper] = {
    "sudo": _w(
        "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r "
        "--role -t --type -T --command-timeout -U --other-user",
        assignments=True,
        queries=_fs(
            "-l --list -v --validate -k --reset-timestamp -K --remove-timestamp -V --version"
        ),
    ),
    "env": _w("-u --unset -C --chdir -S --split-string", assignments=True),
    "nohup": _w(),
    "setsid": _w(),
    "command": _w(queries=_fs("-v -V")),
    "exec": _w("-a"),
    "nice": _w("-n --adjustment"),
    "ionice": _w("-c --class -n --classdata -p -P -u"),
    "stdbuf": _w("-i --input -o --output -e --error"),
    "timeout": _w("-s --signal -k --kill-after", leading=1),
    "time": _w("-f --format -o --output"),
    "taskset": _w(leading=1, queries=_fs("-p --pid")),
    "numactl": _w(
        "-C --physcpubind -N --cpunodebind -m --membind -p --preferred -i "
        "--interleave -w --weighted-interleave --preferred-many"
    ),
    "mpirun": Wrapper(
        Spec(
            values=_fs(
                "-np -n -c -N -H --host -host -x --map-by -map-by --bind-to -bind-to "
                "--hostfile -hostfile --machinefile -machinefile --rankfile -wdir --wdir "
                "-ppn --npernode -npernode --prefix -genv --output-filename"
            ),
            clusters=False,
            stop=True,
        )
    ),
    "srun": _w(
        "-N --nodes -n --ntasks -c --cpus-per-task -G --gpus -p --partition -w "
        "--nodelist -t --time -J --job-name -o --output -e --error -A --account "
        "--mpi --container-image --container-mounts --container-name "
        "--container-workdir --container-env --gres --mem --ntasks-per-node "
        "--gpus-per-node --export --overlap --jobid -D --chdir --cpu-bind "
        "--distribution -m --exclude -x --qos -q"
    ),
    "trtllm-llmapi-launch": _w(),
    "python_launcher": _w(),
    "nsys": Wrapper(
        Spec(
            values=_fs(
                "-o --output -t --trace -s --sample -c --capture-range "
                "--capture-range-end -d --duration -y --delay -w --show-output -f "
                "--force-overwrite -e --env-var --cuda-memory-usage --cudabacktrace "
                "--gpu-metrics-devices --session-new -x --stop-on-exit "
                "--trace-fork-before-exec --kill --stats"
            ),
            stop=True,
        ),
        subcommands=_fs("profile launch"),
    ),
    "uv": Wrapper(
        Spec(
            values=_fs(
                "--with --with-editable --with-requirements -p --python --project "
                "--directory --env-file --extra --group --only-group --no-group --package "
                "--index --default-index --index-url --extra-index-url -f --find-links "
                "--python-platform -C --config-setting --config-file --cache-dir --color "
                "--index-strategy --resolution --prerelease --exclude-newer --link-mode "
                "--refresh-package -P --upgrade-package --reinstall-package "
                "--allow-insecure-host"
            ),
            stop=True,
        ),
        subcommands=_fs("run"),
    ),
}


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
        py = parse(out.words[1:], _PYTHON)
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
    tool: str  # "pip" | "uv pip"
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


def _install(tool: str, words: Sequence[Str], spec_name: str) -> PipInstall | None:
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
