"""Ranked play in memory: :class:`~server.domain.ports.Ratings` and
:class:`~server.domain.ports.Credentials` for ``InMemoryRepository`` (the same answers and the same
checks as :mod:`server.store.ratings`; what to rate and how is the rating service's,
:mod:`server.services.ratings`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from server.domain.errors import ConflictError, NotFoundError
from server.domain.playcounts import PlayCounts
from server.domain.ranked import Board, LeaderboardEntry, RatingChange
from server.domain.ratingrecords import (
    RatedEntry,
    RatingsRewrite,
    RatingsSnapshot,
    RatingSubject,
    RatingWrite,
    StaleRatingError,
)
from server.domain.records import (
    DEFAULT_SCOPES,
    Account,
    AccountKind,
    MatchRecord,
    MatchStatus,
    ResultRecord,
    SessionRecord,
)
from server.ranking import CURRENT, Length, Standing, rated_source
from server.ranking.ledger import RatedMatch, StandingKey, start_standing


class MemoryRatings:
    """The ranked-play half of ``InMemoryRepository``."""

    _accounts: dict[str, Account]
    _sessions: dict[str, SessionRecord]
    _matches: dict[str, MatchRecord]
    _results: dict[str, ResultRecord]

    def _init_ratings(self) -> None:
        self._play_counts: dict[str, tuple[PlayCounts, ...]] = {}
        self._passwords: dict[str, str] = {}
        self._standings: dict[StandingKey, Standing] = {}
        self._rated: dict[str, RatedEntry] = {}  # match id -> its row, in the order rated
        self._changes: list[RatingChange] = []
        self._last_seq = 0

    # -- credentials ---------------------------------------------------------------------------------

    def _name_taken(self, name: str) -> bool:
        return any(a.name == name and a.kind is not AccountKind.GUEST for a in self._accounts.values())

    async def register_account(self, account: Account, password_hash: str) -> None:
        if account.id in self._accounts:
            raise ConflictError(f"account id {account.id!r} exists")
        if self._name_taken(account.name):
            raise ConflictError(f"an account named {account.name!r} exists")
        self._accounts[account.id] = account
        self._passwords[account.id] = password_hash

    async def upgrade_guest(self, account_id: str, name: str, password_hash: str, at: float) -> Account:
        guest = self._accounts.get(account_id)
        if guest is None or guest.kind is not AccountKind.GUEST or not guest.active:
            raise NotFoundError(f"no active guest {account_id!r}")
        if self._name_taken(name):
            raise ConflictError(f"an account named {name!r} exists")
        account = replace(
            guest, name=name, kind=AccountKind.PLAYER, scopes=DEFAULT_SCOPES[AccountKind.PLAYER]
        )
        self._accounts[account_id] = account
        self._passwords[account_id] = password_hash
        return account

    async def password_hash(self, account_id: str) -> str | None:
        return self._passwords.get(account_id)

    async def delete_session(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    async def set_password_hash(self, account_id: str, password_hash: str, at: float) -> None:
        if account_id not in self._passwords:
            raise NotFoundError(f"account {account_id!r} has no password")
        self._passwords[account_id] = password_hash
        self._sessions = {k: s for k, s in self._sessions.items() if s.account_id != account_id}

    # -- ratings: what the rating service reads and writes -------------------------------------------

    async def rating_subject(self, match_id: str) -> RatingSubject | None:
        match = self._matches.get(match_id)
        if match is None:
            return None
        result = self._results.get(match_id)
        return RatingSubject(
            match_id=match_id,
            source=match.source,
            aborted=match.status is MatchStatus.ABORTED,
            accounts=tuple(s.account_id for s in sorted(match.seats, key=lambda s: s.seat)),
            placements=() if result is None else tuple(result.ranks),
            rated=match_id in self._rated,
        )

    async def stored_standings(self, keys: Sequence[StandingKey]) -> dict[StandingKey, Standing]:
        return {k: self._standings[k] for k in keys if k in self._standings}

    def _check_result(self, result: ResultRecord) -> None:
        if result.match_id not in self._matches:
            raise NotFoundError(f"no match {result.match_id!r}")

    def _insert_rated(self, m: RatedMatch, at: float, counts: tuple[PlayCounts, ...] | None) -> int:
        self._last_seq += 1
        self._rated[m.match_id] = RatedEntry(
            m.match_id, self._last_seq, m.table_version, at, counts is not None
        )
        if counts is not None:
            self._play_counts[m.match_id] = counts
        return self._last_seq

    def _write_rating(self, w: RatingWrite) -> None:
        """The checks of ``server.store.ratings.write_rating``, then the rating (nothing awaits)."""
        if w.match.match_id in self._rated:
            raise StaleRatingError(f"match {w.match.match_id!r} is rated already")
        stored = {k: self._standings[k] for k in w.keys if k in self._standings}
        if stored != dict(w.before):
            raise StaleRatingError(f"match {w.match.match_id!r}: a standing changed since it was read")
        seq = self._insert_rated(w.match, w.rated_at, w.play_counts)
        self._standings.update(w.after())
        self._changes.extend(w.records(seq))

    async def record_result_and_rating(self, result: ResultRecord, rating: RatingWrite | None) -> None:
        self._check_result(result)
        if rating is not None:
            self._write_rating(rating)  # raises before anything is written
        self._results[result.match_id] = result

    async def unrated_matches(self) -> Sequence[str]:
        pending = sorted(
            (
                m
                for m in self._matches.values()
                if m.status is MatchStatus.COMPLETED
                and rated_source(m.source) is not None
                and m.id not in self._rated
            ),
            key=lambda m: (m.ended_at or 0.0, m.id),
        )
        return [m.id for m in pending]

    async def ratings_snapshot(self) -> RatingsSnapshot:
        rated = tuple(
            replace(e, counted=e.match_id in self._play_counts)
            for e in sorted(self._rated.values(), key=lambda e: e.seq)
        )
        unrated = tuple(await self.unrated_matches())
        subjects = {}
        for mid in (*(e.match_id for e in rated), *unrated):
            subject = await self.rating_subject(mid)
            if subject is not None:
                subjects[mid] = subject
        return RatingsSnapshot(rated, unrated, subjects, tuple(self._changes), dict(self._standings))

    async def replace_ratings(self, rewrite: RatingsRewrite) -> None:
        if tuple(sorted(e.seq for e in self._rated.values())) != rewrite.expected:
            raise StaleRatingError("a match was rated since the ratings were read")
        kept = {e.match_id for e in rewrite.rated if isinstance(e, RatedEntry)}
        for mid in [m for m in self._rated if m not in kept]:
            del self._rated[mid]
            self._play_counts.pop(mid, None)
        for e in rewrite.rated:
            counts = rewrite.counts.get(e.match_id)
            if isinstance(e, RatedMatch):
                self._insert_rated(e, rewrite.at, counts)
            elif counts is not None:
                self._play_counts[e.match_id] = counts
        seqs = {mid: e.seq for mid, e in self._rated.items()}
        self._changes = rewrite.changes_with(seqs)
        self._standings = dict(rewrite.standings)

    # -- ratings: reads ------------------------------------------------------------------------------

    async def standing(self, account_id: str, board: Board, length: Length) -> Standing:
        return self._standings.get((account_id, board.value, length.value)) or start_standing(CURRENT.version)

    async def leaderboard(
        self, board: Board, length: Length, *, limit: int = 50, offset: int = 0
    ) -> tuple[Sequence[LeaderboardEntry], int]:
        rows = [(k[0], s) for k, s in self._standings.items() if k[1] == board.value and k[2] == length.value]
        rows.sort(key=lambda r: (r[1].rank, r[1].points, r[1].rating, r[0]), reverse=True)
        page = rows[offset : offset + limit]
        return [
            LeaderboardEntry(offset + i + 1, a, self._accounts[a].name, s) for i, (a, s) in enumerate(page)
        ], len(rows)

    async def rating_history(
        self, account_id: str, board: Board, length: Length, *, limit: int = 200
    ) -> Sequence[RatingChange]:
        mine = [
            c for c in self._changes if c.account_id == account_id and c.board is board and c.length is length
        ]
        return mine[-limit:] if limit else []

    async def play_counts(self, match_ids: Sequence[str]) -> dict[str, tuple[PlayCounts, ...]]:
        return {m: self._play_counts[m] for m in match_ids if m in self._play_counts}
