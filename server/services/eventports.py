"""The event service's reads of the rest of the store (``docs/tournaments.md``): an entrant's ranked
standing (rank and R limits on sign-up), a game's stored moves (a substitute's moves marked) and a
finished game's exports (the event's archive), each through the service that owns it."""

from __future__ import annotations

from collections.abc import Sequence

from server.domain.ports import Store
from server.domain.ranked import Board
from server.domain.tournaments import EventStore
from server.ranking import Length
from server.services.eventrules import EventError, sealed_games
from server.services.review import Review, ReviewError
from server.services.reviewtypes import ExportFormat


class StoreEventPorts:
    """``rank_of``, ``steps_of`` and ``export_of`` of :class:`~server.services.eventbase.EventBase`
    on one store."""

    def __init__(self, repo: Store, events: EventStore) -> None:
        self._repo = repo
        # A duplicate round's games stay sealed until its walls are revealed (as in the review).
        self._review = Review(repo, sealed=sealed_games(events))

    async def rank_of(self, account_id: str, length: str) -> tuple[int, float] | None:
        standing = await self._repo.standing(account_id, Board.RANKED, Length(length))
        return standing.rank, standing.rating

    async def steps_of(self, match_id: str) -> Sequence[tuple[int, int | None, str]]:
        return [(s.step, s.seat, s.source or "player") for s in await self._repo.steps(match_id)]

    async def export_of(self, match_id: str, fmt: str) -> str:
        try:
            return await self._review.export(match_id, ExportFormat(fmt))
        except ReviewError as exc:
            raise EventError("conflict", f"game {match_id}: {exc}") from None
