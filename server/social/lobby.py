"""Lobby chat's rules: its channels, how much history a joiner sees, how long lines are kept.

A **channel** is ``general`` or one per room: ``queue:<preset>`` for each quick-match queue and
``ranked:<room>:<length>`` for each ranked queue the server offers (the caller names them). A
connection follows at most :data:`MAX_CHANNELS` channels at once. The rules of what may be said are
the lobby room's :class:`~server.social.chat.ChatPolicy` (free text and stamps).

>>> check_channel("general", ())
'general'
>>> check_channel("queue:tenhou", ("queue:tenhou",))
'queue:tenhou'
>>> LobbySettings(history=20, retention_s=3600).history
20
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from server.social.chat import ChatError, ChatErrorCode

GENERAL = "general"
MAX_CHANNELS = 8  # channels one connection follows at once
MAX_HISTORY = 200


@dataclass(frozen=True, slots=True)
class LobbySettings:
    """``history``: lines a joiner is sent (the channel's last, within the retention);
    ``retention_s``: lines older than this are deleted (0: kept for ever)."""

    history: int = 50
    retention_s: float = 7 * 24 * 3600.0

    def __post_init__(self) -> None:
        if not 0 <= self.history <= MAX_HISTORY:
            raise ValueError(f"lobby history must be 0..{MAX_HISTORY} lines, got {self.history}")
        if self.retention_s < 0:
            raise ValueError(f"lobby retention must be >= 0 seconds, got {self.retention_s}")

    def oldest(self, now: float) -> float:
        """The time of the oldest line still kept (0 when lines are kept for ever)."""
        return 0.0 if self.retention_s == 0 else now - self.retention_s


def check_channel(name: object, rooms: Collection[str]) -> str:
    """``name`` if it is ``general`` or one of ``rooms``; ``ChatError`` ``unknown_channel``."""
    if isinstance(name, str) and (name == GENERAL or name in rooms):
        return name
    raise ChatError(ChatErrorCode.UNKNOWN_CHANNEL, f"no lobby channel {name!r}: 'general' or a room's")
