"""Lobby chat and reports over the protocol (docs/social.md): the node's side of
:class:`~server.services.lobbychat.LobbyChat` and :class:`~server.services.reports.Reports`.

A connection's :class:`LobbyMember` follows up to :data:`~server.social.lobby.MAX_CHANNELS`
channels (``lobby_join`` / ``lobby_leave``), says lines there (``lobby_say``: its own rate limit and
its address's, shared with table chat) and files reports (``report``). The node's
:class:`LobbyDesk` subscribes to a channel's social bus topic while one of its connections follows
the channel, and hands each line to those members it reaches (mutes and blocks, checked here, on
the listener's node). A line is stored before it is published: what anyone saw is stored.

The work that waits on the store (the history, storing a line, a report) runs in a task of the
desk; its answer is sent to the connection when it is done.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from client_protocol.codec import encode
from client_protocol.errors import ErrorCode
from client_protocol.messages import (
    ErrorMessage,
    LobbyHistory,
    LobbyJoin,
    LobbyLeave,
    LobbyLeft,
    LobbyLine,
    LobbySay,
    Report,
    Reported,
    ServerMessage,
)
from server.domain.records import Account
from server.domain.socialbus import Payload, SocialBus
from server.hub.adapter import TokenBucket
from server.hub.tablechat import TableChat
from server.services.lobbychat import TOPIC_PREFIX, LobbyChat, line_of, line_payload, topic
from server.services.reports import CONTEXT_AFTER, CONTEXT_BEFORE, Place, Reports
from server.services.social import SocialError
from server.social.chat import ChatError, ChatErrorCode
from server.social.lobby import MAX_CHANNELS
from server.social.moderation import ModerationError

log = logging.getLogger(__name__)

PRUNE_EVERY_S = 3600.0  # lobby lines past the retention are deleted at most this often

LobbyMessage = LobbyJoin | LobbyLeave | LobbySay | Report


class Listener(Protocol):
    """A connection as lobby chat sees it."""

    @property
    def account(self) -> Account: ...

    def push(self, frame: bytes) -> None:
        """Queue an encoded frame for the client (never blocks)."""
        ...


def wire(record_payload: Payload) -> LobbyLine | None:
    line = line_of(record_payload)
    if line is None:
        return None
    return LobbyLine(
        channel=line.channel,
        id=line.id,
        account_id=line.account_id,
        name=line.name,
        at=line.at,
        text=line.text,
        stamp=line.stamp,
    )


class LobbyDesk:
    """The node's lobby chat: who follows which channel here, delivery, and the work tasks."""

    def __init__(self, chat: LobbyChat, reports: Reports, table_chat: TableChat) -> None:
        self.chat = chat
        self.reports = reports
        self.table_chat = table_chat
        self._members: dict[str, set[LobbyMember]] = {}
        self._unsubscribe: dict[str, Callable[[], None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._pruned: float | None = None

    @property
    def bus(self) -> SocialBus:
        return self.chat.bus

    def use_bus(self, bus: SocialBus) -> None:
        """Deliver through ``bus`` from now on (cluster mode: the Redis bus)."""
        for stop in self._unsubscribe.values():
            stop()
        self.chat.bus = bus
        self._unsubscribe = {c: bus.subscribe(topic(c), self._heard) for c in self._unsubscribe}

    def member(
        self, listener: Listener, address: str | None, bucket: TokenBucket, on_violation: Callable[[], object]
    ) -> LobbyMember:
        return LobbyMember(self, listener, address, bucket, on_violation)

    def members(self, channel: str) -> int:
        return len(self._members.get(channel, ()))

    def _follow(self, member: LobbyMember, channel: str) -> None:
        found = self._members.setdefault(channel, set())
        found.add(member)
        if channel not in self._unsubscribe:
            self._unsubscribe[channel] = self.bus.subscribe(topic(channel), self._heard)

    def _unfollow(self, member: LobbyMember, channel: str) -> None:
        found = self._members.get(channel)
        if found is None:
            return
        found.discard(member)
        if not found:
            del self._members[channel]
            stop = self._unsubscribe.pop(channel, None)
            if stop is not None:
                stop()

    def _heard(self, bus_topic: str, payload: Payload) -> None:
        """A line of a channel followed here (from this node or another): to each member it reaches."""
        channel = bus_topic.removeprefix(TOPIC_PREFIX)
        members = self._members.get(channel)
        message = wire(payload)
        if not members or message is None or message.channel != channel:
            return
        frame = encode(message)
        reaches = self.chat.reaches
        for member in tuple(members):
            if reaches(message.account_id, member.account_id):
                member.listener.push(frame)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("lobby chat task failed", exc_info=task.exception())

    def prune_if_due(self) -> None:
        now = self.chat.social.now()
        if self._pruned is not None and now - self._pruned < PRUNE_EVERY_S:
            return
        self._pruned = now
        self.spawn(self._prune())

    async def _prune(self) -> None:
        dropped = await self.chat.prune()
        if dropped:
            log.info("lobby chat: %d lines past the retention deleted", dropped)

    async def idle(self) -> None:
        """Wait for the work tasks running now (tests)."""
        while self._tasks:
            await asyncio.gather(*tuple(self._tasks), return_exceptions=True)


class LobbyMember:
    """One connection's lobby chat: the channels it follows, its chat bucket and its address."""

    __slots__ = ("_address", "_bucket", "_desk", "_on_violation", "channels", "listener")

    def __init__(
        self,
        desk: LobbyDesk,
        listener: Listener,
        address: str | None,
        bucket: TokenBucket,
        on_violation: Callable[[], object],
    ) -> None:
        self._desk = desk
        self.listener = listener
        self._address = address
        self._bucket = bucket
        self._on_violation = on_violation
        self.channels: set[str] = set()

    @property
    def account_id(self) -> str:
        return self.listener.account.id

    def _send(self, message: ServerMessage) -> None:
        self.listener.push(encode(message))

    def _error(self, code: ErrorCode | str, message: str, rid: int | None) -> None:
        self._send(ErrorMessage(code=ErrorCode(code), message=message, request_id=rid))

    def _limited(self, rid: int | None) -> bool:
        if self._bucket.take() and self._desk.table_chat.address_allows(self._address):
            return False
        self._error(ErrorCode.RATE_LIMITED, "too many chat messages; slow down", rid)
        self._on_violation()
        return True

    def handle(self, message: LobbyMessage, *, following: str | None) -> None:
        """One lobby message from the connection (``following``: the match it follows, if any)."""
        match message:
            case LobbyJoin(channel=name, request_id=rid):
                try:
                    channel = self._desk.chat.channel(name)
                except ChatError as exc:
                    self._error(exc.code.value, str(exc), rid)
                    return
                if channel not in self.channels and len(self.channels) >= MAX_CHANNELS:
                    code = ChatErrorCode.TOO_MANY_CHANNELS.value
                    self._error(code, f"you follow {MAX_CHANNELS} lobby channels already; leave one", rid)
                    return
                self.channels.add(channel)
                self._desk._follow(self, channel)
                self._desk.spawn(self._history(channel, rid))
            case LobbyLeave(channel=channel, request_id=rid):
                if channel not in self.channels:
                    self._error(ErrorCode.NOT_IN_ROOM, f"you do not follow lobby channel {channel!r}", rid)
                    return
                self.channels.discard(channel)
                self._desk._unfollow(self, channel)
                self._send(LobbyLeft(channel=channel, request_id=rid))
            case LobbySay(channel=channel, text=text, stamp=stamp, request_id=rid):
                self._say(channel, text, stamp, rid)
            case Report():
                if not self._limited(message.request_id):
                    self._desk.spawn(self._report(message, following))

    def leave_all(self) -> None:
        for channel in tuple(self.channels):
            self._desk._unfollow(self, channel)
        self.channels.clear()

    def _say(self, channel: str, text: str | None, stamp: str | None, rid: int | None) -> None:
        if channel not in self.channels:
            self._error(ErrorCode.NOT_IN_ROOM, f"join lobby channel {channel!r} before talking there", rid)
            return
        if self._limited(rid):
            return
        desk = self._desk
        desk.table_chat.refresh_if_due()  # the sanctions, read again now and then
        account = self.listener.account
        try:
            line = desk.chat.compose(account.id, account.name, channel, text=text, stamp=stamp)
        except ChatError as exc:
            self._error(exc.code.value, str(exc), rid)
            return
        except ModerationError as exc:
            self._error(ErrorCode.CHAT_BANNED, str(exc), rid)
            return
        desk.prune_if_due()
        desk.spawn(self._store_and_publish(channel, line, rid))

    async def _store_and_publish(self, channel: str, line: Any, rid: int | None) -> None:
        try:
            await self._desk.chat.say(channel, line)
        except Exception:
            log.exception("lobby chat: a line could not be stored")
            self._error(ErrorCode.BUSY_RETRY, "the line could not be stored; try again", rid)

    async def _history(self, channel: str, rid: int | None) -> None:
        try:
            lines = await self._desk.chat.history(channel, self.account_id)
        except Exception:
            log.exception("lobby chat: the history of %s could not be read", channel)
            lines = []
        if channel not in self.channels:
            return  # left (or the connection ended) while the history was read
        shown = [w for w in (wire(line_payload(r)) for r in lines) if w is not None]
        self._send(LobbyHistory(channel=channel, lines=shown, request_id=rid))

    async def _report(self, message: Report, following: str | None) -> None:
        reports, rid = self._desk.reports, message.request_id
        try:
            if message.line is None and message.account_id is None:
                raise SocialError("invalid", "name the player (account_id) or the line you report")
            if message.line is None:
                assert message.account_id is not None
                context: dict[str, Any] = {}
                if following is not None:
                    recent = self._desk.table_chat.recent(following)
                    context = {"match_id": following, "step": recent[-1].version if recent else None}
                record = await reports.file(
                    self.account_id,
                    message.account_id,
                    message.reason,
                    place=Place.PLAYER,
                    context=context,
                    names={self.account_id: self.listener.account.name},
                )
            elif message.line.place.value == "lobby":
                record = await reports.report_lobby_line(
                    self.account_id,
                    message.line.id,
                    message.reason,
                    target_id=message.account_id,
                    reporter_name=self.listener.account.name,
                )
            else:
                record = await self._report_table_line(message, following)
        except SocialError as exc:
            code = {"not_found": ErrorCode.NOT_FOUND, "limited": ErrorCode.FORBIDDEN}.get(
                exc.code, ErrorCode.MALFORMED
            )
            self._error(code, str(exc), rid)
            return
        self._send(Reported(report_id=record.id, request_id=rid))

    async def _report_table_line(self, message: Report, following: str | None) -> Any:
        assert message.line is not None
        recent = () if following is None else self._desk.table_chat.recent(following)
        at = next((i for i, r in enumerate(recent) if r.id == message.line.id), None)
        if at is None or message.account_id not in (None, recent[at].account_id):
            raise SocialError("not_found", "no such line of that player at the table you follow")
        said = recent[at]
        around = recent[max(0, at - CONTEXT_BEFORE) : at + CONTEXT_AFTER + 1]
        context = {
            "match_id": said.match_id,
            "step": said.version,
            "line_id": said.id,
            "lines": [
                {
                    "id": r.id,
                    "account_id": r.account_id,
                    "name": r.name,
                    "seat": r.seat,
                    "text": r.text,
                    "stamp": r.stamp,
                    "at": r.at,
                    "step": r.version,
                }
                for r in around
            ],
        }
        names = {said.account_id: said.name, self.account_id: self.listener.account.name}
        return await self._desk.reports.file(
            self.account_id,
            said.account_id,
            message.reason,
            place=Place.TABLE,
            context=context,
            names=names,
        )
