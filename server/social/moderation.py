"""Moderation: personal mutes, and the time-limited chat bans and suspensions admins give.

A **mute** is one player's own choice: the muted player's messages and stamps are not delivered to
them (the muted one is not told). A **sanction** is given by an administrator, always with a reason
and an end (or none, for a permanent one); it is audited by the service that stores it:

* ``chat_ban``: the player may not send chat or stamps, anywhere, until it ends;
* ``suspension``: the player may not sit at a table or chat until it ends (spectating is allowed).

The time is an argument (seconds since the epoch), never read here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class SanctionKind(StrEnum):
    CHAT_BAN = "chat_ban"
    SUSPENSION = "suspension"


class ReportStatus(StrEnum):
    OPEN = "open"
    DISMISSED = "dismissed"
    ACTIONED = "actioned"


@dataclass(frozen=True, slots=True)
class Sanction:
    account_id: str
    kind: SanctionKind
    reason: str
    given_by: str
    starts: float
    ends: float | None  # None: until lifted
    lifted: bool = False

    def active(self, now: float) -> bool:
        return not self.lifted and self.starts <= now and (self.ends is None or now < self.ends)


class ModerationError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def new_sanction(
    account_id: str, kind: SanctionKind, reason: str, *, given_by: str, now: float, minutes: float | None
) -> Sanction:
    """A sanction from ``now`` for ``minutes`` (``None``: until lifted). A reason is required."""
    if not reason.strip():
        raise ModerationError("invalid", "a sanction needs a reason")
    if minutes is not None and minutes <= 0:
        raise ModerationError("invalid", f"a sanction lasts a positive number of minutes, not {minutes}")
    return Sanction(
        account_id, kind, reason.strip(), given_by, now, None if minutes is None else now + minutes * 60
    )


def blocking(sanctions: Iterable[Sanction], kind: SanctionKind, now: float) -> Sanction | None:
    """The active sanction that forbids what ``kind`` forbids (a suspension also bans chat), the one
    ending last, or ``None``."""
    kinds = {SanctionKind.CHAT_BAN, SanctionKind.SUSPENSION} if kind is SanctionKind.CHAT_BAN else {kind}
    active = [s for s in sanctions if s.kind in kinds and s.active(now)]
    if not active:
        return None
    return max(active, key=lambda s: float("inf") if s.ends is None else s.ends)


def check_may_chat(sanctions: Iterable[Sanction], now: float) -> None:
    found = blocking(sanctions, SanctionKind.CHAT_BAN, now)
    if found is not None:
        until = "until lifted" if found.ends is None else f"until {found.ends:.0f}"
        raise ModerationError("chat_banned", f"you may not chat {until}: {found.reason}")


def check_may_play(sanctions: Iterable[Sanction], now: float) -> None:
    found = blocking(sanctions, SanctionKind.SUSPENSION, now)
    if found is not None:
        until = "until lifted" if found.ends is None else f"until {found.ends:.0f}"
        raise ModerationError("suspended", f"your account is suspended {until}: {found.reason}")


def delivered(sender: str, listener_mutes: frozenset[str]) -> bool:
    """Whether a message from ``sender`` reaches a listener who muted ``listener_mutes``."""
    return sender not in listener_mutes
