"""Rating a match: the dan points and the R rating of each seat, as pure functions of the tables.

* :func:`dan_after`: a placement's points in a room (1st/2nd earn the room's award, the last place
  (4th of four, 3rd of three) loses the rank's ``last``, any other nothing), then promotion
  (points >= target: the next rank, at its base) or demotion (points < 0 on a rank that
  ``demotes``: the rank below, at its base).
* :func:`rating_change`: Tenhou's R formula with the ``adj`` ramp (:func:`adjustment`).
* :func:`rate_match`: every seat of one match at once (the table average R is taken over the seats'
  ratings before the match; the tables say how many seats a match has).

Nothing here does I/O: the store keeps :class:`Standing` per player and length, and applies what
these functions return.

>>> from server.ranking.tables import CURRENT, Length
>>> s = dan_after(Standing(), 1, CURRENT.room("open"), Length.EAST, CURRENT)  # novice: 20 of 20
>>> (CURRENT.ranks[s.rank].key, s.points)
('9k', 0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from server.ranking.tables import Length, RankingTables, Room

PLACES = 4
"""How many placement counters a standing keeps: the most seats any ruleset has (the ``standings``
table's four columns); a three-player board's fourth counter stays 0."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's standing in one game length: rank index and points, R, rated games, placements
    (``placements[i]``: how many times the player placed ``i + 1``-th)."""

    rank: int = 0
    points: int = 0
    rating: float = 1500.0
    games: int = 0
    placements: tuple[int, ...] = (0,) * PLACES


@dataclass(frozen=True, slots=True)
class SeatChange:
    """What one match did to one seat's standing."""

    seat: int
    placement: int  # 1..seats
    before: Standing
    after: Standing

    @property
    def points_delta(self) -> int:
        """The points the placement was worth (before any promotion or demotion reset)."""
        return self.after.points - self.before.points if self.after.rank == self.before.rank else 0

    @property
    def rating_delta(self) -> float:
        return self.after.rating - self.before.rating


def adjustment(games: int, tables: RankingTables) -> float:
    """Tenhou's ``adj``: ``1 - 0.002 x games`` for the first 400 games, then 0.2."""
    c = tables.rating
    if games >= c.ramp_games:
        return c.floor
    return max(1.0 - c.ramp * games, c.floor)


def rating_change(
    own: float, table_average: float, placement: int, games: int, tables: RankingTables
) -> float:
    """``adj x (base[placement] + (table average R - own R) / 40)``, ``games`` played before this one."""
    c = tables.rating
    return adjustment(games, tables) * (c.base[placement - 1] + (table_average - own) / c.divisor)


def dan_after(
    standing: Standing, placement: int, room: Room, length: Length, tables: RankingTables
) -> Standing:
    """The rank and points after one placement (``rating``/``games``/``placements`` unchanged)."""
    if not 1 <= placement <= tables.seats:
        raise ValueError(f"placement must be 1..{tables.seats}, not {placement}")
    ranks = tables.ranks
    rank = ranks[standing.rank]
    if rank.target is None:  # the top rank keeps what it has
        return standing
    first, second = room.awards(length)
    delta = rank.last(length) if placement == tables.seats else {1: first, 2: second}.get(placement, 0)
    points = standing.points + delta
    index = standing.rank
    if points >= rank.target:
        index += 1
        points = ranks[index].base
    elif points < 0:
        if rank.demotes and index > 0:
            index -= 1
            points = ranks[index].base
        else:
            points = 0
    return replace(standing, rank=index, points=points)


def rate_match(
    before: tuple[Standing, ...],
    placements: tuple[int, ...],
    room: Room,
    length: Length,
    tables: RankingTables,
) -> tuple[SeatChange, ...]:
    """Every seat's change for one match: ``before[i]`` is seat i's standing, ``placements[i]`` its
    final place (1..seats, as the match result ranks them)."""
    seats = tables.seats
    if len(before) != seats or sorted(placements) != list(range(1, seats + 1)):
        raise ValueError(f"a rated match of these tables has {seats} seats placed 1..{seats}")
    average = sum(s.rating for s in before) / seats
    changes = []
    for seat, (standing, placement) in enumerate(zip(before, placements, strict=True)):
        after = dan_after(standing, placement, room, length, tables)
        counts = list(standing.placements)
        counts[placement - 1] += 1
        after = replace(
            after,
            rating=standing.rating
            + rating_change(standing.rating, average, placement, standing.games, tables),
            games=standing.games + 1,
            placements=tuple(counts),
        )
        changes.append(SeatChange(seat=seat, placement=placement, before=standing, after=after))
    return tuple(changes)


def may_enter(standing: Standing, room: Room) -> bool:
    """Whether a player with ``standing`` (in the room's length) meets the room's requirement."""
    return standing.rank >= room.min_rank and standing.rating >= room.min_rating


def progress(standing: Standing, tables: RankingTables) -> tuple[int, int | None]:
    """Points and the target of the player's rank (None at the top): "120 / 400"."""
    return standing.points, tables.ranks[standing.rank].target
