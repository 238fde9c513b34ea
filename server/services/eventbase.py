"""What every part of the event service shares (``docs/tournaments.md``): who asks (:class:`Actor`),
the ports it runs on, and the checks, audit and idempotency of organizer actions.

The service is split by concept: entry and rounds (:mod:`server.services.tournaments`), check-in
(:mod:`server.services.eventcheckin`: an entrant's own, an organizer's for an entrant), the running
tables' actions (:mod:`server.services.eventlive`: pause, end, lock, substitutes, start points,
adjustments, notices) and the archive of an event's games (:mod:`server.services.eventexport`).

Every organizer action is checked (the actor must be one of the event's organizers, or an
administrator), audited (who, when, what, why) and idempotent: an action sent again with the same
``key`` changes nothing and answers as the first did. A refused action raises
:class:`~server.services.eventrules.EventError` and changes nothing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from server.domain.records import Account
from server.domain.tournaments import (
    AuditRecord,
    EntrantRecord,
    EventRecord,
    EventStatus,
    EventStore,
    RoundRecord,
    RoundStatus,
    RoundTableRecord,
)
from server.services.eventrules import EventError
from server.services.tables import TableFactory

BOT_PREFIX = "bot:"

RankOf = Callable[[str, str], Awaitable[tuple[int, float] | None]]
"""An account's ranked standing for a game length (``east``, ``east_south``): (rank, R), the rank an
index of the ranking tables' ranks; None when the server keeps no ratings."""

StepsOf = Callable[[str], Awaitable[Sequence[tuple[int, int | None, str]]]]
"""A match's stored moves: (step, seat, source) in step order (the deal has seat None)."""

ExportOf = Callable[[str, str], Awaitable[str]]
"""A finished game written as ``tenhou6`` (tenhou.net/6 JSON) or ``mjai`` (JSON lines)."""


@dataclass(frozen=True, slots=True)
class Suspension:
    """A moderator's suspension running now (``docs/social.md``, "Moderation")."""

    ends: float | None  # None: until lifted
    message: str  # what the suspended player is told, as the hub tells it: until when, and why

    @property
    def until(self) -> str:
        return "until lifted" if self.ends is None else f"until {self.ends:.0f}"


SuspensionsOf = Callable[[Collection[str]], Awaitable[Mapping[str, Suspension]]]
"""Which of these accounts a suspension keeps from a seat now (account id to its suspension)."""


@dataclass(frozen=True, slots=True)
class PostedNotice:
    """An organizer's notice as it was posted: its event, the event's name, the text, when."""

    event_id: str
    event_name: str
    text: str
    at: float


NoticeTo = Callable[[Collection[str], PostedNotice], None]
"""Push a notice to these accounts' live connections, wherever they are connected (the hub)."""


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: an account, and whether it is an administrator."""

    account: Account
    admin: bool = False

    @property
    def id(self) -> str:
        return self.account.id


class MatchResults(Protocol):
    async def final(self, match_id: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The final scores and places (seat order) of a finished match, else None."""
        ...


@dataclass(frozen=True, slots=True)
class Closing:
    """How an organizer closed an event before its last round (``docs/tournaments.md``, "Closing
    an event early"): when, its status then (``finished``, or ``cancelled`` with no round played),
    the rounds played and the seated round dropped (None: none was seated)."""

    at: float
    status: str
    rounds_played: int
    dropped_round: int | None


@dataclass(frozen=True, slots=True)
class EventView:
    event: EventRecord
    entrants: tuple[EntrantRecord, ...]
    rounds: tuple[RoundRecord, ...]


class EventBase:
    """The ports and the shared checks of the event service."""

    def __init__(
        self,
        *,
        store: EventStore,
        tables: TableFactory,
        results: MatchResults,
        accounts: Callable[[str], Awaitable[Account | None]],
        now: Callable[[], float],
        new_id: Callable[[], str],
        new_secret: Callable[[], bytes],
        rank_of: RankOf | None = None,
        steps_of: StepsOf | None = None,
        export_of: ExportOf | None = None,
        bot_names: Collection[str] | None = None,
        suspensions_of: SuspensionsOf | None = None,
        notice_to: NoticeTo | None = None,
    ) -> None:
        self._store = store
        self._tables = tables
        self._results = results
        self._accounts = accounts
        self._now = now
        self._new_id = new_id
        self._new_secret = new_secret
        self._rank_of = rank_of
        self._steps_of = steps_of
        self._export_of = export_of
        self._bot_names = bot_names  # the built-in bots (None: the table factory checks the names)
        self._suspensions_of = suspensions_of  # None: the server keeps no sanctions
        self._notice_to = notice_to  # None: notices are only shown with the event

    async def _suspended(self, ids: Collection[str]) -> Mapping[str, Suspension]:
        """The accounts among ``ids`` that a suspension keeps from a seat now (bots never)."""
        players = sorted({i for i in ids if not i.startswith(BOT_PREFIX)})
        if self._suspensions_of is None or not players:
            return {}
        return await self._suspensions_of(players)

    async def _check_not_suspended(self, account_id: str, *, who: str = "") -> None:
        """EventError ``suspended`` (the hub's code) while a suspension runs: the player is told
        the hub's words; an organizer naming ``who`` is told only that and until when."""
        found = (await self._suspended([account_id])).get(account_id)
        if found is not None:
            raise EventError("suspended", f"{who} is suspended {found.until}" if who else found.message)

    async def _audit(
        self,
        event: EventRecord,
        actor: Actor,
        action: str,
        detail: object,
        *,
        reason: str = "",
        key: str | None = None,
    ) -> None:
        entry = AuditRecord(
            event.id, self._now(), actor.id, action, json.dumps(detail, sort_keys=True), reason, key
        )
        await self._store.add_audit(entry)

    async def _done(self, event_id: str, action: str, key: str | None) -> bool:
        """Whether this organizer action was already applied with this idempotency key."""
        if key is None:
            return False
        return any(a.key == key and a.action == action for a in await self._store.audit(event_id))

    async def _event(self, event_id: str) -> EventRecord:
        event = await self._store.event(event_id)
        if event is None:
            raise EventError("not_found", f"no event {event_id!r}")
        return event

    @staticmethod
    def _check_not_over(event: EventRecord) -> None:
        """EventError ``conflict`` once the event is over (finished, closed or cancelled)."""
        if event.status in (EventStatus.FINISHED, EventStatus.CANCELLED):
            raise EventError("conflict", f"the event is {event.status.value}")

    async def _organized(self, event_id: str, actor: Actor) -> EventRecord:
        event = await self._event(event_id)
        if not actor.admin and actor.id not in event.organizers:
            raise EventError("forbidden", "only the event's organizers may do this")
        return event

    @staticmethod
    def _reason(reason: str, what: str) -> str:
        if not reason.strip():
            raise EventError("malformed", f"{what} needs a reason")
        return reason.strip()

    async def _current_round(self, event_id: str, *statuses: RoundStatus) -> RoundRecord:
        rounds = await self._store.rounds(event_id)
        if not rounds or rounds[-1].status not in statuses:
            names = " or ".join(s.value for s in statuses)
            raise EventError("conflict", f"no round is {names}")
        return rounds[-1]

    @staticmethod
    def _seat_of(rnd: RoundRecord, table: int, seat: int) -> RoundTableRecord:
        if not 0 <= table < len(rnd.tables) or not 0 <= seat < len(rnd.tables[table].entrants):
            raise EventError("not_found", f"no seat {seat} at table {table} of round {rnd.number}")
        return rnd.tables[table]

    async def _put_table(self, rnd: RoundRecord, changed: RoundTableRecord) -> RoundRecord:
        rnd = dataclasses.replace(
            rnd, tables=tuple(changed if t.index == changed.index else t for t in rnd.tables)
        )
        await self._store.put_round(rnd)
        return rnd
