"""One node of the cluster: its registry entry, the leases of its tables, and the takeover of the
tables of dead nodes (``docs/scaling.md``).

Redis keys (``PREFIX`` is ``jantaku`` unless ``--cluster-prefix`` says otherwise)::

    PREFIX:node:{id}     hash {url, tables, connections, draining, started}; expires after
                         node_ttl_ms unless refreshed (every heartbeat): a node is live iff it exists
    PREFIX:nodes         set of node ids ever registered (readers drop the ones not live)
    PREFIX:table:{match} the lease: the owner's node id, expiring after lease_ms unless renewed
                         (every heartbeat, one Lua call for all of a node's tables)
    PREFIX:deadlines     sorted set: match id -> when its lease runs out (Redis's own clock, ms),
                         written with the lease by the same Lua call; a handed-over table's entry
                         is 0 (due now), a finished one's is removed. The takeover scan reads only
                         the entries that are due (ZRANGEBYSCORE), not every running match
    PREFIX:seen:{id}     a marker without expiry: when it is gone, Redis lost its data (restarted)
    PREFIX:queue:{name}  the node where quick-match queue ``name`` pairs the players not paired on
                         their own node within the local wait (its matcher, server.hub.crossnode);
                         expires after node_ttl_ms unless renewed (every heartbeat while players
                         wait there), then the next player elects the least-loaded live node

PostgreSQL holds what matters (``matches.fence``): a node takes a match over by taking its lease
(``SET NX``), then bumping its fencing token (:meth:`Repository.acquire_match`), then rebuilding it
from its log with the same replay and check as crash recovery (:meth:`Lobby.recover`). No Redis call
is on the path of a player's action. Every Redis call waits at most ``redis_timeout_s``; while Redis
cannot be reached the node keeps its tables (they write to PostgreSQL; nobody can take them over
without Redis either), places no new table (``busy_retry``) and takes nothing over; when Redis
returns it re-registers and re-asserts its leases at its next heartbeat. After Redis was
unreachable or lost its data, a node waits ``lease_ms`` before taking anything over, so that every
live owner has re-asserted its leases first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Protocol, TypeVar

from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.cluster import relaylink
from server.cluster.control import ControlDesk, ControlHost
from server.cluster.relay import Relays
from server.cluster.settings import ClusterSettings
from server.domain.ports import Repository
from server.domain.records import MatchStatus
from server.hub.placement import QUEUE_HEADER, RELAY_HEADER, HandOff, QueuedPlayer, RelayClient, Upstream
from server.services.tables import TableAnswer, TableCommand

log = logging.getLogger(__name__)
T = TypeVar("T")
REDIS_ERRORS = (RedisError, OSError, TimeoutError)

# Redis's clock in milliseconds (the one clock every node's deadlines are compared with).
_NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) "

# Renew (or re-assert, after Redis lost them) the leases (KEYS[2..]) of the matches ARGV[3..] that
# are ours or nobody's, and their deadlines in the sorted set KEYS[1]; returns how many.
_RENEW_LEASES = (
    _NOW_MS
    + """
local n = 0
for i = 2, #KEYS do
  local v = redis.call('GET', KEYS[i])
  if v == false or v == ARGV[1] then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i + 1])
    n = n + 1
  end
end
return n
"""
)
# Take the lease KEYS[2] of match ARGV[3] if nobody holds it, and write its deadline.
_CLAIM = (
    _NOW_MS
    + """
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  return 1
end
return 0
"""
)
# The matches (at most ARGV[1]) whose lease deadline has passed.
_DUE = _NOW_MS + "return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, ARGV[1])"

# Renew the keys that are ours or nobody's (the quick-match queues' matchers); returns how many.
_RENEW = """
local n = 0
for _, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v == false or v == ARGV[1] then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    n = n + 1
  end
end
return n
"""
# Give the lease KEYS[2] of match ARGV[2] up only if it is still ours (a node that took the match
# over holds it now otherwise); its deadline goes (ARGV[3] = '1': the match ended) or becomes due
# now (a drain: the next takeover scan of another node finds it).
_RELEASE = """
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
  if ARGV[3] == '1' then redis.call('ZREM', KEYS[1], ARGV[2]) else redis.call('ZADD', KEYS[1], 0, ARGV[2]) end
  return 1
end
return 0
"""


# Elect the quick-match queue's matcher: keep the current one while it is live and not draining
# (ARGV[4..] are those nodes; when it is the caller ARGV[3], its name lives ARGV[2] ms more), else
# make it ARGV[1] (the least-loaded, or the caller keeping the name); returns the matcher.
_ELECT = """
local cur = redis.call('GET', KEYS[1])
if cur then
  for i = 4, #ARGV do
    if ARGV[i] == cur then
      if cur == ARGV[3] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
      return cur
    end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
"""


class NodeHost(ControlHost, Protocol):
    """What the node reads from the hub it runs beside (its load) and asks of it (recovery, and
    what another node asks of one of its tables)."""

    @property
    def table_count(self) -> int: ...

    @property
    def connection_count(self) -> int: ...

    @property
    def closing(self) -> bool:
        """Shutting down: it takes nothing over any more."""
        ...

    def queue_waiting(self, queue: str) -> int:
        """How many players wait in quick-match ``queue`` on this node."""
        ...

    async def recover_orphans(self, match_ids: Collection[str]) -> None:
        """Rebuild those of the running matches ``match_ids`` this node may claim
        (``Lobby.recover``)."""
        ...


def redis_client(settings: ClusterSettings) -> Redis:
    """A client whose every call gives up after ``redis_timeout_s`` (connecting included)."""
    timeout = settings.redis_timeout_s
    client: Redis = Redis.from_url(
        settings.redis_url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        decode_responses=True,
        retry_on_timeout=False,
    )
    return client


class ClusterNode:
    """This node (implements :class:`server.hub.placement.Placement` for the lobby)."""

    def __init__(
        self,
        settings: ClusterSettings,
        repo: Repository,
        *,
        redis: Redis | None = None,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.node_id = settings.node_id
        self._repo = repo
        self.redis = redis or redis_client(settings)
        self._wall = wall
        self._now = monotonic
        self.started_at = wall()
        self.owned: set[str] = set()  # the matches whose lease this node holds
        self.orphans: set[str] = set()  # running matches whose lease was missing at the last scan
        self.healthy_since: float | None = None  # Redis answered (without losing data) since then
        self.backstop_at: float | None = None  # the last full check of every running match's lease
        self.backstop_due = True  # Redis (re)appeared or lost its data: check every lease next
        self.draining = False
        self.stopped = False
        self.host: NodeHost | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self.relays = Relays(self)
        self.control_desk = ControlDesk(settings)  # pause/unpause/end of tables on other nodes
        self._renew = self.redis.register_script(_RENEW)
        self._renew_leases = self.redis.register_script(_RENEW_LEASES)
        self._claim = self.redis.register_script(_CLAIM)
        self._due = self.redis.register_script(_DUE)
        self._release = self.redis.register_script(_RELEASE)
        self._elect = self.redis.register_script(_ELECT)
        self.queues: set[str] = set()  # the quick-match queues this node is the matcher of
        # signs and checks the client addresses relayed between nodes: --cluster-secret, else one
        # the nodes share in Redis (PREFIX:link-secret, made by the first node that finds none)
        self._link_secret: bytes | None = settings.secret.encode() if settings.secret else None

    # -- keys ----------------------------------------------------------------------------------------

    def lease_key(self, match_id: str) -> str:
        return self.settings.key("table", match_id)

    @property
    def deadlines_key(self) -> str:
        return self.settings.key("deadlines")

    @property
    def node_key(self) -> str:
        return self.settings.key("node", self.node_id)

    # -- Redis calls, each with its timeout ----------------------------------------------------------

    async def _call(self, awaitable: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self.settings.redis_timeout_s):
                return await awaitable
        except REDIS_ERRORS:
            if self.healthy_since is not None:
                log.warning("redis unreachable: keeping this node's tables, placing no new ones")
            self.healthy_since = None
            raise

    @property
    def may_take_over(self) -> bool:
        """Redis has answered, without losing its data, for at least a lease's life."""
        since = self.healthy_since
        return since is not None and self._now() - since >= self.settings.lease_ms / 1000

    @property
    def _closing(self) -> bool:
        return self.draining or self.stopped or (self.host is not None and self.host.closing)

    # -- Placement -----------------------------------------------------------------------------------

    async def claim(self, match_id: str, *, new: bool) -> bool:
        if not new and (match_id not in self.orphans or not self.may_take_over or self._closing):
            return False
        if new and self.draining:
            return False
        try:
            keys = [self.deadlines_key, self.lease_key(match_id)]
            got = await self._call(
                self._claim(keys=keys, args=[self.node_id, self.settings.lease_ms, match_id])
            )
        except REDIS_ERRORS as exc:
            log.info("cannot place %s: redis: %s", match_id, exc)
            return False
        if not got:
            return False
        self.owned.add(match_id)
        if new:
            return True
        try:
            fence = await self._repo.acquire_match(match_id)
        except Exception:
            log.exception("taking %s over: its fencing token could not be acquired", match_id)
            self.released(match_id, finished=False)
            return False
        self.orphans.discard(match_id)
        log.info("taking match %s over (fencing token %d)", match_id, fence, extra={"match_id": match_id})
        return True

    def released(self, match_id: str, *, finished: bool) -> None:
        if match_id in self.owned and not self.stopped:
            self.owned.discard(match_id)
            self._spawn(self._give_up_lease(match_id, finished))

    async def _give_up_lease(self, match_id: str, finished: bool) -> None:
        keys = [self.deadlines_key, self.lease_key(match_id)]
        with contextlib.suppress(*REDIS_ERRORS):
            await self._call(
                self._release(keys=keys, args=[self.node_id, match_id, "1" if finished else "0"])
            )

    async def locate(self, match_id: str) -> str | None:
        """The lease's owner, then its registry entry's URL: two Redis calls (a resume or a
        spectate of a match not running here; never on an action's path)."""
        if match_id in self.owned:
            return None
        try:
            owner = await self._call(self.redis.get(self.lease_key(match_id)))
            if owner is None or owner == self.node_id:
                return None
            url = await self._call(self.redis.hget(self.settings.key("node", str(owner)), "url"))
        except REDIS_ERRORS:
            return None
        return str(url) if url else None

    async def control(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        """Relayed to the node holding the match's lease (server.cluster.control)."""

        async def owner() -> str | None:
            found = await self._call(self.redis.get(self.lease_key(match_id)))
            return None if found is None else str(found)

        async def running() -> bool:
            match = await self._repo.get_match(match_id)
            return match is not None and match.status is MatchStatus.RUNNING

        return await self.control_desk.relay(match_id, command, owner=owner, running=running)

    def relay_headers(
        self, client_address: str | None, *, waited_s: float | None = None
    ) -> list[tuple[str, str]]:
        """The headers vouching for the real address of a client this node relays, and for how
        long a queued player handed over to its queue's matcher has waited."""
        secret = self._link_secret
        if secret is None:
            return []
        headers = []
        if client_address is not None:
            headers.append((RELAY_HEADER, relaylink.sign(secret, client_address, self._wall())))
        if waited_s is not None:
            headers.append((QUEUE_HEADER, relaylink.sign_wait(secret, waited_s, self._wall())))
        return headers

    def relayed_wait(self, value: str) -> float | None:
        secret = self._link_secret
        return None if secret is None else relaylink.verify_wait(secret, value, self._wall())

    @property
    def queue_local_wait_s(self) -> float | None:
        return self.settings.queue_local_wait_s

    def relayed_address(self, value: str) -> str | None:
        """The client address another node vouches for (None: not a node's, stale, or no secret)."""
        secret = self._link_secret
        return None if secret is None else relaylink.verify(secret, value, self._wall())

    async def invited(self, code: str, ttl_s: float) -> None:
        """``PREFIX:invite:{code}`` = this node, for the invitation's life. Without Redis the
        table can still be joined here."""
        with contextlib.suppress(*REDIS_ERRORS):
            key = self.settings.key("invite", code)
            await self._call(self.redis.set(key, self.node_id, px=max(1, int(ttl_s * 1000))))

    async def locate_invite(self, code: str) -> str | None:
        try:
            owner = await self._call(self.redis.get(self.settings.key("invite", code)))
        except REDIS_ERRORS:
            return None
        return None if owner is None or owner == self.node_id else await self._url_of(str(owner))

    async def _url_of(self, node_id: str) -> str | None:
        try:
            url = await self._call(self.redis.hget(self.settings.key("node", node_id), "url"))
        except REDIS_ERRORS:
            return None
        return str(url) if url else None

    async def locate_player(self, account_id: str) -> str | None:
        """The player's running matches from PostgreSQL (the one truth; one indexed read of their
        ids), their owner from the lease."""
        for match_id in await self._repo.unfinished_matches_of(account_id):
            if match_id not in self.owned:
                url = await self.locate(match_id)
                if url is not None:
                    return url
        return None

    # -- the relay (server.cluster.relay) ------------------------------------------------------------

    async def relay_player(
        self, client: RelayClient, account_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        return await self.relays.to_player(client, account_id, here)

    async def relay_match(
        self, client: RelayClient, match_id: str, *, here: Callable[[], bool]
    ) -> Upstream | None:
        return await self.relays.to_match(client, match_id, here)

    async def relay_invite(self, client: RelayClient, code: str) -> Upstream | None:
        return await self.relays.to_invite(client, code.strip().upper())

    def hand_off(self, client: RelayClient, base_url: str, queued: QueuedPlayer) -> HandOff | None:
        return self.relays.hand_off(client, base_url, queued)

    async def moving(self, match_id: str) -> bool:
        """Running (PostgreSQL), and between owners (:meth:`_between_owners`)."""
        match = await self._repo.get_match(match_id)
        if match is None or match.status is not MatchStatus.RUNNING:
            return False
        return await self._between_owners(match_id)

    async def player_moving(self, account_id: str) -> bool:
        for match_id in await self._repo.unfinished_matches_of(account_id):
            if await self._between_owners(match_id):
                return True
        return False

    async def _between_owners(self, match_id: str) -> bool:
        """No live node runs the table of this running match: nobody holds its lease (its owner
        died and the lease ran out, or it drained, and no node's scan took it yet), or the node
        holding it left the registry (killed: its lease runs out within seconds), or this node
        claimed it and is rebuilding it. A node that is live but advertises no URL runs it (it is
        only unreachable). Redis down: no (nothing can move without it)."""
        if match_id in self.owned:
            return True
        try:
            owner = await self._call(self.redis.get(self.lease_key(match_id)))
            if owner is None or owner == self.node_id:
                return True
            url = await self._call(self.redis.hget(self.settings.key("node", str(owner)), "url"))
        except REDIS_ERRORS:
            return False
        return url is None

    async def locate_queue(self, queue: str, *, keep: bool = False) -> str | None:
        """The matcher of quick-match ``queue`` (where the players not paired on their own node
        are paired): the node named by ``PREFIX:queue:{queue}`` while it is live and not draining,
        else (elected in one Lua call) the least-loaded live node that is not draining (fewest
        tables, then fewest connections), or this node with ``keep`` (it was sent players). Its URL
        if another node; None if this one, or if Redis cannot be asked (the players then stay on
        this node)."""
        if self._closing:
            return None
        try:
            live = await self._live_nodes()
            if not live:
                return None
            chosen = min(live, key=lambda n: (live[n][0], live[n][1], n))
            if keep and self.node_id in live:
                chosen = self.node_id
            key = self.settings.key("queue", queue)
            ttl = self.settings.node_ttl_ms
            args: list[str | int] = [chosen, ttl, self.node_id, *sorted(live)]
            matcher = str(await self._call(self._elect(keys=[key], args=args)))
        except REDIS_ERRORS:
            return None
        if matcher == self.node_id:
            self.queues.add(queue)
            return None
        url = live.get(matcher, (0, 0, ""))[2]
        return url or None

    async def _live_nodes(self) -> dict[str, tuple[int, int, str]]:
        """The live nodes that are not draining and can be reached (an advertised URL, or this
        node): node id -> (tables, connections, url). Two Redis calls."""
        ids = sorted(await self._call(self.redis.smembers(self.settings.key("nodes"))))
        pipe = self.redis.pipeline(transaction=False)
        for node_id in ids:
            pipe.hgetall(self.settings.key("node", str(node_id)))
        entries = await self._call(pipe.execute())
        live: dict[str, tuple[int, int, str]] = {}
        for node_id, entry in zip(ids, entries, strict=True):
            if not entry or entry.get("draining") == "1":
                continue
            url = str(entry.get("url") or "")
            if url or node_id == self.node_id:
                live[str(node_id)] = (int(entry.get("tables") or 0), int(entry.get("connections") or 0), url)
        return live

    async def hand_over(self, match_ids: Sequence[str]) -> None:
        """Drain: place nothing new, give the leases up (the tables stopped at a step boundary),
        and wait until other nodes run every one of them (their takeover scan, within about a
        second), at most ``handover_s``."""
        self.draining = True
        await self.heartbeat()  # the registry says draining: no new table comes here
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)  # the leases released
        keys = [self.lease_key(m) for m in match_ids]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.handover_s
        while loop.time() < deadline:
            try:
                owners = await self._call(self.redis.mget(keys))
            except REDIS_ERRORS:
                owners = []
            if owners and all(o is not None and o != self.node_id for o in owners):
                log.info("drain: %d tables handed over", len(keys))
                return
            await asyncio.sleep(0.1)
        log.warning("drain: not every table was taken over within %s s", self.settings.handover_s)

    # -- running -------------------------------------------------------------------------------------

    async def start(self, host: NodeHost) -> None:
        """Register (if Redis answers; the node serves anyway) and start the heartbeat and the
        takeover scan."""
        self.host = host
        await self.heartbeat()
        self.control_desk.start(host)
        self._loops = [
            asyncio.create_task(self._every(self.settings.heartbeat_s, self.heartbeat), name="cluster-beat"),
            asyncio.create_task(
                self._every(self.settings.takeover_every_s, self.take_over), name="cluster-scan"
            ),
        ]

    async def stop(self) -> None:
        """Stop the loops and leave the registry (the leases of tables still here expire)."""
        self.stopped = True
        for task in self._loops:
            # Cancel until it is done: a cancel that lands inside a Redis call can come out as an
            # error the loop survives (seen under load in CI: a node's stop() then waited forever
            # on its heartbeat), so one cancel may be lost. ``_every`` also stops once ``stopped``.
            while not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=1.0)
        self._loops = []
        await self.control_desk.stop()
        with contextlib.suppress(*REDIS_ERRORS):
            await self._call(self.redis.delete(self.node_key, self.settings.key("seen", self.node_id)))
            await self._call(self.redis.srem(self.settings.key("nodes"), self.node_id))
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        with contextlib.suppress(*REDIS_ERRORS):
            await self.redis.aclose()

    async def _every(self, period: float, step: Callable[[], Awaitable[None]]) -> None:
        task = asyncio.current_task()
        while not self.stopped:
            await asyncio.sleep(period)
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except REDIS_ERRORS:
                pass  # logged once by _call; the next round tries again
            except Exception:
                log.exception("cluster: %s failed", getattr(step, "__name__", step))
            if task is not None and task.cancelling():
                # cancelled, but the cancel was turned into an error on the way (a Redis call's):
                # stop all the same
                raise asyncio.CancelledError

    async def heartbeat(self) -> None:
        """Refresh this node's registry entry and renew (or re-assert) its leases: three calls."""
        host, s = self.host, self.settings
        entry: dict[Any, Any] = {
            "url": s.advertise_url or "",
            "tables": str(host.table_count if host else 0),
            "connections": str(host.connection_count if host else 0),
            "draining": "1" if self.draining else "0",
            "started": f"{self.started_at:.3f}",
        }
        try:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hset(self.node_key, mapping=entry)
            pipe.pexpire(self.node_key, s.node_ttl_ms)
            pipe.sadd(s.key("nodes"), self.node_id)
            pipe.set(s.key("seen", self.node_id), "1", nx=True)
            if s.secret is None:  # the link secret the nodes share (relayed client addresses)
                pipe.set(s.key("link-secret"), secrets.token_hex(32), nx=True)
                pipe.get(s.key("link-secret"))
            replies = await self._call(pipe.execute())
            if s.secret is None and replies[5]:
                self._link_secret = str(replies[5]).encode()
            owned = sorted(self.owned)
            if owned:
                keys = [self.deadlines_key, *(self.lease_key(m) for m in owned)]
                await self._call(self._renew_leases(keys=keys, args=[self.node_id, s.lease_ms, *owned]))
            await self._renew_queues()
        except REDIS_ERRORS:
            return
        if replies[3] or self.healthy_since is None:
            if replies[3] and self.healthy_since is not None:
                log.warning(
                    "redis lost its data (restarted?): leases re-asserted; no takeover for a lease's life"
                )
            elif self.healthy_since is None:
                log.info("redis reachable: registered as %s", self.node_id)
            self.healthy_since = self._now()
            self.backstop_due = True

    async def _renew_queues(self) -> None:
        """Stay the matcher of the queues where players wait here; let the others expire (the
        next player then elects the least-loaded node), and all of them while draining."""
        host = self.host
        waiting: set[str] = set()
        if host is not None and not self.draining:
            waiting = {q for q in self.queues if host.queue_waiting(q)}
        self.queues = waiting
        if waiting:
            keys = [self.settings.key("queue", q) for q in sorted(waiting)]
            await self._call(self._renew(keys=keys, args=[self.node_id, self.settings.node_ttl_ms]))

    async def take_over(self) -> None:
        """Find the running matches whose lease is gone (their owner died, or handed them over)
        and rebuild them here.

        Each second this costs one Redis call (the deadlines that passed), plus, when some did,
        one MGET of their leases and one PostgreSQL read per match found without one: the scan
        grows with what expired, not with the cluster. Every ``backstop_every_s``, and first thing
        once Redis answers again after it was unreachable or lost its data, it reads the ids of
        every running match from PostgreSQL instead (the deadlines live in Redis, which is soft
        state: a dead node's matches are found even when they are gone)."""
        host = self.host
        if host is None or self._closing or not self.may_take_over:
            return
        now = self._now()
        last = self.backstop_at
        full = self.backstop_due or last is None or now - last >= self.settings.backstop_every_s
        if full:
            candidates = [m for m in await self._repo.unfinished_match_ids() if m not in self.owned]
            self.backstop_at, self.backstop_due = now, False
        else:
            due = await self._call(self._due(keys=[self.deadlines_key], args=[self.settings.scan_limit]))
            candidates = [str(m) for m in due if str(m) not in self.owned]
        if not candidates:
            self.orphans = set()
            return
        leases = await self._call(self.redis.mget([self.lease_key(m) for m in candidates]))
        orphans = {m for m, owner in zip(candidates, leases, strict=True) if owner is None}
        if not full:
            orphans = await self._still_running(orphans)
        self.orphans = orphans
        if orphans:
            await host.recover_orphans(orphans)

    async def _still_running(self, match_ids: set[str]) -> set[str]:
        """Those of ``match_ids`` still running in PostgreSQL; the deadlines of the others go (a
        match that ended while Redis could not hear of it)."""
        running: set[str] = set()
        ended: list[str] = []
        for match_id in sorted(match_ids):
            match = await self._repo.get_match(match_id)
            if match is not None and match.status is MatchStatus.RUNNING:
                running.add(match_id)
            else:
                ended.append(match_id)
        if ended:
            with contextlib.suppress(*REDIS_ERRORS):
                await self._call(self.redis.zrem(self.deadlines_key, *ended))
        return running

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
