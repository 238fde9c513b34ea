"""Chat and stamps at a table, delivered beside the table, never through it (docs/social.md).

A chat line is not game state: it never enters the table's inbox, its event log or the engine, so a
flood of chat cannot delay an action, and nothing a table decides depends on it. A connection that
follows a table (seated or watching) says something; its :class:`ChatLink` takes a token from its
own bucket and from its address's (:class:`~server.hub.adapter.TokenBucket`,
:class:`~server.hub.admission.AddressLimiter`), asks the table who is there now
(:class:`~server.hub.chatroom.ChatRoom`: the seats' connections, the spectators, whether a hand is
live, the table's source), has the social service check the line
(:class:`~server.services.social.SocialService`: bans, the room's policy, the collusion rule, the
size cap) and hands one :class:`ChatOut` to every listener the service says it reaches. A refusal is
an :class:`ErrorOut` for the sender only.

Delivery to the connections of this node is :meth:`TableChat.deliver`. In a cluster every
connection that follows a table is served by the node that runs it: a client that reached another
node is relayed there whole (``server.cluster.relay``), so its chat lines come and go through the
relay like every other frame, and no other delivery across nodes is needed (docs/social.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from client_protocol.errors import ErrorCode
from server.domain.records import AccountKind
from server.hub.adapter import TokenBucket
from server.hub.admission import AddressLimiter
from server.hub.chatroom import ChatRoom
from server.hub.clock import Clock
from server.hub.outputs import ChatOut, ErrorOut, Participant
from server.hub.settings import ConnectionLimits
from server.services.social import Line, SocialError, SocialService
from server.social.chat import ChatError, Role
from server.social.moderation import ModerationError

log = logging.getLogger(__name__)

SANCTIONS_REFRESH_S = 30.0  # how often chat reads the sanctions again (the CLI stores them elsewhere)
RECENT_LINES = 40  # lines kept per table for the context of a report
RECENT_TABLES = 2000  # tables whose recent lines are kept (the least recently talked at go first)


@dataclass(frozen=True, slots=True)
class SaidLine:
    """A line said at a table, kept a while for the context of a report (never sent again)."""

    id: int
    match_id: str
    version: int
    account_id: str
    name: str
    seat: int | None
    text: str | None
    stamp: str | None
    at: float


class TableChat:
    """The node's chat desk: the per-address limit and delivery (one per hub)."""

    def __init__(self, service: SocialService, clock: Clock, limits: ConnectionLimits) -> None:
        self.service = service
        self._clock = clock
        self._limits = limits
        self._by_address = AddressLimiter(limits.chat_per_ip_per_s, limits.chat_per_ip_burst, clock.now)
        # when the sanctions were last read: the hub loads them at start, so the clock starts at the
        # first message (a hub may be built before its event loop runs: no clock to read yet)
        self._refreshed: float | None = None
        self._refresh: asyncio.Future[None] | None = None
        self._next_id = 1
        # a table's tags (its ``chat`` policy: an event's, an administrator's); the hub sets it
        self.tags_of: Callable[[str], Mapping[str, str]] = lambda _match_id: {}
        self._recent: OrderedDict[str, deque[SaidLine]] = OrderedDict()

    def refresh_if_due(self) -> None:
        """Read the sanctions again in the background when the last read is old (a ban given with
        ``jantaku admin moderation`` applies within ``SANCTIONS_REFRESH_S``); never waits."""
        now = self._clock.now()
        if self._refreshed is None:
            self._refreshed = now
        if now - self._refreshed < SANCTIONS_REFRESH_S or (
            self._refresh is not None and not self._refresh.done()
        ):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (the protocol core's own tests): nothing to refresh from
        self._refreshed = now
        self._refresh = asyncio.ensure_future(self.service.reload_sanctions())
        self._refresh.add_done_callback(_log_failure)

    def link(self, address: str | None) -> ChatLink:
        """The chat of one connection from ``address`` (None: unknown, only its own limit applies)."""
        return ChatLink(
            self, address, TokenBucket(self._limits.chat_per_s, self._limits.chat_burst, self._clock.now)
        )

    def deliver(self, room: ChatRoom, line: Line, *, public_id: str | None = None) -> int:
        """``line`` to every connection at the table that it reaches; returns how many.
        ``public_id``: the sender's account id as listeners see it (None for a guest)."""
        reaches = self.service.reaches
        line_id = self._remember(room, line)
        out = ChatOut(
            room.match_id,
            line.seat,
            line.sender_name,
            line.text,
            line.stamp,
            line_id=line_id,
            account_id=public_id,
        )
        sent = 0
        for p in room.seats:
            if p is not None and reaches(line, p.account.id, Role.SEATED):
                p.deliver(out)
                sent += 1
        for p in tuple(room.spectators):  # a delivery never changes the set, but be safe
            if reaches(line, p.account.id, Role.SPECTATOR):
                p.deliver(out)
                sent += 1
        return sent

    def _remember(self, room: ChatRoom, line: Line) -> int:
        line_id, self._next_id = self._next_id, self._next_id + 1
        said = SaidLine(
            line_id,
            room.match_id,
            room.version,
            line.sender_id,
            line.sender_name,
            line.seat,
            line.text,
            line.stamp,
            self.service.now(),
        )
        recent = self._recent.get(room.match_id)
        if recent is None:
            recent = self._recent[room.match_id] = deque(maxlen=RECENT_LINES)
            while len(self._recent) > RECENT_TABLES:
                self._recent.popitem(last=False)
        else:
            self._recent.move_to_end(room.match_id)
        recent.append(said)
        return line_id

    def recent(self, match_id: str) -> tuple[SaidLine, ...]:
        """The last lines said at ``match_id`` on this node (the context of a report)."""
        return tuple(self._recent.get(match_id, ()))

    def address_allows(self, address: str | None) -> bool:
        """Take a token from ``address``'s chat bucket (shared by its connections)."""
        return self._by_address.take(address)


class ChatLink:
    """One connection's chat: its own rate limit and its address."""

    __slots__ = ("_address", "_bucket", "_desk")

    def __init__(self, desk: TableChat, address: str | None, bucket: TokenBucket) -> None:
        self._desk = desk
        self._address = address
        self._bucket = bucket

    def may_play(self, account_id: str) -> ErrorOut | None:
        """The refusal of a seat while a suspension runs (watching is allowed)."""
        self._desk.refresh_if_due()
        try:
            self._desk.service.check_may_play(account_id)
        except SocialError as exc:
            return ErrorOut(ErrorCode.SUSPENDED, str(exc))
        return None

    def say(
        self,
        sender: Participant,
        room: ChatRoom,
        seat: int | None,
        *,
        text: str | None = None,
        stamp: str | None = None,
        request_id: int | None = None,
    ) -> ErrorOut | None:
        """Check and deliver one line from ``sender`` (``seat``: its seat, None when it watches);
        the refusal to send back to it, if any (nothing was delivered then)."""
        # The connection's own bucket first: a flooding connection does not drain its address's.
        if not self._bucket.take() or not self._desk.address_allows(self._address):
            return ErrorOut(ErrorCode.RATE_LIMITED, "too many chat messages; slow down", request_id)
        role = Role.SPECTATOR if seat is None else Role.SEATED
        self._desk.refresh_if_due()
        try:
            line = self._desk.service.compose(
                sender.account.id,
                sender.account.name,
                role,
                seat,
                source=room.source,
                hand_live=room.hand_live,
                text=text,
                stamp=stamp,
                tags=self._desk.tags_of(room.match_id),
            )
        except ChatError as exc:
            return ErrorOut(ErrorCode(exc.code.value), str(exc), request_id)
        except ModerationError as exc:
            return ErrorOut(ErrorCode.CHAT_BANNED, str(exc), request_id)
        # A registered player's or a bot's id is as public as its name and profile (listeners mute
        # by it); a guest's is kept back: a guest has no profile, and its id is nobody else's business.
        account = sender.account
        self._desk.deliver(room, line, public_id=None if account.kind is AccountKind.GUEST else account.id)
        return None


def _log_failure(done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("could not read the sanctions again", exc_info=done.exception())
