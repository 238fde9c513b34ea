"""Who follows a table: the connection holding each seat (and since when a seat has none), and the
spectators (the :class:`~server.hub.spectators.SpectatorFeed`, whose pace is the table's pacing).

A seat is held by at most one connection (a newer one replaces it; the table says nothing to the
old one, whose acts are then refused). A seat without a connection is played for after its grace
(``disconnect_grace_ms``), counted from when it lost its connection, or from its prompt if it had
none then: :meth:`Seating.gone_since`.

>>> from server.hub.settings import SpectatePolicy
>>> from server.hub.spectators import SpectatorFeed
>>> seating = Seating(SpectatorFeed("m", SpectatePolicy()))
>>> seating.gone_since(2, prompt_sent_at=5.0)
5.0
>>> seating.leave(2, now=7.0); seating.gone_since(2, prompt_sent_at=5.0)
7.0
"""

from __future__ import annotations

from server.engine import redact_all
from server.engine.events import Event
from server.hub.outputs import EventsOut, Outbound, Participant, SharedFrames
from server.hub.spectators import SpectatorFeed


class Seating:
    """The four seats' connections, and the spectators."""

    __slots__ = ("_conn", "_gone_since", "feed")

    def __init__(self, feed: SpectatorFeed) -> None:
        self._conn: list[Participant | None] = [None] * 4
        self._gone_since: list[float | None] = [None] * 4
        self.feed = feed

    def seat(self, participant: Participant, seat: int, match_id: str, now: float) -> bool:
        """``participant`` takes ``seat`` (replacing whoever held it), if it is still there
        (:meth:`Participant.attached`); else the seat is left without a connection."""
        self.feed.remove(participant)
        if not participant.attached(match_id, seat):
            self.leave(seat, now)
            return False
        self.take(seat, participant)
        return True

    def watch(self, participant: Participant, match_id: str, now: float) -> bool:
        """``participant`` becomes a spectator (giving up any seat it held), if it is still there."""
        held = self.seat_of(participant)
        if held is not None:
            self.leave(held, now)
        if not participant.attached(match_id, None):
            return False
        self.feed.add(participant)
        return True

    def drop(self, participant: Participant, now: float) -> bool:
        """``participant`` follows the table no more; True if it did."""
        found = self.feed.remove(participant)
        seat = self.seat_of(participant)
        if seat is not None:
            self.leave(seat, now)
            found = True
        return found

    def seat_of(self, participant: Participant) -> int | None:
        for seat, conn in enumerate(self._conn):
            if conn is participant:
                return seat
        return None

    def connection(self, seat: int) -> Participant | None:
        return self._conn[seat]

    def take(self, seat: int, participant: Participant) -> None:
        """``participant`` holds ``seat`` now (replacing whoever held it)."""
        self._conn[seat] = participant
        self._gone_since[seat] = None

    def leave(self, seat: int, now: float) -> None:
        """``seat`` has no connection from ``now`` on."""
        self._conn[seat] = None
        self._gone_since[seat] = now

    def gone_since(self, seat: int, *, prompt_sent_at: float) -> float | None:
        """Since when ``seat`` has been without a connection (None: it has one)."""
        if self._conn[seat] is not None:
            return None
        return self._gone_since[seat] or prompt_sent_at

    def publish(self, match_id: str, first: int, batch: tuple[Event, ...]) -> None:
        """Events ``first``, ``first + 1``, ... to every connected seat, each redacted for its seat;
        the frames of the events no seat sees differently are encoded once (:class:`SharedFrames`)."""
        views = [redact_all(batch, seat) for seat in range(4)]
        public = tuple(all(view[i] is event for view in views) for i, event in enumerate(batch))
        shared = SharedFrames(public) if any(public) else None
        for seat, conn in enumerate(self._conn):
            if conn is not None:
                conn.deliver(EventsOut(match_id, first, views[seat], shared))

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
