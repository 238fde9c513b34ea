"""What the rating service (:mod:`server.services.ratings`) and the stores exchange: the records of
rating a match, and of recomputing every rating.

The service decides and computes; a store only reads and writes what it is given:

* :class:`RatingSubject`: what the store knows of one match that decides whether it is rated (its
  ``source``, whether it was aborted, the account at each seat, the stored placements, whether it
  is rated already). :meth:`RatingSubject.rated_match` is the one rateable check
  (:func:`server.domain.ranked.rated_match`).
* :class:`RatingWrite`: one match's rating as the service computed it, with the standings it was
  computed from. The store writes it in the transaction of the match's result, after checking that
  the match is not rated yet and that those standings are still the stored ones; otherwise it
  raises :class:`StaleRatingError` and writes nothing (the service reads again and recomputes).
* :class:`RatingsSnapshot` / :class:`RatingsRewrite`: everything ``ratings rebuild`` reads, and the
  recomputation it stores (refused with :class:`StaleRatingError` if a match was rated since the
  snapshot).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from server.domain.errors import ConflictError
from server.domain.playcounts import PlayCounts
from server.domain.ranked import Board, RatingChange, rated_match
from server.ranking import SeatChange, Standing
from server.ranking.ledger import Ledger, RatedMatch, StandingKey


class StaleRatingError(ConflictError):
    """The match was rated, or a standing it was rated from changed, since the service read them:
    nothing was written; read again and recompute."""


@dataclass(frozen=True, slots=True)
class RatingSubject:
    """What decides whether (and how) a stored match is rated."""

    match_id: str
    source: str
    aborted: bool
    accounts: tuple[str | None, ...]  # by seat
    placements: tuple[int, ...]  # the stored result's ranks by seat; () without a result
    rated: bool  # rated already (``rated_matches``)

    def rated_match(
        self, table_version: str | None, placements: Sequence[int] | None = None
    ) -> RatedMatch | None:
        """What the match contributes, with ``placements`` (default: the stored ones), or None when
        it is not rateable. ``table_version`` None: the current tables of the match's room (four-
        and three-player rooms have tables of their own)."""
        return rated_match(
            self.match_id,
            source=self.source,
            aborted=self.aborted,
            accounts=self.accounts,
            placements=self.placements if placements is None else placements,
            table_version=table_version,
        )


def change_record(
    m: RatedMatch, key: StandingKey, c: SeatChange, *, seq: int, rated_at: float
) -> RatingChange:
    """The stored form of seat ``c``'s change in match ``m`` (``key``: its standing)."""
    return RatingChange(
        m.match_id, c.seat, seq, key[0], Board(m.board), m.length, c.placement, c.before, c.after,
        m.table_version, rated_at,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class RatingWrite:
    """One match's rating: its changes, computed from the standings ``before`` (as stored: a key
    that is absent had no stored standing)."""

    match: RatedMatch
    changes: tuple[SeatChange, ...]
    before: Mapping[StandingKey, Standing]
    play_counts: tuple[PlayCounts, ...]
    rated_at: float

    @property
    def keys(self) -> list[StandingKey]:
        return Ledger.keys(self.match)

    @property
    def accounts(self) -> list[str]:
        return [k[0] for k in self.keys]

    def after(self) -> dict[StandingKey, Standing]:
        return {k: c.after for k, c in zip(self.keys, self.changes, strict=True)}

    def records(self, seq: int) -> list[RatingChange]:
        """The change rows, the match rated ``seq``-th."""
        return [
            change_record(self.match, k, c, seq=seq, rated_at=self.rated_at)
            for k, c in zip(self.keys, self.changes, strict=True)
        ]


@dataclass(frozen=True, slots=True)
class RatedEntry:
    """A row of ``rated_matches``: the match, the order it was rated in, with which tables, when,
    and whether its play counts are kept."""

    match_id: str
    seq: int
    table_version: str
    rated_at: float
    counted: bool


@dataclass(frozen=True, slots=True)
class RatingsSnapshot:
    """Everything ``ratings rebuild`` reads, in one transaction."""

    rated: tuple[RatedEntry, ...]  # in the order they were rated
    unrated: tuple[str, ...]  # completed ranked matches without a rating, oldest end first
    subjects: Mapping[str, RatingSubject]  # of every match above
    changes: tuple[RatingChange, ...]
    standings: Mapping[StandingKey, Standing]


@dataclass(frozen=True, slots=True)
class RatingsRewrite:
    """A recomputation to store in place of every standing and change.

    ``expected``: the rated matches' seqs of the snapshot it was made from (the store refuses it
    with :class:`StaleRatingError` when they changed); ``rated``: the matches that stay or become
    rated, in order (a new one is given its seq by the store, after the others); ``changes``: every
    change (seq 0 for a new match: the store fills it in); ``counts``: play counts to keep for
    matches that had none."""

    expected: tuple[int, ...]
    rated: tuple[RatedEntry | RatedMatch, ...]
    changes: tuple[RatingChange, ...]
    standings: Mapping[StandingKey, Standing]
    counts: Mapping[str, tuple[PlayCounts, ...]]
    at: float

    def changes_with(self, seqs: Mapping[str, int]) -> list[RatingChange]:
        return [replace(c, seq=seqs[c.match_id]) for c in self.changes]
