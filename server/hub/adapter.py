"""The protocol core of one connection, without I/O: what every adapter (ours, mjai) shares.

Like python-websockets' own core, a :class:`SeatConnection` touches no socket and awaits nothing:
frames come in (:meth:`~SeatConnection.receive_hello`, :meth:`~SeatConnection.receive`), and out
come frames (into its :class:`FrameSink`), inbox messages for the table it follows (through the
:class:`Directory`) and the lobby requests it cannot answer itself (:data:`LobbyRequest`; they
take the lobby's time, so the I/O layer awaits them: :class:`server.hub.connection.WebSocketConnection`).
Its tests feed it frames and read what it sent; no network is needed.

It is the :class:`~server.hub.outputs.Participant` tables and the lobby deliver to. Which match it
follows, and in which seat, is what the table tells it (:meth:`~SeatConnection.attached`,
:meth:`~SeatConnection.released`), never read back from what it sends. Whether an act may be applied
is the table's to decide (:meth:`server.hub.decisions.Decisions.refusal`); a connection only routes
it to the table it follows.

:class:`TokenBucket` is the per-connection rate limit.
"""

from __future__ import annotations

import abc
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from websockets.frames import CloseCode

from client_protocol.errors import ErrorCode
from client_protocol.messages import Auth
from server.domain.records import Account
from server.hub.chatroom import ChatRoom
from server.hub.clock import Clock
from server.hub.inbox import Detach, InboxItem
from server.hub.outputs import Outbound, Participant, TablePlayerInfo
from server.hub.settings import ConnectionLimits

log = logging.getLogger(__name__)


class FrameSink(Protocol):
    """Where a connection's frames go (the I/O layer's bounded outbox; a list in tests)."""

    @property
    def open(self) -> bool: ...

    def put(self, frame: bytes) -> bool:
        """Queue one text frame; False when the connection is closing or was dropped."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Close after the frames already queued."""
        ...

    def drop(self, why: str) -> None:
        """Abort the connection now."""
        ...


class TableInbox(Protocol):
    """A table as a connection sees it: an inbox, and whether its match is over."""

    @property
    def finished(self) -> bool: ...

    @property
    def players(self) -> tuple[TablePlayerInfo, ...]: ...

    def last_request_id(self, seat: int) -> int | None:
        """The highest request id of ``seat``'s acts applied in this match (None: none)."""
        ...

    def submit(self, item: InboxItem) -> None: ...

    def chat_room(self) -> ChatRoom:
        """Who hears a chat line at this table now (chat never goes through the inbox)."""
        ...


class Directory(Protocol):
    """The lobby's registry, as a connection asks it (none of these waits)."""

    def table(self, match_id: str) -> TableInbox | None: ...

    def live_seats(self, account_id: str) -> Sequence[tuple[str, int]]: ...

    @property
    def closing(self) -> bool:
        """Shutting down: a table gone from here was stopped and handed over (a drain), not over."""
        ...

    def leave_queue(self, p: Participant) -> bool: ...

    def forget(self, p: Participant) -> None: ...


# -- what a connection asks of the I/O layer ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Authenticate:
    """Check the credentials of our protocol's ``hello`` (a session token, a bearer token, a guest)."""

    auth: Auth


@dataclass(frozen=True, slots=True)
class AuthenticateBearer:
    """Check an API token (mjai's ``hello``)."""

    token: str


@dataclass(frozen=True, slots=True)
class JoinQueue:
    preset: str
    request_id: int | None


@dataclass(frozen=True, slots=True)
class JoinPrivate:
    code: str
    request_id: int | None


@dataclass(frozen=True, slots=True)
class Spectate:
    match_id: str
    request_id: int | None
    caster: bool = False


@dataclass(frozen=True, slots=True)
class Resume:
    match_id: str
    since_version: int
    request_id: int | None


HelloRequest = Authenticate | AuthenticateBearer
LobbyRequest = JoinQueue | JoinPrivate | Spectate | Resume

EventStatus = Callable[[str], Awaitable[str | None]]
"""An event's status by its id (``open``, ``running``, ``finished``, ``cancelled``; None: no such
event): the event service's, set on the hub by the application (``Hub.event_status``)."""


class SeatConnection(abc.ABC):
    """One connection's protocol state (see the module docstring); subclasses speak a protocol."""

    ID_PREFIX = "c"
    PATH = "/ws"  # the websocket path the protocol is served at (a relay to another node opens it)

    def __init__(
        self,
        sink: FrameSink,
        directory: Directory,
        clock: Clock,
        limits: ConnectionLimits,
        *,
        session_id: str | None = None,
    ) -> None:
        self._outbox = sink
        self._directory = directory
        self._clock = clock
        self._limits = limits
        self.session_id = session_id or self.new_session_id()
        self._bucket = TokenBucket(limits.rate_per_s, limits.rate_burst, clock.now)
        self._violations = 0
        self._account: Account | None = None
        self._match_id: str | None = None  # the match this connection plays or watches (the table says)
        self._seat: int | None = None
        self._gone = False  # the connection is over: a table that seats it now is told no
        self._wants_hints = False  # its prompts carry hints (our protocol's hello asks for them)
        # told when the match it follows changes (the hub's presence: server/hub/friends.py)
        self.on_move: Callable[[], None] | None = None
        self._setup()

    @abc.abstractmethod
    def _setup(self) -> None:
        """Set up the protocol's own per-connection state (called last by ``__init__``)."""

    @classmethod
    def new_session_id(cls) -> str:
        return f"{cls.ID_PREFIX}-{secrets.token_hex(6)}"

    # -- the protocol ------------------------------------------------------------------------------

    @abc.abstractmethod
    def receive_hello(self, frame: str | bytes) -> HelloRequest | None:
        """A frame before authentication: the credentials to check, or None (keep waiting for a
        hello; or, when the sink is closed, the connection was refused)."""

    @abc.abstractmethod
    def hello_timeout(self) -> None:
        """No hello came in time: refuse the connection."""

    @abc.abstractmethod
    def refuse(self, code: ErrorCode, message: str) -> None:
        """The credentials were refused: say why and close."""

    async def before_welcome(self, event_status: EventStatus | None) -> None:
        """Authenticated, before :meth:`welcome`: look up what the hello named that the hub keeps
        elsewhere (an event bot's event, through ``event_status``); nothing by default."""
        return None

    @abc.abstractmethod
    def welcome(self, session_token: str | None) -> LobbyRequest | None:
        """Authenticated (after :meth:`authenticated`): greet the client; returns what the lobby must
        do for it at once, if anything."""

    @abc.abstractmethod
    def relay_hello(self, session_token: str | None, *, queue: str | None = None) -> str | None:
        """Cluster mode: the hello another node is told on this client's behalf when its
        connection is relayed there: every field of the client's own hello, with credentials that
        node accepts (``session_token``, from the shared database, or the client's own API token);
        ``queue``: a quick-match hand-over, the hello (or what follows it, :meth:`relay_join`)
        queues there. None: this connection cannot be relayed."""

    def relay_join(self, queue: str, request_id: int | None) -> str | None:
        """Cluster mode: the frame that queues a handed-over client at the matcher node after
        :meth:`relay_hello` (None: that hello queued it already)."""
        return None

    @abc.abstractmethod
    def receive(self, frame: str | bytes) -> LobbyRequest | None:
        """A frame after the hello: answer it, or route it to the table; returns the lobby request
        it makes, if any (the I/O layer awaits it)."""

    @abc.abstractmethod
    def request_failed(self, request: LobbyRequest) -> None:
        """The lobby failed on ``request`` (a bug): tell the client it had no effect."""

    @abc.abstractmethod
    def _deliver(self, item: Outbound) -> None:
        """Render ``item`` in this protocol and queue it."""

    def authenticated(self, account: Account) -> None:
        self._account = account

    @property
    def is_authenticated(self) -> bool:
        return self._account is not None

    # -- Participant -------------------------------------------------------------------------------

    @property
    def participant_id(self) -> str:
        return self.session_id

    @property
    def account(self) -> Account:
        assert self._account is not None, "no account before hello"
        return self._account

    @property
    def wants_hints(self) -> bool:
        return self._wants_hints

    @property
    def following(self) -> str | None:
        """The match it plays or watches now (what the table told it), if any."""
        return self._match_id

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

    def attached(self, match_id: str, seat: int | None) -> bool:
        """A table seats this connection (``seat``; None: watching): it follows that match now.
        False when the connection is over: the table keeps the seat empty."""
        if self._gone:
            return False
        if self._match_id is not None and self._match_id != match_id:
            self._stop_following()  # it resumed another match: it no longer follows this one
        self._match_id, self._seat = match_id, seat
        self._moved()
        return True

    def released(self, match_id: str) -> None:
        """The match is over for this connection (it ended, or the connection left it)."""
        if match_id == self._match_id:
            self._match_id, self._seat = None, None
            self._moved()

    def _moved(self) -> None:
        if self.on_move is not None:
            self.on_move()

    # -- the connection's end ----------------------------------------------------------------------

    def connection_lost(self) -> None:
        """The connection is over: it waits nowhere and leaves the table it follows."""
        self._gone = True
        if self._account is None:
            return
        self._directory.forget(self)
        self._stop_following()

    def stop_following(self) -> None:
        """Leave the table it follows (its requests go to another node now: a relay)."""
        self._stop_following()

    def _stop_following(self, *, on_purpose: bool = False) -> None:
        """Stop following the match; ``on_purpose``: the player left it (``leave``), so a seat it
        holds is played for at once instead of waiting for its clock (:mod:`server.hub.seating`)."""
        if self._match_id is None:
            return
        table = self._directory.table(self._match_id)
        if table is not None:
            table.submit(Detach(self, on_purpose=on_purpose))
        self._match_id, self._seat = None, None
        self._moved()

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
            self._outbox.close(CloseCode.POLICY_VIOLATION, "too many bad or excessive messages")
            return True
        return False


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; each message takes one.

    >>> now = [0.0]
    >>> bucket = TokenBucket(rate=1.0, burst=2, now=lambda: now[0])
    >>> bucket.take(), bucket.take(), bucket.take()
    (True, True, False)
    >>> now[0] = 1.0; bucket.take()
    True
    """

    def __init__(self, rate: float, burst: int, now: Callable[[], float]) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._now = now
        self._last = now()

    def take(self) -> bool:
        now = self._now()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False
