"""Deadlines for slow clients, which uvicorn's h11 protocol does not have by itself.

uvicorn arms its keep-alive timer only after a response; a client that connects and
sends nothing, sends half its headers, or declares a `Content-Length` and never sends
the body, keeps its connection (and, for the body, a request task) forever.
`deadline_protocol(header_timeout, body_timeout)` returns an `H11Protocol` subclass
(`uvicorn.Config(http=...)`) that closes the connection when

- the request line and headers have not all arrived `header_timeout` seconds after
  the connection opened or the previous response finished, or
- the body has not all arrived `body_timeout` seconds after the headers.

The webhook handler has its own body deadline (`Settings.body_timeout`) that answers
408 first; this one is the backstop for every route, so it fires a little later.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("bot.server.http")

BACKSTOP_GRACE = 1.0  # seconds the protocol waits beyond the handler's body deadline


def deadline_protocol(header_timeout: float, body_timeout: float) -> type[H11Protocol]:
    """An `H11Protocol` class enforcing the two deadlines (seconds, > 0)."""

    class DeadlineH11Protocol(H11Protocol):
        _header_timeout = header_timeout
        _body_timeout = body_timeout + BACKSTOP_GRACE

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._deadline: asyncio.TimerHandle | None = None
            self._phase = ""  # "headers" | "body" | "" (no deadline running)
            self._timed_cycle: object = None

        def _arm(self, phase: str, seconds: float) -> None:
            self._disarm()
            self._phase = phase
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._phase = ""

        def _expired(self) -> None:
            self._deadline = None
            if self.transport is None or self.transport.is_closing():
                return
            log.info(
                "closing a connection from %s: %s not received in time",
                f"{self.client[0]}:{self.client[1]}" if self.client else "?",
                "request headers" if self._phase == "headers" else "request body",
            )
            self._phase = ""
            self.transport.close()  # the handler, if any, sees a disconnect

        def _track(self) -> None:
            """Move the deadline along with h11's view of the request."""
            their = self.conn.their_state
            if their is h11.IDLE:
                if self._phase != "headers" and not self._response_pending():
                    self._arm("headers", self._header_timeout)
            elif their is h11.SEND_BODY:
                if self._timed_cycle is not self.cycle:
                    self._timed_cycle = self.cycle
                    self._arm("body", self._body_timeout)
            else:  # DONE, MUST_CLOSE, CLOSED, ERROR: the request is in (or is over)
                self._disarm()

        def _response_pending(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm("headers", self._header_timeout)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport is not None and not self.transport.is_closing():
                self._track()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.transport is not None and not self.transport.is_closing():
                self._track()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return DeadlineH11Protocol
