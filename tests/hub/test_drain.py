"""The drain window before a shutdown (issue 12, operators): ``/readyz`` answers 503 for
``drain_s`` after SIGTERM while the hub goes on serving, so a load balancer moves traffic first."""

from __future__ import annotations

import asyncio
import json

import pytest

from client_protocol.messages import Seated
from server.hub.server import Hub
from server.hub.settings import HubSettings, SettingsError
from tests.hub.netkit import connect_client, http_get, play, serving


async def readyz(hub: Hub) -> tuple[int, object]:
    status, body = await http_get(hub, "/readyz")
    return status, json.loads(body)


@pytest.mark.asyncio
async def test_readyz_answers_503_while_draining_and_everything_else_goes_on() -> None:
    async with serving() as hub:
        assert await http_get(hub, "/readyz") == (200, "ready\n")
        alice = await connect_client(hub)
        stop = asyncio.Event()
        drain = asyncio.create_task(hub.drain(60.0, interrupt=stop))
        await asyncio.sleep(0)
        assert await readyz(hub) == (503, {"error": {"code": "unavailable", "message": "draining"}})
        assert await http_get(hub, "/healthz") == (200, "ok\n")
        await alice.join_queue("tenhou+bots")  # games go on: a new one even starts
        assert isinstance(await play(alice, stop=lambda m: isinstance(m, Seated)), Seated)
        bob = await connect_client(hub, "bob")  # and connections are still accepted
        assert bob.welcome is not None
        assert not drain.done()
        stop.set()  # a second signal ends the window early
        async with asyncio.timeout(5):
            await drain
        assert (await readyz(hub))[0] == 503  # the shutdown follows
        await alice.close()
        await bob.close()


@pytest.mark.asyncio
async def test_a_drain_window_of_zero_is_no_window() -> None:
    async with serving() as hub:
        await hub.drain(0.0)
        assert await http_get(hub, "/readyz") == (200, "ready\n")
    with pytest.raises(SettingsError, match="drain_s"):
        HubSettings(drain_s=-1.0)
