"""``jantaku admin events rebuild --check``: the standings an event showed, recomputed from the
stored games and adjustments (``docs/tournaments.md``, "Standings").

When a round finishes, the event service writes the standings it shows then into the audit entry
of ``finish_round``. The check recomputes, for each finished round, the standings from the stored
results of the games of that round and the ones before, and the adjustments made until it finished,
and names every difference with what was shown; the same for the standings shown when an organizer
closed the event before its last round; and it compares the standings shown now with a fresh
computation from everything stored.
"""

from __future__ import annotations

import json

from server.domain.tournaments import EntrantStatus, EventStore, RoundStatus
from server.engine.rules import Ruleset
from server.services.eventrules import EventError, seats_of
from server.services.tournaments import EventService, MatchResults
from server.tournament.standings import Adjustment, Formula, GameResult, ScoringRules, standings

Row = tuple[str, int, int]  # name, total, rank


async def recomputed(
    store: EventStore, results: MatchResults, event_id: str, upto_round: int, until: float
) -> list[Row]:
    """The standings after round ``upto_round`` from the stored games and the adjustments made
    until ``until`` (wall-clock seconds)."""
    event = await store.event(event_id)
    if event is None:
        raise EventError("not_found", f"no event {event_id!r}")
    s = event.settings
    ruleset = Ruleset.from_json(s.ruleset_json)
    names = [e.entrant_id for e in await store.entrants(event_id) if e.status is not EntrantStatus.WITHDRAWN]
    games = []
    for rnd in await store.rounds(event_id):
        if rnd.number > upto_round:
            continue
        for t in rnd.tables:
            final = await results.final(t.match_id) if t.match_id is not None else None
            if final is not None and t.match_id is not None:
                games.append(
                    GameResult(t.match_id, rnd.number, t.entrants, final[0], final[1], t.start_scores)
                )
    adjustments = [
        Adjustment(a.entrant_id, a.amount, a.reason)
        for a in await store.adjustments(event_id)
        if a.at <= until and a.entrant_id in names
    ]
    rules = ScoringRules.of(
        ruleset, Formula(s.formula), seats=seats_of(ruleset), best_n=s.best_n, teams=s.teams
    )
    return [(r.name, r.total, r.rank) for r in standings(games, adjustments, names, rules)]


async def rebuild_check(
    service: EventService, store: EventStore, results: MatchResults, event_id: str
) -> list[str]:
    """Every difference between what the event showed (at each round's end, and now) and the
    standings recomputed from the stored games and adjustments; empty when they agree."""
    problems: list[str] = []
    ended = {
        int(json.loads(a.detail)["round"]): a
        for a in await store.audit(event_id)
        if a.action == "finish_round"
    }
    for rnd in await store.rounds(event_id):
        if rnd.status is not RoundStatus.FINISHED:
            continue
        entry = ended.get(rnd.number)
        shown = json.loads(entry.detail).get("standings") if entry is not None else None
        if shown is None:
            problems.append(f"round {rnd.number}: no standings were recorded when it finished")
            continue
        again = await recomputed(store, results, event_id, rnd.number, entry.at if entry else 0.0)
        rows = [(str(n), int(t), int(k)) for n, t, k in shown]
        problems += _differences(f"after round {rnd.number}", rows, again)
    for a in await store.audit(event_id):  # closed before its last round: the standings shown then
        if a.action == "close":
            closed = [(str(n), int(t), int(k)) for n, t, k in json.loads(a.detail)["standings"]]
            problems += _differences(
                "at the close", closed, await recomputed(store, results, event_id, 10**6, a.at)
            )
    now = [(r.name, r.total, r.rank) for r in await service.standings(event_id)]
    again = await recomputed(store, results, event_id, 10**6, float("inf"))
    problems += _differences("now", now, again)
    return problems


def _differences(when: str, shown: list[Row], again: list[Row]) -> list[str]:
    out = []
    mine = {r[0]: r for r in shown}
    theirs = {r[0]: r for r in again}
    for name in sorted(set(mine) | set(theirs), key=str):
        a, b = mine.get(name), theirs.get(name)
        if a != b:
            out.append(f"{when}: {name}: shown {_row(a)}, recomputed {_row(b)}")
    return out


def _row(r: Row | None) -> str:
    return "nothing" if r is None else f"total {r[1]} rank {r[2]}"
