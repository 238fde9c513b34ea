"""Helpers for the mjai tests: a hub with a fixed seed, raw /mjai clients, the mjai leak scanner, and
the lines a seat should have received (the offline per-seat export of the table's omniscient log)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.domain.records import AccountKind
from server.engine import hand as analysis
from server.engine.rules import Ruleset
from server.engine.tiles import kind
from server.hub.server import Hub, running_hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.hub.table import TableActor
from server.records.export_mjai import MJAI_EVENT_TYPES, export_mjai
from server.records.tiles import face_from_mjai
from server.store.memory import InMemoryRepository
from tests.hub.helpers import EAST
from tests.hub.netkit import FAST_LIMITS, KeepOrder

TSUMOGIRI_BOT = Path(__file__).with_name("mjai_tsumogiri.py")


@contextlib.asynccontextmanager
async def mjai_hub(
    *,
    timers: TableTimers | None = None,
    seed: bytes | None = None,
    fill_after_s: float = 60.0,
    repo: InMemoryRepository | None = None,
    rulesets: dict[str, Ruleset] | None = None,
) -> AsyncIterator[Hub]:
    """A hub on a free localhost port, east-only 'tenhou', seats in the order players came, with
    ranked play on its store (``repo``, a new in-memory one by default)."""
    settings = HubSettings(
        port=0,
        timers=timers or TableTimers(),
        limits=FAST_LIMITS,
        spectate=SpectatePolicy(delay_s=0.0),
        bot_fill_after_s=fill_after_s,
        shutdown_grace_s=2.0,
    )
    options: dict[str, Any] = {"rulesets": rulesets or {"tenhou": EAST}, "rng": KeepOrder()}
    if seed is not None:
        options["seed_source"] = lambda: seed
    async with asyncio.timeout(60):
        store = repo if repo is not None else InMemoryRepository()
        async with running_hub(settings, store, ratings=store, **options) as hub:
            yield hub


async def bot_token(hub: Hub, name: str) -> str:
    _, token = await hub.auth.create_account(name, AccountKind.BOT)
    return token


def mjai_url(hub: Hub) -> str:
    return f"ws://127.0.0.1:{hub.port}/mjai"


async def expected_lines(table: TableActor, seat: int) -> list[dict[str, Any]]:
    """What seat ``seat`` must have been sent: the offline mjai export of the table's omniscient log
    for that viewer, with the seat as ``id`` in start_game."""
    names = [s.name for s in table.seats]
    exported = export_mjai(await table.history(), names=names, viewer=seat)
    lines = [json.loads(line) for line in exported.splitlines()]
    lines[0] = {"type": "start_game", "id": seat, **lines[0]}
    return lines


def scan(line: dict[str, Any], seat: int) -> None:
    """Raise AssertionError when ``line`` shows ``seat`` something it may not see."""
    type_ = line.get("type")
    if type_ == "start_kyoku":
        for s, tiles in enumerate(line["tehais"]):
            hidden = all(t == "?" for t in tiles)
            assert hidden == (s != seat), f"start_kyoku shows seat {s}'s hand to seat {seat}: {tiles}"
    elif type_ == "tsumo":
        assert (line["pai"] == "?") == (line["actor"] != seat), f"tsumo leak to seat {seat}: {line}"
    elif type_ == "request":
        for action in line["possible_actions"]:
            assert action.get("actor", seat) == seat, f"a request names another seat: {line}"
    text = json.dumps(line)
    for secret in ("wall", "salt", "seed"):
        assert f'"{secret}' not in text, f"{secret} in {line}"


class MjaiClient:
    """A bare /mjai websocket: every message it receives is scanned for leaks."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.match_id: str | None = None
        self.events: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, hub: Hub, token: str | None, **hello: Any) -> MjaiClient:
        client = cls(await connect(mjai_url(hub), compression=None, max_size=2**22))
        if token is not None:
            await client.send({"type": "hello", "token": token, **hello})
        return client

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def recv(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await self.ws.recv())
        self.messages.append(message)
        kind = message["type"]
        if kind == "seated":
            self.seat, self.match_id = message["seat"], message["match_id"]
        if self.seat is not None:
            scan(message, self.seat)
        if kind in MJAI_EVENT_TYPES:
            assert self.seat is not None, f"{kind} before seated"
            self.events.append(message)
        elif kind == "events":  # the game so far after a resume: many lines in one frame
            assert self.seat is not None, "events before seated"
            for line in message["events"]:
                scan(line, self.seat)
                assert line["type"] in MJAI_EVENT_TYPES, line
                self.events.append(line)
        elif kind == "error":
            self.errors.append(message)
        return message

    async def until(self, kind: str) -> dict[str, Any]:
        while True:
            message = await self.recv()
            if message["type"] == kind:
                return message

    async def until_closed(self) -> int | None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.recv()
        return self.ws.close_code

    async def close(self) -> None:
        await self.ws.close()


class HandTracker:
    """One seat's concealed tiles (34 kinds), followed from its mjai events."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.counts = [0] * 34

    def see(self, e: dict[str, Any]) -> None:
        type_, mine = e["type"], e.get("actor") == self.seat
        if type_ == "start_kyoku":
            self.counts = [0] * 34
            for pai in e["tehais"][self.seat]:
                self._add(pai, 1)
        elif mine and type_ == "tsumo":
            self._add(e["pai"], 1)
        elif mine and type_ == "dahai":
            self._add(e["pai"], -1)
        elif mine and type_ in ("chi", "pon", "daiminkan", "ankan"):
            for pai in e["consumed"]:
                self._add(pai, -1)
        elif mine and type_ == "kakan":
            self._add(e["pai"], -1)

    def _add(self, pai: str, n: int) -> None:
        face = face_from_mjai(pai)
        assert face is not None, pai
        self.counts[kind(face)] += n

    def shanten_after(self, pai: str) -> int:
        counts = list(self.counts)
        face = face_from_mjai(pai)
        assert face is not None
        counts[kind(face)] -= 1
        closed = sum(counts)
        if closed % 3 != 1:
            return 9
        return analysis.shanten(counts)


def choose(request: dict[str, Any], hand: HandTracker, rng: random.Random) -> dict[str, Any]:
    """A fair player choosing among the request's possible actions: win, riichi, sometimes call,
    else the discard that keeps the hand closest to ready."""
    possible: list[dict[str, Any]] = request["possible_actions"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for a in possible:
        by_type.setdefault(a["type"], []).append(a)
    for wanted in ("hora", "reach"):
        if wanted in by_type:
            return by_type[wanted][0]
    if "ryukyoku" in by_type and rng.random() < 0.5:
        return by_type["ryukyoku"][0]
    calls = [a for t in ("chi", "pon", "daiminkan", "ankan", "kakan") for a in by_type.get(t, [])]
    if calls and rng.random() < 0.3:
        return rng.choice(calls)
    if "none" in by_type:
        return by_type["none"][0]
    discards = by_type["dahai"]
    best = min(hand.shanten_after(a["pai"]) for a in discards)
    return rng.choice([a for a in discards if hand.shanten_after(a["pai"]) == best])
