"""The lobby's small records: a queued player (the queue policy's entry), a private table's
invitation, the report of crash recovery, invite codes and the scope check (split from
:mod:`server.hub.lobby`)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from client_protocol.errors import ErrorCode
from server.domain.records import Account, Scope
from server.engine.rules import Ruleset
from server.hub.outputs import Participant
from server.hub.settings import SpectatePolicy, TableTimers
from server.services.errors import LobbyError
from server.services.matchmaking import QueueEntry

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: codes are read aloud


Waiting = QueueEntry[Participant]
"""A player waiting in a queue or for a private table (the queue policy's entry,
:mod:`server.services.matchmaking`)."""


@dataclass(eq=False, slots=True)
class PrivateTable:
    """An invitation: the table starts once ``seats - bots`` players (the ruleset's seats) have joined
    with ``code``."""

    code: str
    creator_id: str
    preset: str
    ruleset: Ruleset
    bots: int
    bot: str
    timers: TableTimers
    spectate: SpectatePolicy
    expires_at: float
    waiting: list[Waiting] = field(default_factory=list)
    chat: str | None = None  # the creator's choice of seated players' free text (None: the server's rule)
    chat_mode: str = "on"  # the free text the table has, as its creator was told (``chat`` or the rule)

    @property
    def humans(self) -> int:
        return self.ruleset.seats - self.bots


@dataclass(slots=True)
class RecoveryReport:
    """What :meth:`Lobby.recover` did with each match the store had as running."""

    resumed: list[str] = field(default_factory=list)
    diverged: list[str] = field(default_factory=list)  # flagged: replaying the log gave other events
    unrecoverable: list[str] = field(default_factory=list)  # aborted: nothing to replay from


def new_invite_code() -> str:
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


_MAY_NOT = {Scope.CREATE_PRIVATE: "create private tables", Scope.ADMIN: "use the admin routes"}


def require(account: Account, scope: Scope) -> None:
    if scope not in account.scopes:
        raise LobbyError(ErrorCode.FORBIDDEN, f"this account may not {_MAY_NOT.get(scope, scope.value)}")
