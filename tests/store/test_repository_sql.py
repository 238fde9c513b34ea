"""What the SQL repository offers beyond the hub's Protocol: recovery and review queries, the
admin audit log; and that its data outlives the process (a reopened database has it all)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import text

from server.domain.errors import ConflictError, NotFoundError
from server.domain.reads import AuditEntry
from server.domain.records import AccountKind, MatchStatus, ResultRecord
from server.store.db import write_connection
from server.store.repository import SqlRepository
from tests.store.conftest import Database
from tests.store.test_conformance import T0, account, match, step


@pytest.mark.asyncio
async def test_unfinished_matches_are_found_for_recovery(sql_repo: SqlRepository) -> None:
    for i in range(4):
        await sql_repo.create_match(replace(match(f"m-{i}"), created_at=T0 + i))
    await sql_repo.finish_match("m-1", MatchStatus.COMPLETED, T0 + 100, "00")
    await sql_repo.finish_match("m-2", MatchStatus.ABORTED, T0 + 100, None)
    assert [m.id for m in await sql_repo.unfinished_matches()] == ["m-0", "m-3"]


@pytest.mark.asyncio
async def test_list_matches_filters(sql_repo: SqlRepository) -> None:
    await sql_repo.create_account(account("p-1", "alice"))
    await sql_repo.create_match(replace(match("m-a", seated=("p-1", None, None, None)), created_at=T0))
    await sql_repo.create_match(replace(match("m-b"), created_at=T0 + 10, ruleset_hash="f" * 64))
    await sql_repo.create_match(replace(match("m-c", seated=(None, "p-1", None, None)), created_at=T0 + 20))
    await sql_repo.finish_match("m-c", MatchStatus.COMPLETED, T0 + 30, "ab")

    async def ids(**kw: object) -> list[str]:
        return [m.id for m in await sql_repo.list_matches(**kw)]  # type: ignore[arg-type]

    assert await ids() == ["m-c", "m-b", "m-a"]  # newest first
    assert await ids(account_id="p-1") == ["m-c", "m-a"]
    assert await ids(status=MatchStatus.RUNNING) == ["m-b", "m-a"]
    assert await ids(ruleset_hash="f" * 64) == ["m-b"]
    assert await ids(since=T0 + 5, until=T0 + 20) == ["m-b"]
    assert await ids(limit=1, offset=1) == ["m-b"]
    (c,) = await sql_repo.list_matches(status=MatchStatus.COMPLETED)
    assert c.seats[1].account_id == "p-1" and c.seed_hex == "ab"


@pytest.mark.asyncio
async def test_audit_log(sql_repo: SqlRepository) -> None:
    await sql_repo.create_account(account("p-admin", "root"))
    await sql_repo.create_match(match("m-1"))
    first = await sql_repo.record_audit(
        AuditEntry(at=T0, actor="root", actor_id="p-admin", action="game.read", match_id="m-1")
    )
    second = await sql_repo.record_audit(
        AuditEntry(
            at=T0 + 1, actor="cli:ops", action="game.export", match_id="m-1", detail={"format": "mjai"}
        )
    )
    await sql_repo.record_audit(AuditEntry(at=T0 + 2, actor="cli:ops", action="account.revoke"))
    assert second > first
    entries = await sql_repo.audit_entries(match_id="m-1")
    assert [(e.id, e.action, e.detail) for e in entries] == [
        (second, "game.export", {"format": "mjai"}),
        (first, "game.read", {}),
    ]
    assert entries[1].at == T0 and entries[1].actor_id == "p-admin"
    assert len(await sql_repo.audit_entries()) == 3
    assert [e.action for e in await sql_repo.audit_entries(actor_id="p-admin")] == ["game.read"]


@pytest.mark.asyncio
async def test_everything_outlives_the_process(database: Database) -> None:
    repo = await database.open()
    try:
        await repo.create_account(account("b-1", "bot", AccountKind.BOT, token_hash="9" * 64))
        await repo.create_match(match("m-1"))
        for k in range(5):
            await repo.append_step(step("m-1", k))
        await repo.record_result(ResultRecord("m-1", (1, 2, 3, 4), (4, 3, 2, 1), (-1.5, 0.0, 0.5, 1.0)))
    finally:
        await repo.close()
    again = await database.open()
    try:
        assert (await again.account_by_name("bot")) == account("b-1", "bot", AccountKind.BOT, "9" * 64)
        assert [s.step for s in await again.steps("m-1")] == [0, 1, 2, 3, 4]
        await again.append_step(step("m-1", 4))  # a retry across a restart is still recognised
        with pytest.raises(ConflictError):
            await again.append_step(step("m-1", 4, tile="7z"))
        result = await again.get_result("m-1")
        assert result is not None and result.final_points == (-1.5, 0.0, 0.5, 1.0)
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_result_for_an_unknown_match(sql_repo: SqlRepository) -> None:
    with pytest.raises(NotFoundError):
        await sql_repo.record_result(ResultRecord("m-404", (0,), (1,), (0.0,)))


async def _keep_results(repo: SqlRepository) -> None:
    """Make deletes of ``match_results`` do nothing: as if another transaction had stored the rows
    of a result at the same moment (the race this stands for cannot be timed in a test)."""
    async with write_connection(repo.engine) as conn:
        if repo.engine.dialect.name == "sqlite":
            ignore = "BEGIN SELECT RAISE(IGNORE); END"
            await conn.execute(text(f"CREATE TRIGGER keep_results BEFORE DELETE ON match_results {ignore}"))
        else:
            await conn.execute(
                text("CREATE RULE keep_results AS ON DELETE TO match_results DO INSTEAD NOTHING")
            )


@pytest.mark.asyncio
async def test_a_result_stored_twice_is_not_a_missing_match(sql_repo: SqlRepository) -> None:
    """Only a missing match is NotFoundError: the same result again is a retry that already happened,
    a different one a conflict (both were NotFoundError, from any IntegrityError)."""
    await sql_repo.create_match(match("m-1"))
    first = ResultRecord("m-1", (40000, 30000, 20000, 10000), (1, 2, 3, 4), (50.0, 10.0, -20.0, -40.0))
    await sql_repo.record_result(first)
    await _keep_results(sql_repo)
    await sql_repo.record_result(first)
    fixed = ResultRecord("m-1", (39000, 31000, 20000, 10000), (1, 2, 3, 4), (49.0, 11.0, -20.0, -40.0))
    with pytest.raises(ConflictError):
        await sql_repo.record_result(fixed)
    assert await sql_repo.get_result("m-1") == first
    with pytest.raises(NotFoundError):
        await sql_repo.record_result(ResultRecord("m-404", (0,), (1,), (0.0,)))


@pytest.mark.asyncio
async def test_timestamps_keep_microseconds(sql_repo: SqlRepository) -> None:
    await sql_repo.create_account(replace(account("p-1", "alice"), created_at=1_700_000_000.123456))
    got = await sql_repo.account_by_id("p-1")
    assert got is not None and abs(got.created_at - 1_700_000_000.123456) < 1e-6
