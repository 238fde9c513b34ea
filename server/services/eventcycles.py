"""How an event's rounds share walls, for the event service (``docs/tournaments.md``, "Duplicate
walls"): which round's seeds a round plays, when the seeds are revealed, and the rotated seating
of ``duplicate: rotations`` (:mod:`server.tournament.rotation`).

Without rotations every round has walls of its own, revealed when it finishes. With rotations the
rounds go in cycles of one round per seat: a later round of a cycle repeats the first round's
line-ups with the seats rotated and plays that round's walls, and the walls of a cycle are revealed
when its last round finishes (until then every game of the cycle stays sealed).
"""

from __future__ import annotations

import dataclasses

from server.domain.tournaments import (
    DuplicateMode,
    EventRecord,
    EventSettings,
    EventStore,
    PublishedSetRecord,
    RoundRecord,
)
from server.tournament.duplicate import wall_set_seed
from server.tournament.rotation import cycle_done, cycle_of, rotate
from server.tournament.seating import RoundSeating, SeatingError


def rotating(s: EventSettings) -> bool:
    return s.duplicate is DuplicateMode.ROTATIONS


def seed_round(s: EventSettings, seats: int, number: int) -> int:
    """The round whose walls round ``number`` plays (itself, or its cycle's first round)."""
    return cycle_of(number, seats)[0] if rotating(s) else number


def set_seed(event: EventRecord, seats: int, number: int, set_no: int) -> bytes:
    return wall_set_seed(event.secret, seed_round(event.settings, seats, number), set_no)


def rotated_seating(
    s: EventSettings, seats: int, number: int, rounds: list[RoundRecord], script: object
) -> RoundSeating | None:
    """Round ``number``'s seating when it is a later round of a rotation cycle: the cycle's first
    round's tables, each rotated by the round's position in the cycle; None otherwise (the round is
    seated by the event's method). SeatingError for a script (these rounds are not scripted)."""
    if not rotating(s):
        return None
    first, position = cycle_of(number, seats)
    if position == 0:
        return None
    if script is not None:
        raise SeatingError(f"round {number} repeats round {first}'s tables with the seats rotated: no script")
    base = next(r for r in rounds if r.number == first)
    return RoundSeating(tuple(rotate(t.entrants, position) for t in base.tables))


def revealed(event: EventRecord, seats: int, rnd: RoundRecord) -> tuple[PublishedSetRecord, ...]:
    """The sets of ``rnd`` as stored when it finishes: their seeds revealed, except in a rotation
    cycle that has more rounds to play (its walls are played again)."""
    s = event.settings
    if rotating(s) and not cycle_done(rnd.number, seats):
        return rnd.sets
    return with_seeds(event, seats, rnd)


def with_seeds(event: EventRecord, seats: int, rnd: RoundRecord) -> tuple[PublishedSetRecord, ...]:
    """The sets of ``rnd`` with their seeds revealed, whatever the cycle (an event closed before
    a rotation cycle's last round: its walls are played no more)."""
    return tuple(
        dataclasses.replace(p, seed_hex=set_seed(event, seats, rnd.number, k).hex())
        for k, p in enumerate(rnd.sets)
    )


async def reveal_cycle(store: EventStore, event: EventRecord, seats: int, finished: RoundRecord) -> None:
    """At the end of a rotation cycle: reveal the seeds of the cycle's earlier rounds too."""
    if not rotating(event.settings) or not cycle_done(finished.number, seats):
        return
    first = cycle_of(finished.number, seats)[0]
    for rnd in await store.rounds(event.id):
        if first <= rnd.number < finished.number:
            await store.put_round(dataclasses.replace(rnd, sets=revealed(event, seats, finished)))
