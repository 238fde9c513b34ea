"""The crash loop: a real ``jantaku serve`` process with several live tables is SIGKILLed at random
moments and restarted, again and again. In the end every match has finished, every event any client
received is in the database, and every stored match replays exactly from its seed.

Tables: two players alone against three built-in bots, two players together with two bots, and
two tables whose only player left at once (its seat is played by the server). The players are
``client_protocol.Client``s that log every event they receive, answer prompts with seeded random
legal actions and reconnect (with their session token) whenever the server goes away. Each kill
comes once the players have received a seeded random number of further events (the test waits on
their progress, not on time); waits on the subprocess itself are bounded polls.

On SQLite (the default data directory) always; on PostgreSQL (a database of its own, dropped
afterwards) when it is reachable; skipped with the reason otherwise, failed under ``CI=true``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec
import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from client_protocol.client import Client
from client_protocol.errors import ConnectionLostError, ErrorCode, RequestRejectedError
from client_protocol.messages import (
    ErrorMessage,
    EventMessage,
    GuestAuth,
    MatchEnd,
    Prompt,
    Seated,
    ServerMessage,
)
from server.domain.records import MatchStatus, StepRecord
from server.engine import apply as engine_apply
from server.engine import new_match
from server.engine.actions import action_from_dict
from server.engine.events import Event
from server.engine.rules import Ruleset
from server.engine.views import redact
from server.eventlog.codec import encode_event as event_json
from server.store.db import sqlite_url
from server.store.repository import SqlRepository
from tests.store.conftest import in_ci, postgres_url

ROOT = Path(__file__).resolve().parents[2]
SEED = 20261122
EAST_RULES = json.dumps({"game_length": "east"})


def _plain(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the server process --------------------------------------------------------------------------------


class ServerProcess:
    """``jantaku serve`` on a fixed port; its output goes to ``log``."""

    def __init__(self, data_dir: Path, database_url: str | None, port: int, log: Path) -> None:
        self.data_dir = data_dir
        self.database_url = database_url
        self.port = port
        self.log = log
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def start(self) -> None:
        args = [
            sys.executable,
            "-m",
            "server.app",
            "serve",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--bot-delay-ms",
            "4",
            "--disconnect-grace-ms",
            "4",
            "--hand-pause-ms",
            "0",
            "--log-level",
            "INFO",
        ]
        if self.database_url is not None:
            args += ["--database-url", self.database_url]
        with self.log.open("ab") as out:
            out.write(f"---- start {self.starts} ----\n".encode())
            out.flush()
            self.proc = await asyncio.create_subprocess_exec(
                *args, cwd=ROOT, stdout=out, stderr=asyncio.subprocess.STDOUT
            )
        self.starts += 1
        await self._wait_ready(timeout=30.0)

    async def _wait_ready(self, timeout: float) -> None:
        """Poll /healthz (bounded): the server listens only once its matches are recovered."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            if self.proc.returncode is not None:
                raise AssertionError(f"the server exited ({self.proc.returncode}); see {self.log}")
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = await reader.read()
                writer.close()
                if answer.startswith(b"HTTP/1.1 200"):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the server did not come up within {timeout} s; see {self.log}")
            await asyncio.sleep(0.05)

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def stop(self) -> int:
        """SIGTERM (graceful), bounded; SIGKILL if it does not stop."""
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(20):
                    await self.proc.wait()
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        assert self.proc.returncode is not None
        return self.proc.returncode


# -- the players ---------------------------------------------------------------------------------------


class Progress:
    """How many events all the players have received; :meth:`reached` waits for a count."""

    def __init__(self) -> None:
        self.events = 0
        self._changed = asyncio.Condition()

    async def tick(self) -> None:
        async with self._changed:
            self.events += 1
            self._changed.notify_all()

    async def reached(self, count: int) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self.events >= count)


class LoggingClient(Client):
    """The library client, logging every event it receives: (match, seat, version, event)."""

    def __init__(self, *args: Any, progress: Progress | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[tuple[str, int | None, int, Any]] = []
        self._progress = progress

    async def _dispatch(self, message: ServerMessage) -> None:
        if isinstance(message, EventMessage):
            self.received.append((message.match_id, self.seat, message.version, _plain(message.event)))
            if self._progress is not None:
                await self._progress.tick()
        await super()._dispatch(message)


@dataclass
class Player:
    name: str
    client: LoggingClient
    rng: random.Random
    match_id: str | None = None
    end: MatchEnd | None = None
    gone: bool = False  # its match was over when it came back (not live any more after a restart)
    reconnects: int = 0
    acts: int = 0
    log: list[str] = field(default_factory=list)


async def http_get(port: int, path: str, token: str) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        "Connection: close\r\n\r\n"
    )
    writer.write(request.encode())
    data = await reader.read()
    writer.close()
    head, _, body = data.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 200"), data
    answer: dict[str, Any] = json.loads(body)
    return answer


async def open_private(server: ServerProcess, client: Client, bots: int) -> str:
    assert client.welcome is not None
    query = f"preset=tenhou&bots={bots}&rules={quote(EAST_RULES)}"
    answer = await http_get(server.port, f"/private/new?{query}", client.welcome.session_token)
    code: str = answer["code"]
    return code


async def until_seated(client: Client) -> Seated:
    async with asyncio.timeout(20):
        async for message in client:
            if isinstance(message, Seated):
                return message
    raise AssertionError("not seated")


async def reconnect(player: Player, server: ServerProcess, deadline: float) -> None:
    """Reconnect (session token) until the server is back; bounded by ``deadline``."""
    while True:
        try:
            await player.client.reconnect()
            player.reconnects += 1
            return
        except ConnectionLostError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def drive(player: Player, server: ServerProcess, deadline: float) -> None:
    """Play the match to its end through any number of server restarts."""
    client = player.client
    while True:
        try:
            async for message in client:
                if isinstance(message, Prompt) and message.match_id == player.match_id:
                    action = player.rng.choice(message.legal_actions)
                    try:
                        await client.act(action, step=message.step, timeout=15)
                        player.acts += 1
                    except RequestRejectedError as exc:  # overtaken by a timeout or a restart
                        player.log.append(f"act refused: {exc.code.value}")
                elif isinstance(message, MatchEnd) and message.match_id == player.match_id:
                    player.end = message
                    await client.close()
                    return
                elif (
                    isinstance(message, ErrorMessage)
                    and message.code is ErrorCode.NOT_FOUND
                    and player.match_id is not None
                    and player.match_id in message.message
                ):
                    # The match ended while this player was away and the server restarted since:
                    # it is no longer live. The database says how it ended (checked below).
                    player.gone = True
                    await client.close()
                    return
        except ConnectionLostError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{player.name}: the match did not end in time")
        await reconnect(player, server, deadline)


# -- the loop ------------------------------------------------------------------------------------------


@dataclass
class CrashReport:
    kills: int
    running_at_kill: list[int]
    players: list[Player]
    match_ids: list[str]


async def _running_matches(db_url: str) -> int:
    repo = await SqlRepository.open(db_url, migrate=False)
    try:
        return len(await repo.unfinished_matches())
    finally:
        await repo.close()


async def crash_loop(
    tmp_path: Path, database_url: str | None, *, kills: int, timeout: float = 90.0
) -> CrashReport:
    rng = random.Random(SEED)
    server = ServerProcess(tmp_path / "data", database_url, _free_port(), tmp_path / "server.log")
    db_url = database_url or sqlite_url(tmp_path / "data" / "jantaku.sqlite3")
    deadline = time.monotonic() + timeout
    await server.start()  # a fresh data directory: the database is created by the migrations
    players: list[Player] = []
    drivers: list[asyncio.Task[None]] = []
    progress = Progress()
    try:

        async def player(name: str) -> Player:
            client = LoggingClient(server.url, GuestAuth(name=name), timeout=10.0, progress=progress)
            await client._open(client.auth)
            p = Player(name, client, random.Random(f"{SEED}-{name}"))
            players.append(p)
            return p

        # Two players alone with three bots, two players together with two bots.
        for name in ("alice", "bob"):
            p = await player(name)
            await p.client.join_private(await open_private(server, p.client, bots=3))
            p.match_id = (await until_seated(p.client)).match_id
        carol, dave = await player("carol"), await player("dave")
        code = await open_private(server, carol.client, bots=2)
        await carol.client.join_private(code)
        await dave.client.join_private(code)
        for p in (carol, dave):
            p.match_id = (await until_seated(p.client)).match_id
        # Two tables whose player leaves at once: the server plays that seat after the grace.
        ghost_matches = []
        for name in ("ghost1", "ghost2"):
            ghost = LoggingClient(server.url, GuestAuth(name=name), timeout=10.0)
            await ghost._open(ghost.auth)
            await ghost.join_private(await open_private(server, ghost, bots=3))
            ghost_matches.append((await until_seated(ghost)).match_id)
            await ghost.close()
        match_ids = sorted({p.match_id for p in players if p.match_id} | set(ghost_matches))
        assert len(match_ids) == 5

        drivers += [asyncio.create_task(drive(p, server, deadline)) for p in players]
        running_at_kill = []
        all_done = asyncio.ensure_future(asyncio.wait(drivers))
        for _ in range(kills):
            # Kill once the players got some more of their matches (a seeded random amount), or
            # when nothing more can come (every player's match is over).
            more = asyncio.ensure_future(progress.reached(progress.events + rng.randint(20, 160)))
            async with asyncio.timeout(max(1.0, deadline - time.monotonic())):
                await asyncio.wait({more, all_done}, return_when=asyncio.FIRST_COMPLETED)
            more.cancel()
            await server.kill()
            running_at_kill.append(await _running_matches(db_url))
            await server.start()
        async with asyncio.timeout(max(1.0, deadline - time.monotonic())):
            await asyncio.gather(*drivers)
            while await _running_matches(db_url):  # the ghost tables finish on their own
                await asyncio.sleep(0.1)
    finally:
        for task in drivers:
            task.cancel()
        await asyncio.gather(*drivers, return_exceptions=True)
        for p in players:
            await p.client.close()
        exit_code = await server.stop()
    assert exit_code == 0, f"the server did not stop cleanly; see {server.log}"
    log_text = server.log.read_text(errors="replace")
    assert "DIVERGED" not in log_text and "Traceback" not in log_text, log_text[-5000:]
    return CrashReport(kills, running_at_kill, players, match_ids)


def rederive(ruleset_json: str, seed: bytes, steps: Sequence[StepRecord]) -> list[Event]:
    """The match's events re-derived with the engine alone from the seed and the stored actions,
    each step's equal to the stored ones (the stored match replays exactly)."""
    t = new_match(Ruleset.from_json(ruleset_json), seed)
    assert steps[0].action is None and _plain([event_json(e) for e in t.events]) == list(steps[0].events)
    events = list(t.events)
    for record in steps[1:]:
        assert record.seat is not None
        t = engine_apply(t.state, record.seat, action_from_dict(record.action))
        assert t.step == record.step
        assert _plain([event_json(e) for e in t.events]) == list(record.events), record.step
        events.extend(t.events)
    assert t.state.finished
    return events


async def verify_store(db_url: str, report: CrashReport) -> int:
    """Every match completed and replays exactly; every event a client received is stored, equal
    (redacted for that client) to the replay. Returns the number of received events checked."""
    repo = await SqlRepository.open(db_url, migrate=False)
    checked = 0
    try:
        replayed: dict[str, list[Event]] = {}
        for match_id in report.match_ids:
            match = await repo.get_match(match_id)
            assert match is not None
            assert match.status is MatchStatus.COMPLETED, (match_id, match.status, match.status_reason)
            assert match.seed_hex is not None  # revealed at the end
            steps = await repo.steps(match_id)
            replayed[match_id] = rederive(match.ruleset_json, bytes.fromhex(match.seed_hex), steps)
            result = await repo.get_result(match_id)
            assert result is not None
        for p in report.players:
            assert p.end is not None or p.gone, p.name
            if p.end is not None:
                assert p.end.result is not None, f"{p.name}'s match was aborted"
                stored = await repo.get_result(p.end.match_id)
                assert stored is not None and tuple(p.end.result.scores) == stored.scores
            for match_id, seat, version, event in p.client.received:
                events = replayed[match_id]
                assert 1 <= version <= len(events), (p.name, match_id, version, len(events))
                expected = _plain(event_json(redact(events[version - 1], seat)))
                assert event == expected, (p.name, match_id, version, event, expected)
                checked += 1
    finally:
        await repo.close()
    return checked


# -- the tests -----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_crash_loop_on_sqlite(tmp_path: Path) -> None:
    report = await crash_loop(tmp_path, None, kills=6)
    assert any(report.running_at_kill), "no kill hit a live match"
    assert all(p.reconnects >= 1 for p in report.players if p.end is not None)
    checked = await verify_store(sqlite_url(tmp_path / "data" / "jantaku.sqlite3"), report)
    assert checked > 500


@asynccontextmanager
async def postgres_database() -> AsyncIterator[str]:
    """A database of its own on the test PostgreSQL server (the subprocess cannot take a schema)."""
    url = postgres_url()
    admin = create_async_engine(url, isolation_level="AUTOCOMMIT", connect_args={"timeout": 5})
    name = f"jt_crash_{os.getpid()}_{secrets.token_hex(3)}"
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        await admin.dispose()
        reason = f"PostgreSQL at {url} is unreachable ({type(exc).__name__}: {exc})"
        if in_ci():
            pytest.fail(f"{reason}; CI=true requires it", pytrace=False)
        pytest.skip(f"{reason}; set JANTAKU_TEST_POSTGRES_URL to test it")
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


@pytest.mark.asyncio
async def test_crash_loop_on_postgresql(tmp_path: Path) -> None:
    async with postgres_database() as url:
        report = await crash_loop(tmp_path, url, kills=3)
        assert any(report.running_at_kill), "no kill hit a live match"
        assert await verify_store(url, report) > 300
