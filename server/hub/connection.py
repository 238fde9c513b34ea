"""Transport-level pieces shared by every protocol adapter: the outbound queue and the rate limit.

:class:`Outbox` follows python-websockets' broadcast pattern: one bounded queue and one writer task
per connection, so producers (tables, the lobby) only ever ``put`` without waiting. When a client
stops reading, the transport's buffer fills, the writer waits, the queue fills, and the next ``put``
drops the connection (aborting the TCP connection: a closing handshake would wait on the same
stalled reader). The client may reconnect and resume. The queue is a plain list and one waiter
future rather than an ``asyncio.Queue`` (whose three deques and event cost about 3 KiB for each
of thousands of mostly idle connections; ``bench/hub.py``, docs/benchmarks.md).

:class:`TokenBucket` is the per-connection rate limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from server.domain.records import Account

log = logging.getLogger(__name__)


class ConnectionAdapter(Protocol):
    """One websocket connection speaking one protocol, as the hub runs it: ours is
    :class:`server.hub.session.ProtocolSession` (path ``/ws``), mjai's is
    :class:`server.hub.mjai.MjaiSession` (path ``/mjai``); both build on
    :class:`server.hub.session.SeatConnection` and talk to the same lobby and tables through
    :mod:`server.hub.outputs` and :mod:`server.hub.inbox`."""

    @property
    def account(self) -> Account:
        """The authenticated account (only asked for after it registered with the hub)."""
        ...

    async def run(self) -> None:
        """Serve the connection until it closes."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Close after what is already queued (shutdown: 1012)."""
        ...

    def replaced(self) -> None:
        """A newer connection of the same account took over: close this one."""
        ...

    async def finish(self, timeout: float) -> None:
        """Wait until the connection is closed, dropping it after ``timeout`` seconds."""
        ...


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class Outbox:
    """A bounded queue of encoded text frames and the task that writes them."""

    __slots__ = ("_items", "_maxsize", "_name", "_task", "_waiter", "_ws", "closing", "dropped")

    def __init__(self, ws: ServerConnection, maxsize: int, *, name: str) -> None:
        self._ws = ws
        self._name = name
        self._items: list[bytes | _Close] = []
        self._maxsize = maxsize
        self._waiter: asyncio.Future[None] | None = None  # the writer, waiting for an item
        self.dropped = False
        self.closing = False
        self._task = asyncio.create_task(self._write(), name=f"writer-{name}")

    @property
    def open(self) -> bool:
        return not (self.dropped or self.closing)

    def put(self, frame: bytes) -> bool:
        """Queue one text frame; drops the connection when the queue is full. Never blocks."""
        if not self.open:
            return False
        if not self._push(frame):
            self.drop("outbound queue full (the client is not reading)")
            return False
        return True

    def close(self, code: int, reason: str) -> None:
        """Close the connection with ``code`` once the frames already queued are written."""
        if not self.open:
            return
        self.closing = True
        if not self._push(_Close(code, reason)):
            self.closing = False
            self.drop(f"outbound queue full while closing ({code} {reason})")

    def _push(self, item: bytes | _Close) -> bool:
        if len(self._items) >= self._maxsize:
            return False
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        return True

    async def _next(self) -> bytes | _Close:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)

    def drop(self, why: str) -> None:
        """Abort the connection now, discarding what is queued."""
        if self.dropped:
            return
        self.dropped = True
        log.info("connection %s dropped: %s", self._name, why)
        self._task.cancel()
        self._ws.transport.abort()

    async def finish(self, timeout: float) -> None:
        """Wait for the writer to end (after a close), dropping the connection if it takes too long."""
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if not done:
            self.drop("closing took too long")
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _write(self) -> None:
        try:
            while True:
                item = await self._next()
                if isinstance(item, _Close):
                    await self._ws.close(item.code, item.reason)
                    return
                await self._ws.send(item, text=True)
        except ConnectionClosed:
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("writer of %s failed", self._name)
            self.dropped = True
            self._ws.transport.abort()


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; each message takes one.

    >>> now = [0.0]
    >>> bucket = TokenBucket(rate=1.0, burst=2, now=lambda: now[0])
    >>> bucket.take(), bucket.take(), bucket.take()
    (True, True, False)
    >>> now[0] = 1.0; bucket.take()
    True
    """

    def __init__(self, rate: float, burst: int, now: Callable[[], float]) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._now = now
        self._last = now()

    def take(self) -> bool:
        now = self._now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False
