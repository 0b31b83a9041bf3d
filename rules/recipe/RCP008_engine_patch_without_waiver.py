"""RCP008: the recipe patches the serving stack without a waiver."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from bot.base.records import dataclass
from bot.core.conditions import CLAUSES
from bot.core.conditions import when as when_clause
from bot.core.context import RuleContext
from bot.core.model import (
    ERROR,
    WARNING,
    Condition,
    Example,
    Finding,
    Part,
    Rule,
    Span,
    T,
    part,
)
from bot.parse import argv, commands
from bot.parse.recipe import Recipe, Run
from bot.parse.values import Str

_K3 = "benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh"
_HELPER = "benchmarks/single_node/agentic/apply_k3_patches.sh"
_HELPER_TEXT = (
    "#!/usr/bin/env bash\n"
    "SITE=\"$(python3 -c 'import importlib.util as u, os; "
    'print(os.path.dirname(os.path.dirname(u.find_spec("vllm").origin)))\')"\n'
    'patch -p1 -d "$SITE" --forward < "$(dirname "$0")/mla_fix.diff"\n'
)
_WAIVER_2508 = (
    "# Inference-engine patch waiver — PR #2508\n\n"
    "- Patch script: `benchmarks/single_node/agentic/apply_k3_patches.sh`\n"
    "- What is patched: vLLM MLA backend and the tuned GEMM table\n"
)
# the folder InferenceX #2155 added with the waiver rule: a repository that has it is
# one the rule is in force in (`knowledge.practices.waiver-rule`)
_FOLDER = {"docs/waiver/.gitkeep": ""}
_WAIVER = (
    "# Inference-engine patch waiver — PR #2600\n\n"
    "- Patch entrypoint: `benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh`\n"
    "- What is patched: vLLM MLA backend (vllm-project/vllm#51011)\n"
    "- Removal plan: drop the patch once the pinned nightly ships #51011.\n"
)

RULE = Rule(
    id="RCP008",
    slug="engine-patch-without-waiver",
    severity=ERROR,
    # the rule and its waiver folder arrived with InferenceX #2155: a base without
    # the folder predates it (`knowledge.practices.waiver-rule`)
    practice="waiver-rule",
    conditions={
        "preexisting": Condition(
            WARNING,
            T(
                en="the patch was not added by the change (it predates the PR, or a whole "
                "tree is linted) and no waiver names the recipe",
                zh="补丁并非本次变更添加（早于本 PR，或检查的是整棵树），且没有豁免文件提及该配方",
            ),
        ),
    },
    target="recipe",
    title=T(en="Engine patched without a waiver", zh="未经豁免修改推理引擎"),
    # the message is three clauses, each a variant below with value-only parameters:
    # what the recipe does, when (its environment conditions), and which waiver is missing
    message=T(en="{action}{when}; {waiver}", zh="{action}{when}；{waiver}"),
    variants={
        # what the recipe does
        "patch": T(en="`{cmd}` applies a patch", zh="`{cmd}` 打入了补丁"),
        "patch-to": T(en="`{cmd}` applies a patch to {where}", zh="`{cmd}` 向 {where} 打入了补丁"),
        "sed": T(en="`sed -i` edits {where} in place", zh="`sed -i` 原地修改了 {where}"),
        "copy": T(
            en="`{cmd}` overwrites {where} in the installed engine",
            zh="`{cmd}` 覆盖了已安装引擎中的 {where}",
        ),
        "download": T(
            en="`{cmd}` downloads over {where} in the installed engine",
            zh="`{cmd}` 下载文件覆盖了已安装引擎中的 {where}",
        ),
        "python-heredoc": T(
            en="an inline Python heredoc rewrites {where}",
            zh="内联的 Python 脚本（heredoc）改写了 {where}",
        ),
        "python-c": T(en="`python -c` rewrites {where}", zh="`python -c` 改写了 {where}"),
        "redirect": T(
            en="`{cmd} > {dest}` writes into the installed engine",
            zh="`{cmd} > {dest}` 写入了已安装的引擎",
        ),
        "startup-hook": T(
            en="`{file}` injects start-up code that imports the engine (monkey-patching)",
            zh="`{file}` 注入了导入引擎的启动代码（猴子补丁）",
        ),
        "pip": T(
            en="`pip install {spec}` installs `{name}` from {source} on top of the pinned image",
            zh="`pip install {spec}` 在固定镜像之上安装了 `{name}`（来源：{source}）",
        ),
        "helper": T(
            en="runs `{name}`, which patches the serving stack ({inner})",
            zh="运行了 `{name}`，该脚本修改了推理服务栈（{inner}）",
        ),
        "helper-line": T(en="line {line}: {action}", zh="第 {line} 行：{action}"),
        "helper-python": T(en="it rewrites the installed `{ref}`", zh="它改写了已安装的 `{ref}`"),
        "patch-script": T(en="runs the patch script `{name}`", zh="运行了补丁脚本 `{name}`"),
        # where a patch lands, when the path is not shown as is
        "installed": T(en="the installed `{ref}`", zh="已安装的 `{ref}`"),
        # where `pip install` takes an engine from
        "from-git": T(en="a git URL", zh="git 地址"),
        "from-url": T(en="a URL", zh="URL"),
        "from-source": T(en="a source build of `{repo}`", zh="`{repo}` 的源码构建"),
        "from-local": T(en="a local build", zh="本地构建"),
        "from-index": T(en="the index `{index}`", zh="索引 `{index}`"),
        # the environment the command runs under: `when` and the `cond-*` clauses
        **CLAUSES,
        # the waiver that is missing
        "no-waiver-names-recipe": T(
            en="no waiver under `{dir}/` names this recipe",
            zh="`{dir}/` 下没有提及此配方的豁免文件",
        ),
        "no-waiver-in-pr": T(
            en="no waiver `{dir}/{pr}.md` is added in this PR",
            zh="本 PR 未添加豁免文件 `{dir}/{pr}.md`",
        ),
        "no-waiver-in-change": T(
            en="no waiver under `{dir}/` is added with this change",
            zh="本次变更未在 `{dir}/` 下添加豁免文件",
        ),
    },
    fix=T(
        en=(
            "File `docs/waiver/{pr}.md` in the PR that adds the patch (what is patched, why the "
            "upstream image cannot run the benchmark, the upstream PR or issue, the removal plan), "
            "or run the pinned image as shipped"
        ),
        zh=(
            "在引入补丁的 PR 中提交 `docs/waiver/{pr}.md`（说明修改内容、上游镜像为何无法运行该基准、"
            "上游 PR 或 issue、移除计划），或直接按原样运行固定镜像"
        ),
    ),
    rationale=T(
        en=(
            "The review checklist requires the pinned image to run as shipped, so that anyone can "
            "reproduce a number from the released image. Patching the serving stack is allowed "
            "only with a filled-out waiver `docs/waiver/<PR>.md` named after the PR that "
            "introduces the patch and filed in that same PR (InferenceX #2155; "
            "`docs/waiver/2508.md` is an example). The rule reads the commands the recipe really "
            "runs, with variables resolved: `git apply` / `git am` / `patch`; `sed -i`, `cp`, "
            "`mv`, `ln`, `install`, `tee` or a `>` redirect whose target is engine source (under "
            "`site-packages`, `dist-packages`, `/sgl-workspace`, a path found through "
            "`importlib.util.find_spec` or `<engine>.__file__`, or a file inside an engine "
            "package); an inline Python heredoc or `python -c` that locates the installed engine "
            "and writes files; a `sitecustomize.py` that imports the engine; `pip install` of an "
            "engine package (`knowledge.engine_patching.packages`) from a git URL, an archive "
            "URL, a source checkout or a non-PyPI index; and helper scripts the recipe runs "
            "(followed one level when they are in the repository, otherwise judged by a name "
            "such as `patch_vllm_*.py`). The benchmark client and eval harness are out of scope. "
            "In a pull request, a patch on lines the PR adds is an error unless the PR adds "
            "`docs/waiver/<PR>.md`; a pre-existing patch is covered by an earlier waiver that "
            "names the recipe or its patch script. On a whole tree, which PR introduced a patch is "
            "unknown, so an unwaived patch is a warning. Commands inside an `if` condition are not "
            "seen."
        ),
        zh=(
            "审查清单要求固定镜像按原样运行，任何人都能用发布的镜像复现结果。只有附带填写完整的豁免文件 "
            "`docs/waiver/<PR>.md`（以引入补丁的 PR 命名，并在同一 PR 中提交；InferenceX #2155，示例见 "
            "`docs/waiver/2508.md`）时才允许修改推理服务栈。本规则读取配方实际执行的命令并解析变量："
            "`git apply` / `git am` / `patch`；目标为引擎源码的 `sed -i`、`cp`、`mv`、`ln`、`install`、"
            "`tee` 或 `>` 重定向（位于 `site-packages`、`dist-packages`、`/sgl-workspace` 下，经 "
            "`importlib.util.find_spec` 或 `<engine>.__file__` 定位，或位于引擎包内的文件）；定位已安装"
            "引擎并写文件的内联 Python heredoc 或 `python -c`；导入引擎的 `sitecustomize.py`；从 git 地址、"
            "归档 URL、源码检出或非 PyPI 索引 `pip install` 引擎包（`knowledge.engine_patching.packages`）；"
            "以及配方运行的辅助脚本（在仓库中时向下跟踪一层，否则按 `patch_vllm_*.py` 这类名称判断）。"
            "基准客户端与评估框架不在范围内。在 PR 中，PR 新增行上的补丁若该 PR 未添加 "
            "`docs/waiver/<PR>.md` 则报告为错误；已有的补丁可由先前提及该配方或其补丁脚本的豁免文件覆盖。"
            "对整棵代码树检查时无法得知补丁由哪个 PR 引入，未豁免的补丁报告为警告。`if` 条件中的命令不在"
            "分析范围内。"
        ),
    ),
    bad=(
        Example(
            path="benchmarks/single_node/agentic/qwen3.5_fp8_h100_mtp.sh",
            note="`sed -i` on an SGLang source file, resolved through a variable",
            text=(
                "#!/usr/bin/env bash\n"
                "MIXIN=/sgl-workspace/sglang/python/sglang/srt/managers/multi_tokenizer_mixin.py\n"
                "sed -i 's/cached_tokens=x,/cached_tokens=x, details=y,/' \"$MIXIN\"  # [RCP008]\n"
                'python3 -m sglang.launch_server --model-path "$MODEL" &\n'
            ),
            files=_FOLDER,
        ),
        Example(
            path=_K3,
            pr=2600,
            base=_FOLDER,
            note="a new recipe in PR #2600 runs a patch script from its own folder; no waiver",
            text=(
                "#!/usr/bin/env bash\n"
                'bash "$(dirname "$0")/apply_k3_patches.sh"  # [RCP008]\n'
                'vllm serve "$MODEL" &\n'
            ),
            files={**_FOLDER, _HELPER: _HELPER_TEXT},
        ),
        Example(
            path="benchmarks/single_node/agentic/kimik3_fp4_mi355x_vllm.sh",
            note="a patch applied as an `if` condition (InferenceX #2649, `apply_k3_moriio_patches.sh`)",
            text=(
                "#!/usr/bin/env bash\n"
                "SITE=\"$(python3 -c 'import importlib.util as u, os; "
                'print(os.path.dirname(os.path.dirname(u.find_spec("vllm").origin)))\')"\n'
                'if ! patch -p1 -d "$SITE" --forward < fix.diff; then  # [RCP008]\n'
                '  echo "already applied"\n'
                "fi\n"
                'vllm serve "$MODEL" &\n'
            ),
            files=_FOLDER,
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_vllm.sh",
            note="an inline Python heredoc that rewrites the installed vLLM",
            text=(
                "#!/usr/bin/env bash\n"
                "python3 - <<'PY'  # [RCP008]\n"
                "import importlib.util, pathlib\n"
                'root = pathlib.Path(importlib.util.find_spec("vllm").origin).parent\n'
                'f = root / "v1/attention/backends/mla/flashmla.py"\n'
                'f.write_text(f.read_text().replace("topk=2048", "topk=512"))\n'
                "PY\n"
                'vllm serve "$MODEL" &\n'
            ),
            files=_FOLDER,
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_b200.sh",
            note="an engine wheel built from a fork",
            text=(
                "#!/usr/bin/env bash\n"
                'FORK="git+https://github.com/acme/sglang.git@fast-moe#subdirectory=python"\n'
                'pip install --no-deps "$FORK"  # [RCP008]\n'
                'python3 -m sglang.launch_server --model-path "$MODEL" &\n'
            ),
            files=_FOLDER,
        ),
    ),
    good=(
        Example(
            path=_K3,
            pr=1900,
            base={},
            note=(
                "a base that predates the waiver rule (no `docs/waiver/`, before InferenceX "
                "#2155): the rule is not in force there"
            ),
            text=(
                "#!/usr/bin/env bash\n"
                'bash "$(dirname "$0")/apply_k3_patches.sh"\n'
                'vllm serve "$MODEL" &\n'
            ),
            files={_HELPER: _HELPER_TEXT},
        ),
        Example(
            path=_K3,
            pr=2600,
            base=_FOLDER,
            note="the same recipe with the waiver filed in PR #2600",
            text=(
                "#!/usr/bin/env bash\n"
                'bash "$(dirname "$0")/apply_k3_patches.sh"\n'
                'vllm serve "$MODEL" &\n'
            ),
            files={**_FOLDER, _HELPER: _HELPER_TEXT, "docs/waiver/2600.md": _WAIVER},
        ),
        Example(
            path=_HELPER,
            pr=2585,
            base={**_FOLDER, _HELPER: _HELPER_TEXT, "docs/waiver/2508.md": _WAIVER_2508},
            note="a new patch in a patch script that an existing waiver names (InferenceX #2585)",
            text=_HELPER_TEXT
            + 'patch -p1 -d "$SITE" --forward < "$(dirname "$0")/gemm_table.diff"\n',
            files={**_FOLDER, "docs/waiver/2508.md": _WAIVER_2508},
        ),
        Example(
            path="benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200.sh",
            note="client and eval dependencies, a released engine from PyPI, reading the engine",
            text=(
                "#!/usr/bin/env bash\n"
                "pip install -q datasets pandas\n"
                'pip install "git+https://github.com/EleutherAI/lm-evaluation-harness.git@b315ef3"\n'
                "pip install --upgrade 'transformers>=5.4'\n"
                'python3 -c "import vllm, os; print(os.path.dirname(vllm.__file__))"\n'
                "sed -i 's/^max_tokens: .*/max_tokens: 4096/' \"$RESULT_DIR/eval.yaml\"\n"
                'vllm serve "$MODEL" &\n'
            ),
            files=_FOLDER,
        ),
        Example(
            path="benchmarks/single_node/agentic/glm5.2_fp4_b200_sglang_mtp.sh",
            note="a Python heredoc that only reads the checkpoint",
            text=(
                "#!/usr/bin/env bash\n"
                "CKPT_DIR=\"$MODEL_PATH\" python3 - <<'PYEOF'\n"
                "import json, os\n"
                'd = os.environ["CKPT_DIR"]\n'
                'print(json.load(open(os.path.join(d, "model.safetensors.index.json"))))\n'
                "PYEOF\n"
                'python3 -m sglang.launch_server --model-path "$MODEL_PATH" &\n'
            ),
            files=_FOLDER,
        ),
    ),
)

# ----------------------------------------------------------------- detection

_SOURCE_EXT = (".py", ".pyi", ".so", ".cu", ".cuh", ".cpp", ".cc", ".h", ".co", ".json", ".csv")
_PATCH_NAME = re.compile(r"(?:^|[_.-])(?:monkey)?patch(?:es|ed|ing)?(?:$|[_.-])", re.I)
_SCRIPT_CONTEXT = {"container", "engine", "image", "server", "serving"}
_WRITE_VARIANTS = {"sed": "sed", "copy": "copy", "download": "download"}


@dataclass(frozen=True)
class _Op:
    span: Span
    action: Part  # a variant of the record, filled with values
    subject: str
    scripts: tuple[str, ...] = ()  # helper files the patch lives in
    when: tuple[Any, ...] = ()  # the path's conditions on the environment


@dataclass(frozen=True)
class _Know:
    packages: frozenset[str]
    engine_paths: tuple[str, ...]
    harness: tuple[str, ...]
    upstream: tuple[str, ...]
    waiver_dir: str


def _norm(name: str) -> str:
    return re.sub(r"[-.]+", "_", name.strip().lower())


def _know(ctx: RuleContext) -> _Know:
    table: Mapping[str, Any] = ctx.knowledge.section("engine_patching") or {}
    return _Know(
        packages=frozenset(_norm(p) for p in table.get("packages", []) or []),
        engine_paths=tuple(table.get("engine_paths", []) or []),
        harness=tuple(table.get("harness_paths", []) or []),
        upstream=tuple(table.get("upstream_indexes", []) or []),
        waiver_dir=str(table.get("waiver_dir", "docs/waiver")).strip("/"),
    )


def _engine_ref(text: str, kn: _Know) -> str | None:
    """What in code or a path points at the installed engine, or None."""
    for m in re.finditer(r"find_spec\(\s*[\"']([\w.]+)[\"']", text):
        if _norm(m.group(1).split(".")[0]) in kn.packages:
            return m.group(1).split(".")[0]
    for m in re.finditer(r"\b([A-Za-z_]\w*)\.__(?:file|path)__", text):
        if _norm(m.group(1)) in kn.packages:
            return m.group(1)
    for marker in kn.engine_paths:
        if marker in text:
            return marker.strip("/")
    return None


def _engine_target(word: Str, kn: _Know) -> bool:
    """Whether a path (resolved as far as possible) lies inside the installed engine."""
    text = word.text
    if not text or any(h in text for h in kn.harness):
        return False
    if _engine_ref(text, kn) is not None:
        return True
    parts = [p for p in text.split("/") if p]
    return (
        len(parts) >= 2
        and parts[-1].endswith(_SOURCE_EXT)
        and any(_norm(p) in kn.packages for p in parts[:-1])
    )


def _compact(word: Str) -> str:
    """The word as a reviewer reads it: long unresolved `$(...)` parts shortened."""
    parts = []
    for seg in word.segs:
        long_sub = seg.unknown is not None and seg.text.startswith("$(") and len(seg.text) > 24
        parts.append("$(…)" if long_sub else seg.text)
    text = "".join(parts)
    return text if len(text) <= 120 else "…" + text[-100:]


def _place(word: Str, kn: _Know) -> Part | str:
    """A path for a message: the path in backticks, or the installed engine."""
    shown = _compact(word)
    ref = _engine_ref(word.text, kn)
    if shown == "$(…)" and ref is not None:
        return part("installed", ref=ref)
    return f"`{shown}`"


def _patch(run: Run, kn: _Know) -> _Op | None:
    found = commands.patch(run.words)
    if found is None:
        return None
    cmd, target = found.cmd, found.target
    if target is not None and any(h in target.text for h in kn.harness):
        return None
    action = part("patch", cmd=cmd)
    if target is not None and target.text:
        action = part("patch-to", cmd=cmd, where=_place(target, kn))
    return _Op(
        run.span,
        action,
        f"{cmd} {target.text if target is not None else ''}".strip(),
    )


def _writes(run: Run, kn: _Know) -> _Op | None:
    """`sed -i`, `cp`/`mv`/`ln`/`install`/`rsync`/`tee`, `curl -o`/`wget -O` into the engine."""
    found = commands.writes(run.words)
    if found is None:
        return None
    for target in found.targets:
        if not _engine_target(target, kn):
            continue
        where = _place(target, kn)
        if found.kind == "sed":
            return _Op(run.span, part("sed", where=where), f"sed -i {target.text}")
        return _Op(
            run.span,
            part(_WRITE_VARIANTS[found.kind], cmd=found.cmd, where=where),
            f"{found.cmd} {target.text}",
        )
    return None


def _python(run: Run, kn: _Know) -> _Op | None:
    found = commands.python_code(run.words, run.stdin)
    if found is None or not found.code or not commands.python_writes(found.code):
        return None
    target = next((a for a in found.args if _engine_target(a, kn)), None)
    ref = _engine_ref(found.code, kn)
    if target is None and ref is None:
        return None
    what = _place(target, kn) if target is not None else part("installed", ref=ref)
    how = "an inline Python heredoc" if found.heredoc else "`python -c`"
    return _Op(
        run.span,
        part("python-heredoc" if found.heredoc else "python-c", where=what),
        f"{how} {target.text if target is not None else ref}",
    )


def _redirect(run: Run, kn: _Know) -> _Op | None:
    dest = run.redirect_to
    if dest is None:
        return None
    if _engine_target(dest, kn):
        return _Op(
            run.span,
            part("redirect", cmd=run.name, dest=_compact(dest)),
            f"> {dest.text}",
        )
    base = posixpath.basename(dest.text)
    body = run.stdin.text if run.stdin is not None else ""
    if base in ("sitecustomize.py", "usercustomize.py") and _imports_engine(body, kn):
        return _Op(
            run.span,
            part("startup-hook", file=base),
            f"> {dest.text}",
        )
    return None


def _imports_engine(code: str, kn: _Know) -> bool:
    return any(_norm(m) in kn.packages for m in commands.imports(code))


def _clone_before(recipe: Recipe, line: int) -> str | None:
    best: tuple[int, str] | None = None
    for run in recipe.commands:
        if run.span.line >= line:
            continue
        url = commands.clone_url(argv.unwrap(run.words, modules=False).words)
        if url is not None and url.known and (best is None or run.span.line > best[0]):
            best = (run.span.line, url.text)
    return best[1] if best else None


def _pip(run: Run, recipe: Recipe, kn: _Know) -> _Op | None:
    found = argv.pip_install(run.words)
    if found is None:
        return None
    indexes = [v.text for v in found.indexes if v.known]
    custom = [u for u in indexes if not any(u.startswith(up) for up in kn.upstream)]
    for inst in found.installs:
        req = inst.req
        if req is None:  # not resolved
            continue
        text = inst.word.text
        name = req.name
        if req.kind == "vcs":
            source = part("from-git")
        elif req.kind == "url":
            if any(text.startswith(up) for up in kn.upstream):
                continue
            source = part("from-url")
        elif req.kind == "path" and name is None:  # `pip install .` in a checkout
            repo = _clone_before(recipe, run.span.line)
            if repo is None:
                continue
            name = argv.requirement(repo).name
            source = part("from-source", repo=repo)
        elif req.kind == "path" or inst.editable:
            source = part("from-local")
        elif custom:
            source = part("from-index", index=custom[0])
        else:
            continue
        if name is None or _norm(name) not in kn.packages:
            continue
        return _Op(
            run.span,
            part("pip", spec=_compact(inst.word), name=name, source=source),
            f"pip install {name} {text}",
        )
    return None


def _resolve(word: Str, recipe: Recipe, ctx: RuleContext) -> str | None:
    """The repository path of a script the recipe runs, when it is in the tree."""
    text = word.text
    rel = commands.script_relative(text)
    candidates: list[str] = []
    if rel is not None:
        candidates.append(posixpath.join(posixpath.dirname(recipe.path), rel))
    elif word.known and not text.startswith("/"):
        candidates += [text, posixpath.join(posixpath.dirname(recipe.path), text)]
    # `$WORKSPACE/benchmarks/x.sh`: the repository mounted somewhere in the container
    top = recipe.path.split("/", 1)[0] + "/"
    at = text.find("/" + top)
    if rel is None and at >= 0:
        candidates.append(text[at + 1 :])
    for cand in candidates:
        path = posixpath.normpath(cand)
        if not path.startswith("..") and ctx.tree.read(path) is not None:
            return path
    return None


def _helper(run: Run, recipe: Recipe, ctx: RuleContext, kn: _Know, depth: int) -> _Op | None:
    word = commands.script(run.words, run.stdin)
    if word is None or depth > 0:
        return None
    name = posixpath.basename(word.text)
    path = _resolve(word, recipe, ctx)
    if path is not None and path != recipe.path:
        inner: _Op | None = None
        if path.endswith(".py"):
            text = ctx.text(path) or ""
            ref = _engine_ref(text, kn)
            if ref is not None and commands.python_writes(text):
                inner = _Op(run.span, part("helper-python", ref=ref), "")
        else:
            sub = ctx.recipe(path)
            if isinstance(sub, Recipe):
                inner = next(iter(_ops(sub, ctx, kn, depth + 1)), None)
                if inner is not None:
                    line = inner.span.line
                    inner = _Op(inner.span, part("helper-line", line=line, action=inner.action), "")
        if inner is None:
            return None
        return _Op(
            run.span,
            part("helper", name=name, inner=inner.action),
            f"runs {path}",
            scripts=(path,),
        )
    stem = re.sub(r"\.(sh|py)$", "", name)
    tokens = {_norm(t) for t in re.split(r"[_.-]+", stem) if t}
    if _PATCH_NAME.search(stem) and (tokens & kn.packages or tokens & _SCRIPT_CONTEXT):
        return _Op(
            run.span,
            part("patch-script", name=name),
            f"runs {name}",
            scripts=(name,),
        )
    return None


def _ops(recipe: Recipe, ctx: RuleContext, kn: _Know, depth: int = 0) -> Iterator[_Op]:
    seen: set[tuple[int, str]] = set()
    for found in recipe.commands:
        # `sudo sed -i ...`, `env A=1 timeout 60 patch ...` -> the wrapped command
        unwrapped = argv.unwrap(found.words, modules=False)
        run = replace(found, words=unwrapped.words) if unwrapped.start else found
        name = run.name
        op: _Op | None = None
        if name in ("git", "patch"):
            op = _patch(run, kn)
        elif name in commands.COPIERS or name in commands.DOWNLOADERS or name == "sed":
            op = _writes(run, kn)
        if op is None and argv.is_python(name):
            op = _python(run, kn)
        if op is None:
            op = _pip(run, recipe, kn)
        if op is None:
            op = _redirect(run, kn)
        if op is None:
            op = _helper(run, recipe, ctx, kn, depth)
        if op is None:
            continue
        key = (op.span.line, op.subject)
        if key in seen:
            continue
        seen.add(key)
        yield _Op(op.span, op.action, op.subject, op.scripts, run.assumptions)


# ------------------------------------------------------------------- waivers


def _waivers(ctx: RuleContext, tree: Any, wdir: str) -> dict[str, str]:
    def load() -> dict[str, str]:
        out = {}
        for path in ctx.all_paths(tree):
            if path.startswith(wdir + "/") and path.endswith(".md"):
                out[path] = ctx.text(path, tree) or ""
        return out

    found: dict[str, str] = ctx.memo(f"waivers:{id(tree)}:{wdir}", load)
    return found


def _introduced(recipe: Recipe, ctx: RuleContext, op: _Op) -> bool | None:
    """Whether the PR adds this patch: True, False, or None outside a PR."""
    if ctx.change is not None:
        if ctx.change.touches_line(recipe.path, op.span.line, op.span.last_line):
            return True
        return any(ctx.change.file(p) is not None for p in op.scripts)
    if ctx.base is None:
        return None
    old = ctx.text(recipe.path, ctx.base)
    if old is None:
        return True
    before = {line.strip() for line in old.splitlines()}
    lines = recipe.lines[op.span.line - 1 : op.span.last_line]
    if any(line.strip() and line.strip() not in before for line in lines):
        return True
    return any(ctx.text(p, ctx.base) != ctx.text(p) for p in op.scripts)


def _names(recipe: Recipe, op: _Op) -> list[str]:
    names = [recipe.path]
    for p in op.scripts:
        names.append(p)
        if "/" in p:
            names.append(
                posixpath.join(posixpath.basename(posixpath.dirname(p)), posixpath.basename(p))
            )
    return names


def _own_waiver(ctx: RuleContext, wdir: str) -> bool:
    if ctx.pr is None:
        return False
    own = f"{wdir}/{ctx.pr}.md"
    if ctx.tree.read(own) is None:
        return False
    if ctx.change is not None:
        return ctx.change.added(own)
    if ctx.base is not None:
        return ctx.base.read(own) is None
    return True


def _coverage(
    recipe: Recipe, ctx: RuleContext, kn: _Know, op: _Op
) -> tuple[str | None, Part] | None:
    """None when a waiver covers the patch; else (severity condition, the missing waiver)."""
    wdir = kn.waiver_dir
    if _own_waiver(ctx, wdir):
        return None
    introduced = _introduced(recipe, ctx, op)
    scripts = {posixpath.basename(p) for p in op.scripts}
    if not recipe.launches:  # the recipe is itself a patch script (it launches no engine)
        scripts.add(posixpath.basename(recipe.path))
    if introduced is True and scripts:
        # a new recipe that runs an already-waived patch script, or a new patch in a
        # patch script a waiver names: that waiver covers it
        pattern = re.compile(
            r"(?<![\w.-])(?:[\w./-]*/)?(?:"
            + "|".join(map(re.escape, sorted(scripts)))
            + r")(?![\w.-])"
        )
        if any(pattern.search(text) for text in _waivers(ctx, ctx.tree, wdir).values()):
            return None
    if introduced is not True:
        tree = ctx.base if ctx.base is not None else ctx.tree
        names = _names(recipe, op)
        if any(any(n in text for n in names) for text in _waivers(ctx, tree, wdir).values()):
            return None
        return "preexisting", part("no-waiver-names-recipe", dir=wdir)
    if ctx.pr is not None:
        return None, part("no-waiver-in-pr", dir=wdir, pr=ctx.pr)
    return None, part("no-waiver-in-change", dir=wdir)


def _when(assumptions: tuple[Any, ...]) -> Part | str:
    return when_clause(assumptions, skip=("EVAL_ONLY",))


def check(recipe: Recipe, ctx: RuleContext) -> Iterator[Finding]:
    if not recipe.commands:
        return
    kn = _know(ctx)
    for op in _ops(recipe, ctx, kn):
        gap = _coverage(recipe, ctx, kn, op)
        if gap is None:
            continue
        condition, waiver = gap
        yield RULE.hit(
            recipe.path,
            op.span,
            op.subject,
            condition=condition,
            action=op.action,
            when=_when(op.when),
            waiver=waiver,
            pr=str(ctx.pr) if ctx.pr is not None else "<PR>",
        )
