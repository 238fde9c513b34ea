"""What the hub persists, behind one small async interface (:class:`Repository`).

The hub only ever talks to this Protocol. ``server.store.repository.SqlRepository`` implements it on
SQLite or PostgreSQL (what ``jantaku serve`` uses); :mod:`server.hub.memory` implements it in memory
(tests, ``--database-url memory:``).

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
  connected: the table played its default action); None for the deal and for steps stored before
  it was recorded (migration 0003).
* :class:`ResultRecord`: the final standings.
* :class:`RecoveryRecord`: what a restarted server needs to resume a running match: the SECRET
  seed and the table's settings. Kept apart from :class:`MatchRecord` (no match listing or export
  ever carries it): the seed is public only once the match is over (``MatchRecord.seed_hex``).

Exception tree::

    RepositoryError
    ├── NotFoundError        no such account / match
    ├── ConflictError        a duplicate name, id or step
    ├── UnavailableError     the store is stalled, down or overloaded: the outcome of the write is
    │                        unknown; retrying the same write is safe (the hub answers busy_retry)
    └── (anything else the backend raises: the hub treats it as "the write may not have happened")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

JSON = Any  # a JSON-compatible value (dict / list / str / int / float / bool / None)


class RepositoryError(Exception):
    """Root of the errors a repository raises on purpose."""


class NotFoundError(RepositoryError):
    pass


class ConflictError(RepositoryError):
    pass


class UnavailableError(RepositoryError):
    """The store could not confirm the write in time (stalled, failed or overloaded).

    The write may or may not have happened: retry the very same call (writes are idempotent). The
    table answers ``busy_retry`` and, before its next write, reads ``step_count`` to learn whether
    the write landed (then it adopts it)."""


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


STEP_SOURCES = ("player", "bot", "timeout", "disconnected")
"""Who decided a stored step's action (``StepRecord.source``; see the module docstring)."""

SERVER_PLAYED_SOURCES = frozenset({"timeout", "disconnected"})
"""The sources of a human seat's decision that the table made for it."""


@dataclass(frozen=True, slots=True)
class StepRecord:
    match_id: str
    step: int  # see the module docstring: 0 is the deal
    seat: int | None
    action: JSON  # dict (action_to_dict) or None for the deal
    events: tuple[JSON, ...]  # omniscient events, wire vocabulary, as dicts
    request_id: int | None = None  # the client's request id (None: timeout, bot, deal)
    applied_at: float = 0.0  # unix seconds
    source: str | None = None  # who decided (STEP_SOURCES); None: the deal, or an old row


@dataclass(frozen=True, slots=True)
class ResultRecord:
    match_id: str
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    final_points: tuple[float, ...]


class Repository(Protocol):
    """The hub's persistence port. Every method may raise; the hub never trusts a write that raised."""

    # accounts
    async def create_account(self, account: Account) -> None:
        """Raises ConflictError for a duplicate id, or a duplicate name among players and bots."""
        ...

    async def account_by_id(self, account_id: str) -> Account | None: ...

    async def account_by_name(self, name: str) -> Account | None:
        """A player or bot account (guests are not looked up by name)."""
        ...

    async def list_accounts(self) -> Sequence[Account]:
        """Players and bots (not guests)."""
        ...

    async def revoke_account(self, account_id: str, at: float) -> Account:
        """Mark the account revoked (its token and sessions stop working); NotFoundError if unknown."""
        ...

    # sessions
    async def create_session(self, session: SessionRecord) -> None: ...

    async def session_by_id(self, session_id: str) -> SessionRecord | None: ...

    async def delete_expired_sessions(self, now: float) -> int: ...

    # matches and the step log
    async def create_match(self, match: MatchRecord, recovery: RecoveryRecord | None = None) -> None:
        """Store the match, its seats and (in the same transaction) its recovery record."""
        ...

    async def get_match(self, match_id: str) -> MatchRecord | None: ...

    async def finish_match(
        self,
        match_id: str,
        status: MatchStatus,
        ended_at: float,
        seed_hex: str | None,
        reason: str | None = None,
    ) -> None:
        """Set the final status (and ``status_reason``); reveal the seed (None keeps it secret)."""
        ...

    async def unfinished_matches(self) -> Sequence[MatchRecord]:
        """Matches still running (to resume after a restart), oldest first."""
        ...

    async def recovery_record(self, match_id: str) -> RecoveryRecord | None:
        """The secret seed and table settings of a match (crash recovery only)."""
        ...

    async def append_step(self, step: StepRecord) -> None:
        """Append step ``step.step``; it must be the next one (ConflictError otherwise, unless the
        very same record is already stored: appending is idempotent)."""
        ...

    async def steps(self, match_id: str, after: int = -1) -> Sequence[StepRecord]:
        """The stored steps with ``step > after``, in order."""
        ...

    async def step_count(self, match_id: str) -> int:
        """How many steps are stored (= the next step expected)."""
        ...

    async def record_result(self, result: ResultRecord) -> None: ...

    async def get_result(self, match_id: str) -> ResultRecord | None: ...
