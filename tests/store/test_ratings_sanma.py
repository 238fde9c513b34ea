"""Three-player (sanma) ratings in the store (docs/ranking.md, "Three-player rooms"): a match of a
``sanma-...`` room rates on a board of its own with the three-player tables, never touching the
four-player standings; the leaderboards are apart; ``rebuild --check`` covers the sanma matches and
finds a tampered sanma standing. On memory, SQLite and PostgreSQL alike."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from sqlalchemy import text

from server.domain.ports import Store
from server.domain.ranked import Board
from server.domain.records import MatchStatus, ResultRecord
from server.ranking import CURRENT, CURRENT_SANMA, Length, Standing, tables
from server.services.ratings import RatingService
from server.store.repository import SqlRepository
from tests.store.games import T0
from tests.store.test_ratings import PLAYERS, _match, _players


async def _play(store: Store, match_id: str, seats: list[str], ranks: tuple[int, ...], source: str) -> None:
    n = len(seats)
    await store.create_match(_match(match_id, seats, source=source))
    await RatingService(store).record_result(ResultRecord(match_id, (35000,) * n, ranks, (0.0,) * n))
    await store.finish_match(match_id, MatchStatus.COMPLETED, float(T0 + len(match_id)), "00")


@pytest.mark.asyncio
async def test_a_sanma_match_rates_on_the_sanma_board_only(any_store: Store) -> None:
    await _players(any_store)
    await _play(any_store, "s-1", PLAYERS[:3], (1, 2, 3), "ranked:sanma-open:east")
    first, second, third = [await any_store.standing(p, Board.SANMA, Length.EAST) for p in PLAYERS[:3]]
    # Novice: a sanma first in the open room is worth 30 (>= 20: 9 kyu at 0); R +30 / 0 / -30.
    assert (first.rank, first.points, first.games) == (1, 0, 1)
    assert (second.rank, second.points, third.points) == (0, 0, 0)
    assert [s.rating for s in (first, second, third)] == pytest.approx([1530, 1500, 1470])
    assert (first.placements, third.placements) == ((1, 0, 0, 0), (0, 0, 1, 0))
    history = await any_store.rating_history("p-00", Board.SANMA, Length.EAST)
    assert [(c.match_id, c.placement, c.table_version) for c in history] == [("s-1", 1, "tenhou-3p-2")]
    # The four-player standing and history are untouched.
    assert await any_store.standing("p-00", Board.RANKED, Length.EAST) == Standing()
    assert await any_store.rating_history("p-00", Board.RANKED, Length.EAST) == []


@pytest.mark.asyncio
async def test_seat_counts_that_do_not_fit_the_room_are_not_rated(any_store: Store) -> None:
    await _players(any_store)
    await _play(any_store, "s-4", PLAYERS[:4], (1, 2, 3, 4), "ranked:sanma-open:east")
    await _play(any_store, "s-3", PLAYERS[4:7], (1, 2, 3), "ranked:open:east")
    for p in PLAYERS:
        for board in (Board.SANMA, Board.RANKED):
            assert (await any_store.standing(p, board, Length.EAST)).games == 0
    assert await RatingService(any_store, clock=lambda: T0).rebuild(check=True) == []


@pytest.mark.asyncio
async def test_rebuild_covers_sanma_and_the_leaderboards_are_apart(any_store: Store) -> None:
    await _players(any_store)
    rng = random.Random(11)
    for i in range(30):
        sanma = i % 2 == 0  # every other match is a three-player one
        seats = rng.sample(PLAYERS[:5] if sanma else PLAYERS, 3 if sanma else 4)
        ranks = tuple(rng.sample(range(1, len(seats) + 1), len(seats)))
        room = ("sanma-open" if i % 3 else "sanma-upper") if sanma else "open"
        await _play(any_store, f"m-{i:03d}", seats, ranks, f"ranked:{room}:east")
    before = {p: await any_store.standing(p, Board.SANMA, Length.EAST) for p in PLAYERS}
    assert sum(s.games for s in before.values()) == 15 * 3
    assert await RatingService(any_store, clock=lambda: T0).rebuild(check=True) == []
    assert await RatingService(any_store, clock=lambda: T0).rebuild(check=False) == []
    assert {p: await any_store.standing(p, Board.SANMA, Length.EAST) for p in PLAYERS} == before
    board3, total = await any_store.leaderboard(Board.SANMA, Length.EAST, limit=50)
    assert total == 5 and {e.account_id for e in board3} == set(PLAYERS[:5])
    four, total4 = await any_store.leaderboard(Board.RANKED, Length.EAST, limit=50)
    assert total4 == 8
    assert {e.account_id: e.standing for e in four} != {e.account_id: e.standing for e in board3}
    # A tampered sanma standing is found by --check and repaired by the rebuild.
    if isinstance(any_store, SqlRepository):
        async with any_store.engine.begin() as conn:
            await conn.execute(
                text("UPDATE standings SET points = points + 7 WHERE account_id = 'p-01' AND board = 'sanma'")
            )
    else:
        key = ("p-01", "sanma", "east")
        s = any_store._standings[key]  # type: ignore[attr-defined]
        any_store._standings[key] = replace(s, points=s.points + 7)  # type: ignore[attr-defined]
    diffs = await RatingService(any_store, clock=lambda: T0).rebuild(check=True)
    assert [(d.what, d.detail.split(":")[0]) for d in diffs] == [("standing", "p-01/sanma/east")]
    assert await RatingService(any_store, clock=lambda: T0).rebuild(check=False)
    assert await any_store.standing("p-01", Board.SANMA, Length.EAST) == before["p-01"]
    assert CURRENT_SANMA.seats == 3


@pytest.mark.asyncio
async def test_matches_rated_with_the_first_sanma_tables_keep_them_through_a_rebuild(
    any_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sanma tables moved from ``tenhou-3p-1`` to ``tenhou-3p-2`` (docs/ranking.md, "Versioned
    tables"): matches rated while ``-1`` was current keep its figures, later ones get ``-2``'s, and
    the rebuild recomputes each with its own version, so nothing moves."""
    await _players(any_store)
    monkeypatch.setattr(tables, "CURRENT_SETS", (CURRENT, tables.TENHOU_3P_1))
    await _play(any_store, "s-old", PLAYERS[:3], (1, 2, 3), "ranked:sanma-open:east")
    monkeypatch.setattr(tables, "CURRENT_SETS", (CURRENT, CURRENT_SANMA))
    await _play(any_store, "s-new", PLAYERS[3:6], (1, 2, 3), "ranked:sanma-open:east")
    old, new = [await any_store.rating_history(p, Board.SANMA, Length.EAST) for p in (PLAYERS[0], PLAYERS[3])]
    assert [(c.match_id, c.table_version) for c in [*old, *new]] == [
        ("s-old", "tenhou-3p-1"),
        ("s-new", "tenhou-3p-2"),
    ]
    before = {p: await any_store.standing(p, Board.SANMA, Length.EAST) for p in PLAYERS[:6]}
    assert await RatingService(any_store, clock=lambda: T0).rebuild(check=True) == []
    assert await RatingService(any_store, clock=lambda: T0).rebuild(check=False) == []
    assert {p: await any_store.standing(p, Board.SANMA, Length.EAST) for p in PLAYERS[:6]} == before
