"""Who follows a table: the connection holding each seat (and which seats are absent), and the
spectators (the :class:`~server.hub.spectators.SpectatorFeed`, whose pace is the table's pacing).

A seat is held by at most one connection (a newer one replaces it; the table says nothing to the
old one, whose acts are then refused). A seat without a connection keeps its own clock
(:mod:`server.hub.timing`); once the table has played for it there (:meth:`Seating.played_for`),
it is *absent* until a connection takes it again, and the moves played for it meanwhile are kept
for that connection (:meth:`Seating.take_played_for`): a returning player is told what was played.

A player who *leaves* on purpose (the ``leave`` message, not a lost connection) is absent at once:
the table plays for the seat without waiting for its clock (the other players do not wait for
someone who said they are gone), its time bank is kept for when it comes back, and the moves are
stored with the source ``left`` (:meth:`Seating.presence`). The store keeps that state in those
sources: after a restart a seat whose last stored step says ``left`` is left again
(:func:`left_seats`, :meth:`Seating.restore_left`) until its player comes back.

>>> from server.engine.actions import Pass
>>> from server.hub.settings import SpectatePolicy
>>> from server.hub.spectators import SpectatorFeed
>>> seating = Seating(SpectatorFeed("m", SpectatePolicy()))
>>> seating.absent(2)
False
>>> seating.played_for(2, 7, Pass()); seating.absent(2), seating.take_played_for(2)
(True, ((7, Pass()),))
>>> seating.take_played_for(2)
()
>>> seating.presence(2), seating.presence(3)
('disconnected', 'disconnected')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from client_protocol.events import Event as WireEvent
from server.domain.records import StepRecord
from server.engine import redact_all
from server.engine.actions import Action
from server.engine.events import Event
from server.engine.rules import TENHOU
from server.engine.views import CASTER, hold_reveals
from server.hub.outputs import EventsOut, Outbound, Participant, SharedFrames
from server.hub.spectators import SpectatorFeed


def left_seats(steps: Iterable[StepRecord]) -> frozenset[int]:
    """The seats whose player had left on purpose when ``steps`` (a stored log) ended: the last
    step stored for the seat was played for it as ``left``. (A player who comes back and acts
    stores ``player``; one who comes back and lets the clock run out, ``timeout``.)"""
    last: dict[int, str | None] = {}
    for step in steps:
        if step.seat is not None:
            last[step.seat] = step.source
    return frozenset(seat for seat, source in last.items() if source == "left")


class Seating:
    """The seats' connections (three or four, as the ruleset plays), and the spectators. ``hold``: the
    table holds its wall reveals and its seed back from seats and spectators alike
    (``TableSpec.hold_reveals``, :func:`server.engine.views.hold_reveals`)."""

    __slots__ = ("_absent", "_conn", "_left", "_played", "feed", "hold")

    def __init__(self, feed: SpectatorFeed, seats: int = TENHOU.seats, *, hold: bool = False) -> None:
        self.hold = feed.hold = hold
        self._conn: list[Participant | None] = [None] * seats  # seats: the ruleset's (3 or 4)
        self._absent = [False] * seats  # played for while it had no connection, and not back since
        self._left = [False] * seats  # its player left on purpose, and is not back since
        self._played: list[list[tuple[int, Action]]] = [[] for _ in range(seats)]  # (step, action) while gone
        self.feed = feed

    def seat(self, participant: Participant, seat: int, match_id: str) -> bool:
        """``participant`` takes ``seat`` (replacing whoever held it), if it is still there
        (:meth:`Participant.attached`); else the seat is left without a connection."""
        self.feed.remove(participant)
        if not participant.attached(match_id, seat):
            self.leave(seat)
            return False
        self.take(seat, participant)
        return True

    def watch(self, participant: Participant, match_id: str, *, caster: bool = False) -> bool:
        """``participant`` becomes a spectator (giving up any seat it held), if it is still there;
        ``caster``: with every hand open, where the spectator policy allows it."""
        held = self.seat_of(participant)
        if held is not None:
            self.leave(held)
        if not participant.attached(match_id, None):
            return False
        self.feed.add(participant, caster=caster)
        return True

    def drop(self, participant: Participant, *, on_purpose: bool = False) -> bool:
        """``participant`` follows the table no more; True if it did. ``on_purpose``: its player
        left (``leave``), so its seat is absent at once (see the module docstring)."""
        found = self.feed.remove(participant)
        seat = self.seat_of(participant)
        if seat is not None:
            self.leave(seat)
            if on_purpose:
                self._absent[seat] = self._left[seat] = True
            found = True
        return found

    @property
    def seats(self) -> int:
        """How many seats the table has (its ruleset's)."""
        return len(self._conn)

    def seat_of(self, participant: Participant) -> int | None:
        for seat, conn in enumerate(self._conn):
            if conn is participant:
                return seat
        return None

    def why_not_seated(self, participant: Participant, match_id: str) -> str:
        """Why ``participant`` (holding no seat here) may not act."""
        if participant in self.feed:
            return "a spectator cannot act"
        return f"this connection holds no seat at {match_id}; resume first"

    def connection(self, seat: int) -> Participant | None:
        return self._conn[seat]

    def take(self, seat: int, participant: Participant) -> None:
        """``participant`` holds ``seat`` now (replacing whoever held it): the seat is back."""
        self._conn[seat] = participant
        self._absent[seat] = self._left[seat] = False

    def restore_left(self, seats: Iterable[int]) -> None:
        """After a restart (nobody holds a seat yet): ``seats`` had left on purpose
        (:func:`left_seats`), so they are played for at once again, as ``left``, until they are back."""
        for seat in seats:
            self._absent[seat] = self._left[seat] = True

    def leave(self, seat: int) -> None:
        """``seat`` has no connection from now on (its clock runs on: :mod:`server.hub.timing`)."""
        self._conn[seat] = None

    def absent(self, seat: int) -> bool:
        """Whether the table played for ``seat`` while it had no connection, and it is not back."""
        return self._absent[seat] and self._conn[seat] is None

    def presence(self, seat: int) -> str:
        """Why the table plays for ``seat`` if it must now (the step's source for a human seat):
        ``timeout`` (connected), ``left`` (its player left on purpose), else ``disconnected``."""
        if self._conn[seat] is not None:
            return "timeout"
        return "left" if self._left[seat] else "disconnected"

    def played_for(self, seat: int, step: int, action: Action) -> None:
        """The table played ``action`` (stored as ``step``) for ``seat``, which has no connection:
        the seat is absent from now on, and is told of the move when it comes back."""
        self._absent[seat] = True
        self._played[seat].append((step, action))

    def take_played_for(self, seat: int) -> tuple[tuple[int, Action], ...]:
        """The moves played for ``seat`` since it was last told (then forgotten)."""
        moves = tuple(self._played[seat])
        self._played[seat].clear()
        return moves

    def publish(
        self,
        match_id: str,
        first: int,
        batch: tuple[Event, ...],
        rendered: Sequence[WireEvent | None] | None = None,
    ) -> None:
        """Events ``first``, ``first + 1``, ... to every connected seat, each redacted for its seat;
        the frames of the events no seat sees differently are encoded once, from the step log's
        rendering of the batch when given (``rendered``, :class:`SharedFrames`)."""
        # A held reveal is a new event, not the step log's: its rendering (with the wall) is not used.
        held = hold_reveals(batch) if self.hold else batch
        views = [redact_all(held, seat) for seat in range(len(self._conn))]
        public = tuple(all(view[i] is event for view in views) for i, event in enumerate(held))
        shared = SharedFrames(public, batch, rendered) if rendered is not None or any(public) else None
        for seat, conn in enumerate(self._conn):
            if conn is not None:
                conn.deliver(EventsOut(match_id, first, views[seat], shared))

    def viewer(self, participant: Participant, seat: int | None) -> int | None:
        """Who ``participant`` is to the redaction: its seat, a spectator (None) or the caster."""
        if seat is None and self.feed.is_caster(participant):
            return CASTER
        return seat

    def view(self, events: tuple[Event, ...], viewer: int | None) -> tuple[Event, ...]:
        """``events`` as ``viewer`` (a seat, None: a spectator) may receive them (a catch-up)."""
        return redact_all(hold_reveals(events) if self.hold else events, viewer)

    def broadcast(self, item: Outbound) -> None:
        """``item`` to every connected seat and every spectator."""
        for conn in self._conn:
            if conn is not None:
                conn.deliver(item)
        self.feed.broadcast(item)

    def release_all(self, match_id: str) -> None:
        """The match is over: neither the seats nor the spectators follow it any more."""
        for conn in self._conn:
            if conn is not None:
                conn.released(match_id)
        self.feed.release_all(match_id)
