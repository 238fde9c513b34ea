"""Rating ranked matches: the orchestration of ranked play's ratings (``docs/ranking.md``).

The service decides and computes; the store (:class:`~server.domain.ports.Ratings`) only reads and
writes what it is given:

* **A match's result.** :meth:`RatingService.record_result` reads the match's
  :class:`~server.domain.ratingrecords.RatingSubject` (source, seats, whether it is rated already),
  makes the one rateable check (:meth:`~server.domain.ratingrecords.RatingSubject.rated_match`),
  reads the four standings, rates them with the pure ranking code
  (:class:`server.ranking.ledger.Ledger`), counts the seats' riichi and calls from the log, and hands
  the result with that :class:`~server.domain.ratingrecords.RatingWrite` to the store's one
  transaction (:meth:`~server.domain.ports.Ratings.record_result_and_rating`).
* **Exactly once.** That transaction stores the result and the rating together or neither; it refuses
  the rating (``StaleRatingError``, nothing written) if the match was rated meanwhile or a standing
  is no longer the one read, and the service then reads again and recomputes (a repeated result,
  after an uncertain write, is stored again without a second rating). A result stored without its
  rating (a store that failed between a result written alone and its rating, a match made ranked
  afterwards, a result lost and only in the log) is rated by :meth:`RatingService.rate_pending`,
  which the hub runs when it starts, through the same path.
* **The rebuild.** :meth:`RatingService.rebuild` folds every rated match again in the order it was
  rated (then the unrated ones), reports the differences and, unless checking, hands the
  recomputation to the store (refused if a match was rated since it read).

The hub's tables store their results through :class:`RatedRepository`: the store itself, but for
``record_result``.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from server.domain.playcounts import PlayCounts, play_counts
from server.domain.ports import Ratings, Repository
from server.domain.ranked import RatingChange, RatingDifference
from server.domain.ratingrecords import (
    RatedEntry,
    RatingsRewrite,
    RatingsSnapshot,
    RatingWrite,
    StaleRatingError,
    change_record,
)
from server.domain.records import ResultRecord, StepRecord
from server.engine import events as ev
from server.eventlog.codec import EventKind, decode_kinds
from server.ranking import SeatChange, Standing
from server.ranking.ledger import Ledger, RatedMatch, StandingKey

log = logging.getLogger(__name__)

ATTEMPTS = 16  # reads and writes of one rating before it is left to rate_pending (each lost one
# means another match sharing a player was rated in between: a few at most)

_COUNTED = (EventKind.ROUND_STARTED, EventKind.TILE_DISCARDED, EventKind.MELD_CALLED)


class RatingStore(Ratings, Protocol):
    """What the service needs of a store: its ratings and a match's log and result."""

    async def steps(
        self, match_id: str, after: int = -1, limit: int | None = None
    ) -> Sequence[StepRecord]: ...

    async def step_count(self, match_id: str) -> int: ...

    async def get_result(self, match_id: str) -> ResultRecord | None: ...


class RatingService:
    """Ranked play's ratings over a store (see the module docstring)."""

    def __init__(
        self,
        store: RatingStore,
        *,
        clock: Callable[[], float] = time.time,
        table_version: str | None = None,
    ) -> None:
        self.store = store
        self._clock = clock
        self._version = table_version

    # -- one match -----------------------------------------------------------------------------------

    async def rating_of(self, result: ResultRecord) -> RatingWrite | None:
        """The rating ``result`` gives its match now, or None if the match is not rated (not
        rateable, or rated already)."""
        subject = await self.store.rating_subject(result.match_id)
        if subject is None or subject.rated:
            return None
        m = subject.rated_match(self._version, result.ranks)
        if m is None:
            return None
        before = await self.store.stored_standings(Ledger.keys(m))
        changes = Ledger().rate(m, before)
        counts = await self.count_play(m.match_id)
        return RatingWrite(m, changes, before, counts, self._clock())

    async def record_result(self, result: ResultRecord) -> bool:
        """Store ``result`` and, if its match is to be rated, its rating, in one transaction; True
        if this call rated it."""
        for _ in range(ATTEMPTS):
            rating = await self.rating_of(result)
            try:
                await self.store.record_result_and_rating(result, rating)
            except StaleRatingError:
                continue  # another match sharing a player was rated meanwhile: read again
            return rating is not None
        # Never lose the result for its rating: it is stored alone, and the next rate_pending rates it.
        log.warning("match %s: its rating kept conflicting; stored its result alone", result.match_id)
        await self.store.record_result_and_rating(result, None)
        return False

    async def store_result(self, result: ResultRecord) -> None:
        """:meth:`record_result` as ``Repository.record_result`` (what a table calls)."""
        await self.record_result(result)

    async def rate_pending(self) -> int:
        """Rate the completed ranked matches that have no rating (their result stored without it, or
        lost and in the log only: stored from the log's ``match_ended``), oldest end first; how many
        were rated."""
        count = 0
        for match_id in await self.store.unrated_matches():
            result = await self.store.get_result(match_id) or await self._result_from_log(match_id)
            if result is not None:
                count += await self.record_result(result)
        return count

    async def count_play(self, match_id: str) -> tuple[PlayCounts, ...]:
        """Per seat: hands, riichi hands, call hands of ``match_id``, from its log."""
        steps = await self.store.steps(match_id)
        return play_counts(e for s in steps for e in decode_kinds(s.events, s.format_version, _COUNTED))

    async def _result_from_log(self, match_id: str) -> ResultRecord | None:
        count = await self.store.step_count(match_id)
        last = await self.store.steps(match_id, after=count - 2) if count else ()
        for step in last:
            for end in decode_kinds(step.events, step.format_version, (EventKind.MATCH_ENDED,)):
                assert isinstance(end, ev.MatchEnded)
                return ResultRecord(match_id, end.scores, end.ranks, end.final_points)
        return None

    # -- every match ---------------------------------------------------------------------------------

    async def rebuild(self, *, check: bool) -> Sequence[RatingDifference]:
        """Recompute every standing and change from the stored results (in the order the matches
        were rated, then the unrated ones); report the differences and, unless ``check``, store the
        recomputation."""
        for attempt in range(1, ATTEMPTS + 1):
            snapshot = await self.store.ratings_snapshot()
            diffs, rewrite = await self._recompute(snapshot, count=not check)
            if check or not diffs:
                return diffs
            try:
                await self.store.replace_ratings(rewrite)
            except StaleRatingError:
                if attempt == ATTEMPTS:
                    raise
                continue
            return diffs
        raise AssertionError("unreachable")

    async def _recompute(
        self, snap: RatingsSnapshot, *, count: bool
    ) -> tuple[list[RatingDifference], RatingsRewrite]:
        at = self._clock()
        ledger, diffs = Ledger(), []
        stored = {(c.match_id, c.seat): c for c in snap.changes}
        rated: list[RatedEntry | RatedMatch] = []
        changes: list[RatingChange] = []
        counts: dict[str, tuple[PlayCounts, ...]] = {}
        uncounted: list[str] = []
        for e in snap.rated:
            subject = snap.subjects.get(e.match_id)
            m = None if subject is None else subject.rated_match(e.table_version)
            if m is None:
                diffs.append(RatingDifference("orphan", f"{e.match_id}: rated, but its result does not rate"))
                continue
            rated.append(e)
            seat_changes = ledger.rate(m)
            diffs.extend(_change_diffs(m, seat_changes, stored))
            changes.extend(_records(m, seat_changes, seq=e.seq, at=e.rated_at))
            if not e.counted:  # rated before the counts were kept: count them now
                uncounted.append(e.match_id)
        for match_id in snap.unrated:
            subject = snap.subjects.get(match_id)
            m = None if subject is None else subject.rated_match(self._version)
            if m is None:
                continue
            diffs.append(RatingDifference("unrated", f"{match_id}: completed and ranked, but not rated"))
            rated.append(m)
            changes.extend(_records(m, ledger.rate(m), seq=0, at=at))
            uncounted.append(match_id)
        diffs.extend(compare(dict(snap.standings), ledger.standings))
        unrated = set(snap.unrated)
        diffs.extend(
            RatingDifference("play_counts", f"{m}: no riichi or call counts")
            for m in uncounted
            if m not in unrated
        )
        if count:
            for match_id in uncounted:
                counts[match_id] = await self.count_play(match_id)
        expected = tuple(e.seq for e in snap.rated)
        return diffs, RatingsRewrite(
            expected, tuple(rated), tuple(changes), dict(ledger.standings), counts, at
        )


class RatedRepository:
    """``store`` as the hub's tables see it: each call is the store's own method (bound here once,
    so an append costs nothing more), but ``record_result``, which stores a result with its rating
    through ``ratings``."""

    def __init__(self, store: Repository, ratings: RatingService) -> None:
        self.store = store
        self.create_account = store.create_account
        self.account_by_id = store.account_by_id
        self.account_by_name = store.account_by_name
        self.list_accounts = store.list_accounts
        self.revoke_account = store.revoke_account
        self.create_session = store.create_session
        self.session_by_id = store.session_by_id
        self.delete_expired_sessions = store.delete_expired_sessions
        self.create_match = store.create_match
        self.get_match = store.get_match
        self.finish_match = store.finish_match
        self.unfinished_matches = store.unfinished_matches
        self.unfinished_match_ids = store.unfinished_match_ids
        self.unfinished_matches_of = store.unfinished_matches_of
        self.recovery_record = store.recovery_record
        self.set_paused = store.set_paused
        self.append_step = store.append_step
        self.steps = store.steps
        self.step_count = store.step_count
        self.record_result = ratings.store_result
        self.get_result = store.get_result
        self.acquire_match = store.acquire_match


def _records(m: RatedMatch, changes: Iterable[SeatChange], *, seq: int, at: float) -> list[RatingChange]:
    return [
        change_record(m, k, c, seq=seq, rated_at=at) for k, c in zip(Ledger.keys(m), changes, strict=True)
    ]


def _same(a: Standing, b: Standing) -> bool:
    return (a.rank, a.points, a.games, a.placements) == (
        b.rank,
        b.points,
        b.games,
        b.placements,
    ) and math.isclose(a.rating, b.rating, abs_tol=1e-6)


def compare(
    stored: dict[StandingKey, Standing], recomputed: dict[StandingKey, Standing]
) -> list[RatingDifference]:
    """The standings that differ between what is stored and a recomputation."""
    out = []
    for key in sorted(set(stored) | set(recomputed)):
        a, b = stored.get(key), recomputed.get(key)
        if a is None or b is None or not _same(a, b):
            out.append(RatingDifference("standing", f"{'/'.join(key)}: stored {a}, recomputed {b}"))
    return out


def _change_diffs(
    m: RatedMatch, changes: Iterable[SeatChange], stored: dict[tuple[str, int], RatingChange]
) -> list[RatingDifference]:
    out = []
    for c in changes:
        s = stored.get((m.match_id, c.seat))
        if (
            s is None
            or s.placement != c.placement
            or (s.after.rank, s.after.points, s.after.games) != (c.after.rank, c.after.points, c.after.games)
            or not math.isclose(s.after.rating, c.after.rating, abs_tol=1e-6)
        ):
            out.append(RatingDifference("change", f"{m.match_id} seat {c.seat}: stored {s}, recomputed {c}"))
    return out
