"""Chat and stamps: what a message may hold, who may send it where and when, and who hears it.

A **stamp** is one of a fixed set of reactions (:data:`STAMPS`), drawn by the browser; stamps are
allowed in every room unless its policy turns them off. **Free text** depends on the room's
:class:`ChatPolicy`:

* ``on``: always (private tables and the lobby by default);
* ``between_hands``: not while a hand is live (ranked, quick-match and tournament tables by
  default), because a free channel between seated players during a hand is a collusion channel;
* ``off``: never.

Spectators talk among themselves: their messages reach other spectators only, never the seated
players (:func:`audience`). Text is normalised (Unicode NFC, control characters removed,
whitespace runs collapsed) and capped at the policy's length; a message that breaks a rule is
refused with a :class:`ChatError` whose ``code`` the protocol sends back, and nothing is delivered.

>>> check_text("  gg\\u200b  wp ", ChatPolicy())
'gg wp'
>>> check_stamp("thanks", ChatPolicy())
'thanks'
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace
from enum import StrEnum

STAMPS: tuple[str, ...] = (
    "hello",
    "good_luck",
    "thanks",
    "nice",
    "sorry",
    "wow",
    "thinking",
    "hurry",
    "laugh",
    "cry",
    "angry",
    "gg",
)
"""The stamp ids, in the order the browser shows them."""

MAX_TEXT = 200  # characters, after normalisation


class ChatErrorCode(StrEnum):
    EMPTY = "empty"
    TOO_LONG = "too_long"
    UNKNOWN_STAMP = "unknown_stamp"
    TEXT_OFF = "text_off"  # free text is off in this room (or while a hand is live)
    STAMPS_OFF = "stamps_off"
    NOT_IN_ROOM = "not_in_room"
    UNKNOWN_CHANNEL = "unknown_channel"  # no such lobby channel
    TOO_MANY_CHANNELS = "too_many_channels"  # a connection follows at most a few lobby channels


class ChatError(ValueError):
    def __init__(self, code: ChatErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class FreeText(StrEnum):
    ON = "on"
    BETWEEN_HANDS = "between_hands"
    OFF = "off"


TEXT_MODES: tuple[str, ...] = tuple(m.value for m in FreeText)
"""The values of a table's ``chat`` tag and an event's ``chat`` setting (docs/social.md)."""


class Role(StrEnum):
    SEATED = "seated"  # a player at the table
    SPECTATOR = "spectator"
    LOBBY = "lobby"  # a lobby channel: no table


class Audience(StrEnum):
    TABLE = "table"  # the seated players and the spectators
    SPECTATORS = "spectators"  # the spectators only
    CHANNEL = "channel"  # everyone in the lobby channel


@dataclass(frozen=True, slots=True)
class ChatPolicy:
    """A room's chat rules (per room kind, overridable per event or private table)."""

    seated_text: FreeText = FreeText.ON
    spectator_text: bool = True
    stamps: bool = True
    max_length: int = MAX_TEXT

    def __post_init__(self) -> None:
        if not 1 <= self.max_length <= 1000:
            raise ValueError(f"max_length must be 1..1000, got {self.max_length}")


ROOM_POLICIES: dict[str, ChatPolicy] = {
    "lobby": ChatPolicy(FreeText.ON),
    "private": ChatPolicy(FreeText.ON),
    "quick": ChatPolicy(FreeText.BETWEEN_HANDS),
    "ranked": ChatPolicy(FreeText.BETWEEN_HANDS),
    "tournament": ChatPolicy(FreeText.BETWEEN_HANDS),
}
"""The default policy of each kind of room."""


def with_text(policy: ChatPolicy, mode: object) -> ChatPolicy:
    """``policy`` with its seated players' free text set to ``mode`` (a table's or an event's
    ``chat``); unchanged when ``mode`` is None or not one of :data:`TEXT_MODES`.

    >>> ranked = ROOM_POLICIES["ranked"]
    >>> with_text(ranked, "on").seated_text, with_text(ranked, "x").seated_text
    (<FreeText.ON: 'on'>, <FreeText.BETWEEN_HANDS: 'between_hands'>)
    """
    if not isinstance(mode, str) or mode not in TEXT_MODES:
        return policy
    return replace(policy, seated_text=FreeText(mode))


_OPENNESS = {FreeText.OFF: 0, FreeText.BETWEEN_HANDS: 1, FreeText.ON: 2}


def within(mode: FreeText, ceiling: FreeText) -> bool:
    """Whether ``mode`` allows no more free text than ``ceiling`` (``off`` < ``between_hands`` <
    ``on``): what a private table's creator may choose under the server's rule for private tables.

    >>> within(FreeText.OFF, FreeText.BETWEEN_HANDS), within(FreeText.ON, FreeText.BETWEEN_HANDS)
    (True, False)
    """
    return _OPENNESS[mode] <= _OPENNESS[ceiling]


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn"):
            kept.append(" " if ch in "\t\n\r" else "")
        else:
            kept.append(" " if category == "Zs" else ch)
    return " ".join("".join(kept).split())


def check_text(text: object, policy: ChatPolicy) -> str:
    """The message as it will be delivered, or :class:`ChatError` (empty, too long)."""
    if not isinstance(text, str):
        raise ChatError(ChatErrorCode.EMPTY, "a chat message is a string")
    cleaned = _normalise(text)
    if not cleaned:
        raise ChatError(ChatErrorCode.EMPTY, "the message is empty")
    if len(cleaned) > policy.max_length:
        raise ChatError(
            ChatErrorCode.TOO_LONG, f"the message has {len(cleaned)} characters (at most {policy.max_length})"
        )
    return cleaned


def check_stamp(stamp: object, policy: ChatPolicy) -> str:
    if not policy.stamps:
        raise ChatError(ChatErrorCode.STAMPS_OFF, "stamps are off in this room")
    if stamp not in STAMPS:
        raise ChatError(ChatErrorCode.UNKNOWN_STAMP, f"unknown stamp {stamp!r}; stamps: {', '.join(STAMPS)}")
    assert isinstance(stamp, str)
    return stamp


def may_send_text(role: Role, policy: ChatPolicy, *, hand_live: bool) -> None:
    """Raise :class:`ChatError` if ``role`` may not send free text in this room now."""
    if role is Role.SPECTATOR:
        if not policy.spectator_text:
            raise ChatError(ChatErrorCode.TEXT_OFF, "spectators' chat is off at this table")
        return
    if policy.seated_text is FreeText.OFF:
        raise ChatError(ChatErrorCode.TEXT_OFF, "free text is off in this room; stamps are allowed")
    if policy.seated_text is FreeText.BETWEEN_HANDS and hand_live and role is Role.SEATED:
        raise ChatError(
            ChatErrorCode.TEXT_OFF, "free text is off while a hand is live in this room; stamps are allowed"
        )


def audience(role: Role) -> Audience:
    """Who hears a message from ``role``: spectators never reach the seated players."""
    if role is Role.SPECTATOR:
        return Audience.SPECTATORS
    if role is Role.LOBBY:
        return Audience.CHANNEL
    return Audience.TABLE


def hears(listener: Role, heard: Audience) -> bool:
    """Whether a ``listener`` in the room receives a message sent to ``heard``."""
    if heard is Audience.SPECTATORS:
        return listener is Role.SPECTATOR
    if heard is Audience.CHANNEL:
        return listener is Role.LOBBY
    return listener in (Role.SEATED, Role.SPECTATOR)
