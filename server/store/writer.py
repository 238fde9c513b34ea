"""Group commit: one writer task stores the steps of every table, many per transaction.

Commit before broadcast means every step waits for a durable commit; with one fsync per step the
database, not the engine, would bound how many tables a server can run. So
:meth:`GroupCommitWriter.append` only queues the step and waits; the writer task takes everything
queued (up to ``max_batch``), stores it in ONE transaction and resolves each caller's future only
after that transaction has committed. While one batch commits the next one fills up, so batches
grow with the load and an idle server still commits a lone step at once (no artificial delay).

Per batch, in one transaction (:func:`server.store.batch.commit_batch`): read each match's last
stored step, classify every step (the next one: insert; already stored and identical: nothing to
do, the retry succeeds; anything else: :class:`StepConflictError`; unknown match:
:class:`NotFoundError`), insert the new steps with one ``executemany``, and apply the per-hand
projection (``server.store.projection``). The transaction is handed off ONCE per batch: on SQLite
to the writer's own thread and connection (:mod:`server.store.sqlite_writer`); on PostgreSQL the
writer keeps one connection for its batches, and the common batch (every match's next step known,
nothing to read back, no hand starting or ending) is ONE statement in autocommit mode on it (lock
and check the fencing tokens, insert the steps: one round trip and one commit,
:func:`server.store.batch.plan_one_statement`), any other batch one ``run_sync`` in a transaction.

Failures never block the event loop (all I/O is awaited) and never leave a caller hanging:

* the caller waits at most ``commit_timeout`` seconds, then gets :class:`StoreUnavailableError` (the
  step may still commit later; retrying it is safe since appends are idempotent); every timeout is
  measured on the injectable clock (:mod:`server.domain.clock`), so tests drive them by hand;
* while a commit has been running for longer than ``commit_timeout`` (the database stalls), new
  appends fail at once with :class:`StoreUnavailableError`, and with :class:`StoreBusyError` when
  ``max_pending`` steps are already waiting;
* a batch that fails because of the database (down, locked, disk full) fails every caller in it
  with :class:`StoreUnavailableError`; a batch that fails because of one record (it cannot be encoded,
  or a constraint trips) is retried one step per transaction, so only that caller gets the error.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, SQLAlchemyError, StatementError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.domain.clock import Cancellable, Clock, SystemClock, with_deadline
from server.domain.errors import RepositoryError
from server.domain.records import StepRecord
from server.store.batch import (
    BatchResult,
    apply_hand_ops_sync,
    commit_batch,
    describe,
    is_unavailable,
    plan_one_statement,
)
from server.store.db import sync_sqlite_engine, write_connection
from server.store.errors import (
    InvalidRecordError,
    StepConflictError,
    StoreBusyError,
    StoreUnavailableError,
)
from server.store.projection import HandOp
from server.store.sqlite_batch import commit_batch_raw
from server.store.sqlite_writer import WriterThread

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_MAX_BATCH = 1000
DEFAULT_MAX_PENDING = 20_000
DEFAULT_COMMIT_TIMEOUT_S = 5.0
NEXT_STEP_CACHE = 20_000  # matches whose next step the writer remembers
# PostgreSQL: the least time between the starts of two step commits. Each commit costs the database
# a round trip and a WAL flush whatever its size (docs/benchmarks.md, "Cluster": ~0.4 ms of its CPU),
# and with the one-statement commit a busy writer would commit nearly every step on its own; so a
# busy writer lets the next batch fill for what is left of this interval (a step waits at most this
# long more), while a step after a quiet spell still commits at once.
POSTGRES_COMMIT_INTERVAL_S = 0.004

# The writer's kept PostgreSQL connection plans its statements once (a generic plan) instead of
# anew for every batch: with array parameters PostgreSQL keeps choosing a custom plan, and planning
# the one statement's CTE was about a third of the database's CPU per commit (bench/pgwriter.py:
# 832 -> 485-607 us per commit). A plan made once must not be a sequential scan: the first batch of a
# new database plans while ``matches`` is small and never analysed, and that plan (a scan of every
# match, for every batch) would stay until an analyse; every statement of the writer finds its rows
# by primary key, so sequential scans are off on this connection. Only that connection: both are
# set when the writer takes it from the pool and reset before it goes back, so that no other query
# of the store changes plans.
_WRITER_SETTINGS = {"plan_cache_mode": "force_generic_plan", "enable_seqscan": "off"}
_SET_WRITER = "SELECT " + ", ".join(f"set_config('{k}', '{v}', false)" for k, v in _WRITER_SETTINGS.items())
_RESET_WRITER = (
    "SELECT set_config(name, reset_val, false) FROM pg_settings"
    f" WHERE name IN ({', '.join(repr(k) for k in _WRITER_SETTINGS)})"
)

__all__ = ["GroupCommitWriter", "WriterStats", "apply_hand_ops"]


@dataclass(slots=True)
class _Pending:
    record: StepRecord
    future: asyncio.Future[None]  # what the caller awaits (it may give up on it: cancelled)
    deadline: float  # on the writer's clock: the caller is answered unavailable then
    seq: int  # appends are numbered in the order they are queued, which is the order they settle


@dataclass(slots=True)
class _Op:
    """A write of other rows (accounts, sessions, matches) waiting to be grouped."""

    fn: Callable[[Connection], Any]
    future: asyncio.Future[Any]


@dataclass(slots=True)
class WriterStats:
    """Counters for tests, benchmarks and metrics."""

    batches: int = 0
    steps_committed: int = 0  # newly stored (retries of stored steps not counted)
    retries_absorbed: int = 0  # appends of an identical, already stored step
    rejected: int = 0  # conflicts and unknown matches
    failed_batches: int = 0
    write_groups: int = 0  # transactions of grouped writes (write())
    writes: int = 0  # grouped writes committed or refused in them
    largest_batch: int = 0
    one_statement: int = 0  # PostgreSQL: batches committed as one statement (the others: a transaction)
    batch_sizes: list[int] = field(default_factory=list)  # the most recent ones (bounded)

    def record_batch(self, size: int) -> None:
        self.batches += 1
        self.largest_batch = max(self.largest_batch, size)
        self.batch_sizes.append(size)
        if len(self.batch_sizes) > 10_000:
            del self.batch_sizes[:5_000]


class GroupCommitWriter:
    """The single writer of the step log (one per repository, started lazily on the running loop)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_batch: int = DEFAULT_MAX_BATCH,
        max_pending: int = DEFAULT_MAX_PENDING,
        commit_timeout_s: float = DEFAULT_COMMIT_TIMEOUT_S,
        gate: asyncio.Lock | None = None,
        clock: Clock | None = None,
        commit_interval_s: float | None = None,
    ) -> None:
        if max_batch < 1 or max_pending < 1 or commit_timeout_s <= 0:
            raise ValueError("max_batch, max_pending and commit_timeout_s must be positive")
        if commit_interval_s is None:  # (a small share of the commit timeout at most)
            postgres = engine.dialect.name == "postgresql"
            commit_interval_s = min(POSTGRES_COMMIT_INTERVAL_S, commit_timeout_s / 10) if postgres else 0.0
        if not 0 <= commit_interval_s < commit_timeout_s:
            raise ValueError("commit_interval_s must be >= 0 and shorter than commit_timeout_s")
        # the least time between the starts of two step commits (PostgreSQL: see the constant)
        self.commit_interval_s = commit_interval_s
        self._last_commit_at = float("-inf")
        self._engine = engine
        self._gate = gate
        sync_engine = sync_sqlite_engine(engine)
        # SQLite: the step log is written by a thread of its own (server.store.sqlite_writer).
        self._thread = WriterThread(sync_engine) if sync_engine is not None else None
        # PostgreSQL: the writer keeps one connection of the pool for its batches (no checkout,
        # no pre-ping round trips per batch), given back and taken anew after any failure.
        self._postgres = engine.dialect.name == "postgresql"
        self._conn: AsyncConnection | None = None
        self.max_batch = max_batch
        self.max_pending = max_pending
        self.commit_timeout_s = commit_timeout_s
        self._queue: deque[_Pending] = deque()
        self._ops: deque[_Op] = deque()  # write() calls waiting for the writer's thread
        self._clock: Clock = clock or SystemClock()
        self._wakeup = asyncio.Event()
        # Observable states, for tests (they synchronise on these, never on time) and shutdown.
        self.committing = asyncio.Event()  # set while a commit is in flight
        self.idle = asyncio.Event()  # set while nothing is queued or being committed
        self.idle.set()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._busy_since: float | None = None  # the clock's time the commit in flight started
        self._inflight: list[_Pending] = []  # the batch being committed
        # Appends settle in the order they were queued (FIFO batches): the number of the last one
        # appended and of the last one settled say what is still open. Per match, the number of
        # its latest append not settled yet; the readers waiting in settled(), by the number each
        # waits for.
        self._appended = 0
        self._done = 0
        self._latest: dict[str, int] = {}
        self._settle_waiters: list[tuple[int, asyncio.Future[None]]] = []
        # One timer answers the callers whose commit_timeout passed (armed at the oldest deadline).
        self._timer: Cancellable | None = None
        # The next step each match's log expects, as of this writer's last commit (it is the only
        # writer of steps): saves a query per commit. Forgotten on any failed commit; bounded.
        self._next_step: dict[str, int] = {}
        # Cluster mode: the fencing token this node holds, per match it owns (docs/scaling.md).
        # A batch with such matches locks their rows and checks the tokens before inserting.
        self.fences: dict[str, int] = {}
        self.stats = WriterStats()

    def acquired(self, match_id: str, fence: int) -> None:
        """This node now owns ``match_id`` with ``fence``; another node may have written its log
        since this writer last did, so its next step is asked again."""
        self.fences[match_id] = fence
        self._next_step.pop(match_id, None)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def stalled_for(self) -> float:
        """Seconds the commit in flight has been running (0 when idle)."""
        return 0.0 if self._busy_since is None else self._clock.now() - self._busy_since

    async def append(self, record: StepRecord) -> None:
        """Store ``record``; returns once it is committed (or was already stored identically).

        The caller waits at most ``commit_timeout_s`` (then :class:`StoreUnavailableError`); a caller
        that gives up (cancelled, timed out) leaves its step queued: it may still commit, and
        :meth:`settled` waits for that outcome. Per append: one future, no task, no timer of its
        own (one timer of the writer's answers every caller whose deadline passed)."""
        if self._closed:
            raise StoreUnavailableError("the store is closed")
        stalled = self.stalled_for()
        if stalled > self.commit_timeout_s:
            raise StoreUnavailableError(f"database stalled: a commit has been running for {stalled:.1f}s")
        if len(self._queue) >= self.max_pending:
            raise StoreBusyError(f"{len(self._queue)} steps are already waiting for the database")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        deadline = self._clock.now() + self.commit_timeout_s
        self._appended += 1
        self._queue.append(_Pending(record, future, deadline, self._appended))
        self._latest[record.match_id] = self._appended
        if self._timer is None:
            self._timer = self._clock.call_at(deadline, self._expire)
        self.idle.clear()
        self._wakeup.set()
        if self._task is None or self._task.done():
            self._ensure_task()
        await future

    async def write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` in a write transaction and return its result once that is committed.

        SQLite: grouped. The writes queued while the writer is busy run together in ONE
        transaction on the writer's thread (each in a savepoint: one that raises is rolled back
        alone and its caller gets the exception), committed before any caller is answered; the
        writer alternates such a group with a batch of steps, so neither waits behind the other.
        Elsewhere (PostgreSQL, an in-memory SQLite): one transaction of its own on the engine."""
        if self._thread is None:
            async with write_connection(self._engine, self._gate) as conn:
                return await conn.run_sync(fn)
        if self._closed:
            raise StoreUnavailableError("the store is closed")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._ops.append(_Op(fn, future))
        self.idle.clear()
        self._wakeup.set()
        if self._task is None or self._task.done():
            self._ensure_task()
        return await future

    def _expire(self) -> None:
        """The timer: answer every caller whose deadline passed, then wait for the next one."""
        self._timer = None
        now = self._clock.now()
        for p in itertools.chain(self._inflight, self._queue):
            if p.future.done():
                continue
            if p.deadline > now:  # FIFO: every later one is later still
                # (at most 20 wake-ups per timeout: a stalled database's many callers are answered
                # in a few sweeps, each walking the queue once)
                when = max(p.deadline, now + self.commit_timeout_s / 20)
                self._timer = self._clock.call_at(when, self._expire)
                return
            r = p.record
            p.future.set_exception(
                StoreUnavailableError(
                    f"match {r.match_id} step {r.step}: not committed within "
                    f"{self.commit_timeout_s:g}s (it may still be; retrying is safe)"
                )
            )

    def _settled(self, done: Sequence[_Pending]) -> None:
        """``done`` (the oldest appends still open, in order) have their outcome."""
        for p in done:
            if self._latest.get(p.record.match_id) == p.seq:
                del self._latest[p.record.match_id]
        if done:
            self._done = done[-1].seq
        if self._settle_waiters:
            still = []
            for seq, waiter in self._settle_waiters:
                if seq > self._done:
                    still.append((seq, waiter))
                elif not waiter.done():
                    waiter.set_result(None)
            self._settle_waiters = still

    async def settled(self, match_id: str) -> None:
        """Wait until every append of ``match_id`` made so far has its outcome (committed or not).

        Reads go through this barrier so that they see the writes made before them, even the
        ones whose caller stopped waiting (a cancelled or timed-out append may still commit)."""
        seq = self._latest.get(match_id)
        if seq is None or seq <= self._done:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._settle_waiters.append((seq, waiter))
        deadline = self._clock.now() + self.commit_timeout_s
        try:
            await with_deadline(self._clock, asyncio.shield(waiter), deadline, "settling")
        except TimeoutError:
            raise StoreUnavailableError(
                f"match {match_id}: its step(s) still waiting for the database"
            ) from None

    def _ensure_task(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="store-group-commit")

    async def close(self, timeout_s: float = 10.0) -> None:
        """Stop taking appends, commit what is queued (waiting at most ``timeout_s``), stop (the
        writer's thread too, once its transaction in flight is over)."""
        self._closed = True
        self._wakeup.set()
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout_s)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        while self._queue:
            closed = StoreUnavailableError("the store closed before this commit")
            p = self._queue.popleft()
            _settle(p.future, closed)
            self._settled([p])
        while self._ops:
            _settle(self._ops.popleft().future, StoreUnavailableError("the store closed before this write"))
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._thread is not None:
            await self._thread.close()
        await self._drop_connection(invalidate=False)

    async def _run(self) -> None:
        while True:
            if self._ops:
                await self._write_group()
            if not self._queue:
                if self._ops:
                    continue
                self.idle.set()
                if self._closed:
                    return
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            if self.commit_interval_s > 0:
                # at most one commit per interval: a lone step after a quiet spell commits at once,
                # a busy writer lets the next batch fill for what is left of the interval
                loop = asyncio.get_running_loop()
                wait = self._last_commit_at + self.commit_interval_s - loop.time()
                if wait > 0 and not self._closed:
                    await asyncio.sleep(wait)
                self._last_commit_at = loop.time()
            batch = [self._queue.popleft() for _ in range(min(len(self._queue), self.max_batch))]
            self._inflight = batch
            self._busy_since = self._clock.now()
            self.committing.set()
            try:
                outcomes = await self._commit_isolating([p.record for p in batch])
            except asyncio.CancelledError:
                for p in batch:
                    _settle(p.future, StoreUnavailableError("the store closed during this commit"))
                self._settled(batch)
                self.idle.set()
                raise
            finally:
                self._inflight = []
                self._busy_since = None
                self.committing.clear()
            for p, outcome in zip(batch, outcomes, strict=True):
                _settle(p.future, outcome)
            self._settled(batch)

    async def _write_group(self) -> None:
        assert self._thread is not None
        ops = [self._ops.popleft() for _ in range(min(len(self._ops), self.max_batch))]
        self.committing.set()
        try:
            async with self._gate if self._gate is not None else contextlib.nullcontext():
                outcomes = await self._thread.run(_run_writes, [op.fn for op in ops])
        except asyncio.CancelledError:
            for op in ops:
                _settle(op.future, StoreUnavailableError("the store closed during this commit"))
            self.idle.set()
            raise
        except Exception as exc:  # the transaction failed: every write of it
            self.stats.failed_batches += 1
            log.error("a group of %d writes failed: %s", len(ops), describe(exc))
            outcomes = [(None, exc)] * len(ops)
        finally:
            self.committing.clear()
        self.stats.write_groups += 1
        self.stats.writes += len(ops)
        for op, (value, error) in zip(ops, outcomes, strict=True):
            if op.future.done():
                continue
            if error is None:
                op.future.set_result(value)
            else:
                op.future.set_exception(error)

    async def _commit_isolating(self, records: Sequence[StepRecord]) -> list[BaseException | None]:
        """Commit the records; if one of them breaks the batch, commit them one by one."""
        try:
            return await self._commit(records)
        except (StatementError, TypeError, ValueError) as exc:  # StatementError: all DBAPI errors too
            if is_unavailable(exc):
                return self._failed(records, exc)
            self.stats.failed_batches += 1
            if len(records) == 1:
                return [_record_error(records[0], exc)]
            log.warning("a batch of %d steps failed on one record (%s); isolating it", len(records), exc)
            out: list[BaseException | None] = []
            for r in records:
                out.extend(await self._commit_isolating([r]))
            return out
        except (SQLAlchemyError, OSError, TimeoutError) as exc:
            return self._failed(records, exc)
        except Exception as exc:  # a driver error outside SQLAlchemy's tree (never expected)
            log.exception("unexpected error committing %d steps", len(records))
            return self._failed(records, exc)

    def _failed(self, records: Sequence[StepRecord], exc: BaseException) -> list[BaseException | None]:
        self.stats.failed_batches += 1
        log.error("commit of %d steps failed: %s", len(records), describe(exc))
        out: list[BaseException | None] = []
        for _ in records:
            error = StoreUnavailableError(f"database error: {describe(exc)}")
            error.__cause__ = exc
            out.append(error)
        return out

    async def _commit(self, records: Sequence[StepRecord]) -> list[BaseException | None]:
        match_ids = {r.match_id for r in records}
        try:
            outcomes, expected = await self._commit_checked(records, match_ids)
        except BaseException:
            for match_id in match_ids:  # rolled back (or unknown): ask the database next time
                self._next_step.pop(match_id, None)
            raise
        for match_id, nxt in expected.items():
            self._next_step.pop(match_id, None)
            self._next_step[match_id] = nxt  # the most recent last
        while len(self._next_step) > NEXT_STEP_CACHE:
            del self._next_step[next(iter(self._next_step))]
        return outcomes

    async def _commit_checked(
        self, records: Sequence[StepRecord], match_ids: set[str]
    ) -> tuple[list[BaseException | None], dict[str, int]]:
        # A snapshot of what the transaction needs from this writer (it may run on another thread).
        held = {m: self.fences[m] for m in match_ids if m in self.fences}
        known = {m: self._next_step[m] for m in match_ids if m in self._next_step}
        async with self._gate if self._gate is not None else contextlib.nullcontext():
            if self._thread is not None:  # SQLite: one hand-off to the writer's thread
                result = await self._thread.run_raw(commit_batch_raw, records, known, held)
            elif self._postgres:
                result = await self._commit_postgres(records, known, held)
            else:
                async with write_connection(self._engine) as conn:
                    result = await conn.run_sync(commit_batch, records, known, held)
        for match_id in result.stale:
            self._next_step.pop(match_id, None)
        self.stats.record_batch(len(records))
        self.stats.steps_committed += result.inserted
        self.stats.retries_absorbed += result.duplicates
        self.stats.rejected += sum(1 for o in result.outcomes if o is not None)
        return result.outcomes, result.expected

    async def _commit_postgres(
        self, records: Sequence[StepRecord], known: dict[str, int], held: dict[str, int]
    ) -> BatchResult:
        """One batch on the writer's own connection: the common batch as one statement in
        autocommit mode (:func:`server.store.batch.plan_one_statement`), any other in a transaction
        (:func:`server.store.batch.commit_batch`). A kept connection that turns out dead (the
        server restarted since the last batch) is dropped and the batch goes once more, on a fresh
        connection of the pool (checked by its pre-ping) and without the next steps this writer
        remembers: the statement may have committed before the connection broke, and a step
        already stored is then a retry that succeeds."""
        reused = self._conn is not None
        try:
            return await self._commit_on_connection(records, known, held)
        except BaseException as exc:
            lost = isinstance(exc, Exception) and _connection_lost(exc)
            await self._drop_connection(invalidate=lost)
            if reused and lost:
                log.warning("the writer's connection was lost (%s); committing on a new one", describe(exc))
                try:
                    return await self._commit_on_connection(records, {}, held)
                except BaseException as again:
                    await self._drop_connection(
                        invalidate=isinstance(again, Exception) and _connection_lost(again)
                    )
                    raise
            raise

    async def _commit_on_connection(
        self, records: Sequence[StepRecord], known: dict[str, int], held: dict[str, int]
    ) -> BatchResult:
        if self._conn is None:
            self._conn = await self._engine.connect()
            await self._conn.exec_driver_sql(_SET_WRITER)
            await self._conn.commit()
        conn = self._conn
        plan = plan_one_statement(records, known, held)
        if plan is not None:
            driver = (await conn.get_raw_connection()).driver_connection
            assert driver is not None
            try:
                rows = await driver.fetch(plan.sql, *plan.args)
            except Exception as exc:
                if _connection_lost(exc):
                    raise
                # a constraint or a value the statement could not take (nothing was stored: one
                # statement is atomic): the transaction path sorts it out, record by record
                log.info("a one-statement batch failed (%s); committing it in a transaction", describe(exc))
            else:
                self.stats.one_statement += 1
                return plan.result(rows)
        async with conn.begin():
            return await conn.run_sync(commit_batch, records, known, held)

    async def _drop_connection(self, *, invalidate: bool) -> None:
        """Give the writer's connection back to the pool (rolled back), or discard it (broken)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if not invalidate:  # back to the pool as it was lent (a connection that cannot: discarded)
            try:
                await conn.rollback()
                await conn.exec_driver_sql(_RESET_WRITER)
                await conn.commit()
            except Exception:
                invalidate = True
        with contextlib.suppress(Exception):
            if invalidate:
                await conn.invalidate()
            await conn.close()


def _connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the connection to the database broke (not that a statement failed)."""
    if isinstance(exc, StatementError):
        return is_unavailable(exc)
    if isinstance(exc, OSError | ConnectionError | TimeoutError):
        return True
    # asyncpg's own (the one-statement path runs on the driver's connection): its connection errors
    # and its interface errors (the connection is closed, or in a state it cannot be used in)
    import asyncpg  # type: ignore[import-untyped]

    return isinstance(exc, asyncpg.PostgresConnectionError | asyncpg.InterfaceError)


async def apply_hand_ops(conn: AsyncConnection, match_id: str, ops: Sequence[HandOp]) -> None:
    """Apply one match's projection ops inside a savepoint of ``conn``'s transaction (a projection
    problem is logged, never fatal: see :func:`server.store.batch.apply_hand_ops_sync`)."""
    await conn.run_sync(apply_hand_ops_sync, match_id, ops)


def _record_error(r: StepRecord, exc: BaseException) -> BaseException:
    if isinstance(exc, IntegrityError):
        reason = f"rejected by the database: {exc.orig}"
        error: RepositoryError = StepConflictError(r.match_id, r.step, reason)
    else:
        error = InvalidRecordError(f"match {r.match_id} step {r.step} cannot be stored: {describe(exc)}")
    error.__cause__ = exc
    return error


def _run_writes(
    conn: Connection, fns: Sequence[Callable[[Connection], Any]]
) -> list[tuple[Any, BaseException | None]]:
    """The grouped writes, each in a savepoint of the transaction open on ``conn``: a write that
    raises is rolled back alone (its exception is its outcome); the database failing (locked,
    full, I/O) fails the whole transaction."""
    out: list[tuple[Any, BaseException | None]] = []
    for fn in fns:
        savepoint = conn.begin_nested()
        try:
            value = fn(conn)
        except Exception as exc:
            if isinstance(exc, SQLAlchemyError) and is_unavailable(exc):
                raise  # SQLite may have rolled the whole transaction back already (disk full)
            savepoint.rollback()
            out.append((None, exc))
            continue
        savepoint.commit()
        out.append((value, None))
    return out


def _settle(future: asyncio.Future[Any], outcome: BaseException | None) -> None:
    if future.done():  # its caller gave up (cancelled) or was answered by the timer
        return
    if outcome is None:
        future.set_result(None)
    else:
        future.set_exception(outcome)
