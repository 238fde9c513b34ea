"""Locality-first quick match with two real ``jantaku serve`` nodes (docs/scaling.md, "Quick match
across nodes"): four players connected to each node get a table on that node, with no relay; and
players waiting on a node whose name as the queue's matcher moved to the other node are not left
behind: they are handed over and paired there."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from client_protocol.messages import GuestAuth, Seated
from tests.cluster.conftest import RUN_ID, drop_keys, eventually
from tests.cluster.procs import Cluster, Node, fresh_pg_database, running_cluster
from tests.hub.helpers import ScannedClient
from tests.hub.netkit import next_of


@pytest_asyncio.fixture
async def pair(
    postgres: str, redis_server: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Cluster]:
    prefix = f"{RUN_ID}-local"
    try:
        async with (
            fresh_pg_database(postgres) as database_url,
            running_cluster(
                database_url, redis_server, prefix, tmp_path_factory.mktemp("pair"), size=2
            ) as running,
        ):
            yield running
    finally:
        await drop_keys(redis_server, prefix)


async def _connected(node: Node, names: list[str]) -> list[ScannedClient]:
    """Clients connected to ``node`` itself (not through the proxy)."""
    clients = [ScannedClient(node.url, GuestAuth(name=n), timeout=20.0) for n in names]
    for c in clients:
        await c._open(c.auth)
    return clients


async def _get(cluster: Cluster, key: str) -> str | None:
    client: Redis = Redis.from_url(cluster.redis_url, decode_responses=True)
    try:
        value = await client.get(f"{cluster.prefix}:{key}")
        return None if value is None else str(value)
    finally:
        await client.aclose()


async def _set(cluster: Cluster, key: str, value: str) -> None:
    client: Redis = Redis.from_url(cluster.redis_url, decode_responses=True)
    try:
        await client.set(f"{cluster.prefix}:{key}", value, px=10_000)
    finally:
        await client.aclose()


async def four_players_on_each_node_get_a_table_on_their_node(cluster: Cluster) -> None:
    groups = {n.node_id: await _connected(n, [f"{n.node_id}-p{i}" for i in range(4)]) for n in cluster.nodes}
    everyone = [c for g in groups.values() for c in g]
    await asyncio.gather(*(c.join_queue("tenhou") for c in everyone))
    for node_id, clients in groups.items():
        seated = [await next_of(c, Seated) for c in clients]
        (match_id,) = {s.match_id for s in seated}
        assert sorted(s.seat for s in seated if s.seat is not None) == [0, 1, 2, 3]  # four humans
        assert await _get(cluster, f"table:{match_id}") == node_id  # the table runs on their node
    assert len({c.match_id for c in everyone}) == 2
    for node in cluster.nodes:
        assert "handed over" not in node.logged()  # nobody was relayed
    for c in everyone:
        await c.close()


async def nobody_is_left_behind_when_the_matchers_name_moves(cluster: Cluster) -> None:
    first, second = cluster.nodes
    early = await _connected(first, ["early0", "early1"])
    for c in early:
        await c.join_queue("tenhou")
    # after their local wait, a matcher is named (the least-loaded node) and they wait there
    await eventually(lambda: _get(cluster, "queue:tenhou"), timeout=15)
    matcher = await _get(cluster, "queue:tenhou")
    other = second if matcher == first.node_id else first
    await _set(cluster, "queue:tenhou", other.node_id)  # the name moves (it lapsed; another was named)
    late = await _connected(other, ["late0", "late1"])
    for c in late:
        await c.join_queue("tenhou")
    seated = [await next_of(c, Seated) for c in [*early, *late]]  # the nodes fill with bots after 60 s
    assert len({s.match_id for s in seated}) == 1
    assert sorted(s.seat for s in seated if s.seat is not None) == [0, 1, 2, 3]
    assert await _get(cluster, f"table:{seated[0].match_id}") == other.node_id
    for c in [*early, *late]:
        await c.close()


@pytest.mark.asyncio
async def test_two_nodes_pair_locally_first(pair: Cluster) -> None:
    """The scenarios in order on one two-node cluster (starting nodes is the slow part)."""
    await four_players_on_each_node_get_a_table_on_their_node(pair)
    await nobody_is_left_behind_when_the_matchers_name_moves(pair)


@pytest.mark.asyncio
async def test_three_players_on_two_nodes_make_one_three_player_table(pair: Cluster) -> None:
    """A three-player queue across nodes: two players on one node and one on the other are paired
    by the queue's matcher into one table of three seats."""
    first, second = pair.nodes
    clients = [*await _connected(first, ["s0", "s1"]), *await _connected(second, ["s2"])]
    for c in clients:
        await c.join_queue("tenhou-sanma")
    seated = [await next_of(c, Seated) for c in clients]  # the nodes fill with bots after 60 s
    assert len({s.match_id for s in seated}) == 1 and len(seated[0].players) == 3
    assert sorted(s.seat for s in seated if s.seat is not None) == [0, 1, 2]
    for c in clients:
        await c.close()
