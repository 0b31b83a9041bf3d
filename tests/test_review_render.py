"""The pure review planner: what to post, what is already posted, what is gone."""

from __future__ import annotations

from dataclasses import replace

from bot.core.changeset import FileChange
from bot.core.model import ERROR, WARNING, Finding, Span, T
from bot.github.types import Comment
from bot.review import render

PATCH = (
    "@@ -1,3 +1,5 @@\n"
    " #!/usr/bin/env bash\n"
    "+DRAFT=x\n"
    " vllm serve m \\\n"
    "-    --gpu-memory-utilization 0.9\n"
    "+    --gpu-memory-utilization 0.95 \\\n"
    "+    --reasoning-parser minimax_m3\n"
    "@@ -40,2 +42,2 @@\n"
    " a\n"
    "-b\n"
    "+c\n"
)
PATH = "benchmarks/single_node/agentic/m_mtp.sh"


def finding(rule: str, line: int, subject: str, severity: str = ERROR, path: str = PATH) -> Finding:
    return Finding(
        rule=rule,
        slug="some-slug",
        severity=severity,  # type: ignore[arg-type]
        path=path,
        span=Span(line),
        title=T("Title", "标题"),
        message=T(f"message {subject}", f"消息 {subject}"),
        fix=T("Do it", "照做"),
        subject=subject,
        suggestion="    --gpu-memory-utilization 0.90 \\" if rule == "RCP002" else None,
    )


def placed(f: Finding, patch: str = PATCH) -> Finding:
    """`f` placed in the change `patch` describes, as the engine places it."""
    where = FileChange.from_patch(f.path, patch).place(f.line, f.span.last_line)
    return replace(f, in_diff=where.changed, comment_lines=where.comment)


def test_commentable_lines_follow_the_patch() -> None:
    change = FileChange.from_patch(PATH, PATCH)
    assert change.shown_lines == {1, 2, 3, 4, 5, 42, 43}
    assert change.added_lines == {2, 4, 5, 43}
    assert change.removed_lines == {3, 41}


def test_new_findings_inline_and_outside_the_diff() -> None:
    fs = [finding("RCP002", 4, "gmu"), finding("RCP001", 5, "rp"), finding("RCP003", 20, "al")]
    plan = render.plan_review([placed(f) for f in fs], [], "a" * 40, {}, "")
    assert [c.line for _, c in plan.inline] == [4, 5]
    assert [f.rule for f in plan.outside] == ["RCP003"]
    body = plan.inline[0][1].body
    assert "```suggestion\n    --gpu-memory-utilization 0.90 \\\n```" in body
    assert "message gmu" in body and "消息 gmu" in body
    assert render.fingerprints_in(body) == [fs[0].fingerprint]
    assert plan.review_body is not None and render.review_shas_in(plan.review_body) == ["a" * 40]
    assert render.SUMMARY_MARK in plan.summary


def test_already_posted_findings_are_not_posted_again_even_after_lines_move() -> None:
    first = finding("RCP002", 4, "gmu")
    posted = Comment(1, render.comment_body(first, None, ""), "bot[bot]", PATH, 4, kind="review")
    moved = placed(finding("RCP002", 5, "gmu"))  # same defect, one line lower after a rebase
    assert moved.fingerprint == first.fingerprint
    plan = render.plan_review([moved], [posted], "b" * 40, {}, "")
    assert plan.inline == [] and plan.already == [moved] and plan.resolve == []


def test_gone_findings_are_resolved_not_deleted_and_listed_as_fixed() -> None:
    old = finding("RCP001", 5, "rp")
    inline = Comment(7, render.comment_body(old, None, ""), "bot[bot]", PATH, 5, kind="review")
    summary = Comment(9, render.summary_body([old], [], [], "a" * 40), "bot[bot]", kind="issue")
    plan = render.plan_review([], [inline, summary], "c" * 40, {}, "")
    assert plan.resolve == [inline]
    assert plan.summary_comment == summary
    assert plan.fixed == [["RCP001", PATH, "Title"]]
    assert "Fixed since the last push" in plan.summary
    body = render.resolved_body(inline.body, "c" * 40)
    assert render.RESOLVED_MARK in body and "message rp" in body
    assert render.resolved_body(body, "d" * 40) == body  # idempotent


def test_replies_and_resolved_threads_are_left_alone() -> None:
    old = finding("RCP001", 5, "rp")
    reply = Comment(
        8, render.comment_body(old, None, ""), "bot[bot]", PATH, 5, in_reply_to=7, kind="review"
    )
    done = Comment(
        6,
        render.resolved_body(render.comment_body(old, None, ""), "a" * 40),
        "bot[bot]",
        kind="review",
    )
    plan = render.plan_review([], [reply, done], "c" * 40, {}, "")
    assert plan.resolve == []


def test_no_second_review_for_the_same_head_without_new_comments() -> None:
    outside = finding("RCP003", 20, "al")
    review = Comment(
        3, render.review_body(0, [outside], "e" * 40), "bot[bot]", kind="review_summary"
    )
    plan = render.plan_review([outside], [review], "e" * 40, {}, "")
    assert plan.review_body is None
    plan2 = render.plan_review([outside], [review], "f" * 40, {}, "")
    assert plan2.review_body is not None


def test_status_and_truncation() -> None:
    st = render.status_for(
        [finding("RCP002", 4, "x"), finding("RCP001", 5, "y", WARNING)], "ctx", None
    )
    assert st.state == "failure" and len(st.description) < 140
    assert render.status_for([], "ctx", None).state == "success"
    many = [finding("RCP002", i, f"s{i}", path=f"p{i}.sh") for i in range(3000)]
    body = render.summary_body(many, many, [], "a" * 40)
    assert len(body) < 65_536 and render.SUMMARY_MARK in body
    long_text = "x" * 70_000 + render.SUMMARY_MARK
    cut = render.truncate(long_text)
    assert len(cut) < 65_536 and cut.endswith(render.SUMMARY_MARK)
