"""When a table next has something to do, on its one timer; when it retires; and its clocks
stopping and starting again (the table factory's ``pause``).

The earliest of: retiring (a finished table stays a while), a held publication or a spectator
release (:class:`~server.hub.pacing.Pacing`), the retry of a failed write
(:class:`~server.hub.commits.Commits`), a seat's decision time or a bot's answer
(:class:`~server.hub.decisions.Decisions`). While the table is paused nothing comes due but
retiring; unpausing moves every open decision's time and a held publication by the pause, so a
seat has the time it had when the clocks stopped.

When the timer rings, :meth:`Wakeup.due` says what came due, one thing at a time: retiring, the end
of a held publication, a seat's decision (in seat order); a release to the spectators is done there
at once (it changes nothing of the match).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from server.hub.clock import Alarm, Clock
from server.hub.commits import Commits
from server.hub.decisions import Decisions
from server.hub.pacing import Pacing


class Due(Enum):
    """What came due besides a seat's decision (:meth:`Wakeup.due`)."""

    RETIRE = "retire"  # the finished table's time is up: the actor stops
    HOLD_OVER = "hold_over"  # a held publication may go out now
    SPECTATORS = "spectators"  # the spectators were sent what their delay allows (done)


class Wakeup:
    """One table's next deadline, its alarm, retiring and pausing."""

    __slots__ = ("_alarm", "_commits", "_decisions", "_pacing", "paused_at", "retire_at")

    def __init__(
        self, clock: Clock, ring: Callable[[], None], pacing: Pacing, commits: Commits, decisions: Decisions
    ) -> None:
        self._alarm = Alarm(clock, ring)
        self._pacing = pacing
        self._commits = commits
        self._decisions = decisions
        self.retire_at: float | None = None  # a finished table goes then
        self.paused_at: float | None = None  # the clocks stopped then

    def next_deadline(self, finished: bool) -> float | None:
        """The earliest thing the table waits for (see the module docstring)."""
        when = self.retire_at
        if finished or self.paused_at is not None:
            return when
        held = self._pacing.next_deadline()
        if held is not None and (when is None or held < when):
            when = held
        # While a failed write waits for its retry, the table decides nothing itself.
        later = self._commits.stalled_until
        if later is None:
            later = self._decisions.next_deadline()
        return later if when is None or (later is not None and later < when) else when

    def due(self, now: float, *, finished: bool) -> Due | int | None:
        """What came due at ``now``, the earliest kind first: :attr:`Due.RETIRE`; then (unless the
        match is over or paused) :attr:`Due.HOLD_OVER`, :attr:`Due.SPECTATORS` (already sent), or
        the seat (an int) whose decision time (or bot's answer) came, unless a failed write of the
        table's own waits for its retry. None: nothing."""
        if self.retire_at is not None and now >= self.retire_at:
            return Due.RETIRE
        if finished or self.paused_at is not None:
            return None
        pacing = self._pacing
        if pacing.hold_due(now):
            return Due.HOLD_OVER
        if pacing.release_to_spectators(now):
            return Due.SPECTATORS
        if self._commits.stalled(now):
            return None
        return self._decisions.due(now)

    def set(self, when: float | None) -> None:
        self._alarm.set(when)

    def cancel(self) -> None:
        self._alarm.cancel()

    def pause(self, now: float) -> bool:
        """Stop the clocks; False if they were stopped already."""
        if self.paused_at is not None:
            return False
        self.paused_at = now
        return True

    def unpause(self, now: float) -> bool:
        """Start the clocks again where they stopped; False if they were running."""
        if self.paused_at is None:
            return False
        stopped, self.paused_at = now - self.paused_at, None
        self._decisions.postpone(stopped)
        self._pacing.postpone(stopped)
        return True
