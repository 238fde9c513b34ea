"""Result and rating together, exactly once (server/services/ratings.py over each store): a crash
between the result and its rating, a replayed commit whose outcome was unknown, a rating computed
from standings that moved meanwhile, concurrent ratings of matches that share players. On memory,
SQLite and PostgreSQL alike; ``ratings rebuild --check`` agrees after each."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.domain.ports import Store
from server.domain.ranked import Board
from server.domain.ratingrecords import RatingWrite, StaleRatingError
from server.domain.records import MatchStatus, ResultRecord
from server.ranking import Length
from server.services.ratings import RatingService
from tests.store.games import T0
from tests.store.test_ratings import PLAYERS, _match, _players

pytestmark = pytest.mark.asyncio

EAST = Length.EAST


def _result(match_id: str, ranks: tuple[int, ...] = (1, 2, 3, 4)) -> ResultRecord:
    return ResultRecord(match_id, (25000,) * 4, ranks, (0.0,) * 4)


async def _games(store: Store, account_id: str) -> int:
    return (await store.standing(account_id, Board.RANKED, EAST)).games


async def test_a_crash_between_the_result_and_its_rating_rates_it_exactly_once(any_store: Store) -> None:
    await _players(any_store)
    await any_store.create_match(_match("m-1", PLAYERS[:4]))
    # The process dies once the result is stored and before the rating is: the result alone.
    await any_store.record_result(_result("m-1"))
    await any_store.finish_match("m-1", MatchStatus.COMPLETED, T0 + 1, "00")
    assert await _games(any_store, "p-00") == 0
    assert [d.what for d in await RatingService(any_store).rebuild(check=True)] == ["unrated"] + [
        "standing"
    ] * 4
    # The restart's sweep rates it; a second sweep, and the table's replayed result, do not.
    assert await RatingService(any_store).rate_pending() == 1
    assert await RatingService(any_store).rate_pending() == 0
    assert await RatingService(any_store).record_result(_result("m-1")) is False
    assert [await _games(any_store, p) for p in PLAYERS[:4]] == [1, 1, 1, 1]
    history = await any_store.rating_history("p-00", Board.RANKED, EAST)
    assert [c.match_id for c in history] == ["m-1"]
    assert await RatingService(any_store).rebuild(check=True) == []


class _LostAnswer:
    """The store, but the first ``record_result_and_rating`` commits and then fails (its outcome is
    unknown to the caller, as when the connection drops after the commit)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.lost = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def record_result_and_rating(self, result: ResultRecord, rating: RatingWrite | None) -> None:
        await self._store.record_result_and_rating(result, rating)
        if not self.lost:
            self.lost += 1
            raise ConnectionError("the connection dropped after the commit")


async def test_a_replayed_commit_is_not_rated_twice(any_store: Store) -> None:
    await _players(any_store)
    await any_store.create_match(_match("m-1", PLAYERS[:4]))
    service = RatingService(_LostAnswer(any_store))
    with pytest.raises(ConnectionError):
        await service.record_result(_result("m-1"))
    assert await service.record_result(_result("m-1")) is False  # the caller's retry
    await any_store.finish_match("m-1", MatchStatus.COMPLETED, T0 + 1, "00")
    assert await RatingService(any_store).rate_pending() == 0
    assert [await _games(any_store, p) for p in PLAYERS[:4]] == [1, 1, 1, 1]
    assert len(await any_store.rating_history("p-03", Board.RANKED, EAST)) == 1
    assert await RatingService(any_store).rebuild(check=True) == []


async def test_a_rating_computed_from_standings_that_moved_is_refused_and_writes_nothing(
    any_store: Store,
) -> None:
    await _players(any_store)
    service = RatingService(any_store)
    await any_store.create_match(_match("m-a", PLAYERS[:4]))
    await any_store.create_match(_match("m-b", PLAYERS[3:7]))  # p-03 plays both
    stale = await service.rating_of(_result("m-a"))
    assert stale is not None
    assert await service.record_result(_result("m-b", (2, 1, 4, 3))) is True  # p-03's standing moves
    with pytest.raises(StaleRatingError):
        await any_store.record_result_and_rating(_result("m-a"), stale)
    assert await any_store.get_result("m-a") is None  # neither the result nor the rating
    assert await _games(any_store, "p-00") == 0
    # The service reads again and rates it from the standings as they are now.
    assert await service.record_result(_result("m-a")) is True
    with pytest.raises(StaleRatingError):  # and the old computation can never be applied again
        await any_store.record_result_and_rating(_result("m-a"), stale)
    assert await _games(any_store, "p-03") == 2
    for match_id in ("m-a", "m-b"):
        await any_store.finish_match(match_id, MatchStatus.COMPLETED, T0 + 1, "00")
    assert await service.rebuild(check=True) == []


async def test_concurrent_ratings_of_matches_sharing_players_lose_no_update(any_store: Store) -> None:
    await _players(any_store)
    service = RatingService(any_store)
    seats = [[PLAYERS[(i + k) % 6] for k in range(4)] for i in range(8)]  # six players, eight matches
    for i, four in enumerate(seats):
        await any_store.create_match(_match(f"m-{i}", four))
    rated = await asyncio.gather(*(service.record_result(_result(f"m-{i}")) for i in range(8)))
    assert rated == [True] * 8
    for i in range(8):
        await any_store.finish_match(f"m-{i}", MatchStatus.COMPLETED, T0 + i, "00")
    assert sum([await _games(any_store, p) for p in PLAYERS[:6]]) == 32
    assert await service.rebuild(check=True) == []
