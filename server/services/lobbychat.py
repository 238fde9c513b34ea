"""Lobby chat (docs/social.md): lines said in the lobby's channels, checked like table chat (a chat
ban, the lobby room's policy, the size cap), stored first (the history shown on join, the context of
a report, pruned after the retention), then handed to the social bus, which carries them to every
node; each node shows a line to the members of its channel who did not mute or block the sender
(:meth:`LobbyChat.reaches`).

The bus topic of channel ``C`` is ``lobby:C``; the payload is :func:`line_payload`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from server.domain.moderation import LobbyLineRecord, ModerationStore
from server.domain.socialbus import SocialBus
from server.services.social import Line, SocialService
from server.social import relations
from server.social.chat import ChatError, ChatErrorCode, Role
from server.social.lobby import LobbySettings, check_channel

TOPIC_PREFIX = "lobby:"


def topic(channel: str) -> str:
    """The social bus topic of a lobby channel."""
    return TOPIC_PREFIX + channel


def line_payload(record: LobbyLineRecord) -> dict[str, Any]:
    """A stored line as the bus carries it (and the protocol's ``lobby_line`` shows it)."""
    out: dict[str, Any] = {
        "id": record.id,
        "channel": record.channel,
        "account_id": record.account_id,
        "name": record.name,
        "at": record.at,
    }
    if record.text is not None:
        out["text"] = record.text
    if record.stamp is not None:
        out["stamp"] = record.stamp
    return out


def line_of(payload: Mapping[str, Any]) -> LobbyLineRecord | None:
    """The line a bus payload carries (None for a payload that is not one)."""
    try:
        text, stamp = payload.get("text"), payload.get("stamp")
        record = LobbyLineRecord(
            int(payload["id"]),
            str(payload["channel"]),
            str(payload["account_id"]),
            str(payload["name"]),
            None if text is None else str(text),
            None if stamp is None else str(stamp),
            float(payload["at"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    return record if (record.text is None) != (record.stamp is None) else None


class LobbyChat:
    """Lobby chat's service: check, store, publish; history; who hears a line; pruning."""

    def __init__(
        self,
        social: SocialService,
        store: ModerationStore,
        bus: SocialBus,
        *,
        now: Callable[[], float],
        settings: LobbySettings | None = None,
        rooms: Callable[[], Collection[str]] = tuple,
    ) -> None:
        self.social = social
        self.store = store
        self.bus = bus
        self.settings = settings or LobbySettings()
        self._now = now
        self._rooms = rooms

    def channel(self, name: object) -> str:
        """The channel ``name``, or ``ChatError`` ``unknown_channel``."""
        return check_channel(name, self._rooms())

    def compose(
        self, sender_id: str, sender_name: str, channel: str, *, text: str | None, stamp: str | None
    ) -> Line:
        """The checked line, or ``ChatError`` / ``ModerationError`` (nothing stored or sent)."""
        if (text is None) == (stamp is None):
            raise ChatError(ChatErrorCode.EMPTY, "a lobby line has a text or a stamp")
        return self.social.compose(
            sender_id,
            sender_name,
            Role.LOBBY,
            None,
            source=topic(channel),
            hand_live=False,
            text=text,
            stamp=stamp,
        )

    async def say(self, channel: str, line: Line) -> LobbyLineRecord:
        """Store ``line`` (first: what anyone saw is stored), then publish it to every node."""
        record = await self.store.add_lobby_line(
            LobbyLineRecord(0, channel, line.sender_id, line.sender_name, line.text, line.stamp, self._now())
        )
        await self.bus.publish(topic(channel), line_payload(record))
        return record

    async def history(self, channel: str, listener_id: str) -> list[LobbyLineRecord]:
        """The channel's last lines (within the retention) that ``listener_id`` may see."""
        settings = self.settings
        lines = await self.store.lobby_lines(
            channel, limit=settings.history, since=settings.oldest(self._now())
        )
        return [r for r in lines if self.reaches(r.account_id, listener_id)]

    def reaches(self, sender_id: str, listener_id: str) -> bool:
        """Whether a lobby line of ``sender_id`` is shown to ``listener_id`` (not muted, no block
        either way; a sender always sees its own)."""
        if sender_id == listener_id:
            return True
        memory = self.social.memory
        return not memory.muted(listener_id, sender_id) and not relations.hidden(
            memory.link(listener_id, sender_id)
        )

    async def prune(self, keep: frozenset[int] = frozenset()) -> int:
        """Delete the lines older than the retention (but ``keep``: lines reports point at)."""
        if self.settings.retention_s == 0:
            return 0
        return await self.store.prune_lobby(self.settings.oldest(self._now()), keep=keep)
