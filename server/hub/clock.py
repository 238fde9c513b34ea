"""The hub's clock: :mod:`server.domain.clock` (the store's writer measures its deadlines on the
same injectable clock, so it lives in the neutral layer). Re-exported here for the hub's modules."""

from __future__ import annotations

from collections.abc import Callable

from server.domain.clock import Cancellable, Clock, ManualClock, SystemClock, sleep_until, with_deadline

__all__ = ["Alarm", "Cancellable", "Clock", "ManualClock", "SystemClock", "sleep_until", "with_deadline"]


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
