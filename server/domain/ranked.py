"""The records of ranked play: standings, rating changes, leaderboard entries (read and written
through :class:`~server.domain.ports.Ratings`).

A **board** is a set of standings that rate against each other: ``ranked`` (registered players, in
the ranked rooms) or ``ladder`` (bot accounts, in the bot ladder). Each board keeps one standing
per account and game length (:class:`server.ranking.Length`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server.ranking import Length, Standing


class Board(StrEnum):
    RANKED = "ranked"
    LADDER = "ladder"


LADDER_ROOM = "ladder"


def board_of_room(room: str) -> Board:
    return Board.LADDER if room == LADDER_ROOM else Board.RANKED


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

    what: str  # "standing", "change", "unrated", "orphan"
    detail: str
