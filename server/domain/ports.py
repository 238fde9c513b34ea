"""The persistence port: what the hub stores and reads back, behind one small async interface.

The hub only ever talks to :class:`Repository`. ``server.store.repository.SqlRepository`` implements
it on SQLite or PostgreSQL (what ``jantaku serve`` uses); :mod:`server.hub.memory` implements it in
memory (tests, ``--database-url memory:``). The records are in :mod:`server.domain.records`, the
errors every method may raise in :mod:`server.domain.errors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from server.domain.records import (
    Account,
    MatchRecord,
    MatchStatus,
    RecoveryRecord,
    ResultRecord,
    SessionRecord,
    StepRecord,
)


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

    async def recovery_record(self, match_id: str) -> RecoveryRecord | None:
        """The secret seed and table settings of a match (crash recovery only)."""
        ...

    async def append_step(self, step: StepRecord) -> None:
        """Append step ``step.step``; it must be the next one (ConflictError otherwise, unless the
        very same record is already stored: appending is idempotent)."""
        ...

    async def steps(self, match_id: str, after: int = -1) -> Sequence[StepRecord]:
        """The stored steps with ``step > after``, in order."""
        ...

    async def step_count(self, match_id: str) -> int:
        """How many steps are stored (= the next step expected)."""
        ...

    async def record_result(self, result: ResultRecord) -> None: ...

    async def get_result(self, match_id: str) -> ResultRecord | None: ...
