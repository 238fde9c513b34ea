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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.frames import CloseCode
from websockets.protocol import State

from client_protocol import PROTOCOL_VERSION
from client_protocol.codec import encode
from client_protocol.errors import ErrorCode
from client_protocol.messages import GuestAuth, Hello, Join, QueueTarget, SessionAuth
from server.domain.records import Account
from server.hub.adapter import (
    Authenticate,
    AuthenticateBearer,
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

    async def route_player(self, account_id: str) -> str | None:
        """Cluster mode: the websocket URL of the node running this player's live match when that
        is another node (None: here, or none)."""
        ...

    async def route_match(self, match_id: str) -> str | None:
        """Cluster mode: the websocket URL of the node running ``match_id`` when that is another
        node (None: here, or nowhere known)."""
        ...

    async def route_invite(self, code: str) -> str | None:
        """Cluster mode: the websocket URL of the node where private table ``code`` waits."""
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

    def relay_headers(
        self, client_address: str | None, *, waited_s: float | None = None
    ) -> list[tuple[str, str]]:
        """Cluster mode: the headers to relay a client from ``client_address`` with (and, for a
        queued player handed over, how long it has waited)."""
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
        self._relay_to: tuple[str, str] | None = None  # cluster mode: (owner node's URL, session token)
        self._session_token: str | None = None
        # cluster mode: handed over to its queue's matcher node (server.hub.crossnode): the relay
        # once it is open (None: it could not be), and the task that opens it and pipes its frames
        self._handoff: asyncio.Future[ClientConnection | None] | None = None
        self._handoff_task: asyncio.Task[None] | None = None
        self._waited = host.queued_for(ws)  # handed over to this node after waiting that long

    @property
    def account(self) -> Account:
        """The authenticated account (only asked for after it registered with the hub)."""
        return self.core.account

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
                        upstream = await self._handoff
                        if upstream is not None:
                            await upstream.send(frame)
                            continue
                    request = core.receive(frame)
                    if request is not None:
                        if await self._relayed(request, frame):
                            break
                        try:
                            await self._perform(request)
                        except Exception:
                            core.request_failed(request)
            elif self._relay_to is not None:
                await self._relay(*self._relay_to, first=None, skip_welcome=False)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception(
                "%s: connection handler failed", self.session_id, extra={"session": self.session_id}
            )
            self._outbox.close(CloseCode.INTERNAL_ERROR, "internal error")
        finally:
            if self._handoff_task is not None:
                self._handoff_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._handoff_task
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
            self._session_token = token
            owner = await self._host.route_player(account.id) if token is not None else None
            if owner is not None and token is not None:
                self._relay_to = (owner, token)  # its table runs on another node: relay it all
                return False
            core.authenticated(account)
            self._host.register(self)
            follow_up = core.welcome(token)
            if follow_up is not None:
                await self._perform(follow_up)
            return True

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
            case Spectate(match_id=match_id, request_id=rid):
                await lobby.spectate(core, match_id, rid)
            case Resume(match_id=match_id, since_version=since, request_id=rid):
                await lobby.resume(core, match_id, since, rid)

    async def _relayed(self, request: LobbyRequest, frame: str | bytes) -> bool:
        """Cluster mode: a resume or spectate of a match another node runs, or a join of a private
        table waiting on another node (docs/scaling.md), is relayed there (with everything after
        it); True once the relay is over. A quick-match join queues here first: the lobby hands
        the player over later if it is not paired here (:meth:`hand_off`)."""
        token, lobby = self._session_token, self._host.lobby
        if isinstance(request, JoinPrivate) and not lobby.has_invite(request.code) and token is not None:
            owner = await self._host.route_invite(request.code)
        elif (
            isinstance(request, Resume | Spectate) and not lobby.table(request.match_id) and token is not None
        ):
            owner = await self._host.route_match(request.match_id)
        else:
            return False
        if owner is None or token is None:
            return False
        if isinstance(request, Resume):
            self.core.stop_following()  # its frames go to the other node from now on
        # a guest's session must be in the shared database for the owner node to accept it
        await self._host.auth.store_guest(self.core.account.id)
        return await self._relay(owner, token, first=frame, skip_welcome=True)

    async def _relay(self, url: str, token: str, *, first: str | bytes | None, skip_welcome: bool) -> bool:
        """Relay this client's frames to the node at ``url`` and back, as that node's client: it
        says hello with the player's session token (the sessions are in the shared database), then
        everything is passed on untouched, so resume, acks, errors and redaction all happen on the
        node that runs the table. When that node closes (it drains, or died), the client is told
        to reconnect (1012). False when it cannot be reached (nothing was relayed)."""
        try:
            upstream = await connect(
                url,
                open_timeout=self._limits.open_timeout_s,
                compression=None,
                max_size=None,
                additional_headers=self._host.relay_headers(self.address),
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
            log.warning("%s: cannot reach the node at %s: %s", self.session_id, url, exc)
            return False
        try:
            await upstream.send(encode(Hello(protocol=PROTOCOL_VERSION, auth=SessionAuth(token))).decode())
            if skip_welcome:
                await upstream.recv()  # the client has its welcome already
            if first is not None:
                await upstream.send(first)
            down = asyncio.create_task(self._downstream(upstream), name=f"relay-{self.session_id}")
            try:
                async for frame in self._ws:
                    if down.done():
                        break
                    await upstream.send(frame)
            finally:
                down.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await down
        except ConnectionClosed:
            pass
        finally:
            await upstream.close()
        self._outbox.close(CloseCode.SERVICE_RESTART, "the table's server node went away; reconnect")
        return True

    def hand_off(self, url: str, queue: str, request_id: int | None, since: float) -> bool:
        """Cluster mode: the lobby took this player, queued here since ``since``, out of ``queue``
        to hand it over to the queue's matcher node at ``url``: relay the connection there from
        now on, starting with a ``join`` of the queue (and how long it has waited). False when it
        cannot be relayed (no session token: an API-token connection; over; relayed already)."""
        token = self._session_token
        if token is None or self._handoff is not None or not self._outbox.open or self._replaced:
            return False
        self._handoff = asyncio.get_running_loop().create_future()
        join = encode(Join(target=QueueTarget(preset=queue), request_id=request_id)).decode()
        self._handoff_task = asyncio.create_task(
            self._run_handoff(url, token, join, (queue, request_id, since)), name=f"handoff-{self.session_id}"
        )
        return True

    async def _run_handoff(
        self, url: str, token: str, join: str, queued: tuple[str, int | None, float]
    ) -> None:
        ready = self._handoff
        assert ready is not None
        queue, request_id, since = queued
        waited = self._host.clock.now() - since
        upstream: ClientConnection | None = None
        try:
            upstream = await connect(
                url,
                open_timeout=self._limits.open_timeout_s,
                compression=None,
                max_size=None,
                additional_headers=self._host.relay_headers(self.address, waited_s=waited),
            )
            await upstream.send(encode(Hello(protocol=PROTOCOL_VERSION, auth=SessionAuth(token))).decode())
            await upstream.recv()  # its welcome: the client has its own
            await upstream.send(join)
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as exc:
            log.warning("%s: cannot hand over to the node at %s: %s", self.session_id, url, exc)
            if upstream is not None:
                await upstream.close()
            self._handoff = None
            ready.set_result(None)
            if self._outbox.open and not self._replaced:  # it waits here again, in its place
                self._host.lobby.requeue(self.core, queue, request_id, since)
            return
        except asyncio.CancelledError:
            if upstream is not None:
                await upstream.close()
            ready.set_result(None)
            raise
        ready.set_result(upstream)
        try:
            await self._downstream(upstream)
        finally:
            await upstream.close()

    async def _downstream(self, upstream: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in upstream:
                if not self._outbox.put(frame.encode() if isinstance(frame, str) else frame):
                    return
        self._outbox.close(CloseCode.SERVICE_RESTART, "the table's server node closed; reconnect")

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
