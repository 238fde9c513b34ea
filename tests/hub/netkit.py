"""Helpers for the tests over real localhost websockets: a test hub, raw clients, HTTP GETs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from client_protocol.client import Client
from client_protocol.codec import decode_server
from client_protocol.errors import RequestRejectedError
from client_protocol.messages import (
    Action,
    Auth,
    EventMessage,
    GuestAuth,
    MatchEnd,
    Prompt,
    Seated,
    ServerMessage,
    Snapshot,
)
from server.engine.rules import Ruleset
from server.hub.server import Hub, running_hub
from server.hub.settings import ConnectionLimits, HubSettings, SpectatePolicy, TableTimers
from server.store.memory import InMemoryRepository
from server.web.api import create_app
from server.web.api.gameport import attach_hub
from tests.hub.helpers import EAST, LeakError, LeakScanner, ScannedClient

M = TypeVar("M", bound=ServerMessage)

FAST_LIMITS = ConnectionLimits(close_timeout_s=0.5, hello_timeout_s=5.0)


class KeepOrder(random.Random):
    """Seat the players in the order they came (the first is the dealer)."""

    def shuffle(self, x: Any) -> None:
        return None


def after_prompts(n: int) -> Callable[[ServerMessage], bool]:
    """A stop condition for :func:`play`: true at the message after the ``n``-th prompt."""
    seen = 0

    def stop(message: ServerMessage) -> bool:
        nonlocal seen
        if isinstance(message, Prompt):
            seen += 1
        return seen > n

    return stop


@contextlib.asynccontextmanager
async def serving(
    *,
    timers: TableTimers | None = None,
    limits: ConnectionLimits | None = None,
    keep_order: bool = False,
    rulesets: Mapping[str, Ruleset] | None = None,
    **settings: Any,
) -> AsyncIterator[Hub]:
    """A hub on a free localhost port with an east-only 'tenhou' (or ``rulesets``) and short
    shutdown timeouts, answering its HTTP routes with the one HTTP application (``server.web.api``)."""
    options: dict[str, Any] = {
        "port": 0,
        "timers": timers or TableTimers(),
        "limits": limits or FAST_LIMITS,
        "spectate": SpectatePolicy(delay_s=0.0),
        "bot_fill_after_s": 60.0,
        "shutdown_grace_s": 2.0,
    }
    options.update(settings)
    async with asyncio.timeout(30):
        repo = InMemoryRepository()
        app = create_app(repo)
        async with running_hub(
            HubSettings(**options),
            repo,
            rulesets=rulesets if rulesets is not None else {"tenhou": EAST},
            rng=KeepOrder() if keep_order else None,
            http_app=app,
        ) as hub:
            attach_hub(app, hub)
            yield hub


async def connect_client(hub: Hub, name: str = "alice", auth: Auth | None = None) -> ScannedClient:
    client = ScannedClient(hub.url, auth or GuestAuth(name=name), timeout=10.0)
    await client._open(client.auth)
    return client


async def play(
    client: Client,
    choose: Callable[[Prompt], Action] = lambda p: p.legal_actions[0],
    *,
    stop: Callable[[ServerMessage], bool] | None = None,
) -> ServerMessage:
    """Answer every prompt until ``stop`` says so, or until match_end; returns that message."""
    async for message in client:
        if stop is not None and stop(message):
            return message
        if isinstance(message, Prompt):
            try:
                await client.act(choose(message), step=message.step)
            except RequestRejectedError as exc:  # a decision overtaken by a timeout: the next prompt follows
                assert exc.code.value == "stale_step", exc
        elif isinstance(message, MatchEnd):
            return message
    raise AssertionError("the client stopped before the match ended")


async def next_of(client: Client, kind: type[M]) -> M:
    async for message in client:
        if isinstance(message, kind):
            return message
    raise AssertionError(f"no {kind.__name__}")


class Raw:
    """A bare websocket speaking JSON by hand (for what the library client would never send)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.scanner: LeakScanner | None = None
        self.leaks: list[LeakError] = []

    @classmethod
    async def open(cls, hub: Hub, *, hello: dict[str, Any] | None = None, **options: Any) -> Raw:
        raw = cls(await connect(hub.url, compression=None, max_size=2**20, **options))
        if hello is not None:
            await raw.send(hello)
        return raw

    @classmethod
    async def guest(cls, hub: Hub, name: str = "raw", **options: Any) -> tuple[Raw, dict[str, Any]]:
        raw = await cls.open(
            hub, hello={"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": name}}, **options
        )
        welcome = await raw.recv_json()
        assert welcome["type"] == "welcome", welcome
        return raw, welcome

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        data = json.dumps(message) if isinstance(message, dict) else message
        await self.ws.send(data)

    async def recv(self) -> ServerMessage:
        message = decode_server(await self.ws.recv())
        if isinstance(message, Seated):
            self.scanner = LeakScanner(message.seat)
        if self.scanner is not None:
            try:
                self.scanner.scan(message)
            except LeakError as exc:
                self.leaks.append(exc)
        elif isinstance(message, EventMessage | Prompt | Snapshot):
            self.leaks.append(LeakError(f"{type(message).__name__} before seated"))
        return message

    async def recv_json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(await self.ws.recv())
        return data

    async def expect(self, kind: type[M]) -> M:
        while True:
            message = await self.recv()
            if isinstance(message, kind):
                return message

    async def until_closed(self) -> tuple[int | None, int]:
        """Read until the server closes; returns (close code, messages read)."""
        n = 0
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.ws.recv()
                n += 1
        return self.ws.close_code, n

    async def close(self) -> None:
        await self.ws.close()


def small_buffer_socket(hub: Hub) -> socket.socket:
    """A connected TCP socket with a tiny receive buffer (to stall quickly when not reading)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.connect(("127.0.0.1", hub.port))
    sock.setblocking(False)
    return sock


async def http_get(hub: Hub, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", hub.port)
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{hub.port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.decode().partition("\r\n\r\n")
    return int(head.split()[1]), body
