"""`DryRunGateway`: reads go to the real gateway, writes are recorded instead of performed.

`bot replay --dry-run` runs the review pipeline through it and prints `render()`.
Created comments and reviews get negative ids (never a real GitHub id), created git
objects SHAs of leading zeros, and they are
not visible to later reads: one pipeline run reads before it writes, so it needs
nothing more.

It has no code per gateway method: the method table of `bot.github.types` says which
methods write (`WRITES`); a read is the inner gateway's own method, a write is bound to
its Protocol signature and recorded as a `Write` (a method returning `int` creates
something and gets a fake id).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.github.calls import bind, is_method, is_write, signature
from bot.github.types import CheckRun, Gateway, ReviewComment, Status

# a write's parameters that `Write` has a field for (parameter name → field name)
_FIELDS = {
    "number": "number",
    "comment_id": "id",
    "check_run_id": "id",
    "commit_sha": "sha",
    "sha": "sha",
    "body": "body",
    "comments": "comments",
    "status": "status",
}


@dataclass(frozen=True)
class Write:
    """One write the pipeline asked for."""

    kind: str  # the gateway method: create_review | create_issue_comment | set_status | ...
    repo: str
    number: int | None = None  # pull request
    id: int | None = None  # the id returned (create_*) or edited (edit_*)
    sha: str | None = None  # create_review, set_status
    body: str = ""
    comments: tuple[ReviewComment, ...] = ()
    status: Status | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # other arguments, by name


@dataclass
class DryRunGateway:
    inner: Gateway
    writes: list[Write] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1), repr=False)

    def _fake_id(self) -> int:
        return -next(self._ids)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not is_method(name):
            raise AttributeError(name)
        if not is_write(name):  # reads: delegated (AttributeError when inner lacks one)
            return getattr(self.inner, name)
        return self._recorder(name)

    def _recorder(self, name: str) -> Callable[..., Any]:
        returns = signature(name).return_annotation
        creates = returns is int
        stores = returns is str  # a git object (blob, tree, commit): a fake SHA

        def record(*args: Any, **kwargs: Any) -> Any:
            arguments = bind(name, args, kwargs)
            known: dict[str, Any] = {"repo": str(arguments.pop("repo", ""))}
            for param in list(arguments):
                if param in _FIELDS and arguments[param] is not None:
                    known[_FIELDS[param]] = arguments.pop(param)
            if "comments" in known:
                known["comments"] = tuple(known["comments"])
            new_id = self._fake_id() if creates else None
            if new_id is not None:
                known["id"] = new_id
            self.writes.append(Write(name, extra=arguments, **known))
            if stores:
                return f"{-self._fake_id():040x}"  # never a real object's SHA
            return new_id

        record.__name__ = name
        return record

    # ------------------------------------------------------------- output

    def render(self) -> str:
        """What would have been posted, as readable text."""
        if not self.writes:
            return "dry run: nothing would be written\n"
        out: list[str] = []
        for n, w in enumerate(self.writes, 1):
            out.append(f"--- [{n}] {_title(w)}")
            if w.status is not None:
                s = w.status
                out.append(f"state: {s.state}")
                out.append(f"description: {s.description}")
                if s.target_url:
                    out.append(f"target_url: {s.target_url}")
            if w.body:
                out.append(w.body.rstrip("\n"))
            run = w.extra.get("run")
            if isinstance(run, CheckRun):
                out.extend(_check_run_lines(w.kind, run))
            for c in w.comments:
                where = (
                    f"{c.path}:{c.start_line}-{c.line}" if c.start_line else f"{c.path}:{c.line}"
                )
                out.append(f"  ▸ inline {where} ({c.side})")
                out.extend("    " + line for line in c.body.rstrip("\n").splitlines())
            out.append("")
        out.append(f"dry run: {len(self.writes)} write(s) recorded, none performed")
        return "\n".join(out) + "\n"

    def to_json(self) -> str:
        rows = []
        for w in self.writes:
            row = asdict(w)
            if not row["extra"]:
                del row["extra"]
            rows.append(row)
        return json.dumps(rows, ensure_ascii=False, indent=2, default=repr) + "\n"


def _title(w: Write) -> str:
    if w.kind == "create_review":
        return (
            f"would create a review on {w.repo}#{w.number} at {w.sha} "
            f"with {len(w.comments)} inline comment(s)"
        )
    if w.kind == "create_issue_comment":
        return f"would comment on {w.repo}#{w.number}"
    if w.kind == "edit_issue_comment":
        return f"would edit comment {w.id} in {w.repo}"
    if w.kind == "edit_review_comment":
        return f"would edit review comment {w.id} in {w.repo}"
    if w.kind == "create_check_run":
        run = w.extra.get("run")
        name = run.name if isinstance(run, CheckRun) else "?"
        return f"would create check run {name!r} on {w.repo}"
    if w.kind == "update_check_run":
        return f"would update check run {w.id} in {w.repo}"
    if w.kind == "set_status":
        context = w.status.context if w.status else "?"
        return f"would set status {context!r} on {w.repo}@{w.sha}"
    args = ", ".join(f"{k}={v!r}" for k, v in w.extra.items())
    return f"would call {w.kind} on {w.repo}" + (f" ({args})" if args else "")


def _check_run_lines(kind: str, run: CheckRun) -> list[str]:
    """The check run payload as GitHub would receive it (REST JSON), then its summary,
    details and annotations readable."""
    body = run.to_json()
    if kind == "update_check_run":
        body.pop("head_sha", None)
    shown = {k: v for k, v in body.items() if k != "output"}
    out = [f"payload: {json.dumps(shown, ensure_ascii=False, sort_keys=True)}"]
    if run.output is None:
        return out
    o = run.output
    out.append(f"title: {o.title}")
    out += ["summary:", *("  " + line for line in o.summary.rstrip("\n").splitlines())]
    if o.text:
        out += ["text:", *("  " + line for line in o.text.rstrip("\n").splitlines())]
    for a in o.annotations:
        cols = f":{a.start_column}-{a.end_column}" if a.start_column is not None else ""
        where = f"{a.path}:{a.start_line}" + (
            f"-{a.end_line}" if a.end_line != a.start_line else cols
        )
        out.append(f"  ▸ annotation {a.annotation_level} {where} {a.title}")
        out.extend("    " + line for line in a.message.splitlines())
    return out
