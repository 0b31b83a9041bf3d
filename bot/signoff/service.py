"""The sign-off gate on a pull request: gather the facts, verify (pure), write. An edge.

`verify_signoffs(gateway, repo, number, settings=..., events=...)` has the review
pipeline's shape: read the PR and what the bot already wrote, decide in pure code,
re-read the head, write. It is idempotent (the verdict comment is found by its hidden
marker in the bot's own comments and edited in place; the status is set again), so a
retried job never duplicates anything.

Which sign-off counts
---------------------
A *sign-off* is a conversation comment, a submitted review (not dismissed) or an
inline review comment by an account that is neither this bot nor any other bot
(`[bot]` logins, type `Bot`), whose body holds the checklist phrase on a live line
(`bot.signoff.detect.find_signoff`). Its *version* is (kind, id, time), the time being
`updated_at` (a review: `submitted_at`, which an edit does not change).

**The newest sign-off decides**, one verdict per head: a later sign-off supersedes
earlier ones, whoever wrote them. "Any passing one" would let an old pass hide a newer
sign-off that fails; "newest per signer" would give several verdicts for one status.
The newest one is then judged for the head:

- *stale* ("sign-off is for an older commit") when it was made before the head was
  pushed (its time is not after the head's push time: `pull_request.updated_at` of the
  `synchronize` delivery that brought the head, kept in the head's verdict record; a
  head first seen through a reopen or ready_for_review takes that event's time), when it
  is a review on another commit, or when the bot already verified that very version for
  another head. A version the bot verified for this very head stays bound to it: a
  reopen, a ready_for_review or an edit of the PR does not make it stale.
  A new push therefore turns the status to failure on the new head until a CODEOWNER
  signs off again or edits the sign-off (an edit is a new version: re-verification).
- *withdrawn* when it is not newer than the latest withdrawal: a sign-off deleted, a
  sign-off review dismissed, the phrase edited out, or one of the bot's own verdict
  comments edited by someone else (its records can no longer be trusted). Older
  sign-offs do not come back when the newest is withdrawn; a new one is needed.
- otherwise it is verified (`bot.signoff.verify.verify`) against the facts gathered
  here: a version someone other than its author edited carries `edited_by`, and the
  pure core fails it.

Tamper resistance
-----------------
Only comments written by the bot's own account are verdicts. A verdict marker or
"Verdict: PASS" text in anyone else's comment is ignored and reported in the verdict
comment, the log and `bot_signoff_tamper_total`. Edits by someone other than the
author (the payload's `sender` is not the item's `user`), deletions and dismissals
reach the service as delivery summaries (`bot.server.webhook.signoff_event`) and are
recorded in the head's verdict comment, in a hidden JSON record that later runs read
back (from the bot's own comments only), so they stay in force across pushes and
restarts. The status is set on the verified head SHA only, after re-reading the PR's
head just before the write; when the head moved, the whole decision is made again for
the new head.

Residual risk, stated: someone with write access can edit the bot's own verdict
comment; that is seen (and voids every earlier sign-off) only when its webhook
delivery arrives. Write access also allows posting commit statuses directly, so
branch protection should require this status from the bot's App as its source.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field, replace
from typing import Any, cast

from bot.app.config import load_repo_config
from bot.app.pull import ParseCache, lint_pull
from bot.base.records import dataclass
from bot.core.config import ConfigError, build_config
from bot.core.engine import Context, Report
from bot.core.model import Part, T, part
from bot.github.tree import GitHubTree
from bot.github.types import (
    Comment,
    Gateway,
    GitHubError,
    PullInfo,
    SignoffGateway,
    Status,
)
from bot.signoff.codeowners import required_teams
from bot.signoff.detect import find_signoff, has_reuse_sweep
from bot.signoff.gather import SignedComment, Signer, gather
from bot.signoff.model import (
    DEFAULT_STATUS_CONTEXT,
    VERDICT_MARK,
    Check,
    CheckRun,
    PostedComment,
    ReuseSweep,
    SignoffFacts,
    Verdict,
    is_verdict_comment,
)
from bot.signoff.records import RecordedAct, SignoffEvent, VerdictRecord
from bot.signoff.render import check_line, header_lines, render_verdict_comment
from bot.signoff.verify import verify_all
from bot.signoff.wording import frame, says, words

log = logging.getLogger("bot.signoff")

RECORD_MARK = "<!-- codeowner-signoff-verify-record "
RECORD_RE = re.compile(r"<!-- codeowner-signoff-verify-record (\{.*?\}) -->", re.S)
FORGED_RE = re.compile(r"<!--\s*codeowner-signoff-verify|verdict\W{0,8}pass", re.I)
# which files hold CODEOWNERS, the checklist and the sweep workflow: `knowledge.signoff`
MAX_RECORDS = 50  # withdrawals / tamper records kept per verdict comment
MAX_BODY = 65_000  # GitHub refuses comments over 65,536 characters
HEAD_ATTEMPTS = 3  # decisions made again when the head moves under us

Result = str  # pass | fail | stale | withdrawn | unsigned | skipped


@dataclass(frozen=True)
class SignoffSettings:
    status_context: str = DEFAULT_STATUS_CONTEXT
    template_ref: str | None = None  # None: the PR's base branch
    bot_login: str | None = None  # None: asked from the gateway
    max_commits: int = 100  # newest PR commits whose check runs are read
    # files parsed by earlier runs, by blob SHA (`bot.app.pull.service_parses`)
    parses: ParseCache | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Tamper:
    """Something done to a sign-off or a verdict that the gate records and reports."""

    kind: str  # edited_by_other | deleted | dismissed | unsigned | forged_verdict | verdict_edited
    item: str  # "comment 123", "review 45", "inline comment 67"
    by: str
    at: str = ""
    new: bool = True  # first seen in this run (logs and metrics count it once)

    def log_line(self) -> str:
        return f"{self.kind}: {self.item} by @{self.by or '?'}" + (
            f" at {self.at}" if self.at else ""
        )


@dataclass
class SignoffPosted:
    """What one run of the gate wrote (for logs, metrics and tests)."""

    result: Result = "skipped"
    head_sha: str | None = None
    verdict: Verdict | None = None
    comment_id: int | None = None
    status: Status | None = None
    tamper: list[Tamper] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Candidate:
    comment: Comment

    @property
    def at(self) -> str:
        return self.comment.updated_at or self.comment.created_at

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.comment.kind, self.comment.id, self.at)

    @property
    def author(self) -> str:
        return self.comment.author


def _is_bot(login: str, author_type: str, me: str) -> bool:
    low = login.lower()
    return low == me.lower() or author_type == "Bot" or low.endswith("[bot]") or low == "ghost"


def _item(kind: str, item_id: Any) -> str:
    """A comment's key in the records and logs (`comment 123`); its wording is `_what`."""
    name = {"issue": "comment", "review_summary": "review", "review": "inline comment"}
    return f"{name.get(kind, kind)} {item_id}"


def _time(text: str) -> datetime.datetime | None:
    if not text:
        return None
    try:
        when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=datetime.UTC)


def _after(a: str, b: str) -> bool:
    """Is time `a` strictly after time `b` (unknown times are never after)?"""
    ta, tb = _time(a), _time(b)
    return ta is not None and tb is not None and ta > tb


def _newest(times: Iterable[str]) -> str:
    best = ""
    for t in times:
        if t and (not best or _after(t, best)):
            best = t
    return best


# --------------------------------------------------------------------------- records


@dataclass
class Records:
    """What the bot's own verdict comments remember (and this run adds)."""

    head_at: dict[str, str] = field(default_factory=dict)  # head sha -> push time
    verified: dict[tuple[str, int, str], str] = field(default_factory=dict)  # version -> head
    withdrawals: list[RecordedAct] = field(default_factory=list)
    tampered: list[RecordedAct] = field(default_factory=list)  # edited by someone else

    def add_withdrawal(self, w: RecordedAct) -> bool:
        key = (w.get("kind"), w.get("id"), w.get("at"), w.get("why"))
        if any(
            (x.get("kind"), x.get("id"), x.get("at"), x.get("why")) == key for x in self.withdrawals
        ):
            return False
        self.withdrawals.append(w)
        return True

    def add_tampered(self, t: RecordedAct) -> bool:
        key = (t.get("kind"), t.get("id"), t.get("at"))
        if any((x.get("kind"), x.get("id"), x.get("at")) == key for x in self.tampered):
            return False
        self.tampered.append(t)
        return True

    @property
    def cutoff(self) -> str:
        return _newest(str(w.get("at") or "") for w in self.withdrawals)

    def edited_by(self, c: Candidate) -> str | None:
        for t in self.tampered:
            if (t.get("kind"), t.get("id"), t.get("at")) == c.key:
                return str(t.get("by") or "someone else")
        return None


def _record_json(data: VerdictRecord) -> str:
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e")  # stays inside the comment


def read_records(mine: Sequence[Comment]) -> Records:
    """The records in the bot's own comments (callers pass only those)."""
    records = Records()
    for c in mine:
        for m in RECORD_RE.finditer(c.body):
            try:
                data = json.loads(m.group(1))
            except ValueError:
                continue
            if not isinstance(data, dict) or not isinstance(data.get("head"), str):
                continue
            head = data["head"]
            if isinstance(data.get("head_at"), str) and data["head_at"]:
                records.head_at.setdefault(head, data["head_at"])
            s = data.get("signoff")
            if data.get("result") in ("pass", "fail") and isinstance(s, dict):
                key = (str(s.get("kind")), int(s.get("id") or 0), str(s.get("at") or ""))
                records.verified.setdefault(key, head)
            for w in data.get("withdrawals") or []:
                if isinstance(w, dict):  # as an earlier run wrote it: read with .get
                    records.add_withdrawal(cast(RecordedAct, w))
            for t in data.get("tampered") or []:
                if isinstance(t, dict):
                    records.add_tampered(cast(RecordedAct, t))
    return records


# --------------------------------------------------------------------------- events


def apply_events(
    records: Records, events: Sequence[SignoffEvent], me: str
) -> tuple[dict[str, str], list[Tamper]]:
    """Fold the job's delivery summaries into `records`: push times of heads, and what
    was done to sign-offs and verdicts. Returns (head sha -> push time, new tamper)."""
    heads: dict[str, str] = {}
    seen: list[Tamper] = []
    for e in events:
        if e.get("event") == "pull_request":
            sha, at = str(e.get("head_sha") or ""), str(e.get("head_at") or "")
            # only a push (`synchronize`) moves the head: its time is the head's push time
            # (the latest, should a head be pushed again); a reopen, a ready_for_review or
            # an edit leaves the head as it was and says nothing of when it was pushed
            push = sha and at and e.get("action") == "synchronize"
            if push and (sha not in heads or _after(at, heads[sha])):
                heads[sha] = at
            continue
        kind, item_id, action = str(e.get("kind") or ""), e.get("id"), e.get("action")
        if not isinstance(item_id, int):
            continue
        author, sender = str(e.get("author") or ""), str(e.get("sender") or "")
        at = str(e.get("at") or "")
        what = _item(kind, item_id)
        base: RecordedAct = {"kind": kind, "id": item_id, "at": at, "by": sender, "author": author}
        if author and author.lower() == me.lower():
            tampered = action in ("edited", "deleted") and not e.get("by_author")
            if tampered and records.add_withdrawal({**base, "why": f"verdict-{action}"}):
                seen.append(Tamper("verdict_edited", what, sender, at))
            continue
        signoff, was = bool(e.get("signoff")), bool(e.get("was_signoff"))
        if action == "deleted" and signoff:
            if records.add_withdrawal({**base, "why": "deleted"}):
                seen.append(Tamper("deleted", what, sender, at))
        elif action == "dismissed" and signoff:
            if records.add_withdrawal({**base, "why": "dismissed"}):
                seen.append(Tamper("dismissed", what, sender, at))
        elif action == "edited" and (signoff or was) and not e.get("by_author"):
            if records.add_tampered(base):
                seen.append(Tamper("edited_by_other", what, sender, at))
        elif (
            action == "edited"
            and was
            and not signoff
            and records.add_withdrawal({**base, "why": "unsigned"})
        ):
            seen.append(Tamper("unsigned", what, sender, at))
    return heads, seen


# --------------------------------------------------------------------------- the run


def verify_signoffs(
    gateway: Gateway,
    repo: str,
    number: int,
    *,
    settings: SignoffSettings | None = None,
    event: Mapping[str, Any] | None = None,
    events: Sequence[Mapping[str, Any]] = (),
    today: datetime.date | None = None,
) -> SignoffPosted:
    """Judge the PR's newest sign-off for its current head; write the verdict comment and
    the status on that head. `event`/`events`: the delivery summaries that asked for this
    run (`bot.server.webhook.signoff_event`, or a pull_request head); none is needed."""
    settings = settings or SignoffSettings()
    gw = cast(SignoffGateway, gateway)  # the sign-off reads are needed
    # the queue's JSON, checked small and flat by `bot.server.ingress`; every key is read
    # with `.get` and a conversion, so a missing or mistyped one reads as absent
    all_events = [cast(SignoffEvent, e) for e in (*events, *([event] if event is not None else []))]
    for _ in range(HEAD_ATTEMPTS):
        pull = gw.pull(repo, number)
        if pull.state != "open":
            return SignoffPosted(skipped=[f"pull request is {pull.state}"])
        if pull.draft:
            return SignoffPosted(skipped=["draft pull request"])
        me = settings.bot_login or gw.login()
        plan = _plan(gw, pull, me, settings, all_events, today or datetime.date.today())
        if plan.body is None:
            return plan.posted
        posted = plan.posted
        if plan.existing is not None:
            if plan.existing.body != plan.body:
                gw.edit_issue_comment(repo, plan.existing.id, plan.body)
            posted.comment_id = plan.existing.id
        else:
            posted.comment_id = gw.create_issue_comment(repo, number, plan.body)
        # re-read the head just before the status: it is set on the verified head only
        if gw.pull(repo, number).head_sha != pull.head_sha:
            log.info("%s#%d: head moved during sign-off verification; judging again", repo, number)
            continue
        url = f"{pull.html_url}#issuecomment-{posted.comment_id}" if pull.html_url else None
        assert plan.status is not None
        status = replace(plan.status, target_url=url)
        gw.set_status(repo, pull.head_sha, status)
        posted.status = status
        return posted
    raise GitHubError(f"{repo}#{number}: the head kept moving during sign-off verification", 0)


@dataclass
class _Plan:
    posted: SignoffPosted
    body: str | None = None  # None: nothing to write
    existing: Comment | None = None
    status: Status | None = None


def _plan(
    gw: SignoffGateway,
    pull: PullInfo,
    me: str,
    settings: SignoffSettings,
    events: Sequence[SignoffEvent],
    today: datetime.date,
) -> _Plan:
    repo, number, head = pull.repo, pull.number, pull.head_sha
    comments = gw.issue_comments(repo, number)
    reviews = gw.reviews(repo, number)
    inline = gw.review_comments(repo, number)
    everything = [*comments, *reviews, *inline]
    # the bot's verdict comments, found by kind (first-line marker), never by text anywhere
    mine = [c for c in comments if c.author.lower() == me.lower() and is_verdict_comment(c.body)]
    records = read_records(mine)
    seen_before = {(t.get("kind"), t.get("id"), t.get("at")) for t in records.tampered}
    seen_before |= {(w.get("kind"), w.get("id"), w.get("at")) for w in records.withdrawals}
    heads, tamper = apply_events(records, events, me)
    # the head's push time: a push delivered now, else the one the records keep, else (a
    # head first seen through a reopen or ready_for_review) that event's time, at the latest
    head_at = heads.get(head) or records.head_at.get(head, "") or _seen_at(events, head)
    mark = VERDICT_MARK.format(sha=head)
    existing = next((c for c in mine if mark in c.body), None)

    # forged verdicts: anyone but the bot writing the marker or "Verdict: PASS"
    for c in everything:
        if c.author.lower() != me.lower() and FORGED_RE.search(c.body[:200_000]):
            recorded = existing is not None and f"{_item(c.kind, c.id)} " in existing.body
            tamper.append(Tamper("forged_verdict", _item(c.kind, c.id), c.author, "", not recorded))

    candidates = [
        Candidate(c)
        for c in everything
        if not _is_bot(c.author, c.author_type, me)
        and (c.kind != "review_summary" or c.state not in ("DISMISSED", "PENDING"))
        and find_signoff(c.body) is not None
    ]
    candidates.sort(
        key=lambda c: (
            _time(c.at) or datetime.datetime.min.replace(tzinfo=datetime.UTC),
            c.comment.id,
        )
    )
    newest = candidates[-1] if candidates else None
    cutoff = records.cutoff
    posted = SignoffPosted(head_sha=head, tamper=tamper)
    record: VerdictRecord = {"v": 1, "head": head, "head_at": head_at}

    if newest is None or (cutoff and not _after(newest.at, cutoff)):
        if records.withdrawals:
            posted.result = "withdrawn"
        elif any(t.kind == "forged_verdict" for t in tamper) or existing is not None:
            posted.result = "unsigned"
        else:
            posted.skipped.append("no sign-off on the pull request")
            return _Plan(posted)
        signer = newest.author if newest is not None else ""
        verdict = _synthetic(posted.result, head, signer, records)
    elif (stale := _stale(newest, head, head_at, records)) is not None:
        posted.result = "stale"
        verdict = Verdict("fail", head, newest.author, (Check("signoff", "fail", stale),))
    else:
        knowledge = _knowledge(gw, pull)
        # every live sign-off on this head, oldest first: several CODEOWNERS groups
        # combine across sign-offs; the newest decides every other row
        live = [
            c
            for c in candidates
            if (not cutoff or _after(c.at, cutoff)) and _stale(c, head, head_at, records) is None
        ]
        if newest not in live:
            live.append(newest)
        facts = _facts(
            gw, pull, live, me, settings, records, comments, required_teams, knowledge, today
        )
        verdict = verify_all(facts, knowledge)
        posted.result = verdict.verdict
    posted.verdict = verdict
    if newest is not None:
        record["signoff"] = {
            "kind": newest.comment.kind,
            "id": newest.comment.id,
            "at": newest.at,
            "author": newest.author,
        }
    record["result"] = posted.result
    record["withdrawals"] = records.withdrawals[-MAX_RECORDS:]
    record["tampered"] = records.tampered[-MAX_RECORDS:]
    # tamper seen in an earlier run (already in a record) is not new
    posted.tamper = [
        replace(t, new=False) if t.kind != "forged_verdict" and _tamper_key(t) in seen_before else t
        for t in tamper
    ]
    body = _comment(_render(verdict), verdict, posted, records, record)
    return _Plan(posted, body, existing, _status(verdict, posted.result, settings, records))


def _seen_at(events: Sequence[SignoffEvent], head: str) -> str:
    """The earliest time a pull_request delivery other than a push showed `head`."""
    times = [
        str(e.get("head_at") or "")
        for e in events
        if e.get("event") == "pull_request" and str(e.get("head_sha") or "") == head
    ]
    earliest = ""
    for t in times:
        if t and (not earliest or _after(earliest, t)):
            earliest = t
    return earliest


def _tamper_key(t: Tamper) -> tuple[Any, Any, Any]:
    kind_of = {"comment": "issue", "review": "review_summary", "inline comment": "review"}
    name, _, item_id = t.item.rpartition(" ")
    return (kind_of.get(name, name), int(item_id) if item_id.isdigit() else item_id, t.at)


def _stale(c: Candidate, head: str, head_at: str, records: Records) -> T | None:
    """Why `c` is for an older commit than `head`, or None when it is for this one.

    Worded by the `signoff` row's record (SGN001)."""
    what = _what(c.comment.kind, c.comment.id)
    author = f"@{c.author}"
    if c.comment.kind == "review_summary" and c.comment.commit_id and c.comment.commit_id != head:
        sha = c.comment.commit_id[:7]  # GitHub pins a review to the commit it was submitted on
        return says("signoff", "review-of-older", what=what, author=author, sha_7=sha)
    bound = records.verified.get(c.key)
    if bound == head:
        return None  # this very version was verified for this very head: it binds to the SHA
    if head_at and not _after(c.at, head_at):
        return says("signoff", "before-push", what=what, author=author, at=c.at, pushed=head_at)
    if bound is not None and bound != head:
        return says("signoff", "verified-for-older", what=what, author=author, sha_7=bound[:7])
    return None


# --------------------------------------------------------------------------- facts


def _read_text(gw: Gateway, repo: str, path: str, ref: str) -> str | None:
    data = gw.read(repo, path, ref)
    return None if data is None else data.decode("utf-8", errors="replace")


def _knowledge(gw: Gateway, pull: PullInfo) -> Any:
    """The base's knowledge; the defaults' when its configuration is invalid (the review
    reports that)."""
    try:
        config = load_repo_config(GitHubTree(gw, pull.repo, pull.base_sha), ref=pull.base_ref)
    except ConfigError:
        config = build_config(None)
    return config.knowledge


class _ApiSource:
    """The service's `FactSource`: the GitHub API, each answer read once."""

    def __init__(
        self,
        gw: SignoffGateway,
        pull: PullInfo,
        me: str,
        settings: SignoffSettings,
        comments: Sequence[Comment],
        required_teams: Any,
        today: datetime.date,
    ) -> None:
        self.gw, self.pull, self.me, self.settings = gw, pull, me, settings
        self.repo = pull.repo
        self.head_sha = pull.head_sha
        self._comments = comments
        self._required_teams = required_teams
        self._today = today
        self._files = gw.pull_files(self.repo, pull.number)
        self._permissions: dict[str, str | None] = {}

    def base_text(self, path: str) -> str | None:
        return _read_text(self.gw, self.repo, path, self.pull.base_ref)

    def template_text(self, path: str) -> str | None:
        ref = self.settings.template_ref or self.pull.base_ref
        return _read_text(self.gw, self.repo, path, ref)

    def changed(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        files = self._files
        return tuple(f.path for f in files), tuple(f.path for f in files if f.status == "added")

    def changed_count(self) -> int | None:
        """`changed_files`: GitHub's list stops at 3,000 files (documented), this counts all."""
        return self.pull.changed_files

    def permission(self, login: str) -> str | None:
        if login.lower() not in self._permissions:
            self._permissions[login.lower()] = self.gw.collaborator_permission(self.repo, login)
        return self._permissions[login.lower()]

    def signer(
        self, login: str, codeowners: str | None, paths: tuple[str, ...], newest: bool
    ) -> Signer:
        permission = self.permission(login)
        teams: dict[str, bool | None] = {}
        if codeowners is not None:
            for team in sorted(self._required_teams(codeowners, paths, signer=login)):
                org, _, slug = team.lstrip("@").partition("/")
                teams[team] = self.gw.team_membership(self.repo, org, slug, login) if slug else None
        return Signer(permission, teams, self._org_member(login, teams))

    def _org_member(self, login: str, member: Mapping[str, bool | None]) -> bool | None:
        """For teams whose membership is unreadable: is `login` in the teams' organisation?"""
        ask = getattr(self.gw, "org_membership", None)
        orgs = sorted({t.lstrip("@").partition("/")[0] for t, v in member.items() if v is None})
        if ask is None or not orgs:
            return None
        answers = [ask(self.repo, org, login) for org in orgs]
        return True if any(a is True for a in answers) else (None if None in answers else False)

    def commits(self) -> tuple[str, ...] | None:
        """The PR's commits, oldest first, ending with its head: GitHub lists at most 250
        (documented), the oldest, so a longer PR's head is added from the PR itself."""
        listed = tuple(self.gw.pull_commits(self.repo, self.pull.number))
        if self.head_sha not in listed:
            listed = (*listed, self.head_sha)
        return listed

    def check_runs(self, commits: tuple[str, ...] | None) -> tuple[CheckRun, ...] | None:
        runs: list[CheckRun] = []
        for sha in (commits or ())[-self.settings.max_commits :]:
            runs.extend(
                CheckRun(r.name, r.status, r.conclusion, r.head_sha or sha)
                for r in self.gw.check_runs(self.repo, sha)
            )
        return tuple(runs)

    def reuse_sweeps(self) -> tuple[ReuseSweep, ...] | None:
        return tuple(
            ReuseSweep(c.author, self.permission(c.author))
            for c in self._comments
            if has_reuse_sweep(c.body) and c.author.lower() != self.me.lower()
        )

    def comments(self) -> tuple[PostedComment, ...] | None:
        return tuple(
            PostedComment(c.author, c.body, self.permission(c.author))
            for c in self._comments
            if c.author.lower() != self.me.lower() and find_signoff(c.body) is None
        )

    def lint(self) -> tuple[Context | None, Report]:
        outcome = lint_pull(self.gw, self.pull, self._files, self._today, self.settings.parses)
        if outcome.ctx is None or outcome.config_error is not None:
            return None, outcome.report
        return outcome.ctx, outcome.report


def _facts(
    gw: SignoffGateway,
    pull: PullInfo,
    signoffs: Sequence[Candidate],
    me: str,
    settings: SignoffSettings,
    records: Records,
    comments: Sequence[Comment],
    required_teams: Any,
    knowledge: Any,
    today: datetime.date,
) -> list[SignoffFacts]:
    """The facts of each sign-off in `signoffs` (the last is the newest), by the gatherer
    that `bot signoff check` uses too (`bot.signoff.gather`)."""
    src = _ApiSource(gw, pull, me, settings, comments, required_teams, today)
    signed = [SignedComment(c.author, c.comment.body, records.edited_by(c)) for c in signoffs]
    url = pull.html_url.rsplit("/pull/", 1)[0] if "/pull/" in pull.html_url else None
    return gather(
        src, signed, knowledge, pr=pull.number, bot_login=me, repo_url=url, pr_author=pull.author
    )


# --------------------------------------------------------------------------- output


# Why a sign-off was withdrawn, by the record's `why`: a wording of SGN000 each.
_WHY = {
    "deleted": "why-deleted",
    "dismissed": "why-dismissed",
    "unsigned": "why-unsigned",
    "verdict-edited": "why-verdict-edited",
    "verdict-deleted": "why-verdict-deleted",
}
# A comment of the PR by its kind, as the verdict names it: a wording of SGN000 each.
_KIND = {"issue": "item-comment", "review_summary": "item-review", "review": "item-inline-comment"}


def _what(kind: str, item_id: Any) -> Part | str:
    """A comment of the PR, named in each language (`comment 123` / `评论 123`)."""
    return part(_KIND[kind], id=item_id) if kind in _KIND else f"{kind} {item_id}"


def _why(w: RecordedAct, *, by: bool = True) -> Part | str:
    """Why a sign-off was withdrawn, and by whom when recorded."""
    raw = str(w.get("why"))
    why: Part | str = part(_WHY[raw]) if raw in _WHY else raw
    return part("why-by", why=why, by=f"@{w['by']}") if by and w.get("by") else why


def _latest_withdrawal(records: Records) -> RecordedAct:
    never = datetime.datetime.min.replace(tzinfo=datetime.UTC)
    return max(records.withdrawals, key=lambda w: _time(str(w.get("at") or "")) or never)


def _synthetic(result: str, head: str, signer: str, records: Records) -> Verdict:
    """A verdict without verification: withdrawn, or no sign-off at all."""
    if result == "withdrawn" and records.withdrawals:
        reason = says("signoff", "withdrawn", why=_why(_latest_withdrawal(records)))
    elif result == "withdrawn":
        reason = says("signoff", "withdrawn-unrecorded")
    else:
        reason = says("signoff", "unsigned")
    return Verdict("fail", head, signer, (Check("signoff", "fail", reason),))


def _render(verdict: Verdict) -> str:
    """The pure renderer's comment; without a signer (no sign-off at all) just the marker,
    the header and the rows, since there is nobody to address."""
    if verdict.signer:
        return render_verdict_comment(verdict)
    rows = [check_line(c) for c in verdict.checks]
    return "\n".join([VERDICT_MARK.format(sha=verdict.sha), *header_lines(False), "", *rows]) + "\n"


def _status(verdict: Verdict, result: str, settings: SignoffSettings, records: Records) -> Status:
    sha7 = verdict.sha[:7]
    who = f"@{verdict.signer}" if verdict.signer else "the sign-off"
    if result == "pass":
        text = f"Sign-off by {who} verified for {sha7}"
    elif result == "stale":
        text = "sign-off is for an older commit; a CODEOWNER must sign off again"
    elif result == "withdrawn":
        text = "sign-off withdrawn; a CODEOWNER must sign off again"
        if records.withdrawals:
            latest = _latest_withdrawal(records)
            why = words("signoff", _why(latest, by=False)).en
            text = f"sign-off withdrawn ({why}); a CODEOWNER must sign off again"
    elif result == "unsigned":
        text = "no CODEOWNER sign-off"
    else:
        failed = [c.name for c in verdict.checks if c.status in ("fail", "unknown")]
        text = f"Sign-off by {who}: {len(failed)} check(s) not met: {', '.join(failed)}"
    return Status("success" if result == "pass" else "failure", settings.status_context, text[:140])


def _comment(
    rendered: str,
    verdict: Verdict,
    posted: SignoffPosted,
    records: Records,
    record: VerdictRecord,
) -> str:
    """The renderer's verdict, then what was recorded (bilingual), then the hidden record."""
    notes: list[str] = []
    if verdict.verdict == "fail" and verdict.signer and f"@{verdict.signer}" not in rendered:
        notes.append(f"@{verdict.signer}")
    lines: list[str] = []

    def both(text: T) -> str:  # one line, English then Chinese
        return frame("both-inline", en=text.en, zh=text.zh).en

    def note(variant: str, **params: Any) -> str:
        return "- " + both(frame(variant, **params))

    for w in records.withdrawals[-10:]:
        what = _what(str(w.get("kind")), w.get("id"))
        by = part("recorded-by", by=f"@{w['by']}") if w.get("by") else ""
        at = w.get("at") or "?"
        lines.append(note("recorded-withdrawn", what=what, why=_why(w, by=False), by=by, at=at))
    for e in records.tampered[-10:]:
        what = _what(str(e.get("kind")), e.get("id"))
        by, author = f"@{e.get('by')}", f"@{e.get('author') or '?'}"
        lines.append(
            note("recorded-edited", what=what, by=by, author=author, at=e.get("at") or "?")
        )
    for t in posted.tamper:
        if t.kind == "forged_verdict":
            kind, item_id = _tamper_key(t)[:2]
            lines.append(note("recorded-forged", what=_what(kind, item_id), by=f"@{t.by}"))
    body = rendered.rstrip("\n")
    if notes:
        body += "\n\n" + " ".join(notes)
    if lines:
        body += "\n\n**" + both(frame("recorded")) + "**\n\n" + "\n".join(lines)
    body += "\n\n" + RECORD_MARK + _record_json(record) + " -->\n"
    if len(body) > MAX_BODY:  # the record must survive: cut the prose
        tail = "\n\n" + RECORD_MARK + _record_json(record) + " -->\n"
        body = body[: MAX_BODY - len(tail) - 20] + "\n\n…" + tail
    return body
