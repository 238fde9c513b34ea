"""The SQLite writer's lean paths (server/store/sqlite_batch.py, server/store/writer.py): the step
batches on the sqlite3 connection with prepared SQL keep the projection's rules; the append's
single timer answers each caller once, at its deadline; the settling barrier waits for the
appends made before it; the lobby's writes (accounts, sessions, matches) are grouped on the
writer's thread, each alone in its failure, and durable before they are acknowledged."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from server.domain.clock import ManualClock
from server.domain.errors import ConflictError
from server.domain.records import Account, AccountKind, MatchStatus, SessionRecord
from server.store.db import sqlite_path, sqlite_url
from server.store.errors import StoreUnavailableError
from server.store.repository import SqlRepository
from server.store.sqlite_writer import WriterThread
from tests.store.conftest import Database
from tests.store.games import match_record, played
from tests.store.test_conformance import match, step
from tests.store.test_group_commit import write_lock

T0 = 1_700_000_000.0


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Database:
    return Database("sqlite", sqlite_url(tmp_path / "data" / "jantaku.sqlite3"))


def writer_thread(repo: SqlRepository) -> WriterThread:
    thread = repo.writer._thread
    assert thread is not None
    return thread


def guest(i: int) -> Account:
    return Account(
        id=f"g-{i:04d}", name=f"guest{i}", kind=AccountKind.GUEST, scopes=frozenset(), created_at=T0
    )


def session(i: int) -> SessionRecord:
    return SessionRecord(
        id=f"s-{i:04d}", token_hash=f"{i:064x}", account_id=f"g-{i:04d}", created_at=T0, expires_at=T0 + 3600
    )


@pytest.mark.asyncio
async def test_a_projection_problem_is_logged_and_the_steps_are_stored(
    sqlite_db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """A hand row already there (the projection cannot insert its own): the steps of the batch are
    stored all the same and the other match's projection of the same batch is applied."""
    repo = await sqlite_db.open()
    try:
        records, events = played()
        for m in ("m-a", "m-b"):
            await repo.create_match(match_record(m, events))
        deal = records[0]
        path = sqlite_path(sqlite_db.url)
        assert path is not None
        with sqlite3.connect(path) as other:  # squat m-a's first hand row
            other.execute(
                "INSERT INTO hand_results (match_id, hand_index, round_wind, kyoku, honba, riichi_sticks,"
                " dealer, scores_before, wall_commitment, start_step, wins) VALUES"
                " ('m-a', 0, 0, 0, 0, 0, 0, '[]', ?, 99, '[]')",
                ("c" * 64,),
            )
        caplog.set_level(logging.WARNING, logger="server.store.writer")
        await asyncio.gather(
            repo.append_step(replace(deal, match_id="m-a")), repo.append_step(replace(deal, match_id="m-b"))
        )
        assert [await repo.step_count(m) for m in ("m-a", "m-b")] == [1, 1]
        assert "m-a: hand results not projected" in caplog.text
        assert [h.start_step for h in await repo.hand_results("m-a")] == [99]  # the squatter, untouched
        assert [h.start_step for h in await repo.hand_results("m-b")] == [0]
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_each_caller_past_its_deadline_is_answered_and_later_ones_keep_theirs(
    sqlite_db: Database,
) -> None:
    clock = ManualClock()
    repo = await sqlite_db.open(commit_timeout_s=1.0, clock=clock)
    try:
        ids = [f"t-{i}" for i in range(3)]
        for m in ids:
            await repo.create_match(match(m))
        async with write_lock(sqlite_db):
            first = asyncio.create_task(repo.append_step(step(ids[0], 0)))
            await repo.writer.committing.wait()
            clock.advance(0.6)
            second = asyncio.create_task(repo.append_step(step(ids[1], 0)))  # queued behind
            await asyncio.sleep(0)
            clock.advance(0.5)  # past the first's deadline only
            with pytest.raises(StoreUnavailableError, match="not committed within"):
                await first
            assert not second.done()
            clock.advance(0.5)  # past the second's
            with pytest.raises(StoreUnavailableError, match="not committed within"):
                await second
        # Both may still land: the reads wait for their outcome.
        assert [await repo.step_count(m) for m in ids] == [1, 1, 0]
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_settling_waits_for_the_matchs_own_appends_only(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    try:
        for m in ("t-stuck", "t-free"):
            await repo.create_match(match(m))
        async with write_lock(sqlite_db):
            stuck = asyncio.create_task(repo.append_step(step("t-stuck", 0)))
            await repo.writer.committing.wait()
            # Nothing of t-free is open: its read does not wait for t-stuck's commit.
            assert await repo.step_count("t-free") == 0
            reading = asyncio.create_task(repo.step_count("t-stuck"))
            await asyncio.sleep(0.05)
            assert not reading.done()  # it waits for the append made before it
        await stuck
        assert await reading == 1
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_the_lobbys_writes_are_grouped_and_durable_when_acknowledged(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    n = 40

    async def seat(i: int) -> None:
        await repo.create_account(guest(i))
        await repo.create_session(session(i))

    await asyncio.gather(
        *(seat(i) for i in range(n)), *(repo.create_match(match(f"t-{i}")) for i in range(10))
    )
    stats = repo.writer.stats
    assert stats.writes == 2 * n + 10
    assert stats.write_groups < stats.writes / 4  # grouped, not one transaction each
    assert writer_thread(repo).transactions == stats.write_groups
    # No close(): the process "dies"; another one reads every acknowledged row.
    restarted = await sqlite_db.open()
    try:
        for i in range(n):
            assert await restarted.account_by_id(f"g-{i:04d}") == guest(i)
            assert await restarted.session_by_id(f"s-{i:04d}") == session(i)
        assert all([await restarted.get_match(f"t-{i}") for i in range(10)])
    finally:
        await restarted.close()
        await repo.close()


@pytest.mark.asyncio
async def test_a_refused_write_fails_alone_in_its_group(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    try:
        await repo.create_account(guest(0))
        results = await asyncio.gather(
            *(repo.create_account(guest(i)) for i in range(5)),  # g-0000 exists
            repo.create_match(match("t-0")),
            repo.create_match(match("t-0")),  # the same match twice in one group
            return_exceptions=True,
        )
        assert isinstance(results[0], ConflictError)
        assert results[1:5] == [None] * 4
        assert sorted(map(type, results[5:]), key=str) == sorted([type(None), ConflictError], key=str)
        assert [await repo.account_by_id(f"g-{i:04d}") for i in range(5)] == [guest(i) for i in range(5)]
        await repo.append_step(step("t-0", 0))  # the match stored once
        await repo.finish_match("t-0", MatchStatus.COMPLETED, T0 + 60, "ab" * 16)
        stored = await repo.get_match("t-0")
        assert stored is not None and stored.status is MatchStatus.COMPLETED
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_a_full_disk_fails_the_whole_group_then_the_writes_succeed(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    try:
        await repo.create_account(guest(0))
        thread = writer_thread(repo)

        def cap_the_file(conn: Connection) -> None:  # SQLITE_FULL on the next page the file needs
            pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
            conn.exec_driver_sql(f"PRAGMA max_page_count={int(pages)}")

        await thread.run(cap_the_file)
        big = [replace(guest(i), name="x" * 30 + str(i), token_hash=f"{i:064x}") for i in range(1, 400)]
        results = await asyncio.gather(*(repo.create_account(a) for a in big), return_exceptions=True)
        assert results and all(isinstance(r, OperationalError) for r in results), results[:3]
        assert "full" in str(results[0])
        assert await repo.account_by_id(big[0].id) is None
        # The thread dropped that connection: the same writes now succeed.
        await asyncio.gather(*(repo.create_account(a) for a in big))
        assert await repo.account_by_id(big[-1].id) == big[-1]
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_close_commits_the_queued_writes_and_refuses_later_ones(sqlite_db: Database) -> None:
    repo = await sqlite_db.open()
    async with write_lock(sqlite_db):
        first = asyncio.create_task(repo.create_account(guest(0)))
        await repo.writer.committing.wait()  # its group waits for the lock
        queued = asyncio.create_task(repo.create_account(guest(1)))
        await asyncio.sleep(0)
        closing = asyncio.create_task(repo.close())
        await asyncio.sleep(0.05)
        assert not closing.done()  # it waits for them
    await closing
    await asyncio.gather(first, queued)  # both committed before close() returned
    with pytest.raises(StoreUnavailableError, match="closed"):
        await repo.create_account(guest(2))
    reopened = await sqlite_db.open()
    try:
        assert [await reopened.account_by_id(f"g-{i:04d}") for i in range(3)] == [guest(0), guest(1), None]
    finally:
        await reopened.close()


@pytest.mark.asyncio
async def test_a_group_runs_its_writes_in_the_order_they_were_made(sqlite_db: Database) -> None:
    """A session queued right behind its account (not awaited in between) lands in the same group
    after it: the foreign key holds, both are stored."""
    repo = await sqlite_db.open()
    try:
        async with write_lock(sqlite_db):
            first = asyncio.create_task(repo.create_account(guest(0)))
            await repo.writer.committing.wait()  # the writer is busy: what follows queues
            pairs = [(repo.create_account(guest(i)), repo.create_session(session(i))) for i in range(1, 6)]
            tasks = [asyncio.create_task(w) for pair in pairs for w in pair]
            await asyncio.sleep(0)
        await asyncio.gather(first, *tasks)
        assert repo.writer.stats.write_groups == 2  # the lone first write, then the ten together
        assert [await repo.session_by_id(f"s-{i:04d}") for i in range(1, 6)] == [
            session(i) for i in range(1, 6)
        ]
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_groups_are_capped_like_step_batches(sqlite_db: Database) -> None:
    repo = await sqlite_db.open(max_batch=7)
    try:
        async with write_lock(sqlite_db):
            first = asyncio.create_task(repo.create_account(guest(0)))
            await repo.writer.committing.wait()
            rest = [asyncio.create_task(repo.create_account(guest(i))) for i in range(1, 21)]
            await asyncio.sleep(0)
        await asyncio.gather(first, *rest)
        assert repo.writer.stats.writes == 21
        assert repo.writer.stats.write_groups == 1 + 3  # 20 queued behind the first: 7 + 7 + 6
    finally:
        await repo.close()


EDGE_SECONDS = [
    0.0,
    1e-6,
    1.5e-6,
    2.5e-6,
    0.4999995,
    0.9999994999,
    0.9999995,
    0.9999996,
    1.0000005,
    T0 + 0.9999996,
    T0 + 0.0000005,
    T0 + 59.9999999,
    1_767_225_599.9999997,  # the last microsecond of 2025, rounded up into 2026
    253_402_300_799.999,
    -1.25,
]


@pytest.mark.parametrize("seconds", EDGE_SECONDS)
def test_the_stored_time_text_is_the_datetime_one_at_the_edges(seconds: float) -> None:
    from server.store.batch import sqlite_datetime, sqlite_datetime_reference

    assert sqlite_datetime(seconds) == sqlite_datetime_reference(seconds)


def test_the_stored_time_text_is_the_datetime_one() -> None:
    """The fast path (the second's text remembered, the microseconds rounded half to even) gives
    the text SQLAlchemy's DATETIME stores, for times in any order (the remembered second changes)."""
    import random

    from server.store.batch import sqlite_datetime, sqlite_datetime_reference

    rng = random.Random(17)
    times = [rng.uniform(0, 4e9) for _ in range(20_000)]
    times += [T0 + k * 1.3e-7 for k in range(20_000)]  # many per second, across second boundaries
    times += [
        float(rng.randrange(0, 4_000_000_000)) + rng.randrange(0, 1_000_000) / 1e6 for _ in range(20_000)
    ]
    assert [sqlite_datetime(t) for t in times] == [sqlite_datetime_reference(t) for t in times]
