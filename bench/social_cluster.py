"""Friends' news across nodes: the cost of one presence change and one invitation in cluster mode.

    python bench/social_cluster.py [--messages 5000] [--redis-url redis://127.0.0.1:6379/0] [--json]

Two nodes' friends desks (``server.hub.friends.FriendsDesk``, the code the hub runs) in this one
process, each with its own social service, joined by a bus: node 1 holds alice, node 2 holds her
friend bob (a connection that only collects what it is sent). Alice moves between a table and the
lobby ``--messages`` times; each move is published by node 1, carried by the bus, and pushed by
node 2 to bob as a ``presence`` message (rendered and encoded as our protocol's frame). Then alice
invites bob ``--messages`` times (the rate limit lifted). Measured for the Redis bus (pub/sub on
the cluster's Redis, as ``jantaku serve --redis-url`` runs it) and for the in-process bus (no
network: the floor of the desks' own work):

* CPU per delivered message: this process's CPU (both nodes' work, the Redis client's included;
  Redis's own is not) over the messages bob received;
* latency: from node 1's publish to bob's frame, p50 and p99 (one message in flight at a time);
* the Redis bus alone (``bare bus``): a presence-sized payload published and handled, no desk:
  what the Redis client costs of the figure above.

Printed: one line per bus and a summary line
``social cluster: presence <N> us CPU/msg via Redis (floor <M> us in-process), invite ...``.
Nothing is asserted (docs/benchmarks.md, "Social across nodes").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redis.asyncio import Redis  # noqa: E402

from client_protocol.codec import encode  # noqa: E402
from server.cluster.socialbus import RedisBus  # noqa: E402
from server.domain.records import Account, AccountKind  # noqa: E402
from server.domain.socialbus import Payload, SocialBus  # noqa: E402
from server.hub import friends as friends_module  # noqa: E402
from server.hub.clock import SystemClock  # noqa: E402
from server.hub.friends import FriendsDesk  # noqa: E402
from server.hub.outputs import Outbound, SocialOut  # noqa: E402
from server.hub.socialbus import local_nodes  # noqa: E402
from server.services.social import SocialService  # noqa: E402
from server.social import relations  # noqa: E402


@dataclass
class Policy:
    allowed: bool = True


@dataclass
class Table:
    spectate: Policy = field(default_factory=Policy)
    finished: bool = False

    def seat_of_account(self, account_id: str) -> int | None:
        return 0


@dataclass
class Waiting:
    participant: Any


@dataclass
class Invitation:
    code: str
    creator_id: str
    preset: str = "tenhou"
    waiting: list[Waiting] = field(default_factory=list)


class Lobby:
    def __init__(self) -> None:
        self.table_ = Table()
        self.invitation = Invitation("BENCH", "alice")

    def table(self, match_id: str) -> Table:
        return self.table_

    def open_private(self, code: str) -> Invitation | None:
        return self.invitation if code == self.invitation.code else None


class Core:
    """A connection's core that only counts (and encodes, as our protocol does) what it gets."""

    def __init__(self, account_id: str) -> None:
        self.account = Account(
            id=account_id, name=account_id, kind=AccountKind.PLAYER, scopes=frozenset(), created_at=0.0
        )
        self.following: str | None = None
        self.got: asyncio.Queue[float] = asyncio.Queue()

    def deliver(self, item: Outbound) -> None:
        if isinstance(item, SocialOut):
            encode(item.message)
            self.got.put_nowait(time.perf_counter())


class Conn:
    def __init__(self, account_id: str) -> None:
        self.core = Core(account_id)
        self.relaying = False


def _node(name: str, conns: dict[str, Conn]) -> FriendsDesk:
    service = SocialService(time.time)
    service.memory.set_link(relations.Link("alice", "bob", relations.LinkKind.FRIENDS), "alice", "bob")
    return FriendsDesk(service, cast(Any, Lobby()), cast(Any, conns), SystemClock())


async def _run(bus_one: SocialBus, bus_two: SocialBus, messages: int) -> dict[str, Any]:
    alice, bob = Conn("alice"), Conn("bob")
    one, two = _node("n1", {"alice": alice}), _node("n2", {"bob": bob})
    await one.connect(bus_one)
    await two.connect(bus_two)
    one.welcomed("alice", "alice")
    await asyncio.wait_for(bob.core.got.get(), 10)  # alice's first presence: the bus is live
    await asyncio.sleep(0.2)
    while not bob.core.got.empty():
        bob.core.got.get_nowait()
    out: dict[str, Any] = {}
    for kind in ("presence", "invite"):
        latencies = []
        cpu = time.process_time()
        for i in range(messages):
            sent = time.perf_counter()
            if kind == "presence":
                alice.core.following = f"m-{i}" if i % 2 == 0 else None
                one.moved("alice")
            else:
                refused = one.invite(cast(Any, alice.core), "bob", "BENCH", i)
                assert refused is None, refused
            got = await asyncio.wait_for(bob.core.got.get(), 10)
            latencies.append((got - sent) * 1000)
        cpu = time.process_time() - cpu
        latencies.sort()
        out[kind] = {
            "messages": messages,
            "cpu_us_per_msg": cpu / messages * 1e6,
            "p50_ms": statistics.median(latencies),
            "p99_ms": latencies[int(len(latencies) * 0.99) - 1],
        }
    await one.close()
    await two.close()
    return out


async def _bare(one: SocialBus, two: SocialBus, messages: int) -> dict[str, Any]:
    """The bus alone: a presence-sized payload published by one and handled by the other."""
    got: asyncio.Queue[float] = asyncio.Queue()

    def heard(topic: str, payload: Payload) -> None:
        if payload.get("node") != two.node_id:  # its own is handed to it at once: not the bus's work
            got.put_nowait(time.perf_counter())

    two.subscribe("bench", heard)
    payload = {"node": one.node_id, "entries": [["alice", "alice", "at_table", "m-1", False]]}
    latencies = []
    cpu = time.process_time()
    for _ in range(messages):
        sent = time.perf_counter()
        await one.publish("bench", payload)
        latencies.append((await asyncio.wait_for(got.get(), 10) - sent) * 1000)
    cpu = time.process_time() - cpu
    latencies.sort()
    return {
        "messages": messages,
        "cpu_us_per_msg": cpu / messages * 1e6,
        "p50_ms": statistics.median(latencies),
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1],
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    friends_module.INVITE_BURST, friends_module.INVITE_PER_S = 10**9, 1e9  # measure, do not limit
    in_one, in_two = local_nodes("n1", "n2")
    results = {"in-process": await _run(in_one, in_two, args.messages)}
    prefix = f"bench-social-{secrets.token_hex(3)}"
    clients = [Redis.from_url(args.redis_url, decode_responses=True) for _ in range(4)]
    first = RedisBus(clients[0], node_id="n1", prefix=prefix, listen_redis=clients[1])
    second = RedisBus(clients[2], node_id="n2", prefix=prefix, listen_redis=clients[3])
    try:
        await first.start()
        await second.start()
        results["redis"] = await _run(first, second, args.messages)
        results["redis"]["bare bus"] = await _bare(first, second, args.messages)
    finally:
        await first.close()
        await second.close()
        for client in clients:
            await client.aclose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    for bus, kinds in results.items():
        for kind, r in kinds.items():
            print(
                f"{bus:>10} {kind:>9}: {r['messages']} msgs, {r['cpu_us_per_msg']:.1f} us CPU/msg, "
                f"p50 {r['p50_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms"
            )
    redis, floor = results["redis"], results["in-process"]
    print(
        f"social cluster: presence {redis['presence']['cpu_us_per_msg']:.1f} us CPU/msg via Redis "
        f"(floor {floor['presence']['cpu_us_per_msg']:.1f} us in-process), invite "
        f"{redis['invite']['cpu_us_per_msg']:.1f} us (floor {floor['invite']['cpu_us_per_msg']:.1f} us); "
        f"the Redis bus alone {redis['bare bus']['cpu_us_per_msg']:.1f} us"
    )
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
