"""Verify a CODEOWNER sign-off: `SignoffFacts` in, `Verdict` out. Pure.

The checks replace the data-decidable ones of the LLM verifier
(`.github/codeowner-signoff-verify-prompt.md`, checks 0-12). Each is reported
once, in this order, with a one-line reason in English and Chinese:

| name | status | what it decides |
|---|---|---|
| `signoff` | pass/fail | a live sign-off (not quoted, not in code), not edited by another user |
| `signed` | pass/fail | `Signed:` is present, not the placeholder, and names the comment's author |
| `owner` | pass/fail/unknown | check 0: the signer owns what the PR changes, has write access, is no bot |
| `template` | pass/fail/unknown | check 5: every current template item present, checked or explained |
| `ci-green` | pass/fail/unknown | check 1: a commit in the PR has green, executed sweep and eval runs |
| `reuse-sweep` | pass/fail/unknown | check 4: an authorized user posted `/reuse-sweep-run` |
| `recipe-link` | pass/fail/na/unknown | check 3a: single-node vLLM/SGLang recipes link an upstream recipe |
| `images` | pass/fail/na/unknown | check 6 by CFG003, CFG004 |
| `deprecated` | pass/fail/na/unknown | check 7 by CFG005 |
| `architecture` | pass/fail/na/unknown | check 8 by RCP007 |
| `chat-template` | pass/fail/na/unknown | check 9 by RCP009 |
| `waiver` | pass/fail/na/unknown | check 10 by RCP008, and the PR's own waiver linked in the sign-off |
| `golden-al` | pass/fail/na/unknown | check 11 by RCP003-RCP006 |
| `append-only` | pass/fail/na/unknown | check 12 by CHL010 |

and "needs a human" rows (status `human`) for what data cannot decide:
`explanations` (reasons given for unchecked items), `eval-accuracy` (check 2),
`recipe-upstream` (check 3b/3c: the linked recipe is merged and its major
server arguments match), `waiver-content` (the waiver covers the patch),
`patch-preexisting` (a patch the PR did not add that no waiver names),
`append-only-isolation` (check 12's behavioural isolation), and
`<check>-unread` for benchmarks the recipe rules do not read (multi-node files
and master-config entries, other changed scripts): the rules read single-node
recipe scripts, so a pass says so and the rest is left to a human. When a
check concerns only such benchmarks, the check itself is `human`.

The verdict:

- `pass` only when every check is `pass`, `na` or `human`;
- `unknown` fails it: a required status must not go green on a fact nobody
  verified, so the row says "could not verify X" and what would let the bot
  read it (a token that can read team membership, the PR's check runs);
- `human` does not fail it: the CODEOWNER has signed that they checked those
  items by hand; the row tells the maintainer which parts the bot did not
  verify, so they know what they rely on.

A body without a live sign-off yields a single `signoff` row (fail): nothing
else can be read from it. The verdict names the head SHA of the facts; which
head is current is the caller's business.

This module reads the sign-off itself (`signoff`, `signed`, `disapproval`) and adds
the rows up; the other checks live by concern: `check_owner` (check 0, and the
CODEOWNERS groups of several sign-offs), `check_template` (check 5), `check_ci`
(checks 1 and 4), `check_content` (checks 3a, 6-12); `rows` holds what they share,
`settings` the knowledge they read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.core.config import Knowledge
from bot.core.model import Join, Part, part
from bot.signoff.check_ci import ci_row, reuse_row
from bot.signoff.check_content import RULE_CHECKS, recipe_link_rows, rule_check_rows, waiver_rows
from bot.signoff.check_owner import owner_groups, owner_row, owns_group
from bot.signoff.check_template import template_rows
from bot.signoff.detect import Signoff, absence_reason, find_signoff
from bot.signoff.model import (
    SIGNOFF_PHRASE,
    Check,
    SignoffFacts,
    Verdict,
)
from bot.signoff.rows import (
    MAX_LISTED,
    at_login,
    is_bot,
    make_row,
    same_login,
)
from bot.signoff.settings import Settings

# ------------------------------------------------------------------ sign-off, signature


def _absent(body: str) -> Check:
    why = absence_reason(body)
    if why == "quoted":
        return make_row("signoff", "fail", "quoted")
    if why == "code":
        return make_row("signoff", "fail", "in-code")
    if why == "comment":
        return make_row("signoff", "fail", "in-html-comment")
    return make_row("signoff", "fail", "no-phrase", signoff_phrase=SIGNOFF_PHRASE)


def _detected(facts: SignoffFacts, signoff: Signoff) -> Check:
    if facts.edited_by and not same_login(facts.edited_by, facts.signer):
        return make_row("signoff", "fail", "edited-by-other", edited_by=at_login(facts.edited_by))
    return make_row("signoff", "pass", "found", signer=at_login(facts.signer), line=signoff.line)


def _signed(facts: SignoffFacts, signoff: Signoff) -> Check:
    if signoff.signed is None:
        return make_row("signed", "fail", "missing")
    if signoff.placeholder:
        return make_row("signed", "fail", "placeholder")
    login = signoff.signed_login
    if login is None:
        return make_row("signed", "fail", "no-login")
    if not same_login(login, facts.signer):
        return make_row(
            "signed", "fail", "names-other", login=at_login(login), signer=at_login(facts.signer)
        )
    return make_row("signed", "pass", "names-author", signer=at_login(facts.signer))


# ------------------------------------------------------------------ disapproval


def _disapproval(facts: SignoffFacts, cfg: Settings) -> list[Check]:
    """policy-bot's disapproval: a phrase by someone with write access blocks until withdrawn."""
    if not cfg.disapprove:
        return []
    if facts.comments is None:
        return [make_row("disapproval", "unknown", "comments-unread")]

    def says(body: str, phrases: Sequence[str]) -> bool:
        low = body.lower()
        return any(p.lower() in low for p in phrases)

    standing: dict[str, str] = {}
    for c in facts.comments:
        if same_login(c.author, facts.bot_login):
            continue
        key = c.author.lower()
        if cfg.withdraw and says(c.body, cfg.withdraw):
            standing.pop(key, None)
        elif says(c.body, cfg.disapprove) and (c.permission or "").lower() in cfg.write:
            standing[key] = c.author
    if standing:
        who = Join(tuple(at_login(a) for a in standing.values()))
        undo = Join(tuple(f"`{w}`" for w in cfg.withdraw)) if cfg.withdraw else "-"
        return [make_row("disapproval", "fail", "disapproved", who=who, undo=undo)]
    return [make_row("disapproval", "pass", "none")]


# ------------------------------------------------------------------ a partial file list


# the rows judged from the PR's changed files (ownership, and what the lint read of them)
_FILE_ROWS = frozenset(
    {
        "owner",
        "recipe-link",
        "images",
        "deprecated",
        "architecture",
        "chat-template",
        "waiver",
        "golden-al",
        "append-only",
    }
)


def _unlisted(facts: SignoffFacts, checks: list[Check]) -> list[Check]:
    """When GitHub listed only part of the PR's files, a row judged from them that would
    pass or not apply is `unknown`: the files it did not see decide it. What a row found
    wrong still fails, and what needs a human still does."""
    cut = facts.files_partial
    if cut is None:
        return checks
    counts = {
        "listed": f"{cut.listed:,}",
        "changed": f"{cut.changed:,}",
        "rest": f"{cut.changed - cut.listed:,}",
    }
    return [
        make_row(
            c.name,
            "unknown",
            "owners-unlisted" if c.name == "owner" else "files-unlisted",
            **counts,
        )
        if c.name in _FILE_ROWS and c.status in ("pass", "na")
        else c
        for c in checks
    ]


# ------------------------------------------------------------------ the verdict


def _verdict(facts: SignoffFacts, checks: Sequence[Check]) -> Verdict:
    ok = all(c.status in ("pass", "na", "human") for c in checks)
    return Verdict("pass" if ok else "fail", facts.head_sha, facts.signer, tuple(checks))


def verify(facts: SignoffFacts, knowledge: Knowledge) -> Verdict:
    """Every check of the sign-off in `facts.body`, and the verdict they add up to."""
    cfg = Settings.from_knowledge(knowledge)
    signoff = find_signoff(facts.body)
    if signoff is None:
        return _verdict(facts, [_absent(facts.body)])
    checks: list[Check] = [
        _detected(facts, signoff),
        _signed(facts, signoff),
        owner_row(facts, cfg),
    ]
    checks += _disapproval(facts, cfg)
    # which items apply is read from the changed files: unknown when GitHub listed part
    checks += template_rows(
        replace(facts, content=None) if facts.files_partial else facts, signoff, cfg
    )
    checks.append(ci_row(facts, cfg))
    checks.append(make_row("eval-accuracy", "human", "check"))
    checks.append(reuse_row(facts, cfg))
    checks += recipe_link_rows(facts, signoff, cfg)
    by_name = {s.name: s for s in RULE_CHECKS}
    for name in ("images", "deprecated", "architecture", "chat-template"):
        checks += rule_check_rows(by_name[name], facts, cfg, signoff)
    checks += waiver_rows(facts, signoff, cfg)
    for name in ("golden-al", "append-only"):
        checks += rule_check_rows(by_name[name], facts, cfg, signoff)
    return _verdict(facts, _unlisted(facts, checks))


# ------------------------------------------------------------------ several sign-offs
def _valid_signer(v: Verdict) -> bool:
    """A sign-off whose own rows pass apart from who owns what."""
    ok = ("pass", "na", "human")
    for c in v.checks:
        if c.name == "owner":
            continue
        if c.name in ("signoff", "signed", "template", "disapproval") and c.status not in ok:
            return False
    return True


def verify_all(signoffs: Sequence[SignoffFacts], knowledge: Knowledge) -> Verdict:
    """The verdict over every live sign-off on one head, in the order posted.

    The newest decides every row but ownership: a PR touching the files of several
    CODEOWNERS groups passes when each group has a valid sign-off (its own rows pass and
    its signer owns the group, with write access), combined across sign-off comments; the
    owner row names the groups still missing.
    """
    if not signoffs:
        raise ValueError("verify_all needs at least one sign-off")
    cfg = Settings.from_knowledge(knowledge)
    newest = signoffs[-1]
    verdict = verify(newest, knowledge)
    rows = {c.name: c for c in verdict.checks}
    owner = rows.get("owner")
    groups = owner_groups(newest)
    signers = {f.signer.lower() for f in signoffs}
    if owner is None or owner.status == "pass" or not groups or len(signers) < 2:
        return verdict  # one signer: their own owner row says best what is wrong
    if newest.files_partial is not None:
        return verdict  # the groups of the files GitHub did not list are unknown
    covered: dict[int, str] = {}
    seen: set[str] = set()
    for facts in reversed(signoffs):
        if facts.signer.lower() in seen:
            continue  # a signer's newest sign-off speaks for them
        seen.add(facts.signer.lower())
        if facts is not newest:
            facts = replace(facts, findings=newest.findings, content=newest.content)
        own = verify(facts, knowledge) if facts is not newest else verdict
        permission = (facts.signer_permission or "").lower()
        if not _valid_signer(own) or permission not in cfg.write or is_bot(facts.signer, facts):
            continue
        if cfg.exclude_author and same_login(facts.signer, facts.pr_author):
            continue
        for g in groups:
            if g.line not in covered and owns_group(facts, g, cfg):
                covered[g.line] = facts.signer
    if len(covered) < len(groups) and (owner.status != "fail" or not covered):
        # unknown stays unknown (combining cannot verify what one could not), and with no
        # group covered the newest signer's own reason is the clearest
        return verdict
    if len(covered) < len(groups):
        missing = [g for g in groups if g.line not in covered]
        shown = Join(
            tuple(
                part("group", path=g.paths[0], owners=Join(g.owners), line=g.line)
                if g.line
                else part("group-any", path=g.paths[0])
                for g in missing[:MAX_LISTED]
            ),
            "clauses",
        )
        lines = tuple(
            part("covered-line", line=k, signer=at_login(v))
            for k, v in sorted(covered.items())
            if k
        )
        have: Join | Part = Join(lines) if lines else part("covered-none")
        check = make_row("owner", "fail", "groups-missing", shown=shown, have=have)
    else:
        have = Join(
            tuple(
                part("signed-line", line=k, signer=at_login(v))
                if k
                else part("signed-catch-all", signer=at_login(v))
                for k, v in sorted(covered.items())
            )
        )
        check = make_row("owner", "pass", "groups-signed", have=have)
    checks = tuple(check if c.name == "owner" else c for c in verdict.checks)
    return _verdict(newest, list(checks))
