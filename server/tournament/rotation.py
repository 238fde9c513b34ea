"""Duplicate rotations: the comparison of bots (or players) on the same walls in every seat.

An event with ``duplicate: rotations`` plays its rounds in **cycles** of as many rounds as a table
has seats. The first round of a cycle is seated by the event's method; each later round of the
cycle seats the same line-ups again, every table's seats rotated by one more
(:func:`server.tournament.duplicate.rotations`), and every table of the cycle plays the walls of
the same table of the cycle's first round. Over a cycle each entrant therefore plays each seat
position of the same deals once, against the same opponents: what a hand deals cancels out, and
what is left is how each one played it (the low-variance comparison bot arenas use).

The rotated rounds run one after another (an entrant plays one game at a time), so the walls of a
cycle stay secret until its last round ends: the seeds are revealed then, not at the end of each
round, and the games of the cycle's earlier rounds stay sealed meanwhile.

:func:`compare` turns a cycle's games into the per-entrant summary: for each **duplicate set**
(one table of one cycle: the same walls in every rotation), each entrant's points over the set,
and for each entrant the sum and mean over its complete sets, their spread, and its places.

>>> cycle_of(5, 4)
(5, 0)
>>> cycle_of(7, 4)
(5, 2)
>>> rotate(("a", "b", "c", "d"), 1)
('b', 'c', 'd', 'a')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from server.tournament.standings import GameResult, ScoringRules, StandingsError, game_points


def cycle_of(round_no: int, seats: int) -> tuple[int, int]:
    """The first round (1-based) of the cycle holding ``round_no``, and its position in the cycle."""
    position = (round_no - 1) % seats
    return round_no - position, position


def rotate(lineup: Sequence[str], position: int) -> tuple[str, ...]:
    """The line-up with its seats rotated ``position`` times (the ``position``-th rotation)."""
    n = len(lineup)
    return tuple(lineup[(position + i) % n] for i in range(n))


def cycle_done(round_no: int, seats: int) -> bool:
    """Whether ``round_no`` is the last round of its cycle (the walls may then be revealed)."""
    return cycle_of(round_no, seats)[1] == seats - 1


@dataclass(frozen=True, slots=True)
class SetResult:
    """One duplicate set: a table of a cycle, its games (one per rotation) on the same walls."""

    set_id: str
    games: tuple[str, ...]  # match ids, in rotation order
    complete: bool  # every rotation played
    points: tuple[tuple[str, int], ...]  # entrant -> points over the set, in tenths, best first


@dataclass(frozen=True, slots=True)
class EntrantComparison:
    entrant: str
    sets: int  # complete sets played
    games: int  # games of those sets
    total: int  # points over the complete sets, in tenths
    mean_per_set: int  # tenths, rounded toward zero
    spread: int  # standard deviation of the per-set points, tenths (0 with fewer than two sets)
    places: tuple[int, ...]  # how many 1st, 2nd, ... places in those games
    mean_place: float  # the average place (1 = first) over those games; 0.0 without games


@dataclass(frozen=True, slots=True)
class Comparison:
    sets: tuple[SetResult, ...]
    entrants: tuple[EntrantComparison, ...]  # best total first, then the entrant's id


def compare(games_by_set: Sequence[tuple[str, Sequence[GameResult]]], rules: ScoringRules) -> Comparison:
    """The duplicate comparison of the sets ``games_by_set`` (set id -> its games, each a rotation
    of one line-up). Only complete sets (a game in every rotation) count for the entrants: a set
    missing a rotation would favour whoever held its lucky seat."""
    seats = rules.seats
    results: list[SetResult] = []
    per_set: dict[str, list[int]] = {}
    places: dict[str, list[int]] = {}
    for set_id, games in games_by_set:
        totals: dict[str, int] = {}
        for game in games:
            if len(game.entrants) != seats:
                raise StandingsError(f"game {game.match_id}: {len(game.entrants)} seats, not {seats}")
            for entrant, pts in zip(game.entrants, game_points(game, rules), strict=True):
                totals[entrant] = totals.get(entrant, 0) + pts
        complete = len(games) == seats and _each_seat_once(games)
        ordered = tuple(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))
        results.append(SetResult(set_id, tuple(g.match_id for g in games), complete, ordered))
        if not complete:
            continue
        for entrant, pts in totals.items():
            per_set.setdefault(entrant, []).append(pts)
        for game in games:
            for entrant, place in zip(game.entrants, game.placements, strict=True):
                places.setdefault(entrant, []).append(place)
    rows = []
    for entrant, values in per_set.items():
        taken = places.get(entrant, [])
        counts = tuple(taken.count(p) for p in range(1, seats + 1))
        rows.append(
            EntrantComparison(
                entrant=entrant,
                sets=len(values),
                games=len(taken),
                total=sum(values),
                mean_per_set=int(sum(values) / len(values)),
                spread=_stdev(values),
                places=counts,
                mean_place=round(sum(taken) / len(taken), 3) if taken else 0.0,
            )
        )
    rows.sort(key=lambda r: (-r.total, r.entrant))
    return Comparison(tuple(results), tuple(rows))


def _each_seat_once(games: Sequence[GameResult]) -> bool:
    """Every entrant of the set sat in every seat position once (the rotations are all there)."""
    seats = len(games[0].entrants)
    lineup = set(games[0].entrants)
    return all({g.entrants[position] for g in games} == lineup for position in range(seats))


def _stdev(values: Sequence[int]) -> int:
    if len(values) < 2:
        return 0
    mean = sum(values) / len(values)
    return round(math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)))
