"""The injectable clock: every deadline of the hub (prompt timers, time banks, the call window, bot
fill-in, commit timeouts, spectator delays, rate limits) and of the store's group-commit writer is
measured on a :class:`Clock`. (In the neutral layer because both use it; ``server.hub.clock``
re-exports it.)

Production uses :class:`SystemClock` (the event loop's monotonic clock). Tests use
:class:`ManualClock`, whose time only moves when the test calls :meth:`ManualClock.advance`, which
runs the callbacks that came due, in deadline order, synchronously. Nothing in the hub sleeps.

>>> clock = ManualClock()
>>> fired: list[float] = []
>>> _ = clock.call_at(5.0, lambda: fired.append(clock.now()))
>>> clock.advance(4.0); fired
[]
>>> clock.advance(1.0); fired
[5.0]
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

T = TypeVar("T")


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """A monotonic clock in seconds that can call back at a deadline."""

    def now(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Cancellable:
        """Run ``callback`` (synchronously, on the event loop) once ``now() >= when``."""
        ...


class SystemClock:
    """The running event loop's monotonic clock (``loop.time()``)."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Cancellable:
        return asyncio.get_running_loop().call_at(when, callback)


class _ManualHandle:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that tests drive: time stands still until :meth:`advance`."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, _ManualHandle]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callable[[], None]) -> Cancellable:
        handle = _ManualHandle(when, callback)
        heapq.heappush(self._heap, (when, next(self._seq), handle))
        return handle

    def pending(self) -> int:
        """Callbacks scheduled and not cancelled (for tests)."""
        return sum(1 for _, _, h in self._heap if not h.cancelled)

    def next_deadline(self) -> float | None:
        live = [when for when, _, h in self._heap if not h.cancelled]
        return min(live) if live else None

    def advance(self, seconds: float) -> None:
        """Move time forward, running every callback that comes due (in deadline order)."""
        if seconds < 0:
            raise ValueError(f"time cannot go back ({seconds} s)")
        target = self._now + seconds
        while self._heap and self._heap[0][0] <= target:
            when, _, handle = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            self._now = max(self._now, when)
            handle.callback()
        self._now = target

    def advance_to_next(self) -> bool:
        """Jump to the next scheduled deadline and run what is due; False when nothing is scheduled."""
        deadline = self.next_deadline()
        if deadline is None:
            return False
        self.advance(max(0.0, deadline - self._now))
        return True


async def sleep_until(clock: Clock, when: float) -> None:
    """Wait until ``clock.now() >= when`` (cancellable)."""
    if clock.now() >= when:
        return
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not future.done():
            future.set_result(None)

    handle = clock.call_at(when, wake)
    try:
        await future
    finally:
        handle.cancel()


async def with_deadline(clock: Clock, awaitable: Awaitable[T], when: float, what: str = "operation") -> T:
    """Await ``awaitable``, cancelling it once ``clock.now() >= when`` (then raise TimeoutError).

    On the :class:`SystemClock` (the loop's own time) this is ``asyncio.timeout_at``: the awaitable
    runs in the caller's task, so a store call costs no task of its own (every applied action makes
    one); other clocks get a task that their callback cancels."""
    if type(clock) is SystemClock:
        deadline = asyncio.timeout_at(when)
        try:
            async with deadline:
                return await awaitable
        except TimeoutError:
            if deadline.expired():
                raise TimeoutError(f"{what} did not finish in time") from None
            raise  # the awaitable's own TimeoutError
    task = asyncio.ensure_future(awaitable)
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    handle = clock.call_at(when, expire)
    try:
        return await task
    except asyncio.CancelledError:
        if expired:
            raise TimeoutError(f"{what} did not finish in time") from None
        raise
    finally:
        handle.cancel()
        if not task.done():
            task.cancel()
