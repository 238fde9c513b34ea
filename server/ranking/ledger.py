"""Rating matches in order, from a set of standings: the one fold both stores and
``jantaku admin ratings rebuild`` use, so the incremental update and the rebuild cannot disagree.

A :class:`RatedMatch` is what a match contributes: its room and length, the accounts at its seats,
their placements and the version of the tables to rate it with. :meth:`Ledger.rate` returns each
seat's :class:`~server.ranking.rules.SeatChange` and keeps the standings it produced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from server.ranking.rules import SeatChange, Standing, rate_match
from server.ranking.tables import TABLES, Length

StandingKey = tuple[str, str, str]  # (account id, board, length)


class NotRateableError(ValueError):
    """The match cannot be rated (unknown room or table version, not as many seats as the tables'
    matches have, a seat without an account, the same account in two seats, placements not
    1..seats)."""


@dataclass(frozen=True, slots=True)
class RatedMatch:
    match_id: str
    room: str
    board: str
    length: Length
    accounts: tuple[str | None, ...]
    placements: tuple[int, ...]
    table_version: str


def check_rateable(m: RatedMatch) -> None:
    if m.table_version not in TABLES:
        raise NotRateableError(f"unknown ranking tables {m.table_version!r}")
    tables = TABLES[m.table_version]
    try:
        tables.room(m.room)
    except KeyError:
        raise NotRateableError(f"unknown ranked room {m.room!r}") from None
    seats = tables.seats
    if len(m.accounts) != seats or any(a is None for a in m.accounts):
        raise NotRateableError(f"a rated match needs {seats} seats with accounts")
    if len(set(m.accounts)) != seats:
        raise NotRateableError("the same account sits in two seats")
    if sorted(m.placements) != list(range(1, seats + 1)):
        raise NotRateableError(f"placements {m.placements} are not 1..{seats}")


def start_standing(table_version: str) -> Standing:
    return Standing(rating=TABLES[table_version].rating.start)


@dataclass(slots=True)
class Ledger:
    """Standings keyed by (account, board, length); missing ones start at the tables' start."""

    standings: dict[StandingKey, Standing] = field(default_factory=dict)

    @staticmethod
    def keys(m: RatedMatch) -> list[StandingKey]:
        return [(str(a), m.board, m.length.value) for a in m.accounts]

    def rate(
        self, m: RatedMatch, known: Mapping[StandingKey, Standing] | None = None
    ) -> tuple[SeatChange, ...]:
        """Rate ``m`` against the ledger's standings (or ``known`` ones, for keys the ledger lacks)."""
        check_rateable(m)
        tables = TABLES[m.table_version]
        keys = self.keys(m)
        before = tuple(
            self.standings.get(k) or (known or {}).get(k) or start_standing(m.table_version) for k in keys
        )
        changes = rate_match(before, m.placements, tables.room(m.room), m.length, tables)
        for key, change in zip(keys, changes, strict=True):
            self.standings[key] = change.after
        return changes
