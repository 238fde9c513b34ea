"""Cluster mode's fencing token (migration 0007, ``docs/scaling.md``): once another node acquired
a match, the previous owner's appends and its end of the match are refused, so a match can never
fork. Two repositories on one database play the two nodes."""

from __future__ import annotations

import asyncio

import pytest

from server.domain.errors import FencedError, NotFoundError
from server.domain.records import MatchStatus
from server.store.repository import SqlRepository
from tests.store.conftest import Database
from tests.store.test_conformance import T0, match, step


@pytest.mark.asyncio
async def test_a_stale_owner_cannot_append_or_finish(database: Database) -> None:
    node_a = await SqlRepository.open(database.url, search_path=database.search_path, owner="node-a")
    node_b = await SqlRepository.open(database.url, search_path=database.search_path, owner="node-b")
    try:
        await node_a.create_match(match("m-1"))
        await node_a.append_step(step("m-1", 0))
        await node_a.append_step(step("m-1", 1))
        # node b takes the match over (node a is presumed dead): the token moves from 1 to 2
        assert await node_b.acquire_match("m-1") == 2
        with pytest.raises(FencedError) as refused:
            await node_a.append_step(step("m-1", 2))
        assert (refused.value.fence, refused.value.current) == (1, 2)
        with pytest.raises(FencedError):
            await node_a.finish_match("m-1", MatchStatus.ABORTED, T0 + 5, None, "stale")
        # the new owner goes on from the log as it was; the stale append left nothing behind
        assert await node_b.step_count("m-1") == 2
        await node_b.append_step(step("m-1", 2))
        await node_b.finish_match("m-1", MatchStatus.COMPLETED, T0 + 9, "00")
        stored = await node_b.get_match("m-1")
        assert stored is not None and stored.status is MatchStatus.COMPLETED
        # a node that gets the match back later writes again, with the newest token
        assert await node_a.acquire_match("m-1") == 3
    finally:
        await node_a.close()
        await node_b.close()


@pytest.mark.asyncio
async def test_without_an_owner_nothing_is_fenced(sql_repo: SqlRepository) -> None:
    await sql_repo.create_match(match("m-1"))
    await sql_repo.append_step(step("m-1", 0))
    assert sql_repo.writer.fences == {}
    assert await sql_repo.acquire_match("m-1") == 1  # a single process: 0 -> 1, then checked
    await sql_repo.append_step(step("m-1", 1))
    with pytest.raises(NotFoundError):
        await sql_repo.acquire_match("m-none")


@pytest.mark.asyncio
async def test_a_batch_refuses_only_the_fenced_match(database: Database) -> None:
    node_a = await SqlRepository.open(database.url, search_path=database.search_path, owner="node-a")
    node_b = await SqlRepository.open(database.url, search_path=database.search_path, owner="node-b")
    try:
        for m in ("m-1", "m-2"):
            await node_a.create_match(match(m))
            await node_a.append_step(step(m, 0))
        await node_b.acquire_match("m-1")
        outcomes = await asyncio.gather(
            node_a.append_step(step("m-1", 1)), node_a.append_step(step("m-2", 1)), return_exceptions=True
        )
        assert isinstance(outcomes[0], FencedError) and outcomes[1] is None
        assert await node_a.step_count("m-2") == 2
    finally:
        await node_a.close()
        await node_b.close()
