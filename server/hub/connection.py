"""The asyncio layer of a connection: the socket, the outbound queue, and the lobby calls it awaits.

:class:`WebSocketConnection` runs one websocket for a protocol core without I/O
(:class:`~server.hub.adapter.SeatConnection`: ours at ``/ws``, mjai's at ``/mjai``): it reads
frames and feeds them to the core, awaits what the core cannot do without waiting (checking the
hello's credentials, joining a queue or a table through the lobby), writes what the core queued, and
tells the core when the connection is over.

:class:`Outbox` follows python-websockets' broadcast pattern (``websockets.broadcast``: the protocol
object frames the message, the connection writes it, nobody awaits): one bounded queue per
connection, and producers (tables, the lobby) only ever ``put`` without waiting. The frames a
connection is given in one turn of the event loop (an action's events, a prompt and an ack) are
framed and handed to the transport together, in ONE write (one system call), by a callback the
first ``put`` schedules; no task wakes up for them. Only when the transport's buffer is over
``write_limit`` (the client reads slowly) does a task wait for it to drain, while frames queue;
when the queue is full, the next ``put`` drops the connection (aborting the TCP connection: a
closing handshake would wait on the same stalled reader). The client may reconnect and resume. The
queue is a plain list rather than an ``asyncio.Queue`` (whose three deques and event cost about 3 KiB
for each of thousands of mostly idle connections; ``bench/hub.py``, docs/benchmarks.md).

"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol, cast

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.protocol import State

from client_protocol.errors import ErrorCode
from client_protocol.messages import GuestAuth
from server.domain.records import Account
from server.hub.adapter import (
    Authenticate,
    AuthenticateBearer,
    EventStatus,
    HelloRequest,
    JoinPrivate,
    JoinQueue,
    LobbyRequest,
    Resume,
    SeatConnection,
    Spectate,
)
from server.hub.clock import Clock, with_deadline
from server.hub.lobby import Lobby
from server.hub.outputs import ErrorOut
from server.hub.placement import HandOff, Placement, QueuedPlayer, StillMovingError, Upstream
from server.hub.settings import ConnectionLimits
from server.services.auth import Authenticator, AuthError

CLOSE_REPLACED = 4001
"""The close code of a connection replaced by a newer one of the same account (another tab, another
process): a private-use code (4000-4999), with the reason ``"replaced by a newer connection ..."``."""

log = logging.getLogger(__name__)
FIRST = asyncio.FIRST_COMPLETED


class SessionHost(Protocol):
    """What a connection needs from the hub."""

    @property
    def auth(self) -> Authenticator: ...

    @property
    def lobby(self) -> Lobby: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def limits(self) -> ConnectionLimits: ...

    def register(self, connection: WebSocketConnection) -> None:
        """The connection authenticated: it becomes its player's only live connection."""
        ...

    def unregister(self, connection: WebSocketConnection) -> None: ...

    def moved(self, connection: WebSocketConnection) -> None:
        """The connection is relayed to another node from now on (its presence is said there)."""
        ...

    @property
    def placement(self) -> Placement:
        """Where tables run and how a client reaches them (cluster mode: the relay)."""
        ...

    @property
    def event_status(self) -> EventStatus | None:
        """An event's status by id (the event service's; None: this server runs no events)."""
        ...

    def queued_for(self, ws: ServerConnection) -> float | None:
        """Cluster mode: how long the player another node hands over on ``ws`` has waited in its
        queue there (None: not handed over)."""
        ...

    def guest_allowed(self, connection: WebSocketConnection) -> bool:
        """May this connection's address say one more guest hello now (per-address limit)?"""
        ...

    def client_address(self, ws: ServerConnection) -> str | None:
        """The address of the client behind ``ws`` (cluster mode: the one a relaying node
        vouches for, else the peer's)."""
        ...


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class Outbox:
    """A bounded queue of encoded text frames, written a batch per event-loop turn (module docstring)."""

    __slots__ = (
        "_ended",
        "_items",
        "_loop",
        "_maxsize",
        "_name",
        "_scheduled",
        "_task",
        "_written",
        "_ws",
        "closing",
        "dropped",
    )

    def __init__(self, ws: ServerConnection, maxsize: int, *, name: str) -> None:
        self._ws = ws
        self._name = name
        self._items: list[bytes | _Close] = []
        self._maxsize = maxsize
        self._loop = asyncio.get_running_loop()
        self._scheduled = False  # a flush is due in this turn of the loop
        self._task: asyncio.Task[None] | None = None  # waiting for the transport to drain, or closing
        self._ended: asyncio.Future[None] = self._loop.create_future()  # closed, dropped or failed
        # The benchmark's timing (server/hub/stats.py) wraps the connection and sees what is written.
        self._written: Callable[[Sequence[bytes]], None] | None = getattr(ws, "written", None)
        self.dropped = False
        self.closing = False

    @property
    def open(self) -> bool:
        return not (self.dropped or self.closing)

    def put(self, frame: bytes) -> bool:
        """Queue one text frame; drops the connection when the queue is full. Never blocks."""
        if not self.open:
            return False
        if not self._push(frame):
            self.drop("outbound queue full (the client is not reading)")
            return False
        return True

    def close(self, code: int, reason: str) -> None:
        """Close the connection with ``code`` once the frames already queued are written."""
        if not self.open:
            return
        self.closing = True
        if not self._push(_Close(code, reason)):
            self.closing = False
            self.drop(f"outbound queue full while closing ({code} {reason})")

    def _push(self, item: bytes | _Close) -> bool:
        if len(self._items) >= self._maxsize:
            return False
        self._items.append(item)
        if not self._scheduled and self._task is None:
            self._scheduled = True
            self._loop.call_soon(self._flush)
        return True

    def _flush(self) -> None:
        """Write every frame queued so far in one go; then close, if a close was queued."""
        self._scheduled = False
        if self.dropped or self._task is not None or not self._items:
            return
        ws = self._ws
        if ws.protocol.state is not State.OPEN:
            self._items.clear()  # the connection is closing: nothing more can be sent
            self._end()
            return
        if ws.paused:  # the client reads slowly: wait for the transport's buffer to drain
            self._task = self._loop.create_task(self._drain(), name=f"writer-{self._name}")
            return
        items = self._items
        cut = next((i for i, item in enumerate(items) if isinstance(item, _Close)), len(items))
        frames = cast(list[bytes], items[:cut])
        del items[:cut]
        try:
            if frames:
                self._write(frames)
        except Exception:
            log.exception("writer of %s failed", self._name)
            self._fail()
            return
        if items:  # a close: after the frames, with the closing handshake
            close = items.pop(0)
            assert isinstance(close, _Close)
            items.clear()
            self._task = self._loop.create_task(self._close(close), name=f"closer-{self._name}")

    def _write(self, frames: list[bytes]) -> None:
        ws = self._ws
        if self._written is not None:
            self._written(frames)
        protocol = ws.protocol
        for frame in frames:
            protocol.send_text(frame)
        data = protocol.data_to_send()
        ws.transport.write(data[0] if len(data) == 1 else b"".join(data))

    async def _drain(self) -> None:
        try:
            await self._ws.drain()
        except asyncio.CancelledError:
            raise
        except Exception:
            self._end()  # the connection was lost while waiting
            return
        finally:
            self._task = None
        self._flush()

    async def _close(self, close: _Close) -> None:
        try:
            await self._ws.close(close.code, close.reason)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("closing %s failed", self._name)
            self._fail()
        finally:
            self._end()

    def _fail(self) -> None:
        self.dropped = True
        self._items.clear()
        self._ws.transport.abort()
        self._end()

    def _end(self) -> None:
        if not self._ended.done():
            self._ended.set_result(None)

    def drop(self, why: str) -> None:
        """Abort the connection now, discarding what is queued."""
        if self.dropped:
            return
        self.dropped = True
        log.info("connection %s dropped: %s", self._name, why)
        self._items.clear()
        if self._task is not None:
            self._task.cancel()
        self._ws.transport.abort()
        self._end()

    async def finish(self, timeout: float) -> None:
        """Wait until the connection is closed (after a close) or over, dropping it if that takes
        longer than ``timeout``."""
        closed = asyncio.ensure_future(self._ws.wait_closed())  # the client may have gone already
        try:
            done, _ = await asyncio.wait({self._ended, closed}, timeout=timeout, return_when=FIRST)
        finally:
            closed.cancel()
        if not done:
            self.drop("closing took too long")
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class WebSocketConnection:
    """One websocket connection running one protocol core (see the module docstring)."""

    def __init__(self, host: SessionHost, ws: ServerConnection, core: type[SeatConnection]) -> None:
        self._host = host
        self._ws = ws
        self._limits = host.limits
        self.session_id = core.new_session_id()
        self._outbox = Outbox(ws, self._limits.outbound_queue, name=self.session_id)
        self.core = core(self._outbox, host.lobby, host.clock, self._limits, session_id=self.session_id)
        self._replaced = False
        self._relay_to: Upstream | None = None  # cluster mode: to the node its match runs on
        self._unsettled = False  # cluster mode: its match was still between nodes at its hello
        self._session_token: str | None = None
        self._account_id: str | None = None  # once its credentials are checked
        # cluster mode: handed over to its queue's matcher node (server.hub.crossnode)
        self._handoff: HandOff | None = None
        self._waited = host.queued_for(ws)  # handed over to this node after waiting that long

    @property
    def account(self) -> Account:
        """The authenticated account (only asked for after it registered with the hub)."""
        return self.core.account

    @property
    def relaying(self) -> bool:
        """Cluster mode: its frames go to another node (relayed there, or handed over)."""
        return self._relay_to is not None or self._handoff is not None

    @property
    def handing_off(self) -> bool:
        """Cluster mode: relayed to its queue's matcher node (:meth:`hand_off`)."""
        return self._handoff is not None

    @property
    def handed_over(self) -> bool:
        """Cluster mode: a player another node handed over to this one (a signed header said so)."""
        return self._waited is not None

    @property
    def address(self) -> str | None:
        """The client's address (for per-address limits; a relayed client's real one)."""
        return self._host.client_address(self._ws)

    async def run(self) -> None:
        """Serve the connection until it closes."""
        core = self.core
        try:
            if await self._hello():
                async for frame in self._ws:
                    if not self._outbox.open or self._replaced:
                        break
                    if self._handoff is not None:  # handed over: the frames go to the matcher
                        upstream = await self._handoff.ready
                        if upstream is not None:
                            await upstream.send(frame)
                            continue
                    request = core.receive(frame)
                    if request is not None and await self._serve(request, frame):
                        break
            elif self._relay_to is not None:
                await self._relay_to.pipe(self, first=None, skip_welcome=False)
            elif self._unsettled:  # its match moves between nodes: the client comes back in a moment
                self._outbox.close(
                    CloseCode.TRY_AGAIN_LATER, "your match is moving to another server node; reconnect"
                )
        except ConnectionClosed:
            pass
        except Exception:
            log.exception(
                "%s: connection handler failed", self.session_id, extra={"session": self.session_id}
            )
            self._outbox.close(CloseCode.INTERNAL_ERROR, "internal error")
        finally:
            if self._handoff is not None:
                await self._handoff.stop()
            authenticated = core.is_authenticated
            core.connection_lost()
            if authenticated:
                self._host.unregister(self)
            await self._outbox.finish(self._limits.close_timeout_s + 1.0)

    async def _hello(self) -> bool:
        """Until the core has a hello and its credentials are good: False when refused."""
        clock, core = self._host.clock, self.core
        deadline = clock.now() + self._limits.hello_timeout_s
        while True:
            try:
                frame = await with_deadline(clock, self._ws.recv(), deadline, "hello")
            except TimeoutError:
                core.hello_timeout()
                return False
            request = core.receive_hello(frame)
            if request is None:
                if not self._outbox.open:
                    return False
                continue
            try:
                account, token = await self._authenticate(request)
            except AuthError as exc:
                core.refuse(exc.code, exc.message)
                return False
            self._session_token, self._account_id = token, account.id
            try:
                self._relay_to = await self._host.placement.relay_player(
                    self, account.id, here=partial(self._seated_here, account.id)
                )
            except StillMovingError:
                self._unsettled = True
                return False
            if self._relay_to is not None:
                return False  # its table runs on another node: relay it all
            core.authenticated(account)
            self._host.register(self)
            await core.before_welcome(self._host.event_status)
            follow_up = core.welcome(token)
            # what the hello itself asks (mjai: a private table, which may wait on another node)
            return follow_up is None or not await self._serve(follow_up, None)

    async def _serve(self, request: LobbyRequest, frame: str | bytes | None) -> bool:
        """Do what the client asked of the lobby, here or, relayed, on the node concerned; True
        once a relay ended (the connection is over)."""
        try:
            upstream = await self._relayed(request)
        except StillMovingError as exc:
            self.core.deliver(ErrorOut(ErrorCode.BUSY_RETRY, str(exc), request.request_id))
            return False
        if upstream is not None:
            if isinstance(request, Resume):
                self.core.stop_following()  # its frames go to the other node from now on
            self._relay_to = upstream
            self._host.moved(self)  # its presence is the other node's to say now
            await upstream.pipe(self, first=frame, skip_welcome=True)
            return True
        try:
            await self._perform(request)
        except Exception:
            self.core.request_failed(request)
        return False

    async def _authenticate(self, request: HelloRequest) -> tuple[Account, str | None]:
        auth = self._host.auth
        match request:
            case Authenticate(auth=credentials):
                if isinstance(credentials, GuestAuth) and not self._host.guest_allowed(self):
                    raise AuthError(
                        "too many guest hellos from your address; wait a little", ErrorCode.RATE_LIMITED
                    )
                authed = await auth.authenticate(credentials)
                return authed.account, authed.session_token
            case AuthenticateBearer(token=token):
                return await auth.account_for_bearer(token), None

    async def _perform(self, request: LobbyRequest) -> None:
        lobby, core = self._host.lobby, self.core
        match request:
            case JoinQueue(preset=preset, request_id=rid):
                waited, self._waited = self._waited, None  # the join it was handed over with
                await lobby.join_queue(core, preset, rid, waited_s=waited)
            case JoinPrivate(code=code, request_id=rid):
                await lobby.join_private(core, code, rid)
            case Spectate(match_id=match_id, request_id=rid, caster=caster):
                await lobby.spectate(core, match_id, rid, caster=caster)
            case Resume(match_id=match_id, since_version=since, request_id=rid):
                await lobby.resume(core, match_id, since, rid)

    async def _relayed(self, request: LobbyRequest) -> Upstream | None:
        """Cluster mode: a resume or spectate of a match another node runs, or a join of a private
        table waiting on another node (docs/scaling.md), is relayed there: the connection to that
        node (None: served here). A quick-match join queues here first: the lobby hands the
        player over later if it is not paired here (:meth:`hand_off`)."""
        lobby, placement = self._host.lobby, self._host.placement
        if isinstance(request, JoinPrivate) and not lobby.has_invite(request.code):
            return await placement.relay_invite(self, request.code)
        if isinstance(request, Resume | Spectate) and not lobby.table(request.match_id):
            match_id = request.match_id
            return await placement.relay_match(self, match_id, here=lambda: lobby.table(match_id) is not None)
        return None

    def hand_off(self, base_url: str, queue: str, request_id: int | None, since: float) -> bool:
        """Cluster mode: the lobby took this player, queued here since ``since``, out of ``queue``
        to hand it over to the queue's matcher node at ``base_url``: relay the connection there
        from now on (the placement opens it with the client's hello and a join of the queue).
        False when it cannot be relayed (over, or relayed already)."""
        if self._handoff is not None or not self._outbox.open or self._replaced:
            return False
        queued = QueuedPlayer(queue, request_id, since, self._host.clock.now() - since)
        self._handoff = self._host.placement.hand_off(self, base_url, queued)
        if self._handoff is not None:
            self._host.moved(self)
        return self._handoff is not None

    def _seated_here(self, account_id: str) -> bool:
        return bool(self._host.lobby.live_seats(account_id))

    # -- RelayClient (server.hub.placement): this connection as a relay to another node sees it -----

    @property
    def path(self) -> str:
        return self.core.PATH

    @property
    def open_timeout_s(self) -> float:
        return self._limits.open_timeout_s

    def relay_hello(self, *, queue: str | None = None) -> str | None:
        return self.core.relay_hello(self._session_token, queue=queue)

    def relay_join(self, queue: str, request_id: int | None) -> str | None:
        return self.core.relay_join(queue, request_id)

    async def store_session(self) -> None:
        if self._account_id is not None:
            await self._host.auth.store_guest(self._account_id)

    def incoming(self) -> AsyncIterator[str | bytes]:
        return aiter(self._ws)

    def put(self, frame: bytes) -> bool:
        return self._outbox.put(frame)

    def handed_back(self, queued: QueuedPlayer) -> None:
        self._handoff = None
        if self._outbox.open and not self._replaced:  # it waits here again, in its place
            self._host.lobby.requeue(self.core, queued.queue, queued.request_id, queued.since)

    def close(self, code: int, reason: str) -> None:
        """Close after what is already queued (shutdown: 1012)."""
        self._outbox.close(code, reason)

    def replaced(self) -> None:
        """A newer connection of the same account took over: close this one with
        :data:`CLOSE_REPLACED` (a client must not reconnect by itself after it: docs/protocol.md)."""
        self._replaced = True
        self.close(CLOSE_REPLACED, "replaced by a newer connection of the same player")

    async def finish(self, timeout: float) -> None:
        """Wait until the connection is closed, dropping it after ``timeout`` seconds."""
        await self._outbox.finish(timeout)
