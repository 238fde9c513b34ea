"""Seats of an event's running tables on a real hub: a substitute (a bot flagged as substitute, or
another account) takes a seat mid-game through the table factory and its moves are marked as such;
a locked seat cannot be taken; per-entrant start points reach the table and the standings."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from server.app.compose import event_service
from server.domain.records import Account, MatchStatus
from server.domain.tournaments import EventSettings, RoundStatus
from server.engine.rules import TENHOU_SANMA
from server.hub.outputs import ErrorOut, LeftOut
from server.hub.recovery import rebuild_stored
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.tables import LocalTable
from server.services.eventrules import EventError
from server.services.tournaments import Actor
from tests.events.kit import World, account
from tests.hub.helpers import EAST, FakeParticipant

pytestmark = pytest.mark.asyncio

ANN = account("ann")
SUB = account("sub")


async def player_table(
    w: World, *, players: tuple[Account, ...] = (ANN,), **kw: object
) -> tuple[str, LocalTable]:
    """An event of one table: ``players`` and built-in bots; the round started, its table live.
    The players never connect, so the table waits for each one's first decision (its clock)."""
    for a in (*players, SUB):
        await w.repo.create_account(a)
    base: dict[str, object] = {"name": "Club", "ruleset_json": EAST.to_json(), "rounds": 1}
    event = await w.service.create(w.org, EventSettings(**(base | kw)))  # type: ignore[arg-type]
    for a in players:
        await w.service.enter(Actor(a), event.id)
    for _ in range(4 - len(players)):
        await w.service.add_bot(w.org, event.id, "greedy")
    await w.service.seat(w.org, event.id)
    rnd = await w.service.start(w.org, event.id)
    live = await w.hub.tables.find(rnd.tables[0].match_id or "")
    assert isinstance(live, LocalTable)
    return event.id, live


async def test_a_bot_substitute_takes_a_running_seat_and_its_moves_are_marked() -> None:
    w = World()
    await w.setup()
    event_id, live = await player_table(w)
    await asyncio.sleep(0.05)  # the bots play until ann must decide (she never connects)
    rnd = (await w.service.view(event_id)).rounds[-1]
    seat = rnd.tables[0].entrants.index(ANN.id)
    before = live.actor.state.step if live.actor.state is not None else 0
    rnd = await w.service.substitute(
        w.org, event_id, table=0, seat=seat, substitute="bot:greedy", reason="ann did not come", key="s1"
    )
    stand_in = rnd.tables[0].stand_ins[0]
    assert stand_in.seat == seat and stand_in.from_step is not None and stand_in.from_step >= before
    assert rnd.tables[0].entrants[seat] == ANN.id  # the entrant of record keeps the seat
    assert live.actor.seats[seat].name == "greedy (substitute)"
    # sent again with its key: nothing changes (no second substitute)
    again = await w.service.substitute(
        w.org, event_id, table=0, seat=seat, substitute="bot:greedy", reason="ann did not come", key="s1"
    )
    assert again.tables[0].stand_ins == rnd.tables[0].stand_ins
    await asyncio.wait_for(live.actor.ended.wait(), 60)
    moves = await w.service.moves(w.org, event_id, live.match_id)
    mine = [m for m in moves if m.seat == seat]
    theirs = [m for m in mine if m.step > stand_in.from_step]
    assert theirs and all(m.substitute and m.played_by == stand_in.by for m in theirs)
    assert all(not m.substitute and m.played_by == ANN.id for m in mine if m.step <= stand_in.from_step)
    assert all(not m.substitute for m in moves if m.seat != seat)
    assert all(m.source == "player" for m in theirs)  # played through the seat, as a connection does
    # the standings credit the entrant's seat: ann keeps the seat's score
    await w.service.finish_round(w.org, event_id)
    result = await w.repo.get_result(live.match_id)
    assert result is not None
    rows = {r.name: r.total for r in await w.service.standings(event_id)}
    assert rows[ANN.id] == round(result.final_points[seat] * 10)
    stored = await w.repo.get_match(live.match_id)
    assert stored is not None and stored.status is MatchStatus.COMPLETED
    assert next(s.account_id for s in stored.seats if s.seat == seat) == ANN.id
    log = [a.action for a in await w.service.log(w.org, event_id)]
    assert log.count("substitute") == 1


async def test_an_account_substitute_takes_the_seat_and_the_player_is_let_go() -> None:
    w = World()
    await w.setup()
    event_id, live = await player_table(w)
    seat = live.actor.seat_of_account(ANN.id)
    assert seat is not None
    ann = FakeParticipant(ANN)
    await w.hub.lobby.resume(ann, live.match_id, 0, None)
    await live.actor.settle()
    await w.service.substitute(w.org, event_id, table=0, seat=seat, substitute=SUB.id, reason="ann is ill")
    await live.actor.settle()
    assert ann.of(LeftOut)  # her connection was let go
    assert live.actor.seat_of_account(ANN.id) is None and live.actor.seat_of_account(SUB.id) == seat
    assert w.hub.lobby.live_seats(SUB.id) == [(live.match_id, seat)] and not w.hub.lobby.live_seats(ANN.id)
    sub = FakeParticipant(SUB)
    assert await w.hub.lobby.resume(sub, live.match_id, 0, None) is not None
    await live.actor.settle()
    assert sub.following == (live.match_id, seat)
    # one who already sits in the round cannot also substitute; a stranger's account is not found
    rnd = (await w.service.view(event_id)).rounds[-1]
    other = next(i for i in range(4) if i != seat)
    for who, code in ((SUB.id, "conflict"), ("a-nobody", "not_found"), ("bot:nosuch", "malformed")):
        with pytest.raises(EventError) as err:
            await w.service.substitute(w.org, event_id, table=0, seat=other, substitute=who, reason="x")
        assert err.value.code == code
    assert (await w.service.view(event_id)).rounds[-1] == rnd  # nothing changed
    await w.service.end_table(w.org, event_id, 0, "the hall closes")


async def test_a_locked_seat_cannot_be_taken_or_substituted_until_unlocked() -> None:
    w = World()
    await w.setup()
    event_id, live = await player_table(w)
    seat = live.actor.seat_of_account(ANN.id)
    assert seat is not None
    await w.service.lock_seat(w.org, event_id, table=0, seat=seat, locked=True, reason="under review")
    assert seat in live.status().locked
    ann = FakeParticipant(ANN)
    assert await w.hub.lobby.resume(ann, live.match_id, 0, None) is None
    assert any("locked" in e.message for e in ann.of(ErrorOut))
    with pytest.raises(EventError) as err:
        await w.service.substitute(w.org, event_id, table=0, seat=seat, substitute="bot:greedy", reason="x")
    assert err.value.code == "conflict"
    await w.service.lock_seat(w.org, event_id, table=0, seat=seat, locked=False, reason="cleared")
    assert seat not in live.status().locked
    assert await w.hub.lobby.resume(FakeParticipant(ANN), live.match_id, 0, None) is not None
    actions = [a.action for a in await w.service.log(w.org, event_id)]
    assert actions.count("lock_seat") == 1 and actions.count("unlock_seat") == 1
    await w.service.end_table(w.org, event_id, 0, "done")


async def test_a_seat_locked_before_the_start_is_locked_at_the_table() -> None:
    w = World()
    await w.setup()
    event_id = await w.bot_event(4, rounds=1)
    await w.service.seat(w.org, event_id)
    await w.service.lock_seat(w.org, event_id, table=0, seat=1, locked=True, reason="reserved")
    rnd = await w.service.start(w.org, event_id)
    assert rnd.status is RoundStatus.RUNNING and rnd.tables[0].locked == (1,)
    live = await w.hub.tables.find(rnd.tables[0].match_id or "")
    assert live is not None and live.status().locked == frozenset({1})
    await w.service.end_table(w.org, event_id, 0, "done")


async def test_start_points_reach_the_table_and_the_standings() -> None:
    w = World()
    await w.setup()
    event_id = await w.bot_event(4, rounds=1)
    await w.service.set_start_points(w.org, event_id, "bot:greedy:1", 35000, "carried over", key="k")
    await w.service.set_start_points(w.org, event_id, "bot:greedy:1", 35000, "carried over", key="k")
    for bad in (0, 25050, -100):
        with pytest.raises(EventError) as err:
            await w.service.set_start_points(w.org, event_id, "bot:greedy:2", bad, "x")
        assert err.value.code == "malformed"
    await w.play_round(event_id)
    rnd = await w.service.finish_round(w.org, event_id)
    table = rnd.tables[0]
    seat = table.entrants.index("bot:greedy:1")
    assert table.start_scores is not None and table.start_scores[seat] == 35000
    assert sorted(table.start_scores) == [25000, 25000, 25000, 35000]
    hands = await w.repo.hand_results(table.match_id or "")
    assert hands[0].scores_before[seat] == 35000  # the table dealt with it
    result = await w.repo.get_result(table.match_id or "")
    assert result is not None
    # points: (score - 30,000) / 1000 + uma, the oka being 30,000 x 4 - the seats' start points
    uma = (20, 10, -10, -20)
    oka = (30000 * 4 - 110000) // 100
    expected = {
        e: (score - 30000) // 100 + uma[place - 1] * 10 + (oka if place == 1 else 0)
        for e, score, place in zip(table.entrants, result.scores, result.ranks, strict=True)
    }
    assert {r.name: r.total for r in await w.service.standings(event_id)} == expected
    assert sum(expected.values()) == 0
    assert [a.action for a in await w.service.log(w.org, event_id)].count("start_points") == 1


async def test_start_points_survive_a_restart_of_the_table() -> None:
    """A table with per-seat start points replays from its stored log with them (crash recovery)."""
    w3 = World()
    await w3.setup()
    for a in (ANN, SUB):
        await w3.repo.create_account(a)
    base: dict[str, object] = {"name": "Final", "ruleset_json": EAST.to_json(), "rounds": 1}
    ev = await w3.service.create(w3.org, EventSettings(**base))  # type: ignore[arg-type]
    await w3.service.enter(Actor(ANN), ev.id)
    for _ in range(3):
        await w3.service.add_bot(w3.org, ev.id, "greedy")
    await w3.service.set_start_points(w3.org, ev.id, ANN.id, 40000, "the leader carries points")
    await w3.service.seat(w3.org, ev.id)
    rnd = await w3.service.start(w3.org, ev.id)
    match_id = rnd.tables[0].match_id or ""
    seat = rnd.tables[0].entrants.index(ANN.id)
    table = await w3.hub.tables.find(match_id)
    assert isinstance(table, LocalTable)
    await asyncio.sleep(0.05)  # some moves are stored; ann has not decided (she never connects)
    match = await w3.repo.get_match(match_id)
    assert match is not None
    recovered = await rebuild_stored(
        w3.repo, match, default_timers=TableTimers(), default_spectate=SpectatePolicy()
    )
    assert not isinstance(recovered, tuple), recovered
    assert recovered.start_scores is not None and recovered.start_scores[seat] == 40000
    assert recovered.transitions[0].state.scores[seat] == 40000
    assert len(recovered.transitions) == len(await w3.repo.steps(match_id))
    await w3.service.end_table(w3.org, ev.id, 0, "done")


async def test_after_a_restart_the_tables_get_their_substitutes_and_locks_back() -> None:
    w = World()
    await w.setup()
    event_id, live = await player_table(w, players=(ANN, account("bob")))
    await asyncio.sleep(0.05)
    ann_seat = live.actor.seat_of_account(ANN.id)
    bob_seat = live.actor.seat_of_account("a-bob")
    assert ann_seat is not None and bob_seat is not None
    await w.service.substitute(w.org, event_id, table=0, seat=ann_seat, substitute=SUB.id, reason="ill")
    await w.service.lock_seat(w.org, event_id, table=0, seat=bob_seat, locked=True, reason="review")
    await live.actor.settle()
    await live.actor.stop()  # the server stops (no abort): the match stays running in the store
    hub = Hub(w.hub.lobby.factory.settings, w.repo)
    service = event_service(w.repo, hub.tables)
    restored: list[list[str]] = []

    async def takeover(match_ids: Sequence[str]) -> None:
        again = await hub.tables.find(live.match_id)
        assert isinstance(again, LocalTable)
        assert again.actor.seat_of_account(ANN.id) == ann_seat  # replayed from the store: as made
        restored.append(await service.restore_tables(match_ids))

    hub.on_takeover = takeover  # as a cluster node taking over a dead node's table does
    await hub.recover_orphans([live.match_id])
    assert restored == [[]] and live.match_id in hub.recovery.resumed
    again = await hub.tables.find(live.match_id)
    assert isinstance(again, LocalTable)
    assert again.actor.seat_of_account(SUB.id) == ann_seat and again.actor.seat_of_account(ANN.id) is None
    assert again.status().locked == frozenset({bob_seat})
    seats = again.actor.seats
    assert await service.restore_tables() == [] and again.actor.seats == seats  # again: nothing changes
    await service.end_table(w.org, event_id, 0, "done")


async def test_moves_before_the_substitution_stay_the_entrants() -> None:
    """The table played for absent ann (no decision time), then a bot substitute took her seat while
    the table was paused: her earlier moves stay hers, the later ones are the substitute's."""
    w = World()
    w.hub = Hub(HubSettings(port=0, timers=TableTimers(action_ms=0, bank_ms=0)), w.repo)
    w.service = event_service(w.repo, w.hub.tables)
    await w.setup()
    event_id, live = await player_table(w)
    seat = live.actor.seat_of_account(ANN.id)
    assert seat is not None
    for _ in range(200):  # until the table has played for her at least once
        steps = await w.repo.steps(live.match_id)
        if any(s.seat == seat for s in steps):
            break
        await asyncio.sleep(0.001)
    await w.service.pause(w.org, event_id, 0, True, "a substitute is coming")
    if live.actor.finished:
        pytest.skip("the game ended before it could be paused")
    rnd = await w.service.substitute(
        w.org, event_id, table=0, seat=seat, substitute="bot:greedy", reason="ann never came"
    )
    await w.service.pause(w.org, event_id, 0, False)
    await asyncio.wait_for(live.actor.ended.wait(), 60)
    cut = rnd.tables[0].stand_ins[0].from_step
    assert cut is not None
    moves = [m for m in await w.service.moves(w.org, event_id, live.match_id) if m.seat == seat]
    before = [m for m in moves if m.step <= cut]
    after = [m for m in moves if m.step > cut]
    assert before and all(not m.substitute and m.source == "disconnected" for m in before)
    assert after and all(m.substitute and m.source == "player" for m in after)


async def test_a_substitute_at_a_three_player_table() -> None:
    w = World()
    await w.setup()
    sanma = TENHOU_SANMA.with_options(game_length="east")
    for a in (ANN, SUB):
        await w.repo.create_account(a)
    event = await w.service.create(w.org, EventSettings("Sanma night", sanma.to_json(), 1))
    await w.service.enter(Actor(ANN), event.id)
    for _ in range(2):
        await w.service.add_bot(w.org, event.id, "greedy")
    await w.service.seat(w.org, event.id)
    rnd = await w.service.start(w.org, event.id)
    live = await w.hub.tables.find(rnd.tables[0].match_id or "")
    assert isinstance(live, LocalTable) and len(live.actor.seats) == 3
    seat = rnd.tables[0].entrants.index(ANN.id)
    rnd = await w.service.substitute(w.org, event.id, table=0, seat=seat, substitute="bot:greedy", reason="x")
    await asyncio.wait_for(live.actor.ended.wait(), 60)
    moves = await w.service.moves(w.org, event.id, live.match_id)
    assert [m for m in moves if m.substitute] and all(m.seat == seat for m in moves if m.substitute)
