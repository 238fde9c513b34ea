"""The social bus (server/cluster/socialbus.py): in one process, and across nodes on real Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis.asyncio import Redis

from server.cluster.socialbus import RedisBus
from server.domain.socialbus import Handler, Payload
from server.hub.socialbus import LocalBus
from tests.cluster.conftest import eventually

pytestmark = pytest.mark.asyncio


async def test_local_bus_calls_the_handlers_of_the_topic_only() -> None:
    bus = LocalBus()
    got: list[tuple[str, Any]] = []
    stop = bus.subscribe("lobby:general", lambda t, p: got.append((t, dict(p))))
    bus.subscribe("lobby:other", lambda t, p: got.append(("other", dict(p))))
    await bus.publish("lobby:general", {"text": "hi"})
    assert got == [("lobby:general", {"text": "hi"})]
    stop()
    await bus.publish("lobby:general", {"text": "again"})
    assert len(got) == 1


async def test_a_bad_payload_is_refused_and_delivers_nothing() -> None:
    bus = LocalBus()
    got: list[object] = []
    bus.subscribe("t", lambda t, p: got.append(p))
    with pytest.raises(ValueError):
        await bus.publish("t", {"x": object()})
    with pytest.raises(ValueError):
        await bus.publish("t", {"x": "a" * 20000})
    with pytest.raises(ValueError):
        await bus.publish("t", ["not", "an", "object"])  # type: ignore[arg-type]
    assert got == []


async def test_a_broken_handler_does_not_stop_the_others() -> None:
    bus = LocalBus()
    got: list[object] = []

    def broken(topic: str, payload: object) -> None:
        raise RuntimeError("boom")

    bus.subscribe("t", broken)
    bus.subscribe("t", lambda t, p: got.append(p))
    await bus.publish("t", {"n": 1})
    assert got == [{"n": 1}]


def _collect(out: list[tuple[str, dict[str, Any]]]) -> Handler:
    def handler(topic: str, payload: Payload) -> None:
        out.append((topic, dict(payload)))

    return handler


def _client(url: str) -> Redis:
    client: Redis = Redis.from_url(url, decode_responses=True, socket_connect_timeout=2)
    return client


async def test_three_nodes_each_hear_every_message_once(redis_server: str, redis_prefix: str) -> None:
    clients = [_client(redis_server) for _ in range(3)]
    buses = [RedisBus(c, node_id=f"n{i}", prefix=redis_prefix) for i, c in enumerate(clients)]
    heard: list[list[tuple[str, dict[str, Any]]]] = [[] for _ in buses]
    try:
        for bus, out in zip(buses, heard, strict=True):
            bus.subscribe("lobby:general", _collect(out))
            await bus.start()
        await buses[0].publish("lobby:general", {"n": 1, "text": "<b>hi</b>"})
        await buses[2].publish("lobby:general", {"n": 2})
        await buses[1].publish("lobby:unfollowed", {"n": 3})
        await eventually(lambda: all(len(h) == 2 for h in heard))
        await asyncio.sleep(0.2)  # nothing more arrives: no echo of a node's own message
        for h in heard:
            assert sorted(p["n"] for _, p in h) == [1, 2]
        assert heard[0][0] == ("lobby:general", {"n": 1, "text": "<b>hi</b>"})  # its own, at once
        assert buses[1].received == 2 and buses[0].received == 1
    finally:
        for bus in buses:
            await bus.close()
        for c in clients:
            await c.aclose()


async def test_an_unreachable_redis_still_delivers_on_this_node() -> None:
    client = _client("redis://127.0.0.1:1/0")
    bus = RedisBus(client, node_id="alone", prefix="jt-unreachable", retry_s=0.1)
    got: list[object] = []
    bus.subscribe("t", lambda t, p: got.append(dict(p)))
    try:
        await bus.start()
        await bus.publish("t", {"n": 1})
        assert got == [{"n": 1}]
    finally:
        await bus.close()
        await client.aclose()


async def test_lobby_chat_reaches_players_on_three_nodes_through_redis(
    redis_server: str, redis_prefix: str
) -> None:
    """Three nodes' lobby desks on one store, each with its own Redis bus: a line said on one node
    reaches the members on every node once, and a block is honoured on the listener's node."""
    from server.store.memory import InMemoryRepository
    from tests.hub.test_lobby_chat import Node, Wall, got, join, say

    store, wall = InMemoryRepository(), Wall()
    clients = [_client(redis_server) for _ in range(3)]
    buses = [RedisBus(c, node_id=f"n{i}", prefix=redis_prefix) for i, c in enumerate(clients)]
    try:
        nodes = []
        for bus in buses:
            await bus.start()
            nodes.append(Node(store, bus, wall))
        people = [node.connect(name) for node, name in zip(nodes, ("alice", "bob", "carol"), strict=True)]
        for node, (core, sink) in zip(nodes, people, strict=True):
            await join(node, core, sink)
        (a, sa), (b, sb), (c, sc) = people
        await nodes[2].social.block(c.account.id, a.account.id)  # carol (node 3) blocked alice
        await say(nodes[0], a, "<b>hello</b> from node 1")
        await eventually(lambda: bool(sb.frames))
        await asyncio.sleep(0.2)
        assert [m["text"] for m in got(sa)] == ["<b>hello</b> from node 1"]
        assert [m["text"] for m in got(sb)] == ["<b>hello</b> from node 1"]
        assert got(sc) == []
        await say(nodes[1], b, "bob on node 2")
        await eventually(lambda: bool(sa.frames) and bool(sc.frames))
        assert [m["text"] for m in got(sa)] == [m["text"] for m in got(sc)] == ["bob on node 2"]
    finally:
        for bus in buses:
            await bus.close()
        for client in clients:
            await client.aclose()
