"""PostgreSQL: the group commit's common batch goes as one statement on the writer's own connection
(server/store/batch.py, ``plan_one_statement``), with the same outcomes as the transaction path: the
fencing token checked under the row lock, retries absorbed, conflicts refused; and a writer whose
kept connection died commits its next batch on a new one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy import text

from server.domain.errors import FencedError
from server.store.errors import StepConflictError
from server.store.repository import SqlRepository
from tests.store.conftest import Database, fresh_database
from tests.store.test_conformance import match, step


@pytest_asyncio.fixture
async def pg(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    async with fresh_database("postgresql", request, tmp_path) as db:
        yield db


async def node(db: Database, owner: str) -> SqlRepository:
    return await SqlRepository.open(db.url, search_path=db.search_path, owner=owner)


@pytest.mark.asyncio
async def test_a_batch_of_known_matches_is_one_statement_and_still_fenced(pg: Database) -> None:
    node_a, node_b = await node(pg, "node-a"), await node(pg, "node-b")
    try:
        ids = ("m-1", "m-2", "m-3")
        for m in ids:
            await node_a.create_match(match(m))
            await node_a.append_step(step(m, 0))  # the writer learns each match's next step
        before = node_a.writer.stats.one_statement
        await asyncio.gather(*(node_a.append_step(step(m, 1)) for m in ids))
        assert node_a.writer.stats.one_statement > before
        # node b takes m-2 over: node a's next batch is refused for m-2 only, under the row lock
        assert await node_b.acquire_match("m-2") == 2
        before = node_a.writer.stats.one_statement
        outcomes = await asyncio.gather(
            *(node_a.append_step(step(m, 2)) for m in ids), return_exceptions=True
        )
        assert node_a.writer.stats.one_statement > before
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], FencedError) and (outcomes[1].fence, outcomes[1].current) == (1, 2)
        assert [await node_a.step_count(m) for m in ids] == [3, 2, 3]
        # the new owner goes on from the log as it was; node a's retries stay refused
        await node_b.append_step(step("m-2", 2))
        with pytest.raises(FencedError):
            await node_a.append_step(step("m-2", 3))
        # a retry of a stored step succeeds and a different step there is refused, as before
        await node_a.append_step(step("m-1", 2))
        with pytest.raises(StepConflictError):
            await node_a.append_step(step("m-1", 2, tile="9p"))
        assert await node_a.step_count("m-1") == 3
    finally:
        await node_a.close()
        await node_b.close()


@pytest.mark.asyncio
async def test_a_writer_whose_connection_died_commits_on_a_new_one(
    pg: Database, caplog: pytest.LogCaptureFixture
) -> None:
    repo = await node(pg, "node-a")
    admin = pg.engine()
    try:
        await repo.create_match(match("m-1"))
        await repo.append_step(step("m-1", 0))
        await repo.append_step(step("m-1", 1))
        # the database ends the writer's connection between two batches (a restart, an admin)
        kept = repo.writer._conn  # the connection the writer keeps between batches
        assert kept is not None
        driver = (await kept.get_raw_connection()).driver_connection
        assert driver is not None
        async with admin.begin() as conn:
            ended = await conn.execute(
                text("SELECT pg_terminate_backend(:p)"), {"p": driver.get_server_pid()}
            )
            assert ended.scalar_one() is True
        await repo.append_step(step("m-1", 2))  # no error: committed on a new connection
        assert "the writer's connection was lost" in caplog.text
        await repo.append_step(step("m-1", 3))
        assert await repo.step_count("m-1") == 4
    finally:
        await repo.close()
        await admin.dispose()


@pytest.mark.asyncio
async def test_the_writer_plans_its_statement_once_and_gives_its_connection_back_as_it_was(
    pg: Database,
) -> None:
    # PostgreSQL re-plans a prepared statement with array parameters for every batch unless told
    # otherwise (about a third of its CPU per commit): the writer's own connection uses one plan,
    # and that plan, made while the database was new and ``matches`` tiny, is not a scan of every
    # match (which it would stay, batch after batch, as the table grows, until an analyse)
    repo = await node(pg, "node-a")
    try:
        await repo.create_match(match("m-0"))
        for k in range(3):
            await repo.append_step(step("m-0", k))  # the first batches plan the statement
        for i in range(1, 40):
            await repo.create_match(match(f"m-{i}"))
            await repo.append_step(step(f"m-{i}", 0))
        kept = repo.writer._conn
        assert kept is not None
        driver = (await kept.get_raw_connection()).driver_connection
        assert driver is not None

        async def scans_of_matches() -> int:
            await driver.execute("SELECT pg_stat_force_next_flush()")  # this backend's counts
            await driver.execute("SELECT pg_stat_clear_snapshot()")
            sql = "SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'matches'::regclass"
            return int(await driver.fetchval(sql))

        before, batches = await scans_of_matches(), repo.writer.stats.one_statement
        for k in range(1, 4):
            await asyncio.gather(*(repo.append_step(step(f"m-{i}", k)) for i in range(1, 40)))
        assert repo.writer.stats.one_statement >= batches + 3
        assert await scans_of_matches() == before
        plans = await driver.fetch(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE '%WITH f AS MATERIALIZED%' AND statement NOT LIKE '%pg_prepared%'"
        )
        assert len(plans) == 1
        assert plans[0]["custom_plans"] == 0 and plans[0]["generic_plans"] >= 5
        # given back to the pool (after a failed batch, or at close) with the server's defaults
        await repo.writer._drop_connection(invalidate=False)
        assert await driver.fetchval("SHOW plan_cache_mode") == "auto"
        assert await driver.fetchval("SHOW enable_seqscan") == "on"
        await repo.append_step(step("m-1", 4))  # on a connection taken anew
        assert repo.writer._conn is not None
    finally:
        await repo.close()
