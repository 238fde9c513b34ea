"""The write lock of one process's SQLite writers: first come, first served, with the step writer
served next whenever it waits and did not hold the lock last.

SQLite has one writer at a time; the writers of a process queue here, in asyncio, rather than in
SQLite's busy handler (which sleeps up to 100 ms between its retries). Plain FIFO order made the
step log wait behind every other write queued before it: when hundreds of tables start at once,
each stores its guests, their sessions and its match (nine transactions, nine fsyncs), and a deal
committed after all of them missed the table's commit timeout. With the step writer served every
other turn, a batch of steps (every table's next step, whoever queued it) waits for at most one
other transaction, and the other writers still get every other turn, so nobody starves.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType


class WriteGate:
    """``async with gate:`` for an ordinary writer; ``async with gate.hold(priority=True):`` for the
    step writer (one at a time)."""

    def __init__(self) -> None:
        self._locked = False
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._priority: asyncio.Future[None] | None = None
        self._last_was_priority = False

    @property
    def locked(self) -> bool:
        return self._locked

    @asynccontextmanager
    async def hold(self, *, priority: bool = False) -> AsyncIterator[None]:
        await self._acquire(priority)
        try:
            yield
        finally:
            self._release()

    async def __aenter__(self) -> None:
        await self._acquire(False)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._release()

    async def _acquire(self, priority: bool) -> None:
        if not self._locked and not self._waiters and self._priority is None:
            self._locked = True
            self._last_was_priority = priority
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if priority:
            if self._priority is not None:
                raise RuntimeError("only one priority writer may wait at a time")
            self._priority = future
        else:
            self._waiters.append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release()  # granted as it was cancelled: pass the lock on
            elif priority:
                if self._priority is future:
                    self._priority = None
            elif future in self._waiters:
                self._waiters.remove(future)
            raise

    def _release(self) -> None:
        if not self._locked:
            raise RuntimeError("the write gate is not held")
        # (A waiter cancelled a moment ago is still queued until its task runs: skip it.)
        while self._waiters and self._waiters[0].done():
            self._waiters.popleft()
        if self._priority is not None and self._priority.done():
            self._priority = None
        if self._priority is not None and (not self._last_was_priority or not self._waiters):
            future, self._priority = self._priority, None
            self._last_was_priority = True
            future.set_result(None)
            return
        if self._waiters:
            self._last_was_priority = False
            self._waiters.popleft().set_result(None)
            return
        self._locked = False
