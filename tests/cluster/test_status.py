"""``jantaku admin cluster`` / ``GET /api/cluster``: every running match is listed with the node
that owns it (its lease), in the JSON document and in the text table, not only counts per node."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from server.cluster.settings import ClusterSettings
from server.cluster.status import cluster_status, render
from server.domain.records import AccountKind, MatchRecord, MatchStatus, SeatRecord
from server.store.memory import InMemoryRepository


def _match(match_id: str, created_at: float, status: MatchStatus = MatchStatus.RUNNING) -> MatchRecord:
    names = [f"{match_id}-p{i}" for i in range(4)]
    return MatchRecord(
        id=match_id,
        ruleset_json="{}",
        ruleset_hash="0" * 64,
        seed_commitment="0" * 64,
        engine_version="1",
        wall_algorithm="t",
        seats=tuple(SeatRecord(i, names[i], AccountKind.GUEST, f"g-{match_id}-{i}") for i in (3, 0, 2, 1)),
        status=status,
        created_at=created_at,
        source="queue:tenhou",
    )


@pytest.mark.asyncio
async def test_each_running_match_is_listed_with_its_owner(redis_server: str, redis_prefix: str) -> None:
    settings = ClusterSettings(redis_url=redis_server, node_id="admin", key_prefix=redis_prefix)
    repo = InMemoryRepository()
    for match in (
        _match("m-a", 1.0),
        _match("m-b", 2.0),
        _match("m-c", 3.0),
        _match("m-x", 0.5, MatchStatus.COMPLETED),
    ):
        await repo.create_match(match)
    redis: Redis = Redis.from_url(redis_server, decode_responses=True)
    try:
        for node_id in ("n0", "n1"):
            await redis.sadd(settings.key("nodes"), node_id)
            await redis.hset(settings.key("node", node_id), mapping={"url": f"ws://{node_id}", "tables": 1})
        await redis.set(settings.key("table", "m-a"), "n1")
        await redis.set(settings.key("table", "m-c"), "n0")
        status = await cluster_status(redis, settings, repo, now=10.0)
    finally:
        await redis.aclose()
    document = status.as_json()
    assert [(m["match_id"], m["owner"]) for m in document["matches"]] == [
        ("m-a", "n1"),
        ("m-b", None),
        ("m-c", "n0"),
    ]
    assert list(document["matches"][0]["players"]) == ["m-a-p0", "m-a-p1", "m-a-p2", "m-a-p3"]  # seat order
    assert document["matches"][0]["source"] == "queue:tenhou" and list(document["unowned"]) == ["m-b"]
    text = render(status)
    rows = {line.split()[0]: line.split()[1] for line in text.splitlines() if line.startswith("m-")}
    assert rows == {"m-a": "n1", "m-b": "(none)", "m-c": "n0"}
