"""When the events a table committed are shown: to the seats, and (later) to the spectators.

A committed step's events go to the seats at once, except:

* the **minimum call window** (``min_call_ms``): after a discard (or a kan that could be robbed) the
  table holds back what follows for ``min_call_ms``, so how fast the other seats answered (a bot
  passes at once; a player thinks) never shows. The discard itself goes out; the window's end, the
  next draw or the call waits for the hold;
* the **hand pause** (``hand_pause_ms``, tables with a human seat only): when a hand ended and the
  next one started in the same step, the end goes out and the new hand waits, so players can read
  the result.

Nobody is prompted while something is held back (the table asks :class:`Pacing` whether all is
published). A replayed step (crash recovery) was seen already: it is never held.

Spectators get the published events later still (:class:`~server.hub.spectators.SpectatorFeed`):
:meth:`Pacing.next_deadline` names the next moment anything held comes due, the hold or a
spectator release, and the table's one timer fires then.
"""

from __future__ import annotations

from collections.abc import Sequence

from client_protocol.events import Event as WireEvent
from server.engine import Phase, Transition
from server.engine.events import Event, MeldCalled, RoundEnded, RoundStarted, TileDiscarded
from server.engine.melds import MeldType
from server.hub.settings import SpectatePolicy, TableTimers
from server.hub.spectators import EventStream, SpectatorFeed

_WINDOW_PHASES = (Phase.CALLS, Phase.CHANKAN)


def callable_cut(events: Sequence[Event]) -> int | None:
    """Index of the last event after which other seats could claim something (a discard, or a
    closed/added kan that might be robbed), or None."""
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if isinstance(e, TileDiscarded) or (
            isinstance(e, MeldCalled) and e.type in (MeldType.ANKAN, MeldType.KAKAN)
        ):
            return i
    return None


def next_hand_cut(events: Sequence[Event], start: int) -> int | None:
    """Index (from ``start`` on) of a RoundEnded that a new hand follows, or None."""
    for i in range(start, len(events) - 1):
        if isinstance(events[i], RoundEnded) and isinstance(events[i + 1], RoundStarted):
            return i
    return None


class Pacing:
    """The event stream of one table, what of it is held back, and its spectators."""

    __slots__ = ("_hand_pause_s", "_min_call_s", "feed", "hold_until", "keep_all", "stream")

    def __init__(
        self,
        match_id: str,
        timers: TableTimers,
        spectate: SpectatePolicy,
        *,
        paced: bool,
        keep_all: bool = False,
    ) -> None:
        self.stream = EventStream()  # omniscient events; the seats have seen the published ones
        self.keep_all = keep_all  # never forget a hand (tests: the full-history reference)
        self.feed = SpectatorFeed(match_id, spectate)
        self.hold_until: float | None = None  # nothing more is published before then
        self._min_call_s = timers.min_call_ms / 1000
        self._hand_pause_s = timers.hand_pause_ms / 1000 if paced else 0.0

    def committed(
        self,
        t: Transition,
        now: float,
        *,
        replaying: bool = False,
        rendered: Sequence[WireEvent] | None = None,
    ) -> int:
        """Append ``t``'s events (``rendered``: as the step log rendered them); returns how far the
        seats may see now (a version; nothing new while a hold is on), starting a hold when the
        step calls for one."""
        stream = self.stream
        base = len(stream)
        stream.append(t.events, now, rendered)
        if self.hold_until is not None:
            return stream.published
        cut = callable_cut(t.events) if self._min_call_s > 0 and not replaying else None
        if cut is None:
            return self._upto_hand_pause(now, replaying=replaying)
        self.hold_until = now + self._min_call_s
        window_open = t.state.hand.phase in _WINDOW_PHASES and not t.state.finished
        # The discard is shown; in an open window so is the rest (the window's own events).
        return len(stream) if window_open else base + cut + 1

    def hold_due(self, now: float) -> bool:
        return self.hold_until is not None and now >= self.hold_until

    def release(self, now: float) -> int:
        """The hold is over: how far the seats may see now (a hand pause may start)."""
        self.hold_until = None
        return self._upto_hand_pause(now)

    def _upto_hand_pause(self, now: float, *, replaying: bool = False) -> int:
        """Everything; but when a hand ended and the next one started, up to the end, holding the
        new hand for the hand pause."""
        stream = self.stream
        pause = 0.0 if replaying else self._hand_pause_s
        cut = next_hand_cut(stream.events, stream.published - stream.base) if pause > 0 else None
        if cut is None:
            return len(stream)
        self.hold_until = now + pause
        return stream.base + cut + 1

    def postpone(self, seconds: float) -> None:
        """The table was paused for ``seconds``: a held publication is held that much longer."""
        if self.hold_until is not None:
            self.hold_until += seconds

    def next_deadline(self) -> float | None:
        """The earliest moment something held comes due: the hold's end or a spectator release."""
        when = self.hold_until
        if self.feed:
            release = self.feed.next_release(self.stream)
            if release is not None and (when is None or release < when):
                when = release
        return when

    def release_to_spectators(self, now: float) -> bool:
        """Send the spectators what their delay allows now; True if anything went."""
        if not (self.feed and self.feed.release(now, self.stream)):
            return False
        self.forget()
        return True

    def published(self, now: float) -> None:
        """The seats saw more: with nobody watching, the spectators' count moves on silently (a
        spectator joining later starts there); then forget what nobody needs in memory."""
        if not self.feed:
            self.feed.release(now, self.stream)
        self.forget()

    def forget(self) -> None:
        """Keep in memory only the hands from the one holding the first event not yet released to
        spectators (everything after it is unpublished, or published and not yet released): the
        rest is in the store's step log (:mod:`server.hub.history`)."""
        if not self.keep_all:
            self.stream.forget(self.feed.released)

    def reveal_to_spectators(self, now: float) -> None:
        """The match completed: the spectators get everything published, at once."""
        self.feed.release(now, self.stream, everything=True)
