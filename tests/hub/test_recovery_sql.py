"""Crash recovery over real websockets and the SQL store (SQLite always, PostgreSQL when reachable).

A hub is stopped in the middle of a match and a new hub (a new repository on the same database)
starts: the match is resumed, the player reconnects with the session token of its first
``welcome`` (sessions live in the database) and finishes it; every event it received equals the
stored log. With one stored event changed while the server was down, the match is flagged
(``aborted``, ``diverged: ...``) and not resumed: the player's ``resume`` finds no live match.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import text

from client_protocol.errors import ErrorCode, RequestRejectedError
from client_protocol.messages import (
    ErrorMessage,
    GuestAuth,
    MatchEnd,
    Seated,
    SessionAuth,
)
from server.domain.records import DIVERGED_PREFIX, MatchStatus
from server.hub.clock import ManualClock
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.store.db import write_connection
from server.store.repository import SqlRepository
from tests.hub.helpers import EAST, ScannedClient
from tests.hub.netkit import FAST_LIMITS, KeepOrder, after_prompts, next_of, play
from tests.store.conftest import Database, fresh_database, postgres  # noqa: F401  (postgres: a fixture)

SEED = b"recovery-over-websockets-seed-0001"


@pytest_asyncio.fixture(params=("sqlite", "postgresql"))
async def database(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[Database]:
    async with fresh_database(request.param, request, tmp_path) as db:
        yield db


@asynccontextmanager
async def hub_on(database: Database) -> AsyncIterator[tuple[Hub, SqlRepository]]:
    """One server 'process': a repository on ``database`` and a hub (bots answer at once)."""
    repo = await database.open()
    settings = HubSettings(
        port=0,
        timers=TableTimers(bot_delay_ms=0),
        limits=FAST_LIMITS,
        spectate=SpectatePolicy(delay_s=0.0),
        shutdown_grace_s=2.0,
    )
    hub = Hub(
        settings,
        repo,
        clock=ManualClock(),
        rulesets={"tenhou": EAST},
        rng=KeepOrder(),
        seed_source=lambda: SEED,
    )
    try:
        await hub.start()
        yield hub, repo
    finally:
        await hub.shutdown()
        await repo.close()


async def _play_some(database: Database, answers: int) -> tuple[ScannedClient, str]:
    """First server: alice plays ``answers`` prompts against three bots, then the server stops."""
    async with hub_on(database) as (hub, _):
        client = ScannedClient(hub.url, GuestAuth(name="alice"), timeout=10.0)
        await client._open(client.auth)
        await client.join_queue("tenhou+bots")
        await play(client, stop=after_prompts(answers))
        assert client.match_id is not None
        match_id = client.match_id
    return client, match_id


@pytest.mark.asyncio
async def test_a_match_resumes_after_a_restart_and_the_player_finishes_it(database: Database) -> None:
    client, match_id = await _play_some(database, answers=12)
    async with hub_on(database) as (hub, repo):
        assert hub.recovery.resumed == [match_id]
        client.url = hub.url
        welcome = await client.reconnect()  # with the session token: sessions are in the database
        assert welcome.player.name == "alice"
        assert [s.match_id for s in welcome.seats] == [match_id]
        end = await play(client)
        assert isinstance(end, MatchEnd) and end.result is not None
        assert await client.verify(repo) > 100  # every event received equals the stored log
        stored = await repo.get_match(match_id)
        assert stored is not None and stored.status is MatchStatus.COMPLETED and stored.seed_hex == SEED.hex()
        await client.close()


@pytest.mark.asyncio
async def test_a_session_token_survives_a_restart(database: Database) -> None:
    async with hub_on(database) as (hub, _):
        client = ScannedClient(hub.url, GuestAuth(name="bob"), timeout=10.0)
        first = await client._open(client.auth)
        await client.join_queue("tenhou+bots")  # a guest is stored once it sits at a table
        await next_of(client, Seated)
        await client.close()
        idle = ScannedClient(hub.url, GuestAuth(name="idle"), timeout=10.0)
        never_seated = await idle._open(idle.auth)
        await idle.close()
    async with hub_on(database) as (hub, _):
        again = ScannedClient(hub.url, SessionAuth(session_token=first.session_token), timeout=10.0)
        welcome = await again._open(again.auth)
        assert welcome.player == first.player
        await again.close()
        # A guest that never sat cost no database write: after a restart it says hello again.
        gone = ScannedClient(hub.url, SessionAuth(session_token=never_seated.session_token), timeout=10.0)
        with pytest.raises(RequestRejectedError) as err:
            await gone._open(gone.auth)
        assert err.value.code is ErrorCode.UNAUTHENTICATED


async def _tamper(database: Database, match_id: str) -> int:
    """Change the tile of one stored discard in the middle of the log; returns its step."""
    engine = database.engine()
    try:
        async with write_connection(engine) as conn:
            rows = (
                await conn.execute(
                    text("SELECT step, events FROM steps WHERE match_id = :m AND step > 4 ORDER BY step"),
                    {"m": match_id},
                )
            ).all()
            for step, raw in rows:
                events = json.loads(raw) if isinstance(raw, str) else raw
                for event in events:
                    if event["type"] == "tile_discarded":
                        event["tile"] = "7z" if event["tile"] != "7z" else "6z"
                        await conn.execute(
                            text("UPDATE steps SET events = :e WHERE match_id = :m AND step = :s"),
                            {"e": json.dumps(events), "m": match_id, "s": step},
                        )
                        return int(step)
    finally:
        await engine.dispose()
    raise AssertionError("no discard to tamper with")


@pytest.mark.asyncio
async def test_a_tampered_match_is_flagged_and_not_resumed(database: Database) -> None:
    client, match_id = await _play_some(database, answers=12)
    step = await _tamper(database, match_id)
    async with hub_on(database) as (hub, repo):
        assert hub.recovery.diverged == [match_id] and hub.recovery.resumed == []
        assert hub.lobby.table(match_id) is None
        stored = await repo.get_match(match_id)
        assert stored is not None and stored.status is MatchStatus.ABORTED and stored.diverged
        assert stored.status_reason is not None
        assert stored.status_reason.startswith(f"{DIVERGED_PREFIX} step {step}, event 0 (tile_discarded)")
        assert stored.seed_hex is None  # flagged, not ended: the seed stays unrevealed
        assert await repo.unfinished_matches() == []
        client.url = hub.url
        welcome = await client.reconnect()  # the account and session are fine ...
        assert welcome.seats == ()  # ... but the match is not live any more
        error = await next_of(client, ErrorMessage)  # the answer to the client's own resume
        assert error.code is ErrorCode.NOT_FOUND and match_id in error.message
        await client.close()
    async with hub_on(database) as (hub, _):  # and it is not tried again at the next start
        assert hub.recovery.diverged == [] and hub.recovery.resumed == []
