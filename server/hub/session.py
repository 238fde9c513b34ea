"""Our websocket protocol's core (``docs/protocol.md``): one :class:`ProtocolSession` per connection,
without I/O (:mod:`server.hub.adapter`; the asyncio layer is :mod:`server.hub.connection`).

Frames in: each is decoded once (``client_protocol.codec``; anything bad is answered with a typed
``error`` and changes nothing); the ``hello`` becomes an :class:`~server.hub.adapter.Authenticate`
request; after it, frames are rate-limited and either answered here (``ping``, ``leave``), routed to
the table this connection follows (an ``act``, as an inbox message: the table derives the seat from
the connection, never from a message field, and decides whether it may be applied), or handed to
the I/O layer as lobby requests (``join``, ``resume``).

Frames out: what tables and the lobby deliver (engine values, already redacted) is rendered as
protocol messages, encoded and put in the connection's sink. A catch-up after a join or resume is
the missing events, or a snapshot (the same fold a client does: ``client_protocol.tracker``) when
more than ``snapshot_after`` are missing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import msgspec
from websockets.frames import CloseCode

from client_protocol import PROTOCOL_VERSION
from client_protocol.codec import decode_client, encode
from client_protocol.errors import ErrorCode, ProtocolError
from client_protocol.messages import (
    Ack,
    Act,
    Chat,
    ChatLine,
    ChatRole,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    Hello,
    Invite,
    Join,
    Leave,
    Left,
    LobbyJoin,
    LobbyLeave,
    LobbySay,
    MatchEnd,
    MatchResult,
    Ping,
    PlayedFor,
    PlayedMove,
    Player,
    PlayerKind,
    Pong,
    PrivateTarget,
    Prompt,
    Queued,
    QueueTarget,
    Report,
    Resume,
    Seated,
    SeatInfo,
    ServerMessage,
    SessionAuth,
    SpectateTarget,
    Stamp,
    TablePlayer,
    Welcome,
)
from client_protocol.tracker import MatchTracker
from server.hub.adapter import (
    Authenticate,
    HelloRequest,
    JoinPrivate,
    JoinQueue,
    LobbyRequest,
    SeatConnection,
    Spectate,
    TokenBucket,
)
from server.hub.adapter import Resume as ResumeRequest
from server.hub.friends import FriendsDesk
from server.hub.inbox import ActRequest
from server.hub.lobbychat import LobbyDesk, LobbyMember
from server.hub.outputs import (
    AckOut,
    CatchupOut,
    ChatOut,
    ErrorOut,
    EventsOut,
    LeftOut,
    MatchEndOut,
    Outbound,
    PlayedForOut,
    PromptOut,
    QueuedOut,
    SeatedOut,
    SharedFrames,
    SocialOut,
)
from server.hub.tablechat import ChatLink, TableChat
from server.hub.wire import (
    action_from_wire,
    action_to_wire,
    event_to_wire,
    hints_to_wire,
    legal_actions_to_wire,
)

log = logging.getLogger(__name__)

MAX_PROMPT_CREDIT = 8
_SHARED_KEY = "jantaku-ws"  # this adapter's frames in SharedFrames


class ProtocolSession(SeatConnection):
    """One connection speaking the Jantaku protocol (a :class:`~server.hub.outputs.Participant`)."""

    def _setup(self) -> None:
        self._prompted = 0  # prompts delivered and not yet answered: their acts skip the rate limit
        self._client: str | None = None  # what the client said it is (for the log)
        # A resume of a match it holds a seat in, sent and not yet taken by the table: its acts go
        # to that table, behind the resume in the table's inbox (docs/protocol.md#versions-and-resume).
        self._resuming: str | None = None
        self._hello: Hello | None = None  # its hello, as sent (a relay to another node repeats it)
        self._chat: ChatLink | None = None  # the hub's chat desk, once authenticated (bind_chat)
        self._lobby: LobbyMember | None = None  # lobby chat and reports (bind_lobby)
        self._friends: FriendsDesk | None = None  # presence and invitations (bind_friends)

    def bind_chat(self, desk: TableChat, address: str | None) -> None:
        """Chat and stamps go through ``desk``, rate-limited for this connection and ``address``."""
        self._chat = desk.link(address)

    def bind_lobby(self, desk: LobbyDesk, address: str | None) -> None:
        """Lobby chat and reports (:mod:`server.hub.lobbychat`), with a chat bucket of their own."""
        limits = self._limits
        bucket = TokenBucket(limits.chat_per_s, limits.chat_burst, self._clock.now)
        self._lobby = desk.member(self, address, bucket, self._count_violation)

    def push(self, frame: bytes) -> None:
        """An encoded frame for the client (lobby chat's delivery)."""
        self._outbox.put(frame)

    def connection_lost(self) -> None:
        super().connection_lost()
        if self._lobby is not None:
            self._lobby.leave_all()

    def bind_friends(self, desk: FriendsDesk) -> None:
        """Invitations go through ``desk`` (server/hub/friends.py)."""
        self._friends = desk

    # -- frames out --------------------------------------------------------------------------------

    def _deliver(self, item: Outbound) -> None:
        if isinstance(item, EventsOut) and item.shared is not None:
            self._deliver_events(item, item.shared)
            return
        if isinstance(item, ChatOut):  # one frame for every listener of the line
            frame = item.frames.get(_SHARED_KEY)
            if frame is None:
                frame = item.frames[_SHARED_KEY] = encode(_chat_line(item))
            self._outbox.put(frame)
            return
        for message in self._render(item):
            if not self._send(message):
                return

    def _deliver_events(self, item: EventsOut, shared: SharedFrames) -> None:
        """A published batch: the frame of an event every seat sees alike is encoded by the first
        seat and reused by the others (``SharedFrames``); the others are this seat's own. An event
        the step log rendered already is not rendered again (``SharedFrames.wire_of``)."""
        frames, public = shared.frames, shared.public
        for i, event in enumerate(item.events):
            key = (_SHARED_KEY, i)
            frame = frames.get(key) if public[i] else None
            if frame is None:
                message = EventMessage(
                    match_id=item.match_id, version=item.first_version + i, event=shared.wire_of(i, event)
                )
                frame = encode(message)
                if public[i]:
                    frames[key] = frame
            if not self._outbox.put(frame):
                return

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
                    hints=None if item.hints is None else hints_to_wire(item.hints),
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
            case SocialOut(message=message):
                yield message
            case PlayedForOut(match_id=match_id, moves=moves):
                yield PlayedFor(
                    match_id=match_id,
                    moves=tuple(PlayedMove(step=step, action=action_to_wire(a)) for step, a in moves),
                )

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

    def attached(self, match_id: str, seat: int | None) -> bool:
        self._resuming = None
        return super().attached(match_id, seat)

    # -- the hello ---------------------------------------------------------------------------------

    def receive_hello(self, frame: str | bytes) -> HelloRequest | None:
        try:
            if isinstance(frame, bytes):
                raise ProtocolError(ErrorCode.MALFORMED, "binary frames are not part of the protocol")
            message = decode_client(frame, max_bytes=self._limits.max_message_bytes)
        except ProtocolError as exc:
            self._error(exc.code, exc.message, exc.request_id)
            self._outbox.close(CloseCode.POLICY_VIOLATION, "bad hello")
            return None
        if not isinstance(message, Hello):
            self._error(ErrorCode.UNAUTHENTICATED, "say hello first", getattr(message, "request_id", None))
            self._count_violation()
            return None
        self._client = message.client
        self._wants_hints = message.hints
        self._hello = message
        return Authenticate(message.auth)

    def relay_hello(self, session_token: str | None, *, queue: str | None = None) -> str | None:
        """The client's own hello (``hints``, ``client`` and every other field) with the session
        token this node issued, which every node accepts."""
        hello = self._hello
        if session_token is None or hello is None:
            return None
        return encode(msgspec.structs.replace(hello, auth=SessionAuth(session_token=session_token))).decode()

    def relay_join(self, queue: str, request_id: int | None) -> str | None:
        return encode(Join(target=QueueTarget(preset=queue), request_id=request_id)).decode()

    def hello_timeout(self) -> None:
        self._error(ErrorCode.UNAUTHENTICATED, "no hello in time")
        self._outbox.close(CloseCode.POLICY_VIOLATION, "no hello")

    def refuse(self, code: ErrorCode, message: str) -> None:
        self._error(code, message)
        self._outbox.close(CloseCode.POLICY_VIOLATION, "authentication failed")

    def welcome(self, session_token: str | None) -> LobbyRequest | None:
        assert session_token is not None, "our hello always issues a session token"
        account = self.account
        seats = tuple(
            SeatInfo(
                match_id=m,
                seat=s,
                last_request_id=None if table is None else table.last_request_id(s),
                players=None
                if table is None
                else tuple(TablePlayer(name=p.name, kind=PlayerKind(p.kind.value)) for p in table.players),
            )
            for m, s in self._directory.live_seats(account.id)
            for table in (self._directory.table(m),)
        )
        log.info(
            "%s: hello from %s (%s, %s)",
            self.session_id,
            account.id,
            account.kind.value,
            self._client or "unknown client",
            extra={"session": self.session_id, "account": account.id},
        )
        self._send(
            Welcome(
                protocol=PROTOCOL_VERSION,
                session_id=self.session_id,
                session_token=session_token,
                player=Player(id=account.id, name=account.name, kind=PlayerKind(account.kind.value)),
                seats=seats,
                max_message_bytes=self._limits.max_message_bytes,
            )
        )
        return None

    # -- requests ------------------------------------------------------------------------------------

    def receive(self, frame: str | bytes) -> LobbyRequest | None:
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
            return None
        if error is not None or message is None:
            assert error is not None
            self._error(error.code, error.message, error.request_id)
            self._count_violation()
            return None
        try:
            return self._dispatch(message)
        except Exception:
            self._failed(type(message).__name__)
            return None

    def request_failed(self, request: LobbyRequest) -> None:
        self._failed(type(request).__name__)

    def _failed(self, what: str) -> None:
        log.exception("%s: failed to handle %s", self.session_id, what, extra={"session": self.session_id})
        self._error(ErrorCode.INTERNAL, "the server failed on this request; it had no effect")

    def _dispatch(self, message: ClientMessage) -> LobbyRequest | None:
        match message:
            case Ping(nonce=nonce):
                self._send(Pong(nonce=nonce))
            case Hello():
                self._error(ErrorCode.FORBIDDEN, "this connection already said hello")
            case Act(request_id=rid, step=step, action=wire_action):
                # Routed to the table this connection follows (or is resuming its seat at), which
                # decides whether it may act.
                match_id = self._resuming or self._match_id
                if match_id is None:
                    self._error(ErrorCode.NOT_YOUR_TURN, "this connection plays no match", rid)
                    return None
                try:
                    action = action_from_wire(wire_action)
                except ProtocolError as exc:
                    self._error(exc.code, exc.message, rid)
                    return None
                table = self._directory.table(match_id)
                if table is None and self._directory.closing:  # a drain handed it over
                    moved = f"match {match_id} moved to another server node; resume it"
                    self._error(ErrorCode.BUSY_RETRY, moved, rid)
                    return None
                if table is None:
                    self._error(ErrorCode.NOT_YOUR_TURN, f"match {match_id} is over", rid)
                    return None
                table.submit(ActRequest(self, rid, step, action))
            case Join(target=target, request_id=rid):
                if self._match_id is not None and self._seat is not None:
                    table = self._directory.table(self._match_id)
                    if table is not None and not table.finished:
                        self._error(
                            ErrorCode.FORBIDDEN, f"you play in {self._match_id}; leave it before joining", rid
                        )
                        return None
                if self._chat is not None and not isinstance(target, SpectateTarget):
                    refused = self._chat.may_play(self.account.id)  # a suspension (docs/social.md)
                    if refused is not None:
                        self._error(refused.code, refused.message, rid)
                        return None
                self._stop_following()
                self._resuming = None
                match target:
                    case QueueTarget(preset=preset):
                        return JoinQueue(preset, rid)
                    case PrivateTarget(code=code):
                        return JoinPrivate(code, rid)
                    case SpectateTarget(match_id=match_id, view=view):
                        return Spectate(match_id, rid, caster=view == "caster")
            case Resume(match_id=match_id, since_version=since, request_id=rid):
                # Nothing changes until the table takes the connection (attached): a resume that
                # fails leaves it following what it followed.
                if match_id != self._match_id and any(
                    m == match_id for m, _ in self._directory.live_seats(self.account.id)
                ):
                    self._resuming = match_id
                return ResumeRequest(match_id, since, rid)
            case LobbyJoin() | LobbyLeave() | LobbySay() | Report():
                if self._lobby is None:
                    self._error(ErrorCode.NOT_IN_ROOM, "lobby chat is not available on this server", None)
                else:
                    self._lobby.handle(message, following=self._match_id)
            case Chat(text=text, request_id=rid):
                self._say(rid, text=text)
            case Stamp(stamp=stamp, request_id=rid):
                self._say(rid, stamp=stamp)
            case Invite(to=to, code=code, request_id=rid):
                refused = (
                    ErrorOut(ErrorCode.FORBIDDEN, "invitations are not served on this connection", rid)
                    if self._friends is None
                    else self._friends.invite(self, to, code, rid)
                )
                if refused is not None:
                    self._error(refused.code, refused.message, rid)
            case Leave(match_id=match_id, request_id=rid):
                self._resuming = None
                if match_id is None and self._directory.leave_queue(self):
                    self._send(Left(match_id=None))
                elif self._match_id is not None and match_id in (None, self._match_id):
                    left = self._match_id
                    self._stop_following(on_purpose=True)
                    self._send(Left(match_id=left))
                else:
                    self._error(
                        ErrorCode.NOT_FOUND, f"not waiting for or following {match_id or 'anything'}", rid
                    )
        return None

    def _say(self, rid: int | None, *, text: str | None = None, stamp: str | None = None) -> None:
        """A chat line or stamp at the table this connection follows: checked and delivered beside
        the table (:mod:`server.hub.tablechat`), never through its inbox."""
        table = None if self._match_id is None else self._directory.table(self._match_id)
        if self._chat is None or table is None:
            self._error(ErrorCode.NOT_IN_ROOM, "this connection follows no table to talk at", rid)
            return
        refused = self._chat.say(self, table.chat_room(), self._seat, text=text, stamp=stamp, request_id=rid)
        if refused is not None:
            self._error(refused.code, refused.message, rid)
            if refused.code is ErrorCode.RATE_LIMITED:
                self._count_violation()


def _chat_line(item: ChatOut) -> ChatLine:
    seated = item.seat is not None
    return ChatLine(
        match_id=item.match_id,
        role=ChatRole.SEATED if seated else ChatRole.SPECTATOR,
        sender=item.seat if item.seat is not None else item.name,
        name=item.name,
        text=item.text,
        stamp=item.stamp,
        id=item.line_id,
        account_id=item.account_id,
    )
