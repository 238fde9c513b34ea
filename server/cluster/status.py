"""What ``jantaku admin cluster`` prints (and ``GET /api/cluster`` answers): the nodes of the
registry with their health and load, and the running matches by owner (``docs/scaling.md``)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.cluster.settings import ClusterSettings
from server.domain.ports import Repository


@dataclass(frozen=True, slots=True)
class NodeStatus:
    node_id: str
    live: bool  # its registry entry has not expired
    url: str = ""
    draining: bool = False
    tables: int = 0  # tables running there, as it last reported (every second)
    connections: int = 0
    leases: int = 0  # running matches whose lease it holds now
    up_s: float = 0.0


@dataclass(frozen=True, slots=True)
class MatchOwner:
    """One running match and the node that owns it now (its lease), so that an operator finds
    where a table lives before draining or killing a node."""

    match_id: str
    owner: str | None  # the node holding its lease; None: between owners (taken over within seconds)
    source: str = ""  # "queue:tenhou", "private:CODE", ...
    players: tuple[str, ...] = ()  # the seats' names, seat 0 first
    started: float = 0.0  # when the match was created (Unix time)


@dataclass(frozen=True, slots=True)
class ClusterStatus:
    nodes: tuple[NodeStatus, ...]
    running_matches: int
    unowned: tuple[str, ...] = field(default=())  # running, no lease: a live node takes them over
    matches: tuple[MatchOwner, ...] = field(default=())  # every running match, oldest first

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


async def cluster_status(
    redis: Redis, settings: ClusterSettings, repo: Repository, *, now: float | None = None
) -> ClusterStatus:
    """Read the registry and the leases (a few Redis calls) and the running matches (PostgreSQL)."""
    wall = time.time() if now is None else now
    ids = sorted(str(i) for i in await redis.smembers(settings.key("nodes")))
    pipe = redis.pipeline(transaction=False)
    for node_id in ids:
        pipe.hgetall(settings.key("node", node_id))
    entries = await pipe.execute() if ids else []
    records = await repo.unfinished_matches()
    running = [m.id for m in records]
    owners = await redis.mget([settings.key("table", m) for m in running]) if running else []
    held = Counter(str(o) for o in owners if o is not None)
    nodes = []
    for node_id, entry in zip(ids, entries, strict=True):
        if not entry:
            nodes.append(NodeStatus(node_id, live=False, leases=held.get(node_id, 0)))
            continue
        nodes.append(
            NodeStatus(
                node_id,
                live=True,
                url=str(entry.get("url", "")),
                draining=entry.get("draining") == "1",
                tables=int(entry.get("tables", 0)),
                connections=int(entry.get("connections", 0)),
                leases=held.get(node_id, 0),
                up_s=round(max(0.0, wall - float(entry.get("started", wall))), 1),
            )
        )
    unowned = tuple(m for m, o in zip(running, owners, strict=True) if o is None)
    matches = tuple(
        MatchOwner(
            m.id,
            None if o is None else str(o),
            m.source,
            tuple(s.name for s in sorted(m.seats, key=lambda s: s.seat)),
            m.created_at,
        )
        for m, o in zip(records, owners, strict=True)
    )
    return ClusterStatus(tuple(nodes), len(running), unowned, matches)


def status_reader(
    redis: Redis, settings: ClusterSettings, repo: Repository
) -> Callable[[], Awaitable[dict[str, Any]]]:
    """``GET /api/cluster``'s document, as the web layer asks for it (a Redis failure is an
    OSError for it: 503)."""

    async def read() -> dict[str, Any]:
        try:
            return (await cluster_status(redis, settings, repo)).as_json()
        except RedisError as exc:
            raise ConnectionError(str(exc)) from exc

    return read


def render(status: ClusterStatus) -> str:
    """The text table of ``jantaku admin cluster``."""
    lines = [f"{'node':<20} {'state':<9} {'tables':>6} {'leases':>6} {'conns':>6} {'up (s)':>9}  url"]
    for n in status.nodes:
        state = "gone" if not n.live else "draining" if n.draining else "live"
        load = f"{n.tables:>6} {n.leases:>6} {n.connections:>6} {n.up_s:>9.1f}"
        lines.append(f"{n.node_id:<20} {state:<9} {load}  {n.url}")
    lines.append(
        f"running matches: {status.running_matches}; without an owner: {len(status.unowned)}"
        + (" (a live node takes them over within seconds)" if status.unowned else "")
    )
    if status.matches:
        lines.append("")
        lines.append(f"{'match':<20} {'owner':<20} {'source':<20} players")
        for m in status.matches:
            owner = m.owner if m.owner is not None else "(none)"
            lines.append(f"{m.match_id:<20} {owner:<20} {m.source:<20} {', '.join(m.players)}")
    return "\n".join(lines)
