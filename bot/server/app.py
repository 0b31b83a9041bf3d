"""`bot serve`: the FastAPI app (webhook, health, readiness, metrics) and its worker pool.

`POST /webhook` reads the raw body under a size cap (413 above it), verifies
`X-Hub-Signature-256` before anything parses the body, persists the delivery by its
`X-GitHub-Delivery` id, wakes a worker and answers 202. A ping is answered 200;
an unknown event or action 202 and ignored; a signed but malformed delivery is
recorded (outcome `malformed`) and answered 400, so GitHub shows it failed but
nothing retries it in a loop. A delivery id seen before with another body is logged and
answered 409 (nothing stored: GitHub redelivers the same body under the same id). Only a
failure to persist answers 5xx (503).

Everything is configured by the `Settings` passed to `create_app`; nothing is read
from the environment at import time (`create_app_from_env` is the factory for
`uvicorn --factory`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import replace
from typing import IO, Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from bot.app.pull import service_parses
from bot.redact import RedactingFormatter, Redactor
from bot.server.backends import describe, open_queue
from bot.server.gateways import GatewayFactory, github_factory
from bot.server.ingress import check_record
from bot.server.metrics import Gauge, Metrics
from bot.server.queue import DeliveryRecord, Ingested, JobQueue, QueueError, RejectedRecord
from bot.server.settings import Settings, load_settings
from bot.server.webhook import (
    Decision,
    Malformed,
    classify,
    parse_body,
    valid_delivery_id,
    valid_event_name,
    verify_signature,
)
from bot.server.worker import (
    Adviser,
    Identity,
    RetryPolicy,
    Reviewer,
    Signoffer,
    WorkerPool,
    pipeline_reviewer,
    service_adviser,
    service_fixer,
    service_signoffer,
)

log = logging.getLogger("bot.server")

# headers GitHub sends once; a second copy (which one wins?) is refused with 400
SINGLE_HEADERS = ("x-hub-signature-256", "x-github-event", "x-github-delivery", "content-type")


class Service:
    """The app's state and the synchronous half of the webhook (runs in a worker thread)."""

    def __init__(
        self,
        settings: Settings,
        queue: JobQueue,
        metrics: Metrics,
        identity: Identity,
        pool: WorkerPool | None,
    ) -> None:
        if not settings.webhook_secrets:
            raise ValueError("refusing to start without a webhook secret")
        self.settings = settings
        self.queue = queue
        self.metrics = metrics
        self.identity = identity
        self.pool = pool
        self.redact = settings_redactor(settings)

    def handle_webhook(
        self, headers: Mapping[str, str], body: bytes, *, repeated: Collection[str] = ()
    ) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON answer) for one delivery; `headers` has lower-case names,
        `repeated` the lower-case names of headers the request carried more than once."""
        refused = self._refuse(headers, body, repeated)
        if refused is not None:
            return refused
        # Signed by GitHub from here on; the payload may still be anything.
        record, decision = self._record(headers, body)
        event, delivery = record.event, record.delivery_id
        try:
            try:
                ingested = self.queue.ingest(record)
            except RejectedRecord as exc:  # this delivery's values; its batch committed
                log.warning("delivery %s: stored as malformed: %s", delivery, exc)
                record = _as_malformed(record, f"cannot be stored: {exc}")
                ingested = self.queue.ingest(record)
        except Exception:
            self.metrics.deliveries.inc(event, "error")
            log.exception("delivery %s: could not be persisted", delivery)
            return 503, {"error": "could not persist the delivery; redeliver it"}
        if ingested.conflict is not None:
            return self._conflict(event, delivery, *ingested.conflict)
        if record.kind == "malformed":
            decision = Decision("malformed", record.reason, decision.action)
        return self._answer(event, delivery, decision, ingested)

    def _refuse(
        self, headers: Mapping[str, str], body: bytes, repeated: Collection[str]
    ) -> tuple[int, dict[str, Any]] | None:
        """The answer to a delivery that is not GitHub's (a header twice, a bad signature)."""
        twice = [h for h in SINGLE_HEADERS if h in repeated]
        if twice:
            self.metrics.deliveries.inc("unverified", "duplicate_header")
            log.warning("rejected a delivery carrying %s more than once", ", ".join(twice))
            return 400, {"error": f"header {twice[0]} given more than once"}
        problem = verify_signature(
            headers.get("x-hub-signature-256"), body, self.settings.webhook_secrets
        )
        if problem is not None:
            self.metrics.deliveries.inc("unverified", "unauthorized")
            log.warning(
                "rejected delivery %r: %s",
                (headers.get("x-github-delivery") or "")[:100],
                problem,
            )
            return 401, {"error": problem}
        return None

    def _record(self, headers: Mapping[str, str], body: bytes) -> tuple[DeliveryRecord, Decision]:
        """What a signed delivery asks for, as the record ingest stores."""
        digest = hashlib.sha256(body).hexdigest()
        event = headers.get("x-github-event") or ""
        delivery = headers.get("x-github-delivery") or ""
        decision: Decision
        if not valid_event_name(event):
            event, decision = "unknown", Decision("malformed", "missing or invalid X-GitHub-Event")
        elif not valid_delivery_id(delivery):
            decision = Decision("malformed", "missing or invalid X-GitHub-Delivery")
        else:
            try:
                payload = parse_body(body, headers.get("content-type"))
            except Malformed as exc:
                decision = Decision("malformed", str(exc))
            else:
                decision = classify(
                    event,
                    payload,
                    review_drafts=self.settings.review_drafts,
                    is_self=self.identity.is_self,
                    signoff=self.settings.signoff_enabled,
                    check_run=self.settings.check_run,
                )
        if not valid_delivery_id(delivery):
            delivery = f"invalid-{digest[:32]}"  # still recorded once, by body
        record = DeliveryRecord(
            delivery_id=delivery,
            event=event,
            action=decision.action,
            kind=decision.kind,
            reason=decision.reason,
            pull=decision.pull if decision.kind in ("review", "fix") else None,
            body_sha256=digest,
            size=len(body),
            signoff=decision.signoff,  # a sign-off job (alone, or beside the review)
        )
        record = replace(record, reason=self.redact(record.reason)[:500])
        rejected = check_record(record)
        if rejected is not None:
            record = _as_malformed(record, rejected)
        return record, decision

    def _conflict(
        self, event: str, delivery: str, stored: str, got: str
    ) -> tuple[int, dict[str, Any]]:
        self.metrics.deliveries.inc(event, "conflict")
        log.warning(
            "delivery %s %s: id seen before with another body (stored sha256 %s, this one"
            " %s): answered 409, nothing stored",
            delivery,
            event,
            stored[:16],
            got[:16],
        )
        return 409, {
            "delivery": delivery,
            "outcome": "conflict",
            "reason": "delivery id seen before with another body",
        }

    def _answer(
        self, event: str, delivery: str, decision: Decision, ingested: Ingested
    ) -> tuple[int, dict[str, Any]]:
        """The answer to a stored delivery (waking the workers when it queued a job)."""
        outcome = (
            "requeued"
            if ingested.requeued
            else "duplicate"
            if ingested.duplicate
            else ingested.outcome
        )
        self.metrics.deliveries.inc(event, outcome)
        if self.pool is not None and (ingested.requeued or outcome in ("queued", "collapsed")):
            self.pool.wake()
        answer: dict[str, Any] = {"delivery": delivery, "outcome": outcome}
        if ingested.job_id is not None:
            answer["job"] = ingested.job_id
        if decision.reason and outcome not in ("queued", "collapsed", "duplicate"):
            answer["reason"] = decision.reason
        log.info(
            "delivery %s %s%s: %s%s",
            delivery,
            event,
            f".{decision.action}" if decision.action else "",
            outcome,
            f" ({decision.reason})"
            if decision.kind not in ("review", "signoff", "fix") and decision.reason
            else "",
        )
        if ingested.outcome == "malformed":
            return 400, answer
        if ingested.outcome == "ping":
            return 200, {**answer, "pong": True}
        return 202, answer

    def readiness(self) -> tuple[bool, dict[str, Any]]:
        checks: dict[str, Any] = {"backend": getattr(self.queue, "backend", "custom")}
        try:
            self.queue.ping()
            checks["database"] = "ok"
        except Exception as exc:
            if isinstance(exc, QueueError):  # reachable, but e.g. the schema is behind
                checks["database"] = str(exc)
            else:
                checks["database"] = f"unreachable: {type(exc).__name__}"
        credentials = self.settings.credentials
        checks["credentials"] = credentials or "missing"
        if self.pool is not None:
            alive = self.pool.alive()
            checks["workers"] = f"{alive}/{self.pool.workers}"
            workers_ok = alive == self.pool.workers
        else:
            workers_ok = True
        ok = checks["database"] == "ok" and credentials is not None and workers_ok
        return ok, checks


def create_app(
    settings: Settings,
    *,
    queue: JobQueue | None = None,
    gateways: GatewayFactory | None = None,
    reviewer: Reviewer | None = None,
    start_workers: bool = True,
    signoffer: Signoffer | None = None,
    adviser: Adviser | None = None,
) -> FastAPI:
    """The service. Tests inject `queue`, `gateways`, `reviewer` and `signoffer`; by default
    they are the SQLite file `settings.db_path`, gateways from the configured credentials
    (built on first use), the review pipeline and (unless `BOT_SIGNOFF_ENABLED=false`) the
    sign-off gate."""
    if not settings.webhook_secrets:
        raise ValueError("refusing to start without a webhook secret")
    owns_queue = queue is None
    if queue is None:
        queue = open_queue(settings)
    metrics = Metrics()
    gateways = gateways or github_factory(settings)
    if hasattr(queue, "pacer"):  # PostgreSQL: pacing and rate-limit holds shared by replicas
        from bot.server.pacing import paced_factory

        gateways = paced_factory(
            gateways, queue.pacer(settings.write_interval), token=bool(settings.github_token)
        )
    identity = Identity(settings.self_login, settings.github_app_slug)
    pool: WorkerPool | None = None
    if start_workers and settings.workers > 0:  # 0: another process on the queue reviews
        # the files the reviews, the sign-off gate and the advisor parse, kept across them
        parses = service_parses()
        pool = WorkerPool(
            queue,
            gateways=gateways,
            reviewer=reviewer or pipeline_reviewer(settings, parses),
            metrics=metrics,
            workers=settings.workers,
            lease_seconds=settings.lease_seconds,
            poll_seconds=settings.poll_seconds,
            retry=RetryPolicy(settings.retry_base_seconds, settings.retry_max_seconds),
            identity=identity,
            retention_seconds=settings.retention_days * 86400,
            sweep_seconds=settings.sweep_seconds,
            signoffer=signoffer
            or (service_signoffer(settings, parses) if settings.signoff_enabled else None),
            adviser=adviser if adviser is not None else service_adviser(settings, parses),
            redact=settings_redactor(settings),
            job_timeout=settings.job_timeout,
            fixer=service_fixer(settings),
        )
    service = Service(settings, queue, metrics, identity, pool)
    _attach_gauges(service)
    app = FastAPI(
        title="recipe-review bot",
        lifespan=_lifespan(service, owns_queue),
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.service = service
    _routes(app, service)
    return app


def _lifespan(
    service: Service, owns_queue: bool
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """Start the workers with the app, stop them (and close an owned queue) after it."""
    settings, queue, pool = service.settings, service.queue, service.pool

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            await asyncio.to_thread(queue.ping)  # the schema is checked at start
        except Exception as exc:
            log.error("bot serve: queue not ready: %s", exc)
        if pool is not None:
            pool.start()
        log.info(
            "bot serve: queue %s (%s), %d worker(s), credentials %s",
            describe(settings.db_path) if owns_queue else "(injected)",
            getattr(queue, "backend", "custom"),
            settings.workers if pool else 0,
            settings.credentials or "missing",
        )
        try:
            yield
        finally:
            if pool is not None:
                await asyncio.to_thread(pool.stop)
            if owns_queue:
                queue.close()
            log.info("bot serve: stopped")

    return lifespan


def _routes(app: FastAPI, service: Service) -> None:
    """`POST /webhook`, `/healthz`, `/readyz` and `/metrics`."""

    @app.post("/webhook")
    async def webhook(request: Request) -> Response:
        return await _receive(request, service)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        ok, checks = await run_in_threadpool(service.readiness)
        return JSONResponse(
            {"status": "ready" if ok else "not ready", **checks}, status_code=200 if ok else 503
        )

    @app.get("/metrics")
    async def metrics_endpoint() -> PlainTextResponse:
        text = await run_in_threadpool(service.metrics.render)
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")


async def _receive(request: Request, service: Service) -> Response:
    """Read one delivery within the size and time bounds, then hand it to the service."""
    started = time.perf_counter()
    settings = service.settings
    cap = settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > cap):
        return _too_large(service, cap)
    body = bytearray()
    try:
        async with asyncio.timeout(settings.body_timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > cap:
                    return _too_large(service, cap)
    except TimeoutError:  # a slow or stalled client: drop it, store nothing
        service.metrics.deliveries.inc("unverified", "too_slow")
        return JSONResponse(
            {"error": f"body not received within {settings.body_timeout:g} s"},
            status_code=408,
            headers={"Connection": "close"},
        )
    except ClientDisconnect:  # nobody to answer; nothing was stored
        return Response(status_code=400)
    seen: set[str] = set()
    repeated: set[str] = set()
    for key, _ in request.headers.items():
        low = key.lower()
        (repeated if low in seen else seen).add(low)
    headers = {k.lower(): v for k, v in request.headers.items()}
    try:
        status, answer = await run_in_threadpool(
            service.handle_webhook, headers, bytes(body), repeated=repeated
        )
        return JSONResponse(answer, status_code=status)
    finally:  # the ack: from the headers to the answer, for deliveries received whole
        service.metrics.ack_seconds.observe(time.perf_counter() - started)


def _as_malformed(record: DeliveryRecord, reason: str) -> DeliveryRecord:
    """`record` stored as a malformed delivery: no pull request, no job, `reason` kept."""
    delivery = record.delivery_id
    if not valid_delivery_id(delivery):
        delivery = f"invalid-{record.body_sha256[:32]}"
    return replace(
        record,
        delivery_id=delivery,
        kind="malformed",
        reason=reason[:500],
        pull=None,
        signoff=None,
        size=max(0, min(record.size, 2**53 - 1)),
    )


def settings_redactor(settings: Settings) -> Redactor:
    """Redaction of the credentials `settings` holds (and of every known token shape)."""
    return Redactor(
        [*settings.webhook_secrets, settings.github_token, settings.github_app_private_key]
    )


def _too_large(service: Service, cap: int) -> JSONResponse:
    service.metrics.deliveries.inc("unverified", "too_large")
    return JSONResponse(
        {"error": f"body larger than {cap} bytes"},
        status_code=413,
        headers={"Connection": "close"},
    )


def _attach_gauges(service: Service) -> None:
    def jobs() -> dict[tuple[str, ...], float]:
        try:
            return {(state,): float(n) for state, n in service.queue.stats().jobs.items()}
        except Exception:
            return {}

    def oldest() -> dict[tuple[str, ...], float]:
        try:
            return {(): service.queue.stats().oldest_queued_age}
        except Exception:
            return {}

    def workers() -> dict[tuple[str, ...], float]:
        return {(): float(service.pool.alive() if service.pool else 0)}

    service.metrics.gauges += [
        Gauge(
            "bot_queue_jobs",
            "Jobs (reviews and sign-off checks) by state: queued (the queue depth, retries "
            "included), running, done, superseded, dead (dead letters).",
            jobs,
            ("state",),
        ),
        Gauge(
            "bot_queue_oldest_due_seconds",
            "How long the oldest due job has waited.",
            oldest,
        ),
        Gauge("bot_workers_alive", "Review worker threads alive.", workers),
    ]


def create_app_from_env() -> FastAPI:
    """`uvicorn --factory bot.server.app:create_app_from_env`: settings read now."""
    return create_app(load_settings(os.environ))


def serve(settings: Settings) -> int:
    """Run the service under uvicorn until interrupted."""
    import uvicorn

    configure_logging(settings)
    app = create_app(settings)
    uvicorn.Server(uvicorn_config(app, settings)).run()
    return 0


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(settings: Settings, stream: IO[str] | None = None) -> logging.Handler:
    """One root handler whose every line is redacted (`bot.redact`); uvicorn's loggers
    propagate to it (`uvicorn_config` passes `log_config=None`)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter(LOG_FORMAT, redactor=settings_redactor(settings)))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.log_level.upper())
    return handler


def uvicorn_config(app: Any, settings: Settings, **overrides: Any) -> Any:
    """The uvicorn configuration `bot serve` runs with: h11 with header and body
    deadlines (`bot.server.deadlines`), the keep-alive timeout, no server header,
    logging left to `configure_logging`. Tests pass `overrides` (e.g. `port=0`)."""
    import uvicorn

    from bot.server.deadlines import deadline_protocol

    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "http": deadline_protocol(settings.header_timeout, settings.body_timeout),
        "timeout_keep_alive": settings.keepalive_timeout,
        "log_config": None,
        "log_level": settings.log_level,
        "server_header": False,
        "proxy_headers": False,
        "timeout_graceful_shutdown": 30,
        "lifespan": "on",
    }
    options.update(overrides)
    return uvicorn.Config(app, **options)
