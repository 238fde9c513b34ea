"""The event store (EventStore port) on memory, SQLite and PostgreSQL: every record round-trips,
entrants and rounds are replaced in place, the audit log keeps its order (server/store/events.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from server.domain.records import DEFAULT_SCOPES, Account, AccountKind
from server.domain.tournaments import (
    AdjustmentRecord,
    AuditRecord,
    DuplicateMode,
    EntrantRecord,
    EntrantStatus,
    EntryMode,
    EventRecord,
    EventSettings,
    EventStatus,
    EventStore,
    PublishedSetRecord,
    RoundRecord,
    RoundStatus,
    RoundTableRecord,
    SpectatorMode,
    StandInRecord,
)
from server.engine.rules import PRESETS
from server.store.memory_events import InMemoryEvents
from tests.store.conftest import BACKENDS, fresh_database, postgres  # noqa: F401  (postgres: a fixture)

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(params=("memory", *BACKENDS))
async def events(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        yield InMemoryEvents()
        return
    async with fresh_database(request.param, request, tmp_path) as db:
        repo = await db.open()
        try:
            await repo.create_account(
                Account("a-org", "org", AccountKind.PLAYER, DEFAULT_SCOPES[AccountKind.PLAYER], 0.0)
            )
            yield repo
        finally:
            await repo.close()


SETTINGS = EventSettings(
    name="Winter cup",
    ruleset_json=PRESETS["tenhou"].to_json(),
    rounds=3,
    description="three rounds",
    entry=EntryMode.INVITE,
    invited=("a-ann", "a-bob"),
    cap=16,
    spectators=SpectatorMode.OBSERVERS,
    observers=("a-cas",),
    duplicate=DuplicateMode.SETS,
    set_size=2,
    formula="teams",
    teams={"a-ann": "red", "a-bob": "blue"},
    max_meetings=1,
    min_dan=4,
    min_rating=1800.0,
    ranked=True,
)
EVENT = EventRecord("ev-1", SETTINGS, EventStatus.OPEN, "a-org", 1000.0, ("a-org",), b"\x01" * 32)


async def test_event_round_trip(events: EventStore) -> None:
    await events.add_event(EVENT)
    assert await events.event("ev-1") == EVENT
    assert await events.event("ev-2") is None
    changed = EventRecord(
        "ev-1", SETTINGS, EventStatus.RUNNING, "a-org", 1000.0, ("a-org", "a-co"), EVENT.secret
    )
    await events.put_event(changed)
    assert await events.events() == [changed]


async def test_entrants_rounds_adjustments_audit(events: EventStore) -> None:
    await events.add_event(EVENT)
    ann = EntrantRecord("ev-1", "a-ann", "ann", "player", EntrantStatus.ENTERED, 1001.0, (1,), 30000)
    bot = EntrantRecord("ev-1", "bot:greedy:1", "greedy 1", "bot", EntrantStatus.WAITLISTED, 1002.0)
    await events.put_entrant(ann)
    await events.put_entrant(bot)
    await events.put_entrant(
        EntrantRecord("ev-1", "bot:greedy:1", "greedy 1", "bot", EntrantStatus.ENTERED, 1002.0)
    )
    assert [(e.entrant_id, e.status) for e in await events.entrants("ev-1")] == [
        ("a-ann", EntrantStatus.ENTERED),
        ("bot:greedy:1", EntrantStatus.ENTERED),
    ]
    assert (await events.entrants("ev-1"))[0] == ann
    rnd = RoundRecord(
        "ev-1",
        1,
        RoundStatus.SEATED,
        (
            RoundTableRecord(0, ("a", "b", "c", "d"), "r1-s0"),
            RoundTableRecord(1, ("e", "f", "g", "h"), "r1-s0"),
        ),
        (PublishedSetRecord("r1-s0", (0, 1), "ab" * 32, ("cd" * 32, "ef" * 32)),),
        1003.0,
    )
    await events.put_round(rnd)
    running = RoundRecord(
        "ev-1",
        1,
        RoundStatus.RUNNING,
        (
            RoundTableRecord(
                0,
                ("a", "b", "c", "d"),
                "r1-s0",
                "m-1",
                (2,),
                (
                    StandInRecord(2, "bot:greedy:sub1.0.2.1", None, 1003.5),
                    StandInRecord(2, "a-sub", 17, 1004.5),
                ),
                (1, 3),
                (25000, 25000, 35000, 25000),
            ),
            rnd.tables[1],
        ),
        (PublishedSetRecord("r1-s0", (0, 1), "ab" * 32, ("cd" * 32,), "00" * 32),),
        1003.0,
        1004.0,
        None,
    )
    await events.put_round(running)
    assert await events.rounds("ev-1") == [running]
    await events.add_adjustment(AdjustmentRecord("ev-1", "a-ann", -50, "late", "a-org", 1005.0))
    assert await events.adjustments("ev-1") == [
        AdjustmentRecord("ev-1", "a-ann", -50, "late", "a-org", 1005.0)
    ]
    first = AuditRecord("ev-1", 1006.0, "a-org", "seat", '{"round": 1}', "", "k1")
    second = AuditRecord("ev-1", 1007.0, "a-org", "start", '{"round": 1}', "go", None)
    await events.add_audit(first)
    await events.add_audit(second)
    assert await events.audit("ev-1") == [first, second]
    assert await events.audit("ev-2") == []


async def test_a_round_is_deleted(events: EventStore) -> None:
    """A seated round dropped when its event is closed (docs/tournaments.md, "Closing an event")."""
    await events.add_event(EVENT)
    tables = (RoundTableRecord(0, ("a", "b", "c", "d"), "r1-s0"),)
    sets = (PublishedSetRecord("r1-s0", (0,), "ab" * 32, ("cd" * 32,)),)
    first = RoundRecord("ev-1", 1, RoundStatus.FINISHED, tables, sets, 1003.0, 1004.0, 1005.0)
    second = RoundRecord("ev-1", 2, RoundStatus.SEATED, tables, sets, 1006.0)
    await events.put_round(first)
    await events.put_round(second)
    await events.delete_round("ev-1", 2)
    assert await events.rounds("ev-1") == [first]
    await events.delete_round("ev-1", 2)  # none: nothing
    await events.delete_round("ev-2", 1)
    assert await events.rounds("ev-1") == [first]


async def test_organizer_role(events: EventStore) -> None:
    assert not await events.organizer_role("a-org")
    await events.set_organizer_role("a-org", True, 1000.0)
    assert await events.organizer_role("a-org")
    await events.set_organizer_role("a-org", True, 1001.0)  # granting twice changes nothing
    await events.set_organizer_role("a-org", False, 1002.0)
    assert not await events.organizer_role("a-org")
