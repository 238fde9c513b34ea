"""The ranking tables as data: ranks, points by placement and room, rooms, the R rating's constants.

Every rating change stores the :attr:`RankingTables.version` it was computed with, so a later change
of a table (a new version beside the old one in :data:`TABLES`) never rewrites history silently:
``jantaku admin ratings rebuild`` recomputes each match with the version stored for it.

The values of version ``tenhou-4p-1`` follow Tenhou's four-player ranked lobby as documented by
Tenhou's own manual and summarised on riichi.wiki ("Tenhou.net ranking"); ``tenhou-3p-2`` its
three-player (sanma) lobby, whose ranks are kept apart from the four-player ones (``tenhou-3p-1``,
the first three-player version, stays for the matches rated with it). ``docs/ranking.md``
prints them in full and names the sources (and which figures it could not source).

Each set of tables says how many seats its matches have (:attr:`RankingTables.seats`) and which
ruleset preset its rooms play (:attr:`RankingTables.preset`); every room key is unique across the
sets (the three-player rooms are ``sanma-...``), so a ranked queue's room names its tables.
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
    ``target``: the points that promote (None: the top rank); ``last``: the points the last place
    (fourth of four, third of three) costs, per length (0: no loss, the "threshold" below which
    nobody loses points); ``demotes``: whether falling below zero drops the player one rank."""

    key: str  # stable id: "new", "9k" ... "1k", "1d" ... "10d", "tenhoui"
    label: str  # what players read: "Novice", "9 kyu", "1 dan", ...
    base: int
    target: int | None
    last_east: int
    last_east_south: int
    demotes: bool

    def last(self, length: Length) -> int:
        return self.last_east if length is Length.EAST else self.last_east_south


@dataclass(frozen=True, slots=True)
class Room:
    """A ranked room (a quick-match queue of one ruleset and length). ``first``/``second``: the
    points a first / second place earns there, per length (three players: the second earns
    nothing, 0); entry needs rank index >= ``min_rank`` and R >= ``min_rating``. ``bots_only``:
    the bot ladder (bot accounts only; players never)."""

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
    base: tuple[float, ...]  # per placement, first to last: one per seat
    divisor: float
    ramp: float
    ramp_games: int
    floor: float


@dataclass(frozen=True, slots=True)
class RankingTables:
    """One versioned set of tables: ``seats`` players a match, rooms playing ruleset ``preset``; the
    standings of its rooms rate on ``board`` (players) and ``ladder_board`` (the bot ladder)."""

    version: str
    seats: int
    preset: str
    board: str
    ladder_board: str
    ranks: tuple[Rank, ...]
    rooms: tuple[Room, ...]
    rating: RatingConstants

    def __post_init__(self) -> None:
        if len(self.rating.base) != self.seats:
            raise ValueError(f"{self.version}: the R base needs one value per seat ({self.seats})")

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


def _kyu(n: int, target: int, last_east: int = 0) -> Rank:
    return Rank(
        key=f"{n}k",
        label=f"{n} kyu",
        base=0,
        target=target,
        last_east=last_east,
        last_east_south=last_east * 3 // 2,
        demotes=last_east != 0,
    )


def _dan(n: int) -> Rank:
    return Rank(
        key=f"{n}d",
        label=f"{n} dan",
        base=200 * n,
        target=400 * n,
        last_east=-(20 + 10 * n),
        last_east_south=-(20 + 10 * n) * 3 // 2,
        demotes=True,
    )


TENHOU_RANKS = (
    Rank("new", "Novice", 0, 20, 0, 0, demotes=False),
    _kyu(9, 20),
    _kyu(8, 20),
    _kyu(7, 20),
    _kyu(6, 40),
    _kyu(5, 60),
    _kyu(4, 80),
    _kyu(3, 100),
    _kyu(2, 100, last_east=-10),
    _kyu(1, 100, last_east=-20),
    *(_dan(n) for n in range(1, 11)),
    Rank("tenhoui", "Tenhoui", 0, None, 0, 0, demotes=False),
)
"""Tenhou's ranks, the same for four and three players (the last place's loss: a fourth place of
four, a third place of three)."""

TENHOU_4P_1 = RankingTables(
    version="tenhou-4p-1",
    seats=4,
    preset="tenhou",
    board="ranked",
    ladder_board="ladder",
    ranks=TENHOU_RANKS,
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


def _sanma_tables(version: str, first: tuple[tuple[int, int], ...]) -> RankingTables:
    """Three-player tables: the four-player ranks, a first place's award ``(east, east-south)`` in
    the open, upper, expert and phoenix rooms (the bot ladder's is the open room's), nothing for a
    second place, the third place's loss a fourth place's of four, R over three seats with the
    three-player placement base of Tenhou's manual (+30 / 0 / -30)."""
    (open_e, open_s), (upper_e, upper_s), (expert_e, expert_s), (phoenix_e, phoenix_s) = first
    return RankingTables(
        version=version,
        seats=3,
        preset="tenhou-sanma",
        board="sanma",
        ladder_board="sanma_ladder",
        ranks=TENHOU_RANKS,
        rooms=(
            Room("sanma-open", "Sanma open", open_e, 0, open_s, 0),
            Room("sanma-upper", "Sanma upper (1 kyu+)", upper_e, 0, upper_s, 0, min_rank=9),
            Room(
                "sanma-expert",
                "Sanma expert (4 dan+, R1800+)",
                *(expert_e, 0, expert_s, 0),
                min_rank=13,
                min_rating=1800.0,
            ),
            Room(
                "sanma-phoenix",
                "Sanma phoenix (7 dan+, R2000+)",
                *(phoenix_e, 0, phoenix_s, 0),
                min_rank=16,
                min_rating=2000.0,
            ),
            Room("sanma-ladder", "Sanma bot ladder", open_e, 0, open_s, 0, bots_only=True),
        ),
        rating=RatingConstants(
            start=1500.0,
            base=(30.0, 0.0, -30.0),
            divisor=40.0,
            ramp=0.002,
            ramp_games=400,
            floor=0.2,
        ),
    )


TENHOU_3P_1 = _sanma_tables("tenhou-3p-1", ((25, 35), (40, 60), (55, 80), (70, 105)))
"""The first three-player tables, whose awards were not sourced; kept so that the matches rated
with them keep their figures (a rebuild recomputes each match with its own version)."""

TENHOU_3P_2 = _sanma_tables("tenhou-3p-2", ((30, 45), (50, 75), (70, 105), (90, 135)))
"""Tenhou's three-player awards (docs/ranking.md, "Where the figures come from"): a first place
earns 30 / 50 / 70 / 90 points east and 1.5 times that east-south in the open / upper / expert /
phoenix rooms."""

TABLES: dict[str, RankingTables] = {t.version: t for t in (TENHOU_4P_1, TENHOU_3P_1, TENHOU_3P_2)}
CURRENT = TENHOU_4P_1
"""The four-player tables new four-player matches are rated with."""
CURRENT_SANMA = TENHOU_3P_2
"""The three-player tables new three-player matches are rated with."""
CURRENT_SETS: tuple[RankingTables, ...] = (CURRENT, CURRENT_SANMA)
"""The current tables of each kind of room, four-player first."""


def tables_of_room(room: str) -> RankingTables:
    """The current tables whose rooms include ``room`` (KeyError if none does).

    >>> tables_of_room("open").seats, tables_of_room("sanma-open").seats
    (4, 3)
    """
    for tables in CURRENT_SETS:
        if any(r.key == room for r in tables.rooms):
            return tables
    raise KeyError(room)


def board_key(room: str) -> str:
    """The board a room's standings rate on (KeyError for an unknown room).

    >>> board_key("open"), board_key("ladder"), board_key("sanma-upper"), board_key("sanma-ladder")
    ('ranked', 'ladder', 'sanma', 'sanma_ladder')
    """
    tables = tables_of_room(room)
    return tables.ladder_board if tables.room(room).bots_only else tables.board


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
