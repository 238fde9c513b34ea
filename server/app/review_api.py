"""The admin port beside the hub in ``jantaku serve``: same process, same event loop, same repository,
and the same HTTP application as the game port (``server.web.api``), which answers there the admin
port's routes (the review API, ranked play, the admin pages).

``jantaku serve --http-port N`` (default: the hub's port + 1, any free port when ``--port`` is 0;
``-1``: off) runs it while the hub runs (:func:`review_api`). It needs the SQL store: with
``--database-url memory:`` it is not started. When the default port is taken the hub still starts
(with a warning); a port given with ``--http-port`` that cannot be bound is an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from server.domain.ports import Repository
from server.hub.asgi import AsgiApp
from server.hub.settings import SettingsError
from server.store.repository import SqlRepository
from server.web.api import serve_http

log = logging.getLogger(__name__)

OFF = -1


@dataclass(frozen=True, slots=True)
class ReviewServer:
    """Where the review API listens (``url``, None when it is not running) and, if it is not,
    why (``note``, for the operator)."""

    url: str | None
    note: str | None = None


def review_port(hub_port: int, http_port: int | None) -> int | None:
    """The port of ``--http-port`` (None: not given) for a hub on ``hub_port``; None means off."""
    if http_port is None:
        return hub_port + 1 if 0 < hub_port < 65535 else 0
    if http_port == OFF:
        return None
    if not 0 <= http_port <= 65535:
        raise SettingsError(f"--http-port must be 0..65535, or -1 for none; got {http_port}")
    return http_port


@contextlib.asynccontextmanager
async def review_api(
    app: AsgiApp,
    repo: Repository,
    host: str,
    port: int | None,
    *,
    required: bool = False,
) -> AsyncIterator[ReviewServer]:
    """Serve ``app`` (the one HTTP application) on the admin port ``host:port`` while the block runs.

    ``port`` None: not served. ``required``: a port that cannot be bound raises OSError (otherwise
    the hub goes on without the review API, and the yielded ``note`` says why)."""
    if port is None:
        yield ReviewServer(None)
        return
    if not isinstance(repo, SqlRepository):
        yield ReviewServer(None, "admin review API off: it needs the SQL store (not --database-url memory:)")
        return
    stop = asyncio.Event()
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_ready(url: str) -> None:
        if not ready.done():
            ready.set_result(url)

    task = asyncio.create_task(serve_http(app, host, port, stop, on_ready=on_ready), name="review API")
    waiting: list[asyncio.Future[Any]] = [task, ready]
    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    if not ready.done():
        exc = task.exception()
        if not isinstance(exc, OSError) or required:
            message = f"the admin review API cannot listen on {host}:{port}: {exc}"
            raise OSError(message) from exc
        log.warning("admin review API not started: cannot listen on %s:%s: %s", host, port, exc)
        yield ReviewServer(
            None, f"admin review API off: cannot listen on {host}:{port} ({exc}); see --http-port"
        )
        return
    try:
        yield ReviewServer(ready.result())
    finally:
        stop.set()
        await task
