"""A relayed client counts against its own address at the node running its table, not against
the relaying node's: the relaying node vouches for the real address with a header signed by the
cluster's link secret; the same header from anyone else is ignored."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus

from server.cluster import relaylink
from server.cluster.node import ClusterNode
from server.hub.placement import RELAY_HEADER
from server.hub.server import Hub, running_hub
from server.hub.settings import HubSettings, SpectatePolicy
from server.store.memory import InMemoryRepository
from tests.cluster.test_node import cluster
from tests.hub.netkit import FAST_LIMITS, Raw

GUEST = {"type": "hello", "protocol": 1, "auth": {"type": "guest", "name": "g"}}
LIMITS = dataclasses.replace(
    FAST_LIMITS,
    connect_per_ip_per_s=0.01,
    connect_per_ip_burst=2,
    guest_per_ip_per_s=0.01,
    guest_per_ip_burst=1,
)


@asynccontextmanager
async def owner_hub(node: ClusterNode) -> AsyncIterator[Hub]:
    settings = HubSettings(port=0, limits=LIMITS, spectate=SpectatePolicy(delay_s=0.0), shutdown_grace_s=1.0)
    async with running_hub(settings, InMemoryRepository(), placement=node) as hub:
        yield hub


async def _refused(hub: Hub, **options: Any) -> bool:
    try:
        raw = await Raw.open(hub, **options)
    except InvalidStatus as exc:
        assert exc.response.status_code == 429
        return True
    await raw.close()
    return False


def _vouched(node: ClusterNode, address: str) -> dict[str, Any]:
    return {"additional_headers": node.relay_headers(address)}


@pytest.mark.asyncio
async def test_the_owner_limits_a_relayed_client_by_its_own_address(
    redis_server: str, redis_prefix: str
) -> None:
    edge = ClusterNode(cluster(redis_server, redis_prefix, "a"), InMemoryRepository())
    owner = ClusterNode(cluster(redis_server, redis_prefix, "b"), InMemoryRepository())
    try:
        await edge.heartbeat()
        await owner.heartbeat()  # both read the link secret the first one made
        assert edge.relay_headers("203.0.113.1") and owner.relayed_address(
            edge.relay_headers("203.0.113.1")[0][1]
        ) == ("203.0.113.1")
        async with owner_hub(owner) as hub:
            # the edge node's own address (127.0.0.1) uses its burst up ...
            assert not await _refused(hub)
            assert not await _refused(hub)
            assert await _refused(hub)
            # ... yet the clients it relays still connect: each counts against its own address
            for i in range(4):
                assert not await _refused(hub, **_vouched(edge, f"203.0.113.{10 + i}"))
            # whose limits hold: a third connection of one relayed address is refused
            assert not await _refused(hub, **_vouched(edge, "203.0.113.50"))
            assert not await _refused(hub, **_vouched(edge, "203.0.113.50"))
            assert await _refused(hub, **_vouched(edge, "203.0.113.50"))
            # and a guest hello counts against the relayed address too
            first, _ = await Raw.guest(hub, **_vouched(edge, "203.0.113.60"))
            await first.close()
            second = await Raw.open(hub, hello=GUEST, **_vouched(edge, "203.0.113.60"))
            error = await second.recv_json()
            assert (error["type"], error["code"]) == ("error", "rate_limited")
            third, _ = await Raw.guest(hub, **_vouched(edge, "203.0.113.61"))
            await third.close()
            # a client's own header (no signature, another secret, a stale one) is ignored: it
            # counts against the address it comes from, whose burst is used up
            forged = [
                "203.0.113.70",
                relaylink.sign(b"not the secret", "203.0.113.71", edge._wall()),
                edge.relay_headers("203.0.113.72")[0][1].replace("203.0.113.72", "203.0.113.73"),
                relaylink.sign(edge._link_secret or b"", "203.0.113.74", edge._wall() - 3600),
            ]
            for value in forged:
                assert await _refused(hub, additional_headers=[(RELAY_HEADER, value)])
    finally:
        await edge.stop()
        await owner.stop()


@pytest.mark.asyncio
async def test_a_single_process_trusts_no_relay_header() -> None:
    async with running_hub(
        HubSettings(port=0, limits=LIMITS, shutdown_grace_s=1.0), InMemoryRepository()
    ) as hub:
        assert not await _refused(hub)
        assert not await _refused(hub)
        value = relaylink.sign(b"any", "203.0.113.9", 0.0)
        assert await _refused(hub, additional_headers=[(RELAY_HEADER, value)])


def test_a_configured_cluster_secret_signs_the_addresses(redis_prefix: str) -> None:
    settings = dataclasses.replace(cluster("redis://127.0.0.1:1/0", redis_prefix, "a"), secret="s3cret")
    node = ClusterNode(settings, InMemoryRepository())
    ((name, value),) = node.relay_headers("2001:db8::1")
    assert name == RELAY_HEADER and node.relayed_address(value) == "2001:db8::1"
    assert relaylink.verify(b"s3cret", value, node._wall()) == "2001:db8::1"
    assert node.relay_headers(None) == []
    assert relaylink.verify(b"s3cret", "x" * 500, 0.0) is None
    assert relaylink.verify(b"s3cret", "not an address 1 2", 0.0) is None
