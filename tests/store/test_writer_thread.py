"""The step writer's own thread on SQLite (server/store/sqlite_writer.py): one transaction, handed
off once, per group commit; the order of every log kept; a failed commit fails exactly its batch's
callers with the typed error and leaves whole batches only; close() ends the thread; a restarted
process reads back everything that was acknowledged."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import insert, text
from sqlalchemy.engine import Connection

from server.domain.errors import UnavailableError
from server.domain.records import StepRecord
from server.store.batch import step_row
from server.store.db import sqlite_path, sqlite_url
from server.store.errors import InvalidRecordError, StoreUnavailableError
from server.store.models import StepRow
from server.store.repository import SqlRepository
from server.store.sqlite_writer import WriterThread
from tests.store.conftest import Database
from tests.store.test_conformance import match, step

THREAD_PREFIX = "jantaku-sqlite-writer"


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Database:
    return Database("sqlite", sqlite_url(tmp_path / "data" / "jantaku.sqlite3"))


def writer_thread(repo: SqlRepository) -> WriterThread:
    thread = repo.writer._thread
    assert thread is not None, "SQLite steps go through the writer's thread"
    return thread


async def _create(repo: SqlRepository, n: int) -> list[str]:
    ids = [f"t-{i:03d}" for i in range(n)]
    for m in ids:
        await repo.create_match(match(m))
    return ids


def big_step(match_id: str, k: int) -> StepRecord:
    """A step whose events fill several database pages."""
    events = ({"type": "tile_discarded", "seat": k % 4, "tile": "1m", "pad": "x" * 20_000},)
    return StepRecord(match_id, k, k % 4, {"type": "discard", "tile": "1m"}, events, k, 1_700_000_000.0 + k)


@pytest.mark.asyncio
async def test_one_thread_transaction_per_batch_and_every_log_in_order(sqlite_db: Database) -> None:
    repo = await sqlite_db.open(max_batch=7)
    try:
        ids = await _create(repo, 12)
        per_table = 15
        thread = writer_thread(repo)
        before = thread.transactions

        async def table(m: str) -> None:
            for k in range(per_table):
                await repo.append_step(step(m, k))

        await asyncio.gather(*(table(m) for m in ids))
        stats = repo.writer.stats
        assert stats.steps_committed == len(ids) * per_table
        assert stats.largest_batch <= 7  # the cap holds
        assert stats.batches < len(ids) * per_table  # and steps were grouped
        # Exactly one transaction (one hand-off to the thread) per batch.
        assert thread.transactions - before == stats.batches
        assert thread.connections == 1
        for m in ids:
            assert [s.step for s in await repo.steps(m)] == list(range(per_table))
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_a_full_disk_fails_its_batch_with_the_typed_error_and_keeps_whole_batches(
    sqlite_db: Database,
) -> None:
    repo = await sqlite_db.open()
    try:
        ids = await _create(repo, 4)
        for m in ids:
            await repo.append_step(big_step(m, 0))
        thread = writer_thread(repo)

        def cap_the_file(conn: Connection) -> None:  # SQLITE_FULL on the next page the file needs
            pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
            conn.exec_driver_sql(f"PRAGMA max_page_count={int(pages)}")

        await thread.run(cap_the_file)
        results = await asyncio.gather(
            *(repo.append_step(big_step(m, k)) for m in ids for k in (1, 2)), return_exceptions=True
        )
        assert results and all(isinstance(r, StoreUnavailableError) for r in results), results
        assert all(isinstance(r, UnavailableError) for r in results)  # what the hub catches
        assert "full" in str(results[0])
        # Nothing of the failed batches was stored; the file is sound.
        assert [await repo.step_count(m) for m in ids] == [1, 1, 1, 1]
        path = sqlite_path(sqlite_db.url)
        assert path is not None
        with sqlite3.connect(path) as check:
            assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        # The thread dropped that connection (the cap was on it): the same appends now succeed.
        for m in ids:
            await repo.append_step(big_step(m, 1))
        assert [await repo.step_count(m) for m in ids] == [2, 2, 2, 2]
        assert thread.connections == 2
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_a_bad_record_fails_alone_and_the_connection_stays(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    try:
        ids = await _create(repo, 6)
        bad = replace(step(ids[2], 0), events=({"type": "x", "value": object()},))
        results = await asyncio.gather(
            *(repo.append_step(bad if m == ids[2] else step(m, 0)) for m in ids), return_exceptions=True
        )
        assert isinstance(results[2], InvalidRecordError), results
        assert [r for i, r in enumerate(results) if i != 2] == [None] * 5
        assert [await repo.step_count(m) for m in ids] == [1, 1, 0, 1, 1, 1]
        assert writer_thread(repo).connections == 1  # a bad record is not a broken connection
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_close_waits_for_the_commit_in_flight_and_ends_the_thread(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    ids = await _create(repo, 10)
    tasks = [asyncio.create_task(repo.append_step(step(m, 0))) for m in ids]
    await repo.writer.committing.wait()
    thread = writer_thread(repo)
    await repo.close()
    assert await asyncio.gather(*tasks) == [None] * 10
    assert not [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX) and t.is_alive()]
    with pytest.raises(StoreUnavailableError, match="closed"):
        await repo.append_step(step(ids[0], 1))
    with pytest.raises(RuntimeError, match="closed"):
        await thread.run(lambda conn: None)


@pytest.mark.asyncio
async def test_a_restarted_process_reads_every_acknowledged_step(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    ids = await _create(repo, 5)
    acknowledged: dict[str, int] = {}

    async def table(m: str) -> None:
        for k in range(9):
            await repo.append_step(step(m, k))
            acknowledged[m] = k + 1

    await asyncio.gather(*(table(m) for m in ids))
    # No close(): the process "dies" with its connections open; another one opens the file.
    restarted = await sqlite_db.open()
    try:
        for m in ids:
            stored = await restarted.steps(m)
            assert [s.step for s in stored] == list(range(acknowledged[m]))
        await restarted.append_step(step(ids[0], 9))  # and carries on where the log ends
        assert await restarted.step_count(ids[0]) == 10
    finally:
        await restarted.close()
        await repo.close()


@pytest.mark.asyncio
async def test_an_in_memory_sqlite_keeps_the_steps_on_its_own_engine(tmp_path: Path) -> None:
    """Another connection would not see an in-memory database: no thread there."""
    from server.store.db import create_engine
    from server.store.migrate import upgrade

    engine = create_engine("sqlite+aiosqlite://")
    await upgrade(engine)
    repo = SqlRepository(engine, own_engine=True)
    try:
        assert repo.writer._thread is None
        await repo.create_match(match("mem"))
        await repo.append_step(step("mem", 0))
        assert await repo.step_count("mem") == 1
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_sqlite_rows_are_stored_as_the_typed_columns_store_them(sqlite_db: Database) -> None:
    """The writer encodes SQLite's step rows itself (msgspec JSON, DATETIME text): the same text for
    timestamps and the same JSON values as SQLAlchemy's typed insert, read back identically."""
    repo = await sqlite_db.open()
    try:
        await _create(repo, 2)
        for k, at in enumerate((1_700_000_000.0, 1_700_000_000.000012, 1_700_000_000.5)):
            action = {"type": "discard", "tile": "5mr"}
            events = ({"type": "é", "n": (1, 2)},)
            ours = StepRecord("t-000", k, k % 4, action, events, 7, at, banks=(1, 2))
            await repo.append_step(ours)
            async with repo.engine.begin() as conn:  # the typed path, for comparison
                await conn.execute(insert(StepRow), [step_row(replace(ours, match_id="t-001"))])
        query = text("SELECT match_id, applied_at, action, events, banks FROM steps ORDER BY step")
        async with repo.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        mine = [r for r in rows if r.match_id == "t-000"]
        typed = [r for r in rows if r.match_id == "t-001"]
        assert [r.applied_at for r in mine] == [r.applied_at for r in typed]
        for column in ("action", "events", "banks"):
            assert [json.loads(getattr(r, column)) for r in mine] == [
                json.loads(getattr(r, column)) for r in typed
            ]
        read_mine, read_typed = await repo.steps("t-000"), await repo.steps("t-001")
        assert [replace(s, match_id="") for s in read_mine] == [replace(s, match_id="") for s in read_typed]
    finally:
        await repo.close()
