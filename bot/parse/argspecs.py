"""What each command's arguments are, as data: one `Spec` per command, one `Wrapper`
per prefix command. Pure.

`bot.parse.argv` reads command lines with these tables (`parse(words, spec)`,
`unwrap(words)`); they live here so that the reader stays short and the tables stay
readable. `argv` re-exports `Spec`, `SPECS`, `spec_for`, `Wrapper` and `WRAPPERS`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field

from bot.base.records import dataclass


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
