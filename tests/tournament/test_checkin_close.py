"""An organizer checks an entrant in (or out) for the next round, and closes an event before its
last round (server/services/eventcheckin.py, server/services/tournaments.py): the same rules as
the entrant's own check-in, audited, idempotent with a key; closing drops a seated round, reveals
the seeds of the rounds played, finishes the event over them and keeps ``rebuild --check`` agreed.
Every refusal is typed and changes nothing. The event service against a fake table factory."""

from __future__ import annotations

import json
from collections.abc import Coroutine
from typing import Any

import pytest

from server.domain.tournaments import AdjustmentRecord, DuplicateMode, EntrantStatus, EventStatus, RoundStatus
from server.engine.rules import Ruleset
from server.services.eventcheck import rebuild_check
from server.services.tournaments import Actor, EventError
from server.tournament.duplicate import PublishedSet, check_reveal, wall_set_seed
from tests.events.test_suspended_entrants import World as SuspensionWorld
from tests.tournament.test_service import ADMIN, ORG, PLAYERS, World, codes, organized

pytestmark = pytest.mark.asyncio
ANN, BOB, CAT, DAN, EVE, FAY = PLAYERS


async def state(w: World, event_id: str) -> tuple[Any, ...]:
    """Everything an action could change."""
    s = w.store
    return (
        await s.event(event_id),
        await s.entrants(event_id),
        await s.rounds(event_id),
        await s.adjustments(event_id),
        await s.audit(event_id),
    )


async def play(w: World, event_id: str, actor: Actor = ORG) -> None:
    """Seat and start the next round, end every game and finish the round."""
    await w.service.seat(actor, event_id)
    rnd = await w.service.start(actor, event_id)
    for i, t in enumerate(rnd.tables):
        assert t.match_id is not None
        scores = (45300, 30000, 18000, 6700) if i % 2 == 0 else (25000, 25000, 25000, 25000)
        w.results.finals[t.match_id] = (scores, (1, 2, 3, 4))
    await w.service.finish_round(actor, event_id)


async def test_an_organizer_checks_entrants_in_and_out_for_the_next_round() -> None:
    w = World()
    event_id = await organized(w, checkin=True)
    for p in (ANN, BOB, CAT, DAN, EVE):
        await w.service.enter(p, event_id)
    await w.service.add_organizer(ORG, event_id, FAY.id, "co-organizer")
    await w.service.check_in(DAN, event_id)  # the entrant's own
    await w.service.check_in_for(ORG, event_id, ANN.id, reason="phoned in", key="c1")
    await w.service.check_in_for(FAY, event_id, BOB.id, reason="at the desk")  # a co-organizer
    record = await w.service.check_in_for(ADMIN, event_id, CAT.id)
    assert record.checked_in == (1,)
    await w.service.check_in_for(ORG, event_id, EVE.id, reason="here")
    out = await w.service.check_in_for(ORG, event_id, EVE.id, False, "left again", key="o1")
    assert out.checked_in == ()
    log = [a for a in await w.service.log(ORG, event_id) if a.action == "checkin_by_organizer"]
    assert [(a.actor, json.loads(a.detail), a.reason, a.key) for a in log] == [
        (ORG.id, {"entrant": ANN.id, "round": 1, "checked_in": True}, "phoned in", "c1"),
        (FAY.id, {"entrant": BOB.id, "round": 1, "checked_in": True}, "at the desk", None),
        (ADMIN.id, {"entrant": CAT.id, "round": 1, "checked_in": True}, "", None),
        (ORG.id, {"entrant": EVE.id, "round": 1, "checked_in": True}, "here", None),
        (ORG.id, {"entrant": EVE.id, "round": 1, "checked_in": False}, "left again", "o1"),
    ]
    before = await state(w, event_id)
    # already so, or sent again with its key: changes nothing, not even the log
    assert (await w.service.check_in_for(ORG, event_id, ANN.id)).checked_in == (1,)
    assert (await w.service.check_in_for(ORG, event_id, ANN.id, key="c1")).checked_in == (1,)
    assert (await w.service.check_in_for(ORG, event_id, EVE.id, False, key="o1")).checked_in == ()
    assert await state(w, event_id) == before
    rnd = await w.service.seat(ORG, event_id)
    assert {e for t in rnd.tables for e in t.entrants} == {ANN.id, BOB.id, CAT.id, DAN.id}  # not eve
    # the seated round's check-in is over; the one after it opens once it runs
    assert await codes(w.service.check_in_for(ORG, event_id, EVE.id)) == "conflict"
    await w.service.start(ORG, event_id)
    assert (await w.service.check_in_for(ORG, event_id, EVE.id)).checked_in == (2,)


async def test_refused_check_ins_are_typed_and_change_nothing() -> None:
    w = World()
    event_id = await organized(w, checkin=True, cap=2)
    for p in (ANN, BOB, CAT, DAN):
        await w.service.enter(p, event_id)  # cat and dan are waitlisted
    bot = await w.service.add_bot(ORG, event_id)
    await w.service.drop(ORG, event_id, BOB.id, "no-show")  # cat moves up
    plain = await organized(w)  # without check-in
    await w.service.enter(ANN, plain)
    before = (await state(w, event_id), await state(w, plain))
    refused = [
        (w.service.check_in_for(ANN, event_id, CAT.id), "forbidden"),
        (w.service.check_in_for(ORG, "ev-nope", ANN.id), "not_found"),
        (w.service.check_in_for(ORG, event_id, "a-nobody"), "not_found"),
        (w.service.check_in_for(ORG, event_id, bot.entrant_id), "conflict"),  # bots need none
        (w.service.check_in_for(ORG, event_id, BOB.id), "conflict"),  # dropped
        (w.service.check_in_for(ORG, event_id, DAN.id), "conflict"),  # waitlisted
        (w.service.check_in_for(ORG, plain, ANN.id), "conflict"),  # the event has no check-in
    ]
    for coro, want in refused:
        assert await codes(coro) == want
    assert (await state(w, event_id), await state(w, plain)) == before


async def test_a_suspended_entrant_is_not_checked_in_by_an_organizer() -> None:
    w = SuspensionWorld()
    event_id = await w.event(checkin=True)
    await w.service.enter(ANN, event_id)
    await w.service.check_in(ANN, event_id)
    await w.suspend(ANN.id)
    await w.service.check_in_for(ORG, event_id, ANN.id, False, "suspended")  # out: allowed
    before = await state(w, event_id)
    with pytest.raises(EventError) as err:
        await w.service.check_in_for(ORG, event_id, ANN.id, reason="back")
    assert err.value.code == "suspended"
    assert f"{ANN.id} is suspended until lifted" in str(err.value)  # the organizer's words
    assert await state(w, event_id) == before


async def test_closing_drops_the_seated_round_and_finishes_over_the_rounds_played() -> None:
    w = World()
    event_id = await organized(w, rounds=4, checkin=True)
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    for _ in range(4):
        await w.service.add_bot(ORG, event_id)
    for p in PLAYERS[:4]:
        await w.service.check_in(p, event_id)
    await play(w, event_id)
    w.clock += 1  # after the round's end (the check counts adjustments by time)
    await w.service.adjust(ORG, event_id, ANN.id, -50, "late")
    after_round_1 = [(r.name, r.total, r.rank) for r in await w.service.standings(event_id)]
    await w.service.seat(ORG, event_id)  # round 2 seated (the bots only: nobody checked in)
    rnd = await w.service.start(ORG, event_id)
    before = await state(w, event_id)
    # while round 2 runs: refused, nothing changes
    assert await codes(w.service.close(ORG, event_id, "venue closes")) == "conflict"
    assert await state(w, event_id) == before
    for t in rnd.tables:
        w.results.finals[t.match_id or ""] = ((30000, 30000, 20000, 20000), (1, 2, 3, 4))
    assert await codes(w.service.close(ORG, event_id, "venue closes")) == "conflict"  # not finished
    await w.service.finish_round(ORG, event_id)
    for p in PLAYERS[:4]:
        await w.service.check_in(p, event_id)
    await w.service.seat(ORG, event_id)  # round 3 seated, not started
    after_round_2 = [(r.name, r.total, r.rank) for r in await w.service.standings(event_id)]
    assert after_round_2 != after_round_1
    before = await state(w, event_id)
    for coro, want in (
        (w.service.close(ORG, event_id, " "), "malformed"),  # a reason is required
        (w.service.close(ANN, event_id, "mine now"), "forbidden"),
        (w.service.close(ORG, "ev-nope", "typo"), "not_found"),
    ):
        assert await codes(coro) == want
    assert await state(w, event_id) == before
    w.clock += 10
    closed = await w.service.close(ORG, event_id, "venue closes", key="k")
    assert (closed.status, closed.rounds_played, closed.dropped_round, closed.at) == (
        "finished",
        2,
        3,
        1011.0,
    )
    assert await w.service.closing(event_id) == closed
    view = await w.service.view(event_id)
    assert view.event.status is EventStatus.FINISHED
    assert [(r.number, r.status) for r in view.rounds] == [
        (1, RoundStatus.FINISHED),
        (2, RoundStatus.FINISHED),
    ]
    assert [(r.name, r.total, r.rank) for r in await w.service.standings(event_id)] == after_round_2
    entry = (await w.service.log(ORG, event_id))[-1]
    assert (entry.action, entry.reason, entry.key) == ("close", "venue closes", "k")
    assert json.loads(entry.detail) | {"standings": None} == {
        "status": "finished",
        "rounds_played": 2,
        "dropped_round": 3,
        "standings": None,
    }
    assert await rebuild_check(w.service, w.store, w.results, event_id) == []
    # sent again with its key: the first answer, nothing changes; otherwise the event is over
    before = await state(w, event_id)
    assert await w.service.close(ORG, event_id, "venue closes", key="k") == closed
    over: list[Coroutine[Any, Any, object]] = [
        w.service.close(ORG, event_id, "again"),
        w.service.close(ORG, event_id, "again", key="other"),
        w.service.seat(ORG, event_id),
        w.service.start(ORG, event_id),
        w.service.check_in(BOB, event_id),
        w.service.check_in_for(ORG, event_id, BOB.id),
        w.service.add_bot(ORG, event_id),
    ]
    for late in over:
        assert await codes(late) == "conflict"
    assert await state(w, event_id) == before
    w.clock += 1
    # a correction after the close still counts, and the check still agrees with what was shown
    await w.service.adjust(ORG, event_id, BOB.id, 30, "scoring error")
    assert await rebuild_check(w.service, w.store, w.results, event_id) == []
    # an adjustment written behind the service's back, dated before the close: named
    await w.store.add_adjustment(AdjustmentRecord(event_id, CAT.id, 70, "forged", "x", closed.at - 0.5))
    problems = await rebuild_check(w.service, w.store, w.results, event_id)
    assert len(problems) == 1 and problems[0].startswith(f"at the close: {CAT.id}: shown total")


async def test_closing_before_any_round_cancels_the_event() -> None:
    w = World()
    event_id = await organized(w)
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    await w.service.seat(ORG, event_id)
    closed = await w.service.close(ORG, event_id, "not enough players came")
    assert (closed.status, closed.rounds_played, closed.dropped_round) == ("cancelled", 0, 1)
    view = await w.service.view(event_id)
    assert view.event.status is EventStatus.CANCELLED and view.rounds == ()
    assert all(e.status is EntrantStatus.ENTERED for e in view.entrants)
    assert await codes(w.service.enter(PLAYERS[4], event_id)) == "conflict"
    assert await rebuild_check(w.service, w.store, w.results, event_id) == []


async def test_closing_a_finished_event_is_a_conflict() -> None:
    w = World()
    event_id = await organized(w, rounds=1)
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    await play(w, event_id)
    assert (await w.service.view(event_id)).event.status is EventStatus.FINISHED
    before = await state(w, event_id)
    assert await codes(w.service.close(ORG, event_id, "done")) == "conflict"
    assert await w.service.closing(event_id) is None
    assert await state(w, event_id) == before


async def test_a_rotation_cycle_cut_short_has_its_seeds_revealed() -> None:
    w = World()
    event_id = await organized(w, rounds=4, duplicate=DuplicateMode.ROTATIONS)
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    await play(w, event_id)
    await play(w, event_id)
    rounds = await w.store.rounds(event_id)
    assert all(p.seed_hex is None for r in rounds for p in r.sets)  # the cycle has 2 rounds to go
    await w.service.close(ORG, event_id, "the bots crashed")
    event = await w.store.event(event_id)
    assert event is not None
    ruleset = Ruleset.from_json(event.settings.ruleset_json)
    for rnd in await w.store.rounds(event_id):
        for k, ws in enumerate(rnd.sets):
            seed = wall_set_seed(event.secret, 1, k)  # the cycle's first round's walls
            assert ws.seed_hex == seed.hex()
            published = PublishedSet(ws.set_id, ws.tables, ws.seed_commitment, ws.wall_commitments)
            assert check_reveal(published, seed, ruleset) == []
