"""The records Jantaku persists: accounts, sessions, matches, the step log, results.

A neutral module: the hub writes them, the store keeps them, the web layer reads them, and none of
those imports another for them. The ports that move them are in :mod:`server.domain.ports`, their
errors in :mod:`server.domain.errors`.

Records are frozen values; JSON-shaped fields hold only JSON types (the SQL store keeps them in JSON
columns):

* :class:`Account`: a guest, registered player or bot; API tokens are stored as sha256 hex, never
  in clear; ``revoked_at`` set means the account can no longer authenticate.
* :class:`SessionRecord`: a resumable session (the ``session_token`` of ``welcome``), hashed too.
* :class:`MatchRecord`: ruleset JSON, seed commitment (the seed itself once the match is over),
  engine and wall-algorithm versions, who sits where, status.
* :class:`StepRecord`: the append-only log. Step ``k`` is the transition that brought the engine to
  step ``k``: step 0 is the deal (``seat``/``action`` null), step ``k >= 1`` the action applied at
  engine step ``k - 1`` by ``seat``, with every event it produced, omniscient, as JSON dicts (the
  wire vocabulary with every tile present). Replaying the actions from the seed must regenerate the
  stored events (the determinism check of crash recovery). The JSON is read back as a JSON column
  gives it: arrays as lists (``msgspec.to_builtins`` tuples come back as lists), so compare JSON
  with JSON. ``source`` says who decided the action (:data:`STEP_SOURCES`): ``player`` (the
  seat's client), ``bot`` (a built-in bot seat), ``timeout`` (the seat's time and bank ran out while
  it was connected: the table played its default action), ``disconnected`` (the seat was not
  connected: the table played its default action), ``left`` (its player had left the table on
  purpose: the table played its default action at once); None for the deal and for steps stored before
  it was recorded (migration 0003). ``format_version`` is the event-log format its ``events`` and
  ``action`` are written in (:mod:`server.eventlog.codec`; read them through it): 1 for the steps
  stored before the version was recorded (migration 0004), whose form is format 1. ``banks`` is
  each seat's time bank left (whole milliseconds, by seat) once this step was applied, so that a
  restarted server charges nobody for the time it was down (None: stored before migration 0005).
  ``engine_events`` optionally carries the engine events themselves, in memory only.
* :class:`ResultRecord`: the final standings.
* :class:`RecoveryRecord`: what a restarted server needs to resume a running match: the SECRET
  seed and the table's settings. Kept apart from :class:`MatchRecord` (no match listing or export
  ever carries it): the seed is public only once the match is over (``MatchRecord.seed_hex``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from server.engine.events import Event

JSON = Any  # a JSON-compatible value (dict / list / str / int / float / bool / None)


class AccountKind(StrEnum):
    GUEST = "guest"
    PLAYER = "player"  # registered: an account with a personal API token
    BOT = "bot"


class Scope(StrEnum):
    """What an account may do (checked by the lobby)."""

    PLAY = "play"  # queue for quick matches, take a seat at a private table
    SPECTATE = "spectate"
    CREATE_PRIVATE = "create_private"  # open private tables with an invite code
    ADMIN = "admin"  # the review API: every game, replays, walls, exports (``jantaku admin create-admin``)


DEFAULT_SCOPES: dict[AccountKind, frozenset[Scope]] = {
    AccountKind.GUEST: frozenset({Scope.PLAY, Scope.SPECTATE, Scope.CREATE_PRIVATE}),
    AccountKind.PLAYER: frozenset({Scope.PLAY, Scope.SPECTATE, Scope.CREATE_PRIVATE}),
    AccountKind.BOT: frozenset({Scope.PLAY}),
}


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    kind: AccountKind
    scopes: frozenset[Scope]
    created_at: float  # unix seconds
    token_hash: str | None = None  # sha256 hex of the API token (players and bots)
    revoked_at: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str  # the public part of the session token
    token_hash: str  # sha256 hex of the whole token
    account_id: str
    created_at: float
    expires_at: float


class MatchStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    ABORTED = "aborted"  # also: not resumable after a restart (``MatchRecord.status_reason`` says why)


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    name: str
    kind: AccountKind
    account_id: str | None  # None for a built-in bot
    bot: str | None = None  # the built-in bot's name


DIVERGED_PREFIX = "diverged:"  # the status_reason of a match whose replay did not match its log


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: str
    ruleset_json: str
    ruleset_hash: str
    seed_commitment: str
    engine_version: str
    wall_algorithm: str
    seats: tuple[SeatRecord, ...]
    status: MatchStatus
    created_at: float
    ended_at: float | None = None
    seed_hex: str | None = None  # revealed when the match is over
    source: str = ""  # "queue:tenhou", "private:CODE", ...
    # Why it ended when that is not obvious: "diverged: ..." (the replay of its log did not give
    # the stored events), "unrecoverable: ...", "table failed", ...; None for a normal end.
    status_reason: str | None = None

    @property
    def diverged(self) -> bool:
        """Flagged at a restart: replaying its stored actions did not regenerate its stored events."""
        return self.status_reason is not None and self.status_reason.startswith(DIVERGED_PREFIX)


@dataclass(frozen=True, slots=True)
class RecoveryRecord:
    """What crash recovery needs besides the match and its log. SECRET while the match runs: the
    seed decides every wall. Never sent to clients or shown in listings."""

    match_id: str
    seed_hex: str
    table: JSON = None  # the table's settings: {"timers": {...}, "spectate": {...}}


def paused_settings(table: JSON, reason: str | None) -> JSON:
    """A recovery record's table settings with the table paused (``"paused"``: the reason) or
    going on (no ``"paused"``); the other settings as they were."""
    settings = dict(table) if isinstance(table, dict) else {}
    if reason is None:
        settings.pop("paused", None)
    else:
        settings["paused"] = reason
    return settings


STEP_SOURCES = ("player", "bot", "timeout", "disconnected", "left")
"""Who decided a stored step's action (``StepRecord.source``; see the module docstring)."""

SERVER_PLAYED_SOURCES = frozenset({"timeout", "disconnected", "left"})
"""The sources of a human seat's decision that the table made for it."""


@dataclass(frozen=True, slots=True)
class StepRecord:
    match_id: str
    step: int  # see the module docstring: 0 is the deal
    seat: int | None
    action: JSON  # dict (action_to_dict) or None for the deal
    # omniscient events, as stored (format_version): read back, JSON objects; made by the hub, the
    # wire structs the store encodes straight to that JSON (server.eventlog.codec.StoredEvent)
    events: tuple[JSON, ...]
    request_id: int | None = None  # the client's request id (None: timeout, bot, deal)
    applied_at: float = 0.0  # unix seconds
    source: str | None = None  # who decided (STEP_SOURCES); None: the deal, or an old row
    format_version: int = 1  # the event-log format of events and action (server.eventlog.codec)
    banks: tuple[int, ...] | None = None  # each seat's time bank left after this step (ms); None: old
    # The engine events ``events`` encodes, when the record was made from them (the hub's records):
    # the store projects hands from them without decoding. Not stored, not compared.
    engine_events: tuple[Event, ...] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ResultRecord:
    match_id: str
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    final_points: tuple[float, ...]
