"""A quick-match hand-over that cannot reach the queue's matcher node leaves the player waiting where
it is, in its place, and it is paired there once this node is the matcher (an in-process hub on a
real Redis; the named matcher's advertised address answers nothing)."""

from __future__ import annotations

import dataclasses

import pytest

from client_protocol.messages import GuestAuth, Seated
from server.cluster.node import ClusterNode
from server.hub.server import running_hub
from server.hub.settings import HubSettings, SpectatePolicy
from server.store.memory import InMemoryRepository
from tests.cluster.conftest import eventually
from tests.cluster.test_node import _Load, cluster
from tests.hub.helpers import ScannedClient
from tests.hub.netkit import FAST_LIMITS, next_of


@pytest.mark.asyncio
async def test_a_failed_hand_over_keeps_the_player_here_and_it_is_paired_later(
    redis_server: str, redis_prefix: str
) -> None:
    repo = InMemoryRepository()
    here = ClusterNode(
        dataclasses.replace(cluster(redis_server, redis_prefix, "a"), queue_local_wait_s=0.2), repo
    )
    # a live node that runs fewer tables, named the matcher, whose address answers nothing
    gone = ClusterNode(
        dataclasses.replace(cluster(redis_server, redis_prefix, "b"), advertise_url="ws://127.0.0.1:1"), repo
    )
    settings = HubSettings(
        port=0,
        limits=FAST_LIMITS,
        spectate=SpectatePolicy(delay_s=0.0),
        shutdown_grace_s=1.0,
        bot_fill_after_s=60,
    )
    players: list[ScannedClient] = []
    stopped: set[ClusterNode] = set()
    try:
        await gone.start(_Load(0))
        async with running_hub(settings, repo, placement=here) as hub:
            await here.start(hub)
            stragglers = hub.lobby.stragglers
            assert stragglers is not None
            alice = ScannedClient(hub.url, GuestAuth(name="alice"), timeout=20.0)
            players.append(alice)
            await alice._open(alice.auth)
            await alice.join_queue("tenhou")
            await eventually(lambda: stragglers.handed_over >= 1)  # b was named: handed over ...
            await eventually(lambda: hub.lobby.waiting("tenhou") == 1)  # ... which failed: back here
            await gone.stop()  # b leaves the registry: the next look names this node
            stopped.add(gone)
            for name in ("bob", "carol", "dave"):
                p = ScannedClient(hub.url, GuestAuth(name=name), timeout=20.0)
                players.append(p)
                await p._open(p.auth)
                await p.join_queue("tenhou")
            seated = [await next_of(p, Seated) for p in players]
            assert len({s.match_id for s in seated}) == 1
            assert sorted(s.seat for s in seated if s.seat is not None) == [0, 1, 2, 3]  # no bot
            for p in players:
                await p.close()
    finally:
        for node in (here, gone):
            if node not in stopped:
                await node.stop()
