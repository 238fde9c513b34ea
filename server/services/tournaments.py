"""The event service: an organizer runs a tournament from sign-up to final standings
(``docs/tournaments.md``).

It stores events through the :class:`~server.domain.tournaments.EventStore` port, seats rounds with
:mod:`server.tournament.seating`, deals duplicate walls with :mod:`server.tournament.duplicate`,
makes every table through the public table factory (:class:`server.services.tables.TableFactory`,
so on whichever node the placement decides) and counts standings with
:mod:`server.tournament.standings` from the stored games and the adjustments.

Every organizer action is checked (the actor must be one of the event's organizers, or an
administrator), audited (who, when, what, why) and idempotent: an action sent again with the same
``key`` changes nothing and answers as the first did. A refused action raises :class:`EventError`
with a code (``not_found``, ``forbidden``, ``malformed``, ``conflict``, ``unsupported``) and changes
nothing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from server.domain.records import Account, AccountKind
from server.domain.tournaments import (
    AdjustmentRecord,
    AuditRecord,
    DuplicateMode,
    EntrantRecord,
    EntrantStatus,
    EntryMode,
    EventRecord,
    EventSettings,
    EventStatus,
    EventStore,
    PublishedSetRecord,
    RoundRecord,
    RoundStatus,
    RoundTableRecord,
    SpectatorMode,
)
from server.engine.rules import Ruleset
from server.services.eventrules import EventError, check_settings, seats_of
from server.services.tables import (
    SeatRequest,
    SpectatePolicy,
    TableError,
    TableFactory,
    TableSpec,
    TableTimers,
)
from server.tournament.duplicate import group_sets, publish, wall_set_seed
from server.tournament.seating import (
    History,
    RoundSeating,
    SeatingError,
    SeatingMethod,
    SeatingRules,
    parse_script,
    seat_round,
)
from server.tournament.standings import (
    Adjustment,
    Formula,
    GameResult,
    ScoringRules,
    Standing,
    StandingsError,
    standings,
)

__all__ = ["BOT_PREFIX", "Actor", "EventError", "EventService", "EventView", "MatchResults"]

BOT_PREFIX = "bot:"


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
class EventView:
    event: EventRecord
    entrants: tuple[EntrantRecord, ...]
    rounds: tuple[RoundRecord, ...]


class EventService:
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
    ) -> None:
        self._store = store
        self._tables = tables
        self._results = results
        self._accounts = accounts
        self._now = now
        self._new_id = new_id
        self._new_secret = new_secret

    # -- roles and audit -------------------------------------------------------------------------------

    async def grant_organizer(self, actor: Actor, account_id: str, granted: bool, reason: str) -> None:
        if not actor.admin:
            raise EventError("forbidden", "only an administrator grants the organizer role")
        if await self._accounts(account_id) is None:
            raise EventError("not_found", f"no account {account_id!r}")
        await self._store.set_organizer_role(account_id, granted, self._now())
        detail = json.dumps({"account": account_id, "granted": granted})
        await self._store.add_audit(AuditRecord("", self._now(), actor.id, "organizer_role", detail, reason))

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

    async def _organized(self, event_id: str, actor: Actor) -> EventRecord:
        event = await self._event(event_id)
        if not actor.admin and actor.id not in event.organizers:
            raise EventError("forbidden", "only the event's organizers may do this")
        return event

    # -- events ----------------------------------------------------------------------------------------

    async def create(self, actor: Actor, settings: EventSettings, reason: str = "") -> EventRecord:
        if not actor.admin and not await self._store.organizer_role(actor.id):
            raise EventError(
                "forbidden", "creating events needs the organizer role (an administrator grants it)"
            )
        check_settings(settings)
        event = EventRecord(
            id=self._new_id(),
            settings=settings,
            status=EventStatus.OPEN,
            created_by=actor.id,
            created_at=self._now(),
            organizers=(actor.id,),
            secret=self._new_secret(),
        )
        await self._store.add_event(event)
        await self._audit(
            event, actor, "create", {"name": settings.name, "rounds": settings.rounds}, reason=reason
        )
        return event

    async def add_organizer(
        self, actor: Actor, event_id: str, account_id: str, reason: str = ""
    ) -> EventRecord:
        event = await self._organized(event_id, actor)
        if account_id in event.organizers:
            return event
        if await self._accounts(account_id) is None:
            raise EventError("not_found", f"no account {account_id!r}")
        event = dataclasses.replace(event, organizers=(*event.organizers, account_id))
        await self._store.put_event(event)
        await self._audit(event, actor, "add_organizer", {"account": account_id}, reason=reason)
        return event

    async def update_settings(
        self, actor: Actor, event_id: str, settings: EventSettings, reason: str = ""
    ) -> EventRecord:
        """Change the settings while the event is open and no round is seated."""
        event = await self._organized(event_id, actor)
        if event.status is not EventStatus.OPEN or await self._store.rounds(event_id):
            raise EventError("conflict", "settings change only before the first round is seated")
        check_settings(settings)
        event = dataclasses.replace(event, settings=settings)
        await self._store.put_event(event)
        await self._audit(event, actor, "settings", {"name": settings.name}, reason=reason)
        return event

    async def events(self) -> list[EventRecord]:
        return await self._store.events()

    async def notices(self, event_id: str) -> list[AuditRecord]:
        """The organizers' notices to every entrant (public), oldest first."""
        await self._event(event_id)
        return [a for a in await self._store.audit(event_id) if a.action == "notice"]

    async def view(self, event_id: str) -> EventView:
        event = await self._event(event_id)
        return EventView(
            event, tuple(await self._store.entrants(event_id)), tuple(await self._store.rounds(event_id))
        )

    async def log(self, actor: Actor, event_id: str) -> list[AuditRecord]:
        await self._organized(event_id, actor)
        return await self._store.audit(event_id)

    # -- entry -----------------------------------------------------------------------------------------

    async def enter(self, actor: Actor, event_id: str) -> EntrantRecord:
        event = await self._event(event_id)
        s = event.settings
        now = self._now()
        if event.status is not EventStatus.OPEN or await self._store.rounds(event_id):
            raise EventError("conflict", "sign-up is closed: the event has started")
        if (s.signup_opens is not None and now < s.signup_opens) or (
            s.signup_closes is not None and now >= s.signup_closes
        ):
            raise EventError("conflict", "sign-up is not open now")
        account = actor.account
        if account.kind is AccountKind.GUEST and not s.guests:
            raise EventError("forbidden", "this event does not take guests: sign up for an account")
        if s.entry is EntryMode.INVITE and account.id not in s.invited:
            raise EventError("forbidden", "this event is by invitation")
        entrants = {e.entrant_id: e for e in await self._store.entrants(event_id)}
        mine = entrants.get(account.id)
        if mine is not None and mine.status in (EntrantStatus.ENTERED, EntrantStatus.WAITLISTED):
            return mine  # entering twice changes nothing
        if mine is not None and mine.status is EntrantStatus.DROPPED:
            raise EventError("forbidden", "an organizer took you out of this event")
        entered = sum(1 for e in entrants.values() if e.status is EntrantStatus.ENTERED)
        status = EntrantStatus.WAITLISTED if s.cap is not None and entered >= s.cap else EntrantStatus.ENTERED
        kind = "guest" if account.kind is AccountKind.GUEST else account.kind.value
        record = EntrantRecord(event_id, account.id, account.name, kind, status, now)
        await self._store.put_entrant(record)
        return record

    async def withdraw(self, actor: Actor, event_id: str) -> None:
        event = await self._event(event_id)
        entrants = await self._store.entrants(event_id)
        mine = next((e for e in entrants if e.entrant_id == actor.id), None)
        if mine is None or mine.status not in (EntrantStatus.ENTERED, EntrantStatus.WAITLISTED):
            raise EventError("not_found", "you are not entered in this event")
        if await self._store.rounds(event_id):
            raise EventError("conflict", "the event has started: ask an organizer to take you out")
        await self._store.put_entrant(dataclasses.replace(mine, status=EntrantStatus.WITHDRAWN))
        if mine.status is EntrantStatus.ENTERED:
            await self._promote(event)

    async def _promote(self, event: EventRecord) -> None:
        waiting = [e for e in await self._store.entrants(event.id) if e.status is EntrantStatus.WAITLISTED]
        if waiting:
            await self._store.put_entrant(dataclasses.replace(waiting[0], status=EntrantStatus.ENTERED))

    async def add_bot(
        self, actor: Actor, event_id: str, bot: str = "greedy", reason: str = ""
    ) -> EntrantRecord:
        event = await self._organized(event_id, actor)
        if await self._store.rounds(event_id):
            raise EventError("conflict", "entrants are added before the first round is seated")
        taken = {e.entrant_id for e in await self._store.entrants(event_id)}
        n = 1
        while f"{BOT_PREFIX}{bot}:{n}" in taken:
            n += 1
        record = EntrantRecord(
            event_id, f"{BOT_PREFIX}{bot}:{n}", f"{bot} {n}", "bot", EntrantStatus.ENTERED, self._now()
        )
        await self._store.put_entrant(record)
        await self._audit(event, actor, "add_bot", {"entrant": record.entrant_id}, reason=reason)
        return record

    async def drop(self, actor: Actor, event_id: str, entrant_id: str, reason: str) -> None:
        event = await self._organized(event_id, actor)
        if not reason.strip():
            raise EventError("malformed", "dropping an entrant needs a reason")
        found = next((e for e in await self._store.entrants(event_id) if e.entrant_id == entrant_id), None)
        if found is None:
            raise EventError("not_found", f"no entrant {entrant_id!r}")
        if found.status is EntrantStatus.DROPPED:
            return
        await self._store.put_entrant(dataclasses.replace(found, status=EntrantStatus.DROPPED))
        await self._audit(event, actor, "drop", {"entrant": entrant_id}, reason=reason)
        if found.status is EntrantStatus.ENTERED and not await self._store.rounds(event_id):
            await self._promote(event)

    async def check_in(self, actor: Actor, event_id: str) -> EntrantRecord:
        event = await self._event(event_id)
        rounds = await self._store.rounds(event_id)
        upcoming = (
            len(rounds) + 1 if not rounds or rounds[-1].status is not RoundStatus.SEATED else len(rounds)
        )
        if upcoming > event.settings.rounds:
            raise EventError("conflict", "the event has no round left to check in for")
        mine = next((e for e in await self._store.entrants(event_id) if e.entrant_id == actor.id), None)
        if mine is None or mine.status is not EntrantStatus.ENTERED:
            raise EventError("not_found", "you are not entered in this event")
        if upcoming in mine.checked_in:
            return mine
        record = dataclasses.replace(mine, checked_in=(*mine.checked_in, upcoming))
        await self._store.put_entrant(record)
        return record

    # -- rounds ----------------------------------------------------------------------------------------

    async def seat(
        self,
        actor: Actor,
        event_id: str,
        *,
        script: str | None = None,
        key: str | None = None,
        reason: str = "",
    ) -> RoundRecord:
        """Seat the next round (stored and published; its tables are made by :meth:`start`)."""
        event = await self._organized(event_id, actor)
        rounds = await self._store.rounds(event_id)
        if await self._done(event_id, "seat", key) and rounds:
            return rounds[-1]
        if rounds and rounds[-1].status is not RoundStatus.FINISHED:
            raise EventError("conflict", f"round {rounds[-1].number} is not finished")
        number = len(rounds) + 1
        s = event.settings
        if number > s.rounds:
            raise EventError("conflict", f"the event has {s.rounds} rounds")
        ruleset = Ruleset.from_json(s.ruleset_json)
        seats = seats_of(ruleset)
        rules = SeatingRules(seats=seats, max_meetings=s.max_meetings, max_wind_spread=s.max_wind_spread)
        entrants = [
            e
            for e in await self._store.entrants(event_id)
            if e.status is EntrantStatus.ENTERED
            and (not s.checkin or e.kind == "bot" or number in e.checked_in)
        ]
        history = History.of((RoundSeating(tuple(t.entrants for t in r.tables)) for r in rounds), seats)
        method = SeatingMethod(s.seating)
        order = [e.entrant_id for e in entrants]
        if method is SeatingMethod.STANDINGS and rounds:
            ranked = [row.name for row in await self._standings(event)]
            order = sorted(order, key=lambda e: ranked.index(e) if e in ranked else len(ranked))
        try:
            parsed = parse_script(script, seats) if script is not None else None
            if method is SeatingMethod.SCRIPTED and parsed is None:
                raise SeatingError("this event's seating is scripted: upload the round's tables")
            seating = seat_round(
                SeatingMethod.SCRIPTED if parsed is not None else method,
                order,
                history,
                rules,
                event.secret + b"/seating/" + str(number).encode(),
                script=parsed,
            )
            sets = self._sets(event, number, seating, ruleset)
        except SeatingError as exc:
            raise EventError("conflict", str(exc)) from None
        set_of = {t: p.set_id for p in sets for t in p.tables}
        record = RoundRecord(
            event_id,
            number,
            RoundStatus.SEATED,
            tuple(RoundTableRecord(i, t, set_of[i]) for i, t in enumerate(seating.tables)),
            sets,
            self._now(),
        )
        await self._store.put_round(record)
        await self._audit(
            event, actor, "seat", {"round": number, "tables": seating.to_json()}, reason=reason, key=key
        )
        return record

    def _sets(
        self, event: EventRecord, number: int, seating: RoundSeating, ruleset: Ruleset
    ) -> tuple[PublishedSetRecord, ...]:
        s = event.settings
        groups: tuple[tuple[int, ...], ...]
        if s.duplicate is DuplicateMode.OFF:
            groups = tuple((i,) for i in range(len(seating.tables)))
        else:
            groups = group_sets(seating, s.set_size if s.duplicate is DuplicateMode.SETS else None)
        out = []
        for k, tables in enumerate(groups):
            seed = wall_set_seed(event.secret, number, k)
            p = publish(f"r{number}-s{k}", tables, seed, ruleset)
            out.append(PublishedSetRecord(p.set_id, p.tables, p.seed_commitment, p.wall_commitments))
        return tuple(out)

    async def start(
        self, actor: Actor, event_id: str, *, key: str | None = None, reason: str = ""
    ) -> RoundRecord:
        """Make the seated round's tables through the table factory."""
        event = await self._organized(event_id, actor)
        rounds = await self._store.rounds(event_id)
        if not rounds or rounds[-1].status is RoundStatus.FINISHED:
            raise EventError("conflict", "seat the next round first")
        rnd = rounds[-1]
        if rnd.status is RoundStatus.RUNNING:
            return rnd  # started already: starting again changes nothing
        s = event.settings
        ruleset = Ruleset.from_json(s.ruleset_json)
        seeds = {p.set_id: wall_set_seed(event.secret, rnd.number, k) for k, p in enumerate(rnd.sets)}
        made = []
        for table in rnd.tables:
            if table.match_id is not None:
                made.append(table)
                continue
            seats = [await self._seat_request(e) for e in table.entrants]
            spec = TableSpec(
                seats=tuple(seats),
                ruleset=ruleset,
                source=f"event:{event.id}:r{rnd.number}:t{table.index}",
                seed=seeds[table.set_id],
                timers=self._timers(s),
                spectate=self._spectate(s),
                tags={"event": event.id, "round": str(rnd.number), "table": str(table.index)}
                | ({"chat": s.chat} if s.chat else {}),  # the event's chat policy (docs/social.md)
                hold_reveals=s.duplicate is not DuplicateMode.OFF,  # a set's other tables share the walls
            )
            try:
                live = await self._tables.create(spec)
            except TableError as exc:
                # the tables made so far are kept in the round; starting again makes the rest
                await self._store.put_round(
                    dataclasses.replace(rnd, tables=(*made, *rnd.tables[len(made) :]))
                )
                raise EventError(exc.code, f"table {table.index}: {exc.message}") from None
            made.append(dataclasses.replace(table, match_id=live.match_id))
        rnd = dataclasses.replace(rnd, status=RoundStatus.RUNNING, tables=tuple(made), started_at=self._now())
        await self._store.put_round(rnd)
        if event.status is EventStatus.OPEN:
            await self._store.put_event(dataclasses.replace(event, status=EventStatus.RUNNING))
        await self._audit(event, actor, "start", {"round": rnd.number}, reason=reason, key=key)
        return rnd

    async def _seat_request(self, entrant_id: str) -> SeatRequest:
        if entrant_id.startswith(BOT_PREFIX):
            return SeatRequest.built_in(entrant_id[len(BOT_PREFIX) :].rsplit(":", 1)[0])
        account = await self._accounts(entrant_id)
        if account is None:
            raise EventError("not_found", f"entrant {entrant_id!r} has no account")
        return SeatRequest.player(account)

    @staticmethod
    def _timers(s: EventSettings) -> TableTimers | None:
        if s.action_ms is None and s.bank_ms is None:
            return None
        base = TableTimers(bot_delay_ms=600, hand_pause_ms=5000)
        return base.replace(
            action_ms=s.action_ms if s.action_ms is not None else base.action_ms,
            bank_ms=s.bank_ms if s.bank_ms is not None else base.bank_ms,
        )

    @staticmethod
    def _spectate(s: EventSettings) -> SpectatePolicy:
        if s.spectators is SpectatorMode.OFF or s.spectators is SpectatorMode.OBSERVERS:
            return SpectatePolicy(allowed=False)
        return SpectatePolicy(delay_steps=0, delay_s=s.spectate_delay_s)

    async def _live_table(self, event_id: str, index: int) -> tuple[RoundRecord, RoundTableRecord]:
        rounds = await self._store.rounds(event_id)
        if not rounds or rounds[-1].status is not RoundStatus.RUNNING:
            raise EventError("conflict", "no round is running")
        rnd = rounds[-1]
        if not 0 <= index < len(rnd.tables) or rnd.tables[index].match_id is None:
            raise EventError("not_found", f"no table {index} in round {rnd.number}")
        return rnd, rnd.tables[index]

    async def pause(
        self, actor: Actor, event_id: str, table: int | None, paused: bool, reason: str = ""
    ) -> None:
        """Pause (or resume) one table of the running round, or all of them (``table`` None)."""
        event = await self._organized(event_id, actor)
        rounds = await self._store.rounds(event_id)
        if not rounds or rounds[-1].status is not RoundStatus.RUNNING:
            raise EventError("conflict", "no round is running")
        indices = range(len(rounds[-1].tables)) if table is None else [table]
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
        action = "pause" if paused else "unpause"
        await self._audit(event, actor, action, {"table": table}, reason=reason)

    async def end_table(self, actor: Actor, event_id: str, table: int, reason: str) -> None:
        event = await self._organized(event_id, actor)
        if not reason.strip():
            raise EventError("malformed", "ending a table early needs a reason")
        _, t = await self._live_table(event_id, table)
        assert t.match_id is not None
        live = await self._tables.find(t.match_id)
        if live is not None:
            try:
                await live.end(reason)
            except TableError as exc:
                raise EventError(exc.code, exc.message) from None
        await self._audit(event, actor, "end_table", {"table": table, "match": t.match_id}, reason=reason)

    async def substitute(
        self, actor: Actor, event_id: str, *, table: int, seat: int, substitute: str, reason: str
    ) -> RoundRecord:
        """Before the round starts: seat ``substitute`` (an entrant id, or ``bot:<name>``) in place of a
        no-show; the seat is marked as played by a substitute."""
        event = await self._organized(event_id, actor)
        if not reason.strip():
            raise EventError("malformed", "a substitution needs a reason")
        rounds = await self._store.rounds(event_id)
        if not rounds or rounds[-1].status is not RoundStatus.SEATED:
            raise EventError(
                "unsupported",
                "substitutes are seated before the round starts (a running seat cannot change yet)",
            )
        rnd = rounds[-1]
        if not 0 <= table < len(rnd.tables) or not 0 <= seat < len(rnd.tables[table].entrants):
            raise EventError("not_found", f"no seat {seat} at table {table}")
        if any(substitute in t.entrants for t in rnd.tables):
            raise EventError("conflict", f"{substitute!r} already sits in this round")
        if substitute.startswith(BOT_PREFIX):
            substitute = f"{substitute}:sub{rnd.number}.{table}.{seat}"
        elif await self._accounts(substitute) is None:
            raise EventError("not_found", f"no account {substitute!r}")
        old = rnd.tables[table]
        entrants = list(old.entrants)
        replaced = entrants[seat]
        entrants[seat] = substitute
        changed = dataclasses.replace(old, entrants=tuple(entrants), substitutes=(*old.substitutes, seat))
        rnd = dataclasses.replace(rnd, tables=tuple(changed if t.index == table else t for t in rnd.tables))
        await self._store.put_round(rnd)
        detail = {"table": table, "seat": seat, "out": replaced, "in": substitute}
        await self._audit(event, actor, "substitute", detail, reason=reason)
        return rnd

    async def adjust(self, actor: Actor, event_id: str, entrant_id: str, amount: int, reason: str) -> None:
        event = await self._organized(event_id, actor)
        if not reason.strip():
            raise EventError("malformed", "an adjustment needs a reason")
        if entrant_id not in {e.entrant_id for e in await self._store.entrants(event_id)}:
            raise EventError("not_found", f"no entrant {entrant_id!r}")
        await self._store.add_adjustment(
            AdjustmentRecord(event_id, entrant_id, amount, reason.strip(), actor.id, self._now())
        )
        await self._audit(event, actor, "adjust", {"entrant": entrant_id, "amount": amount}, reason=reason)

    async def notice(self, actor: Actor, event_id: str, text: str) -> None:
        event = await self._organized(event_id, actor)
        if not text.strip() or len(text) > 500:
            raise EventError("malformed", "a notice has 1 to 500 characters")
        await self._audit(event, actor, "notice", {"text": text.strip()})

    async def finish_round(self, actor: Actor, event_id: str, reason: str = "") -> RoundRecord:
        """End the running round once every table has ended; the walls' seeds are revealed."""
        event = await self._organized(event_id, actor)
        rounds = await self._store.rounds(event_id)
        if not rounds or rounds[-1].status is not RoundStatus.RUNNING:
            raise EventError("conflict", "no round is running")
        rnd = rounds[-1]
        for t in rnd.tables:
            if t.match_id is None or await self._results.final(t.match_id) is None:
                raise EventError("conflict", f"table {t.index} has not finished")
        sets = tuple(
            dataclasses.replace(p, seed_hex=wall_set_seed(event.secret, rnd.number, k).hex())
            for k, p in enumerate(rnd.sets)
        )
        rnd = dataclasses.replace(rnd, status=RoundStatus.FINISHED, sets=sets, ended_at=self._now())
        await self._store.put_round(rnd)
        if rnd.number == event.settings.rounds:
            await self._store.put_event(dataclasses.replace(event, status=EventStatus.FINISHED))
        shown = [[r.name, r.total, r.rank] for r in await self._standings(event)]  # rebuild --check
        await self._audit(
            event, actor, "finish_round", {"round": rnd.number, "standings": shown}, reason=reason
        )
        return rnd

    # -- standings -------------------------------------------------------------------------------------

    async def games(self, event: EventRecord) -> list[GameResult]:
        out = []
        for rnd in await self._store.rounds(event.id):
            for t in rnd.tables:
                if t.match_id is None:
                    continue
                final = await self._results.final(t.match_id)
                if final is not None:
                    out.append(GameResult(t.match_id, rnd.number, t.entrants, final[0], final[1]))
        return out

    async def _standings(self, event: EventRecord) -> list[Standing]:
        s = event.settings
        ruleset = Ruleset.from_json(s.ruleset_json)
        names = [
            e.entrant_id
            for e in await self._store.entrants(event.id)
            if e.status is not EntrantStatus.WITHDRAWN
        ]
        adjustments = [
            Adjustment(a.entrant_id, a.amount, a.reason) for a in await self._store.adjustments(event.id)
        ]
        try:
            rules = ScoringRules.of(
                ruleset, Formula(s.formula), seats=seats_of(ruleset), best_n=s.best_n, teams=s.teams
            )
            games = await self.games(event)
            # substitutes' games count for the seat's entrant of record only if they are entrants
            return standings(games, [a for a in adjustments if a.entrant in names], names, rules)
        except StandingsError as exc:
            raise EventError("conflict", str(exc)) from None

    async def standings(self, event_id: str) -> list[Standing]:
        return await self._standings(await self._event(event_id))
