"""The ranking tables as data: ranks, points by placement and room, rooms, the R rating's constants.

Every rating change stores the :attr:`RankingTables.version` it was computed with, so a later change
of a table (a new version beside the old one in :data:`TABLES`) never rewrites history silently:
``jantaku admin ratings rebuild`` recomputes each match with the version stored for it.

The values of version ``tenhou-4p-1`` follow Tenhou's four-player ranked lobby as documented by
Tenhou's own manual and summarised on riichi.wiki ("Tenhou.net ranking"); ``docs/ranking.md`` prints
them in full and names the sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Length(StrEnum):
    """A game length: ranks and ratings are kept per length (as Tenhou keeps them per lobby type)."""

    EAST = "east"  # tonpuusen
    EAST_SOUTH = "east_south"  # hanchan


@dataclass(frozen=True, slots=True)
class Rank:
    """One rank. ``base``: the points a player starts the rank with (on promotion or demotion);
    ``target``: the points that promote (None: the top rank); ``fourth``: the points a fourth place
    costs, per length (0: no loss, the "threshold" below which nobody loses points); ``demotes``:
    whether falling below zero drops the player one rank."""

    key: str  # stable id: "new", "9k" ... "1k", "1d" ... "10d", "tenhoui"
    label: str  # what players read: "Novice", "9 kyu", "1 dan", ...
    base: int
    target: int | None
    fourth_east: int
    fourth_east_south: int
    demotes: bool

    def fourth(self, length: Length) -> int:
        return self.fourth_east if length is Length.EAST else self.fourth_east_south


@dataclass(frozen=True, slots=True)
class Room:
    """A ranked room (a quick-match queue of one ruleset and length). ``first``/``second``: the points
    a first / second place earns there, per length; entry needs rank index >= ``min_rank`` and R >=
    ``min_rating``. ``bots_only``: the bot ladder (bot accounts only; players never)."""

    key: str
    label: str
    first_east: int
    second_east: int
    first_east_south: int
    second_east_south: int
    min_rank: int = 0
    min_rating: float = 0.0
    bots_only: bool = False

    def awards(self, length: Length) -> tuple[int, int]:
        if length is Length.EAST:
            return self.first_east, self.second_east
        return self.first_east_south, self.second_east_south


@dataclass(frozen=True, slots=True)
class RatingConstants:
    """Tenhou's R: ``change = adj * (base[placement] + (table average R - own R) / divisor)`` with
    ``adj = max(1 - ramp * games, floor)`` while ``games < ramp_games``, then ``floor``."""

    start: float
    base: tuple[float, float, float, float]
    divisor: float
    ramp: float
    ramp_games: int
    floor: float


@dataclass(frozen=True, slots=True)
class RankingTables:
    version: str
    ranks: tuple[Rank, ...]
    rooms: tuple[Room, ...]
    rating: RatingConstants

    def rank_index(self, key: str) -> int:
        for index, rank in enumerate(self.ranks):
            if rank.key == key:
                return index
        raise KeyError(key)

    def room(self, key: str) -> Room:
        for room in self.rooms:
            if room.key == key:
                return room
        raise KeyError(key)


def _kyu(n: int, target: int, fourth_east: int = 0) -> Rank:
    return Rank(
        key=f"{n}k",
        label=f"{n} kyu",
        base=0,
        target=target,
        fourth_east=fourth_east,
        fourth_east_south=fourth_east * 3 // 2,
        demotes=fourth_east != 0,
    )


def _dan(n: int) -> Rank:
    return Rank(
        key=f"{n}d",
        label=f"{n} dan",
        base=200 * n,
        target=400 * n,
        fourth_east=-(20 + 10 * n),
        fourth_east_south=-(20 + 10 * n) * 3 // 2,
        demotes=True,
    )


TENHOU_4P_1 = RankingTables(
    version="tenhou-4p-1",
    ranks=(
        Rank("new", "Novice", 0, 20, 0, 0, demotes=False),
        _kyu(9, 20),
        _kyu(8, 20),
        _kyu(7, 20),
        _kyu(6, 40),
        _kyu(5, 60),
        _kyu(4, 80),
        _kyu(3, 100),
        _kyu(2, 100, fourth_east=-10),
        _kyu(1, 100, fourth_east=-20),
        *(_dan(n) for n in range(1, 11)),
        Rank("tenhoui", "Tenhoui", 0, None, 0, 0, demotes=False),
    ),
    rooms=(
        Room("open", "Open", 20, 10, 30, 15),
        Room("upper", "Upper (1 kyu+)", 40, 10, 60, 15, min_rank=9),
        Room("expert", "Expert (4 dan+, R1800+)", 50, 20, 75, 30, min_rank=13, min_rating=1800.0),
        Room("phoenix", "Phoenix (7 dan+, R2000+)", 60, 30, 90, 45, min_rank=16, min_rating=2000.0),
        Room("ladder", "Bot ladder", 20, 10, 30, 15, bots_only=True),
    ),
    rating=RatingConstants(
        start=1500.0,
        base=(30.0, 10.0, -10.0, -30.0),
        divisor=40.0,
        ramp=0.002,
        ramp_games=400,
        floor=0.2,
    ),
)

TABLES: dict[str, RankingTables] = {TENHOU_4P_1.version: TENHOU_4P_1}
CURRENT = TENHOU_4P_1
"""The tables new matches are rated with."""


RANKED_PREFIX = "ranked:"


def ranked_source(room: str, length: Length) -> str:
    """The ``MatchRecord.source`` of a match played in a ranked room: ``ranked:<room>:<length>``."""
    return f"{RANKED_PREFIX}{room}:{length.value}"


def parse_ranked_source(source: str) -> tuple[str, Length] | None:
    """``(room, length)`` of a ranked match's source; None for any other match (never rated).

    >>> parse_ranked_source("ranked:open:east"), parse_ranked_source("queue:tenhou")
    (('open', <Length.EAST: 'east'>), None)
    """
    if not source.startswith(RANKED_PREFIX):
        return None
    room, _, length = source[len(RANKED_PREFIX) :].partition(":")
    try:
        return room, Length(length)
    except ValueError:
        return None


EVENT_PREFIX = "event:"


def rated_source(source: str) -> tuple[str, Length] | None:
    """``(room, length)`` a stored match is rated in: a ranked room's match
    (``ranked:<room>:<length>``), or an event's table whose games count for ranked stats
    (``event:<id>:r<n>:t<i>:ranked:<room>:<length>``, ``docs/tournaments.md``); None: never rated.

    >>> rated_source("event:ev-1:r1:t0:ranked:open:east"), rated_source("event:ev-1:r1:t0")
    (('open', <Length.EAST: 'east'>), None)
    """
    if source.startswith(EVENT_PREFIX):
        _, marker, rest = source.partition(":" + RANKED_PREFIX)
        return parse_ranked_source(RANKED_PREFIX + rest) if marker else None
    return parse_ranked_source(source)
