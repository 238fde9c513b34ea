"""The benchmark hook of the hub (``server/hub/stats.py``): with ``JANTAKU_HUB_STATS=1`` every
applied action of a ``/ws`` client is timed and ``GET /stats`` reports it; without it, nothing."""

from __future__ import annotations

import json

import pytest

from server.hub.stats import ENV
from tests.hub.netkit import connect_client, http_get, play, serving


@pytest.mark.asyncio
async def test_stats_count_and_time_every_applied_action(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "1")
    async with serving() as hub:
        client = await connect_client(hub, "timed")
        await client.join_queue("tenhou+bots")
        await play(client)
        status, body = await http_get(hub, "/stats?reset=1")
        assert status == 200
        stats = json.loads(body)
        assert stats["actions"] > 20 and stats["connections"] == 1
        assert 0 < stats["p50_ms"] <= stats["p99_ms"] <= stats["max_ms"]
        status, body = await http_get(hub, "/stats")
        assert json.loads(body)["actions"] == 0  # a new window
        await client.close()


@pytest.mark.asyncio
async def test_no_stats_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    async with serving() as hub:
        assert hub.stats is None
        status, _ = await http_get(hub, "/stats")
        assert status == 404
