"""The organizers' actions on a round's tables (``docs/tournaments.md``, "Running an event"): pause
and resume, end a table early, lock a seat, substitutes (before the start and while the table
plays), per-entrant start points, adjustments and notices; and the moves of a game marked with who
played them (an entrant or its substitute).

Each action is checked, audited and idempotent (:mod:`server.services.eventbase`): sent again with
the same ``key`` it changes nothing; a refused one raises EventError and changes nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass

from server.domain.tournaments import (
    AdjustmentRecord,
    EntrantStatus,
    EventRecord,
    RoundRecord,
    RoundStatus,
    RoundTableRecord,
    StandInRecord,
)
from server.services.eventbase import BOT_PREFIX, Actor, EventBase, PostedNotice
from server.services.eventrules import EventError
from server.services.tables import SeatRequest, TableError

MAX_START_POINTS = 1_000_000
STAND_IN = "standin:"  # the account id of a bot substitute's seat at a live table (server.hub.standins)


@dataclass(frozen=True, slots=True)
class MarkedMove:
    """One stored move of an event's game: who played it (``played_by``: the entrant of record, or
    the substitute in its seat) and whether that was a substitute."""

    step: int
    seat: int
    source: str  # who decided, as stored: player, bot, timeout, disconnected, left
    entrant: str  # the seat's entrant of record (it keeps the seat's score)
    played_by: str
    substitute: bool


def stand_in_at(table: RoundTableRecord, seat: int, step: int) -> StandInRecord | None:
    """The substitute who played ``seat``'s move at ``step`` (None: the entrant itself)."""
    found = None
    for s in table.stand_ins:
        if s.seat == seat and (s.from_step is None or step > s.from_step):
            found = s
    return found


def stand_in_of(by: str) -> str:
    """The substitute to seat again for a stand-in: its account id, or ``bot:<name>``."""
    return (
        f"{BOT_PREFIX}{by[len(BOT_PREFIX) :].split(':', maxsplit=1)[0]}" if by.startswith(BOT_PREFIX) else by
    )


class EventLive(EventBase):
    """The organizers' actions on a round's tables (see the module docstring)."""

    async def _live_table(self, event_id: str, index: int) -> tuple[RoundRecord, RoundTableRecord]:
        rnd = await self._current_round(event_id, RoundStatus.RUNNING)
        if not 0 <= index < len(rnd.tables) or rnd.tables[index].match_id is None:
            raise EventError("not_found", f"no table {index} in round {rnd.number}")
        return rnd, rnd.tables[index]

    async def pause(
        self,
        actor: Actor,
        event_id: str,
        table: int | None,
        paused: bool,
        reason: str = "",
        *,
        key: str | None = None,
    ) -> None:
        """Pause (or resume) one table of the running round, or all of them (``table`` None)."""
        event = await self._organized(event_id, actor)
        action = "pause" if paused else "unpause"
        rnd = await self._current_round(event_id, RoundStatus.RUNNING)
        if await self._done(event_id, action, key):
            return
        indices = range(len(rnd.tables)) if table is None else [table]
        for i in indices:
            _, t = await self._live_table(event_id, i)
            assert t.match_id is not None
            live = await self._tables.find(t.match_id)
            if live is None:
                continue  # ended already
            try:
                await (live.pause(reason or "paused by the organizer") if paused else live.unpause())
            except TableError as exc:
                raise EventError(exc.code, exc.message) from None
        await self._audit(event, actor, action, {"table": table}, reason=reason, key=key)

    async def end_table(
        self, actor: Actor, event_id: str, table: int, reason: str, *, key: str | None = None
    ) -> None:
        """End a table of the running round early (aborted): it counts with its scores so far."""
        event = await self._organized(event_id, actor)
        why = self._reason(reason, "ending a table early")
        _, t = await self._live_table(event_id, table)
        if await self._done(event_id, "end_table", key):
            return
        assert t.match_id is not None
        live = await self._tables.find(t.match_id)
        if live is not None:
            try:
                await live.end(why)
            except TableError as exc:
                raise EventError(exc.code, exc.message) from None
        await self._audit(
            event, actor, "end_table", {"table": table, "match": t.match_id}, reason=why, key=key
        )

    # -- seats -----------------------------------------------------------------------------------------

    async def lock_seat(
        self,
        actor: Actor,
        event_id: str,
        *,
        table: int,
        seat: int,
        locked: bool,
        reason: str = "",
        key: str | None = None,
    ) -> RoundRecord:
        """Lock (or unlock) a seat of the seated or running round: while locked, no substitute is
        seated in it and, at a running table, no connection may take it."""
        event = await self._organized(event_id, actor)
        rnd = await self._current_round(event_id, RoundStatus.SEATED, RoundStatus.RUNNING)
        t = self._seat_of(rnd, table, seat)
        if (seat in t.locked) == locked:
            return rnd  # already so: changes nothing
        if t.match_id is not None:
            live = await self._tables.find(t.match_id)
            if live is not None:
                try:
                    await live.lock_seat(seat, locked)
                except TableError as exc:
                    raise EventError(exc.code, exc.message) from None
        seats = tuple(sorted({*t.locked, seat} if locked else set(t.locked) - {seat}))
        rnd = await self._put_table(rnd, dataclasses.replace(t, locked=seats))
        action = "lock_seat" if locked else "unlock_seat"
        await self._audit(event, actor, action, {"table": table, "seat": seat}, reason=reason, key=key)
        return rnd

    async def substitute(
        self,
        actor: Actor,
        event_id: str,
        *,
        table: int,
        seat: int,
        substitute: str,
        reason: str,
        key: str | None = None,
    ) -> RoundRecord:
        """Seat ``substitute`` (an account id, or ``bot:<name>``: a built-in bot flagged as
        substitute) in place of a no-show or a dropped player: before the round starts, or at its
        running table (through the table factory). The entrant of record keeps the seat's score."""
        event = await self._organized(event_id, actor)
        why = self._reason(reason, "a substitution")
        rnd = await self._current_round(event_id, RoundStatus.SEATED, RoundStatus.RUNNING)
        if await self._done(event_id, "substitute", key):
            return rnd
        t = self._seat_of(rnd, table, seat)
        if seat in t.locked:
            raise EventError("conflict", f"seat {seat} at table {table} is locked: unlock it first")
        sitting = {x.player_of(i) for x in rnd.tables for i in range(len(x.entrants))} | {
            e for x in rnd.tables for e in x.entrants
        }
        if substitute in sitting:
            raise EventError("conflict", f"{substitute!r} already sits in this round")
        request = await self._substitute_request(substitute)
        by = substitute
        if substitute.startswith(BOT_PREFIX):
            by = f"{substitute}:sub{rnd.number}.{table}.{seat}.{len(t.stand_ins) + 1}"
        from_step = None
        if rnd.status is RoundStatus.RUNNING:
            if t.match_id is None:
                raise EventError("conflict", f"table {table} has not been made: start the round again")
            live = await self._tables.find(t.match_id)
            if live is None:
                raise EventError("conflict", f"table {table} has ended")
            try:
                from_step = await live.substitute(seat, request)
            except TableError as exc:
                raise EventError(exc.code, exc.message) from None
        stand_in = StandInRecord(seat, by, from_step, self._now())
        changed = dataclasses.replace(
            t,
            substitutes=tuple(sorted({*t.substitutes, seat})),
            stand_ins=(*t.stand_ins, stand_in),
        )
        rnd = await self._put_table(rnd, changed)
        detail = {"table": table, "seat": seat, "out": t.player_of(seat), "in": by, "from_step": from_step}
        await self._audit(event, actor, "substitute", detail, reason=why, key=key)
        return rnd

    async def _substitute_request(self, substitute: str) -> SeatRequest:
        if substitute.startswith(BOT_PREFIX):
            bot = substitute[len(BOT_PREFIX) :]
            if self._bot_names is not None and bot not in self._bot_names:
                raise EventError("malformed", f"no built-in bot {bot!r}; bots: {sorted(self._bot_names)}")
            return SeatRequest.built_in(bot)
        account = await self._accounts(substitute)
        if account is None:
            raise EventError("not_found", f"no account {substitute!r}")
        await self._check_not_suspended(account.id, who=substitute)
        return SeatRequest.player(account)

    async def set_start_points(
        self,
        actor: Actor,
        event_id: str,
        entrant_id: str,
        points: int | None,
        reason: str = "",
        *,
        key: str | None = None,
    ) -> None:
        """An entrant's start points at the tables made from now on (None: the ruleset's)."""
        event = await self._organized(event_id, actor)
        if points is not None and not (0 < points <= MAX_START_POINTS and points % 100 == 0):
            raise EventError("malformed", f"start points are a positive multiple of 100, got {points}")
        found = next((e for e in await self._store.entrants(event_id) if e.entrant_id == entrant_id), None)
        if found is None:
            raise EventError("not_found", f"no entrant {entrant_id!r}")
        if found.start_points == points or await self._done(event_id, "start_points", key):
            return
        await self._store.put_entrant(dataclasses.replace(found, start_points=points))
        detail = {"entrant": entrant_id, "points": points}
        await self._audit(event, actor, "start_points", detail, reason=reason, key=key)

    async def restore_tables(self, only: Collection[str] | None = None) -> list[str]:
        """After a restart or a takeover (the tables replayed from the store; ``only``: of these
        matches): give every running round's live table its seat locks again and its substitutes
        who took over mid-game (those seated before the start are stored with the match); a seat
        that has its substitute already is left as it is. What could not be restored, named (e.g. a
        table on another node); nothing is audited, nothing else changes."""
        problems = []
        for event in await self._store.events():
            rounds = await self._store.rounds(event.id)
            if not rounds or rounds[-1].status is not RoundStatus.RUNNING:
                continue
            for t in rounds[-1].tables:
                if t.match_id is None or (only is not None and t.match_id not in only):
                    continue
                live = await self._tables.find(t.match_id)
                if live is None:
                    continue
                latest = {s.seat: s for s in t.stand_ins}
                held = {s.seat: s.account_id for s in live.status().seats}
                try:
                    for seat, s in sorted(latest.items()):
                        if not any(x.seat == seat and x.from_step is not None for x in t.stand_ins):
                            continue  # seated before the start: the stored match has it
                        if held.get(seat) in (s.by, None) or str(held.get(seat)).startswith(STAND_IN):
                            continue  # it has its substitute already
                        await live.substitute(seat, await self._substitute_request(stand_in_of(s.by)))
                    for seat in t.locked:
                        await live.lock_seat(seat, True)
                except (TableError, EventError) as exc:
                    problems.append(f"{event.id} table {t.index} ({t.match_id}): {exc}")
        return problems

    # -- standings and entrants --------------------------------------------------------------------------

    async def adjust(
        self,
        actor: Actor,
        event_id: str,
        entrant_id: str,
        amount: int,
        reason: str,
        *,
        key: str | None = None,
    ) -> None:
        event = await self._organized(event_id, actor)
        why = self._reason(reason, "an adjustment")
        if entrant_id not in {e.entrant_id for e in await self._store.entrants(event_id)}:
            raise EventError("not_found", f"no entrant {entrant_id!r}")
        if await self._done(event_id, "adjust", key):
            return
        await self._store.add_adjustment(
            AdjustmentRecord(event_id, entrant_id, amount, why, actor.id, self._now())
        )
        detail = {"entrant": entrant_id, "amount": amount}
        await self._audit(event, actor, "adjust", detail, reason=why, key=key)

    async def notice(self, actor: Actor, event_id: str, text: str, *, key: str | None = None) -> None:
        """A notice to every entrant: shown in the event's view (public), oldest first, and pushed
        at once to the live connections of the entrants still in the event (``notice_to``)."""
        event = await self._organized(event_id, actor)
        if not text.strip() or len(text) > 500:
            raise EventError("malformed", "a notice has 1 to 500 characters")
        if await self._done(event_id, "notice", key):
            return
        await self._audit(event, actor, "notice", {"text": text.strip()}, key=key)
        if self._notice_to is not None:
            entrants = await self._store.entrants(event_id)
            to = [e.entrant_id for e in entrants if e.status is EntrantStatus.ENTERED and e.kind != "bot"]
            self._notice_to(to, PostedNotice(event.id, event.settings.name, text.strip(), self._now()))

    # -- the moves of a game ---------------------------------------------------------------------------

    async def _table_of(self, event: EventRecord, match_id: str) -> RoundTableRecord:
        for rnd in await self._store.rounds(event.id):
            for t in rnd.tables:
                if t.match_id == match_id:
                    return t
        raise EventError("not_found", f"no game {match_id!r} in event {event.id}")

    async def moves(self, actor: Actor, event_id: str, match_id: str) -> list[MarkedMove]:
        """Every stored move of one of the event's games, marked with who played it (organizers)."""
        event = await self._organized(event_id, actor)
        return await self.marked_moves(event, match_id)

    async def marked_moves(self, event: EventRecord, match_id: str) -> list[MarkedMove]:
        t = await self._table_of(event, match_id)
        if self._steps_of is None:
            raise EventError("unsupported", "this server does not read stored moves")
        out = []
        for step, seat, source in await self._steps_of(match_id):
            if seat is None:
                continue
            stand_in = stand_in_at(t, seat, step)
            entrant = t.entrants[seat]
            by = entrant if stand_in is None else stand_in.by
            out.append(MarkedMove(step, seat, source, entrant, by, stand_in is not None))
        return out

    async def game_text(self, match_id: str, fmt: str) -> str:
        """One finished game as ``tenhou6`` or ``mjai`` text (EventError ``conflict`` if it cannot be
        exported now, e.g. a duplicate round's game before the round's reveal)."""
        if self._export_of is None:
            raise EventError("unsupported", "this server does not export games")
        return await self._export_of(match_id, fmt)
