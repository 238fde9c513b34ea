"""Bot events (``docs/tournaments.md``, "Bot events"): an event whose entrants are bots that connect
on their own, mjai bots (``jantaku bot connect --event ID``) and protocol bots (a client of our JSON
protocol with a bot account's token), compared on duplicate walls.

A bot entrant is a **bot account**: the bot enters itself with its API token (``POST .../entry``,
as any account does), or an organizer enters it (:meth:`BotEvents.enter`). When a round starts,
each bot account holds a seat at its table, as a player would; the bot learns it by connecting with
its token: its hello puts it back in the match where it holds a seat, on whichever node of a
cluster runs it (the same path as a reconnection). An mjai bot waiting for its table says so in its
hello (``"event": ID``) and is told to come back in a moment until its table runs.

:meth:`BotEvents.comparison` is the per-bot summary of an event with duplicate walls: every set of
games on the same walls in every seat rotation (``duplicate: rotations``), and for each entrant its
points over its complete sets (:func:`server.tournament.rotation.compare`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from typing import Protocol

from server.domain.records import Account, AccountKind
from server.domain.tournaments import (
    AuditRecord,
    EntrantRecord,
    EntrantStatus,
    EventRecord,
    EventStatus,
    EventStore,
)
from server.engine.rules import Ruleset
from server.services.eventrules import EventError, seats_of
from server.tournament.rotation import Comparison, compare
from server.tournament.standings import Formula, GameResult, ScoringRules, StandingsError, format_points


class Asker(Protocol):
    """Who asks (:class:`server.services.tournaments.Actor`)."""

    @property
    def account(self) -> Account: ...

    @property
    def admin(self) -> bool: ...


class BotEvents:
    """The bot-event side of the event service (``EventService.bots``)."""

    def __init__(
        self,
        *,
        store: EventStore,
        accounts: Callable[[str], Awaitable[Account | None]],
        now: Callable[[], float],
        games: Callable[[EventRecord], Awaitable[list[GameResult]]],
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._now = now
        self._games = games

    async def _event(self, event_id: str) -> EventRecord:
        event = await self._store.event(event_id)
        if event is None:
            raise EventError("not_found", f"no event {event_id!r}")
        return event

    async def enter(self, actor: Asker, event_id: str, account_id: str, reason: str = "") -> EntrantRecord:
        """An organizer enters the bot account ``account_id`` (before the first round is seated).
        Entering it again changes nothing; a dropped or withdrawn bot is entered again."""
        event = await self._event(event_id)
        if not actor.admin and actor.account.id not in event.organizers:
            raise EventError("forbidden", "only the event's organizers may do this")
        account = await self._accounts(account_id)
        if account is None:
            raise EventError("not_found", f"no account {account_id!r}")
        if account.kind is not AccountKind.BOT:
            raise EventError(
                "malformed", f"{account_id!r} is not a bot account: players enter themselves (POST .../entry)"
            )
        entrants = {e.entrant_id: e for e in await self._store.entrants(event_id)}
        mine = entrants.get(account_id)
        if mine is not None and mine.status is EntrantStatus.ENTERED:
            return mine  # idempotent
        if event.status is not EventStatus.OPEN or await self._store.rounds(event_id):
            raise EventError("conflict", "entrants are added before the first round is seated")
        record = EntrantRecord(event_id, account.id, account.name, "bot", EntrantStatus.ENTERED, self._now())
        if mine is not None:
            record = dataclasses.replace(mine, status=EntrantStatus.ENTERED)
        await self._store.put_entrant(record)
        detail = json.dumps({"entrant": account.id, "account": True}, sort_keys=True)
        await self._store.add_audit(
            AuditRecord(event.id, self._now(), actor.account.id, "add_bot", detail, reason)
        )
        return record

    async def comparison(self, event_id: str) -> Comparison:
        """The duplicate comparison of the event's games so far: per set of games on the same walls
        (the tables sharing a published set id, over the rounds), and per entrant over its
        complete sets (a game in every rotation)."""
        event = await self._event(event_id)
        ruleset = Ruleset.from_json(event.settings.ruleset_json)
        seats = seats_of(ruleset)
        set_of: dict[str, str] = {}
        order: list[str] = []
        for rnd in await self._store.rounds(event_id):
            for table in rnd.tables:
                if table.match_id is not None:
                    set_of[table.match_id] = table.set_id
                    if table.set_id not in order:
                        order.append(table.set_id)
        grouped: dict[str, list[GameResult]] = {s: [] for s in order}
        for game in await self._games(event):
            if game.match_id in set_of:
                grouped[set_of[game.match_id]].append(game)
        try:
            rules = ScoringRules.of(ruleset, Formula.POINTS, seats=seats)
            return compare([(s, grouped[s]) for s in order if grouped[s]], rules)
        except StandingsError as exc:
            raise EventError("conflict", str(exc)) from None


def comparison_json(result: Comparison) -> dict[str, object]:
    """The comparison as the API shows it (points in tenths, and as text like the standings)."""
    return {
        "sets": [
            {
                "set": s.set_id,
                "games": list(s.games),
                "complete": s.complete,
                "points": [{"entrant": e, "points": p, "shown": format_points(p)} for e, p in s.points],
            }
            for s in result.sets
        ],
        "entrants": [
            {
                "entrant": r.entrant,
                "sets": r.sets,
                "games": r.games,
                "total": r.total,
                "shown": format_points(r.total),
                "mean_per_set": r.mean_per_set,
                "spread": r.spread,
                "places": list(r.places),
                "mean_place": r.mean_place,
            }
            for r in result.entrants
        ],
    }
