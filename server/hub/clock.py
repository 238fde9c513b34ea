"""The hub's clock: every deadline (prompt timers, time banks, the call window, bot fill-in, commit
timeouts, spectator delays, rate limits) is measured on an injectable :class:`Clock`.

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


class Alarm:
    """One callback at a deadline that keeps changing (a table's earliest timer): :meth:`set` re-arms
    it only when the deadline moved, so an unchanged deadline costs nothing.

    >>> clock = ManualClock()
    >>> rang: list[float] = []
    >>> alarm = Alarm(clock, lambda: rang.append(clock.now()))
    >>> alarm.set(2.0); alarm.set(1.0); clock.advance(5.0); rang, alarm.when
    ([1.0], None)
    """

    __slots__ = ("_callback", "_clock", "_handle", "when")

    def __init__(self, clock: Clock, callback: Callable[[], None]) -> None:
        self._clock = clock
        self._callback = callback
        self._handle: Cancellable | None = None
        self.when: float | None = None  # when it rings (None: not set)

    def set(self, when: float | None) -> None:
        """Ring at ``when`` (None: not at all) instead of the deadline set before."""
        if when == self.when:
            return
        self.cancel()
        if when is not None:
            self.when = when
            self._handle = self._clock.call_at(when, self._ring)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None
        self.when = None

    def _ring(self) -> None:
        self._handle = None
        self.when = None
        self._callback()


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
    """Await ``awaitable``, cancelling it once ``clock.now() >= when`` (then raise TimeoutError)."""
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
