"""Group commit: many tables appending at once, batched into few transactions; and what callers
get when the database stalls or fails (a typed error, promptly, with the event loop still running)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

import pytest
from sqlalchemy import insert, text
from sqlalchemy.ext.asyncio import create_async_engine

from server.domain.clock import ManualClock
from server.domain.errors import UnavailableError
from server.domain.records import StepRecord
from server.store.batch import step_row
from server.store.db import sqlite_path
from server.store.errors import (
    InvalidRecordError,
    StepConflictError,
    StoreBusyError,
    StoreUnavailableError,
)
from server.store.migrate import upgrade
from server.store.models import StepRow
from server.store.repository import SqlRepository
from tests.store.conftest import Database
from tests.store.games import for_match, match_record, played
from tests.store.test_conformance import match, step


class LoopWatch:
    """Measures how late a 10 ms sleep wakes up: a blocked event loop shows as a large lag."""

    def __init__(self) -> None:
        self.max_lag = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(0.01)
            self.max_lag = max(self.max_lag, loop.time() - start - 0.01)

    def __enter__(self) -> LoopWatch:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


@contextlib.asynccontextmanager
async def write_lock(db: Database) -> AsyncIterator[Callable[[], object]]:
    """Hold the lock that the step writer needs (another client of the database). Yields a
    function that, on PostgreSQL, returns the SQL to terminate the connections waiting for it."""
    if db.backend == "sqlite":
        path = sqlite_path(db.url)
        assert path is not None
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            yield lambda: None
        finally:
            other.rollback()
            other.close()
        return
    engine = create_async_engine(db.url, connect_args={"server_settings": {"search_path": db.search_path}})
    try:
        async with engine.connect() as conn:
            await conn.execute(text("LOCK TABLE steps IN ACCESS EXCLUSIVE MODE"))
            holder = int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())
            yield lambda: text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                f"WHERE pg_blocking_pids(pid) @> ARRAY[{holder}]"
            )
            await conn.rollback()
    finally:
        await engine.dispose()


async def _create_matches(repo: SqlRepository, n: int) -> list[str]:
    ids = [f"m-{i:03d}" for i in range(n)]
    for m in ids:
        await repo.create_match(match(m))
    return ids


@pytest.mark.asyncio
async def test_many_tables_at_once_are_all_stored_in_few_batches(sql_repo: SqlRepository) -> None:
    records, events = played()
    tables, per_table = 64, 40
    ids = [f"m-{i:03d}" for i in range(tables)]
    for m in ids:
        await sql_repo.create_match(match_record(m, events))

    async def table(m: str) -> None:
        for r in for_match(records[:per_table], m):
            await sql_repo.append_step(r)

    with LoopWatch() as watch:
        await asyncio.gather(*(table(m) for m in ids))
    stats = sql_repo.writer.stats
    assert stats.steps_committed == tables * per_table
    assert stats.batches <= tables * per_table / 8, stats  # grouped, not one commit per step
    assert stats.largest_batch > tables / 2
    # Batching, not speed, is under test here; the watch only catches a loop blocked for seconds
    # (loose, so a loaded CI machine cannot fail it).
    assert watch.max_lag < 2.0
    for m in ids:
        stored = await sql_repo.steps(m)
        assert [s.step for s in stored] == list(range(per_table))
        assert [s.action for s in stored] == [r.action for r in records[:per_table]]


@pytest.mark.asyncio
async def test_batches_are_bounded(database: Database) -> None:
    repo = await database.open(max_batch=5)
    try:
        ids = await _create_matches(repo, 20)
        await asyncio.gather(*(repo.append_step(step(m, 0)) for m in ids))
        assert repo.writer.stats.largest_batch <= 5
        assert repo.writer.stats.steps_committed == 20
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_one_bad_record_fails_alone(sql_repo: SqlRepository) -> None:
    ids = await _create_matches(sql_repo, 12)
    bad = replace(step(ids[5], 0), events=({"type": "x", "value": object()},))
    calls = [sql_repo.append_step(bad if m == ids[5] else step(m, 0)) for m in ids]
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[5], InvalidRecordError)
    assert [r for i, r in enumerate(results) if i != 5] == [None] * 11
    assert [await sql_repo.step_count(m) for m in ids] == [0 if m == ids[5] else 1 for m in ids]
    await sql_repo.append_step(step(ids[5], 0))  # that table goes on


@pytest.mark.asyncio
async def test_same_step_twice_in_one_batch(sql_repo: SqlRepository) -> None:
    (m,) = await _create_matches(sql_repo, 1)
    await sql_repo.append_step(step(m, 0))
    same = await asyncio.gather(
        sql_repo.append_step(step(m, 1)), sql_repo.append_step(step(m, 1)), return_exceptions=True
    )
    assert list(same) == [None, None]
    rivals = await asyncio.gather(
        sql_repo.append_step(step(m, 2, tile="1p")),
        sql_repo.append_step(step(m, 2, tile="2p")),
        return_exceptions=True,
    )
    assert rivals[0] is None and isinstance(rivals[1], StepConflictError)
    assert [s.action["tile"] for s in (await sql_repo.steps(m))[1:]] == ["1m", "1p"]


@pytest.mark.asyncio
async def test_the_writer_remembers_next_steps_and_still_refuses_a_step_stored_behind_its_back(
    database: Database,
) -> None:
    """The writer keeps each match's next step from its own commits instead of asking the database
    every time; a step another client stored meanwhile is still a conflict (the database's unique
    key), never a second copy, and the writer asks the database again afterwards."""
    repo = await database.open()
    try:
        (m,) = await _create_matches(repo, 1)
        for k in range(3):
            await repo.append_step(step(m, k))
        engine = database.engine()
        try:
            async with engine.begin() as conn:  # step 3, written by someone else
                await conn.execute(insert(StepRow).values(step_row(step(m, 3, tile="7p"))))
        finally:
            await engine.dispose()
        with pytest.raises(StepConflictError):
            await repo.append_step(step(m, 3, tile="1s"))
        await repo.append_step(step(m, 4))  # the log goes on from what the database holds
        stored = await repo.steps(m)
        assert [s.step for s in stored] == [0, 1, 2, 3, 4]
        assert stored[3].action["tile"] == "7p"
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_a_cancelled_append_is_settled_before_reads(database: Database) -> None:
    """The hub cancels a slow append, then asks step_count whether it landed: the answer must be
    final (the append may not land after the count was read)."""
    repo = await database.open()
    try:
        (m,) = await _create_matches(repo, 1)
        async with write_lock(database):
            task = asyncio.create_task(repo.append_step(step(m, 0)))
            await repo.writer.committing.wait()  # slow: its commit waits for the lock
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        count = await repo.step_count(m)
        await repo.writer.idle.wait()  # nothing left that could still land
        assert await repo.step_count(m) == count == 1
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_a_stalled_database_answers_unavailable(database: Database) -> None:
    clock = ManualClock()
    repo = await database.open(commit_timeout_s=0.4, clock=clock)
    try:
        ids = await _create_matches(repo, 3)
        # While the database is locked the test goes on running: the writer never blocks the loop.
        async with write_lock(database):
            first = asyncio.create_task(repo.append_step(step(ids[0], 0)))
            await repo.writer.committing.wait()  # its commit waits for the lock ...
            assert not first.done()
            clock.advance(0.5)  # ... past the commit timeout: its caller is answered
            with pytest.raises(StoreUnavailableError, match="not committed within"):
                await first
            # The commit is still stuck: others are told at once, nothing is queued for them.
            with pytest.raises(StoreUnavailableError, match="stalled"):
                await repo.append_step(step(ids[1], 0))
            assert repo.writer.pending == 0
        # The lock is gone: the step that timed out has landed, once.
        assert await repo.step_count(ids[0]) == 1
        await repo.append_step(step(ids[0], 0))  # the hub's retry of the uncertain write
        await repo.append_step(step(ids[1], 0))
        assert [await repo.step_count(m) for m in ids] == [1, 1, 0]
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_too_many_waiting_appends_are_refused_at_once(database: Database) -> None:
    repo = await database.open(commit_timeout_s=3.0, max_pending=3, clock=ManualClock())
    try:
        ids = await _create_matches(repo, 6)
        async with write_lock(database):
            first = asyncio.create_task(repo.append_step(step(ids[0], 0)))
            await repo.writer.committing.wait()  # its batch is now waiting for the lock
            queued = [asyncio.create_task(repo.append_step(step(m, 0))) for m in ids[1:4]]
            # Tasks start in the order they were made: the three above are queued when this runs.
            refused = asyncio.create_task(repo.append_step(step(ids[4], 0)))
            with pytest.raises(StoreBusyError):
                await refused
            assert repo.writer.pending == 3
        await asyncio.gather(first, *queued)
        assert [await repo.step_count(m) for m in ids] == [1, 1, 1, 1, 0, 0]
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_a_failing_database_answers_unavailable_then_recovers(database: Database) -> None:
    engine = database.engine(busy_timeout_ms=200)
    await upgrade(engine)
    repo = SqlRepository(engine, own_engine=True, commit_timeout_s=5.0)
    try:
        ids = await _create_matches(repo, 4)
        async with write_lock(database) as terminate:
            tasks = [asyncio.create_task(repo.append_step(step(m, 0))) for m in ids]
            await repo.writer.committing.wait()  # SQLite: its lock wait times out (200 ms) and fails
            kill = terminate()
            if kill is not None:  # PostgreSQL: the writer's connection dies under it
                async with create_async_engine(database.url).connect() as conn:
                    # Once the writer waits for the lock (until then the query kills nobody).
                    while not any((await conn.execute(kill)).scalars()):  # type: ignore[call-overload]
                        pass
                    await conn.commit()
                await conn.engine.dispose()
            results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(r, StoreUnavailableError) for r in results), results
        assert all(isinstance(r, UnavailableError) for r in results)  # what the hub catches
        assert "database error" in str(results[0])
        assert repo.writer.stats.failed_batches >= 1
        # The database is back: the same appends now succeed.
        for m in ids:
            await repo.append_step(step(m, 0))
        assert [await repo.step_count(m) for m in ids] == [1, 1, 1, 1]
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_close_commits_what_is_queued_then_refuses(database: Database) -> None:
    repo = await database.open()
    ids = await _create_matches(repo, 10)
    tasks = [asyncio.create_task(repo.append_step(step(m, 0))) for m in ids]
    await repo.writer.committing.wait()  # every append is queued, the first batch is committing
    await repo.close()
    assert await asyncio.gather(*tasks) == [None] * 10
    with pytest.raises(StoreUnavailableError, match="closed"):
        await repo.append_step(step(ids[0], 1))
    reopened = await database.open()
    try:
        assert [await reopened.step_count(m) for m in ids] == [1] * 10
    finally:
        await reopened.close()


def test_records_are_plain_values() -> None:
    r = step("m", 1)
    assert isinstance(r, StepRecord) and hash(r.match_id)
