"""The table factory: how anything (matchmaking, a tournament director, tools) makes a table and
reaches a live one, on one node and in a cluster alike (``docs/architecture.md``).

* :class:`TableSpec` says what to make: the seats (:class:`SeatRequest`: a player's account, a
  built-in bot, or an empty seat), the ruleset, the walls (a seed, or injected walls), the clocks
  (:class:`TableTimers`), the spectator policy (:class:`SpectatePolicy`), the ``source`` stored with
  the match (``queue:tenhou``, ``private:CODE``, ``ranked:<room>:<length>``: it decides whether the
  match is rated) and free ``tags`` (``room``, ``event``) kept with the live table.
* :class:`TableFactory` makes it (:meth:`~TableFactory.create`) and finds a live one
  (:meth:`~TableFactory.find`), as a :class:`LiveTable`: its :class:`TableStatus`, and
  :meth:`~LiveTable.pause`, :meth:`~LiveTable.unpause` and :meth:`~LiveTable.end`.
* Where a table runs is the placement's decision (``server.hub.placement``): a table is created on
  the node that asks, once the placement lets it claim the match. A table running on another node
  is found (its status says where) and paused, unpaused or ended all the same: the placement has
  its node do it (``Placement.control``, ``docs/scaling.md``); when no node can do it now, those
  raise :class:`TableBusyError` (``code`` ``busy``), never a silent no-op. What cannot be done for
  a table at all raises :class:`TableUnsupportedError` (``code`` ``unsupported``).

The hub implements the factory (:class:`server.hub.tables.LocalTables`); this module is only its
contract and value types, so that services (a tournament director) depend on it, not on the hub.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from server.domain.records import Account, AccountKind
from server.engine.rules import Ruleset
from server.engine.tiles import Tile

MAX_DELAY_HANDS = 16
MAX_OBSERVERS = 64
CASTER_MIN_DELAY_S = 60.0


class SettingsError(ValueError):
    """A setting out of its range (the message names the setting and the value)."""


@dataclass(frozen=True, slots=True)
class TableTimers:
    """Time per decision, in milliseconds on the server's clock (configurable per table).

    ``action_ms`` is the per-decision time; once it runs out the seat's ``bank_ms`` (per player and
    match) is used; when both are gone the table plays the engine's default action. ``min_call_ms``
    is the uniform minimum call window: after every discard (or added/closed kan) the table waits at
    least this long before anything that follows is shown, whether or not anyone could call, so how
    long others take never reveals who could call (0 turns it off). A seat without a connection keeps
    its own clock (action time and bank), plus ``disconnect_grace_ms`` of extra time; once played
    for, it is played at once until it is back (``server.hub.timing``). A built-in bot takes
    ``bot_delay_ms`` over its own turn (a
    discard, a kan, a win), never over a call window, where a pause would tell everyone it could have
    called. At a table with a human (guest or player) seat, the next hand starts ``hand_pause_ms``
    after a hand ends, so its result can be read.

    ``TableTimers()`` itself paces nothing (bots answer at once, hands follow each other at once:
    tests, embedding); the hub's default, ``PACED_TIMERS`` (``server.hub.settings``, ``jantaku serve``),
    paces tables for people.
    """

    action_ms: int = 5000
    bank_ms: int = 10000
    min_call_ms: int = 0
    disconnect_grace_ms: int = 0
    bot_delay_ms: int = 0
    hand_pause_ms: int = 0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3_600_000:
                raise SettingsError(f"{f.name} must be an integer from 0 to 3600000 ms, got {value!r}")

    def replace(self, **changes: int) -> TableTimers:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class SpectatePolicy:
    """Spectators see public information only, and each event only once ``delay_steps`` more events
    (public steps) have been shown to the seats, ``delay_s`` seconds have passed since they saw it
    and ``delay_hands`` more hands have started after the one it belongs to (1: a hand is shown
    once the next one has begun; the end of the match releases everything).

    ``observers``: when not empty, only these registered accounts (by name) may watch: a private
    table's or an event's named observers. ``caster``: a spectator may ask for the caster view,
    every hand open (each seat's concealed tiles and draws), delayed as everything else; only with
    a delay of at least one hand or :data:`CASTER_MIN_DELAY_S` seconds, so that an open hand is
    never news to anyone still playing it (docs/social.md#spectating-for-streams)."""

    delay_steps: int = 0
    delay_s: float = 5.0
    allowed: bool = True
    delay_hands: int = 0
    caster: bool = False
    observers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.delay_steps < 0 or self.delay_s < 0 or self.delay_hands < 0:
            raise SettingsError(
                "spectator delays must be >= 0, got "
                f"{self.delay_steps} steps, {self.delay_s} s, {self.delay_hands} hands"
            )
        if self.delay_hands > MAX_DELAY_HANDS:
            raise SettingsError(f"delay_hands must be at most {MAX_DELAY_HANDS}, got {self.delay_hands}")
        if isinstance(self.observers, list):  # as read back from JSON
            object.__setattr__(self, "observers", tuple(self.observers))
        if len(self.observers) > MAX_OBSERVERS or not all(
            isinstance(n, str) and 0 < len(n) <= 64 for n in self.observers
        ):
            raise SettingsError(f"observers: at most {MAX_OBSERVERS} account names of 1 to 64 characters")
        if self.caster and self.delay_hands < 1 and self.delay_s < CASTER_MIN_DELAY_S:
            raise SettingsError(
                f"a caster view needs a spectator delay of at least one hand or {CASTER_MIN_DELAY_S:g} s"
            )

    def admits(self, account: Account) -> bool:
        """Whether ``account`` may watch under this policy (``allowed`` aside): anyone, or only the
        named observers (registered accounts: a guest's name is not unique)."""
        if not self.observers:
            return True
        return account.kind is not AccountKind.GUEST and account.name in self.observers


class TableError(Exception):
    """The factory refused: ``code`` is ``not_found``, ``malformed``, ``busy`` or ``unsupported``."""

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TableNotFoundError(TableError):
    code = "not_found"


class TableSpecError(TableError):
    """The spec cannot make a table (a seat count the ruleset does not play, an unknown bot...)."""

    code = "malformed"


class TableBusyError(TableError):
    """The table could not be made now (the store refused the match, or the cluster cannot place
    it), or the node running it could not be reached to pause, unpause or end it: nothing was
    done; try again."""

    code = "busy"


class TableUnsupportedError(TableError):
    """What was asked is not possible for this table (yet). Documented, explicit, and nothing
    changed."""

    code = "unsupported"


class SeatKind(StrEnum):
    PLAYER = "player"  # an account: it plays over its connection (joins with ``resume``)
    BOT = "bot"  # a built-in bot (server.bots)
    EMPTY = "empty"  # nobody: the factory's fill bot plays it, as quick match fills empty seats


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """One seat of a table to make."""

    kind: SeatKind
    account: Account | None = None  # PLAYER
    bot: str | None = None  # BOT: the built-in bot's name (None: the server's fill bot)

    @classmethod
    def player(cls, account: Account) -> SeatRequest:
        return cls(SeatKind.PLAYER, account=account)

    @classmethod
    def built_in(cls, bot: str | None = None) -> SeatRequest:
        return cls(SeatKind.BOT, bot=bot)

    @classmethod
    def empty(cls) -> SeatRequest:
        return cls(SeatKind.EMPTY)

    def __post_init__(self) -> None:
        if (self.kind is SeatKind.PLAYER) != (self.account is not None):
            raise TableSpecError("a player seat needs an account, and only a player seat has one")


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What to make: see the module docstring. ``seed`` None: a fresh random seed; ``walls``
    (injected, one per hand, in order) replace the seeded ones (a match dealt from them cannot be
    replayed from its seed after a restart). ``timers`` / ``spectate`` None: the server's.

    ``hold_reveals``: the table's walls are shared with other tables that may still be playing the
    same hand (a tournament's duplicate walls), so no seat or spectator receives a hand's wall
    (``wall_revealed`` comes with an empty salt and wall, its commitment kept) nor the match's seed
    (``match_ended`` with an empty seed); both are stored as usual, so the game verifies later, and
    whoever made the table publishes the seed when it is safe (the event service: when the round
    ends). The setting survives a restart (it is stored with the match's recovery record)."""

    seats: tuple[SeatRequest, ...]
    ruleset: Ruleset
    source: str
    seed: bytes | None = None
    walls: tuple[tuple[Tile, ...], ...] | None = None
    timers: TableTimers | None = None
    spectate: SpectatePolicy | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    hold_reveals: bool = False
    start_scores: tuple[int, ...] | None = None  # per-seat start points (None: the ruleset's)

    def __post_init__(self) -> None:
        scores = self.start_scores
        if scores is not None and (
            len(scores) != len(self.seats) or any(p <= 0 or p % 100 or p > 1_000_000 for p in scores)
        ):
            raise TableSpecError(f"start scores must be one positive multiple of 100 per seat, got {scores}")


@dataclass(frozen=True, slots=True)
class SeatStatus:
    seat: int
    name: str
    kind: str  # guest, player or bot
    account_id: str | None


@dataclass(frozen=True, slots=True)
class TableStatus:
    """A live table as the factory sees it. ``node``: None when it runs on this node; otherwise the
    address of the node that runs it (then only ``match_id`` and ``node`` are known here)."""

    match_id: str
    source: str = ""
    tags: Mapping[str, str] = field(default_factory=dict)
    seats: tuple[SeatStatus, ...] = ()
    paused: bool = False
    finished: bool = False
    node: str | None = None
    locked: frozenset[int] = frozenset()  # seats no connection may take (:meth:`LiveTable.lock_seat`)


TABLE_ACTIONS = ("pause", "unpause", "end", "lock", "unlock", "substitute")
_SEAT_ACTIONS = ("lock", "unlock", "substitute")
REASON_MAX = 500


@dataclass(frozen=True, slots=True)
class TableCommand:
    """What is asked of a live table that another node runs, in the form in which it travels there
    (``Placement.control``): ``pause``, ``unpause`` or ``end`` (with ``reason``); ``lock`` or
    ``unlock`` a ``seat``; ``substitute`` at a ``seat`` a player's account (``account_id``: the
    node running the table reads it from the store) or a built-in ``bot`` (None: the fill bot)."""

    action: str
    reason: str = ""
    seat: int | None = None
    account_id: str | None = None
    bot: str | None = None

    def __post_init__(self) -> None:
        if self.action not in TABLE_ACTIONS:
            raise ValueError(f"no table action {self.action!r}")
        if (self.action in _SEAT_ACTIONS) != (self.seat is not None):
            raise ValueError(f"table action {self.action!r}: a seat is needed by (only) {_SEAT_ACTIONS}")
        if self.action != "substitute" and (self.account_id is not None or self.bot is not None):
            raise ValueError("only a substitute names an account or a bot")
        object.__setattr__(self, "reason", self.reason[:REASON_MAX])

    @classmethod
    def substitute(cls, seat: int, by: SeatRequest) -> TableCommand:
        if by.kind is SeatKind.EMPTY:
            raise TableSpecError("a substitute is a player's account or a built-in bot")
        account_id = by.account.id if by.account is not None else None
        return cls("substitute", seat=seat, account_id=account_id, bot=by.bot)

    def to_wire(self) -> dict[str, str | int | None]:
        return {
            "action": self.action,
            "reason": self.reason,
            "seat": self.seat,
            "account": self.account_id,
            "bot": self.bot,
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, object]) -> TableCommand:
        """ValueError for anything but what :meth:`to_wire` writes."""
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise ValueError(f"seat: {seat!r}")
        action, reason = data.get("action"), data.get("reason", "")
        account, bot = data.get("account"), data.get("bot")
        if not isinstance(action, str) or not isinstance(reason, str):
            raise ValueError("action and reason are strings")
        if account is not None and not isinstance(account, str):
            raise ValueError(f"account: {account!r}")
        if bot is not None and not isinstance(bot, str):
            raise ValueError(f"bot: {bot!r}")
        return cls(action, reason, seat, account, bot)


@dataclass(frozen=True, slots=True)
class TableAnswer:
    """What the node running a table answered a :class:`TableCommand`: done (``step``: for a
    substitute, the match's last step before it took over), refused there (``code`` and
    ``message`` of the :class:`TableError` raised), or ``over``: the match had ended, nothing was
    done."""

    step: int | None = None
    code: str | None = None
    message: str = ""
    over: bool = False

    @classmethod
    def refused(cls, error: TableError) -> TableAnswer:
        return cls(code=error.code, message=error.message)

    def raise_refusal(self) -> None:
        """Raise here the error the other node raised (as :class:`TableError` of its code)."""
        if self.code is not None:
            kind = _ERRORS.get(self.code, TableSpecError)
            raise kind(self.message)


_ERRORS: dict[str, type[TableError]] = {
    e.code: e for e in (TableNotFoundError, TableSpecError, TableBusyError, TableUnsupportedError)
}


class LiveTable(Protocol):
    """A live table, wherever it runs."""

    @property
    def match_id(self) -> str: ...

    def status(self) -> TableStatus: ...

    async def pause(self, reason: str) -> None:
        """Stop every clock of the table (decision time, banks, the call window, the hand pause)
        and tell the seats; acts are refused (``busy_retry``) until :meth:`unpause`. Pausing a
        paused table changes nothing. TableUnsupportedError where it cannot be done (yet)."""
        ...

    async def unpause(self) -> None:
        """Start the clocks again where they stopped; the seats that must decide are prompted again
        with the time they had left. Unpausing a running table changes nothing."""
        ...

    async def end(self, reason: str) -> None:
        """End the match now, aborted (stored with ``reason``); every seat is told."""
        ...

    async def lock_seat(self, seat: int, locked: bool) -> None:
        """Lock (or unlock) ``seat``: while locked, no connection may take it (a ``resume`` into it
        is refused; one holding it keeps it) and it cannot be substituted. Locking twice changes
        nothing."""
        ...

    async def substitute(self, seat: int, by: SeatRequest) -> int:
        """Hand ``seat`` to a substitute from now on: another player's account (it joins with
        ``resume``; the seat's previous connection is let go) or a built-in bot that plays it at
        once. The seat keeps its score, its name changes. Answers the match's last step before the
        substitute took over: the seat's moves applied at later steps are the substitute's.
        TableSpecError for a locked seat, an unknown bot or an account already at the table."""
        ...


class TableFactory(Protocol):
    """Makes tables and finds live ones (see the module docstring)."""

    async def create(self, spec: TableSpec) -> LiveTable:
        """Make and start the table (the match and its deal are stored first); TableSpecError for a
        spec that cannot make one, TableBusyError when it could not be made now."""
        ...

    async def find(self, match_id: str) -> LiveTable | None:
        """The live table of ``match_id``, on this node or another (None: no live table)."""
        ...
