"""The SQL store: :class:`~server.domain.ports.Repository` (the hub's write side) and, through
:class:`~server.store.reads.SqlReads`, :class:`~server.domain.ports.ReadModel` (the admin review's
read side), on SQLite or PostgreSQL.

>>> import asyncio, tempfile
>>> async def demo(path: str) -> int:
...     async with await SqlRepository.open(sqlite_url(path)) as repo:
...         return await repo.step_count("m-none")
>>> with tempfile.TemporaryDirectory() as d:
...     asyncio.run(demo(d + "/j.sqlite3"))
0

Steps go through the group-commit writer (:mod:`server.store.writer`); everything else is one
short transaction per call. The read side (:mod:`server.store.reads`) answers what the admin pages
need: :meth:`~SqlRepository.find_matches`, :meth:`~SqlRepository.hand_results`,
:meth:`~SqlRepository.record_audit` / :meth:`~SqlRepository.audit_entries`;
:meth:`~SqlRepository.rebuild_hand_results` recomputes the hand projection from the log.

Timestamps are unix seconds at the Protocol and aware UTC datetimes in the database, kept to the
microsecond (so a value read back may differ from the one written below a microsecond).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.domain.clock import Clock
from server.domain.errors import ConflictError, FencedError, NotFoundError
from server.domain.ratingrecords import RatingWrite, StaleRatingError
from server.domain.records import (
    Account,
    AccountKind,
    MatchRecord,
    MatchStatus,
    RecoveryRecord,
    ResultRecord,
    Scope,
    SessionRecord,
    StepRecord,
    paused_settings,
)
from server.store.db import create_engine, sqlite_url, verify_engine, write_connection, write_gate
from server.store.events import SqlEvents
from server.store.migrate import require_current_schema, upgrade
from server.store.models import (
    AccountRow,
    HandResultRow,
    MatchRecoveryRow,
    MatchResultRow,
    MatchRow,
    SeatRow,
    SessionRow,
    StepRow,
)
from server.store.moderation import SqlModeration
from server.store.projection import replay_ops
from server.store.ratings import SqlRatings, write_rating, write_result
from server.store.reads import SqlReads, matches_on
from server.store.social import SqlSocial
from server.store.types import from_unix, from_unix_opt, to_unix, to_unix_opt
from server.store.writer import (
    DEFAULT_COMMIT_TIMEOUT_S,
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_PENDING,
    GroupCommitWriter,
    apply_hand_ops,
)

__all__ = ["SqlRepository", "sqlite_url"]


def _account(row: Row[Any]) -> Account:
    return Account(
        id=row.id,
        name=row.name,
        kind=AccountKind(row.kind),
        scopes=frozenset(Scope(s) for s in row.scopes),
        created_at=to_unix(row.created_at),
        token_hash=row.token_hash,
        revoked_at=to_unix_opt(row.revoked_at),
    )


def _account_values(a: Account) -> dict[str, Any]:
    return {
        "id": a.id,
        "name": a.name,
        "kind": a.kind.value,
        "scopes": sorted(s.value for s in a.scopes),
        "token_hash": a.token_hash,
        "created_at": from_unix(a.created_at),
        "revoked_at": from_unix_opt(a.revoked_at),
    }


def _session(row: Row[Any]) -> SessionRecord:
    return SessionRecord(
        id=row.id,
        token_hash=row.token_hash,
        account_id=row.account_id,
        created_at=to_unix(row.created_at),
        expires_at=to_unix(row.expires_at),
    )


def _step(row: Row[Any]) -> StepRecord:
    return StepRecord(
        match_id=row.match_id,
        step=row.step,
        seat=row.seat,
        action=row.action,
        events=tuple(row.events),
        request_id=row.request_id,
        applied_at=to_unix(row.applied_at),
        source=row.source,
        format_version=row.format_version,
        banks=None if row.banks is None else tuple(row.banks),
    )


# The lobby's and the tables' writes of other rows than steps: synchronous bodies that the writer
# groups on SQLite (GroupCommitWriter.write: many in one transaction on its thread, each in a
# savepoint) and runs in a transaction of its own elsewhere.


def _create_account(conn: Connection, account: Account) -> None:
    if conn.execute(select(AccountRow.id).where(AccountRow.id == account.id)).first():
        raise ConflictError(f"account id {account.id!r} exists")
    if account.kind is not AccountKind.GUEST:
        same_name = select(AccountRow.id).where(
            AccountRow.name == account.name, AccountRow.kind != AccountKind.GUEST.value
        )
        if conn.execute(same_name).first():
            raise ConflictError(f"an account named {account.name!r} exists")
    try:
        conn.execute(insert(AccountRow).values(_account_values(account)))
    except IntegrityError as exc:
        raise ConflictError(f"account {account.id!r} ({account.name!r}): {exc.orig}") from exc


def _create_session(conn: Connection, session_id: str, values: dict[str, Any]) -> None:
    try:
        conn.execute(insert(SessionRow).values(values))
    except IntegrityError as exc:
        raise ConflictError(f"session {session_id!r}: {exc.orig}") from exc


def _create_match(
    conn: Connection,
    values: dict[str, Any],
    seats: list[dict[str, Any]],
    recovery: dict[str, Any] | None,
) -> None:
    match_id = values["id"]
    try:
        if conn.execute(select(MatchRow.id).where(MatchRow.id == match_id)).first():
            raise ConflictError(f"match {match_id!r} exists")
        conn.execute(insert(MatchRow).values(values))
        if seats:
            conn.execute(insert(SeatRow), seats)
        if recovery is not None:
            conn.execute(insert(MatchRecoveryRow).values(recovery))
    except IntegrityError as exc:
        raise ConflictError(f"match {match_id!r}: {exc.orig}") from exc


def _finish_match(
    conn: Connection, match_id: str, target: Any, fence: int | None, values: dict[str, Any]
) -> None:
    result = conn.execute(update(MatchRow).where(target).values(values))
    if result.rowcount == 0:
        current = conn.execute(select(MatchRow.fence).where(MatchRow.id == match_id)).scalar_one_or_none()
        if current is None:
            raise NotFoundError(f"no match {match_id!r}")
        assert fence is not None
        raise FencedError(match_id, fence, current)


class SqlRepository(SqlReads, SqlRatings, SqlEvents, SqlSocial, SqlModeration):
    """Implements :class:`~server.domain.ports.Store` (both sides) on SQLite or PostgreSQL.

    Make one with :meth:`open` (engine, pragma check, migrations) or from an engine you own; call
    :meth:`close` (or use ``async with``) to commit what is queued and release the connections.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        own_engine: bool = False,
        commit_timeout_s: float = DEFAULT_COMMIT_TIMEOUT_S,
        max_batch: int = DEFAULT_MAX_BATCH,
        max_pending: int = DEFAULT_MAX_PENDING,
        clock: Clock | None = None,
        owner: str | None = None,
        commit_interval_s: float | None = None,
    ) -> None:
        self.engine = engine
        self._own_engine = own_engine
        self._gate = write_gate(engine)
        # Cluster mode: this node's id; the matches it creates are fenced from the start.
        self.owner = owner
        self.writer = GroupCommitWriter(
            engine,
            max_batch=max_batch,
            max_pending=max_pending,
            commit_timeout_s=commit_timeout_s,
            gate=self._gate,
            clock=clock,
            commit_interval_s=commit_interval_s,
        )

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        migrate: bool = True,
        search_path: str | None = None,
        commit_timeout_s: float = DEFAULT_COMMIT_TIMEOUT_S,
        max_batch: int = DEFAULT_MAX_BATCH,
        max_pending: int = DEFAULT_MAX_PENDING,
        clock: Clock | None = None,
        owner: str | None = None,
        commit_interval_s: float | None = None,
    ) -> Self:
        """Connect to ``url``, verify it (SQLite pragmas), bring the schema to the latest revision
        (or, with ``migrate=False``, require it to be there already) and return the repository.
        ``clock`` measures the writer's commit timeouts (the event loop's clock by default)."""
        engine = create_engine(url, search_path=search_path)
        try:
            await verify_engine(engine)
            if migrate:
                await upgrade(engine)
            else:
                await require_current_schema(engine)
        except BaseException:
            await engine.dispose()
            raise
        return cls(
            engine,
            own_engine=True,
            commit_timeout_s=commit_timeout_s,
            max_batch=max_batch,
            max_pending=max_pending,
            clock=clock,
            owner=owner,
            commit_interval_s=commit_interval_s,
        )

    async def close(self) -> None:
        await self.writer.close()
        if self._own_engine:
            await self.engine.dispose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # -- accounts ------------------------------------------------------------------------------------

    async def create_account(self, account: Account) -> None:
        await self.writer.write(lambda conn: _create_account(conn, account))

    async def account_by_id(self, account_id: str) -> Account | None:
        row = await self._first(select(AccountRow).where(AccountRow.id == account_id))
        return None if row is None else _account(row)

    async def account_by_name(self, name: str) -> Account | None:
        row = await self._first(
            select(AccountRow).where(AccountRow.name == name, AccountRow.kind != AccountKind.GUEST.value)
        )
        return None if row is None else _account(row)

    async def list_accounts(self) -> Sequence[Account]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(AccountRow)
                .where(AccountRow.kind != AccountKind.GUEST.value)
                .order_by(AccountRow.name, AccountRow.id)
            )
            return [_account(r) for r in rows]

    async def revoke_account(self, account_id: str, at: float) -> Account:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(
                update(AccountRow)
                .where(AccountRow.id == account_id, AccountRow.revoked_at.is_(None))
                .values(revoked_at=from_unix(at))
            )
            row = (await conn.execute(select(AccountRow).where(AccountRow.id == account_id))).first()
            if row is None:
                raise NotFoundError(f"no account {account_id!r}")
            await conn.execute(delete(SessionRow).where(SessionRow.account_id == account_id))
            return _account(row)

    # -- sessions ------------------------------------------------------------------------------------

    async def create_session(self, session: SessionRecord) -> None:
        values = {
            "id": session.id,
            "token_hash": session.token_hash,
            "account_id": session.account_id,
            "created_at": from_unix(session.created_at),
            "expires_at": from_unix(session.expires_at),
        }
        await self.writer.write(lambda conn: _create_session(conn, session.id, values))

    async def session_by_id(self, session_id: str) -> SessionRecord | None:
        row = await self._first(select(SessionRow).where(SessionRow.id == session_id))
        return None if row is None else _session(row)

    async def delete_expired_sessions(self, now: float) -> int:
        async with write_connection(self.engine, self._gate) as conn:
            result = await conn.execute(delete(SessionRow).where(SessionRow.expires_at <= from_unix(now)))
            return int(result.rowcount)

    # -- matches -------------------------------------------------------------------------------------

    async def create_match(self, match: MatchRecord, recovery: RecoveryRecord | None = None) -> None:
        """The match, its seats and its recovery record (the secret seed), in one transaction."""
        if recovery is not None and recovery.match_id != match.id:
            raise ValueError(f"the recovery record of {recovery.match_id!r} given for {match.id!r}")
        values = {
            "id": match.id,
            "ruleset_json": match.ruleset_json,
            "ruleset_hash": match.ruleset_hash,
            "seed_commitment": match.seed_commitment,
            "seed_hex": match.seed_hex,
            "engine_version": match.engine_version,
            "wall_algorithm": match.wall_algorithm,
            "status": match.status.value,
            "source": match.source,
            "created_at": from_unix(match.created_at),
            "ended_at": from_unix_opt(match.ended_at),
            "status_reason": match.status_reason,
            "owner_node": self.owner,
            "fence": 0 if self.owner is None else 1,
            "seat_count": len(match.seats),
        }
        seats = [
            {
                "match_id": match.id,
                "seat": s.seat,
                "account_id": s.account_id,
                "name": s.name,
                "kind": s.kind.value,
                "bot": s.bot,
            }
            for s in match.seats
        ]
        recovery_values = (
            None
            if recovery is None
            else {"match_id": match.id, "seed_hex": recovery.seed_hex, "table_settings": recovery.table}
        )
        await self.writer.write(lambda conn: _create_match(conn, values, seats, recovery_values))
        if self.owner is not None:
            self.writer.fences[match.id] = 1

    async def acquire_match(self, match_id: str) -> int:
        """Bump the match's fencing token for this repository's owner and check every later append
        against it (``docs/scaling.md``). The UPDATE waits for the row lock a commit in flight
        holds, so a step the previous owner is committing either lands before (and is in the log
        the new owner replays) or is refused."""
        async with write_connection(self.engine, self._gate) as conn:
            fence = (
                await conn.execute(
                    update(MatchRow)
                    .where(MatchRow.id == match_id)
                    .values(fence=MatchRow.fence + 1, owner_node=self.owner)
                    .returning(MatchRow.fence)
                )
            ).scalar_one_or_none()
        if fence is None:
            raise NotFoundError(f"no match {match_id!r}")
        self.writer.acquired(match_id, int(fence))
        return int(fence)

    async def get_match(self, match_id: str) -> MatchRecord | None:
        matches = await self._matches(select(MatchRow).where(MatchRow.id == match_id))
        return matches[0] if matches else None

    async def finish_match(
        self,
        match_id: str,
        status: MatchStatus,
        ended_at: float,
        seed_hex: str | None,
        reason: str | None = None,
    ) -> None:
        fence = self.writer.fences.get(match_id)
        target = MatchRow.id == match_id
        if fence is not None:
            target = target & (MatchRow.fence == fence)
        values = {
            "status": status.value,
            "ended_at": from_unix(ended_at),
            "seed_hex": seed_hex,
            "status_reason": reason,
        }
        await self.writer.write(lambda conn: _finish_match(conn, match_id, target, fence, values))
        if status is not MatchStatus.RUNNING:
            self.writer.fences.pop(match_id, None)

    async def append_step(self, step: StepRecord) -> None:
        """Group-committed (see :mod:`server.store.writer`): returns once the step is durable.

        Raises NotFoundError (no such match), StepConflictError (a different record at that step,
        or not the next step), InvalidRecordError, or StoreUnavailableError / StoreBusyError (the
        outcome is unknown: retry the same record)."""
        await self.writer.append(step)

    async def steps(self, match_id: str, after: int = -1, limit: int | None = None) -> Sequence[StepRecord]:
        """Read-your-writes: waits for this match's appends still in the writer first."""
        await self.writer.settled(match_id)
        query = select(StepRow).where(StepRow.match_id == match_id, StepRow.step > after)
        query = query.order_by(StepRow.step)
        if limit is not None:
            query = query.limit(limit)
        async with self.engine.connect() as conn:
            rows = await conn.execute(query)
            return tuple(_step(r) for r in rows)

    async def step_count(self, match_id: str) -> int:
        """Read-your-writes, like :meth:`steps`: an append whose caller gave up (timed out or was
        cancelled) is settled first, so the count says whether it landed."""
        await self.writer.settled(match_id)
        async with self.engine.connect() as conn:
            count = await conn.scalar(select(func.count()).where(StepRow.match_id == match_id))
            return int(count or 0)

    async def record_result(self, result: ResultRecord) -> None:
        """Store (or replace) the match's result: NotFoundError for an unknown match, ConflictError
        when a different result is being stored at the same time. Rates nothing (the rating service
        does, through :meth:`record_result_and_rating`)."""
        await self.record_result_and_rating(result, None)

    async def record_result_and_rating(self, result: ResultRecord, rating: RatingWrite | None) -> None:
        """The result and, when given, its rating in one transaction (``server.store.ratings``)."""
        try:
            async with write_connection(self.engine, self._gate) as conn:
                await write_result(conn, result)
                if rating is not None:
                    await write_rating(conn, rating)
        except IntegrityError as exc:
            # Rolled back. Only a missing match is NotFound; the rating's row inserted by another
            # transaction meanwhile makes the rating stale; rows of the same result stored at the same
            # time (another transaction's) make this a retry that already happened; else a conflict.
            if await self.get_match(result.match_id) is None:
                raise NotFoundError(f"no match {result.match_id!r}") from exc
            if rating is not None:
                raise StaleRatingError(f"match {result.match_id!r}: rated meanwhile") from exc
            if await self.get_result(result.match_id) == result:
                return
            raise ConflictError(f"the result of match {result.match_id!r}: {exc.orig}") from exc

    async def get_result(self, match_id: str) -> ResultRecord | None:
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(MatchResultRow)
                    .where(MatchResultRow.match_id == match_id)
                    .order_by(MatchResultRow.seat)
                )
            ).all()
        if not rows:
            return None
        return ResultRecord(
            match_id=match_id,
            scores=tuple(r.score for r in rows),
            ranks=tuple(r.rank for r in rows),
            final_points=tuple(r.final_points for r in rows),
        )

    # -- beyond the hub's Protocol: recovery and review ------------------------------------------

    async def unfinished_matches(self) -> Sequence[MatchRecord]:
        """Matches still ``running`` (to resume after a crash), oldest first."""
        return await self._matches(
            select(MatchRow)
            .where(MatchRow.status == MatchStatus.RUNNING.value)
            .order_by(MatchRow.created_at, MatchRow.id)
        )

    async def unfinished_match_ids(self) -> Sequence[str]:
        """The ids of the ``running`` matches, oldest first (one indexed read of one column)."""
        query = (
            select(MatchRow.id)
            .where(MatchRow.status == MatchStatus.RUNNING.value)
            .order_by(MatchRow.created_at, MatchRow.id)
        )
        async with self.engine.connect() as conn:
            return [str(r[0]) for r in (await conn.execute(query)).all()]

    async def unfinished_matches_of(self, account_id: str) -> Sequence[str]:
        """The ids of the ``running`` matches seating ``account_id`` (through the seats' index on
        ``account_id``), oldest first."""
        query = (
            select(MatchRow.id)
            .join(SeatRow, SeatRow.match_id == MatchRow.id)
            .where(SeatRow.account_id == account_id, MatchRow.status == MatchStatus.RUNNING.value)
            .order_by(MatchRow.created_at, MatchRow.id)
        )
        async with self.engine.connect() as conn:
            ids = [str(r[0]) for r in (await conn.execute(query)).all()]
        return list(dict.fromkeys(ids))

    async def recovery_record(self, match_id: str) -> RecoveryRecord | None:
        """The secret seed and table settings of a match (crash recovery only: never show it)."""
        row = await self._first(select(MatchRecoveryRow).where(MatchRecoveryRow.match_id == match_id))
        if row is None:
            return None
        return RecoveryRecord(match_id=row.match_id, seed_hex=row.seed_hex, table=row.table_settings)

    async def set_paused(self, match_id: str, reason: str | None) -> None:
        where = MatchRecoveryRow.match_id == match_id
        async with write_connection(self.engine, self._gate) as conn:
            settings = await conn.scalar(select(MatchRecoveryRow.table_settings).where(where))
            if settings is not None:
                table = paused_settings(settings, reason)
                await conn.execute(update(MatchRecoveryRow).where(where).values(table_settings=table))

    async def rebuild_hand_results(self, match_id: str) -> int:
        """Recompute the match's hand results from its stored steps; returns the number of hands."""
        log = [(s.step, s.events, s.format_version) for s in await self.steps(match_id)]
        ops = replay_ops(match_id, log)
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(delete(HandResultRow).where(HandResultRow.match_id == match_id))
            if ops:
                await apply_hand_ops(conn, match_id, ops)
            count = await conn.scalar(select(func.count()).where(HandResultRow.match_id == match_id))
        return int(count or 0)

    # -- helpers -------------------------------------------------------------------------------------

    async def _first(self, query: Any) -> Row[Any] | None:
        async with self.engine.connect() as conn:
            row: Row[Any] | None = (await conn.execute(query)).first()
            return row

    async def _matches(self, query: Any) -> list[MatchRecord]:
        async with self.engine.connect() as conn:
            return await matches_on(conn, query)
