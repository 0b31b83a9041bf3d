"""Prometheus text exposition (format 0.0.4) without a client library: counters, histograms
and gauges read at scrape time. Thread-safe; one `Metrics` per app.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
REVIEW_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(names: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _num(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


class Counter:
    def __init__(self, name: str, help: str, labels: Sequence[str] = ()) -> None:
        self.name, self.help, self.label_names = name, help, tuple(labels)
        self._values: dict[tuple[str, ...], float] = {}
        self._lock = threading.Lock()

    def inc(self, *labels: str, value: float = 1.0) -> None:
        with self._lock:
            self._values[labels] = self._values.get(labels, 0.0) + value

    def get(self, *labels: str) -> float:
        with self._lock:
            return self._values.get(labels, 0.0)

    def render(self) -> Iterable[str]:
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} counter"
        with self._lock:
            items = sorted(self._values.items())
        for labels, value in items:
            yield f"{self.name}{_labels(self.label_names, labels)} {_num(value)}"


class Histogram:
    def __init__(
        self, name: str, help: str, buckets: Sequence[float], labels: Sequence[str] = ()
    ) -> None:
        self.name, self.help, self.label_names = name, help, tuple(labels)
        self.buckets = tuple(sorted(buckets))
        self._series: dict[tuple[str, ...], list[float]] = {}  # bucket counts, then sum, count
        self._lock = threading.Lock()

    def observe(self, value: float, *labels: str) -> None:
        with self._lock:
            series = self._series.setdefault(labels, [0.0] * (len(self.buckets) + 2))
            for i, bound in enumerate(self.buckets):
                if value <= bound:
                    series[i] += 1
            series[-2] += value
            series[-1] += 1

    def count(self, *labels: str) -> int:
        with self._lock:
            series = self._series.get(labels)
            return int(series[-1]) if series else 0

    def render(self) -> Iterable[str]:
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} histogram"
        with self._lock:
            items = sorted((k, list(v)) for k, v in self._series.items())
        for labels, series in items:
            for bound, n in zip(self.buckets, series, strict=False):
                le = f'le="{_num(bound)}"'
                yield f"{self.name}_bucket{_labels(self.label_names, labels, le)} {_num(n)}"
            inf = 'le="+Inf"'
            yield f"{self.name}_bucket{_labels(self.label_names, labels, inf)} {_num(series[-1])}"
            yield f"{self.name}_sum{_labels(self.label_names, labels)} {_num(series[-2])}"
            yield f"{self.name}_count{_labels(self.label_names, labels)} {_num(series[-1])}"


class Gauge:
    """A gauge whose samples are read at scrape time from `read()`: {label values: value}."""

    def __init__(
        self,
        name: str,
        help: str,
        read: Callable[[], dict[tuple[str, ...], float]],
        labels: Sequence[str] = (),
    ) -> None:
        self.name, self.help, self.label_names, self.read = name, help, tuple(labels), read

    def render(self) -> Iterable[str]:
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} gauge"
        for labels, value in sorted(self.read().items()):
            yield f"{self.name}{_labels(self.label_names, labels)} {_num(value)}"


class Metrics:
    """Every metric the service exports. Gauges are attached by the app (`gauges`)."""

    def __init__(self) -> None:
        self.deliveries = Counter(
            "bot_webhook_deliveries_total",
            "Webhook deliveries by event and outcome (queued, collapsed, superseded, ignored, "
            "ping, malformed, duplicate, conflict, requeued, unauthorized, duplicate_header, too_large, "
            "too_slow, error).",
            ("event", "outcome"),
        )
        self.ack_seconds = Histogram(
            "bot_webhook_ack_seconds",
            "Time to answer a webhook delivery (verify, persist, respond).",
            LATENCY_BUCKETS,
        )
        self.jobs = Counter(
            "bot_jobs_total",
            "Review job attempts by result (done, skipped, retry, dead, superseded, lost, "
            "timeout; swept: a head left without a review and a job, queued again).",
            ("result",),
        )
        self.review_latency = Histogram(
            "bot_review_latency_seconds",
            "From the first delivery of a job to its review being posted.",
            REVIEW_BUCKETS,
        )
        self.attempt_seconds = Histogram(
            "bot_review_attempt_seconds",
            "Wall time of one review attempt (the pipeline, GitHub calls included).",
            REVIEW_BUCKETS,
        )
        self.github_calls = Counter(
            "bot_github_calls_total", "GitHub gateway calls by method.", ("method",)
        )
        self.github_errors = Counter(
            "bot_github_errors_total",
            "GitHub gateway calls that failed, by method and HTTP status (0: no response);"
            " method installation_token: an App installation token could not be had.",
            ("method", "status"),
        )
        self.signoff_verdicts = Counter(
            "bot_signoff_verdicts_total",
            "Sign-off jobs by result (pass, fail, stale, withdrawn, unsigned, skipped).",
            ("result",),
        )
        self.signoff_tamper = Counter(
            "bot_signoff_tamper_total",
            "Tampering the sign-off gate saw and recorded, by kind (edited_by_other, deleted, "
            "dismissed, unsigned, forged_verdict, verdict_edited, record_altered).",
            ("kind",),
        )
        self.signoff_latency = Histogram(
            "bot_signoff_latency_seconds",
            "From the first delivery of a sign-off job to its status being set.",
            REVIEW_BUCKETS,
        )
        self.queue_errors = Counter(
            "bot_queue_errors_total",
            "Worker calls to the queue's database that failed (down, read-only, full), by "
            "exception type; workers back off while they fail.",
            ("error",),
        )
        self.gauges: list[Gauge] = []

    def render(self) -> str:
        lines: list[str] = []
        metrics: list[Counter | Histogram | Gauge] = [
            self.deliveries,
            self.ack_seconds,
            self.jobs,
            self.review_latency,
            self.attempt_seconds,
            self.github_calls,
            self.github_errors,
            self.signoff_verdicts,
            self.signoff_tamper,
            self.signoff_latency,
            self.queue_errors,
            *self.gauges,
        ]
        for metric in metrics:
            lines.extend(metric.render())
        return "\n".join(lines) + "\n"
