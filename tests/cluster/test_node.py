"""A cluster node in-process: leases in Redis, placement refused without Redis, and the takeover of
the tables of a node that stopped renewing its leases (paused or dead), which the fencing token
then keeps from writing: two hubs on one PostgreSQL schema and one Redis."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from redis.asyncio import Redis

from client_protocol.errors import ErrorCode
from server.cluster.node import ClusterNode
from server.cluster.settings import ClusterSettings
from server.domain.records import MatchStatus
from server.hub.outputs import ErrorOut
from server.hub.recovery import replay_log
from server.hub.server import Hub
from server.hub.settings import HubSettings, SpectatePolicy, TableTimers
from server.services.tables import TableAnswer, TableCommand
from server.store.memory import InMemoryRepository
from server.store.repository import SqlRepository
from tests.cluster.conftest import eventually
from tests.cluster.procs import free_port
from tests.hub.helpers import EAST, FakeParticipant, account
from tests.hub.netkit import FAST_LIMITS
from tests.store.conftest import Database, fresh_database


def cluster(redis_url: str, prefix: str, node_id: str) -> ClusterSettings:
    return ClusterSettings(
        redis_url=redis_url,
        node_id=node_id,
        key_prefix=prefix,
        heartbeat_s=0.1,
        node_ttl_ms=500,
        lease_ms=500,
        takeover_every_s=0.1,
        redis_timeout_s=0.5,
    )


@pytest.mark.asyncio
async def test_leases_are_exclusive_and_released(redis_server: str, redis_prefix: str) -> None:
    repo = InMemoryRepository()
    a = ClusterNode(cluster(redis_server, redis_prefix, "a"), repo)
    b = ClusterNode(cluster(redis_server, redis_prefix, "b"), repo)
    try:
        assert await a.claim("m-1", new=True)
        assert not await b.claim("m-1", new=True)  # a holds its lease
        assert await a.redis.get(a.lease_key("m-1")) == "a"
        a.released("m-1", finished=False)
        await eventually(lambda: _gone(a, "m-1"))
        assert await b.claim("m-1", new=True)
        a.released("m-1", finished=True)  # not a's any more: b's lease stays
        assert await b.redis.get(b.lease_key("m-1")) == "b"
    finally:
        await a.stop()
        await b.stop()


async def _gone(node: ClusterNode, match_id: str) -> bool:
    return await node.redis.get(node.lease_key(match_id)) is None


@pytest.mark.asyncio
async def test_without_redis_nothing_is_placed(redis_prefix: str) -> None:
    node = ClusterNode(cluster("redis://127.0.0.1:1/0", redis_prefix, "a"), InMemoryRepository())
    try:
        assert not await node.claim("m-1", new=True)
        await node.heartbeat()  # logs, raises nothing
        assert node.healthy_since is None and not node.may_take_over
    finally:
        await node.stop()


@pytest.mark.asyncio
async def test_the_registry_lists_a_live_node(redis_server: str, redis_prefix: str) -> None:
    node = ClusterNode(cluster(redis_server, redis_prefix, "a"), InMemoryRepository())
    try:
        await node.heartbeat()
        entry = await node.redis.hgetall(node.node_key)
        assert entry["tables"] == "0" and entry["draining"] == "0"
        assert await node.redis.smembers(node.settings.key("nodes")) == {"a"}
        assert 0 < await node.redis.pttl(node.node_key) <= 500
    finally:
        await node.stop()
    probe: Redis = Redis.from_url(redis_server, decode_responses=True)
    try:
        assert not await probe.exists(f"{redis_prefix}:node:a")  # it left the registry
    finally:
        await probe.aclose()


@asynccontextmanager
async def node_on(
    database: Database, redis_url: str, prefix: str, node_id: str
) -> AsyncIterator[tuple[Hub, ClusterNode, SqlRepository]]:
    repo = await SqlRepository.open(database.url, search_path=database.search_path, owner=node_id)
    node = ClusterNode(cluster(redis_url, prefix, node_id), repo)
    settings = HubSettings(
        port=0,
        timers=TableTimers(action_ms=150, bank_ms=0, bot_delay_ms=30),
        limits=FAST_LIMITS,
        spectate=SpectatePolicy(delay_s=0.0),
        shutdown_grace_s=1.0,
    )
    hub = Hub(settings, repo, rulesets={"tenhou": EAST}, placement=node)
    try:
        await hub.start()
        await node.start(hub)
        yield hub, node, repo
    finally:
        await hub.shutdown()  # its tables give their leases up
        await node.stop()
        await repo.close()


@pytest.mark.asyncio
async def test_a_node_that_stops_renewing_loses_its_table_and_is_fenced(
    redis_server: str, redis_prefix: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    async with (
        fresh_database("postgresql", request, tmp_path) as database,
        node_on(database, redis_server, redis_prefix, "a") as (hub_a, node_a, repo_a),
        node_on(database, redis_server, redis_prefix, "b") as (hub_b, node_b, repo_b),
    ):
        player = FakeParticipant(account("alice"))
        await repo_a.create_account(player.account)
        await hub_a.lobby.join_queue(player, "tenhou+bots", 1)
        (match_id,) = hub_a.lobby.tables
        assert await node_a.redis.get(node_a.lease_key(match_id)) == "a"
        await eventually(lambda: _steps_beyond(repo_a, match_id, 3))
        # node a freezes its Redis side (as a paused process would): its lease runs out
        for task in node_a._loops:
            task.cancel()
        await eventually(lambda: match_id in hub_b.lobby.tables, timeout=10)
        table_b = hub_b.lobby.tables[match_id]
        assert table_b.resumed and await node_b.redis.get(node_b.lease_key(match_id)) == "b"
        # node a's table is fenced off at its next write and drops itself; b plays on
        await eventually(lambda: match_id not in hub_a.lobby.tables, timeout=10)
        moved = [e for e in player.of(ErrorOut) if e.code is ErrorCode.BUSY_RETRY]
        assert moved and "moved" in moved[-1].message
        taken_at = await repo_b.step_count(match_id)
        await eventually(lambda: _steps_beyond(repo_b, match_id, taken_at + 3), timeout=20)
        stored = await repo_b.get_match(match_id)
        assert stored is not None and stored.status in (MatchStatus.RUNNING, MatchStatus.COMPLETED)
        recovery = await repo_b.recovery_record(match_id)
        assert recovery is not None
        steps = await repo_b.steps(match_id)
        replay_log(EAST, bytes.fromhex(recovery.seed_hex), steps)  # one log, no fork: it replays


async def _steps_beyond(repo: SqlRepository, match_id: str, n: int) -> bool:
    return await repo.step_count(match_id) > n


@asynccontextmanager
async def own_redis(port: int) -> AsyncIterator[subprocess.Popen[bytes]]:
    """A redis-server of this test's own (the machine's is shared), keeping nothing on disk."""
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client: Redis = Redis.from_url(f"redis://127.0.0.1:{port}/0")
        try:
            await eventually(lambda: _pings(client), timeout=10)
        finally:
            await client.aclose()
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


async def _pings(client: Redis) -> bool:
    try:
        return bool(await client.ping())
    except Exception:
        return False


@pytest.mark.asyncio
async def test_redis_loss_tables_play_on_new_ones_are_refused_and_the_directory_comes_back(
    redis_server: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    async with (
        fresh_database("postgresql", request, tmp_path) as database,
        own_redis(port) as first,
        node_on(database, url, "jt", "a") as (hub, node, repo),
    ):
        alice = FakeParticipant(account("alice"))
        bob = FakeParticipant(account("bob"))
        for p in (alice, bob):
            await repo.create_account(p.account)
        await hub.lobby.join_queue(alice, "tenhou+bots", 1)
        (match_id,) = hub.lobby.tables
        first.kill()  # Redis goes away (it kept nothing)
        first.wait()
        before = await repo.step_count(match_id)
        await eventually(lambda: _steps_beyond(repo, match_id, before + 5), timeout=20)  # plays on
        await eventually(lambda: not node.may_take_over)
        await hub.lobby.join_queue(bob, "tenhou+bots", 2)  # a new placement: refused, typed
        assert [e.code for e in bob.of(ErrorOut)] == [ErrorCode.BUSY_RETRY]
        assert list(hub.lobby.tables) == [match_id]
        async with own_redis(port):  # Redis is back, empty: the node re-registers, re-asserts its lease
            await eventually(lambda: _lease_is(node, match_id, "a"), timeout=10)
            assert await node.redis.exists(node.node_key)
            await hub.lobby.join_queue(bob, "tenhou+bots", 3)  # placing works again
            assert len(hub.lobby.tables) == 2


async def _lease_is(node: ClusterNode, match_id: str, owner: str) -> bool:
    try:
        return bool(await node.redis.get(node.lease_key(match_id)) == owner)
    except Exception:
        return False


class _Load:
    """What a node reads of its hub for the registry and its quick-match queues."""

    def __init__(self, tables: int, waiting: int = 0) -> None:
        self.table_count = tables
        self.connection_count = 0
        self.closing = False
        self.waiting = waiting

    def queue_waiting(self, queue: str) -> int:
        return self.waiting

    async def recover_orphans(self, match_ids: Collection[str]) -> None:
        return None

    async def control_table(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        return None  # runs no table


@pytest.mark.asyncio
async def test_a_quick_match_queue_has_one_matcher_the_least_loaded_live_node(
    redis_server: str, redis_prefix: str
) -> None:
    repo = InMemoryRepository()
    nodes = {
        n: ClusterNode(
            dataclasses.replace(cluster(redis_server, redis_prefix, n), advertise_url=f"ws://{n}:1"), repo
        )
        for n in "abc"
    }
    loads = {"a": _Load(2), "b": _Load(0, waiting=1), "c": _Load(1)}
    try:
        for n, node in nodes.items():
            node.host = loads[n]
            await node.heartbeat()
        assert await nodes["a"].locate_queue("tenhou") == "ws://b:1"  # b runs the fewest tables
        assert await nodes["c"].locate_queue("tenhou") == "ws://b:1"  # one matcher at a time
        assert await nodes["b"].locate_queue("tenhou") is None  # b queues its players itself
        assert nodes["b"].queues == {"tenhou"}
        await nodes["b"].heartbeat()  # players wait at b: it stays the matcher
        assert await nodes["a"].redis.get(nodes["a"].settings.key("queue", "tenhou")) == "b"
        nodes["b"].draining = True
        await nodes["b"].heartbeat()  # a draining matcher is replaced at once
        assert await nodes["a"].locate_queue("tenhou") == "ws://c:1"
        assert nodes["b"].queues == set()
    finally:
        for node in nodes.values():
            await node.stop()


@pytest.mark.asyncio
async def test_without_redis_a_player_queues_where_it_is(redis_prefix: str) -> None:
    node = ClusterNode(cluster("redis://127.0.0.1:1/0", redis_prefix, "a"), InMemoryRepository())
    try:
        assert await node.locate_queue("tenhou") is None
    finally:
        await node.stop()


@pytest.mark.asyncio
async def test_a_node_sent_players_keeps_the_queue_name_or_finds_the_live_matcher(
    redis_server: str, redis_prefix: str
) -> None:
    """``keep``: a node that was handed players becomes the matcher when nobody is, instead of the
    least-loaded node; a live matcher stays the matcher; the matcher's own look keeps its name alive."""
    repo = InMemoryRepository()
    nodes = {
        n: ClusterNode(
            dataclasses.replace(cluster(redis_server, redis_prefix, n), advertise_url=f"ws://{n}:1"), repo
        )
        for n in "ab"
    }
    loads = {"a": _Load(5, waiting=1), "b": _Load(0)}
    try:
        for n, node in nodes.items():
            node.host = loads[n]
            await node.heartbeat()
        key = nodes["a"].settings.key("queue", "tenhou")
        assert await nodes["a"].locate_queue("tenhou", keep=True) is None  # a, though b runs fewer tables
        assert await nodes["b"].locate_queue("tenhou", keep=True) == "ws://a:1"  # a is live: it stays
        await nodes["a"].redis.pexpire(key, 50)
        assert await nodes["a"].locate_queue("tenhou") is None  # a's own look: its name lives on
        assert await nodes["a"].redis.pttl(key) > 100  # renewed to node_ttl_ms (500 here)
        await nodes["a"].redis.delete(key)
        assert await nodes["a"].locate_queue("tenhou") == "ws://b:1"  # no keep: the least-loaded
    finally:
        for node in nodes.values():
            await node.stop()


@pytest.mark.asyncio
async def test_stop_ends_a_loop_whose_step_swallows_the_cancel(redis_server: str, redis_prefix: str) -> None:
    """A cancel that lands inside a step and comes out as an error the loop survives (a Redis
    call's) does not keep the loop alive: stop() still ends it (CI once hung here for 300 s)."""
    node = ClusterNode(cluster(redis_server, redis_prefix, "a"), InMemoryRepository())
    entered = asyncio.Event()

    async def swallowing_step() -> None:
        entered.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise TimeoutError("as a Redis call might") from None

    node._loops = [asyncio.create_task(node._every(0, swallowing_step))]
    await entered.wait()
    await asyncio.wait_for(node.stop(), timeout=10)
    assert all(task.done() for task in node._loops) and node._loops == []
