"""The recipe model: what an inference engine is launched with. Pure.

`parse_recipe(path, text)` runs the symbolic bash interpreter over a recipe
script and keeps every engine launch it reaches (vLLM, SGLang, TensorRT-LLM,
ATOM) as a `Launch`: the flags with resolved values and the lines where
those values are written, the exported environment, the engine YAML written
by a heredoc, and the assumptions of the path (which `EVAL_ONLY` arm). On
top of that it derives the facts the rules read: speculative decoding (method,
draft model, K, simulated acceptance), thinking mode and its source, memory
fraction, parsers. Nothing here guesses: an unresolved value stays symbolic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field, replace
from typing import Any, Literal, NamedTuple

from bot.base.problem import Problem, problem
from bot.base.records import dataclass
from bot.base.span import Span
from bot.parse import argv
from bot.parse.bash import (
    MAX_PATHS,
    Assumption,
    Command,
    Interpreter,
    InterpreterProblem,
    parse_tree,
)
from bot.parse.jsonpos import JNode, parse_json
from bot.parse.values import Str
from bot.parse.yamlpos import load_positioned
from bot.parse.yamlsafe import MAX_DEPTH as YAML_MAX_DEPTH
from bot.parse.yamlsafe import YamlError

MAX_RECIPE_BYTES = 1024 * 1024

# The problems of a recipe, each a variant of RCP000 (`Problem.params` fill it).
# A bash syntax error: where tree-sitter names it.
SyntaxProblem = Literal[
    "syntax_unclosed",  # token, construct: a construct that opens here is never closed
    "syntax_missing",  # token: a token is missing here
    "syntax_unexpected",  # near: a token the grammar cannot place
    "syntax_end",  # the script ends inside a construct
    "syntax",  # an error tree-sitter does not place
]
RecipeProblemKind = Literal[
    InterpreterProblem,
    SyntaxProblem,
    # a bash script as a whole
    "too_large",  # size, limit (bytes)
    "binary",  # not a text file
    "not_utf8",  # bytes that are not UTF-8 (U+FFFD after decoding)
    "engine_yaml",  # detail: the engine YAML a heredoc writes cannot be read
    # a YAML recipe (multi-node) or model table as a whole
    "yaml",  # detail: YAML itself cannot read the file
    "yaml_unreadable",  # detail: the YAML reader failed on it otherwise
    "yaml_too_large",  # size, limit (characters)
    "yaml_too_many_nodes",  # limit
    "yaml_too_deep",  # limit
    "crashed",  # error: the parser failed (a bug), nothing was analysed
    # a multi-node recipe's structure (bot/parse/srt_recipe.py)
    "empty",
    "recipe_not_mapping",  # type
    "not_mapping",  # key, type
    "not_string",  # key, type
    "no_section",  # section
    "unknown_backend",  # backend
    "roles_not_mapping",  # section, type
    "unknown_role",  # role, section
    "no_roles",  # section
    # a model table (bot/parse/model_table.py)
    "table_not_mapping",
    "table_engine_unknown",
    "not_word_list",  # key
]
RecipeProblem = Problem[RecipeProblemKind]


def yaml_problem(exc: YamlError) -> RecipeProblem:
    """A YAML recipe's (or model table's) `YamlError` as a recipe problem."""
    line = exc.line or 1
    if exc.kind == "nul":
        return problem("binary", line)
    if exc.kind == "not-utf8":
        return problem("not_utf8", line)
    if exc.kind == "too-large":
        return problem("yaml_too_large", line, size=exc.params["size"], limit=exc.params["limit"])
    if exc.kind == "too-many-nodes":
        return problem("yaml_too_many_nodes", line, limit=exc.params["limit"])
    if exc.kind == "too-deep":
        return problem("yaml_too_deep", line, limit=exc.params.get("limit", str(YAML_MAX_DEPTH)))
    detail = exc.params.get("detail", "")
    if exc.kind == "unreadable":
        return problem("yaml_unreadable", line, detail=detail)
    return problem("yaml", line, detail=detail)


ENGINES = ("vllm", "sglang", "trtllm", "atom")
# commands that run another (`timeout 600 vllm serve`): the table is `argv.WRAPPERS`
WRAPPERS = frozenset(argv.WRAPPERS)
# Inert to the interpreter (they change no shell state), but rules read their
# words: `sed -i` / `git apply` / `pip install` / `cp` into an installed engine.
# flags the rules read that no engine adapter names (thinking switches, expert
# parallelism, model-config overrides); with the adapters' flags and environment
# names (`RecipeInputs.watched_*`) their values keep paths apart in a long script
RULE_FLAGS = frozenset(
    {
        "--chat-template",
        "--default-chat-template-kwargs",
        "--chat-template-kwargs",
        "--enable-expert-parallel",
        "--expert-parallel-size",
        "--hf-overrides",
    }
)


@dataclass(frozen=True)
class RecipeInputs:
    """What the interpreter takes from the knowledge (`bot.parse.engines.recipe_inputs`)."""

    watched_flags: frozenset[str] = RULE_FLAGS
    watched_env: frozenset[str] = frozenset()
    inert: frozenset[str] = frozenset()  # the target repository's state-free helpers
    # helpers that run the command line a variable holds: helper -> variable
    command_runners: Mapping[str, str] = field(default_factory=dict)

    def key(self) -> str:
        return repr(
            (
                sorted(self.watched_flags),
                sorted(self.watched_env),
                sorted(self.inert),
                sorted(self.command_runners.items()),
            )
        )


REPORTED_COMMANDS = frozenset({"sed", "git", "pip", "pip3", "cp", "mv", "ln", "curl", "wget"})
BOOL_FLAG_RE = argv.ENGINE_BOOL_RE  # engine flags that take no value


@dataclass(frozen=True)
class Flag:
    name: str  # "--speculative-config"
    value: Str | None
    span: Span  # where the flag itself is written

    @property
    def value_span(self) -> Span:
        if self.value is not None and self.value.span is not None:
            return self.value.span
        return self.span


OriginKind = Literal["flag", "env", "json", "yaml", "client", "default"]


@dataclass(frozen=True)
class Origin:
    """Where a setting was read from, as data: a rule names it in its own words.

    kind  "flag"     a command-line flag; `name` is the flag (`--gpu-memory-utilization`)
          "env"      an environment variable of the launch; `name` is the variable
          "json"     a key of a JSON flag value; `name` is the key, `within` the flag
          "yaml"     a key path of the engine's YAML; `name` is the dotted path
          "client"   the benchmark client's environment (`benchmark.env`); `name` the variable
          "default"  nothing set it: the engine's default; `name` is the knob it stands for
    """

    kind: OriginKind
    name: str
    within: str = ""


@dataclass(frozen=True)
class Setting:
    """One resolved fact with the place a reviewer would edit to change it."""

    value: Any
    span: Span
    text: str  # the source form, for messages ("0.95", "$SYNTHETIC_ACCEPT_LEN")
    origin: Origin  # what it was read from


@dataclass
class Launch:
    engine: str
    words: list[Str]
    flags: dict[str, list[Flag]]
    env: dict[str, Str]
    engine_yaml: Any | None  # TRT extra-llm-api-options as loaded (CommentedMap)
    engine_yaml_text: Str | None
    span: Span
    assumptions: tuple[Assumption, ...]
    eval_only: bool | None  # True: EVAL_ONLY arm; False: throughput arm; None: both
    # multi-node recipes: "prefill" | "decode" | "aggregated"; bash recipes: "server"
    role: str = "server"
    # the benchmark client's environment (multi-node `benchmark.env`)
    client_env: dict[str, Str] = field(default_factory=dict)
    # every fact on the environment the path took to this launch (`bash.Assumption`:
    # `TP=4`, `CONC` in 1|4, `CONC` <= 8, ...), typed; findings name them
    conditions: tuple[Any, ...] = ()
    # `engines.spec` of this launch and the knowledge it was read with: a launch is
    # never changed once parsed, and it lives as long as the run's parse cache
    spec_memo: tuple[Any, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def decodes(self) -> bool:
        """Whether this launch decodes tokens (a disaggregated prefill worker does not)."""
        return self.role != "prefill"

    def flag(self, *names: str) -> Flag | None:
        for name in names:
            found = self.flags.get(name) or self.flags.get(name.replace("-", "_"))
            if found:
                return found[-1]
        return None

    def flag_json(self, name: str) -> tuple[JNode | None, Flag | None]:
        f = self.flag(name)
        if f is None or f.value is None:
            return None, f
        return parse_json(f.value.placeholder_text()), f

    def json_setting(self, node: JNode | None, value: Str, key: str, flag: str) -> Setting | None:
        """`key` of the JSON value of `flag` (parsed as `node`)."""
        if node is None or not isinstance(node.value, dict) or key not in node.value:
            return None
        child = node.value[key]
        span = value.span_at(child.start, child.end) or value.span or self.span
        text = value.text[child.start : child.end]
        if not isinstance(child.value, (dict, list)) and any(
            s.unknown for s in value.segs_in(child.start, child.end)
        ):
            return Setting(None, span, text, Origin("json", key, flag))
        return Setting(child.value, span, text, Origin("json", key, flag))

    def env_setting(self, name: str) -> Setting | None:
        v = self.env.get(name)
        if v is None or (v.known and v.text == ""):
            return None
        return Setting(
            v.value if v.known else None, v.span or self.span, v.text, Origin("env", name)
        )

    def yaml_setting(self, *path: str) -> Setting | None:
        node = self.engine_yaml
        text = self.engine_yaml_text
        if node is None or text is None:
            return None
        parent = None
        for key in path:
            if not hasattr(node, "get") or key not in node:
                return None
            parent, node = node, node[key]
        if parent is None:
            return None
        try:
            line, col = parent.lc.value(path[-1])
        except (AttributeError, KeyError, TypeError):
            line, col = parent.lc.line, parent.lc.col
        offset = _offset_of(text.text, line, col)
        span = text.span_at(offset) or self.span
        raw = str(node)
        origin = Origin("yaml", ".".join(path))
        if any(s.unknown for s in text.segs_in(offset, offset + max(1, len(raw)))):
            return Setting(None, span, text.text[offset : offset + len(raw)], origin)
        return Setting(node, span, raw, origin)


@dataclass(frozen=True)
class Run:
    """An executed command that is not an engine launch, its words resolved."""

    words: tuple[Str, ...]
    span: Span
    stdin: Str | None  # the heredoc fed to it
    redirect_to: Str | None  # the file its stdout is written to
    assumptions: tuple[Assumption, ...]  # the path's conditions on the environment
    eval_only: bool | None  # True: EVAL_ONLY arm; False: throughput arm; None: both
    # a helper that runs a command line kept in a variable (`recipe_helpers.
    # command_runners`): that variable's words when the helper is called
    runs: tuple[Str, ...] = ()

    @property
    def name(self) -> str:
        """The command's base name (`/usr/bin/python3` -> `python3`); "" when unknown."""
        head = self.words[0].value if self.words else None
        return head.rsplit("/", 1)[-1] if head else ""


@dataclass(frozen=True)
class ClientBlock:
    """The benchmark client a multi-node recipe runs: the `benchmark:` block of an
    srt-slurm recipe. `type` names the client (`sa-bench`, `custom`, ...); `settings`
    holds each scalar key as written, with the place a reviewer would edit it."""

    type: str | None
    span: Span  # the `benchmark:` key, or its `type:` when written
    settings: Mapping[str, Setting]
    eval_only: bool  # the recipe's eval twin runs it for EVAL_ONLY


def _offset_of(text: str, line: int, col: int) -> int:
    pos = 0
    for _ in range(line):
        nxt = text.find("\n", pos)
        if nxt < 0:
            break
        pos = nxt + 1
    return pos + col


@dataclass
class Recipe:
    path: str
    text: str
    kind: RecipeKind
    model: str | None  # filename model prefix, e.g. "minimaxm3"
    precision: str | None
    sku: str | None
    mtp: bool
    launches: list[Launch] = field(default_factory=list)
    # every other executed command, in order of execution (deduplicated across paths)
    commands: list[Run] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    problems: list[RecipeProblem] = field(default_factory=list)
    # multi-node (srt-slurm YAML) recipes: the serving frontend ("dynamo", "vllm", ...)
    multi_node: bool = False
    frontend: str | None = None
    # multi-node (srt-slurm YAML) recipes: the benchmark client, one per distinct block
    clients: list[ClientBlock] = field(default_factory=list)

    @property
    def agentic(self) -> bool:
        return self.kind == "agentic"

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


_NAME_RE = re.compile(
    r"^(?P<model>[^_]+)_(?P<precision>fp4|fp8|bf16|int4|int8|mxfp4|nvfp4|w4a8|fp16)_(?P<sku>[a-z0-9]+)(?P<rest>(_[a-z0-9.-]+)*)$"
)


RecipeKind = Literal["agentic", "fixed_seq_len", "multi_node", "model_table", "other"]


class RecipeName(NamedTuple):
    """What a recipe's path says: `<kind dir>/<model>_<precision>_<sku>[_...][_mtp].sh`."""

    kind: RecipeKind
    model: str | None  # filename model prefix, e.g. "minimaxm3"
    precision: str | None
    sku: str | None
    mtp: bool


def describe_path(path: str) -> RecipeName:
    """The recipe name fields of `path` (None where the file name does not follow the pattern)."""
    parts = path.split("/")
    name = parts[-1].removesuffix(".sh")
    kind: RecipeKind = "other"
    if "agentic" in parts[:-1]:
        kind = "agentic"
    elif "fixed_seq_len" in parts[:-1]:
        kind = "fixed_seq_len"
    elif "multi_node" in parts[:-1]:
        kind = "multi_node"
    m = _NAME_RE.match(name)
    if not m:
        return RecipeName(kind, None, None, None, name.endswith("_mtp"))
    return RecipeName(
        kind, m.group("model"), m.group("precision"), m.group("sku"), name.endswith("_mtp")
    )


_PY_OPTION_WINDOW = 32


def _engine_at(words: list[Str]) -> tuple[str, int] | None:
    """Find an engine invocation; return (engine, index of its first argument)."""
    n = len(words)
    if not n:
        return None
    vals: dict[int, str] = {}

    def val(i: int) -> str:
        if i >= n:
            return ""
        got = vals.get(i)
        if got is None:
            got = vals[i] = words[i].value or ""
        return got

    limit = n if argv.base(words[0]) in WRAPPERS else 1
    for i in range(min(n, max(limit, 1))):
        base = val(i).rsplit("/", 1)[-1]
        nxt = val(i + 1)
        if base == "vllm" and nxt == "serve":
            return "vllm", i + 2
        if base == "trtllm-serve":
            return "trtllm", i + 2 if nxt == "serve" else i + 1
        if argv.is_python(base) or not words[i].known:
            # the interpreter's own options before `-m` (a window: the scan runs at every word)
            py = argv.parse(words[i + 1 : i + 1 + _PY_OPTION_WINDOW], argv.SPECS["python"])
            first = py.first("-m", "-c")
            if first is not None and first.name == "-m" and first.value is not None:
                mod = first.value.value
                start = i + 1 + (py.rest if py.rest is not None else len(py.words))
                if mod == "sglang.launch_server":
                    return "sglang", start
                if mod == "atom.entrypoints.openai_server":
                    return "atom", start
                if mod == "vllm.entrypoints.openai.api_server":
                    return "vllm", start
        if base == "sglang" and nxt == "serve":
            return "sglang", i + 2
    return None


def parse_flags(words: list[Str], line: int) -> dict[str, list[Flag]]:
    flags: dict[str, list[Flag]] = {}
    args = argv.parse(words, argv.SPECS["engine"])
    for opt in args.opts:
        if opt.name.startswith("--"):
            span = args.words[opt.index].span or Span(line)
            flags.setdefault(opt.name, []).append(Flag(opt.name, opt.value, span))
    return flags


def _eval_only(assumptions: tuple[Assumption, ...], var: str = "EVAL_ONLY") -> bool | None:
    for a in assumptions:
        if a.var == var:
            if a.op == "eq":
                return bool(a.value == "true")
            if a.op == "ne" and a.value == "true":
                return False
            if a.op == "in":  # `${EVAL_ONLY:-x}` tests leave a set of values
                values = a.value.split("|")
                if "true" not in values:
                    return False
                if values == ["true"]:
                    return True
    return None


def parse_recipe(
    path: str,
    text: str,
    domains: Mapping[str, frozenset[str]] | None = None,
    inputs: RecipeInputs | None = None,
    engine_docs: dict[str, Any] | None = None,
) -> Recipe:
    """The recipe's launches; `domains`: the values each environment input can take;
    `inputs`: what the interpreter takes from the knowledge (watched names, helpers);
    `engine_docs`: engine YAML texts already loaded in this run (the run's memory)."""
    inputs = inputs or RecipeInputs()
    if path.endswith((".yaml", ".yml")):
        if model_table.is_model_table(text):
            return model_table.parse_model_table(path, text)
        return srt_recipe.parse_srt_recipe(path, text)
    kind, model, precision, sku, mtp = describe_path(path)
    recipe = Recipe(
        path=path, text=text, kind=kind, model=model, precision=precision, sku=sku, mtp=mtp
    )
    data = _script_bytes(recipe)
    if data is None:
        return recipe
    tree = parse_tree(data)
    root = tree.root_node
    _collect_comments(root, recipe, data)
    if root.has_error:
        line, syntax, params = _first_error(root, data)
        line = min(line, max(1, len(text.splitlines())))
        recipe.problems.append(problem(syntax, line, line=str(line), **params))
    seen = _Commands(recipe, inputs, engine_docs if engine_docs is not None else {})
    interp = Interpreter(
        data,
        seen.take,
        report=REPORTED_COMMANDS,
        domains=domains,
        watched_flags=inputs.watched_flags,
        watched_env=inputs.watched_env,
        inert=inputs.inert,
    )
    interp.run(root)
    recipe.problems.extend(interp.problems)
    seen_problems: set[tuple[str, int, tuple[tuple[str, str], ...]]] = set()
    unique = []
    for p in recipe.problems:
        if p.key() not in seen_problems:
            seen_problems.add(p.key())
            unique.append(p)
    recipe.problems = unique
    recipe.launches = _dedupe(seen.launches)
    recipe.commands = list(seen.runs.values())
    return recipe


def _script_bytes(recipe: Recipe) -> bytes | None:
    """The script as the parser reads it; None (with the problem) when it is not read."""
    text = recipe.text
    data = text.encode("utf-8", errors="replace")
    if len(data) > MAX_RECIPE_BYTES:
        recipe.problems.append(
            problem("too_large", size=f"{len(data):,}", limit=f"{MAX_RECIPE_BYTES:,}")
        )
        return None
    binary = _binary_at(text)
    if binary is not None:
        recipe.problems.append(problem("binary", binary))
        return None
    if "\ufffd" in text:
        line = text[: text.index("\ufffd")].count("\n") + 1
        recipe.problems.append(problem("not_utf8", line))
    return _final_continuation(data)


def _final_continuation(data: bytes) -> bytes:
    """`data` with a line continuation that ends the script taken out: bash joins the
    last line with the empty rest (InferenceX #666 ends in `rm -rf ./utils/bench_serving\\`),
    where tree-sitter-bash reports an unclosed construct. The backslash becomes a space,
    so every offset and line stays where it is."""
    body = data.removesuffix(b"\n").removesuffix(b"\r")
    run = len(body) - len(body.rstrip(b"\\"))
    if run % 2 == 0:
        return data
    at = len(body) - 1
    return data[:at] + b" " + data[at + 1 :]


class _Commands:
    """What the interpreter reports it runs: engine launches, and every other command."""

    def __init__(self, recipe: Recipe, inputs: RecipeInputs, docs: dict[str, Any]) -> None:
        self.recipe = recipe
        self.inputs = inputs
        # engine YAML texts already loaded (variants share them: each is loaded once)
        self.docs = docs
        self.launches: list[Launch] = []
        self.runs: dict[tuple[Any, ...], Run] = {}
        # the same command on several paths parses to the same flags
        self.parsed_flags: dict[tuple[Any, ...], dict[str, list[Flag]]] = {}

    def take(self, cmd: Command) -> None:
        found = _engine_at(cmd.words)
        if found is None:
            self._run(cmd)
        else:
            self._launch(cmd, *found)

    def _run(self, cmd: Command) -> None:
        run = Run(
            words=tuple(cmd.words),
            span=Span(cmd.line, 1, cmd.end_line if cmd.end_line != cmd.line else None),
            stdin=cmd.stdin,
            redirect_to=cmd.redirect_to,
            assumptions=cmd.state.assumptions,
            eval_only=_eval_only(cmd.state.assumptions),
            runs=_runs(cmd, self.inputs.command_runners),
        )
        key = (
            cmd.line,
            tuple(w.text for w in cmd.words),
            cmd.stdin.text if cmd.stdin is not None else None,
            cmd.redirect_to.text if cmd.redirect_to is not None else None,
            run.eval_only,
            tuple(w.text for w in run.runs),
        )
        prev = self.runs.get(key)
        if prev is not None and prev.assumptions != run.assumptions:
            # run on several paths: keep only the conditions they share
            common = tuple(a for a in prev.assumptions if a in run.assumptions)
            run = replace(prev, assumptions=common)
        elif prev is not None:
            return
        self.runs[key] = run

    def _launch(self, cmd: Command, engine: str, start: int) -> None:
        args = cmd.words[start:]
        flag_key = (cmd.line, tuple(args))
        flags = self.parsed_flags.get(flag_key)
        if flags is None:
            flags = self.parsed_flags[flag_key] = parse_flags(args, cmd.line)
        env = {
            k: v
            for k, v in cmd.state.vars.items()
            if k in cmd.state.exported and isinstance(v, Str)
        }
        env.update(cmd.inline_env)
        # `env A=B cmd` inline assignments
        for w in cmd.words[:start]:
            if w.known and re.match(r"^[A-Za-z_]\w*=", w.text):
                k, _, _v = w.text.partition("=")
                env[k] = argv.after(w, len(k) + 1)
        yaml_text, yaml_doc = self._engine_yaml(cmd, flags) if engine == "trtllm" else (None, None)
        self.launches.append(
            Launch(
                engine=engine,
                words=cmd.words,
                flags=flags,
                env=env,
                engine_yaml=yaml_doc,
                engine_yaml_text=yaml_text,
                span=Span(cmd.line, 1, cmd.end_line if cmd.end_line != cmd.line else None),
                assumptions=cmd.state.assumptions,
                eval_only=_eval_only(cmd.state.assumptions),
                conditions=cmd.state.conditions(),
            )
        )

    def _engine_yaml(
        self, cmd: Command, flags: dict[str, list[Flag]]
    ) -> tuple[Str | None, Any | None]:
        """The TensorRT-LLM engine YAML a heredoc wrote for this launch: its text and,
        when it loads, the document (round trip: positions needed)."""
        cfg = None
        for name in ("--extra_llm_api_options", "--extra-llm-api-options", "--config"):
            got = flags.get(name)
            if got and got[-1].value is not None:
                cfg = got[-1].value
        if cfg is None:
            return None, None
        yaml_text = cmd.state.files.get(cfg.text)
        if yaml_text is None:
            return None, None
        doc_text = yaml_text.placeholder_text()
        try:
            if doc_text not in self.docs:
                self.docs[doc_text] = load_positioned(doc_text, label="engine YAML")
            return yaml_text, self.docs[doc_text]
        except YamlError as exc:
            line = (yaml_text.span.line if yaml_text.span else cmd.line) + max(
                0, (exc.line or 1) - 1
            )
            self.recipe.problems.append(
                problem("engine_yaml", line, detail=exc.params.get("detail", ""))
            )
            return yaml_text, None


def _runs(cmd: Command, runners: Mapping[str, str]) -> tuple[Str, ...]:
    """The words of the command line a runner helper executes (its variable, split as
    bash splits an unquoted expansion)."""
    if not runners or not cmd.words:
        return ()
    var = runners.get(argv.base(cmd.words[0]))
    value = cmd.state.vars.get(var) if var else None
    if value is None:
        return ()
    if isinstance(value, tuple):  # an array
        return value
    return tuple(value.split())


def _dedupe(launches: list[Launch]) -> list[Launch]:
    seen: dict[tuple[Any, ...], int] = {}
    out: list[Launch] = []
    for la in launches:
        key = (
            la.engine,
            tuple(w.text for w in la.words),
            tuple(sorted((k, v.text) for k, v in la.env.items())),
            la.engine_yaml_text.text if la.engine_yaml_text else None,
            la.eval_only,
            tuple(sorted((s.segs[0].line if s.segs else 0) for s in la.words)),
        )
        if key not in seen:
            seen[key] = len(out)
            out.append(la)
        else:
            # the same launch on several paths: only the conditions they share hold
            kept = out[seen[key]]
            if kept.conditions != la.conditions:
                kept.conditions = tuple(c for c in kept.conditions if c in la.conditions)
    return out


def _collect_comments(root: Any, recipe: Recipe, data: bytes) -> None:
    """Every comment of the script by line. A comment starts with `#`, so only the
    node at each `#` is looked at (no query to compile at every start)."""
    at = data.find(b"#")
    while at >= 0:
        node = root.descendant_for_byte_range(at, at + 1)
        if node is not None and node.type == "comment" and node.start_byte == at:
            text = data[at : node.end_byte].decode("utf-8", "replace")
            recipe.comments[node.start_point.row + 1] = text
            at = data.find(b"#", node.end_byte)
        else:
            at = data.find(b"#", at + 1)


# U+FFFD and control characters other than \t \n \v \f \r and ESC
_ODD_CHARS = re.compile("[\ufffd\x00-\x08\x0e-\x1a\x1c-\x1f]")


def _binary_at(text: str) -> int | None:
    """The line where binary content starts: a NUL byte, or mostly undecodable or
    control characters in the first 8 KiB (a compiled file, an image); else None."""
    if "\x00" in text:
        return text[: text.index("\x00")].count("\n") + 1
    head = text[:8192]
    odd = len(_ODD_CHARS.findall(head))
    if head and odd * 10 > len(head):
        return 1
    return None


def _first_error(root: Any, data: bytes) -> tuple[int, SyntaxProblem, dict[str, str]]:
    """(line, kind, params) of the first syntax error tree-sitter names, as precisely
    as it can: a missing token is reported where its construct opens, an unexpected
    one where it stands."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            opener = node.parent
            if opener is None or opener.type == "program":
                return int(node.start_point.row) + 1, "syntax_missing", {"token": str(node.type)}
            line = int(opener.start_point.row) + 1
            construct = str(opener.type).replace("_", " ")
            return line, "syntax_unclosed", {"token": str(node.type), "construct": construct}
        if node.type == "ERROR":
            inner = [c for c in node.children if c.has_error or c.type == "ERROR" or c.is_missing]
            if inner:
                stack.extend(reversed(inner))
                continue
            # complete statements the parser kept, then the token it could not place
            at = node
            kids = list(node.children)
            if kids and kids[0].is_named:
                stray = [c for c in kids[1:] if not c.is_named]
                if stray:
                    at = stray[0]
            line = int(at.start_point.row) + 1
            token = data[at.start_byte : at.end_byte].split(b"\n", 1)[0].strip()
            near = token.decode("utf-8", "replace")[:40]
            if near:
                return line, "syntax_unexpected", {"near": near}
            return line, "syntax_end", {}
        stack.extend(
            reversed([c for c in node.children if c.has_error or c.type == "ERROR" or c.is_missing])
        )
    return 1, "syntax", {}


__all__ = [
    "MAX_PATHS",
    "Flag",
    "Launch",
    "Origin",
    "OriginKind",
    "Recipe",
    "RecipeKind",
    "RecipeName",
    "RecipeProblem",
    "RecipeProblemKind",
    "Run",
    "Setting",
    "describe_path",
    "parse_recipe",
    "yaml_problem",
]

# The YAML recipe parsers build this module's `Recipe` and `Launch`: imported last, as
# modules, so that either side may be imported first (a cycle, not a lazy import).
from bot.parse import model_table, srt_recipe  # noqa: E402
