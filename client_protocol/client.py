"""An async Python client of the Jantaku protocol, over ``websockets``' asyncio API.

>>> async def play(url: str) -> None:  # doctest: +SKIP
...     async with await Client.connect(url, GuestAuth(name="bot")) as client:
...         await client.join_queue("tenhou")
...         async for message in client:
...             if isinstance(message, Prompt):
...                 await client.act(message.legal_actions[0])
...             elif isinstance(message, MatchEnd):
...                 break

One background task reads the socket: acks, errors and pongs that answer this client's own requests
resolve the awaiting :meth:`Client.act` / :meth:`Client.ping`; every other message is queued for
iteration, in order. Events of the current match are folded into :attr:`Client.tracker` (a
:class:`~client_protocol.tracker.MatchTracker`) before they are handed out; an event already seen is
dropped, and a gap in the versions makes the client ``resume`` by itself.

When the connection drops, iteration raises :class:`ConnectionLostError`; :meth:`Client.reconnect`
opens a new connection as the same player (with the session token from ``welcome``) and resumes the
current match from the last version seen. A ``resume`` answered ``busy_retry`` (a cluster whose node
running the match died or drained, before another node runs it) is sent again every
:data:`RESUME_RETRY_S` until the match is found.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from types import TracebackType
from typing import Any, Self

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from client_protocol import PROTOCOL_VERSION
from client_protocol.codec import decode_server, encode
from client_protocol.errors import (
    ConnectionLostError,
    ErrorCode,
    ProtocolError,
    RequestRejectedError,
)
from client_protocol.messages import (
    MAX_SERVER_MESSAGE_BYTES,
    Ack,
    Act,
    Action,
    Auth,
    Chat,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    GuestAuth,
    Hello,
    Invite,
    Join,
    JoinTarget,
    Leave,
    LineRef,
    LobbyJoin,
    LobbySay,
    MatchEnd,
    Ping,
    Pong,
    PrivateTarget,
    Prompt,
    QueueTarget,
    Report,
    ReportPlace,
    Resume,
    Seated,
    ServerMessage,
    SessionAuth,
    Snapshot,
    SpectateTarget,
    Stamp,
    TokenAuth,
    Welcome,
)
from client_protocol.tracker import MatchTracker

__all__ = [
    "Client",
    "ConnectionLostError",
    "GuestAuth",
    "ProtocolError",
    "RequestRejectedError",
    "SessionAuth",
    "TokenAuth",
]

CLIENT_NAME = f"jantaku-python/{PROTOCOL_VERSION}"
RESUME_RETRY_S = 1.0  # a resume answered busy_retry is sent again this much later


class _Lost:
    """Queued by the reader of connection ``generation`` when that connection ends."""

    __slots__ = ("error", "generation")

    def __init__(self, generation: int, error: ConnectionLostError) -> None:
        self.generation = generation
        self.error = error


_Item = ServerMessage | ProtocolError | _Lost


class Client:
    """One player's connection to a Jantaku server (re-openable with :meth:`reconnect`).

    Use :meth:`connect` to create one; it is an async context manager and an async iterator of
    server messages. Not safe for use from several event loops.
    """

    def __init__(
        self,
        url: str,
        auth: Auth,
        *,
        client_name: str | None = CLIENT_NAME,
        timeout: float = 10.0,
        connect_options: dict[str, Any] | None = None,
        hints: bool = False,
    ) -> None:
        self.url = url
        self.auth = auth
        self.client_name = client_name
        self.hints = hints  # ask for the prompts' hints (waits, tiles left, furiten) in the hello
        self.timeout = timeout
        self._connect_options = {
            "max_size": MAX_SERVER_MESSAGE_BYTES,
            "compression": None,
            "open_timeout": timeout,
            **(connect_options or {}),
        }
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._generation = 0
        self._closed = False
        self._queue: asyncio.Queue[_Item] = asyncio.Queue()
        self._pending: dict[int, asyncio.Future[Ack]] = {}
        self._pings: dict[int, asyncio.Future[Pong]] = {}
        # Request ids must stay unique per seat and match even across a restart of this process, so
        # they start from the wall clock (milliseconds x 1000, well below 2**53 for centuries).
        self._request_ids = itertools.count(time.time_ns() // 1_000_000 * 1000)
        self._nonces = itertools.count(1)
        self._resync_pending = False
        self._resume_rid: int | None = None  # the request id of the last resume sent
        self._retries: set[asyncio.Task[None]] = set()
        self.welcome: Welcome | None = None
        self.match_id: str | None = None
        self.seat: int | None = None
        self.tracker: MatchTracker | None = None
        self.last_prompt: Prompt | None = None

    # ------------------------------------------------------------------------------------------------
    # Connection

    @classmethod
    async def connect(cls, url: str, auth: Auth | str, **options: Any) -> Client:
        """Open a connection and authenticate; ``auth`` may be a bot/player token string.

        Raises :class:`RequestRejectedError` when the server refuses the hello (``bad_version``,
        ``unauthenticated``, ...) and :class:`ConnectionLostError` when it cannot be reached.
        """
        client = cls(url, TokenAuth(token=auth) if isinstance(auth, str) else auth, **options)
        await client._open(client.auth)
        return client

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        return self._ws is not None and self._reader is not None and not self._reader.done()

    async def close(self) -> None:
        """Close the connection for good; iteration then stops."""
        self._closed = True
        await self._drop_transport()

    async def reconnect(self) -> Welcome:
        """Open a new connection as the same player and resume the current match, if any.

        Authenticates with the session token of the last ``welcome``; if the server no longer knows
        that session, falls back to the original credentials of a token client.
        """
        await self._drop_transport()
        self._closed = False
        if self.welcome is None:
            welcome = await self._open(self.auth)
        else:
            try:
                welcome = await self._open(SessionAuth(session_token=self.welcome.session_token))
            except RequestRejectedError as exc:
                if exc.code is not ErrorCode.UNAUTHENTICATED or not isinstance(self.auth, TokenAuth):
                    raise
                welcome = await self._open(self.auth)
        if self.match_id is not None:
            await self.resume(self.match_id)
        return welcome

    async def _open(self, auth: Auth) -> Welcome:
        try:
            ws = await connect(self.url, **self._connect_options)
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            raise ConnectionLostError(f"cannot connect to {self.url}: {exc}") from exc
        try:
            await ws.send(
                encode(
                    Hello(protocol=PROTOCOL_VERSION, auth=auth, client=self.client_name, hints=self.hints)
                ),
                text=True,
            )
            async with asyncio.timeout(self.timeout):
                raw = await ws.recv()
            reply = decode_server(raw)
        except ConnectionClosed as exc:
            raise _lost(exc) from exc
        except TimeoutError:
            await ws.close()
            raise ConnectionLostError(f"no welcome from {self.url} within {self.timeout} s") from None
        except ProtocolError:
            await ws.close()
            raise
        match reply:
            case Welcome():
                pass
            case ErrorMessage(code=code, message=message):
                await ws.close()
                raise RequestRejectedError(code, message)
            case _:
                await ws.close()
                raise ProtocolError(
                    ErrorCode.MALFORMED, f"expected welcome, got {reply.__struct_config__.tag!r}"
                )
        self.welcome = reply
        # Request ids are unique per seat and match, across reconnections: continue above the last
        # one the server applied (a restarted client does not know which ids it used).
        top = max((s.last_request_id or 0 for s in reply.seats), default=0)
        self._request_ids = itertools.count(max(next(self._request_ids), top + 1))
        self._generation += 1
        self._ws = ws
        self._resync_pending = False
        self._reader = asyncio.create_task(self._read(ws, self._generation), name="jantaku-client-reader")
        return reply

    async def _drop_transport(self) -> None:
        ws, reader = self._ws, self._reader
        self._ws = None
        self._reader = None
        if ws is not None:
            await ws.close()
        if reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    # ------------------------------------------------------------------------------------------------
    # Requests

    async def join_queue(self, preset: str = "tenhou") -> None:
        """Queue for a quick match; ``queued`` and later ``seated`` arrive through iteration."""
        await self.join(QueueTarget(preset=preset))

    async def join_private(self, code: str) -> None:
        await self.join(PrivateTarget(code=code))

    async def spectate(self, match_id: str, *, caster: bool = False) -> None:
        """Watch ``match_id``; ``caster``: every hand open, where the table offers a caster view."""
        await self.join(SpectateTarget(match_id=match_id, view="caster" if caster else "public"))

    async def join(self, target: JoinTarget) -> None:
        await self._send(Join(target=target, request_id=next(self._request_ids)))

    async def leave(self, match_id: str | None = None) -> None:
        await self._send(Leave(match_id=match_id, request_id=next(self._request_ids)))

    async def chat(self, text: str) -> int:
        """Say ``text`` at the table this connection follows; returns the request id. The line comes
        back as a ``chat`` message (a refusal as an ``error`` with this id) through iteration."""
        rid = next(self._request_ids)
        await self._send(Chat(text=text, request_id=rid))
        return rid

    async def stamp(self, stamp: str) -> int:
        """Send a stamp (docs/social.md) at the table this connection follows; as :meth:`chat`."""
        rid = next(self._request_ids)
        await self._send(Stamp(stamp=stamp, request_id=rid))
        return rid

    async def lobby_join(self, channel: str = "general") -> int:
        """Follow a lobby channel (docs/social.md, "Lobby chat"): a ``lobby_history`` answers, then
        every ``lobby_line`` said there comes through iteration. Returns the request id."""
        rid = next(self._request_ids)
        await self._send(LobbyJoin(channel=channel, request_id=rid))
        return rid

    async def lobby_say(self, channel: str, text: str | None = None, *, stamp: str | None = None) -> int:
        """Say ``text`` (or send ``stamp``) in a lobby channel this connection follows."""
        rid = next(self._request_ids)
        await self._send(LobbySay(channel=channel, text=text, stamp=stamp, request_id=rid))
        return rid

    async def report(
        self, account_id: str | None, reason: str, *, place: str | None = None, line_id: int | None = None
    ) -> int:
        """Report a player, or one of its lines (``place`` ``lobby`` or ``table`` and the line's
        ``id``), to the moderators; a ``reported`` message answers."""
        rid = next(self._request_ids)
        line = None if place is None or line_id is None else LineRef(place=ReportPlace(place), id=line_id)
        await self._send(Report(account_id=account_id, reason=reason, line=line, request_id=rid))
        return rid

    async def invite(self, to: str, code: str) -> int:
        """Invite the friend ``to`` (an account id) to the private table ``code`` this player opened
        or waits at; returns the request id (``invite_sent`` or an ``error`` comes back with it)."""
        rid = next(self._request_ids)
        await self._send(Invite(to=to, code=code, request_id=rid))
        return rid

    async def resume(self, match_id: str | None = None, since_version: int | None = None) -> None:
        """Ask for the events of ``match_id`` after ``since_version`` (default: the last one seen)."""
        match_id = match_id or self.match_id
        if match_id is None:
            raise ValueError("resume: no match_id given and no current match")
        if match_id != self.match_id:
            self._follow(match_id, self._seat_in(match_id))
        if since_version is None:
            since_version = self.tracker.version if self.tracker is not None else 0
        rid = next(self._request_ids)
        self._resume_rid = rid
        await self._send(Resume(match_id=match_id, since_version=since_version, request_id=rid))

    async def act(
        self,
        action: Action,
        *,
        step: int | None = None,
        request_id: int | None = None,
        timeout: float | None = None,
    ) -> Ack:
        """Send ``action`` for ``step`` (default: the last prompt's) and wait for its ack.

        Raises :class:`RequestRejectedError` (``illegal_action``, ``stale_step``, ...) when the server
        refuses it and :class:`ConnectionLostError` when the connection drops before the answer; after
        a reconnection, sending the same ``request_id`` again is safe (it is applied at most once).
        """
        if step is None:
            if self.last_prompt is None:
                raise ValueError("act: no prompt received yet, so no step to echo")
            step = self.last_prompt.step
        rid = next(self._request_ids) if request_id is None else request_id
        future: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            await self._send(Act(request_id=rid, step=step, action=action))
            async with asyncio.timeout(timeout):
                return await future
        finally:
            self._pending.pop(rid, None)

    async def ping(self, timeout: float | None = None) -> float:
        """Round-trip time of an application-level ping, in seconds."""
        nonce = next(self._nonces)
        future: asyncio.Future[Pong] = asyncio.get_running_loop().create_future()
        self._pings[nonce] = future
        start = time.perf_counter()
        try:
            await self._send(Ping(nonce=nonce))
            async with asyncio.timeout(timeout if timeout is not None else self.timeout):
                await future
        finally:
            self._pings.pop(nonce, None)
        return time.perf_counter() - start

    async def _send(self, message: ClientMessage) -> None:
        ws = self._ws
        if ws is None:
            raise ConnectionLostError("not connected")
        try:
            await ws.send(encode(message), text=True)
        except ConnectionClosed as exc:
            raise _lost(exc) from exc

    # ------------------------------------------------------------------------------------------------
    # Receiving

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> ServerMessage:
        try:
            return await self.recv()
        except ConnectionLostError:
            if self._closed:
                raise StopAsyncIteration from None
            raise

    async def recv(self) -> ServerMessage:
        """The next message (prompts, events, snapshots, errors not tied to an ``act``, ...).

        Raises :class:`ConnectionLostError` once the queued messages of a lost connection are
        consumed, and :class:`ProtocolError` for a frame the server should not have sent.
        """
        while True:
            if self._closed and self._queue.empty():
                raise ConnectionLostError("the client is closed")
            item = await self._queue.get()
            if isinstance(item, _Lost):
                if item.generation == self._generation:
                    raise item.error
                continue  # the end of a connection already replaced
            if isinstance(item, ProtocolError):
                raise item
            return item

    async def _read(self, ws: ClientConnection, generation: int) -> None:
        error = ConnectionLostError("connection closed")
        try:
            async for raw in ws:
                try:
                    message = decode_server(raw)
                except ProtocolError as exc:
                    if exc.code is not ErrorCode.UNKNOWN_TYPE:  # a newer server's message: skip it
                        self._queue.put_nowait(exc)
                    continue
                await self._dispatch(message)
        except ConnectionClosed as exc:
            error = _lost(exc)
        else:
            error = ConnectionLostError(
                f"connection closed ({ws.close_code}): {ws.close_reason}",
                code=ws.close_code,
                reason=ws.close_reason or "",
            )
        finally:
            futures: list[asyncio.Future[Any]] = [*self._pending.values(), *self._pings.values()]
            for future in futures:
                if not future.done():
                    future.set_exception(error)
            self._queue.put_nowait(_Lost(generation, error))

    async def _dispatch(self, message: ServerMessage) -> None:
        match message:
            case Ack(request_id=rid) if rid in self._pending:
                _resolve(self._pending[rid], message)
                return
            case ErrorMessage(request_id=rid) if rid is not None and rid in self._pending:
                future = self._pending[rid]
                if not future.done():
                    future.set_exception(RequestRejectedError(message.code, message.message, request_id=rid))
                return
            case ErrorMessage(code=ErrorCode.BUSY_RETRY, request_id=rid) if (
                rid is not None and rid == self._resume_rid
            ):
                # The match is moving between the server's nodes (cluster mode: its node died or
                # drained): resume again in a moment, until a node runs it.
                task = asyncio.create_task(self._resume_again(rid), name="jantaku-client-resume")
                self._retries.add(task)
                task.add_done_callback(self._retries.discard)
            case Pong(nonce=nonce):
                if nonce is not None and nonce in self._pings:
                    _resolve(self._pings[nonce], message)
                return
            case Seated(match_id=match_id, seat=seat):
                self._follow(match_id, seat)
            case Prompt():
                self.last_prompt = message
            case EventMessage(match_id=match_id) if match_id == self.match_id:
                if not await self._track(message):
                    return
            case Snapshot(match_id=match_id) if match_id == self.match_id:
                self.tracker = MatchTracker.from_snapshot(message)
                self.seat = message.view.seat
                self._resync_pending = False
            case MatchEnd(match_id=match_id) if match_id == self.match_id:
                self.last_prompt = None
            case _:
                pass
        self._queue.put_nowait(message)

    async def _track(self, message: EventMessage) -> bool:
        """Fold an event into the tracker; False when it must not be handed out (seen, after a gap,
        or inconsistent with the events before it)."""
        tracker = self.tracker
        if tracker is None:
            tracker = self.tracker = MatchTracker(message.match_id, self.seat)
        if message.version <= tracker.version:
            return False
        if message.version != tracker.version + 1:
            await self._resync(tracker)
            return False
        try:
            tracker.apply(message)
        except ProtocolError as exc:  # the stream contradicts itself: report it and start over
            self._queue.put_nowait(exc)
            await self._resync(tracker)
            return False
        self._resync_pending = False
        return True

    async def _resync(self, tracker: MatchTracker) -> None:
        """Ask once for what follows the last good version (the server answers with events or a snapshot)."""
        if not self._resync_pending:
            self._resync_pending = True
            with contextlib.suppress(ConnectionLostError):
                await self.resume(tracker.match_id, tracker.version)

    async def _resume_again(self, rid: int) -> None:
        await asyncio.sleep(RESUME_RETRY_S)
        if rid == self._resume_rid and self.match_id is not None and self.connected:
            with contextlib.suppress(ConnectionLostError):
                await self.resume(self.match_id)

    def _follow(self, match_id: str, seat: int | None) -> None:
        if match_id != self.match_id:
            self.match_id = match_id
            self.tracker = MatchTracker(match_id, seat)
            self.last_prompt = None
        self.seat = seat

    def _seat_in(self, match_id: str) -> int | None:
        if self.welcome is not None:
            for info in self.welcome.seats:
                if info.match_id == match_id:
                    return info.seat
        return None


def _resolve(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _lost(exc: ConnectionClosed) -> ConnectionLostError:
    frame = exc.rcvd or exc.sent
    if frame is None:
        return ConnectionLostError(f"connection lost: {exc}")
    return ConnectionLostError(f"connection closed: {exc}", code=frame.code, reason=frame.reason)
