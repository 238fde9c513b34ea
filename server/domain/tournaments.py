"""What an event (a tournament) stores: its settings, entrants, rounds, adjustments and audit log,
and the port the event service stores them through (``docs/tournaments.md``).

The records are plain values; the rules that seat, deal and score an event are in
:mod:`server.tournament`, the orchestration in :mod:`server.services.tournaments`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol


class EventStatus(StrEnum):
    OPEN = "open"  # entrants may enter (within the sign-up window), rounds not started
    RUNNING = "running"  # a round has started
    FINISHED = "finished"
    CANCELLED = "cancelled"


class EntryMode(StrEnum):
    INVITE = "invite"  # only the accounts on the invite list
    OPEN = "open"  # any account within the limits (cap, window, guests, rank/R)


class EntrantStatus(StrEnum):
    ENTERED = "entered"
    WAITLISTED = "waitlisted"  # over the cap: moves up when someone withdraws
    WITHDRAWN = "withdrawn"
    DROPPED = "dropped"  # taken out by an organizer


class SpectatorMode(StrEnum):
    OFF = "off"
    DELAYED = "delayed"
    OBSERVERS = "observers"  # named observers only


class DuplicateMode(StrEnum):
    OFF = "off"
    ROUND = "round"  # every table of a round plays the same walls
    SETS = "sets"  # tables in sets of ``set_size`` share walls
    # rounds in cycles of one per seat: the same line-ups, seats rotated, on the same walls
    ROTATIONS = "rotations"


class RoundStatus(StrEnum):
    SEATED = "seated"  # seating stored and published, tables not made
    RUNNING = "running"
    FINISHED = "finished"  # every table ended; the walls' seeds are revealed


@dataclass(frozen=True, slots=True)
class EventSettings:
    """Everything an organizer chooses when creating an event (see docs/tournaments.md)."""

    name: str
    ruleset_json: str
    rounds: int
    description: str = ""
    entry: EntryMode = EntryMode.OPEN
    invited: tuple[str, ...] = ()  # account ids (entry "invite")
    cap: int | None = None  # entrants beyond it are waitlisted
    guests: bool = False
    min_dan: int | None = None  # rank/R limits for open sign-up: the ranked rank (1..10 dan) and R
    min_rating: float | None = None
    signup_opens: float | None = None  # wall-clock seconds; None: now
    signup_closes: float | None = None  # None: until the first round is seated
    checkin: bool = False  # entrants check in before each round; the others sit out
    spectators: SpectatorMode = SpectatorMode.DELAYED
    spectate_delay_s: float = 300.0
    spectate_delay_hands: int = 0
    observers: tuple[str, ...] = ()  # account names (spectators "observers": only they watch)
    caster: bool = False  # spectators may ask for the caster view (every hand open, after the delay)
    ranked: bool = False  # the games count for ranked stats (default: they do not)
    seating: str = "random"  # server.tournament.seating.SeatingMethod
    max_meetings: int | None = None
    max_wind_spread: int | None = 2
    duplicate: DuplicateMode = DuplicateMode.OFF
    set_size: int | None = None
    formula: str = "points"  # server.tournament.standings.Formula
    best_n: int | None = None
    teams: Mapping[str, str] = field(default_factory=dict)  # entrant id -> team
    chat: str | None = None  # seated players' free text: on, between_hands or off (None: tournament rule)
    action_ms: int | None = None  # clocks (None: the server's)
    bank_ms: int | None = None


@dataclass(frozen=True, slots=True)
class EventRecord:
    id: str
    settings: EventSettings
    status: EventStatus
    created_by: str
    created_at: float
    organizers: tuple[str, ...]  # the creator first, then co-organizers
    secret: bytes  # the walls' seeds derive from it; never shown


@dataclass(frozen=True, slots=True)
class EntrantRecord:
    event_id: str
    entrant_id: str  # an account id, or "bot:<name>:<n>" for a built-in bot entrant
    name: str
    kind: str  # "player", "guest" or "bot"
    status: EntrantStatus
    entered_at: float
    checked_in: tuple[int, ...] = ()  # rounds checked in for
    start_points: int | None = None  # per-entrant start points (None: the ruleset's)


@dataclass(frozen=True, slots=True)
class StandInRecord:
    """Who plays an entrant's seat in its place (a substitute): the entrant keeps the seat's score.

    ``by`` is an account id, or ``bot:<name>:sub...`` for a built-in bot flagged as substitute;
    ``from_step`` the last step of the match before the substitute took over (None: seated before
    the table was made, so it plays every move of the seat): the seat's moves applied at later
    steps are the substitute's."""

    seat: int
    by: str
    from_step: int | None = None
    at: float = 0.0


@dataclass(frozen=True, slots=True)
class RoundTableRecord:
    index: int
    entrants: tuple[str, ...]  # seat order: the entrants of record (they keep the seats' scores)
    set_id: str
    match_id: str | None = None  # once made
    substitutes: tuple[int, ...] = ()  # seats played by a substitute (``stand_ins`` says by whom)
    stand_ins: tuple[StandInRecord, ...] = ()  # in the order they took over
    locked: tuple[int, ...] = ()  # seats locked by an organizer: no one takes or replaces them
    start_scores: tuple[int, ...] | None = None  # per-seat start points (None: the ruleset's)

    def player_of(self, seat: int) -> str:
        """Who plays ``seat`` now: the last stand-in, else the entrant."""
        last = [s.by for s in self.stand_ins if s.seat == seat]
        return last[-1] if last else self.entrants[seat]


@dataclass(frozen=True, slots=True)
class PublishedSetRecord:
    set_id: str
    tables: tuple[int, ...]
    seed_commitment: str
    wall_commitments: tuple[str, ...]
    seed_hex: str | None = None  # revealed when the round ends


@dataclass(frozen=True, slots=True)
class RoundRecord:
    event_id: str
    number: int  # 1-based
    status: RoundStatus
    tables: tuple[RoundTableRecord, ...]
    sets: tuple[PublishedSetRecord, ...]
    seated_at: float
    started_at: float | None = None
    ended_at: float | None = None


@dataclass(frozen=True, slots=True)
class AdjustmentRecord:
    event_id: str
    entrant_id: str
    amount: int  # in the formula's unit
    reason: str
    by: str
    at: float


@dataclass(frozen=True, slots=True)
class AuditRecord:
    event_id: str
    at: float
    actor: str
    action: str
    detail: str  # JSON
    reason: str = ""
    key: str | None = None  # the organizer's idempotency key, if any


class EventStore(Protocol):
    """Where events are kept. Each method is one atomic change or read."""

    async def add_event(self, event: EventRecord) -> None: ...

    async def event(self, event_id: str) -> EventRecord | None: ...

    async def events(self) -> list[EventRecord]: ...

    async def put_event(self, event: EventRecord) -> None: ...

    async def put_entrant(self, entrant: EntrantRecord) -> None: ...

    async def entrants(self, event_id: str) -> list[EntrantRecord]: ...

    async def put_round(self, rnd: RoundRecord) -> None: ...

    async def rounds(self, event_id: str) -> list[RoundRecord]: ...

    async def delete_round(self, event_id: str, number: int) -> None:
        """Remove a round (a seated round dropped when its event is closed); none: nothing."""
        ...

    async def add_adjustment(self, adjustment: AdjustmentRecord) -> None: ...

    async def adjustments(self, event_id: str) -> list[AdjustmentRecord]: ...

    async def add_audit(self, entry: AuditRecord) -> None: ...

    async def audit(self, event_id: str) -> list[AuditRecord]: ...

    async def organizer_role(self, account_id: str) -> bool: ...

    async def set_organizer_role(self, account_id: str, granted: bool, at: float) -> None: ...
