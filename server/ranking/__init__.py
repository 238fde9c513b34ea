"""Ranked play's rules, pure: Tenhou-style kyu/dan ranks with points, the R rating, ranked rooms.

No I/O, clock or randomness: the store keeps each player's :class:`~server.ranking.rules.Standing`
and applies what :func:`~server.ranking.rules.rate_match` returns; the tables are versioned data
(:mod:`server.ranking.tables`, documented in ``docs/ranking.md``).
"""

from server.ranking.rules import (
    SeatChange,
    Standing,
    adjustment,
    dan_after,
    may_enter,
    rate_match,
    rating_change,
)
from server.ranking.tables import (
    CURRENT,
    CURRENT_SANMA,
    CURRENT_SETS,
    TABLES,
    Length,
    Rank,
    RankingTables,
    Room,
    board_key,
    parse_ranked_source,
    ranked_source,
    rated_source,
    tables_of_room,
)

__all__ = [
    "CURRENT",
    "CURRENT_SANMA",
    "CURRENT_SETS",
    "TABLES",
    "Length",
    "Rank",
    "RankingTables",
    "Room",
    "SeatChange",
    "Standing",
    "adjustment",
    "board_key",
    "dan_after",
    "may_enter",
    "parse_ranked_source",
    "ranked_source",
    "rate_match",
    "rated_source",
    "rating_change",
    "tables_of_room",
]
