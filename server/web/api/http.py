"""Serve an ASGI application with uvicorn inside the running event loop (the hub's).

uvicorn normally owns the process: it installs SIGINT/SIGTERM handlers and runs its own loop. Here
the hub owns both, so :class:`_Server` installs no signal handlers and the caller says when to stop
(an :class:`asyncio.Event`). The listening socket is bound before uvicorn starts, so a port in use
raises :class:`OSError` at once (uvicorn would ``sys.exit``) and port 0 reports the port it got.

The port shares the process (and its file descriptors and event loop) with the game port, so it is
bounded (:class:`HttpLimits`, :class:`_GuardedH11`): a request must arrive whole within
``request_timeout_s`` of its first byte (or of the connection), an idle keep-alive connection is
closed after ``idle_timeout_s``, and beyond ``max_connections`` open connections a new one is
answered ``503`` and closed at once. Held half-sent requests therefore cost at most
``max_connections`` descriptors for at most ``request_timeout_s`` each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

GRACEFUL_SHUTDOWN_S = 5.0


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """Bounds of the admin/review HTTP port (docs/operations.md, "Security")."""

    max_connections: int = 256  # open connections; more are answered 503 and closed
    request_timeout_s: float = 10.0  # a request head (and body) must arrive whole within this
    idle_timeout_s: int = 5  # an idle keep-alive connection is closed after this

    def __post_init__(self) -> None:
        if self.max_connections < 1 or self.request_timeout_s <= 0 or self.idle_timeout_s < 1:
            raise ValueError(f"bad HTTP limits: {self}")


_BUSY = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class _GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a connection cap and a whole-request deadline (module docstring).
    ``limits`` and ``open`` (the live count) are set per server on a subclass (:func:`_guarded`)."""

    limits: ClassVar[HttpLimits] = HttpLimits()
    open: ClassVar[list[int]] = [0]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Over the cap, nothing of uvicorn's is built (a flood of connections costs little).
        self._refused = self.open[0] >= self.limits.max_connections
        self._deadline: asyncio.TimerHandle | None = None
        if not self._refused:
            super().__init__(*args, **kwargs)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if self._refused or self.open[0] >= self.limits.max_connections:
            self._refused = True
            transport.write(_BUSY)
            transport.close()
            return
        self.open[0] += 1
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            if self._deadline is None:
                self._arm()  # a (next) request has begun: it has request_timeout_s to arrive whole
        else:
            self._disarm()

    def eof_received(self) -> None:
        if not self._refused:
            super().eof_received()

    def pause_writing(self) -> None:
        if not self._refused:
            super().pause_writing()

    def resume_writing(self) -> None:
        if not self._refused:
            super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            return
        self.open[0] -= 1
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.limits.request_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and self.transport is not None:
            self.transport.close()  # the request never came whole (or a keep-alive went quiet)


def _guarded(limits: HttpLimits) -> type[_GuardedH11]:
    """A protocol class of its own for one server: its limits and its count of open connections."""
    return type("GuardedH11", (_GuardedH11,), {"limits": limits, "open": [0]})


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # the hub handles signals
        yield


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (IPv4 or IPv6, whichever ``host`` names first)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    if not infos:  # pragma: no cover - getaddrinfo raises instead
        raise OSError(f"cannot resolve {host!r}")
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


async def serve_http(
    app: ASGIApp,
    host: str,
    port: int,
    stop: asyncio.Event,
    *,
    on_ready: Callable[[str], None] | None = None,
    log_level: str = "warning",
    limits: HttpLimits | None = None,
) -> None:
    """Serve ``app`` on ``host:port`` until ``stop`` is set, then close gracefully.

    ``on_ready(url)`` is called once the socket listens (with the real port when ``port`` is 0).
    Raises OSError if the address cannot be bound."""
    limits = limits or HttpLimits()
    sock = bind(host, port)
    config = uvicorn.Config(
        app,
        http=_guarded(limits),
        timeout_keep_alive=limits.idle_timeout_s,
        limit_concurrency=limits.max_connections + 1,  # the guard answers 503 first
        lifespan="off",
        # uvicorn's own logging setup would give its loggers handlers of their own, printing
        # outside the format ``jantaku serve`` configured (server/hub/logs.py): its records go to
        # the root logger's handler like every other line.
        log_config=None,
        log_level=log_level,
        access_log=False,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=int(GRACEFUL_SHUTDOWN_S),
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name=f"http {host}:{port}")
    try:
        while not server.started:
            if task.done():
                await task  # raises what made it fail
                raise OSError("the HTTP server stopped while starting")
            await asyncio.sleep(0.01)
        url = url_of(sock)
        log.info("review API listening on %s", url)
        if on_ready is not None:
            on_ready(url)
        stop_wait = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({task, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop_wait.cancel()
    finally:
        server.should_exit = True
        try:
            await task
        finally:
            sock.close()
