"""`bot.parse.argv` and `bot.parse.commands`: command lines read as the tools read them.

Table-driven: each row is an argv (already split into words, as the interpreter
hands it over), a spec name and what the tool would take from it. Hostile rows
(huge argv, a megabyte-long cluster, unicode, `--flag=` empty, repeated flags,
quotes left unbalanced by the tokenizer) must parse without raising and give
the answer the real tool would.
"""

from __future__ import annotations

import pytest

from bot.parse import argv, commands
from bot.parse.argv import literal_words, parse, requirement
from bot.parse.recipe import parse_recipe
from bot.parse.values import Seg, Str

W = literal_words


def unknown(expr: str) -> Str:
    return Str.unknown_of(expr, 3, 5)


def opts(words: list[str], spec: str) -> list[tuple[str, str | None]]:
    args = parse(W(words), argv.spec_for(spec))
    return [(o.name, o.value.text if o.value is not None else None) for o in args.opts]


def positionals(words: list[str], spec: str) -> list[str]:
    return [w.text for w in parse(W(words), argv.spec_for(spec)).positionals]


# --------------------------------------------------------------- option reading

OPTION_CASES = [
    # (spec, argv, flag asked for, value the tool reads)
    ("patch", ["-p1", "-d", "/site", "--forward"], "--directory", "/site"),
    ("patch", ["-p1", "-d/site"], "--directory", "/site"),  # attached short value
    ("patch", ["--directory=/site"], "--directory", "/site"),
    ("patch", ["--directory", "/site"], "--directory", "/site"),
    ("patch", ["-Np1", "-d", "/site"], "--strip", "1"),  # cluster ending in a value flag
    ("patch", ["-d", "/a", "-d", "/b"], "--directory", "/b"),  # repeated: the last wins
    ("patch", ["--directory="], "--directory", ""),  # `--flag=` empty: given, empty
    ("patch", ["-d"], "--directory", None),  # value flag at the end of argv
    ("patch", ["--", "-d", "/x"], "--directory", None),  # `--` ends options
    ("sed", ["-i.bak", "s/a/b/", "f"], "--in-place", ".bak"),  # optional attached value
    ("sed", ["-ie", "s/a/b/", "f"], "--in-place", "e"),  # GNU: suffix `e`, not -e
    ("sed", ["-ne", "s/a/b/p", "f"], "--expression", "s/a/b/p"),
    ("sed", ["--in-place=.orig", "s/a/b/", "f"], "--in-place", ".orig"),
    ("curl", ["-sSLo", "/tmp/x", "https://h/x"], "--output", "/tmp/x"),
    ("curl", ["-fsSL", "https://h/x", "--output", "o"], "--output", "o"),
    ("wget", ["-qO-", "https://h/x"], "--output-document", "-"),
    ("wget", ["-P", "/d", "https://h/x"], "--directory-prefix", "/d"),
    ("pip install", ["-qU", "-i", "https://idx", "vllm"], "--index-url", "https://idx"),
    ("pip install", ["-rreq.txt"], "--requirement", "req.txt"),
    ("pip install", ["-e", "."], "--editable", "."),
    ("cp", ["-t", "/dst", "a", "b"], "--target-directory", "/dst"),
    ("rsync", ["-avt", "a", "b"], "--target-directory", None),  # rsync -t is --times
    ("git apply", ["--directory=lib", "x.diff"], "--directory", "lib"),
    ("python", ["-X", "dev", "-m", "pip"], "-m", "pip"),
    ("python", ["-uc", "print(1)"], "-c", "print(1)"),  # cluster ending in -c
    ("python", ["script.py", "-c", "x"], "-c", None),  # options end at the script
    ("engine", ["--tp", "8", "--enable-x", "--y", "-1"], "--y", "-1"),  # negative number
    ("engine", ["--model", "m", "--port"], "--port", None),
    ("engine", ["--enable-x", "8"], "--enable-x", None),  # a switch takes no value
    ("engine", ["--cfg", "--other"], "--cfg", None),  # the next word is a flag
]


@pytest.mark.parametrize(("spec", "words", "flag", "value"), OPTION_CASES)
def test_option_value(spec: str, words: list[str], flag: str, value: str | None) -> None:
    got = argv.option(W(words), spec, flag)
    assert (got.text if got is not None else None) == value


POSITIONAL_CASES = [
    ("patch", ["-p1", "-d", "/site", "--forward"], []),
    ("sed", ["-i", "-e", "s/a/b/", "f1", "f2"], ["f1", "f2"]),
    ("sed", ["-i", "s/a/b/", "f1"], ["s/a/b/", "f1"]),
    ("cp", ["-r", "--preserve=mode", "src", "dst"], ["src", "dst"]),
    ("install", ["-m", "644", "-o", "root", "a", "/b"], ["a", "/b"]),
    ("rsync", ["-e", "ssh -p 22", "a", "host:b"], ["a", "host:b"]),
    ("tee", ["-a", "--output-error=warn", "f"], ["f"]),
    ("bash", ["-ex", "-o", "pipefail", "run.sh", "-c", "x"], ["run.sh", "-c", "x"]),
    ("pip install", ["--no-binary", ":all:", "x", "--", "-weird"], ["x", "-weird"]),
    (
        "git",
        ["-C", "/r", "-c", "a=b", "clone", "--depth", "1", "u"],
        ["clone", "--depth", "1", "u"],
    ),
    ("git clone", ["--depth", "1", "-b", "main", "https://h/r.git", "d"], ["https://h/r.git", "d"]),
    ("awk", ["-F", ":", "BEGIN{print 1}"], ["BEGIN{print 1}"]),
    ("nothing-known", ["-x", "a", "--y", "b"], ["a", "b"]),  # no spec: switches only
    ("engine", ["--model", "m", "positional", "-tp", "8"], ["positional", "8"]),
]


@pytest.mark.parametrize(("spec", "words", "expected"), POSITIONAL_CASES)
def test_positionals(spec: str, words: list[str], expected: list[str]) -> None:
    assert positionals(words, spec) == expected


def test_aliases_map_to_the_name_rules_ask_for() -> None:
    assert opts(["-o", "a", "--output", "b"], "curl") == [("--output", "a"), ("--output", "b")]
    args = parse(W(["-o", "a", "--output", "b"]), argv.spec_for("curl"))
    assert [o.written for o in args.opts] == ["-o", "--output"]
    assert [v.text for v in args.values("--output")] == ["a", "b"]
    assert args.has("--output") and not args.has("-o")


def test_values_keep_their_source_position() -> None:
    word = Str((Seg("--directory=", 7, 3), Seg("$SITE", 7, 15, unknown="$SITE")))
    value = argv.option([word], "patch", "--directory")
    assert value is not None and not value.known and value.text == "$SITE"
    assert value.span is not None and (value.span.line, value.span.col) == (7, 15)
    attached = argv.option([Str.lit("-d/opt/x", 4, 9)], "patch", "--directory")
    assert attached is not None and attached.segs[0].col == 11


def test_an_unresolved_word_is_never_an_option() -> None:
    args = parse([unknown("$FLAGS"), Str.lit("-d"), Str.lit("/x")], argv.spec_for("patch"))
    assert [w.text for w in args.positionals] == ["$FLAGS"]
    assert args.option("--directory") is not None
    # a resolved prefix with an unresolved value is an option
    word = Str((Seg("--directory="), Seg("$D", unknown="$D")))
    assert argv.is_option(word) and not argv.is_option(unknown("-$X"))


def test_after_cuts_segments_and_keeps_unknown_parts() -> None:
    word = Str((Seg("A=", 2, 1), Seg("x", 2, 3), Seg("$Y", 2, 4, unknown="$Y")))
    out = argv.after(word, 2)
    assert out.text == "x$Y" and not out.known and out.segs[0].col == 3
    assert argv.after(word, 3).segs[0].col == 4 and argv.after(word, 99).text == ""
    assert argv.after(Str.lit("--k=v", 1, 10), 4).segs[0].col == 14


# -------------------------------------------------------------------- hostile


def test_huge_argv_is_read_to_the_end() -> None:
    words = W(["-d", "/a"] * 50_000 + ["-p1", "f.diff"])
    args = parse(words, argv.spec_for("patch"))
    assert len(args.opts) == 50_001
    assert args.option("--directory") is not None and args.option("--directory").text == "/a"
    assert [w.text for w in args.positionals] == ["f.diff"]
    flags = W([f"--flag-{i}" for i in range(100_000)] + ["--model", "m"])
    assert argv.option(flags, "engine", "--model") == Str.lit("m")


def test_megabyte_cluster_and_deep_wrappers_stay_bounded() -> None:
    args = parse(W(["-" + "x" * 1_000_000]), argv.spec_for("patch"))
    assert len(args.opts) == argv.MAX_CLUSTER
    deep = W(["nohup"] * 100_000 + ["vllm", "serve"])
    run = argv.unwrap(deep)
    assert len(run.wrappers) == argv.MAX_WRAPPERS and run.words[0].text == "nohup"
    assert len(run.words) == 100_000 - argv.MAX_WRAPPERS + 2


HOSTILE = [
    ["--flag=", "--flag", "=", "-", "--", "---", "-=", "--=x"],
    ['"unbalanced', "it's", "'", '"', "\\", "$(", "`"],
    ["—dash", "−d", "-ä", "--ünïcödé=ß", "-🙂", "\u200b-d", "-\x00"],
    ["-" * 500, "=" * 500, "--" + "a" * 10_000 + "=" + "b" * 10_000],
    [],
]


@pytest.mark.parametrize("words", HOSTILE)
@pytest.mark.parametrize("spec", sorted(argv.SPECS))
def test_hostile_argv_never_raises(spec: str, words: list[str]) -> None:
    args = parse(W(words), argv.SPECS[spec])
    seen = {o.index for o in args.opts} | set(args.positions)
    assert all(0 <= i < len(words) for i in seen)
    for name in {o.name for o in args.opts}:
        args.option(name)
    argv.unwrap(W(words))
    argv.pip_install(W(["pip", "install", *words]))


def test_unicode_flags_are_read_as_written() -> None:
    assert opts(["--ünïcödé=ß", "-ä"], "engine") == [("--ünïcödé", "ß"), ("-ä", None)]
    # an en dash is not a dash: the word is a positional
    assert positionals(["—d", "/x"], "patch") == ["—d", "/x"]


# ------------------------------------------------------------------- wrappers

UNWRAP_CASES = [
    (["sudo", "-E", "pip", "install", "x"], ["pip", "install", "x"], ("sudo",)),
    (["sudo", "-u", "me", "sed", "-i", "s/a/b/", "f"], ["sed", "-i", "s/a/b/", "f"], ("sudo",)),
    (["env", "-u", "X", "A=1", "B=2", "patch", "-p1"], ["patch", "-p1"], ("env",)),
    (["timeout", "-s", "KILL", "600", "vllm", "serve"], ["vllm", "serve"], ("timeout",)),
    (["timeout", "600"], ["timeout", "600"], ()),  # nothing to run
    (["nohup", "nice", "-n", "5", "stdbuf", "-oL", "cmd"], ["cmd"], ("nohup", "nice", "stdbuf")),
    (["taskset", "-c", "0-7", "numactl", "--membind=0", "cmd"], ["cmd"], ("taskset", "numactl")),
    (["mpirun", "-np", "8", "--allow-run-as-root", "-x", "V", "cmd"], ["cmd"], ("mpirun",)),
    (["srun", "--container-image", "img", "-N", "1", "cmd"], ["cmd"], ("srun",)),
    (["nsys", "profile", "-o", "out", "--trace=cuda", "cmd"], ["cmd"], ("nsys",)),
    (["nsys", "stats", "report.nsys-rep"], ["nsys", "stats", "report.nsys-rep"], ()),
    (["uv", "run", "--with", "x", "-p", "3.12", "cmd"], ["cmd"], ("uv",)),
    (["uv", "pip", "install", "x"], ["uv", "pip", "install", "x"], ()),
    (["command", "-v", "pip"], ["command", "-v", "pip"], ()),  # a query runs nothing
    (["sudo", "-l"], ["sudo", "-l"], ()),
    (["/usr/bin/sudo", "cmd"], ["cmd"], ("sudo",)),
    (["python3", "-m", "pip", "install", "x"], ["pip", "install", "x"], ("python3",)),
    (["python3", "-u", "-mpip", "install"], ["pip", "install"], ("python3",)),
    (["python3", "-c", "import pip", "-m"], ["python3", "-c", "import pip", "-m"], ()),
]


@pytest.mark.parametrize(("words", "command", "wrappers"), UNWRAP_CASES)
def test_unwrap(words: list[str], command: list[str], wrappers: tuple[str, ...]) -> None:
    run = argv.unwrap(W(words))
    assert [w.text for w in run.words] == command
    assert run.wrappers == wrappers
    assert words[run.start :][1:] == command[1:] or run.module


def test_unwrap_keeps_env_assignments_and_stops_at_an_unresolved_head() -> None:
    run = argv.unwrap(W(["env", "A=1", "sudo", "B=2", "cmd"]))
    assert [e.text for e in run.env] == ["A=1", "B=2"] and run.name == "cmd"
    words = [Str.lit("sudo"), unknown("$LAUNCHER"), Str.lit("cmd")]
    assert argv.unwrap(words).words[0].text == "$LAUNCHER"
    assert argv.unwrap(words).name == ""
    assert argv.unwrap([unknown("$WRAP"), Str.lit("cmd")]).start == 0
    no_modules = argv.unwrap(W(["python3", "-m", "pip"]), modules=False)
    assert no_modules.name == "python3" and not no_modules.module


# ------------------------------------------------------------------ pip install

REQUIREMENTS = [
    # (argument, kind, name, specifier, url, ref)
    ("vllm", "name", "vllm", "", "", ""),
    ("vllm==0.8.5", "name", "vllm", "==0.8.5", "", ""),
    ("sglang[all]>=0.5.0rc0", "name", "sglang", ">=0.5.0rc0", "", ""),
    ("vllm (>=1)", "name", "vllm", ">=1", "", ""),
    ("x>=1; python_version>'3.8'", "name", "x", ">=1", "", ""),
    ("flashinfer-python", "name", "flashinfer-python", "", "", ""),
    ("sglang @ git+https://g/s.git@v1", "vcs", "sglang", "", "git+https://g/s.git@v1", "v1"),
    ("sglang@git+https://g/s.git#subdirectory=python", "vcs", "sglang", "", "git+https://g/s.git#subdirectory=python", ""),
    ("git+https://github.com/acme/sglang.git@fast-moe#subdirectory=python", "vcs", "sglang", "", "git+https://github.com/acme/sglang.git@fast-moe#subdirectory=python", "fast-moe"),
    ("git+https://h/r.git#egg=vllm", "vcs", "vllm", "", "git+https://h/r.git#egg=vllm", ""),
    ("hg+https://h/repo", "vcs", "repo", "", "hg+https://h/repo", ""),
    ("https://github.com/vllm-project/vllm/archive/abc123.tar.gz", "url", "vllm", "", "https://github.com/vllm-project/vllm/archive/abc123.tar.gz", ""),
    ("https://h/whl/vllm-0.9-cp312-linux_x86_64.whl", "url", "vllm", "", "https://h/whl/vllm-0.9-cp312-linux_x86_64.whl", ""),
    ("x @ https://h/x-1.zip", "url", "x", "", "https://h/x-1.zip", ""),
    ("x @ file:///tmp/x.whl", "url", "x", "", "file:///tmp/x.whl", ""),
    ("./dist/sglang-0.5-py3-none-any.whl", "path", "sglang", "", "", ""),
    ("sglang-0.5.tar.gz", "path", "sglang", "", "", ""),
    ("/opt/src/vllm/", "path", "vllm", "", "", ""),
    ("sglang/python", "path", "python", "", "", ""),
    ("~/vllm", "path", "vllm", "", "", ""),
    (".", "path", None, "", "", ""),
    ("../", "path", None, "", "", ""),
]  # fmt: skip


@pytest.mark.parametrize(("text", "kind", "name", "specifier", "url", "ref"), REQUIREMENTS)
def test_requirement(
    text: str, kind: str, name: str | None, specifier: str, url: str, ref: str
) -> None:
    req = requirement(text)
    assert (req.kind, req.name, req.specifier, req.url, req.ref) == (
        kind,
        name,
        specifier,
        url,
        ref,
    )
    assert req.text == text and req.reason == ""


def test_requirement_extras_and_markers_come_from_packaging() -> None:
    req = requirement("vllm[audio,video]>=0.8; platform_system == 'Linux'")
    assert req.extras == ("audio", "video") and req.marker == 'platform_system == "Linux"'


@pytest.mark.parametrize(
    "text",
    ["", "   ", "vllm==", "a b", "name @ ", "été", "-e", "vllm>=1;;", "x[", "=" * 5000, "\x00"],
)
def test_bad_requirements_are_unparsed_never_an_exception(text: str) -> None:
    req = requirement(text)
    assert req.kind == "unparsed" and req.name is None and req.reason


PIP_CASES = [
    # (argv, tool, installs as (text, editable), index_url, extra indexes, requirement files)
    (["pip", "install", "-q", "datasets", "pandas"], "pip", [("datasets", False), ("pandas", False)], None, [], []),
    (["pip3", "install", "-U", "-e", ".", "x"], "pip", [("x", False), (".", True)], None, [], []),
    (["python3", "-m", "pip", "install", "--index-url=https://i", "vllm"], "pip", [("vllm", False)], "https://i", [], []),
    (["sudo", "-E", "pip", "--timeout", "60", "install", "-r", "req.txt", "-c", "c.txt"], "pip", [], None, [], ["req.txt"]),
    (["pip", "install", "--extra-index-url", "https://a", "--extra-index-url", "https://b", "-f", "https://f", "x"], "pip", [("x", False)], None, ["https://a", "https://b", "https://f"], []),
    (["uv", "pip", "install", "--system", "--index", "https://u", "sglang[all]"], "uv pip", [("sglang[all]", False)], None, ["https://u"], []),
    (["uv", "pip", "install", "--default-index", "https://d", "-e", "./python"], "uv pip", [("./python", True)], "https://d", [], []),
    (["env", "PIP_NO_CACHE_DIR=1", "pip", "install", "--no-binary", ":all:", "x"], "pip", [("x", False)], None, [], []),
]  # fmt: skip


@pytest.mark.parametrize(("words", "tool", "installs", "index", "extra", "files"), PIP_CASES)
def test_pip_install(
    words: list[str],
    tool: str,
    installs: list[tuple[str, bool]],
    index: str | None,
    extra: list[str],
    files: list[str],
) -> None:
    found = argv.pip_install(W(words))
    assert found is not None and found.tool == tool
    assert [(i.word.text, i.editable) for i in found.installs] == installs
    assert (found.index_url.text if found.index_url is not None else None) == index
    assert [v.text for v in (*found.extra_index_urls, *found.find_links)] == extra
    assert [v.text for v in found.requirement_files] == files


@pytest.mark.parametrize(
    "words",
    [
        ["pip", "download", "vllm"],
        ["pip", "--version"],
        ["echo", "pip", "install", "vllm"],
        ["uv", "add", "vllm"],
        ["python3", "-m", "venv", "install"],
        ["pipx", "install", "vllm"],
        [],
    ],
)
def test_not_a_pip_install(words: list[str]) -> None:
    assert argv.pip_install(W(words)) is None


def test_unresolved_requirements_are_kept_unread() -> None:
    found = argv.pip_install([Str.lit("pip"), Str.lit("install"), unknown("$WHEEL")])
    assert found is not None and found.installs[0].req is None
    assert found.installs[0].word.text == "$WHEEL"


# -------------------------------------------------------------------- commands


@pytest.mark.parametrize(
    ("words", "cmd", "target"),
    [
        (["git", "apply", "fix.diff"], "git apply", None),
        (["git", "-C", "/site", "apply", "fix.diff"], "git apply", "/site"),
        (["git", "-C", "/a", "am", "--directory=b", "x.patch"], "git am", "b"),
        (["git", "--git-dir", "/g", "apply", "x"], "git apply", None),
        (["patch", "-p1", "-d", "/site", "--forward"], "patch", "/site"),
        (["patch", "-p1", "-d/site"], "patch", "/site"),
    ],
)
def test_patch_reading(words: list[str], cmd: str, target: str | None) -> None:
    found = commands.patch(W(words))
    assert found is not None and found.cmd == cmd
    assert (found.target.text if found.target is not None else None) == target


@pytest.mark.parametrize(
    "words",
    [
        ["git", "apply", "--check", "x.diff"],
        ["git", "apply", "--stat", "x.diff"],
        ["patch", "--dry-run", "-p1"],
        ["git", "log"],
        ["git", "-C", "apply"],  # `apply` is the value of -C
        ["ls"],
        [],
    ],
)
def test_not_a_patch(words: list[str]) -> None:
    assert commands.patch(W(words)) is None


@pytest.mark.parametrize(
    ("words", "kind", "targets"),
    [
        (["sed", "-i", "s/a/b/", "f1", "f2"], "sed", ["f1", "f2"]),
        (["sed", "-i", "-e", "s/a/b/", "f1"], "sed", ["f1"]),
        (["sed", "-Ei.bak", "s/a/b/", "f1"], "sed", ["f1"]),
        (["cp", "-r", "src", "dst"], "copy", ["dst"]),
        (["cp", "-t", "/dst", "a", "b"], "copy", ["/dst"]),
        (["install", "-m", "644", "a", "/b"], "copy", ["/b"]),
        (["rsync", "-avt", "a", "b"], "copy", ["b"]),
        (["tee", "-a", "f1", "f2"], "copy", ["f1", "f2"]),
        (["cp", "only-one"], "copy", []),
        (["curl", "-sSLo", "/x", "https://h"], "download", ["/x"]),
        (["wget", "-q", "-P", "/d", "https://h"], "download", ["/d"]),
        (["curl", "https://h"], "download", []),
    ],
)
def test_writes(words: list[str], kind: str, targets: list[str]) -> None:
    found = commands.writes(W(words))
    assert found is not None and found.kind == kind
    assert [t.text for t in found.targets] == targets


def test_sed_without_in_place_writes_nothing() -> None:
    assert commands.writes(W(["sed", "-n", "s/a/b/p", "f"])) is None
    assert commands.writes(W(["ls", "-l"])) is None


def test_python_code() -> None:
    code = commands.python_code(W(["python3", "-c", "print(1)", "a", "b"]), None)
    assert code is not None and code.code == "print(1)" and not code.heredoc
    assert [a.text for a in code.args] == ["a", "b"]
    heredoc = Str.lit("import os\n")
    got = commands.python_code(W(["python3", "-", "/site"]), heredoc)
    assert got is not None and got.heredoc and [a.text for a in got.args] == ["/site"]
    assert commands.python_code(W(["python3"]), heredoc) is not None
    assert commands.python_code(W(["python3", "x.py"]), heredoc) is None
    assert commands.python_code(W(["python3", "-m", "x"]), heredoc) is None
    assert commands.python_code(W(["python3", "-c"]), None) is None
    assert commands.python_code(W(["bash", "-c", "x"]), None) is None


@pytest.mark.parametrize(
    ("words", "script"),
    [
        (["bash", "-ex", "apply.sh", "arg"], "apply.sh"),
        (["bash", "-o", "pipefail", "apply.sh"], "apply.sh"),
        (["bash", "-xc", "patch -p1 < x"], None),
        (["sh", "run.sh", "-c"], "run.sh"),  # `-c` after the script is its argument
        (["python3", "-u", "patch_vllm.py"], "patch_vllm.py"),
        (["python3", "-m", "patch_vllm"], None),
        (["python3", "-c", "x"], None),
        (["./tools/apply.sh", "x"], "./tools/apply.sh"),
        (["apply.sh"], None),  # not a path: a command on PATH
        (["ls"], None),
    ],
)
def test_script(words: list[str], script: str | None) -> None:
    found = commands.script(W(words))
    assert (found.text if found is not None else None) == script


def test_clone_url_and_code_facts() -> None:
    url = commands.clone_url(W(["git", "clone", "--depth", "1", "-b", "v1", "https://h/r.git"]))
    assert url is not None and url.text == "https://h/r.git"
    assert commands.clone_url(W(["git", "-C", "clone", "status"])) is None
    assert commands.python_writes("p.write_text(x)") and not commands.python_writes("print(1)")
    assert commands.script_relative('$(dirname "$0")/apply.sh') == "apply.sh"
    assert commands.script_relative("apply.sh") is None
    assert commands.imports("import vllm.x\nfrom sglang import y\n") == ["vllm", "sglang"]


# ------------------------------------------------------- the parsers that use it

PATH = "benchmarks/single_node/fixed_seq_len/x_fp8_h100.sh"


def test_interpreter_reads_awk_and_tee_arguments_through_argv() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "MEM=$(awk -F ':' 'BEGIN{print 0.85}')\n"  # -F takes ':', the program is the one positional
        "LEN=$(awk -f prog.awk 'BEGIN{print 9}')\n"  # -f: the program is a file, not inline
        "tee --output-error=warn -a /tmp/extra.yaml <<EOF\n"
        "kv_cache_config: {free_gpu_memory_fraction: 0.7}\n"
        "EOF\n"
        'vllm serve m --gpu-memory-utilization "$MEM" --max-model-len "$LEN"\n'
        "trtllm-serve m --extra_llm_api_options /tmp/extra.yaml\n"
    )
    vllm, trt = parse_recipe(PATH, text).launches
    mem = vllm.flag("--gpu-memory-utilization")
    assert mem is not None and mem.value is not None and mem.value.text == "0.85"
    max_len = vllm.flag("--max-model-len")
    assert max_len is not None and max_len.value is not None and not max_len.value.known
    fraction = trt.yaml_setting("kv_cache_config", "free_gpu_memory_fraction")
    assert fraction is not None and fraction.value == 0.7


def test_engine_launch_found_through_wrappers_and_python_options() -> None:
    text = (
        "#!/usr/bin/env bash\n"
        "timeout 600 nohup python3 -X dev -u -m sglang.launch_server --model-path m "
        "--mem-fraction-static=0.8 --enable-torch-compile --tp 8 &\n"
    )
    launch = parse_recipe(PATH, text).launches[0]
    assert launch.engine == "sglang"
    assert {k: [f.value.text if f.value else None for f in v] for k, v in launch.flags.items()} == {
        "--model-path": ["m"],
        "--mem-fraction-static": ["0.8"],
        "--enable-torch-compile": [None],
        "--tp": ["8"],
    }
