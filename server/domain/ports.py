"""The persistence ports: what the hub stores and reads back, and what the admin review reads.

* :class:`Repository`, the write side: the hub only ever talks to it.
* :class:`ReadModel`, the read side: finding matches, their per-hand results, the audit log (the
  admin API and ``jantaku admin games``; they run no SQL of their own).
* :class:`Store`: both, as one store implements them.

``server.store.repository.SqlRepository`` implements both on SQLite or PostgreSQL (what ``jantaku
serve`` uses); ``server.store.memory.InMemoryRepository`` in memory (tests, ``--database-url
memory:``). The records are in :mod:`server.domain.records` and :mod:`server.domain.reads`, the
errors every method may raise in :mod:`server.domain.errors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from server.domain.playcounts import PlayCounts
from server.domain.ranked import Board, LeaderboardEntry, RatingChange
from server.domain.ratingrecords import RatingsRewrite, RatingsSnapshot, RatingSubject, RatingWrite
from server.domain.reads import AuditEntry, HandResult, MatchPage, MatchQuery
from server.domain.records import (
    Account,
    MatchRecord,
    MatchStatus,
    RecoveryRecord,
    ResultRecord,
    SessionRecord,
    StepRecord,
)
from server.ranking import Length, Standing
from server.ranking.ledger import StandingKey


class Repository(Protocol):
    """The hub's persistence port. Every method may raise; the hub never trusts a write that raised."""

    # accounts
    async def create_account(self, account: Account) -> None:
        """Raises ConflictError for a duplicate id, or a duplicate name among players and bots."""
        ...

    async def account_by_id(self, account_id: str) -> Account | None: ...

    async def account_by_name(self, name: str) -> Account | None:
        """A player or bot account (guests are not looked up by name)."""
        ...

    async def list_accounts(self) -> Sequence[Account]:
        """Players and bots (not guests)."""
        ...

    async def revoke_account(self, account_id: str, at: float) -> Account:
        """Mark the account revoked (its token and sessions stop working); NotFoundError if unknown."""
        ...

    # sessions
    async def create_session(self, session: SessionRecord) -> None: ...

    async def session_by_id(self, session_id: str) -> SessionRecord | None: ...

    async def delete_expired_sessions(self, now: float) -> int: ...

    # matches and the step log
    async def create_match(self, match: MatchRecord, recovery: RecoveryRecord | None = None) -> None:
        """Store the match, its seats and (in the same transaction) its recovery record."""
        ...

    async def get_match(self, match_id: str) -> MatchRecord | None: ...

    async def finish_match(
        self,
        match_id: str,
        status: MatchStatus,
        ended_at: float,
        seed_hex: str | None,
        reason: str | None = None,
    ) -> None:
        """Set the final status (and ``status_reason``); reveal the seed (None keeps it secret)."""
        ...

    async def unfinished_matches(self) -> Sequence[MatchRecord]:
        """Matches still running (to resume after a restart), oldest first."""
        ...

    async def unfinished_match_ids(self) -> Sequence[str]:
        """The ids of the matches still running, oldest first (no seats, no rows: cluster mode's
        rare takeover backstop reads only these)."""
        ...

    async def unfinished_matches_of(self, account_id: str) -> Sequence[str]:
        """The ids of the running matches where ``account_id`` has a seat, oldest first."""
        ...

    async def recovery_record(self, match_id: str) -> RecoveryRecord | None:
        """The secret seed and table settings of a match (crash recovery only)."""
        ...

    async def set_paused(self, match_id: str, reason: str | None) -> None:
        """Keep with the match's recovery record that its table is paused (``reason``) or goes on
        (None), so that a table recovered after a restart or taken over by another node is paused
        as it was. A match without a recovery record: nothing to keep."""
        ...

    async def append_step(self, step: StepRecord) -> None:
        """Append step ``step.step``; it must be the next one (ConflictError otherwise, unless the
        very same record is already stored: appending is idempotent)."""
        ...

    async def steps(self, match_id: str, after: int = -1, limit: int | None = None) -> Sequence[StepRecord]:
        """The stored steps with ``step > after``, in order (the first ``limit`` of them: a page)."""
        ...

    async def step_count(self, match_id: str) -> int:
        """How many steps are stored (= the next step expected)."""
        ...

    async def record_result(self, result: ResultRecord) -> None:
        """Store (or replace) the match's result; NotFoundError for an unknown match. It rates
        nothing: a table's result goes through the rating service (``server.services.ratings``)."""
        ...

    async def get_result(self, match_id: str) -> ResultRecord | None: ...

    # cluster mode (docs/scaling.md): the owner's fencing token
    async def acquire_match(self, match_id: str) -> int:
        """Make this repository's owner (its node) the owner of the running match ``match_id``:
        bump the match's fencing token and return it. From then on every ``append_step`` and
        ``finish_match`` of this repository for the match is checked against that token in the
        same transaction and refused with FencedError once another node acquired it since. A
        repository opened with an owner fences the matches it creates from the start (token 1);
        one without (a single process) checks nothing until it acquires. NotFoundError if unknown."""
        ...


class ReadModel(Protocol):
    """The read side of a store: what the admin review reads (see :mod:`server.domain.reads`)."""

    @property
    def unavailable_errors(self) -> tuple[type[Exception], ...]:
        """The backend's own exceptions that mean "the store could not answer" (the database is down
        or stalled): the admin API answers them 503 ``unavailable``, like
        :class:`~server.domain.errors.UnavailableError`."""
        ...

    async def find_matches(self, query: MatchQuery) -> MatchPage:
        """A page of the matches ``query`` selects, newest first, and how many it selects in all."""
        ...

    async def hand_results(self, match_id: str) -> Sequence[HandResult]:
        """Every hand of the match, in order (projected from its log)."""
        ...

    async def record_audit(self, entry: AuditEntry) -> int:
        """Append to the audit log; returns the entry's id. (A write, but of the read side: every
        read of a game is audited, and the read fails if its entry cannot be written.)"""
        ...

    async def audit_entries(
        self, *, match_id: str | None = None, actor_id: str | None = None, limit: int = 100
    ) -> Sequence[AuditEntry]:
        """The most recent audit entries first."""
        ...


class Credentials(Protocol):
    """Passwords of the accounts players make themselves (argon2id hashes, never passwords)."""

    async def register_account(self, account: Account, password_hash: str) -> None:
        """Create a player account with its password hash in one transaction; ConflictError for a
        name already taken by a player or bot."""
        ...

    async def upgrade_guest(self, account_id: str, name: str, password_hash: str, at: float) -> Account:
        """Make a guest account a registered player named ``name`` (its games stay its own);
        NotFoundError if no such guest, ConflictError if the name is taken."""
        ...

    async def password_hash(self, account_id: str) -> str | None: ...

    async def delete_session(self, session_id: str) -> None:
        """Sign out: the session stops working (no error if there is none)."""
        ...

    async def set_password_hash(self, account_id: str, password_hash: str, at: float) -> None:
        """Replace the hash and end every session of the account (NotFoundError if it has none)."""
        ...


class Ratings(Protocol):
    """Ranked play's standings, as persistence primitives. Deciding what is rated and computing it
    is the rating service's (:mod:`server.services.ratings`): it reads a match's
    :class:`~server.domain.ratingrecords.RatingSubject` and the standings, rates with the pure
    ranking code and hands the result with its rating to :meth:`record_result_and_rating`, one
    transaction; ``rated_matches.match_id`` is unique and the write checks what it was computed
    from, so no match is rated twice and no update is lost."""

    async def rating_subject(self, match_id: str) -> RatingSubject | None:
        """What decides whether ``match_id`` is rated (None: no such match)."""
        ...

    async def stored_standings(self, keys: Sequence[StandingKey]) -> dict[StandingKey, Standing]:
        """The stored standings among ``keys`` (a key without one is absent)."""
        ...

    async def record_result_and_rating(self, result: ResultRecord, rating: RatingWrite | None) -> None:
        """Store (or replace) the match's result and, when given, its rating, in one transaction.
        StaleRatingError, with nothing written, if the match is rated already or a standing is no
        longer ``rating.before``; NotFoundError / ConflictError as ``record_result``."""
        ...

    async def unrated_matches(self) -> Sequence[str]:
        """The completed matches of a ranked room (``source`` ``ranked:...``) without a rating,
        oldest end first."""
        ...

    async def ratings_snapshot(self) -> RatingsSnapshot:
        """Everything ``ratings rebuild`` reads, in one transaction."""
        ...

    async def replace_ratings(self, rewrite: RatingsRewrite) -> None:
        """Store a recomputation in place of every standing and change, in one transaction
        (StaleRatingError, with nothing written, if the rated matches are no longer
        ``rewrite.expected``)."""
        ...

    async def standing(self, account_id: str, board: Board, length: Length) -> Standing:
        """The account's standing (the start standing if it has played no rated match)."""
        ...

    async def leaderboard(
        self, board: Board, length: Length, *, limit: int = 50, offset: int = 0
    ) -> tuple[Sequence[LeaderboardEntry], int]:
        """Rank, then points, then R, highest first; and how many accounts the board has."""
        ...

    async def rating_history(
        self, account_id: str, board: Board, length: Length, *, limit: int = 200
    ) -> Sequence[RatingChange]:
        """The account's most recent rating changes, oldest first."""
        ...

    async def play_counts(self, match_ids: Sequence[str]) -> dict[str, tuple[PlayCounts, ...]]:
        """Per rated match among ``match_ids``, each seat's hands, riichi hands and call hands
        (counted when it was rated; a match rated before they were counted is left out)."""
        ...


class Store(Repository, ReadModel, Credentials, Ratings, Protocol):
    """Both sides of one store: what the composition root hands to the hub and to the admin API."""
