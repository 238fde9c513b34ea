"""Ranked play in memory: :class:`~server.domain.ports.Ratings` and
:class:`~server.domain.ports.Credentials` for ``InMemoryRepository`` (same answers as
:mod:`server.store.ratings`; the fold is the same :class:`server.ranking.ledger.Ledger`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from server.domain.errors import ConflictError, NotFoundError
from server.domain.playcounts import PlayCounts, play_counts
from server.domain.ranked import (
    Board,
    LeaderboardEntry,
    RatingChange,
    RatingDifference,
    rated_match,
)
from server.domain.records import (
    DEFAULT_SCOPES,
    Account,
    AccountKind,
    MatchRecord,
    MatchStatus,
    ResultRecord,
    SessionRecord,
    StepRecord,
)
from server.engine import events as ev
from server.eventlog.codec import EventKind, decode_kinds
from server.ranking import CURRENT, Length, Standing
from server.ranking.ledger import (
    Ledger,
    RatedMatch,
    StandingKey,
    start_standing,
)
from server.ranking.rules import SeatChange


def _same(a: Standing, b: Standing) -> bool:
    return (a.rank, a.points, a.games, a.placements) == (b.rank, b.points, b.games, b.placements) and abs(
        a.rating - b.rating
    ) <= 1e-6


def _rating_change(
    m: RatedMatch, key: StandingKey, c: SeatChange, *, seq: int, version: str, at: float
) -> RatingChange:
    """The stored form of seat ``c``'s change in match ``m`` (``key``: its standing)."""
    return RatingChange(
        m.match_id, c.seat, seq, key[0], Board(m.board), m.length, c.placement, c.before, c.after, version, at
    )


class MemoryRatings:
    """The ranked-play half of ``InMemoryRepository``."""

    _accounts: dict[str, Account]
    _sessions: dict[str, SessionRecord]
    _matches: dict[str, MatchRecord]
    _results: dict[str, ResultRecord]

    def _last_step(self, match_id: str) -> StepRecord | None:
        """The last stored step of ``match_id`` (None: none); the repository provides it."""
        raise NotImplementedError

    def _step_records(self, match_id: str) -> Sequence[StepRecord]:
        """The stored steps of ``match_id``; the repository provides them."""
        raise NotImplementedError

    def _count_play(self, match_id: str) -> tuple[PlayCounts, ...]:
        kinds = (EventKind.ROUND_STARTED, EventKind.TILE_DISCARDED, EventKind.MELD_CALLED)
        steps = self._step_records(match_id)
        return play_counts(e for s in steps for e in decode_kinds(s.events, s.format_version, kinds))

    def _init_ratings(self) -> None:
        self._play_counts: dict[str, tuple[PlayCounts, ...]] = {}
        self._passwords: dict[str, str] = {}
        self._standings: dict[StandingKey, Standing] = {}
        self._rated: dict[str, tuple[int, str]] = {}  # match id -> (seq, table version)
        self._changes: list[RatingChange] = []

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

    # -- ratings -------------------------------------------------------------------------------------

    def _rated_match(self, match_id: str, table_version: str | None) -> RatedMatch | None:
        match, result = self._matches.get(match_id), self._results.get(match_id)
        if match is None:
            return None
        return rated_match(
            match_id,
            source=match.source,
            aborted=match.status is MatchStatus.ABORTED,
            accounts=tuple(s.account_id for s in sorted(match.seats, key=lambda s: s.seat)),
            placements=() if result is None else result.ranks,
            table_version=table_version,
        )

    def _rate(self, match_id: str, at: float) -> bool:
        if match_id in self._rated:
            return False
        m = self._rated_match(match_id, None)  # the current tables of its room
        if m is None:
            return False
        ledger = Ledger(self._standings)
        changes = ledger.rate(m)
        seq = len(self._rated) + 1
        self._rated[match_id] = (seq, m.table_version)
        self._play_counts[match_id] = self._count_play(match_id)
        for key, c in zip(Ledger.keys(m), changes, strict=True):
            self._changes.append(_rating_change(m, key, c, seq=seq, version=m.table_version, at=at))
        return True

    async def rate_pending(self, at: float) -> int:
        for m in self._matches.values():  # a completed match whose result's write failed: its log has it
            last = self._last_step(m.id) if m.status is MatchStatus.COMPLETED else None
            if last is not None and m.id not in self._results:
                for end in decode_kinds(last.events, last.format_version, (EventKind.MATCH_ENDED,)):
                    assert isinstance(end, ev.MatchEnded)
                    self._results[m.id] = ResultRecord(m.id, end.scores, end.ranks, end.final_points)
        pending = sorted(
            (
                m
                for m in self._matches.values()
                if m.status is MatchStatus.COMPLETED and m.id not in self._rated
            ),
            key=lambda m: (m.ended_at or 0.0, m.id),
        )
        return sum(self._rate(m.id, at) for m in pending)

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

    async def rebuild_ratings(self, *, check: bool, at: float) -> Sequence[RatingDifference]:
        ledger, diffs = Ledger(), []
        stored = {(c.match_id, c.seat): c for c in self._changes}
        order = sorted(self._rated.items(), key=lambda kv: kv[1][0])
        recomputed: list[RatingChange] = []
        rated: dict[str, tuple[int, str]] = {}
        todo: list[tuple[str, str | None]] = [(mid, ver) for mid, (_, ver) in order]
        todo += [
            (m.id, None)
            for m in sorted(self._matches.values(), key=lambda m: (m.ended_at or 0.0, m.id))
            if m.status is MatchStatus.COMPLETED and m.id not in self._rated and self._rated_match(m.id, None)
        ]
        for match_id, stored_version in todo:
            m = self._rated_match(match_id, stored_version)
            if m is None:
                diffs.append(RatingDifference("orphan", f"{match_id}: rated, but its result does not rate"))
                continue
            if match_id not in self._rated:
                diffs.append(RatingDifference("unrated", f"{match_id}: completed and ranked, but not rated"))
            seq = len(rated) + 1
            version = m.table_version
            rated[match_id] = (seq, version)
            if match_id not in self._play_counts:
                if match_id in self._rated:
                    diffs.append(RatingDifference("play_counts", f"{match_id}: no riichi or call counts"))
                if not check:
                    self._play_counts[match_id] = self._count_play(match_id)
            for key, c in zip(Ledger.keys(m), ledger.rate(m), strict=True):
                s = stored.get((match_id, c.seat))
                if s is None or s.placement != c.placement or not _same(s.after, c.after):
                    diffs.append(
                        RatingDifference("change", f"{match_id} seat {c.seat}: stored {s}, recomputed {c}")
                    )
                recomputed.append(
                    _rating_change(m, key, c, seq=seq, version=version, at=s.rated_at if s else at)
                )
        for key in sorted(set(self._standings) | set(ledger.standings)):
            a, b = self._standings.get(key), ledger.standings.get(key)
            if a is None or b is None or not _same(a, b):
                diffs.append(RatingDifference("standing", f"{'/'.join(key)}: stored {a}, recomputed {b}"))
        if not check and diffs:
            self._standings, self._rated, self._changes = dict(ledger.standings), rated, recomputed
        return diffs
