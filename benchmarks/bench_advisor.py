"""Offline evaluation of the LLM advisor: precision of its "concern" items, items per PR,
and cost per PR, over the labelled set in benchmarks/advisor_eval/cases.py.

Each case is linted, its questions are built exactly as `bot lint --advise` builds them,
and the recorded answers are replayed through the real `anthropic` SDK against the fake
Messages API on loopback (tests/fakeanthropic.py), so count_tokens, caps, grounding and
dropping all run for real. Token counts come from the fake's estimate (UTF-8 bytes / 4 over
the request) and the measured usage; cost uses list prices of the chosen model. A second
pass over the same heads checks that the cache makes no call.

    python benchmarks/bench_advisor.py [--model claude-sonnet-4-6] [--live] [-v]
    python benchmarks/bench_advisor.py --repo DIR --base SHA HEAD_SHA...   # real PR heads

With `--repo`, real PR heads (no labels, no PR text) are linted and their questions asked
of a fake model that answers honestly: questions, calls, tokens and cost per real PR.

`--live` sends the same prompts to the real API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
instead of replaying the recorded answers.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.advisor_eval.cases import Case, answer, cases  # noqa: E402
from bot.advisor.client import Advisor, AdvisorSettings  # noqa: E402
from bot.advisor.questions import PrText, build_questions  # noqa: E402
from bot.advisor.store import Ledger  # noqa: E402
from tests.advisor_cases import change_of  # noqa: E402
from tests.fakeanthropic import FakeAnthropic  # noqa: E402


def run(args: argparse.Namespace) -> int:
    current: dict[str, Any] = {}

    def responder(request: dict[str, Any]) -> str:
        case: Case = current["case"]
        text = json.dumps(request.get("messages"))
        for qid, items in case.responses.items():
            if f"QUESTION ({qid})" in text:
                return answer(case, items)
        return '{"items": []}'

    tmp = Path(tempfile.mkdtemp(prefix="bench-advisor-"))
    with FakeAnthropic(responder) as fake:
        if args.live:
            key = os.environ.get("ANTHROPIC_API_KEY", "")
            if not key:
                print("--live needs ANTHROPIC_API_KEY", file=sys.stderr)
                return 2
            settings = AdvisorSettings(
                api_key=key, base_url=os.environ.get("ANTHROPIC_BASE_URL") or None, model=args.model
            )
        else:
            settings = AdvisorSettings(api_key="sk-ant-bench", base_url=fake.url, model=args.model)
        rows = []
        tp = fp = hit_labels = n_labels = 0
        for i, case in enumerate(cases()):
            current["case"] = case
            change, report = change_of(case.base, case.head, pr=case.pr)
            questions = build_questions(
                change, PrText(title=case.title, body=case.body), head_paths=sorted(case.head)
            )
            head = f"{i:040x}"
            # a fresh ledger per PR, so one PR's cached answers do not lower another's cost
            settings = dataclasses.replace(settings, cache_path=str(tmp / f"ledger-{i}.sqlite3"))
            advisor = Advisor(settings, ledger=Ledger(settings.cache_path))
            r = advisor.advise(questions, head_sha=head, findings=report.findings)
            again = advisor.advise(questions, head_sha=head, findings=report.findings)
            concerns = [a for a in r.items if a.verdict == "concern"]
            labelled = set(case.labels)
            found = set()
            case_tp = 0
            for a in concerns:
                line = case.head[a.path].splitlines()[a.line - 1]
                match = next((lab for lab in labelled if lab[0] == a.path and lab[1] in line), None)
                if match:
                    case_tp += 1
                    found.add(match)
            tp += case_tp
            fp += len(concerns) - case_tp
            hit_labels += len(found)
            n_labels += len(labelled)
            rows.append(
                {
                    "case": case.name,
                    "questions": [q.id for q in questions],
                    "findings": len(report.findings),
                    "items": len(r.items),
                    "concerns": len(concerns),
                    "true": case_tp,
                    "labels": len(labelled),
                    "dropped": len(r.dropped),
                    "errors": len(r.errors),
                    "calls": r.calls,
                    "second_run_calls": again.calls,
                    "tokens": r.usage.total,
                    "cost": r.cost_usd,
                }
            )
            if args.verbose:
                for d in r.dropped + r.errors:
                    print(f"  {case.name}: {d}")
            advisor.close()
    w = max(len(r["case"]) for r in rows)
    print(
        f"{'case':<{w}}  questions  findings  items  concerns  true/labels  dropped  calls  tokens  cost"
    )
    for r in rows:
        print(
            f"{r['case']:<{w}}  {len(r['questions']):>9}  {r['findings']:>8}  {r['items']:>5}  "
            f"{r['concerns']:>8}  {r['true']:>5}/{r['labels']:<5}  {r['dropped']:>7}  "
            f"{r['calls']:>5}  {r['tokens']:>6}  ${r['cost']:.4f}"
        )
    n = len(rows)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = hit_labels / n_labels if n_labels else 0.0
    print()
    print(f"model {args.model}, {n} PRs, {'live API' if args.live else 'recorded answers'}")
    print(f"precision of concern items: {tp}/{tp + fp} = {precision:.2f}")
    print(f"labelled defects found: {hit_labels}/{n_labels} = {recall:.2f}")
    print(
        f"items per PR: mean {statistics.mean(r['items'] for r in rows):.2f}, "
        f"concerns per PR {statistics.mean(r['concerns'] for r in rows):.2f}"
    )
    print(
        f"items dropped by grounding/filters: {sum(r['dropped'] for r in rows)}; "
        f"answers refused: {sum(r['errors'] for r in rows)}"
    )
    print(
        f"calls per PR: mean {statistics.mean(r['calls'] for r in rows):.2f} "
        f"(max {max(r['calls'] for r in rows)}); second run on the same heads: "
        f"{sum(r['second_run_calls'] for r in rows)} calls"
    )
    costs = [r["cost"] for r in rows]
    tokens = [r["tokens"] for r in rows]
    print(f"tokens per PR: median {statistics.median(tokens):.0f}, max {max(tokens)}")
    print(
        f"cost per PR: median ${statistics.median(costs):.4f}, mean ${statistics.mean(costs):.4f}, "
        f"max ${max(costs):.4f}"
    )
    return 0


def run_real(args: argparse.Namespace) -> int:
    import datetime

    from bot.core.changeset import build_changeset
    from bot.core.config import build_config
    from bot.core.engine import Context, lint
    from bot.sources import GitTree, changed_paths, merge_base

    tmp = Path(tempfile.mkdtemp(prefix="bench-advisor-real-"))
    rows = []
    with FakeAnthropic() as fake:
        settings = AdvisorSettings(
            api_key="sk-ant-bench",
            base_url=fake.url,
            model=args.model,
            cache_path=str(tmp / "l.sqlite3"),
        )
        advisor = Advisor(settings, ledger=Ledger(settings.cache_path))
        for head_sha in args.heads:
            fork = merge_base(args.repo, args.base, head_sha)
            base, head = GitTree(args.repo, fork), GitTree(args.repo, head_sha)
            changed = frozenset(changed_paths(args.repo, args.base, head_sha))
            change = build_changeset(base, head, changed)
            raw = head.read(".recipe-bot.yml")
            config = build_config(raw.decode() if raw else None)
            ctx = Context.for_change(change, config, review_date=datetime.date(2026, 11, 30))
            report = lint(ctx, paths=sorted(changed))
            questions = build_questions(change, PrText(), head_paths=ctx.all_paths())
            before = len(fake.requests)
            r = advisor.advise(questions, head_sha=head_sha, findings=report.findings)
            rows.append((head_sha[:9], len(changed), [q.id for q in questions], r))
            del before
            base.close()
            head.close()
        advisor.close()
    for sha, n, qs, r in rows:
        print(
            f"{sha}  {n:>3} files  {len(qs)} question(s) {','.join(qs) or '-'}  "
            f"{r.calls} call(s)  {r.usage.total} tokens  ${r.cost_usd:.4f}  {len(r.items)} item(s)"
        )
    asked = [r for _, _, qs, r in rows if qs]
    print(
        f"{len(rows)} real PRs; with a question: {len(asked)}; "
        f"calls per PR mean {statistics.mean(r.calls for *_, r in rows):.2f}"
    )
    costs = [r.cost_usd for *_, r in rows]
    print(
        f"cost per PR: median ${statistics.median(costs):.4f}, mean ${statistics.mean(costs):.4f}, "
        f"max ${max(costs):.4f}; tokens per asked PR median "
        f"{statistics.median([r.usage.total for r in asked]) if asked else 0:.0f}"
    )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="claude-sonnet-4-6")
    ap.add_argument("--live", action="store_true", help="ask the real API instead of replaying")
    ap.add_argument("-v", "--verbose", action="store_true", help="print dropped items")
    ap.add_argument("--repo", help="a git repository holding real PR heads")
    ap.add_argument("--base", default="main", help="with --repo: the base commit")
    ap.add_argument("heads", nargs="*", help="with --repo: PR head commits")
    args = ap.parse_args()
    return run_real(args) if args.repo else run(args)


if __name__ == "__main__":
    sys.exit(main())
