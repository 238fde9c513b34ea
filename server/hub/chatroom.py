"""What a table tells its chat (:mod:`server.hub.tablechat`): who hears a line now, and whether a
hand is live, read without touching the table's inbox (the table's own :meth:`chat_room`).

Whether a hand is *live* is read from what the seats have been shown (:func:`hand_live`): between
a hand's result and the next hand's deal, free text is open again in every room that allows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from server.engine.events import HandDrawn, HandWon, MatchEnded, MatchStarted, RoundEnded, WallRevealed
from server.hub.outputs import Participant
from server.hub.seating import Seating
from server.hub.spectators import EventStream

_BETWEEN_HANDS = (HandWon, HandDrawn, WallRevealed, RoundEnded, MatchEnded, MatchStarted)


def hand_live(stream: EventStream, *, finished: bool) -> bool:
    """Whether the seats are in a hand now: the last event they were shown is not a hand's end
    (nor the match's start or end)."""
    last = stream.published - 1
    if finished or last < stream.base:
        return False  # nothing shown yet, or the next hand's deal is still held back
    return not isinstance(stream.event(last), _BETWEEN_HANDS)


@dataclass(frozen=True, slots=True)
class ChatRoom:
    """Who hears a line at a table now, and what decides its rules."""

    match_id: str
    source: str
    hand_live: bool
    seats: Sequence[Participant | None]
    spectators: Iterable[Participant]
    version: int = 0  # the last event the seats were shown (the "step" a report's context names)

    @classmethod
    def of(
        cls, match_id: str, source: str, seating: Seating, stream: EventStream, finished: bool
    ) -> ChatRoom:
        seats = tuple(seating.connection(s) for s in range(seating.seats))
        return cls(
            match_id,
            source,
            hand_live(stream, finished=finished),
            seats,
            seating.feed.members,
            stream.published,
        )
