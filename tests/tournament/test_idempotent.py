"""Organizer actions sent again change nothing (a retried request after a lost answer): pause and
resume, drop, ending a table, finishing a round, seating and starting with a key, entering a bot
account; each repeat leaves the event's stored state as the first call left it."""

from __future__ import annotations

import pytest

from server.domain.tournaments import DuplicateMode, EntrantStatus, RoundStatus
from tests.tournament.test_service import ORG, World, codes, full_event

pytestmark = pytest.mark.asyncio


async def _state(w: World, event_id: str) -> tuple[object, ...]:
    return (
        await w.store.event(event_id),
        await w.store.entrants(event_id),
        await w.store.rounds(event_id),
        await w.store.adjustments(event_id),
    )


async def test_every_organizer_action_repeated_changes_nothing() -> None:
    w = World()
    event_id = await full_event(w, duplicate=DuplicateMode.ROUND)
    bot = (await w.store.entrants(event_id))[-1].entrant_id
    await w.service.drop(ORG, event_id, bot, "left")
    before = await _state(w, event_id)
    await w.service.drop(ORG, event_id, bot, "left")
    assert await _state(w, event_id) == before
    assert [a.action for a in await w.service.log(ORG, event_id)].count("drop") == 1
    await w.service.add_bot(ORG, event_id)  # back to eight entrants

    rnd = await w.service.seat(ORG, event_id, key="s1")
    before = await _state(w, event_id)
    assert await w.service.seat(ORG, event_id, key="s1") == rnd
    assert await _state(w, event_id) == before
    started = await w.service.start(ORG, event_id, key="go")
    made = len(w.tables.made)
    for _ in range(2):
        assert await w.service.start(ORG, event_id, key="go") == started
    assert len(w.tables.made) == made

    for _ in range(2):
        await w.service.pause(ORG, event_id, None, True, "power cut")
        assert all(t.paused for t in w.tables.made)
    for _ in range(2):
        await w.service.pause(ORG, event_id, None, False)
        assert not any(t.paused for t in w.tables.made)

    for _ in range(2):  # a penalty and a notice sent twice with one key count once
        await w.service.adjust(ORG, event_id, bot, -50, "slow play", key="pen-1")
        await w.service.notice(ORG, event_id, "round 1 ends at 21:00", key="n-1")
    assert len(await w.store.adjustments(event_id)) == 1 and len(await w.service.notices(event_id)) == 1
    await w.service.adjust(ORG, event_id, bot, -50, "slow play again", key="pen-2")
    assert len(await w.store.adjustments(event_id)) == 2
    for _ in range(2):
        await w.service.end_table(ORG, event_id, 0, "time limit")
        assert w.tables.made[0].ended == "time limit"
    for t in started.tables:
        w.results.finals[t.match_id or ""] = ((25000, 25000, 25000, 25000), (1, 2, 3, 4))
    finished = await w.service.finish_round(ORG, event_id, "done")
    assert finished.status is RoundStatus.FINISHED
    before = await _state(w, event_id)
    assert await codes(w.service.finish_round(ORG, event_id, "done")) == "conflict"  # nothing running
    assert await _state(w, event_id) == before
    entrants = await w.store.entrants(event_id)
    assert sum(1 for e in entrants if e.status is EntrantStatus.ENTERED) == 8
