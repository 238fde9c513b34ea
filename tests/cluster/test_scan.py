"""The takeover scan grows with what expired, not with the cluster: each second it asks Redis for
the lease deadlines that passed and reads PostgreSQL only for those whose lease is really gone; a
rare backstop (every ``backstop_every_s``, and once Redis answers again) reads the ids of every
running match, so a dead node's match is found even when Redis lost its deadline."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from typing import cast

import pytest

from server.cluster.node import ClusterNode
from server.domain.ports import Repository
from server.domain.records import MatchRecord, MatchStatus
from server.services.tables import TableAnswer, TableCommand
from tests.cluster.conftest import eventually
from tests.cluster.test_node import cluster


class _CountingRepo:
    """The few repository calls a takeover scan may make, counted; running matches by id."""

    def __init__(self, running: Sequence[str]) -> None:
        self.running = list(running)
        self.calls: Counter[str] = Counter()

    async def unfinished_matches(self) -> Sequence[MatchRecord]:
        self.calls["unfinished_matches"] += 1
        raise AssertionError("a takeover scan never reads every running match's row")

    async def unfinished_match_ids(self) -> Sequence[str]:
        self.calls["unfinished_match_ids"] += 1
        return list(self.running)

    async def get_match(self, match_id: str) -> MatchRecord | None:
        self.calls["get_match"] += 1
        status = MatchStatus.RUNNING if match_id in self.running else MatchStatus.COMPLETED
        return MatchRecord(match_id, "{}", "h", "c", "v", "w", (), status, 0.0)

    async def acquire_match(self, match_id: str) -> int:
        return 1


class _Host:
    table_count = 0
    connection_count = 0
    closing = False

    def __init__(self) -> None:
        self.recovered: list[set[str]] = []

    def queue_waiting(self, queue: str) -> int:
        return 0

    async def recover_orphans(self, match_ids: Collection[str]) -> None:
        self.recovered.append(set(match_ids))

    async def control_table(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        return None  # runs no table


class _Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _scanner(redis_url: str, prefix: str, repo: _CountingRepo, clock: _Clock) -> tuple[ClusterNode, _Host]:
    settings = dataclasses.replace(cluster(redis_url, prefix, "b"), backstop_every_s=30.0)
    node = ClusterNode(settings, cast(Repository, repo), monotonic=clock)
    host = _Host()
    node.host = host
    return node, host


async def _ready(node: ClusterNode, clock: _Clock) -> None:
    await node.heartbeat()
    clock.t += 1.0  # a lease's life since Redis answered: it may take over


@dataclasses.dataclass
class _Pair:
    """A node owning the matches and another node scanning for them, on a counting repository."""

    repo: _CountingRepo
    clock: _Clock
    owner: ClusterNode
    scanner: ClusterNode
    host: _Host


@asynccontextmanager
async def _owner_and_scanner(redis_url: str, prefix: str, running: Sequence[str]) -> AsyncIterator[_Pair]:
    repo = _CountingRepo(running)
    clock = _Clock()
    owner = ClusterNode(cluster(redis_url, prefix, "a"), cast(Repository, repo))
    scanner, host = _scanner(redis_url, prefix, repo, clock)
    try:
        yield _Pair(repo, clock, owner, scanner, host)
    finally:
        await owner.stop()
        await scanner.stop()


@pytest.mark.asyncio
async def test_the_per_second_scan_reads_no_match_rows(redis_server: str, redis_prefix: str) -> None:
    async with _owner_and_scanner(redis_server, redis_prefix, [f"m-{i}" for i in range(50)]) as p:
        repo, clock, owner, scanner, host = p.repo, p.clock, p.owner, p.scanner, p.host
        for m in repo.running:
            assert await owner.claim(m, new=True)
        await _ready(scanner, clock)
        await scanner.take_over()  # its first scan is the backstop: ids only, every lease held
        assert repo.calls == Counter(unfinished_match_ids=1) and host.recovered == []
        for _ in range(5):  # the owner renews; the scans find nothing due and read nothing
            await owner.heartbeat()
            clock.t += 1.0
            await scanner.take_over()
        assert repo.calls == Counter(unfinished_match_ids=1) and host.recovered == []
        # two of the owner's tables end, and the owner dies: only its 48 running ones are read
        owner.released("m-0", finished=True)
        owner.released("m-1", finished=True)
        repo.running = repo.running[2:]
        await eventually(lambda: _deadlines(owner, 48))
        await asyncio.sleep(0.6)  # its leases (500 ms) run out
        await scanner.take_over()
        assert host.recovered == [set(repo.running)]
        assert repo.calls == Counter(unfinished_match_ids=1, get_match=48)


async def _deadlines(node: ClusterNode, n: int) -> bool:
    return int(await node.redis.zcard(node.deadlines_key)) == n


@pytest.mark.asyncio
async def test_a_handed_over_table_is_due_at_once_and_an_ended_one_is_never_read(
    redis_server: str, redis_prefix: str
) -> None:
    async with _owner_and_scanner(redis_server, redis_prefix, ["m-1"]) as p:
        repo, clock, owner, scanner, host = p.repo, p.clock, p.owner, p.scanner, p.host
        assert await owner.claim("m-1", new=True)
        assert await owner.claim("m-2", new=True)  # ends at once: never looked for again
        owner.released("m-2", finished=True)
        await _ready(scanner, clock)
        await scanner.take_over()  # the backstop
        owner.released("m-1", finished=False)  # a drain hands it over: due now, not in 500 ms
        await eventually(lambda: _gone(owner, "m-1"))
        assert await owner.redis.zscore(owner.deadlines_key, "m-1") == 0
        clock.t += 1.0
        await scanner.take_over()
        assert host.recovered == [{"m-1"}]
        assert repo.calls == Counter(unfinished_match_ids=1, get_match=1)
        # a deadline left behind by a match that ended while Redis could not hear of it goes
        await owner.redis.zadd(owner.deadlines_key, {"m-3": 0})
        clock.t += 1.0
        await scanner.take_over()
        assert await owner.redis.zscore(owner.deadlines_key, "m-3") is None


async def _gone(node: ClusterNode, match_id: str) -> bool:
    return await node.redis.get(node.lease_key(match_id)) is None


@pytest.mark.asyncio
async def test_the_backstop_takes_over_a_match_whose_deadline_redis_lost(
    redis_server: str, redis_prefix: str
) -> None:
    async with _owner_and_scanner(redis_server, redis_prefix, ["m-1"]) as p:
        repo, clock, owner, scanner, host = p.repo, p.clock, p.owner, p.scanner, p.host
        assert await owner.claim("m-1", new=True)
        await _ready(scanner, clock)
        await scanner.take_over()  # the backstop: m-1 is held
        # the owner dies and its deadline is lost (Redis kept the lease but lost the sorted set)
        await owner.redis.delete(owner.deadlines_key)
        await asyncio.sleep(0.6)
        for _ in range(3):
            clock.t += 1.0
            await scanner.take_over()  # nothing is due: nothing found yet
        assert host.recovered == []
        clock.t += 30.0
        await scanner.take_over()  # the backstop runs again: m-1 is found without its deadline
        assert host.recovered == [{"m-1"}]
        assert repo.calls == Counter(unfinished_match_ids=2)


@pytest.mark.asyncio
async def test_the_backstop_runs_first_once_redis_lost_its_data(redis_server: str, redis_prefix: str) -> None:
    repo = _CountingRepo(["m-1"])
    clock = _Clock()
    scanner, host = _scanner(redis_server, redis_prefix, repo, clock)
    try:
        await _ready(scanner, clock)
        await scanner.take_over()
        assert host.recovered == [{"m-1"}]  # nobody holds it
        await scanner.redis.delete(scanner.settings.key("seen", "b"))  # as a restarted Redis would
        await scanner.heartbeat()
        clock.t += 0.1
        await scanner.take_over()  # not yet: live owners re-assert their leases first
        clock.t += 1.0
        await scanner.take_over()  # then the backstop, not the deadlines Redis lost
        assert host.recovered == [{"m-1"}, {"m-1"}]
        assert repo.calls == Counter(unfinished_match_ids=2)
    finally:
        await scanner.stop()
