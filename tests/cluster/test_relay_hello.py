"""A relayed connection carries every field of the client's ``hello``: a browser (``hints``, a
``client`` name) whose table runs on another node gets its hints there too, and the owner node
logs the client's name, not an anonymous hello rebuilt from the protocol version and a token."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from client_protocol.client import Client
from client_protocol.messages import GuestAuth, Prompt
from server.cluster.node import ClusterNode
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.store.repository import SqlRepository
from tests.cluster.test_node import cluster
from tests.hub.helpers import EAST
from tests.hub.netkit import FAST_LIMITS
from tests.store.conftest import Database, fresh_database

BROWSER = "jantaku-web-test/1"


@asynccontextmanager
async def reachable_node(
    database: Database, redis_url: str, prefix: str, node_id: str
) -> AsyncIterator[tuple[Hub, ClusterNode]]:
    """A hub on the shared database whose node advertises its own URL (so others relay to it)."""
    repo = await SqlRepository.open(database.url, search_path=database.search_path, owner=node_id)
    node = ClusterNode(cluster(redis_url, prefix, node_id), repo)
    settings = HubSettings(
        port=0,
        timers=TableTimers(action_ms=60_000, bank_ms=0, bot_delay_ms=0),
        limits=FAST_LIMITS,
        spectate=SpectatePolicy(delay_s=0.0),
        shutdown_grace_s=1.0,
    )
    hub = Hub(settings, repo, rulesets={"tenhou": EAST}, placement=node)
    try:
        await hub.start()
        url = f"ws://127.0.0.1:{hub.port}"
        node.settings = dataclasses.replace(node.settings, advertise_url=url, handover_s=0.2)
        await node.start(hub)
        yield hub, node
    finally:
        await hub.shutdown()
        await node.stop()
        await repo.close()


async def _prompt(client: Client) -> Prompt:
    async for message in client:
        if isinstance(message, Prompt):
            return message
    raise AssertionError("the connection ended before a prompt")


@pytest.mark.asyncio
async def test_a_browser_relayed_to_the_owner_keeps_its_hints(
    redis_server: str,
    redis_prefix: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="server.hub.session")
    async with (
        fresh_database("postgresql", request, tmp_path) as database,
        reachable_node(database, redis_server, redis_prefix, "a") as (hub_a, _),
        reachable_node(database, redis_server, redis_prefix, "b") as (hub_b, node_b),
    ):
        await node_b.heartbeat()  # b's registry entry (its URL) is there for a to read
        browser = Client(
            f"ws://127.0.0.1:{hub_b.port}/ws", GuestAuth(name="web"), client_name=BROWSER, hints=True
        )
        await browser._open(browser.auth)
        try:
            await browser.join_queue("tenhou+bots")
            first = await _prompt(browser)
            assert first.hints is not None  # on its own node
            assert browser.match_id is not None and browser.match_id in hub_b.lobby.tables
            browser.url = f"ws://127.0.0.1:{hub_a.port}/ws"  # the next connection lands on node a
            welcome = await browser.reconnect()
            assert [s.match_id for s in welcome.seats] == [browser.match_id]  # b's welcome, relayed
            assert not hub_a.lobby.tables
            again = await _prompt(browser)
            assert again.hints is not None  # the owner knows the client asked for hints
        finally:
            await browser.close()
    hellos = [r.getMessage() for r in caplog.records if "hello from" in r.getMessage()]
    assert sum(BROWSER in h for h in hellos) == 2, hellos  # b's own, then b's relayed from a
