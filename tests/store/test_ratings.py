"""Ratings in the store: applied with the result, exactly once (also across a crash), rebuild equals
incremental, leaderboards and history; credentials. On memory, SQLite and PostgreSQL alike."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from sqlalchemy import text

from server.domain.errors import ConflictError, NotFoundError
from server.domain.ports import Store
from server.domain.ranked import Board
from server.domain.records import (
    DEFAULT_SCOPES,
    Account,
    AccountKind,
    MatchRecord,
    MatchStatus,
    ResultRecord,
    SeatRecord,
)
from server.ranking import Length, Standing
from server.services.ratings import RatingService
from server.store.repository import SqlRepository
from tests.store.games import T0

PLAYERS = [f"p-{i:02d}" for i in range(8)]


async def _players(store: Store, kind: AccountKind = AccountKind.PLAYER) -> None:
    for i, pid in enumerate(PLAYERS):
        await store.create_account(
            Account(id=pid, name=f"player{i}", kind=kind, scopes=DEFAULT_SCOPES[kind], created_at=T0)
        )


def _match(match_id: str, seats: list[str], source: str = "ranked:open:east", at: float = T0) -> MatchRecord:
    return MatchRecord(
        id=match_id,
        ruleset_json="{}",
        ruleset_hash="0" * 64,
        seed_commitment="0" * 64,
        engine_version="1",
        wall_algorithm="test",
        seats=tuple(SeatRecord(i, a, AccountKind.PLAYER, a) for i, a in enumerate(seats)),
        status=MatchStatus.RUNNING,
        created_at=at,
        source=source,
    )


async def _play(store: Store, match_id: str, seats: list[str], ranks: tuple[int, ...], **kw: object) -> None:
    at = float(T0 + len(match_id))
    await store.create_match(_match(match_id, seats, **kw))  # type: ignore[arg-type]
    await RatingService(store).record_result(ResultRecord(match_id, (25000,) * 4, ranks, (0.0,) * 4))
    await store.finish_match(match_id, MatchStatus.COMPLETED, at, "00")


@pytest.mark.asyncio
async def test_a_ranked_result_is_rated_once(any_store: Store) -> None:
    await _players(any_store)
    await _play(any_store, "m-1", PLAYERS[:4], (1, 2, 3, 4))
    first = await any_store.standing("p-00", Board.RANKED, Length.EAST)
    assert (first.rank, first.points, first.games) == (1, 0, 1)  # novice +20: 9 kyu at 0
    assert first.rating == pytest.approx(1530)
    assert (await any_store.standing("p-03", Board.RANKED, Length.EAST)).rating == pytest.approx(1470)
    # The same result again (a retry), and a sweep: nothing more.
    await RatingService(any_store).record_result(ResultRecord("m-1", (25000,) * 4, (1, 2, 3, 4), (0.0,) * 4))
    assert await RatingService(any_store, clock=lambda: T0).rate_pending() == 0
    assert await any_store.standing("p-00", Board.RANKED, Length.EAST) == first
    history = await any_store.rating_history("p-00", Board.RANKED, Length.EAST)
    assert [(c.match_id, c.placement, c.table_version) for c in history] == [("m-1", 1, "tenhou-4p-1")]
    # Other lengths and boards are untouched; an unranked match is not rated.
    assert await any_store.standing("p-00", Board.RANKED, Length.EAST_SOUTH) == Standing()
    await _play(any_store, "m-2", PLAYERS[:4], (4, 3, 2, 1), source="queue:tenhou")
    assert (await any_store.standing("p-00", Board.RANKED, Length.EAST)).games == 1


@pytest.mark.asyncio
async def test_a_crash_between_the_end_and_the_rating_neither_loses_nor_doubles_it(any_store: Store) -> None:
    await _players(any_store)
    # The result is stored while the match is not yet a ranked one (as if the rating write had
    # failed): the sweep at the next start rates it, once.
    await any_store.create_match(_match("m-1", PLAYERS[:4], source="queue:x"))
    await any_store.record_result(ResultRecord("m-1", (25000,) * 4, (2, 1, 4, 3), (0.0,) * 4))
    await any_store.finish_match("m-1", MatchStatus.COMPLETED, T0 + 1, "00")
    await _make_ranked(any_store, "m-1")
    assert await RatingService(any_store).rebuild(check=True)  # an unrated ranked match: reported
    assert await RatingService(any_store, clock=lambda: T0 + 2).rate_pending() == 1
    assert await RatingService(any_store, clock=lambda: T0 + 3).rate_pending() == 0
    assert (await any_store.standing("p-01", Board.RANKED, Length.EAST)).games == 1
    assert await RatingService(any_store).rebuild(check=True) == []


async def _make_ranked(store: Store, match_id: str) -> None:
    if isinstance(store, SqlRepository):
        async with store.engine.begin() as conn:
            await conn.execute(
                text("UPDATE matches SET source = 'ranked:open:east' WHERE id = :id"), {"id": match_id}
            )
    else:
        matches = store._matches  # type: ignore[attr-defined]
        matches[match_id] = replace(matches[match_id], source="ranked:open:east")


@pytest.mark.asyncio
async def test_a_failed_rating_transaction_leaves_no_trace(tmp_path: object) -> None:
    """SQL: the rating is in the result's transaction: if it fails, neither is stored; the retry
    stores both, once."""
    import pathlib

    from server.store.repository import sqlite_url

    path = pathlib.Path(str(tmp_path)) / "j.sqlite3"
    async with await SqlRepository.open(sqlite_url(str(path))) as store:
        await _players(store)
        await store.create_match(_match("m-1", PLAYERS[:4]))
        async with store.engine.begin() as conn:  # sabotage: the rating's insert fails
            await conn.execute(text("ALTER TABLE rating_changes RENAME TO rating_changes_gone"))
        with pytest.raises(Exception, match="rating_changes"):
            await RatingService(store).record_result(
                ResultRecord("m-1", (25000,) * 4, (1, 2, 3, 4), (0.0,) * 4)
            )
        assert await store.get_result("m-1") is None
        assert await store.standing("p-00", Board.RANKED, Length.EAST) == Standing()
        async with store.engine.begin() as conn:
            await conn.execute(text("ALTER TABLE rating_changes_gone RENAME TO rating_changes"))
        await RatingService(store).record_result(ResultRecord("m-1", (25000,) * 4, (1, 2, 3, 4), (0.0,) * 4))
        await RatingService(store).record_result(ResultRecord("m-1", (25000,) * 4, (1, 2, 3, 4), (0.0,) * 4))
        assert (await store.standing("p-00", Board.RANKED, Length.EAST)).games == 1


@pytest.mark.asyncio
async def test_rebuild_equals_incremental(any_store: Store) -> None:
    await _players(any_store)
    rng = random.Random(7)
    for i in range(40):
        seats = rng.sample(PLAYERS, 4)
        ranks = tuple(rng.sample([1, 2, 3, 4], 4))
        length = "east" if i % 3 else "east_south"
        room = "open" if i % 5 else "upper"
        await _play(any_store, f"m-{i:03d}", seats, ranks, source=f"ranked:{room}:{length}")
    before = {p: await any_store.standing(p, Board.RANKED, Length.EAST) for p in PLAYERS}
    assert await RatingService(any_store).rebuild(check=True) == []
    assert await RatingService(any_store).rebuild(check=False) == []
    assert {p: await any_store.standing(p, Board.RANKED, Length.EAST) for p in PLAYERS} == before
    board, total = await any_store.leaderboard(Board.RANKED, Length.EAST, limit=3)
    assert total == 8 and [e.position for e in board] == [1, 2, 3]
    keys = [(e.standing.rank, e.standing.points, e.standing.rating) for e in board]
    assert keys == sorted(keys, reverse=True)
    assert board[0].name.startswith("player")


@pytest.mark.asyncio
async def test_rebuild_reports_and_repairs_a_tampered_standing(any_store: Store) -> None:
    await _players(any_store)
    await _play(any_store, "m-1", PLAYERS[:4], (1, 2, 3, 4))
    if isinstance(any_store, SqlRepository):
        async with any_store.engine.begin() as conn:
            await conn.execute(text("UPDATE standings SET rating = 9999 WHERE account_id = 'p-00'"))
    else:
        key = ("p-00", "ranked", "east")
        any_store._standings[key] = replace(any_store._standings[key], rating=9999.0)  # type: ignore[attr-defined]
    diffs = await RatingService(any_store).rebuild(check=True)
    assert [d.what for d in diffs] == ["standing"]
    assert (await any_store.standing("p-00", Board.RANKED, Length.EAST)).rating == 9999
    assert await RatingService(any_store).rebuild(check=False)
    assert (await any_store.standing("p-00", Board.RANKED, Length.EAST)).rating == pytest.approx(1530)
    assert await RatingService(any_store).rebuild(check=True) == []


@pytest.mark.asyncio
async def test_unrateable_matches_are_not_rated(any_store: Store) -> None:
    await _players(any_store)
    await _play(any_store, "m-1", [PLAYERS[0], PLAYERS[0], PLAYERS[1], PLAYERS[2]], (1, 2, 3, 4))
    await _play(any_store, "m-2", PLAYERS[:4], (1, 2, 3, 4), source="ranked:nosuchroom:east")
    assert (await any_store.standing("p-00", Board.RANKED, Length.EAST)).games == 0
    assert await RatingService(any_store).rebuild(check=True) == []


@pytest.mark.asyncio
async def test_credentials(any_store: Store) -> None:
    player = Account("p-new", "alice", AccountKind.PLAYER, DEFAULT_SCOPES[AccountKind.PLAYER], T0)
    await any_store.register_account(player, "$argon2id$x")
    assert await any_store.password_hash("p-new") == "$argon2id$x"
    with pytest.raises(ConflictError):
        await any_store.register_account(replace(player, id="p-other"), "h")
    guest = Account("g-1", "guest-1", AccountKind.GUEST, DEFAULT_SCOPES[AccountKind.GUEST], T0)
    await any_store.create_account(guest)
    with pytest.raises(ConflictError):
        await any_store.upgrade_guest("g-1", "alice", "h", T0)
    assert (await any_store.account_by_id("g-1")) == guest  # nothing changed
    upgraded = await any_store.upgrade_guest("g-1", "bob", "hb", T0)
    assert (upgraded.id, upgraded.kind, upgraded.name) == ("g-1", AccountKind.PLAYER, "bob")
    assert (await any_store.account_by_name("bob")) is not None
    with pytest.raises(NotFoundError):
        await any_store.upgrade_guest("g-1", "carol", "h", T0)  # no longer a guest
    await any_store.set_password_hash("g-1", "hb2", T0)
    assert await any_store.password_hash("g-1") == "hb2"
    with pytest.raises(NotFoundError):
        await any_store.set_password_hash("g-none", "h", T0)


@pytest.mark.asyncio
async def test_a_lost_result_write_is_recovered_from_the_log_and_rated(any_store: Store) -> None:
    """The table's result write failed (it is best effort): the match is completed, its log ends with
    match_ended, and the sweep at the next start stores that result and rates it, once."""
    from server.engine import events as ev
    from tests.store.games import for_match, played

    await _players(any_store)
    records, events = played()
    await any_store.create_match(_match("m-log", PLAYERS[:4]))
    for step in for_match(records, "m-log"):
        await any_store.append_step(step)
    await any_store.finish_match("m-log", MatchStatus.COMPLETED, T0 + 9, "00")
    assert await any_store.get_result("m-log") is None
    assert await RatingService(any_store, clock=lambda: T0).rate_pending() == 1
    end = next(e for e in events if isinstance(e, ev.MatchEnded))
    result = await any_store.get_result("m-log")
    assert result is not None and result.ranks == end.ranks
    first = PLAYERS[end.ranks.index(1)]
    assert (await any_store.standing(first, Board.RANKED, Length.EAST)).placements == (1, 0, 0, 0)
    assert await RatingService(any_store, clock=lambda: T0).rate_pending() == 0
    assert await RatingService(any_store).rebuild(check=True) == []


@pytest.mark.asyncio
async def test_a_rated_match_keeps_each_seats_riichi_and_call_counts(any_store: Store) -> None:
    """Counted from the log once, when the match is rated; a rebuild keeps them; a match that is
    not rated has none."""
    from server.domain.playcounts import PlayCounts, play_counts
    from server.engine import events as ev
    from tests.store.games import for_match, played

    await _players(any_store)
    records, events = played()
    await any_store.create_match(_match("m-log", PLAYERS[:4]))
    for step in for_match(records, "m-log"):
        await any_store.append_step(step)
    end = next(e for e in events if isinstance(e, ev.MatchEnded))
    await RatingService(any_store).record_result(
        ResultRecord("m-log", end.scores, end.ranks, end.final_points)
    )
    await any_store.finish_match("m-log", MatchStatus.COMPLETED, T0 + 9, "00")
    await _play(any_store, "m-x", PLAYERS[:4], (1, 2, 3, 4), source="queue:tenhou")

    counts = await any_store.play_counts(["m-log", "m-x", "m-none"])
    assert set(counts) == {"m-log"}
    expected = play_counts(events)
    assert counts["m-log"] == expected
    hands = sum(isinstance(e, ev.RoundStarted) for e in events)
    assert all(c.hands == hands for c in expected)
    riichi = {(e.seat) for e in events if isinstance(e, ev.TileDiscarded) and e.riichi}
    calls = {e.seat for e in events if isinstance(e, ev.MeldCalled) and e.type.value != "ankan"}
    assert riichi or calls  # the played match exercises the counting
    assert [c.riichi > 0 for c in expected] == [s in riichi for s in range(4)]
    assert [c.calls > 0 for c in expected] == [s in calls for s in range(4)]
    assert sum(expected, PlayCounts()).riichi >= len(riichi)

    assert await RatingService(any_store).rebuild(check=False) == []
    assert await any_store.play_counts(["m-log"]) == counts


@pytest.mark.asyncio
async def test_rebuild_counts_a_match_rated_before_the_counts_were_kept(any_store: Store) -> None:
    from server.domain.playcounts import play_counts
    from tests.store.games import for_match, played

    await _players(any_store)
    records, events = played()
    await any_store.create_match(_match("m-old", PLAYERS[:4]))
    for step in for_match(records, "m-old"):
        await any_store.append_step(step)
    await RatingService(any_store).record_result(
        ResultRecord("m-old", (25000,) * 4, (1, 2, 3, 4), (0.0,) * 4)
    )
    if isinstance(any_store, SqlRepository):  # as migration 0008 leaves a match rated before it
        async with any_store.engine.begin() as conn:
            await conn.execute(text("UPDATE rated_matches SET play_counts = NULL"))
    else:
        any_store._play_counts.clear()  # type: ignore[attr-defined]
    assert await any_store.play_counts(["m-old"]) == {}
    diffs = await RatingService(any_store).rebuild(check=True)
    assert [d.what for d in diffs] == ["play_counts"]
    assert await any_store.play_counts(["m-old"]) == {}  # a check changes nothing
    assert await RatingService(any_store).rebuild(check=False) == diffs
    assert await any_store.play_counts(["m-old"]) == {"m-old": play_counts(events)}
    assert await RatingService(any_store).rebuild(check=True) == []
