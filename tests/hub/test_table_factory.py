"""The table factory (``server.services.tables``, on one node ``server.hub.tables.LocalTables``):
a table made from a spec (players, bots, empty seats; walls; clocks; spectators; tags), found,
paused (its clocks stop), unpaused, ended; a table on another node is found and controlled through the
placement (its node does it), or ``busy`` when no node can do it now."""

from __future__ import annotations

import pytest

from client_protocol.errors import ErrorCode
from client_protocol.messages import MatchEnd, MatchEndReason, TokenAuth
from server.domain.records import AccountKind, MatchStatus
from server.engine import default_action
from server.engine.actions import Tsumo, action_to_dict
from server.hub.clock import ManualClock
from server.hub.inbox import ActRequest
from server.hub.outputs import MatchEndOut, PromptOut
from server.hub.placement import LocalPlacement
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.tables import LocalTable, LocalTables
from server.services.tables import (
    SeatKind,
    SeatRequest,
    TableAnswer,
    TableBusyError,
    TableCommand,
    TableSpec,
    TableSpecError,
)
from server.store.memory import InMemoryRepository
from tests.engine.scenario import spare_walls
from tests.hub.helpers import EAST, FakeParticipant, account
from tests.hub.netkit import connect_client, play, serving
from tests.hub.test_table import TSUMO_WALL

TIMERS = TableTimers(action_ms=5000, bank_ms=10000)


class Elsewhere(LocalPlacement):
    """A cluster where every match this node does not run runs on node B."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, TableCommand]] = []
        self.answer: TableAnswer | None = TableAnswer()

    async def locate(self, match_id: str) -> str | None:
        return "ws://node-b:8765"

    async def control(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        self.asked.append((match_id, command))
        return self.answer


def factory(
    clock: ManualClock, repo: InMemoryRepository, placement: LocalPlacement | None = None
) -> LocalTables:
    return LocalTables(
        repo=repo,
        clock=clock,
        settings=HubSettings(timers=TableTimers(), spectate=SpectatePolicy(delay_s=0.0)),
        placement=placement or LocalPlacement(),
        seed_source=lambda: b"factory",
    )


def spec(player: FakeParticipant, **changes: object) -> TableSpec:
    seats = (
        SeatRequest.player(player.account),
        SeatRequest.built_in("tsumogiri"),
        SeatRequest.empty(),
        SeatRequest.built_in(),
    )
    options: dict[str, object] = {
        "seats": seats,
        "ruleset": EAST,
        "source": "event:spring-cup",
        "timers": TIMERS,
        "tags": {"event": "spring-cup", "round": "1"},
    }
    options.update(changes)
    return TableSpec(**options)  # type: ignore[arg-type]


async def seated(tables: LocalTables, p: FakeParticipant, **changes: object) -> LocalTable:
    table = await tables.start(tables.reserve(spec(p, **changes), {0: p}))
    await table.settle()
    live = await tables.find(table.match_id)
    assert isinstance(live, LocalTable)
    return live


@pytest.mark.asyncio
async def test_a_table_made_from_a_spec() -> None:
    clock, repo = ManualClock(), InMemoryRepository()
    tables = factory(clock, repo)
    alice = account("alice", AccountKind.PLAYER)
    live = await tables.create(spec(FakeParticipant(alice), seed=b"cup-seed"))
    status = live.status()
    assert status.source == "event:spring-cup" and status.tags == {"event": "spring-cup", "round": "1"}
    assert [(s.name, s.kind, s.account_id) for s in status.seats] == [
        ("alice", "player", alice.id),
        ("tsumogiri-1", "bot", None),
        ("greedy-2", "bot", None),  # an empty seat: the server's fill bot plays it
        ("greedy-3", "bot", None),
    ]
    assert not status.paused and not status.finished and status.node is None
    assert tables.live_seats(alice.id) == [(live.match_id, 0)]
    stored = await repo.get_match(live.match_id)
    assert stored is not None and stored.source == "event:spring-cup" and stored.status is MatchStatus.RUNNING
    await live.end("the round's time is up")
    stored = await repo.get_match(live.match_id)
    assert stored is not None and stored.status is MatchStatus.ABORTED
    assert stored.status_reason == "the round's time is up"
    assert tables.live_seats(alice.id) == []


@pytest.mark.asyncio
async def test_injected_walls_deal_the_hands() -> None:
    clock, repo = ManualClock(), InMemoryRepository()
    tables = factory(clock, repo)
    walls = tuple(spare_walls(EAST, 4))
    live = await tables.create(spec(FakeParticipant(account("bob")), walls=walls))
    assert isinstance(live, LocalTable)
    assert (await repo.recovery_record(live.match_id)) is None  # dealt from walls: not replayable from a seed
    await live.end("done")


@pytest.mark.asyncio
async def test_a_bad_spec_makes_nothing() -> None:
    tables = factory(ManualClock(), InMemoryRepository())
    p = FakeParticipant(account("carol"))
    with pytest.raises(TableSpecError):
        await tables.create(spec(p, seats=(SeatRequest.player(p.account),) * 4))  # one account, four seats
    with pytest.raises(TableSpecError):
        await tables.create(spec(p, seats=(SeatRequest.built_in("no-such-bot"),) * 4))
    with pytest.raises(TableSpecError):
        await tables.create(spec(p, seats=(SeatRequest.empty(),) * 3))
    with pytest.raises(TableSpecError):
        SeatRequest(SeatKind.PLAYER)
    assert tables.tables == {}


@pytest.mark.asyncio
async def test_the_clocks_stop_while_a_table_is_paused() -> None:
    clock, repo = ManualClock(), InMemoryRepository()
    tables = factory(clock, repo)
    p = FakeParticipant(account("dave"))
    live = await seated(tables, p)
    table = live.actor
    state = table.state
    assert state is not None
    clock.advance(3.0)
    await table.settle()
    await live.pause("a dispute at table 3")
    assert live.status().paused
    assert p.errors()[-1].code is ErrorCode.BUSY_RETRY and "paused" in p.errors()[-1].message
    clock.advance(3600.0)  # far past the seat's time and bank: nothing is played for it
    await table.settle()
    assert table.state is state and len(await repo.steps(live.match_id)) == 1
    prompt = p.last_prompt()
    assert prompt is not None
    table.submit(ActRequest(p, 1, prompt.step, default_action(state, 0)))
    await table.settle()
    assert (
        table.state is state
        and p.errors()[-1].code is ErrorCode.BUSY_RETRY
        and p.errors()[-1].request_id == 1
    )
    await live.pause("again")  # pausing a paused table changes nothing
    await live.unpause()
    assert not live.status().paused
    again = p.last_prompt()
    assert isinstance(again, PromptOut) and again is not prompt
    assert (again.deadline_ms, again.bank_ms) == (2000, 10000)  # the time left when the clocks stopped
    clock.advance(11.999)
    await table.settle()
    assert table.state is state
    clock.advance(0.001)
    await table.settle()
    steps = await repo.steps(live.match_id)
    assert steps[1].seat == 0 and steps[1].action == action_to_dict(default_action(state, 0))
    await live.end("over")
    assert [e.reason for e in p.of(MatchEndOut)] == [MatchEndReason.ABORTED]


@pytest.mark.asyncio
async def test_a_table_on_another_node_is_controlled_through_the_placement() -> None:
    """The factory finds a table another node runs; pausing, unpausing, ending it, locking a seat
    and seating a substitute go to that node through the placement (the hub never asks which
    placement it has); what that node refuses is raised here with its code; when no node can do
    it now, ``busy`` and nothing done."""
    placement = Elsewhere()
    tables = factory(ManualClock(), InMemoryRepository(), placement)
    remote = await tables.find("m-elsewhere")
    assert remote is not None and remote.status().node == "ws://node-b:8765"
    await remote.pause("tea")
    await remote.unpause()
    await remote.end("a rule")
    await remote.lock_seat(2, True)
    await remote.lock_seat(2, False)
    placement.answer = TableAnswer(step=17)
    sub = account("sub")
    assert await remote.substitute(1, SeatRequest.player(sub)) == 17
    assert await remote.substitute(3, SeatRequest.built_in("tsumogiri")) == 17
    assert [(m, c.action, c.reason, c.seat) for m, c in placement.asked] == [
        ("m-elsewhere", "pause", "tea", None),
        ("m-elsewhere", "unpause", "", None),
        ("m-elsewhere", "end", "a rule", None),
        ("m-elsewhere", "lock", "", 2),
        ("m-elsewhere", "unlock", "", 2),
        ("m-elsewhere", "substitute", "", 1),
        ("m-elsewhere", "substitute", "", 3),
    ]
    assert (placement.asked[5][1].account_id, placement.asked[6][1].bot) == (sub.id, "tsumogiri")
    with pytest.raises(TableSpecError):
        await remote.substitute(0, SeatRequest.empty())  # nobody is no substitute: not even asked
    assert len(placement.asked) == 7
    placement.answer = TableAnswer(code="malformed", message="seat 1 of m-elsewhere is locked")
    with pytest.raises(TableSpecError, match="is locked"):
        await remote.substitute(1, SeatRequest.player(sub))
    placement.answer = TableAnswer(over=True)
    await remote.pause("late")  # over: nothing left to do
    with pytest.raises(TableSpecError, match="is over"):
        await remote.substitute(1, SeatRequest.player(sub))
    placement.answer = None
    with pytest.raises(TableBusyError) as refused:
        await remote.pause("x")
    assert refused.value.code == "busy"
    assert await factory(ManualClock(), InMemoryRepository()).find("m-nowhere") is None


@pytest.mark.asyncio
async def test_what_another_node_asks_is_done_on_the_table_here_or_refused_with_its_code() -> None:
    """The other side (``control_here``): a command for a table this node runs is done on it, as
    the factory's own methods do; a refusal comes back as an answer with its code; a table that
    does not run here answers None."""
    clock, repo = ManualClock(), InMemoryRepository()
    tables = factory(clock, repo)
    p = FakeParticipant(account("p"))
    live = await tables.create(spec(p))
    sub = account("stand-in", AccountKind.PLAYER)
    await repo.create_account(sub)
    mid = live.match_id
    assert await tables.control_here("m-other", TableCommand("pause")) is None
    assert await tables.control_here(mid, TableCommand("lock", seat=0)) == TableAnswer()
    assert live.status().locked == frozenset({0})
    refused = await tables.control_here(mid, TableCommand("substitute", seat=0, account_id=sub.id))
    assert refused is not None and refused.code == "malformed" and "locked" in refused.message
    assert await tables.control_here(mid, TableCommand("unlock", seat=0)) == TableAnswer()
    unknown = await tables.control_here(mid, TableCommand("substitute", seat=0, account_id="a-nobody"))
    assert unknown is not None and unknown.code == "malformed" and "no account" in unknown.message
    done = await tables.control_here(mid, TableCommand("substitute", seat=0, account_id=sub.id))
    assert done is not None and done.code is None and done.step is not None
    assert live.status().seats[0].account_id == sub.id
    assert await tables.control_here(mid, TableCommand("pause", "tea")) == TableAnswer()
    assert live.status().paused
    assert await tables.control_here(mid, TableCommand("end", "done")) == TableAnswer()


@pytest.mark.asyncio
async def test_a_table_made_through_the_hubs_factory_is_played_over_the_network() -> None:
    """What a tournament director does: make the table through ``Hub.tables`` (no lobby); the
    entrant connects and resumes the match it holds a seat in, and plays it to the end."""
    async with serving() as hub:
        entrant, token = await hub.auth.create_account("entrant", AccountKind.PLAYER)
        seats = (
            SeatRequest.player(entrant),
            SeatRequest.built_in("tsumogiri"),
            SeatRequest.empty(),
            SeatRequest.built_in("tsumogiri"),
        )
        live = await hub.tables.create(TableSpec(seats=seats, ruleset=EAST, source="event:cup"))
        assert await hub.tables.find(live.match_id) is not None
        client = await connect_client(hub, auth=TokenAuth(token=token))
        await client.resume(live.match_id)
        end = await play(client)
        assert isinstance(end, MatchEnd) and end.match_id == live.match_id
        await client.close()
        stored = await hub.repo.get_match(live.match_id)
        assert stored is not None and stored.status is MatchStatus.COMPLETED and stored.source == "event:cup"


@pytest.mark.asyncio
async def test_a_pause_holds_the_hand_pause_too() -> None:
    """The clocks that stop include the pause between two hands: the next hand is shown the
    rest of the hand pause after the table goes on, not during the pause."""
    clock, repo = ManualClock(), InMemoryRepository()
    tables = factory(clock, repo)
    p = FakeParticipant(account("erin"))
    walls = (TSUMO_WALL, TSUMO_WALL, TSUMO_WALL)
    live = await seated(tables, p, walls=walls, timers=TableTimers(hand_pause_ms=5000))
    table = live.actor
    prompt = p.last_prompt()
    assert prompt is not None and Tsumo() in prompt.legal
    table.submit(ActRequest(p, 1, prompt.step, Tsumo()))
    await table.settle()
    clock.advance(2.0)
    await table.settle()
    await live.pause("tea")
    clock.advance(60.0)
    await table.settle()
    assert p.last_prompt() is prompt, "no new hand while paused"
    await live.unpause()
    clock.advance(2.999)
    await table.settle()
    assert p.last_prompt() is prompt
    clock.advance(0.001)
    await table.settle()
    again = p.last_prompt()
    assert again is not None and again.step > prompt.step and again.deadline_ms == 5000
    await live.end("over")
