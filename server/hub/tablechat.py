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

from client_protocol.errors import ErrorCode
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

    def deliver(self, room: ChatRoom, line: Line) -> int:
        """``line`` to every connection at the table that it reaches; returns how many."""
        reaches = self.service.reaches
        out = ChatOut(room.match_id, line.seat, line.sender_name, line.text, line.stamp)
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
            )
        except ChatError as exc:
            return ErrorOut(ErrorCode(exc.code.value), str(exc), request_id)
        except ModerationError as exc:
            return ErrorOut(ErrorCode.CHAT_BANNED, str(exc), request_id)
        self._desk.deliver(room, line)
        return None


def _log_failure(done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("could not read the sanctions again", exc_info=done.exception())
