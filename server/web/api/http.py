"""Serve an ASGI application with uvicorn inside the running event loop (the hub's).

uvicorn normally owns the process: it installs SIGINT/SIGTERM handlers and runs its own loop. Here
the hub owns both, so :class:`_Server` installs no signal handlers and the caller says when to stop
(an :class:`asyncio.Event`). The listening socket is bound before uvicorn starts, so a port in use
raises :class:`OSError` at once (uvicorn would ``sys.exit``) and port 0 reports the port it got.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Iterator

import uvicorn
from starlette.types import ASGIApp

log = logging.getLogger(__name__)

GRACEFUL_SHUTDOWN_S = 5.0


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
) -> None:
    """Serve ``app`` on ``host:port`` until ``stop`` is set, then close gracefully.

    ``on_ready(url)`` is called once the socket listens (with the real port when ``port`` is 0).
    Raises OSError if the address cannot be bound."""
    sock = bind(host, port)
    config = uvicorn.Config(
        app,
        lifespan="off",
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
