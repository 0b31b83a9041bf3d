"""The lazy gateway factory and the metrics hook the workers run on its gateways.

- `github_factory`: builds the real gateway on first use (`bot.github.gateway` is
  imported then, not when this module is imported) and keeps one per credential and
  installation for the life of the process, as that gateway wants (its caches, and
  its write pacing, `BOT_WRITE_INTERVAL` apart, are per gateway). Tests pass their
  own factory.
- `Metered`: a call hook (`bot.github.calls`) counting calls and errors per gateway
  method for /metrics; the gateway runs it around each of its calls.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from bot.github.types import Gateway, GitHubError
from bot.server.metrics import Metrics
from bot.server.settings import Settings

GatewayFactory = Callable[[int | None], Gateway]
"""installation id (None for token auth or when the payload has none) → a Gateway."""


class ConfigurationError(Exception):
    """The service cannot build a gateway for this job (permanent: retrying will not help)."""


class Metered:
    """A `CallHook` counting gateway calls and GitHub errors per method for /metrics."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def before(self, name: str, write: bool) -> None:
        self.metrics.github_calls.inc(name)

    def failed(self, name: str, error: GitHubError) -> None:
        # a failed token exchange is counted as itself, not as the call it was for
        method = "installation_token" if error.token_exchange else name
        self.metrics.github_errors.inc(method, str(error.status))


def github_factory(settings: Settings) -> GatewayFactory:
    """Real gateways from the configured credentials: built on first use, then shared by
    every worker (the gateway is thread-safe). An App gateway per installation id; None
    (a payload without one) gets the gateway that looks installations up per repository."""
    cache: dict[int | None, Gateway] = {}
    lock = threading.Lock()

    def make(installation_id: int | None) -> Gateway:
        from bot.github import gateway as github_gateway  # the edge that imports PyGithub

        options: dict[str, Any] = {"seconds_between_writes": settings.write_interval}
        if settings.self_login:
            options["login"] = settings.self_login
        key = None if settings.github_token else installation_id
        with lock:
            gw = cache.get(key)
            if gw is not None:
                return gw
            if settings.github_token:
                gw = github_gateway.from_token(
                    settings.github_token, settings.github_api_url, **options
                )
            elif settings.github_app_id is not None and settings.github_app_private_key:
                gw = github_gateway.from_app(
                    settings.github_app_id,
                    settings.github_app_private_key,
                    installation_id or settings.github_app_installation_id,
                    settings.github_api_url,
                    **options,
                )
            else:
                raise ConfigurationError("no GitHub credentials configured")
            cache[key] = gw
            return gw

    return make
