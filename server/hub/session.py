"""Our websocket protocol's adapter: one :class:`ProtocolSession` per connection.

It reads frames, decodes each once (``client_protocol.codec``; anything bad is answered with a typed
``error`` and changes nothing), authenticates the ``hello``, rate-limits, and routes requests to the
lobby or to the table this connection follows, as inbox messages whose seat is the one of the
authenticated player (the table derives it from the connection, never from a message field).

In the other direction it implements :class:`~server.hub.outputs.Participant`: what tables and the
lobby deliver (engine values, already redacted) is turned into protocol messages, encoded and queued
in the connection's :class:`~server.hub.connection.Outbox`. A catch-up after a join or resume is the
missing events, or a snapshot (the same fold a client does: ``client_protocol.tracker``) when more
than ``snapshot_after`` are missing.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from typing import Protocol

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from client_protocol import PROTOCOL_VERSION
from client_protocol.codec import decode_client, encode
from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import (
    Ack,
    Act,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    Hello,
    Join,
    Leave,
    Left,
    MatchEnd,
    MatchResult,
    Ping,
    Player,
    PlayerKind,
    Pong,
    PrivateTarget,
    Prompt,
    Queued,
    QueueTarget,
    Resume,
    Seated,
    SeatInfo,
    ServerMessage,
    SpectateTarget,
    TablePlayer,
    Welcome,
)
from client_protocol.tracker import MatchTracker
from server.domain.records import Account
from server.hub.auth import Authenticator, AuthError
from server.hub.clock import Clock, with_deadline
from server.hub.connection import ConnectionAdapter, Outbox, TokenBucket
from server.hub.inbox import ActRequest, Detach
from server.hub.lobby import Lobby
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    ErrorOut,
    EventsOut,
    LeftOut,
    MatchEndOut,
    Outbound,
    Participant,
    PromptOut,
    QueuedOut,
    SeatedOut,
)
from server.hub.settings import ConnectionLimits
from server.hub.wire import action_from_wire, event_to_wire, legal_actions_to_wire

log = logging.getLogger(__name__)

CLOSE_NORMAL = 1000
CLOSE_POLICY = 1008
CLOSE_INTERNAL = 1011
CLOSE_RESTART = 1012
MAX_PROMPT_CREDIT = 8


class SessionHost(Protocol):
    """What a session needs from the hub."""

    @property
    def auth(self) -> Authenticator: ...

    @property
    def lobby(self) -> Lobby: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def limits(self) -> ConnectionLimits: ...

    def register(self, session: ConnectionAdapter) -> None:
        """The session authenticated: it becomes its player's only live connection."""
        ...

    def unregister(self, session: ConnectionAdapter) -> None: ...


class SeatConnection(Participant, ConnectionAdapter):
    """What every connection adapter (our protocol, mjai) shares: the per-connection state, the
    outbox and rate limit, the frame loop and the hand-back of seats when the connection ends.
    Subclasses implement ``_hello`` (authenticate; False refuses) and ``_on_frame``."""

    ID_PREFIX = "c"

    def __init__(self, host: SessionHost, ws: ServerConnection) -> None:
        self._host = host
        self._ws = ws
        self._limits = host.limits
        self.session_id = f"{self.ID_PREFIX}-{secrets.token_hex(6)}"
        self._outbox = Outbox(ws, self._limits.outbound_queue, name=self.session_id)
        self._bucket = TokenBucket(self._limits.rate_per_s, self._limits.rate_burst, host.clock.now)
        self._violations = 0
        self._account: Account | None = None
        self._match_id: str | None = None  # the match this connection plays or watches
        self._seat: int | None = None
        self._replaced = False
        self._gone = False  # the connection is over: seats given to it now are handed back at once

    async def _hello(self) -> bool:
        raise NotImplementedError

    async def _on_frame(self, frame: str | bytes) -> None:
        raise NotImplementedError

    def _deliver(self, item: Outbound) -> None:
        """Render ``item`` in this adapter's protocol and queue it."""
        raise NotImplementedError

    # -- Participant ---------------------------------------------------------------------------------

    @property
    def participant_id(self) -> str:
        return self.session_id

    @property
    def account(self) -> Account:
        assert self._account is not None, "no account before hello"
        return self._account

    def deliver(self, item: Outbound) -> None:
        """Never raises into the table: a failure to render drops this connection only."""
        try:
            self._deliver(item)
        except Exception:
            log.exception(
                "%s: cannot deliver %s",
                self.session_id,
                type(item).__name__,
                extra={"session": self.session_id},
            )
            self._outbox.drop("internal error while sending")

    def _count_violation(self) -> bool:
        """Count a rate-limited or malformed message; True when the connection is being closed."""
        self._violations += 1
        if self._violations >= self._limits.max_violations:
            log.info(
                "%s: closed after %d violations",
                self.session_id,
                self._violations,
                extra={"session": self.session_id},
            )
            self._outbox.close(CLOSE_POLICY, "too many bad or excessive messages")
            return True
        return False

    async def run(self) -> None:
        try:
            if await self._hello():
                async for frame in self._ws:
                    if not self._outbox.open or self._replaced:
                        break
                    await self._on_frame(frame)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception(
                "%s: connection handler failed", self.session_id, extra={"session": self.session_id}
            )
            self._outbox.close(CLOSE_INTERNAL, "internal error")
        finally:
            self._cleanup()
            await self._outbox.finish(self._limits.close_timeout_s + 1.0)

    def _cleanup(self) -> None:
        self._gone = True
        if self._account is None:
            return
        lobby = self._host.lobby
        lobby.forget(self)
        if self._match_id is not None:
            table = lobby.table(self._match_id)
            if table is not None:
                table.submit(Detach(self))
        self._host.unregister(self)


class ProtocolSession(SeatConnection):
    """One websocket connection speaking the Jantaku protocol (a :class:`Participant`)."""

    def __init__(self, host: SessionHost, ws: ServerConnection) -> None:
        super().__init__(host, ws)
        self._prompted = 0  # prompts delivered and not yet answered: their acts skip the rate limit

    # -- Participant ---------------------------------------------------------------------------------

    def _deliver(self, item: Outbound) -> None:
        self._track(item)
        for message in self._render(item):
            if not self._send(message):
                return

    def _track(self, item: Outbound) -> None:
        match item:
            case SeatedOut(match_id=match_id) | CatchupOut(match_id=match_id) if self._gone:
                table = self._host.lobby.table(match_id)  # seated while closing: leave at once
                if table is not None:
                    table.submit(Detach(self))
            case SeatedOut(match_id=match_id, seat=seat) | CatchupOut(match_id=match_id, seat=seat):
                self._match_id, self._seat = match_id, seat
            case MatchEndOut(match_id=match_id) | LeftOut(match_id=match_id) if match_id == self._match_id:
                self._match_id, self._seat = None, None
            case _:
                pass

    def _render(self, item: Outbound) -> Iterator[ServerMessage]:
        match item:
            case QueuedOut(preset=preset, players_waiting=n):
                yield Queued(preset=preset, players_waiting=n)
            case SeatedOut(match_id=match_id, seat=seat, players=players):
                yield Seated(
                    match_id=match_id,
                    seat=seat,
                    players=tuple(TablePlayer(name=p.name, kind=PlayerKind(p.kind.value)) for p in players),
                )
            case EventsOut(match_id=match_id, first_version=first, events=events):
                for i, event in enumerate(events):
                    yield EventMessage(match_id=match_id, version=first + i, event=event_to_wire(event))
            case CatchupOut():
                yield from self._catchup(item)
            case PromptOut():
                yield Prompt(
                    match_id=item.match_id,
                    step=item.step,
                    seat=item.seat,
                    version=item.version,
                    legal_actions=legal_actions_to_wire(item.legal),
                    deadline_ms=item.deadline_ms,
                    bank_ms=item.bank_ms,
                )
            case AckOut(request_id=rid, step=step, duplicate=duplicate):
                yield Ack(request_id=rid, step=step, duplicate=duplicate)
            case ErrorOut(code=code, message=message, request_id=rid):
                yield ErrorMessage(code=code, message=message, request_id=rid)
            case MatchEndOut(match_id=match_id, reason=reason, result=result):
                yield MatchEnd(
                    match_id=match_id,
                    reason=reason,
                    result=None
                    if result is None
                    else MatchResult(
                        scores=result.scores, ranks=result.ranks, final_points=result.final_points
                    ),
                )
            case LeftOut(match_id=match_id):
                yield Left(match_id=match_id)

    def _catchup(self, item: CatchupOut) -> Iterator[ServerMessage]:
        total = len(item.events)
        since = item.since_version
        if since == total:
            return
        if since < total and total - since <= self._limits.snapshot_after:
            for v in range(since + 1, total + 1):
                yield EventMessage(match_id=item.match_id, version=v, event=event_to_wire(item.events[v - 1]))
            return
        # Too much was missed (or the client claims versions we never sent): one snapshot instead,
        # folded exactly as a client folds the events.
        tracker = MatchTracker(item.match_id, item.seat)
        for v, event in enumerate(item.events, start=1):
            tracker.apply(EventMessage(match_id=item.match_id, version=v, event=event_to_wire(event)))
        yield tracker.snapshot()

    def _send(self, message: ServerMessage) -> bool:
        if isinstance(message, Prompt):
            self._prompted = min(self._prompted + 1, MAX_PROMPT_CREDIT)
        return self._outbox.put(encode(message))

    def _error(self, code: ErrorCode, message: str, request_id: int | None = None) -> None:
        self._send(ErrorMessage(code=code, message=message, request_id=request_id))

    # -- lifecycle -----------------------------------------------------------------------------------

    def close(self, code: int, reason: str) -> None:
        """Close after what is queued (used for replacement and shutdown)."""
        self._outbox.close(code, reason)

    def replaced(self) -> None:
        """A newer connection of the same player took over."""
        self._replaced = True
        self.close(CLOSE_NORMAL, "replaced by a newer connection of the same player")

    async def finish(self, timeout: float) -> None:
        await self._outbox.finish(timeout)

    async def _hello(self) -> bool:
        clock = self._host.clock
        deadline = clock.now() + self._limits.hello_timeout_s
        while True:
            try:
                frame = await with_deadline(clock, self._ws.recv(), deadline, "hello")
            except TimeoutError:
                self._error(ErrorCode.UNAUTHENTICATED, "no hello in time")
                self._outbox.close(CLOSE_POLICY, "no hello")
                return False
            try:
                if isinstance(frame, bytes):
                    raise ProtocolError(ErrorCode.MALFORMED, "binary frames are not part of the protocol")
                message = decode_client(frame, max_bytes=self._limits.max_message_bytes)
            except ProtocolError as exc:
                self._error(exc.code, exc.message, exc.request_id)
                self._outbox.close(CLOSE_POLICY, "bad hello")
                return False
            if not isinstance(message, Hello):
                self._error(
                    ErrorCode.UNAUTHENTICATED, "say hello first", getattr(message, "request_id", None)
                )
                if self._count_violation():
                    return False
                continue
            try:
                authed = await self._host.auth.authenticate(message.auth)
            except AuthError as exc:
                self._error(exc.code, exc.message)
                self._outbox.close(CLOSE_POLICY, "authentication failed")
                return False
            self._account = authed.account
            self._host.register(self)
            seats = tuple(
                SeatInfo(match_id=m, seat=s) for m, s in self._host.lobby.live_seats(authed.account.id)
            )
            log.info(
                "%s: hello from %s (%s, %s)",
                self.session_id,
                authed.account.id,
                authed.account.kind.value,
                message.client or "unknown client",
                extra={"session": self.session_id, "account": authed.account.id},
            )
            self._send(
                Welcome(
                    protocol=PROTOCOL_VERSION,
                    session_id=self.session_id,
                    session_token=authed.session_token,
                    player=Player(
                        id=authed.account.id,
                        name=authed.account.name,
                        kind=PlayerKind(authed.account.kind.value),
                    ),
                    seats=seats,
                    max_message_bytes=self._limits.max_message_bytes,
                )
            )
            return True

    # -- requests ------------------------------------------------------------------------------------

    async def _on_frame(self, frame: str | bytes) -> None:
        try:
            if isinstance(frame, bytes):
                raise ProtocolError(ErrorCode.MALFORMED, "binary frames are not part of the protocol")
            message: ClientMessage | None = decode_client(frame, max_bytes=self._limits.max_message_bytes)
            error = None
        except ProtocolError as exc:
            message, error = None, exc
        # The rate limit: an act answering a prompt is always welcome (a bot playing at full speed
        # never comes near the limit); everything else takes a token from the bucket.
        if isinstance(message, Act) and self._prompted > 0:
            self._prompted -= 1
        elif not self._bucket.take():
            rid = getattr(message, "request_id", None) if error is None else error.request_id
            self._error(ErrorCode.RATE_LIMITED, "too many messages; slow down", rid)
            self._count_violation()
            return
        if error is not None or message is None:
            assert error is not None
            self._error(error.code, error.message, error.request_id)
            self._count_violation()
            return
        try:
            await self._dispatch(message)
        except Exception:
            log.exception(
                "%s: failed to handle %s",
                self.session_id,
                type(message).__name__,
                extra={"session": self.session_id},
            )
            self._error(ErrorCode.INTERNAL, "the server failed on this request; it had no effect")

    async def _dispatch(self, message: ClientMessage) -> None:
        lobby = self._host.lobby
        match message:
            case Ping(nonce=nonce):
                self._send(Pong(nonce=nonce))
            case Hello():
                self._error(ErrorCode.FORBIDDEN, "this connection already said hello")
            case Act(request_id=rid, step=step, action=wire_action):
                if self._match_id is None:
                    self._error(ErrorCode.NOT_YOUR_TURN, "this connection plays no match", rid)
                    return
                if self._seat is None:
                    self._error(ErrorCode.FORBIDDEN, "a spectator cannot act", rid)
                    return
                try:
                    action = action_from_wire(wire_action)
                except ProtocolError as exc:
                    self._error(exc.code, exc.message, rid)
                    return
                table = lobby.table(self._match_id)
                if table is None:
                    self._error(ErrorCode.NOT_YOUR_TURN, f"match {self._match_id} is over", rid)
                    return
                table.submit(ActRequest(self, rid, step, action))
            case Join(target=target, request_id=rid):
                if self._match_id is not None and self._seat is not None:
                    table = lobby.table(self._match_id)
                    if table is not None and not table.finished:
                        self._error(
                            ErrorCode.FORBIDDEN, f"you play in {self._match_id}; leave it before joining", rid
                        )
                        return
                self._stop_following()
                match target:
                    case QueueTarget(preset=preset):
                        await lobby.join_queue(self, preset, rid)
                    case PrivateTarget(code=code):
                        await lobby.join_private(self, code, rid)
                    case SpectateTarget(match_id=match_id):
                        await lobby.spectate(self, match_id, rid)
            case Resume(match_id=match_id, since_version=since, request_id=rid):
                if self._match_id is not None and self._match_id != match_id:
                    self._stop_following()
                await lobby.resume(self, match_id, since, rid)
            case Leave(match_id=match_id, request_id=rid):
                if match_id is None and lobby.leave_queue(self):
                    self._send(Left(match_id=None))
                elif self._match_id is not None and match_id in (None, self._match_id):
                    table = lobby.table(self._match_id)
                    left = self._match_id
                    self._stop_following()
                    if table is not None:
                        table.submit(Detach(self))
                    self._send(Left(match_id=left))
                else:
                    self._error(
                        ErrorCode.NOT_FOUND, f"not waiting for or following {match_id or 'anything'}", rid
                    )

    def _stop_following(self) -> None:
        if self._match_id is None:
            return
        table = self._host.lobby.table(self._match_id)
        if table is not None:
            table.submit(Detach(self))
        self._match_id, self._seat = None, None
