"""The advisor's questions, each raised only by a deterministic trigger. Pure.

A question is asked only where a rule cannot decide, and only when its trigger fires on
the change: never a question a rule answers, never a status, a sign-off verdict or a
finding's line. Each question carries the files the model may cite (numbered new-side
lines of the PR's hunks) and context it may read but not cite (a sibling recipe, a
waiver, the PR body, an upstream recipe).

1. `upstream_args`   a changed recipe links an upstream recipe whose text is available:
                     do the parsed major server args match it?
2. `waiver_coverage` a changed recipe patches the engine and a waiver is filed (RCP008
                     is then silent): does the waiver cover that patch?
3. `append_only_gating` the new changelog entry is `append-only`: is each
                     benchmark-affecting hunk of a modified recipe gated to the new points?
4. `signoff_reasons` a sign-off leaves checklist items unchecked with reasons: are they
                     adequate?
5. `sibling_diff`    a new recipe has a proven sibling: how does it differ, with the
                     sibling's NOTE comments as context?
6. `claims_match`    the PR body or the new changelog entry states values ("gmu 0.90",
                     "AL 2.83 from <file>") or mixes English and Chinese: do they match the
                     parsed values, and do the two languages agree?
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence

from bot.base.records import dataclass
from bot.core.changeset import ChangeSet, FileChange

CONTEXT_LINES = 3  # context lines around a hunk, as `git diff` shows them
MAX_CONTEXT_CHARS = 12_000  # per context block
QUESTION_IDS = (
    "upstream_args",
    "waiver_coverage",
    "append_only_gating",
    "signoff_reasons",
    "sibling_diff",
    "claims_match",
)

RECIPE_RE = re.compile(r"^benchmarks/.+\.(?:sh|ya?ml)$")
CHANGELOG = "perf-changelog.yaml"
_UPSTREAM_RE = re.compile(
    r"https?://(?:docs\.vllm\.ai|recipes\.vllm\.ai|docs\.sglang\.ai|"
    r"github\.com/(?:vllm-project/recipes|sgl-project/sglang|NVIDIA/TensorRT-LLM|ROCm/[\w.-]+)"
    r")[^\s)\"'>]*"
)
_PATCH_RE = re.compile(
    r"\bpatch\s+-p\d|\bgit\s+(?:apply|am)\b|\bsed\s+-i\b.*(?:site-packages|dist-packages|"
    r"find_spec|__file__|/sgl-workspace)|apply_\w*patch"
)
_CLAIM_RE = re.compile(
    r"(?i)\b(?:gmu|gpu[-_ ]memory[-_ ]utili[sz]ation|AL|acceptance(?: length)?|tp|ep|conc|"
    r"max[-_ ]num[-_ ]seqs|num[-_ ]speculative[-_ ]tokens|K)\s*[=:]?\s*\d+(?:\.\d+)?\b|"
    r"\b\d+\.\d+\b"
)
_CJK_RE = re.compile("[\u4e00-\u9fff]")
_UNCHECKED_RE = re.compile(r"^\s*[-*]\s*\[ \]\s*(.+?)\s*$", re.M)
SIGNOFF_PHRASE = "As a PR reviewer and CODEOWNER"


@dataclass(frozen=True)
class Source:
    """A file as the model sees it: numbered lines; `citable` are new-side hunk lines."""

    path: str
    lines: tuple[tuple[int, str], ...]  # (line number, text), the lines shown
    citable: frozenset[int]

    def text_of(self, line: int) -> str | None:
        for n, text in self.lines:
            if n == line:
                return text
        return None


@dataclass(frozen=True)
class Block:
    """Context the model may read but not cite."""

    label: str  # "sibling recipe benchmarks/...", "PR body", ...
    text: str


@dataclass(frozen=True)
class Question:
    id: str  # one of QUESTION_IDS
    ask: str  # the question, fixed text per id (never PR text)
    sources: tuple[Source, ...]
    context: tuple[Block, ...] = ()
    subject: str = ""  # the path or item the question is about (for dedupe and logs)

    def source(self, path: str) -> Source | None:
        return next((s for s in self.sources if s.path == path), None)


@dataclass(frozen=True)
class PrText:
    """What people wrote on the PR (all of it hostile input)."""

    title: str = ""
    body: str = ""
    signoffs: tuple[str, ...] = ()  # bodies of sign-off comments, newest last


ASK = {
    "upstream_args": (
        "Do the major server arguments this recipe launches the engine with (parallelism, "
        "memory fraction, max sequences, KV-cache dtype, parsers, speculative config) match "
        "the linked upstream recipe's text? Report each argument that differs without a "
        "reason given in the recipe."
    ),
    "waiver_coverage": (
        "The recipe patches the inference engine and a waiver file is filed. Does the waiver "
        "describe this patch (what is patched, why, the upstream PR or issue, a removal "
        "plan)? Report a patch line the waiver does not cover."
    ),
    "append_only_gating": (
        "The new changelog entry is append-only: it may add benchmark points but must not "
        "change any existing point's result. For each hunk of the modified recipe that can "
        "change a benchmark result, is it gated so it applies to the new points only? Cite "
        "the guard line for a gated hunk, or the ungated line for a concern."
    ),
    "signoff_reasons": (
        "A CODEOWNER sign-off leaves checklist items unchecked and gives reasons. Are the "
        "reasons adequate for what this PR changes? Cite the changed line an inadequate "
        "reason is about."
    ),
    "sibling_diff": (
        "This new recipe has a proven sibling recipe (shown as context, with its NOTE "
        "comments). How does the new recipe differ from the sibling in ways that can break "
        "or skew the benchmark, especially where a sibling NOTE comment explains why the "
        "sibling does something? Ignore differences the recipe's own comments justify."
    ),
    "claims_match": (
        "Do the values stated in the PR description and the new changelog entry (memory "
        "fraction, acceptance length and its golden file, parallelism, concurrency) match "
        "what the changed files really set? Where both English and Chinese text is given, "
        "do they say the same thing?"
    ),
}


# ------------------------------------------------------------------ sources


def _head_lines(change: ChangeSet, path: str) -> list[str] | None:
    data = change.head.read(path)
    if data is None or b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def source_of(change: ChangeSet, fc: FileChange, max_lines: int = 400) -> Source | None:
    """The new-side lines of `fc`'s hunks (with context), numbered; None when nothing to show."""
    lines = _head_lines(change, fc.path)
    if lines is None or fc.binary or fc.status == "deleted":
        return None
    citable: set[int] = set()
    shown: set[int] = set()
    if fc.status == "added":
        citable = set(range(1, len(lines) + 1))
        shown = set(citable)
    else:
        for h in fc.hunks:
            first, last = h.new_start, h.new_start + h.new_count - 1
            lo = max(1, first - CONTEXT_LINES)
            hi = min(len(lines), max(last, first - 1) + CONTEXT_LINES)
            span = set(range(lo, hi + 1))
            citable |= span
            shown |= span
    numbers = sorted(shown)[:max_lines]
    if not numbers:
        return None
    return Source(
        fc.path,
        tuple((n, lines[n - 1]) for n in numbers),
        frozenset(n for n in citable if n in set(numbers)),
    )


def _clip(text: str) -> str:
    if len(text) <= MAX_CONTEXT_CHARS:
        return text
    return text[:MAX_CONTEXT_CHARS] + "\n[... truncated ...]"


def _numbered(text: str) -> str:
    return "\n".join(f"{n}| {line}" for n, line in enumerate(text.splitlines(), 1))


# ------------------------------------------------------------------ triggers


def _recipes(change: ChangeSet) -> list[FileChange]:
    return [
        f
        for f in change.files
        if RECIPE_RE.match(f.path) and f.status != "deleted" and not f.binary
    ]


def _changelog_added(change: ChangeSet) -> str:
    fc = change.file(CHANGELOG)
    lines = _head_lines(change, CHANGELOG) if fc is not None else None
    if fc is None or lines is None:
        return ""
    return "\n".join(lines[n - 1] for n in sorted(fc.added_lines) if n <= len(lines))


def sibling_of(path: str, paths: Sequence[str]) -> str | None:
    """The proven sibling of a new recipe: the same name in the other single-node folder,
    else the same name with or without `_mtp`, else the same model and SKU."""
    folder, name = posixpath.split(path)
    stem, ext = posixpath.splitext(name)
    have = set(paths) - {path}
    parent, kind = posixpath.split(folder)
    other = {"agentic": "fixed_seq_len", "fixed_seq_len": "agentic"}.get(kind)
    candidates = []
    if other:
        candidates.append(posixpath.join(parent, other, name))
    alt = stem[: -len("_mtp")] if stem.endswith("_mtp") else stem + "_mtp"
    candidates.append(posixpath.join(folder, alt + ext))
    if other:
        candidates.append(posixpath.join(parent, other, alt + ext))
    for c in candidates:
        if c in have:
            return c
    parts = stem.split("_")
    if len(parts) >= 3:
        prefix = "_".join(parts[:1]) + "_"
        sku = parts[2]
        same = sorted(
            p
            for p in have
            if posixpath.dirname(p) == folder
            and posixpath.basename(p).startswith(prefix)
            and f"_{sku}" in posixpath.basename(p)
        )
        if same:
            return same[0]
    return None


def build_questions(
    change: ChangeSet,
    pr: PrText | None = None,
    *,
    head_paths: Sequence[str] = (),
    upstream: Callable[[str], str | None] | None = None,
    waiver_dir: str = "docs/waiver",
    max_questions: int = 6,
) -> list[Question]:
    """Every question whose trigger fires on `change`, at most one per id and subject."""
    asking = _Triggers(change, pr or PrText(), list(head_paths))
    out = [
        *asking.upstream_args(upstream),
        *asking.waiver_coverage(waiver_dir),
        *asking.append_only_gating(),
        *asking.signoff_reasons(),
        *asking.sibling_diff(),
        *asking.claims_match(),
    ]
    seen: set[tuple[str, str]] = set()
    unique = []
    for q in out:
        if (q.id, q.subject) not in seen:
            seen.add((q.id, q.subject))
            unique.append(q)
    return unique[:max_questions]


class _Triggers:
    """One pull request's questions, one method per trigger (in the order they are asked)."""

    def __init__(self, change: ChangeSet, pr: PrText, head_paths: list[str]) -> None:
        self.change = change
        self.pr = pr
        self.head_paths = head_paths
        self.recipes = _recipes(change)
        self.sources: dict[str, Source] = {}
        for fc in [*self.recipes, *(f for f in change.files if f.path == CHANGELOG)]:
            src = source_of(change, fc)
            if src is not None:
                self.sources[fc.path] = src
        self.added_log = _changelog_added(change)

    def text(self, path: str) -> str:
        data = self.change.head.read(path)
        return data.decode("utf-8", errors="replace") if data is not None else ""

    def upstream_args(self, upstream: Callable[[str], str | None] | None) -> Iterator[Question]:
        """1. upstream recipe links"""
        if upstream is None:
            return
        for fc in self.recipes:
            if fc.path not in self.sources:
                continue
            links = _UPSTREAM_RE.findall(self.text(fc.path)) + _UPSTREAM_RE.findall(self.pr.body)
            for url in dict.fromkeys(links):
                body = upstream(url)
                if body:
                    blocks = (Block(f"upstream recipe {url}", _clip(body)),)
                    src = (self.sources[fc.path],)
                    yield Question("upstream_args", ASK["upstream_args"], src, blocks, fc.path)
                    break

    def waiver_coverage(self, waiver_dir: str) -> Iterator[Question]:
        """2. an engine patch with a waiver filed"""
        folder = waiver_dir.rstrip("/")
        waivers = {
            p: self.text(p)
            for p in self.head_paths
            if p.startswith(folder + "/") and p.endswith(".md")
        }
        own = f"{folder}/{self.change.pr}.md" if self.change.pr else None
        for fc in self.recipes:
            src = self.sources.get(fc.path)
            if src is None or not any(_PATCH_RE.search(t) for _, t in src.lines):
                continue
            name = posixpath.basename(fc.path)
            chosen = {p: t for p, t in waivers.items() if p == own or name in t}
            if chosen:
                blocks = tuple(Block(f"waiver {p}", _clip(t)) for p, t in sorted(chosen.items()))
                yield Question("waiver_coverage", ASK["waiver_coverage"], (src,), blocks, fc.path)

    def append_only_gating(self) -> Iterator[Question]:
        """3. append-only changelog entry with modified recipes"""
        if not re.search(r"(?m)^\s*append-only:\s*true\b", self.added_log):
            return
        modified = [
            self.sources[f.path]
            for f in self.recipes
            if f.status == "modified" and f.path in self.sources
        ]
        if modified:
            blocks = (Block("new changelog entry", self.added_log),)
            ask = ASK["append_only_gating"]
            yield Question("append_only_gating", ask, tuple(modified), blocks, "")

    def signoff_reasons(self) -> Iterator[Question]:
        """4. unchecked sign-off items with reasons (the newest sign-off)"""
        for body in reversed(self.pr.signoffs):
            if SIGNOFF_PHRASE not in body:
                continue
            reasons = [m for m in _UNCHECKED_RE.findall(body) if len(m) > 3]
            if reasons and self.sources:
                listed = "\n".join(f"- [ ] {r}" for r in reasons)
                blocks = (Block("unchecked sign-off items", listed),)
                src = tuple(self.sources.values())
                yield Question("signoff_reasons", ASK["signoff_reasons"], src, blocks, "")
            return

    def sibling_diff(self) -> Iterator[Question]:
        """5. a new recipe and its proven sibling"""
        for fc in self.recipes:
            if fc.status != "added" or fc.path not in self.sources:
                continue
            sib = sibling_of(fc.path, self.head_paths)
            if sib is None:
                continue
            sib_text = self.text(sib)
            notes = [
                f"{n}| {line}"
                for n, line in enumerate(sib_text.splitlines(), 1)
                if re.search(r"#\s*(?:NOTE|Note|WARNING|IMPORTANT)\b", line)
            ]
            blocks = [Block(f"sibling recipe {sib}", _clip(_numbered(sib_text)))]
            if notes:
                blocks.append(Block(f"NOTE comments of {sib}", "\n".join(notes)))
            src = (self.sources[fc.path],)
            yield Question("sibling_diff", ASK["sibling_diff"], src, tuple(blocks), fc.path)

    def claims_match(self) -> Iterator[Question]:
        """6. stated values, and English/Chinese agreement"""
        pr = self.pr
        claims = pr.title + "\n" + pr.body + "\n" + self.added_log
        bilingual = bool(_CJK_RE.search(claims)) and bool(re.search(r"[A-Za-z]{4,}", claims))
        if not (_CLAIM_RE.search(claims) or bilingual) or not self.sources:
            return
        blocks: list[Block] = []
        if pr.body.strip() or pr.title.strip():
            blocks.append(Block("PR title and description", _clip(f"{pr.title}\n\n{pr.body}")))
        if self.added_log:
            blocks.append(Block("new changelog entry", self.added_log))
        if blocks:
            src = tuple(self.sources.values())
            yield Question("claims_match", ASK["claims_match"], src, tuple(blocks), "")


def upstream_from(resolve: Mapping[str, str]) -> Callable[[str], str | None]:
    """An `upstream` resolver over a fixed map of URL → text (tests, offline evaluation)."""
    return resolve.get


__all__ = [
    "ASK",
    "QUESTION_IDS",
    "Block",
    "PrText",
    "Question",
    "Source",
    "build_questions",
    "sibling_of",
    "source_of",
]
