"""The event log with a real match: stored exactly, in order; per-hand results projected from it."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from server.domain.records import StepRecord
from server.engine import events as ev
from server.store.batch import normalized_json
from server.store.errors import StepConflictError
from server.store.models import StepRow
from server.store.repository import SqlRepository
from tests.store.games import match_record, played


async def _store_game(repo: SqlRepository) -> tuple[tuple[StepRecord, ...], tuple[ev.Event, ...]]:
    records, events = played()
    await repo.create_match(match_record("m-game", events))
    for r in records:
        await repo.append_step(r)
    return records, events


@pytest.mark.asyncio
async def test_a_whole_match_is_stored_exactly(sql_repo: SqlRepository) -> None:
    records, _ = await _store_game(sql_repo)
    stored = await sql_repo.steps("m-game")
    assert len(stored) == len(records) > 100
    assert [s.step for s in stored] == list(range(len(records)))
    for got, sent in zip(stored, records, strict=True):
        # Tuples come back as JSON arrays; otherwise the very same values.
        assert got == StepRecord(
            match_id=sent.match_id,
            step=sent.step,
            seat=sent.seat,
            action=sent.action,
            events=tuple(normalized_json(list(sent.events))),
            request_id=sent.request_id,
            applied_at=sent.applied_at,
        )


@pytest.mark.asyncio
async def test_retrying_a_whole_match_changes_nothing(sql_repo: SqlRepository) -> None:
    records, _ = await _store_game(sql_repo)
    before = await sql_repo.steps("m-game")
    for r in records[::7]:
        await sql_repo.append_step(r)  # tuples and all: the same record
    assert await sql_repo.steps("m-game") == before
    assert sql_repo.writer.stats.retries_absorbed == len(records[::7])


@pytest.mark.asyncio
async def test_columns_hold_what_they_say(sql_repo: SqlRepository) -> None:
    records, _ = await _store_game(sql_repo)
    async with sql_repo.engine.connect() as conn:
        deal = (await conn.execute(select(StepRow).where(StepRow.step == 0))).one()
        later = (await conn.execute(select(StepRow).where(StepRow.step == 1))).one()
    assert deal.action is None and deal.seat is None  # SQL NULL, not the JSON document null
    assert later.action == records[1].action
    assert later.applied_at == datetime.fromtimestamp(records[1].applied_at, UTC)
    assert later.applied_at.tzinfo is not None


@pytest.mark.asyncio
async def test_unicode_and_large_values_round_trip(sql_repo: SqlRepository) -> None:
    from tests.store.test_conformance import match

    await sql_repo.create_match(match("m-1"))
    record = StepRecord(
        "m-1",
        0,
        None,
        None,
        ({"type": "note", "text": "東風戦 🀄", "nested": {"a": [1, 2.5, None, True]}},),
        2**53,
        1_700_000_000.123456,
    )
    await sql_repo.append_step(record)
    (got,) = await sql_repo.steps("m-1")
    assert got == record
    await sql_repo.append_step(record)  # and it still counts as the same record


@pytest.mark.asyncio
async def test_hand_results_are_projected(sql_repo: SqlRepository) -> None:
    _, events = await _store_game(sql_repo)
    hands = await sql_repo.hand_results("m-game")
    starts = [e for e in events if isinstance(e, ev.RoundStarted)]
    assert [h.hand_index for h in hands] == [e.hand_index for e in starts]
    ends: list[list[ev.Event]] = [[] for _ in starts]
    walls: list[ev.WallRevealed] = []
    current = -1
    for e in events:
        if isinstance(e, ev.RoundStarted):
            current += 1
        elif isinstance(e, ev.HandWon | ev.HandDrawn):
            ends[current].append(e)
        elif isinstance(e, ev.WallRevealed):
            walls.append(e)
    assert len(walls) == len(hands)
    for hand, start, end, wall in zip(hands, starts, ends, walls, strict=True):
        assert (hand.round_wind, hand.kyoku, hand.honba, hand.dealer) == (
            start.round_wind,
            start.kyoku,
            start.honba,
            start.dealer,
        )
        assert hand.scores_before == start.scores
        assert hand.wall_commitment == start.wall_commitment == wall.wall_commitment
        assert hand.wall_salt == wall.salt and hand.wall is not None and len(hand.wall) == len(wall.wall)
        assert hand.end_step is not None and hand.end_step >= hand.start_step
        wins = [e for e in end if isinstance(e, ev.HandWon)]
        if wins:
            assert hand.outcome == "won"
            assert [(w["seat"], w["han"], w["fu"], w["points"]) for w in hand.wins] == [
                (w.seat, w.han, w.fu, w.points) for w in wins
            ]
            assert all(w["yaku"] for w in hand.wins)
            total = [sum(w.deltas[s] for w in wins) for s in range(4)]
            assert hand.deltas == tuple(total)
            assert hand.scores_after == wins[-1].scores
        else:
            (drawn,) = end
            assert isinstance(drawn, ev.HandDrawn)
            assert hand.outcome == "drawn" and hand.draw_reason == drawn.reason.value
            assert hand.deltas == drawn.deltas and hand.tenpai == drawn.tenpai
    assert any(h.outcome == "won" for h in hands) and len(hands) >= 4


@pytest.mark.asyncio
async def test_hand_results_can_be_rebuilt_from_the_log(sql_repo: SqlRepository) -> None:
    await _store_game(sql_repo)
    projected = await sql_repo.hand_results("m-game")
    assert await sql_repo.rebuild_hand_results("m-game") == len(projected)
    assert await sql_repo.hand_results("m-game") == projected


@pytest.mark.asyncio
async def test_malformed_events_do_not_break_the_log(sql_repo: SqlRepository) -> None:
    from tests.store.test_conformance import match

    await sql_repo.create_match(match("m-1"))
    odd = [
        {"type": "round_started", "hand_index": "zero"},  # wrong types: no hand row
        {"type": "hand_won"},  # no hand to end: nothing happens
        {"type": "round_started", "hand_index": 0, "round_wind": 0, "kyoku": 0, "honba": 0}
        | {"riichi_sticks": 0, "dealer": 0, "scores": [1, 2, 3, 4], "wall_commitment": "x" * 500},
        "not an object",
    ]
    await sql_repo.append_step(StepRecord("m-1", 0, None, None, tuple(odd), None, 1.0))
    assert await sql_repo.step_count("m-1") == 1
    # The too-long commitment could not be projected on PostgreSQL (SQLite does not check
    # lengths); the step is stored either way.
    assert len(await sql_repo.hand_results("m-1")) <= 1
    assert json.dumps((await sql_repo.steps("m-1"))[0].events) == json.dumps(odd)


@pytest.mark.asyncio
async def test_hand_results_of_tables_in_lockstep(sql_repo: SqlRepository) -> None:
    """Many copies of a match at once: their hands start and end in the same batches, so the
    projection's multi-row statements carry several matches; each ends up like the single one."""
    import asyncio

    from tests.store.games import for_match

    records, events = await _store_game(sql_repo)
    reference = [replace(h, match_id="") for h in await sql_repo.hand_results("m-game")]
    ids = [f"m-copy-{i}" for i in range(6)]
    for m in ids:
        await sql_repo.create_match(match_record(m, events))

    async def table(m: str) -> None:
        for r in for_match(records, m):
            await sql_repo.append_step(r)

    await asyncio.gather(*(table(m) for m in ids))
    assert sql_repo.writer.stats.largest_batch >= 4
    for m in ids:
        assert [replace(h, match_id="") for h in await sql_repo.hand_results(m)] == reference


def test_the_projection_of_engine_events_is_that_of_their_json() -> None:
    """The hub's records carry their engine events and the writer projects from those; a record
    read back has only its JSON: both give the same hand results."""
    from server.eventlog.codec import FORMAT_VERSION
    from server.store.projection import hand_ops
    from tests.store.games import engine_events_of

    records, _ = played()
    typed = engine_events_of(records)
    for r, events in zip(records, typed, strict=True):
        stored = normalized_json(list(r.events))
        assert hand_ops("m", r.step, stored, FORMAT_VERSION) == hand_ops(
            "m", r.step, (), FORMAT_VERSION, events
        )


@pytest.mark.asyncio
async def test_the_banks_stored_with_a_step_round_trip(sql_repo: SqlRepository) -> None:
    from tests.store.test_conformance import match

    await sql_repo.create_match(match("m-1"))
    deal = StepRecord("m-1", 0, None, None, (), None, 1.0, banks=(10000, 10000, 10000, 10000))
    turn = StepRecord(
        "m-1", 1, 0, {"type": "pass"}, (), None, 2.0, source="timeout", banks=(0, 10000, 7250, 1)
    )
    await sql_repo.append_step(deal)
    await sql_repo.append_step(turn)
    assert await sql_repo.steps("m-1") == (deal, turn)
    await sql_repo.append_step(turn)  # a retry: the same record
    with pytest.raises(StepConflictError):
        await sql_repo.append_step(replace(turn, banks=(1, 2, 3, 4)))  # not the same step: a conflict
