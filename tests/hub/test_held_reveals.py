"""A table made with ``hold_reveals`` (a tournament's duplicate walls: other tables may still be
playing the same hand) keeps each hand's wall and the match's seed from every seat and spectator,
live and in catch-ups, while the store keeps them, so the game verifies later."""

from __future__ import annotations

from typing import Any

import pytest

from client_protocol.events import WallRevealed as WireWallRevealed
from server.domain.records import AccountKind
from server.engine.events import Event, MatchEnded, WallRevealed
from server.eventlog.convert import event_to_wire
from server.hub.clock import SystemClock
from server.hub.inbox import Attach
from server.hub.outputs import CatchupOut, EventsOut
from server.hub.placement import LocalPlacement
from server.hub.recovery import rebuild
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.tables import LocalTables
from server.services.tables import SeatRequest, TableSpec
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST, FakeParticipant, account

pytestmark = pytest.mark.asyncio
QUICK = TableTimers(action_ms=0, bank_ms=0)  # the player's every decision is played for it at once


def wires(p: FakeParticipant) -> list[Any]:
    """What the seat's connection would send: each event's wire form, through the batch's shared
    frames (the step log's rendering) where the table passed them on."""
    out = []
    for batch in p.of(EventsOut):
        for i, e in enumerate(batch.events):
            out.append(batch.shared.wire_of(i, e) if batch.shared is not None else event_to_wire(e))
    return out


def received(p: FakeParticipant) -> list[Event]:
    return [e for out in p.of(EventsOut) for e in out.events] + [
        e for out in p.of(CatchupOut) for e in out.events
    ]


async def play(hold: bool) -> tuple[InMemoryRepository, str, list[FakeParticipant]]:
    repo = InMemoryRepository()
    tables = LocalTables(
        repo=repo,
        clock=SystemClock(),
        settings=HubSettings(timers=QUICK, spectate=SpectatePolicy(delay_s=0.0)),
        placement=LocalPlacement(),
        seed_source=lambda: b"held",
    )
    player = FakeParticipant(account("alice", AccountKind.PLAYER))
    spec = TableSpec(
        seats=(SeatRequest.player(player.account), *[SeatRequest.built_in("greedy")] * 3),
        ruleset=EAST,
        source="event:ev-1:r1:t0",
        seed=b"the set's seed",
        timers=QUICK,
        hold_reveals=hold,
    )
    table = await tables.start(tables.reserve(spec, {0: player}))
    watcher = FakeParticipant(account("watcher"))
    table.submit(Attach(watcher, None, 0))
    await table.ended.wait()
    late = FakeParticipant(account("late"))  # a catch-up after the end: the whole stream at once
    table.submit(Attach(late, None, 0))
    await table.settle()
    return repo, table.match_id, [player, watcher, late]


async def test_no_seat_or_spectator_of_a_held_table_receives_a_wall_or_the_seed() -> None:
    repo, match_id, viewers = await play(hold=True)
    for p in viewers:
        events = received(p)
        walls = [e for e in events if isinstance(e, WallRevealed)]
        assert walls, "every hand still ends with its (empty) reveal: versions stay the same"
        assert all(e.salt == "" and e.wall == () and e.wall_commitment for e in walls)
        held = [w for w in wires(p) if isinstance(w, WireWallRevealed)]
        assert all(w.salt == "" and w.wall == () for w in held)  # the wire form too
        assert held or p is viewers[2]  # the late spectator's one catch-up has no live batch
        ends = [e for e in events if isinstance(e, MatchEnded)]
        assert ends and all(e.seed == "" for e in ends)
    # the store keeps what was held: the seed and every hand's wall
    match = await repo.get_match(match_id)
    assert match is not None and match.seed_hex == b"the set's seed".hex()
    hands = await repo.hand_results(match_id)
    assert hands and all(h.wall_salt and h.wall for h in hands)
    recovery = await repo.recovery_record(match_id)
    assert recovery is not None and recovery.table["hold_reveals"] is True
    # a restart rebuilds the table with its reveals still held
    rebuilt = rebuild(
        match, recovery, await repo.steps(match_id), default_timers=QUICK, default_spectate=SpectatePolicy()
    )
    assert rebuilt.hold_reveals


async def test_a_table_without_the_option_reveals_as_before() -> None:
    repo, match_id, viewers = await play(hold=False)
    match, recovery = await repo.get_match(match_id), await repo.recovery_record(match_id)
    assert match is not None and recovery is not None and "hold_reveals" not in recovery.table
    steps = await repo.steps(match_id)
    assert not rebuild(
        match, recovery, steps, default_timers=QUICK, default_spectate=SpectatePolicy()
    ).hold_reveals
    for p in viewers:
        events = received(p)
        assert all(e.salt and len(e.wall) == 136 for e in events if isinstance(e, WallRevealed))
        assert all(e.seed == b"the set's seed".hex() for e in events if isinstance(e, MatchEnded))
