"""The hub process: the websockets server, its HTTP endpoints, and graceful shutdown.

URLs (all on one port)::

    ws://HOST:PORT/ws            the Jantaku protocol (docs/protocol.md)
    ws://HOST:PORT/mjai          mjai bots (docs/mjai.md)
    anything else                the one HTTP application (``http_app``, server/web/api/app.py):
                                 health, readiness, metrics, private and live tables, the
                                 players' API, the browser client's files (server/hub/asgi.py);
                                 without one, 404

Browsers must come from an allowed ``Origin``: this server's own (the scheme is ``http`` or
``https``, host and port those of the ``Host`` header) or one of ``allowed_origins`` (scheme, host
and port compared); clients that send no ``Origin`` (bots, scripts) are accepted.

Start: the matches the store has as running are resumed first (crash recovery, ``Lobby.recover``).

Shutdown (SIGTERM/SIGINT in ``jantaku serve``): first the drain window (:meth:`Hub.drain`,
``drain_s``): ``/readyz`` answers 503 while everything else goes on as before, so that a load
balancer moves new traffic elsewhere; a second signal ends it early. Then stop accepting
connections, refuse new joins, let every table finish the message it is handling (its commit
included), then close every connection with 1012 after its queued messages, waiting at most
``shutdown_grace_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

from server.domain.ports import Repository
from server.domain.socialbus import SocialBus
from server.engine.rules import Ruleset
from server.hub import asgi
from server.hub.adapter import EventStatus, SeatConnection
from server.hub.admission import AddressLimiter
from server.hub.clock import Clock, SystemClock
from server.hub.connection import WebSocketConnection
from server.hub.friends import FriendsDesk
from server.hub.gcpolicy import GcPauses
from server.hub.livetables import LiveTables
from server.hub.lobby import Lobby
from server.hub.lobbydesk import lobby_desk
from server.hub.lobbytypes import RecoveryReport
from server.hub.looplag import LoopLag
from server.hub.metrics import HubMetrics
from server.hub.mjai import MJAI_PATH, MjaiSession
from server.hub.outputs import Participant
from server.hub.placement import QUEUE_HEADER, RELAY_HEADER, LocalPlacement, Placement
from server.hub.session import ProtocolSession
from server.hub.settings import ConnectionLimits, HubSettings
from server.hub.socialbus import LocalBus
from server.hub.stats import LatencyStats, TimedConnection
from server.hub.stats import enabled as stats_enabled
from server.hub.tablechat import TableChat
from server.services.auth import Authenticator
from server.services.ratings import RatingStore
from server.services.social import SocialService
from server.services.tables import TableAnswer, TableCommand, TableFactory

log = logging.getLogger(__name__)

WS_PATH = "/ws"


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of a browser Origin (``http``/``https`` only, default ports made
    explicit, host lower-cased); None when it is not one."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), parts.hostname
    if (
        scheme not in _DEFAULT_PORTS
        or not host
        or parts.path not in ("", "/")
        or parts.query
        or parts.username
    ):
        return None
    return scheme, host.lower(), port if port is not None else _DEFAULT_PORTS[scheme]


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """No Origin (not a browser) is fine; a browser must come from this server's own origin or an
    allowed one, compared by scheme, host and port.

    The server's own origin is the ``Host`` the browser connected to: the same host and port (the
    default port of the Origin's scheme when ``Host`` names none), over ``http`` or ``https`` (TLS
    may end at a proxy in front). Entries of ``allowed`` match exactly (``"*"``: any origin).

    >>> origin_allowed(None, "example.org", ())
    True
    >>> origin_allowed("http://example.org:8765", "example.org:8765", ())
    True
    >>> origin_allowed("http://example.org:8000", "example.org:8765", ())  # another port
    False
    >>> origin_allowed("ws://example.org:8765", "example.org:8765", ())  # not a web page's origin
    False
    >>> origin_allowed("https://evil.test", "example.org:8765", ())
    False
    >>> origin_allowed("https://friend.test", "example.org", ("https://friend.test",))
    True
    >>> origin_allowed("http://friend.test", "example.org", ("https://friend.test",))  # another scheme
    False
    >>> origin_allowed("https://friend.test:444", "example.org", ("https://friend.test",))
    False
    """
    if origin is None:
        return True
    if "*" in allowed:
        return True
    key = _origin_key(origin)
    if key is None:
        return False
    if any(_origin_key(a) == key for a in allowed):
        return True
    if not host:
        return False
    try:
        own = urlsplit(f"//{host}")
        own_host, own_port = own.hostname, own.port
    except ValueError:
        return False
    scheme, origin_host, origin_port = key
    return (
        own_host is not None
        and origin_host == own_host.lower()
        and origin_port == (own_port if own_port is not None else _DEFAULT_PORTS[scheme])
    )


class Hub:
    """Everything one server process runs: auth, lobby, tables, connections."""

    def __init__(
        self,
        settings: HubSettings,
        repo: Repository,
        *,
        clock: Clock | None = None,
        rulesets: Mapping[str, Ruleset] | None = None,
        seed_source: Callable[[], bytes] | None = None,
        rng: random.Random | None = None,
        wall: Callable[[], float] = time.time,
        http_app: asgi.AsgiApp | None = None,
        ratings: RatingStore | None = None,
        placement: Placement | None = None,
        social: SocialService | None = None,
    ) -> None:
        self.settings = settings
        self.ratings = ratings  # ranked rooms (server.services.ranked); None: no ranked play
        # Every plain HTTP request on this port goes to it (server/hub/asgi.py); None: 404.
        self.http_app = http_app
        self._placement: Placement = placement or LocalPlacement()
        self.repo = repo
        self._clock = clock or SystemClock()
        self._auth = Authenticator(repo, session_ttl_s=settings.session_ttl_s, wall=wall)
        limits = settings.limits
        self._connects = AddressLimiter(
            limits.connect_per_ip_per_s, limits.connect_per_ip_burst, self._clock.now
        )
        self._guest_hellos = AddressLimiter(
            limits.guest_per_ip_per_s, limits.guest_per_ip_burst, self._clock.now
        )
        # Prometheus series of this hub (GET /metrics), in a registry of its own.
        self.metrics = HubMetrics()
        self._lobby = Lobby(
            repo=repo,
            clock=self._clock,
            settings=settings,
            rulesets=rulesets,
            seed_source=seed_source,
            rng=rng,
            metrics=self.metrics,
            wall=wall,
            placement=placement,
            store_guest=self._auth.store_guest,
            ratings=ratings,
            hand_off=self._hand_off,
        )
        self.rating_service = self._lobby.rating_service  # None: no ranked play
        self.chat = TableChat(social or SocialService(wall), self._clock, limits)  # beside the tables
        self._by_account: dict[str, WebSocketConnection] = {}
        # chat, presence and invites between nodes: one process's bus until cluster mode's (use_bus)
        self.bus: SocialBus = LocalBus()
        # friends' presence and invitations (server/hub/friends.py)
        self.friends = FriendsDesk(self.chat.service, self._lobby, self._by_account, self._clock)
        self.chat.tags_of = lambda match_id: self._lobby.factory.tags.get(match_id, {})
        for kind, mode in settings.table_chat:  # jantaku serve --table-chat KIND=MODE
            self.chat.service.set_room_text(kind, mode)
        # the most free text a private table's creator may choose: the server's rule for private tables
        self._lobby.private_chat = lambda: self.chat.service.policy("private:").seated_text
        # lobby channels and reports, on the hub's bus
        self.lobby_chat = lobby_desk(self.chat, repo, settings.lobby, self._lobby, self.bus)
        # GET /tables/live: the tables a spectator may watch, rebuilt at most every 2 s.
        self.live_tables = LiveTables(lambda: list(self._lobby.tables.values()), now=self._clock.now)
        self.live_tables.find = self._lobby.tables.get
        self.metrics.watch(
            tables=lambda: sum(1 for t in self._lobby.tables.values() if t.running),
            connections=lambda: len(self._sessions),
        )
        # One adapter per websocket path: our protocol at /ws, mjai at /mjai (docs/mjai.md).
        self.adapters: dict[str, type[SeatConnection]] = {WS_PATH: ProtocolSession, MJAI_PATH: MjaiSession}
        # Benchmarks: JANTAKU_HUB_STATS=1 times each action and answers GET /stats (server/hub/stats.py).
        self.stats = LatencyStats() if stats_enabled() else None
        if self.stats is not None:
            self.metrics.commit_hook = self.stats.commits.record
        # Every garbage-collector pause while the hub runs (/metrics; /stats) (server/hub/gcpolicy.py).
        self.gc_pauses = GcPauses(self.metrics.observe_gc_pause)
        self.metrics.before_expose(self.gc_pauses.flush)
        # Benchmarks: how late the loop runs what is due, and how much of it is the GC's (looplag.py).
        self.loop_lag = LoopLag(lambda: sum(self.gc_pauses.total)) if self.stats is not None else None
        self._lag_task: asyncio.Task[None] | None = None
        self._sessions: set[WebSocketConnection] = set()
        self._server: Server | None = None
        self._port: int | None = None
        self.recovery = RecoveryReport()  # what start() resumed or flagged
        # Called with the matches this node took over from a dead node (cluster mode), once resumed.
        self.on_takeover: Callable[[Sequence[str]], Awaitable[None]] | None = None
        self.event_status: EventStatus | None = None  # the event service's (an event bot's hello)
        self.closing = False
        self.draining = False  # the drain window before a shutdown: /readyz says 503, all else goes on
        self._ready = False  # listening, tables recovered, the repository open; not shutting down

    @property
    def ready(self) -> bool:
        """What ``GET /readyz`` answers: started (so the repository is open), not draining and not
        shutting down."""
        return self._ready and not self.closing and not self.draining

    # -- what a cluster node reads and asks (server.cluster.node.NodeHost) ---------------------------

    @property
    def table_count(self) -> int:
        return sum(1 for t in self._lobby.tables.values() if t.running)

    @property
    def connection_count(self) -> int:
        return len(self._sessions)

    def queue_waiting(self, queue: str) -> int:
        """How many players wait in quick-match ``queue`` on this node."""
        return self._lobby.waiting(queue)

    async def recover_orphans(self, match_ids: Collection[str]) -> None:
        """Rebuild those of ``match_ids`` (running matches whose owner died) the placement lets
        this node claim, exactly as crash recovery does at start."""
        found = await self._lobby.recover(match_ids)
        self.recovery.resumed += found.resumed
        self.recovery.diverged += found.diverged
        self.recovery.unrecoverable += found.unrecoverable
        if found.resumed and self.on_takeover is not None:
            await self.on_takeover(found.resumed)  # e.g. the events' seat locks and substitutes

    async def control_table(self, match_id: str, command: TableCommand) -> TableAnswer | None:
        """Do ``command`` on the table of ``match_id`` if it runs here (another node's request:
        its table factory found it on this node); None when it does not run here."""
        return await self._lobby.factory.control_here(match_id, command)

    # -- SessionHost ---------------------------------------------------------------------------------

    @property
    def auth(self) -> Authenticator:
        return self._auth

    @property
    def lobby(self) -> Lobby:
        return self._lobby

    @property
    def tables(self) -> TableFactory:
        """The table factory of this hub (``server.services.tables``): what a tournament director or
        any other service makes tables and reaches live ones through."""
        return self._lobby.factory

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def limits(self) -> ConnectionLimits:
        return self.settings.limits

    def register(self, session: WebSocketConnection) -> None:
        old = self._by_account.get(session.account.id)
        self._by_account[session.account.id] = session
        # a player handed over from node to node may come back to the node relaying it (its
        # queue's matcher moved here): that relay is the way to the client, not an older tab
        if old is not None and old is not session and not (old.handing_off and session.handed_over):
            old.replaced()
        if isinstance(session.core, ProtocolSession):
            session.core.bind_chat(self.chat, session.address)
            if self.lobby_chat is not None:
                session.core.bind_lobby(self.lobby_chat, session.address)
            session.core.bind_friends(self.friends)
        account = session.account
        session.core.on_move = lambda: self.friends.moved(account.id)
        self.friends.welcomed(account.id, account.name)

    def guest_allowed(self, session: WebSocketConnection) -> bool:
        return self._guest_hellos.take(session.address)

    def client_address(self, ws: ServerConnection, request: Request | None = None) -> str | None:
        """The client's address for the per-address limits: the peer's, unless the peer is
        another node of the cluster relaying a client and vouching for its real address (a signed
        :data:`RELAY_HEADER`; from anyone else the header is ignored)."""
        remote = ws.remote_address
        peer = str(remote[0]) if remote else None
        request = request if request is not None else ws.request
        value = request.headers.get(RELAY_HEADER) if request is not None else None
        if value is None:
            return peer
        real = self._placement.relayed_address(value)
        if real is None:
            log.debug(
                "ignored a %s header from %s (not signed by a node of this cluster)", RELAY_HEADER, peer
            )
        return real if real is not None else peer

    def unregister(self, session: WebSocketConnection) -> None:
        if self._by_account.get(session.account.id) is session:
            del self._by_account[session.account.id]
            self.friends.moved(session.account.id)

    def moved(self, session: WebSocketConnection) -> None:
        if self._by_account.get(session.account.id) is session:
            self.friends.moved(session.account.id)

    def connection_of(self, account_id: str) -> WebSocketConnection | None:
        return self._by_account.get(account_id)

    @property
    def placement(self) -> Placement:
        return self._placement

    def _hand_off(self, p: Participant, url: str, queue: str, request_id: int | None, since: float) -> bool:
        """Cluster mode: relay the connection of ``p``, queued here since ``since``, to the node at
        ``url``, its queue's matcher (``server.hub.crossnode``; one process never names one)."""
        conn = self._by_account.get(p.account.id)
        if conn is None or conn.core is not p:
            return False
        return conn.hand_off(url, queue, request_id, since)

    def queued_for(self, ws: ServerConnection) -> float | None:
        """How long the player relayed on ``ws`` waited in its queue on the node that handed it
        over (a :data:`QUEUE_HEADER` signed by a node of this cluster), else None."""
        request = ws.request
        value = request.headers.get(QUEUE_HEADER) if request is not None else None
        return None if value is None else self._placement.relayed_wait(value)

    # -- serving -------------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._port is not None, "not started"
        return self._port

    @property
    def url(self) -> str:
        return f"ws://{self._display_host()}:{self.port}{WS_PATH}"

    @property
    def serves_browser_client(self) -> bool:
        return self.http_app is not None

    def stats_document(self, *, heap: bool = False, reset: bool = False) -> dict[str, Any] | None:
        """What ``GET /stats`` answers (None when the hub keeps no stats): latency percentiles, the
        GC's pauses (``heap``: also the frozen heap's size, a walk of the whole heap: a long stall)
        and the loop's lag; ``reset`` opens a new window after reading."""
        if self.stats is None:
            return None
        summary = {**self.stats.summary(), "gc": self.gc_pauses.summary(heap=heap)}
        if self.loop_lag is not None:
            summary["loop"] = self.loop_lag.summary()
        if reset:
            self.stats.reset()
            self.gc_pauses.reset()
            if self.loop_lag is not None:
                self.loop_lag.reset()
        return summary

    def not_ready_reason(self) -> str | None:
        """Why ``GET /readyz`` answers 503 (None: ready)."""
        if self.ready:
            return None
        return "draining" if self.draining and not self.closing else "not ready"

    async def use_bus(self, bus: SocialBus) -> None:
        """Cluster mode: lobby chat, presence, invitations and friends' changes reach the other
        nodes through ``bus`` (started; its owner closes it) from now on (docs/social.md)."""
        self.bus = bus
        if self.lobby_chat is not None:
            self.lobby_chat.use_bus(bus)
        await self.friends.connect(bus)

    def urls(self) -> dict[str, str]:
        base = f"{self._display_host()}:{self.port}"
        return {
            "browser": f"http://{base}/",
            "websocket": f"ws://{base}{WS_PATH}",
            "health": f"http://{base}/healthz",
            "ready": f"http://{base}/readyz",
            "metrics": f"http://{base}/metrics",
            "private": f"http://{base}/private/new?preset=tenhou&bots=0",
            "live": f"http://{base}/tables/live",
            "mjai": f"ws://{base}{MJAI_PATH}",
        }

    def _display_host(self) -> str:
        host = self.settings.host
        if host in ("", "0.0.0.0", "::"):
            return "127.0.0.1"
        return f"[{host}]" if ":" in host else host

    async def start(self) -> None:
        """Resume the matches the store has as running (crash recovery), then listen."""
        self.recovery = await self._lobby.recover()
        await self.chat.service.load()  # the links, mutes and sanctions chat is checked against
        if self.rating_service is not None:
            # A ranked match whose result was stored but whose rating write failed: rate it now.
            rated = await self.rating_service.rate_pending()
            if rated:
                log.info("rated %d ranked matches left unrated", rated)
        self.gc_pauses.register()
        if self.loop_lag is not None:
            self._lag_task = asyncio.create_task(self.loop_lag.run(), name="loop-lag")
        limits = self.settings.limits
        self._server = await serve(
            self._handle,
            self.settings.host,
            self.settings.port,
            compression=None,
            max_size=limits.max_message_bytes,
            max_queue=16,
            write_limit=limits.write_limit,
            open_timeout=limits.open_timeout_s,
            ping_interval=limits.ping_interval_s,
            ping_timeout=limits.ping_timeout_s,
            close_timeout=limits.close_timeout_s,
            process_request=self._process_request,
            process_response=self._process_response,
            server_header="jantaku",
        )
        self._port = int(next(iter(self._server.sockets)).getsockname()[1])
        self._ready = True
        log.info("serving on %s", self.url)

    async def _handle(self, ws: ServerConnection) -> None:
        send_buffer = self.settings.limits.send_buffer_bytes
        sock = ws.transport.get_extra_info("socket")
        if send_buffer is not None and sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        assert ws.request is not None
        path = urlsplit(ws.request.path).path
        core = self.adapters[path]
        stats = self.stats
        if stats is not None and path == WS_PATH:
            ws = cast(ServerConnection, TimedConnection(ws, stats))
        session = WebSocketConnection(self, ws, core)
        self._sessions.add(session)
        if stats is not None:
            stats.opened()
        try:
            await session.run()
        finally:
            self._sessions.discard(session)
            if not self.closing:
                self.metrics.disconnects.inc()
            if stats is not None:
                stats.closed()

    async def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        if path in self.adapters:  # a websocket path: admission, then websockets' handshake
            if not self._connects.take(self.client_address(connection, request)):
                return asgi.error_response(429, "rate_limited", "too many connections; wait a little")
            origin = request.headers.get("Origin")
            if not origin_allowed(origin, request.headers.get("Host"), self.settings.allowed_origins):
                log.info("refused a websocket from origin %r", origin)
                return asgi.error_response(403, "forbidden", "origin not allowed")
            if self.closing:
                return asgi.error_response(503, "unavailable", "shutting down")
            return None
        if self.http_app is None:
            return asgi.error_response(404, "not_found", f"no route {path}")
        local = connection.local_address
        return await asgi.answer(
            self.http_app,
            request,
            client=self.client_address(connection, request),
            server=(str(local[0]), int(local[1])) if local else None,
        )

    def _process_response(
        self, connection: ServerConnection, request: Request, response: Response
    ) -> Response | None:
        """websockets' own refusal of a bad upgrade (missing headers: 400, 426) in the one error
        shape; the 101 of an accepted upgrade goes out untouched."""
        if response.status_code == 101 or urlsplit(request.path).path not in self.adapters:
            return None
        return asgi.as_error(response)

    # -- shutdown ------------------------------------------------------------------------------------

    async def drain(self, seconds: float, *, interrupt: asyncio.Event | None = None) -> None:
        """The drain window before :meth:`shutdown`: for ``seconds`` (or until ``interrupt`` is
        set: a second signal), ``/readyz`` answers 503 while the hub goes on serving everything,
        so that a load balancer stops sending new traffic first. 0: no window."""
        if seconds <= 0 or self.closing:
            return
        self.draining = True
        log.info("draining for %g s: /readyz answers 503, then the server stops", seconds)
        waiting = interrupt.wait() if interrupt is not None else asyncio.Event().wait()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await waiting

    async def shutdown(self) -> None:
        """Stop accepting, stop the tables after their current message, close everyone with 1012."""
        if self.closing:
            return
        self.closing = True
        self._ready = False
        log.info("shutting down")
        if self.stats is not None:
            log.info("stats: %s", json.dumps(self.stats.summary()))
        if self._server is not None:
            self._server.close(close_connections=False)
        running = [m for m, t in self._lobby.tables.items() if t.running and not t.finished]
        await self._lobby.shutdown()
        if running:
            try:  # cluster mode: other nodes take the tables before their clients come back
                await self._placement.hand_over(running)
            except Exception:
                log.exception("handing the tables over failed")
        sessions = list(self._sessions)
        for session in sessions:
            session.close(CloseCode.SERVICE_RESTART, "server restarting")
        grace = self.settings.shutdown_grace_s
        if sessions:
            await asyncio.gather(*(s.finish(grace) for s in sessions), return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await self._server.wait_closed()
        await self.friends.close()
        self.gc_pauses.unregister()
        if self._lag_task is not None:
            self._lag_task.cancel()
        log.info("stopped")


@contextlib.asynccontextmanager
async def running_hub(settings: HubSettings, repo: Repository, **options: Any) -> AsyncIterator[Hub]:
    """Start a hub and shut it down afterwards (tests, embedding)."""
    hub = Hub(settings, repo, **options)
    await hub.start()
    try:
        yield hub
    finally:
        await hub.shutdown()
