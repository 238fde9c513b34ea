"""A suspended player is kept out of an event's tables (docs/tournaments.md, "Suspended entrants"):
no entry or check-in while the suspension runs, not seated in a round seated while it runs (the
audit says why), no seat at a table made while it runs, and back for the round after it is lifted.
The event service against a fake table factory, its suspensions read from a memory store through
the same port ``jantaku serve`` uses (given and lifted by the social service, as moderators do)."""

from __future__ import annotations

import json

import pytest

from server.domain.tournaments import EntrantStatus, RoundRecord, RoundStatus
from server.services.eventports import StoreSuspensions
from server.services.social import SocialService
from server.services.tournaments import EventError
from server.social.moderation import SanctionKind
from server.store.memory import InMemoryRepository
from tests.tournament.test_service import (
    ADMIN,
    ORG,
    PLAYERS,
    codes,
    settings,
)
from tests.tournament.test_service import World as ServiceWorld

pytestmark = pytest.mark.asyncio
ANN = PLAYERS[0]


class World(ServiceWorld):
    def __init__(self) -> None:
        self.repo = InMemoryRepository()  # the sanctions' store
        super().__init__(suspensions_of=StoreSuspensions(self.repo, lambda: self.clock))
        self.social = SocialService(lambda: self.clock, store=self.repo)

    async def suspend(self, account_id: str, minutes: float | None = None) -> int:
        given = await self.social.sanction(
            account_id, SanctionKind.SUSPENSION, "abuse at the table", given_by=ADMIN.id, minutes=minutes
        )
        return given.id

    async def event(self, **kw: object) -> str:
        await self.service.grant_organizer(ADMIN, ORG.id, True, "runs the club")
        return (await self.service.create(ORG, settings(**kw))).id

    async def finish(self, event_id: str) -> None:
        """Start the seated round, end every game and finish the round."""
        rnd = await self.service.start(ORG, event_id)
        for t in rnd.tables:
            assert t.match_id is not None
            self.results.finals[t.match_id] = ((40000, 30000, 20000, 10000), (1, 2, 3, 4))
        await self.service.finish_round(ORG, event_id)


def seated(rnd: RoundRecord) -> set[str]:
    return {e for t in rnd.tables for e in t.entrants}


async def test_a_suspended_player_cannot_enter_and_nothing_changes() -> None:
    w = World()
    event_id = await w.event()
    sanction = await w.suspend(ANN.id, minutes=60)
    with pytest.raises(EventError) as err:
        await w.service.enter(ANN, event_id)
    assert err.value.code == "suspended"
    assert "suspended until" in str(err.value) and "abuse at the table" in str(err.value)  # the hub's words
    assert await w.store.entrants(event_id) == []
    await w.social.lift(sanction, by=ADMIN.id)
    assert (await w.service.enter(ANN, event_id)).status is EntrantStatus.ENTERED


async def test_a_suspension_ends_by_itself() -> None:
    w = World()
    event_id = await w.event()
    await w.suspend(ANN.id, minutes=10)
    assert await codes(w.service.enter(ANN, event_id)) == "suspended"
    w.clock += 10 * 60
    assert (await w.service.enter(ANN, event_id)).status is EntrantStatus.ENTERED


async def test_a_suspended_entrant_cannot_check_in_and_nothing_changes() -> None:
    w = World()
    event_id = await w.event(checkin=True)
    await w.service.enter(ANN, event_id)
    await w.suspend(ANN.id)
    before = (await w.store.entrants(event_id), await w.store.audit(event_id))
    assert await codes(w.service.check_in(ANN, event_id)) == "suspended"
    assert (await w.store.entrants(event_id), await w.store.audit(event_id)) == before


async def test_suspended_since_sign_up_is_not_seated_and_is_back_once_lifted() -> None:
    w = World()
    event_id = await w.event(rounds=3)
    for p in PLAYERS:
        await w.service.enter(p, event_id)
    for _ in range(3):
        await w.service.add_bot(ORG, event_id)  # 9 entrants: 8 play while one is suspended
    sanction = await w.suspend(ANN.id)
    shown = await w.service.suspended_entrants(ORG, event_id)
    assert list(shown) == [ANN.id] and shown[ANN.id].ends is None  # until lifted
    assert await w.service.suspended_entrants(ADMIN, event_id) == shown
    assert await codes(w.service.suspended_entrants(PLAYERS[1], event_id)) == "forbidden"
    first = await w.service.seat(ORG, event_id, reason="round 1")
    assert ANN.id not in seated(first) and len(seated(first)) == 8
    log = await w.service.log(ORG, event_id)
    absent = [a for a in log if a.action == "not_seated"]
    assert [(a.actor, a.reason, json.loads(a.detail)) for a in absent] == [
        (ORG.id, "suspended", {"round": 1, "entrant": ANN.id, "until": None})
    ]
    await w.finish(event_id)
    # lifted: she is seated again from the next round (an organizer drops a bot to make 8)
    await w.social.lift(sanction, by=ADMIN.id)
    assert await w.service.suspended_entrants(ORG, event_id) == {}
    await w.service.drop(ORG, event_id, "bot:greedy:3", "eight players again")
    second = await w.service.seat(ORG, event_id)
    assert ANN.id in seated(second)
    assert len([a for a in await w.service.log(ORG, event_id) if a.action == "not_seated"]) == 1
    # her missed round counts as no game: the standings still rank her
    assert ANN.id in {row.name for row in await w.service.standings(event_id)}


async def test_a_running_game_is_played_to_its_end_and_the_next_round_goes_without_her() -> None:
    w = World()
    event_id = await w.event()
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    for _ in range(4):
        await w.service.add_bot(ORG, event_id)
    await w.service.seat(ORG, event_id)
    rnd = await w.service.start(ORG, event_id)
    await w.suspend(ANN.id)
    assert all(t.ended is None and not t.paused for t in w.tables.made)  # the table is not disturbed
    for t in rnd.tables:
        assert t.match_id is not None
        w.results.finals[t.match_id] = ((40000, 30000, 20000, 10000), (1, 2, 3, 4))
    finished = await w.service.finish_round(ORG, event_id)
    assert finished.status is RoundStatus.FINISHED
    # 7 left: the organizer is told the seating cannot be made (and fills with a substitute)
    assert await codes(w.service.seat(ORG, event_id)) == "conflict"
    assert len(await w.store.rounds(event_id)) == 1


async def test_suspended_after_the_seating_the_start_waits_for_a_substitute() -> None:
    w = World()
    event_id = await w.event()
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    rnd = await w.service.seat(ORG, event_id)
    await w.suspend(ANN.id)
    seat = rnd.tables[0].entrants.index(ANN.id)
    with pytest.raises(EventError) as err:
        await w.service.start(ORG, event_id)
    assert err.value.code == "suspended"
    assert err.value.message == f"{ANN.id} (table 0, seat {seat}) is suspended until lifted: substitute them"
    assert w.tables.made == [] and (await w.store.rounds(event_id))[0].status is RoundStatus.SEATED
    await w.suspend("a-sub")
    assert (
        await codes(w.service.substitute(ORG, event_id, table=0, seat=seat, substitute="a-sub", reason="x"))
        == "suspended"
    )
    assert (await w.store.rounds(event_id))[0] == rnd  # nothing changed
    await w.service.substitute(ORG, event_id, table=0, seat=seat, substitute="bot:greedy", reason="suspended")
    started = await w.service.start(ORG, event_id)
    assert started.status is RoundStatus.RUNNING
    requests = w.tables.made[0].spec.seats
    assert ANN.account not in [getattr(r, "account", None) for r in requests]


async def test_a_script_naming_a_suspended_entrant_is_refused() -> None:
    w = World()
    event_id = await w.event(seating="scripted")
    for p in PLAYERS[:4]:
        await w.service.enter(p, event_id)
    await w.suspend(ANN.id)
    script = ",".join(p.id for p in PLAYERS[:4])
    with pytest.raises(EventError) as err:
        await w.service.seat(ORG, event_id, script=script)
    assert err.value.code == "suspended" and ANN.id in err.value.message
    assert await w.store.rounds(event_id) == []
