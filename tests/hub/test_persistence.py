"""The hub on the SQL store: commit before broadcast end to end, and how ``jantaku`` opens its store.

**Commit before broadcast.** A real websocket client plays a whole match against three bots on a
hub whose store is SQLite (and PostgreSQL, when reachable). Every event it receives is checked AT
RECEIPT, inside the client's reader, against the database read through a connection of its own:
the event's version must already be in the stored log (and equal to the stored event, redacted for
the client's seat). On SQLite the read is a plain blocking ``sqlite3`` query, so the server cannot
move on (its event loop is this one) while the check runs. A deliberately broken repository that
acknowledges a step before storing it makes the same check fail: the test can tell.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import pytest_asyncio
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from client_protocol.client import Client
from client_protocol.messages import EventMessage, GuestAuth, MatchEnd, Prompt, ServerMessage, TokenAuth
from server.app.cli import main
from server.app.compose import import_accounts_file, open_repository
from server.domain.records import AccountKind, StepRecord
from server.hub.clock import ManualClock
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.services.auth import Authenticator
from server.store.db import SQLITE_FILENAME, sqlite_path
from server.store.memory import InMemoryRepository
from server.store.migrate import current_revision, head_revision
from server.store.repository import SqlRepository
from tests.hub.helpers import EAST, redact_json
from tests.hub.netkit import FAST_LIMITS, KeepOrder, play
from tests.store.conftest import Database, fresh_database, postgres  # noqa: F401  (postgres: a fixture)

Check = Callable[[str, int | None, int, Any], Awaitable[None]]


def _plain(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


class CheckingClient(Client):
    """The library client, checking each event against the database the moment it arrives."""

    def __init__(self, url: str, check: Check) -> None:
        super().__init__(url, GuestAuth(name="alice"), timeout=10.0)
        self._check = check
        self.events = 0

    async def _dispatch(self, message: ServerMessage) -> None:
        if isinstance(message, EventMessage):
            self.events += 1
            await self._check(message.match_id, self.seat, message.version, _plain(message.event))
        await super()._dispatch(message)


class StoredLog:
    """The omniscient events of each match as the database has them, read incrementally (stored
    steps never change) and compared with what a client received."""

    def __init__(self) -> None:
        self.events: dict[str, list[Any]] = {}
        self.next_step: dict[str, int] = {}
        self.violations: list[str] = []

    def add(self, match_id: str, rows: list[tuple[int, Any]]) -> None:
        for step, raw in rows:
            assert step == self.next_step.get(match_id, 0)
            self.next_step[match_id] = step + 1
            self.events.setdefault(match_id, []).extend(json.loads(raw) if isinstance(raw, str) else raw)

    def compare(self, match_id: str, seat: int | None, version: int, event: Any) -> None:
        stored = self.events.get(match_id, [])
        if version > len(stored):
            self.violations.append(f"{match_id} v{version}: received, but only {len(stored)} events stored")
        elif redact_json(stored[version - 1], seat) != event:
            self.violations.append(f"{match_id} v{version}: received {event}, stored {stored[version - 1]}")


def sqlite_checker(path: Path, log: StoredLog) -> Check:
    """A blocking sqlite3 read at receipt: nothing else runs on this event loop meanwhile."""
    conn = sqlite3.connect(path)

    async def check(match_id: str, seat: int | None, version: int, event: Any) -> None:
        rows = conn.execute(
            "SELECT step, events FROM steps WHERE match_id = ? AND step >= ? ORDER BY step",
            (match_id, log.next_step.get(match_id, 0)),
        ).fetchall()
        conn.rollback()  # end the read transaction: the next read sees later commits
        log.add(match_id, rows)
        log.compare(match_id, seat, version, event)

    return check


def engine_checker(engine: AsyncEngine, log: StoredLog) -> Check:
    """A read through a connection of its own, awaited before the client handles the event."""

    async def check(match_id: str, seat: int | None, version: int, event: Any) -> None:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text("SELECT step, events FROM steps WHERE match_id = :m AND step >= :s ORDER BY step"),
                    {"m": match_id, "s": log.next_step.get(match_id, 0)},
                )
            ).all()
        log.add(match_id, [(int(r[0]), r[1]) for r in rows])
        log.compare(match_id, seat, version, event)

    return check


class AcknowledgeBeforeStoring(SqlRepository):
    """BROKEN ON PURPOSE: ``append_step`` returns before its step is stored (it is stored when the
    next one comes), so the hub broadcasts steps the database does not have yet."""

    _held: StepRecord | None = None

    async def append_step(self, step: StepRecord) -> None:
        held, self._held = self._held, step
        if held is not None:
            await super().append_step(held)


@pytest_asyncio.fixture(params=("sqlite", "postgresql"))
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    async with fresh_database(request.param, request, tmp_path) as db:
        yield db


async def _play_checked(
    database: Database, repo: SqlRepository, *, prompts: int | None = None
) -> tuple[StoredLog, CheckingClient]:
    """Play a match (or its first ``prompts`` decisions) with every event checked at receipt."""
    log = StoredLog()
    reader = database.engine()
    path = sqlite_path(database.url)
    check = sqlite_checker(path, log) if path is not None else engine_checker(reader, log)
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
        seed_source=lambda: b"persistence-check",  # one fixed match (a random one may end early)
    )
    try:
        await hub.start()
        client = CheckingClient(hub.url, check)
        await client._open(client.auth)
        await client.join_queue("tenhou+bots")
        seen = 0

        def enough(message: ServerMessage) -> bool:
            nonlocal seen
            seen += isinstance(message, Prompt)
            return prompts is not None and seen > prompts

        end = await play(client, stop=enough)
        assert isinstance(end, MatchEnd) or prompts is not None
        await client.close()
    finally:
        await hub.shutdown()
        await repo.close()
        await reader.dispose()
    return log, client


@pytest.mark.asyncio
async def test_no_client_ever_receives_an_event_the_database_does_not_have(database: Database) -> None:
    log, client = await _play_checked(database, await database.open())
    assert log.violations == []
    assert client.events > 300  # a whole east-only match, every event checked at receipt


@pytest.mark.asyncio
async def test_the_check_catches_a_store_that_acknowledges_before_storing(database: Database) -> None:
    broken = await AcknowledgeBeforeStoring.open(database.url, search_path=database.search_path)
    log, _ = await _play_checked(database, broken, prompts=20)
    assert any("only" in v for v in log.violations), log.violations[:3]


# -- how jantaku opens its store ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_fresh_data_directory_gets_its_database_from_the_migrations(tmp_path: Path) -> None:
    data = tmp_path / "fresh"
    async with open_repository(data, None, commit_timeout_s=1.5) as repo:
        assert isinstance(repo, SqlRepository)
        assert repo.writer.commit_timeout_s == 1.5  # serve passes its commit timeout through
        assert await current_revision(repo.engine) == head_revision()
    assert (data / SQLITE_FILENAME).is_file()


@pytest.mark.asyncio
async def test_database_url_memory_keeps_everything_in_memory(tmp_path: Path) -> None:
    async with open_repository(tmp_path, "memory:") as repo:
        assert isinstance(repo, InMemoryRepository)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.asyncio
async def test_database_url_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "elsewhere.sqlite3"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{target}")
    async with open_repository(tmp_path / "data", None) as repo:
        assert isinstance(repo, SqlRepository)
    assert target.is_file() and not (tmp_path / "data").exists()


@pytest.mark.asyncio
async def test_an_old_accounts_file_is_imported_once(tmp_path: Path) -> None:
    legacy = InMemoryRepository(accounts_path=tmp_path / "accounts.json")  # what the old server kept
    auth = Authenticator(legacy, session_ttl_s=60)
    robo, robo_token = await auth.create_account("robo", AccountKind.BOT)
    await auth.create_account("alice", AccountKind.PLAYER)
    await auth.revoke("alice")

    async with open_repository(tmp_path, None) as repo:
        names = {a.name: a for a in await repo.list_accounts()}
        assert set(names) == {"robo", "alice"} and names["robo"].id == robo.id
        assert not names["alice"].active
        new_auth = Authenticator(repo, session_ttl_s=60)
        assert (await new_auth.account_for_bearer(robo_token)).id == robo.id  # the same token works
    assert not (tmp_path / "accounts.json").exists()
    assert (tmp_path / "accounts.json.imported").is_file()
    async with open_repository(tmp_path, None) as repo:  # once: nothing to import any more
        assert await import_accounts_file(repo, tmp_path / "accounts.json") == 0
        assert len(await repo.list_accounts()) == 2


@pytest.mark.asyncio
async def test_an_account_made_by_the_cli_plays_on_the_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``jantaku admin`` (its own event loop, in another thread here: another process in life) and
    the server share the database."""
    loop = asyncio.get_running_loop()
    assert (
        await loop.run_in_executor(None, main, ["admin", "create-bot", "robo", "--data-dir", str(tmp_path)])
        == 0
    )
    token = capsys.readouterr().out.strip().splitlines()[-1]
    async with open_repository(tmp_path, None) as repo:
        settings = HubSettings(port=0, limits=FAST_LIMITS, shutdown_grace_s=2.0)
        hub = Hub(settings, repo, clock=ManualClock(), rulesets={"tenhou": EAST})
        await hub.start()
        try:
            client = await Client.connect(hub.url, TokenAuth(token=token))
            assert client.welcome is not None and client.welcome.player.name == "robo"
            await client.close()
        finally:
            await hub.shutdown()
