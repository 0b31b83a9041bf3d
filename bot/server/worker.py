"""Workers: threads that lease jobs from the queue and run the review pipeline, or, for
jobs of kind `signoff`, the sign-off gate (`bot.signoff.service.verify_signoffs`, with
the summaries of the deliveries the job stands for).

A job runs `reviewer(gateway, repo, number, expected_head)`, where expected_head is
the newest head seen for the PR; the pipeline reviews the PR's current head and is
idempotent, so a retried or re-leased job never duplicates a comment. Outcomes:

- success → `done` (Posted.skipped, e.g. a draft or closed PR, is done too);
- transient `GitHubError` or an unexpected exception → back to `queued` after an
  exponential backoff with jitter (at least GitHub's Retry-After), until
  `max_attempts`, then `dead`;
- non-transient `GitHubError` or `ConfigurationError` → `dead` at once.

Every error and detail is redacted (`bot.redact`) before it is stored or logged: an
upstream error body that echoes a token never reaches the database.

A keeper thread renews the leases of running jobs every lease/3 seconds (a heartbeat:
only a dead process loses its leases, and another replica runs its jobs once the lease
lapses); it also prunes old rows once an hour, and sweeps (`JobQueue.sweep`, at most once a
minute): a PR whose newest head has no review and no queued or running job since
`sweep_seconds` gets a review queued, each head once. It also enforces
the wall-clock timeout per job (`job_timeout`): a job running longer is failed as a
transient error (retried, then dead-lettered) and its lease given up, and its gateway
refuses every further GitHub call, so the stuck attempt can write nothing afterwards.

When the queue itself fails (database down, read-only, disk full) a worker backs off
exponentially (poll interval doubling up to 30 s) and resumes when it answers again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from bot.advisor.client import Advisor, advisor_settings, sdk_available
from bot.advisor.service import AdvisePosted, advise_pull_request
from bot.app.pull import ParseCache, service_parses
from bot.github.calls import hooked
from bot.github.types import CommitGateway, Gateway, GitHubError, Posted
from bot.redact import redact
from bot.review.fixes import FixPosted, apply_safe_fixes
from bot.review.pipeline import ReviewSettings, review_pull_request
from bot.server.gateways import ConfigurationError, GatewayFactory, Metered
from bot.server.metrics import Metrics
from bot.server.queue import (
    ADVISE,
    DEFAULT_LEASE_SECONDS,
    FIX,
    QUEUED,
    SIGNOFF,
    DeliveryRecord,
    Job,
    JobQueue,
)
from bot.server.settings import Settings
from bot.server.webhook import PullEvent
from bot.signoff.service import SignoffPosted, SignoffSettings, verify_signoffs

log = logging.getLogger("bot.server.worker")

Reviewer = Callable[[Gateway, str, int, str | None], Posted]
"""(gateway, "owner/name", PR number, expected head sha) → what was posted."""


class PipelineReviewer:
    """The real review: `bot.review.pipeline.review_pull_request` with the service's
    settings. A `Reviewer`; the worker also passes it `run_key` for a job that answers
    a re-run request (GitHub's "Re-run"), which gets a check run of its own."""

    def __init__(self, settings: ReviewSettings) -> None:
        self.settings = settings

    def __call__(
        self,
        gateway: Gateway,
        repo: str,
        number: int,
        expected_head: str | None,
        run_key: str | None = None,
    ) -> Posted:
        posted = review_pull_request(
            gateway,
            repo,
            number,
            settings=self.settings,
            expected_head=expected_head,
            run_key=run_key,
        )
        if posted.check_runs_refused and self.settings.check_run is not None:
            # a credential that is no App's (or lacks `checks: write`): the reviews of
            # this process report through the status and the summary comment from now on
            log.warning(
                "GitHub refused to create a check run: reviews report through the commit "
                "status and the summary comment until the service restarts"
            )
            self.settings = dataclasses.replace(
                self.settings, check_run=None, commit_status=True, summary_comment=True
            )
        return posted


def pipeline_reviewer(settings: Settings, parses: ParseCache | None = None) -> PipelineReviewer:
    """The real review: `bot.review.pipeline.review_pull_request` with the service's settings.
    `parses`: the files parsed by earlier reviews (`service_parses()`: one per process)."""
    review_settings = ReviewSettings(
        status_context=settings.status_context,
        review_drafts=settings.review_drafts,
        bot_login=settings.self_login,
        check_run=settings.check_run,
        commit_status=settings.commit_status,
        summary_comment=settings.summary_comment,
        fix_action=settings.fix_action,
        parses=parses if parses is not None else service_parses(),
    )
    if settings.docs_url:
        review_settings = dataclasses.replace(review_settings, docs_url=settings.docs_url)
    return PipelineReviewer(review_settings)


Fixer = Callable[[Gateway, Job], FixPosted]
"""(gateway, the fix job) → what "Apply safe fixes" committed (or why it did not)."""


def service_fixer(settings: Settings) -> Fixer | None:
    """The check run's "Apply safe fixes" (`bot.review.fixes`), or None when it is off."""
    if not (settings.fix_action and settings.check_run):
        return None

    def run(gateway: Gateway, job: Job) -> FixPosted:
        if getattr(gateway, "update_ref", None) is None:
            return FixPosted("skipped", head_sha=job.head_sha, skipped=["no Git Data API"])
        commits = cast(CommitGateway, gateway)  # the service's gateway (PyGithubGateway)
        return apply_safe_fixes(commits, job.repo, job.number, job.head_sha)

    return run


Signoffer = Callable[[Gateway, str, int, Sequence[Mapping[str, Any]]], SignoffPosted]
"""(gateway, "owner/name", PR number, the job's delivery summaries) → what the gate wrote."""


def service_signoffer(settings: Settings, parses: ParseCache | None = None) -> Signoffer:
    """The real sign-off gate: `bot.signoff.service.verify_signoffs` with the service's
    settings (status context, template branch, the bot's login) and parsed files."""
    signoff_settings = SignoffSettings(
        status_context=settings.signoff_status_context,
        template_ref=settings.signoff_template_ref,
        bot_login=settings.self_login,
        parses=parses if parses is not None else service_parses(),
    )

    def run(
        gateway: Gateway, repo: str, number: int, events: Sequence[Mapping[str, Any]]
    ) -> SignoffPosted:
        return verify_signoffs(gateway, repo, number, settings=signoff_settings, events=events)

    return run


Adviser = Callable[[Gateway, Job], AdvisePosted]
"""(gateway, the advise job) → what the advisor wrote (advice only, never a gate)."""

ADVICE_DEFER_CAP = 900.0  # seconds: a 429/529 Retry-After of an hour defers 15 minutes


def service_adviser(settings: Settings, parses: ParseCache | None = None) -> Adviser | None:
    """The optional LLM advisor (`bot.advisor.service`), or None when it is off (no
    `ANTHROPIC_API_KEY`, `BOT_ADVISOR=off`, or the `anthropic` SDK is not installed)."""
    env = dict(settings.advisor_env)
    env.setdefault("BOT_ADVISOR_CACHE", "bot-advisor.sqlite3")
    config = advisor_settings(env)
    if config is None:
        return None
    if not sdk_available():
        log.warning("ANTHROPIC_API_KEY is set but the anthropic SDK is missing: advisor off")
        return None
    advisor = Advisor(config)
    # at most one advise run per process, never waited for: with two or more workers a
    # review always finds a free worker, however long an advise run takes (60 s at most)
    lock = threading.Lock()

    def run(gateway: Gateway, job: Job) -> AdvisePosted:
        if not lock.acquire(blocking=False):
            return AdvisePosted(
                "deferred", deferred=5.0, skipped=["another advise run is under way"]
            )
        try:
            return advise_pull_request(
                gateway,
                advisor,
                job.repo,
                job.number,
                job.head_sha,
                installation=str(job.installation_id or job.repo),
                bot_login=settings.self_login,
                parses=parses,
            )
        finally:
            lock.release()

    return run


@dataclass(frozen=True)
class RetryPolicy:
    base: float = 10.0
    cap: float = 900.0
    jitter: float = 0.2  # ± fraction

    def delay(self, attempts: int, retry_after: float | None = None) -> float:
        backoff = min(self.cap, self.base * float(2 ** max(0, attempts - 1)))
        backoff *= 1 + random.uniform(-self.jitter, self.jitter)
        return max(backoff, retry_after or 0.0)


class Identity:
    """The bot's own login: configured, or asked from GitHub once by a worker."""

    def __init__(self, login: str | None = None, app_slug: str | None = None) -> None:
        self._login = login
        self.app_slug = app_slug
        self._lock = threading.Lock()

    @property
    def login(self) -> str | None:
        return self._login

    def learn(self, login: str) -> None:
        with self._lock:
            if self._login is None and login:
                self._login = login

    def is_self(self, login: str, sender_type: str) -> bool:
        low = login.lower()
        if self._login and low == self._login.lower():
            return True
        return bool(
            sender_type == "Bot" and self.app_slug and low == f"{self.app_slug}[bot]".lower()
        )


WORKER_NICE = 10  # review threads yield the CPU to the webhook and the database


def _lower_priority() -> None:
    """Run this worker thread at a lower CPU priority (Linux: `setpriority` on a thread id
    changes that thread only), so a burst of reviews does not slow the webhook's ack."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, max(os.getpriority(os.PRIO_PROCESS, tid), WORKER_NICE))


class JobTimedOut(Exception):
    """The job ran past its wall-clock timeout; its gateway refuses further calls."""


class _Deadline:
    """A job's call hook: every gateway call after the job's deadline raises `JobTimedOut`."""

    def __init__(self, deadline: float, timeout: float) -> None:
        self.deadline = deadline
        self.timeout = timeout

    def before(self, name: str, write: bool) -> None:
        if time.monotonic() > self.deadline:
            raise JobTimedOut(f"job ran past its {self.timeout:g} s timeout ({name} refused)")

    def failed(self, name: str, error: GitHubError) -> None:
        pass


MAX_QUEUE_BACKOFF = 30.0  # seconds between attempts while the queue's database fails


class WorkerPool:
    def __init__(
        self,
        queue: JobQueue,
        *,
        gateways: GatewayFactory,
        reviewer: Reviewer,
        metrics: Metrics,
        workers: int = 2,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        poll_seconds: float = 1.0,
        retry: RetryPolicy | None = None,
        identity: Identity | None = None,
        retention_seconds: float = 30 * 86400.0,
        sweep_seconds: float = 300.0,
        signoffer: Signoffer | None = None,
        adviser: Adviser | None = None,
        redact: Callable[[str], str] = redact,
        job_timeout: float | None = None,
        fixer: Fixer | None = None,
    ) -> None:
        self.queue = queue
        self.redact = redact  # every error and detail stored or logged goes through it
        self.gateways = gateways
        self.reviewer = reviewer
        self.signoffer = signoffer  # None: sign-off jobs finish as skipped
        self.adviser = adviser  # None: the advisor is off (no advise jobs are queued)
        self.fixer = fixer  # None: "Apply safe fixes" is off (fix jobs finish as skipped)
        self.metrics = metrics
        self.workers = workers
        self.lease_seconds = lease_seconds
        self.poll_seconds = poll_seconds
        self.retry = retry or RetryPolicy()
        self.identity = identity or Identity()
        self.retention_seconds = retention_seconds
        self.sweep_seconds = sweep_seconds
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._held: dict[int, Job] = {}
        self._started: dict[int, float] = {}  # job id → monotonic start of this attempt
        self.job_timeout = job_timeout
        self._held_lock = threading.Lock()
        self._prefix = f"{socket.gethostname()}:{os.getpid()}"

    # ------------------------------------------------------------- lifecycle

    def start(self) -> None:
        self._stop.clear()
        for n in range(self.workers):
            t = threading.Thread(target=self._loop, name=f"bot-worker-{n}", daemon=True)
            t.start()
            self._threads.append(t)
        keeper = threading.Thread(target=self._keeper, name="bot-lease-keeper", daemon=True)
        keeper.start()
        self._threads.append(keeper)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop taking jobs; wait up to `timeout` for running ones (their leases then lapse)."""
        self._stop.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        self._threads = [t for t in self._threads if t.is_alive()]

    def wake(self) -> None:
        self._wake.set()

    def alive(self) -> int:
        return sum(1 for t in self._threads if t.is_alive() and t.name.startswith("bot-worker"))

    # ------------------------------------------------------------- work

    def _loop(self) -> None:
        owner = f"{self._prefix}:{threading.current_thread().name}"
        failures = 0
        _lower_priority()
        while not self._stop.is_set():
            try:
                ran = self.run_once(owner)
                if failures:
                    log.warning("worker %s: queue reachable again", owner)
                failures = 0
            except Exception as exc:  # the queue itself failed (database down, disk full)
                failures += 1
                wait = min(MAX_QUEUE_BACKOFF, self.poll_seconds * 2 ** min(failures - 1, 10))
                self.metrics.queue_errors.inc(type(exc).__name__)
                if failures == 1:
                    log.exception("worker %s: queue error; backing off", owner)
                else:
                    log.warning("worker %s: queue error (%s); next try in %.1f s", owner, exc, wait)
                ran = False
                self._stop.wait(wait)
            if not ran:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()

    def run_once(self, owner: str = "") -> bool:
        """Lease and run one due job; False when none is due."""
        job = self.queue.claim(owner or f"{self._prefix}:{threading.current_thread().name}")
        if job is None:
            return False
        with self._held_lock:
            self._held[job.id] = job
            self._started[job.id] = time.monotonic()
        try:
            self._run(job)
        finally:
            with self._held_lock:
                self._held.pop(job.id, None)
                self._started.pop(job.id, None)
        return True

    def _gateway(self, installation_id: int | None) -> Gateway:
        return hooked(self.gateways(installation_id), Metered(self.metrics))

    def _job_gateway(self, job: Job) -> Gateway:
        gw = self._gateway(job.installation_id)
        if self.job_timeout is None:
            return gw
        with self._held_lock:
            started = self._started.get(job.id, time.monotonic())
        return hooked(gw, _Deadline(started + self.job_timeout, self.job_timeout))

    def _run(self, job: Job) -> None:
        where = f"job {job.id} {job.repo}#{job.number}@{job.head_sha[:12]} attempt {job.attempts}"
        started = time.monotonic()
        try:
            gw = self._job_gateway(job)
            if self.identity.login is None:
                try:
                    self.identity.learn(gw.login())
                except GitHubError as exc:
                    log.info("%s: could not learn the bot's login: %s", where, exc)
            if job.kind == SIGNOFF:
                self._signoff(job, gw, where)
                return
            if job.kind == ADVISE:
                self._advise(job, gw, where)
                return
            if job.kind == FIX:
                self._fix(job, gw, where)
                return
            posted = self._review(job, gw)
        except GitHubError as exc:
            self._failed(
                job, where, f"GitHub {exc.status}: {exc}", exc.retry_after, not exc.transient
            )
        except ConfigurationError as exc:
            self._failed(job, where, str(exc), None, True)
        except Exception as exc:
            log.exception("%s: %s failed", where, "sign-off" if job.kind == SIGNOFF else "review")
            self._failed(job, where, f"{type(exc).__name__}: {exc}", None, False)
        else:
            skipped = self.redact("; ".join(posted.skipped))
            done = self.queue.finish(
                job, reviewed=not posted.skipped, detail=skipped, head_sha=posted.head_sha
            )
            if done:
                if posted.skipped:
                    self.metrics.jobs.inc("skipped")
                    log.info("%s: skipped (%s)", where, skipped)
                else:
                    self.metrics.jobs.inc("done")
                    self.metrics.review_latency.observe(max(0.0, time.time() - job.created_at))
                    self._queue_advice(job)
                    log.info(
                        "%s: reviewed (review %s, %d inline, status %s)",
                        where,
                        posted.review_id,
                        posted.inline,
                        posted.status.state if posted.status else "-",
                    )
            else:
                self.metrics.jobs.inc("lost")
                log.warning("%s: finished after its lease was lost", where)
        finally:
            self.metrics.attempt_seconds.observe(time.monotonic() - started)

    def _review(self, job: Job, gw: Gateway) -> Posted:
        """Run the reviewer; a job a re-run request fed gets its own check run."""
        reviewer = self.reviewer
        rerun = getattr(self.queue, "rerun_requested", None)
        if isinstance(reviewer, PipelineReviewer) and rerun is not None and rerun(job):
            return reviewer(gw, job.repo, job.number, job.head_sha, run_key=f"rerun-{job.id}")
        return reviewer(gw, job.repo, job.number, job.head_sha)

    def _fix(self, job: Job, gw: Gateway, where: str) -> None:
        """Run "Apply safe fixes" for the job's head and finish it (errors go to `_run`)."""
        where = f"fix {where}"
        if self.fixer is None:
            if self.queue.finish(job, reviewed=False, detail="apply safe fixes is off"):
                self.metrics.jobs.inc("skipped")
            return
        posted = self.fixer(gw, job)
        if posted.result == "committed":
            detail = (
                f"committed {posted.commit_sha} ({', '.join(posted.rules)}; "
                f"{len(posted.files)} file(s)) on {job.head_sha[:12]}"
            )
        else:
            detail = self.redact("; ".join(posted.skipped))
        if not self.queue.finish(job, reviewed=False, detail=detail):
            self.metrics.jobs.inc("lost")
            log.warning("%s: finished after its lease was lost", where)
            return
        self.metrics.jobs.inc("done" if posted.result == "committed" else "skipped")
        log.info("%s: %s", where, detail)

    def _queue_advice(self, job: Job) -> None:
        """After a finished review: queue the head's advise job (idempotent per head)."""
        if self.adviser is None:
            return
        record = DeliveryRecord(
            # one id per head (redelivery-safe), in the ingress id alphabet (bot.server.ingress)
            delivery_id="advise:"
            + hashlib.sha256(f"{job.repo}#{job.number}@{job.head_sha}".encode()).hexdigest()[:40],
            event="advise",
            action=None,
            kind=ADVISE,
            reason="review finished",
            pull=PullEvent(
                job.repo, job.number, job.head_sha, None, job.installation_id, "", False
            ),
        )
        try:
            self.queue.ingest(record)
        except Exception:  # advice is optional: never fail the review for it
            log.exception("job %s: could not queue the advise job", job.id)

    def _advise(self, job: Job, gw: Gateway, where: str) -> None:
        where = f"advise {where}"
        if self.adviser is None:
            if self.queue.finish(job, reviewed=False, detail="advisor off"):
                self.metrics.jobs.inc("skipped")
            return
        posted = self.adviser(gw, job)
        if posted.result == "deferred":
            delay = min(ADVICE_DEFER_CAP, max(1.0, posted.deferred or 60.0))
            state = self.queue.fail(job, "advisor rate-limited", delay=delay, permanent=False)
            self.metrics.jobs.inc({QUEUED: "retry"}.get(state or "", state or "lost"))
            log.info("%s: deferred %.0f s (%s)", where, delay, state)
            return
        detail = "; ".join(posted.skipped) or f"{posted.items} item(s), {posted.calls} call(s)"
        if self.queue.finish(job, reviewed=False, detail=detail):
            self.metrics.jobs.inc("done" if posted.result == "advised" else "skipped")
            log.info("%s: %s (%s)", where, posted.result, detail)
        else:
            self.metrics.jobs.inc("lost")

    def _signoff(self, job: Job, gw: Gateway, where: str) -> None:
        """Run the sign-off gate for `job` and finish it (errors go to `_run`'s handlers)."""
        where = f"sign-off {where}"
        if self.signoffer is None:
            if self.queue.finish(job, reviewed=False, detail="sign-off gate disabled"):
                self.metrics.jobs.inc("skipped")
                self.metrics.signoff_verdicts.inc("skipped")
            return
        posted = self.signoffer(gw, job.repo, job.number, job.events)
        for t in posted.tamper:
            if t.new:
                self.metrics.signoff_tamper.inc(t.kind)
                log.warning("%s: %s", where, t.log_line())
        skipped = self.redact("; ".join(posted.skipped))
        if not self.queue.finish(job, reviewed=False, detail=skipped or posted.result):
            self.metrics.jobs.inc("lost")
            log.warning("%s: finished after its lease was lost", where)
            return
        self.metrics.signoff_verdicts.inc(posted.result)
        if posted.status is None:
            self.metrics.jobs.inc("skipped")
            log.info("%s: %s", where, skipped or posted.result)
            return
        self.metrics.jobs.inc("done")
        self.metrics.signoff_latency.observe(max(0.0, time.time() - job.created_at))
        log.info(
            "%s: %s on %s (comment %s, status %s: %s)",
            where,
            posted.result,
            (posted.head_sha or "")[:12],
            posted.comment_id,
            posted.status.state,
            posted.status.description,
        )

    def _failed(
        self, job: Job, where: str, error: str, retry_after: float | None, permanent: bool
    ) -> None:
        error = self.redact(error)
        delay = self.retry.delay(job.attempts, retry_after)
        state = self.queue.fail(job, error, delay=delay, permanent=permanent)
        result = {None: "lost", QUEUED: "retry"}.get(state, state or "lost")
        self.metrics.jobs.inc(result)
        if state == QUEUED:
            log.warning("%s: %s; retrying in %.0f s", where, error, delay)
        else:
            log.error("%s: %s; job is now %s", where, error, state or "owned by another worker")

    def _sweep(self) -> None:
        """Queue a review of every PR head left without a review and without a job for
        `sweep_seconds` (`JobQueue.sweep`)."""
        sweep = getattr(self.queue, "sweep", None)
        if sweep is None:
            return
        try:
            jobs = sweep(self.sweep_seconds)
        except Exception:
            log.exception("sweeping the queue failed")
            return
        for job in jobs:
            self.metrics.jobs.inc("swept")
            log.warning(
                "job %s %s#%d@%s: head left without a review or a job for %.0f s; queued again",
                job.id,
                job.repo,
                job.number,
                job.head_sha[:12],
                self.sweep_seconds,
            )
        if jobs:
            self.wake()

    def _time_out(self, job: Job) -> None:
        """Fail a job past its wall-clock timeout (its thread may still be stuck in a call;
        the queue fences whatever it does next)."""
        with self._held_lock:
            if self._held.pop(job.id, None) is None:
                return
            self._started.pop(job.id, None)
        where = f"job {job.id} {job.repo}#{job.number}@{job.head_sha[:12]} attempt {job.attempts}"
        self.metrics.jobs.inc("timeout")
        try:
            self._failed(job, where, f"timed out after {self.job_timeout:g} s", None, False)
        except Exception:
            log.exception("%s: could not fail the timed-out job", where)

    # ------------------------------------------------------------- leases, retention

    def _keeper(self) -> None:
        interval = max(0.05, min(self.lease_seconds / 3, 60.0))
        if self.job_timeout is not None:
            interval = max(0.05, min(interval, self.job_timeout / 4))
        last_prune = 0.0
        last_sweep = time.monotonic()
        while not self._stop.wait(interval):
            with self._held_lock:
                held = list(self._held.values())
                started = dict(self._started)
            now = time.monotonic()
            for job in held:
                if (
                    self.job_timeout is not None
                    and job.id in started
                    and now - started[job.id] > self.job_timeout
                ):
                    self._time_out(job)
                    continue
                try:
                    renewed = self.queue.extend(job)
                except Exception:
                    log.exception("job %s: could not renew the lease", job.id)
                    continue
                with self._held_lock:
                    running = job.id in self._held
                if not renewed and running:  # a job that finished meanwhile has no lease
                    log.warning("job %s: lease lost while running", job.id)
            if time.monotonic() - last_sweep > min(self.sweep_seconds / 5, 60.0):
                last_sweep = time.monotonic()
                self._sweep()
            if time.monotonic() - last_prune > 3600:
                last_prune = time.monotonic()
                try:
                    removed = self.queue.prune(self.retention_seconds)
                    if removed:
                        log.info("pruned %d old queue rows", removed)
                except Exception:
                    log.exception("pruning the queue failed")
