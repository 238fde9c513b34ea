"""Table control across nodes (server/cluster/control.py) on a real Redis: a request reaches the
node that runs the table and is answered; a node that does not run it answers ``absent`` and the
asker looks again (done if the match is over); nobody answering is no answer (the factory's
``busy``); a malformed request is dropped without an answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from server.cluster import control
from server.cluster.control import ControlDesk
from server.cluster.settings import ClusterSettings


class Host:
    def __init__(self, runs: set[str]) -> None:
        self.runs = runs
        self.done: list[tuple[str, str, str]] = []

    async def control_table(self, match_id: str, action: str, reason: str) -> bool:
        if match_id not in self.runs:
            return False
        self.done.append((match_id, action, reason))
        return True


def desk(url: str, prefix: str, node: str) -> ControlDesk:
    return ControlDesk(ClusterSettings(redis_url=url, node_id=node, key_prefix=prefix))


@pytest.mark.asyncio
async def test_a_request_is_done_by_the_owner_and_nobody_else(
    redis_server: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "ANSWER_S", 1.0)
    monkeypatch.setattr(control, "RELAY_PAUSE_S", 0.05)
    a, b = desk(redis_server, redis_prefix, "a"), desk(redis_server, redis_prefix, "b")
    host_b = Host({"m-1"})
    b.start(host_b)
    a.start(Host(set()))
    running = {"m-1": True, "m-2": True}

    async def owner_b() -> str | None:
        return "b"

    def still(match_id: str) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            return running[match_id]

        return check

    try:
        assert await a.relay("m-1", "pause", "a dispute", owner=owner_b, running=still("m-1"))
        assert await a.relay("m-1", "end", "closing", owner=owner_b, running=still("m-1"))
        assert host_b.done == [("m-1", "pause", "a dispute"), ("m-1", "end", "closing")]
        # b does not run m-2: absent, asked again while it runs, then it is over (nothing to do)
        assert not await a.relay("m-2", "pause", "", owner=owner_b, running=still("m-2"))
        running["m-2"] = False
        assert await a.relay("m-2", "pause", "", owner=owner_b, running=still("m-2"))

        async def owner_gone() -> str | None:
            return "c"  # a node that died: nobody takes its requests

        assert not await a.relay("m-1", "unpause", "", owner=owner_gone, running=still("m-1"))
        assert host_b.done[-1][1] == "end" and b.served == 2
        # a malformed request is dropped, and the desk goes on serving
        await b.redis.rpush(
            f"{redis_prefix}:control:b",
            "not json",
            json.dumps({"id": "x", "match": "m-1", "action": "explode"}),
        )
        assert await a.ask("b", "m-1", "unpause", "") == "done"
        assert host_b.done[-1] == ("m-1", "unpause", "")
        with pytest.raises(ValueError):
            await a.ask("b", "m-1", "explode", "")
    finally:
        await asyncio.gather(a.stop(), b.stop())
