"""The records of ranked play: standings, rating changes, leaderboard entries (read and written
through :class:`~server.domain.ports.Ratings`).

A **board** is a set of standings that rate against each other: ``ranked`` (registered players, in
the ranked rooms) or ``ladder`` (bot accounts, in the bot ladder), and their three-player
counterparts ``sanma`` and ``sanma_ladder`` (the ``sanma-...`` rooms: a player's three-player rank
is kept apart from the four-player one, as Tenhou keeps it). Each board keeps one standing per
account and game length (:class:`server.ranking.Length`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from server.domain.reads import HandResult
from server.ranking import Length, Standing, board_key, rated_source, tables_of_room
from server.ranking.ledger import NotRateableError, RatedMatch, check_rateable


class Board(StrEnum):
    RANKED = "ranked"
    LADDER = "ladder"
    SANMA = "sanma"
    SANMA_LADDER = "sanma_ladder"


def board_of_room(room: str) -> Board:
    """The board of a ranked room (KeyError for an unknown room)."""
    return Board(board_key(room))


def rated_match(
    match_id: str,
    *,
    source: str,
    aborted: bool,
    accounts: Sequence[str | None],
    placements: Sequence[int],
    table_version: str | None,
) -> RatedMatch | None:
    """What a stored match contributes to the ratings, or None when it is not a rateable match: the
    one check both stores make. Not rateable: an aborted match, one not played in a ranked room
    (``source``), or one that fails :func:`~server.ranking.ledger.check_rateable` (as many seats as
    its tables' matches have, each a different account, placements 1..seats: a match without its
    result has none). ``table_version`` None: the current tables of the match's room (a match
    being rated now); otherwise the version it was rated with."""
    if aborted:
        return None
    parsed = rated_source(source)
    if parsed is None:
        return None
    room, length = parsed
    try:
        board = board_of_room(room)
        version = table_version or tables_of_room(room).version
    except KeyError:
        return None
    m = RatedMatch(
        match_id=match_id,
        room=room,
        board=board.value,
        length=length,
        accounts=tuple(accounts),
        placements=tuple(placements),
        table_version=version,
    )
    try:
        check_rateable(m)
    except NotRateableError:
        return None
    return m


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one rated match did to one seat."""

    match_id: str
    seat: int
    seq: int  # the order the match was rated in
    account_id: str
    board: Board
    length: Length
    placement: int
    before: Standing
    after: Standing
    table_version: str
    rated_at: float


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    position: int  # 1-based
    account_id: str
    name: str
    standing: Standing


@dataclass(frozen=True, slots=True)
class RatingDifference:
    """One difference ``ratings rebuild --check`` found between what is stored and the recomputation."""

    what: str  # "standing", "change", "unrated", "orphan", "play_counts"
    detail: str


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """What a player did in the hands of some matches (a profile's statistics)."""

    hands: int = 0
    wins: int = 0
    tsumo_wins: int = 0
    deal_ins: int = 0
    win_points: int = 0  # the hand values of the wins, summed
    deal_in_points: int = 0  # what the deal-ins cost, summed
    draws: int = 0  # exhaustive draws
    tenpai_at_draws: int = 0

    def rate(self, part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None


def hand_stats(hands: Iterable[tuple[int, HandResult]]) -> PlayerStats:
    """The statistics of ``seat`` over ``(seat, hand)`` pairs (hands still being played are skipped).

    >>> from server.domain.reads import HandResult
    >>> won = {"seat": 1, "from_seat": 0, "points": 3900, "deltas": [-3900, 3900, 0, 0]}
    >>> h = HandResult("m", 0, 0, 0, 0, 0, 0, (), "", 0, 5, "won", None, (won,), None, None, None, None,
    ...                None, None)
    >>> s = hand_stats([(0, h), (1, h)])
    >>> (s.hands, s.wins, s.deal_ins, s.win_points, s.deal_in_points)
    (2, 1, 1, 3900, 3900)
    """
    hands_, wins, tsumo, deal_ins, win_pts, deal_pts, draws, tenpai = 0, 0, 0, 0, 0, 0, 0, 0
    for seat, hand in hands:
        if hand.outcome is None:
            continue
        hands_ += 1
        dealt_in = False
        for win in hand.wins:
            if win.get("seat") == seat:
                wins += 1
                win_pts += int(win.get("points") or 0)
                tsumo += win.get("from_seat") == seat
            elif win.get("from_seat") == seat:  # a double ron is one deal-in, costing both wins
                dealt_in = True
                deltas = win.get("deltas") or []
                deal_pts += -int(deltas[seat]) if len(deltas) > seat else int(win.get("points") or 0)
        deal_ins += dealt_in
        if hand.outcome == "drawn" and hand.tenpai is not None:
            draws += 1
            tenpai += bool(hand.tenpai[seat]) if len(hand.tenpai) > seat else 0
    return PlayerStats(hands_, wins, tsumo, deal_ins, win_pts, deal_pts, draws, tenpai)
