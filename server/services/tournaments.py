"""The event service: an organizer runs a tournament from sign-up to final standings
(``docs/tournaments.md``).

It stores events through the :class:`~server.domain.tournaments.EventStore` port, seats rounds with
:mod:`server.tournament.seating`, deals duplicate walls with :mod:`server.tournament.duplicate`,
makes every table through the public table factory (:class:`server.services.tables.TableFactory`,
so on whichever node the placement decides) and counts standings with
:mod:`server.tournament.standings` from the stored games and the adjustments. This module holds
the events, their entry, their rounds and closing an event early; check-in is
:mod:`server.services.eventcheckin`'s, the actions on a round's tables
:mod:`server.services.eventlive`'s, the shared checks :mod:`server.services.eventbase`'s.

Every organizer action is checked (the actor must be one of the event's organizers, or an
administrator), audited (who, when, what, why) and idempotent: an action sent again with the same
``key`` changes nothing and answers as the first did. A refused action raises :class:`EventError`
with a code (``not_found``, ``forbidden``, ``malformed``, ``conflict``, ``unsupported``,
``suspended``) and changes nothing.

A moderator's suspension keeps a player out of an event's tables: no entry, no check-in, not seated
in a round seated while it runs (audited ``not_seated``, reason ``suspended``), no seat at a table
made while it runs (the start is refused until an organizer substitutes them) and no substitute's
seat. A game already running when the suspension is given is played to its end.
"""

from __future__ import annotations

import dataclasses
import functools
import json

from server.domain.records import Account, AccountKind
from server.domain.tournaments import (
    AuditRecord,
    DuplicateMode,
    EntrantRecord,
    EntrantStatus,
    EntryMode,
    EventRecord,
    EventSettings,
    EventStatus,
    PublishedSetRecord,
    RoundRecord,
    RoundStatus,
    RoundTableRecord,
    SpectatorMode,
)
from server.engine.rules import Ruleset
from server.services.botevents import BotEvents
from server.services.eventbase import BOT_PREFIX, Actor, Closing, EventView, MatchResults, Suspension
from server.services.eventcheckin import EventCheckins
from server.services.eventcycles import (
    reveal_cycle,
    revealed,
    rotated_seating,
    seed_round,
    set_seed,
    with_seeds,
)
from server.services.eventrules import (
    EventError,
    check_settings,
    dan_rank,
    event_source,
    rank_label,
    rank_length,
    rank_limit_text,
    seats_of,
)
from server.services.tables import SeatRequest, SpectatePolicy, TableError, TableSpec, TableTimers
from server.tournament.duplicate import group_sets, publish
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


class EventService(EventCheckins):
    """The event service (see the module docstring)."""

    @functools.cached_property
    def bots(self) -> BotEvents:
        """Bot entrants and the duplicate comparison (``server.services.botevents``)."""
        return BotEvents(store=self._store, accounts=self._accounts, now=self._now, games=self.games)

    # -- roles -----------------------------------------------------------------------------------------

    async def grant_organizer(self, actor: Actor, account_id: str, granted: bool, reason: str) -> None:
        if not actor.admin:
            raise EventError("forbidden", "only an administrator grants the organizer role")
        if await self._accounts(account_id) is None:
            raise EventError("not_found", f"no account {account_id!r}")
        if await self._store.organizer_role(account_id) is granted:
            return  # so already: changes nothing
        await self._store.set_organizer_role(account_id, granted, self._now())
        detail = json.dumps({"account": account_id, "granted": granted})
        await self._store.add_audit(AuditRecord("", self._now(), actor.id, "organizer_role", detail, reason))

    async def organizer_grants(self, actor: Actor) -> list[AuditRecord]:
        """The organizer role's grants and revocations, oldest first (administrators)."""
        if not actor.admin:
            raise EventError("forbidden", "only an administrator sees the organizer role's log")
        return [a for a in await self._store.audit("") if a.action == "organizer_role"]

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
        if settings == event.settings:
            return event  # the same settings: changes nothing
        event = dataclasses.replace(event, settings=settings)
        await self._store.put_event(event)
        await self._audit(event, actor, "settings", {"name": settings.name}, reason=reason)
        return event

    async def events(self) -> list[EventRecord]:
        return await self._store.events()

    async def status_of(self, event_id: str) -> str | None:
        """The event's status (``open``, ``running``, ``finished``, ``cancelled``); None: no such
        event (what the hub tells an event's bot at its hello, ``docs/mjai.md``)."""
        event = await self._store.event(event_id)
        return None if event is None else event.status.value

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

    async def suspended_entrants(self, actor: Actor, event_id: str) -> dict[str, Suspension]:
        """The entrants a suspension keeps from a seat now (the organizers', never public)."""
        await self._organized(event_id, actor)
        return dict(await self._suspended([e.entrant_id for e in await self._store.entrants(event_id)]))

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
        await self._check_not_suspended(account.id)
        await self._check_rank(s, account)
        if mine is not None and mine.status is EntrantStatus.DROPPED:
            raise EventError("forbidden", "an organizer took you out of this event")
        entered = sum(1 for e in entrants.values() if e.status is EntrantStatus.ENTERED)
        status = EntrantStatus.WAITLISTED if s.cap is not None and entered >= s.cap else EntrantStatus.ENTERED
        kind = "guest" if account.kind is AccountKind.GUEST else account.kind.value
        record = EntrantRecord(event_id, account.id, account.name, kind, status, now)
        await self._store.put_entrant(record)
        return record

    async def _check_rank(self, s: EventSettings, account: Account) -> None:
        """The event's rank and R limits (open sign-up), read from the ranked standings."""
        if s.entry is not EntryMode.OPEN or (s.min_dan is None and s.min_rating is None):
            return
        if account.kind is not AccountKind.PLAYER:
            raise EventError("forbidden", "this event has rank limits: only registered players enter")
        if self._rank_of is None:
            raise EventError("unsupported", "this server keeps no ranked standings to check the limits")
        standing = await self._rank_of(account.id, rank_length(s))
        if standing is None:
            raise EventError("unsupported", "this server keeps no ranked standings to check the limits")
        rank, rating = standing
        need = rank_limit_text(s)
        if (s.min_dan is not None and rank < dan_rank(s.min_dan)) or (
            s.min_rating is not None and rating < s.min_rating
        ):
            raise EventError(
                "forbidden", f"this event needs {need}; you are {rank_label(rank)}, R {rating:.0f}"
            )

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
        self, actor: Actor, event_id: str, bot: str = "greedy", reason: str = "", *, key: str | None = None
    ) -> EntrantRecord:
        """Add a built-in bot as an entrant; sent again with the same ``key``, the one it added."""
        event = await self._organized(event_id, actor)
        if key is not None:
            done = [a for a in await self._store.audit(event_id) if a.action == "add_bot" and a.key == key]
            if done:
                added = json.loads(done[0].detail)["entrant"]
                return next(e for e in await self._store.entrants(event_id) if e.entrant_id == added)
        if self._bot_names is not None and bot not in self._bot_names:
            raise EventError("malformed", f"no built-in bot {bot!r}; bots: {sorted(self._bot_names)}")
        self._check_not_over(event)
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
        await self._audit(event, actor, "add_bot", {"entrant": record.entrant_id}, reason=reason, key=key)
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
        self._check_not_over(event)
        if rounds and rounds[-1].status is not RoundStatus.FINISHED:
            raise EventError("conflict", f"round {rounds[-1].number} is not finished")
        number = len(rounds) + 1
        s = event.settings
        if number > s.rounds:
            raise EventError("conflict", f"the event has {s.rounds} rounds")
        ruleset = Ruleset.from_json(s.ruleset_json)
        seats = seats_of(ruleset)
        rules = SeatingRules(seats=seats, max_meetings=s.max_meetings, max_wind_spread=s.max_wind_spread)
        present = [
            e
            for e in await self._store.entrants(event_id)
            if e.status is EntrantStatus.ENTERED
            and (not s.checkin or e.kind == "bot" or number in e.checked_in)
        ]
        suspended = await self._suspended([e.entrant_id for e in present])  # absent for this round
        entrants = [e for e in present if e.entrant_id not in suspended]
        history = History.of((RoundSeating(tuple(t.entrants for t in r.tables)) for r in rounds), seats)
        method = SeatingMethod(s.seating)
        order = [e.entrant_id for e in entrants]
        if method is SeatingMethod.STANDINGS and rounds:
            ranked = [row.name for row in await self._standings(event)]
            order = sorted(order, key=lambda e: ranked.index(e) if e in ranked else len(ranked))
        try:
            parsed = parse_script(script, seats) if script is not None else None
            named = sorted({e for t in parsed.tables for e in t} & set(suspended)) if parsed else []
            if named:
                raise EventError("suspended", f"suspended: {', '.join(named)}; leave them out of the script")
            if method is SeatingMethod.SCRIPTED and parsed is None:
                raise SeatingError("this event's seating is scripted: upload the round's tables")
            seating = rotated_seating(s, seats, number, rounds, parsed) or seat_round(
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
        seated = {e for t in seating.tables for e in t}
        for entrant_id in sorted(set(suspended) - seated):  # a rotation's round keeps its line-ups
            detail = {"round": number, "entrant": entrant_id, "until": suspended[entrant_id].ends}
            await self._audit(event, actor, "not_seated", detail, reason="suspended")
        return record

    def _sets(
        self, event: EventRecord, number: int, seating: RoundSeating, ruleset: Ruleset
    ) -> tuple[PublishedSetRecord, ...]:
        s = event.settings
        groups: tuple[tuple[int, ...], ...]
        if s.duplicate in (DuplicateMode.OFF, DuplicateMode.ROTATIONS):
            groups = tuple((i,) for i in range(len(seating.tables)))
        else:
            groups = group_sets(seating, s.set_size if s.duplicate is DuplicateMode.SETS else None)
        walls_of = seed_round(s, seats_of(ruleset), number)  # a rotation cycle's later rounds: its first's
        out = []
        for k, tables in enumerate(groups):
            seed = set_seed(event, seats_of(ruleset), number, k)
            p = publish(f"r{walls_of}-s{k}", tables, seed, ruleset)
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
        seeds = {p.set_id: set_seed(event, seats_of(ruleset), rnd.number, k) for k, p in enumerate(rnd.sets)}
        await self._refuse_suspended(rnd)
        made = []
        for seated in rnd.tables:
            if seated.match_id is not None:
                made.append(seated)
                continue
            seats = [await self._seat_request(seated.player_of(i)) for i in range(len(seated.entrants))]
            table = dataclasses.replace(
                seated, start_scores=await self._start_scores(event.id, seated, ruleset)
            )
            spec = TableSpec(
                seats=tuple(seats),
                ruleset=ruleset,
                source=event_source(event, rnd.number, table.index),
                start_scores=table.start_scores,
                seed=seeds[table.set_id],
                timers=self._timers(s),
                spectate=self._spectate(s),
                tags={"event": event.id, "round": str(rnd.number), "table": str(table.index)}
                | ({"chat": s.chat} if s.chat else {}),  # the event's chat policy (docs/social.md)
                hold_reveals=s.duplicate is not DuplicateMode.OFF,  # a set's other tables share the walls
            )
            try:
                live = await self._tables.create(spec)
                for seat in table.locked:  # locked while seated: locked at the table too
                    await live.lock_seat(seat, True)
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

    async def _refuse_suspended(self, rnd: RoundRecord) -> None:
        """EventError ``suspended`` when a table still to be made would seat a suspended player
        (suspended after the seating, or in a rotation's fixed line-ups): substitute them first."""
        waiting = {
            t.player_of(i): (t.index, i)
            for t in rnd.tables
            if t.match_id is None
            for i in range(len(t.entrants))
        }
        found = await self._suspended(waiting)
        if found:
            who = min(found)
            table, seat = waiting[who]
            until = found[who].until
            raise EventError(
                "suspended", f"{who} (table {table}, seat {seat}) is suspended {until}: substitute them"
            )

    async def _start_scores(
        self, event_id: str, table: RoundTableRecord, ruleset: Ruleset
    ) -> tuple[int, ...] | None:
        """The seats' start points: each entrant's own (set by an organizer), else the ruleset's."""
        own = {e.entrant_id: e.start_points for e in await self._store.entrants(event_id)}
        scores = tuple(own.get(e) or ruleset.start_points for e in table.entrants)
        return None if all(own.get(e) is None for e in table.entrants) else scores

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
        if s.spectators is SpectatorMode.OFF or (s.spectators is SpectatorMode.OBSERVERS and not s.observers):
            return SpectatePolicy(allowed=False)
        observers = s.observers if s.spectators is SpectatorMode.OBSERVERS else ()
        return SpectatePolicy(
            delay_s=s.spectate_delay_s,
            delay_hands=s.spectate_delay_hands,
            caster=s.caster,
            observers=observers,
        )

    async def finish_round(
        self, actor: Actor, event_id: str, reason: str = "", *, key: str | None = None
    ) -> RoundRecord:
        """End the running round once every table has ended; the walls' seeds are revealed."""
        event = await self._organized(event_id, actor)
        rounds = await self._store.rounds(event_id)
        if rounds and await self._done(event_id, "finish_round", key):
            return rounds[-1]
        if not rounds or rounds[-1].status is not RoundStatus.RUNNING:
            raise EventError("conflict", "no round is running")
        rnd = rounds[-1]
        for t in rnd.tables:
            if t.match_id is None or await self._results.final(t.match_id) is None:
                raise EventError("conflict", f"table {t.index} has not finished")
        seats = seats_of(Ruleset.from_json(event.settings.ruleset_json))
        sets = revealed(event, seats, rnd)  # a rotation cycle's walls: when its last round ends
        rnd = dataclasses.replace(rnd, status=RoundStatus.FINISHED, sets=sets, ended_at=self._now())
        await self._store.put_round(rnd)
        await reveal_cycle(self._store, event, seats, rnd)
        if rnd.number == event.settings.rounds:
            await self._store.put_event(dataclasses.replace(event, status=EventStatus.FINISHED))
        shown = [[r.name, r.total, r.rank] for r in await self._standings(event)]  # rebuild --check
        await self._audit(
            event, actor, "finish_round", {"round": rnd.number, "standings": shown}, reason=reason, key=key
        )
        return rnd

    async def close(self, actor: Actor, event_id: str, reason: str, *, key: str | None = None) -> Closing:
        """Close the event before its last round: a seated round not started is dropped, the
        seeds of every finished round are revealed, and the event is ``finished`` with the
        standings over the rounds played (``cancelled`` when none was). Refused (``conflict``)
        while a round runs, and once the event is over; sent again with the same ``key``, the
        first answer."""
        event = await self._organized(event_id, actor)
        why = self._reason(reason, "closing an event")
        done = await self.closing(event_id) if await self._done(event_id, "close", key) else None
        if done is not None:
            return done
        self._check_not_over(event)
        rounds = await self._store.rounds(event_id)
        dropped = None
        if rounds and rounds[-1].status is RoundStatus.RUNNING:
            raise EventError(
                "conflict", f"round {rounds[-1].number} is running: end its tables and finish it first"
            )
        if rounds and rounds[-1].status is RoundStatus.SEATED:
            if any(t.match_id is not None for t in rounds[-1].tables):
                raise EventError(
                    "conflict", f"round {rounds[-1].number} has tables made: start it again and finish it"
                )
            dropped = rounds[-1].number
            await self._store.delete_round(event_id, dropped)
            rounds = rounds[:-1]
        seats = seats_of(Ruleset.from_json(event.settings.ruleset_json))
        for rnd in rounds:  # a rotation cycle cut short: its walls are played no more
            if any(p.seed_hex is None for p in rnd.sets):
                await self._store.put_round(dataclasses.replace(rnd, sets=with_seeds(event, seats, rnd)))
        status = EventStatus.FINISHED if rounds else EventStatus.CANCELLED
        event = dataclasses.replace(event, status=status)
        await self._store.put_event(event)
        shown = [[r.name, r.total, r.rank] for r in await self._standings(event)]  # rebuild --check
        detail = {
            "status": status.value,
            "rounds_played": len(rounds),
            "dropped_round": dropped,
            "standings": shown,
        }
        await self._audit(event, actor, "close", detail, reason=why, key=key)
        return await self.closing(event_id) or Closing(self._now(), status.value, len(rounds), dropped)

    async def closing(self, event_id: str) -> Closing | None:
        """How the event was closed before its last round (public), else None."""
        for a in await self._store.audit(event_id):
            if a.action == "close":
                d = json.loads(a.detail)
                return Closing(a.at, d["status"], d["rounds_played"], d["dropped_round"])
        return None

    # -- standings -------------------------------------------------------------------------------------

    async def games(self, event: EventRecord) -> list[GameResult]:
        out = []
        for rnd in await self._store.rounds(event.id):
            for t in rnd.tables:
                if t.match_id is None:
                    continue
                final = await self._results.final(t.match_id)
                if final is not None:
                    out.append(
                        GameResult(t.match_id, rnd.number, t.entrants, final[0], final[1], t.start_scores)
                    )
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
            games = await self.games(event)  # a substitute's games count for the seat's entrant
            return standings(games, [a for a in adjustments if a.entrant in names], names, rules)
        except StandingsError as exc:
            raise EventError("conflict", str(exc)) from None

    async def standings(self, event_id: str) -> list[Standing]:
        return await self._standings(await self._event(event_id))
