"""What crash recovery needs from every Repository (in memory, SQLite, PostgreSQL), and revision
0002 (``match_recovery``, ``matches.status_reason``) applied to a database that has data."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import text

from server.domain.ports import Repository
from server.domain.records import DIVERGED_PREFIX, MatchStatus, RecoveryRecord
from server.store.db import write_connection
from server.store.migrate import downgrade, upgrade
from tests.store.conftest import Database
from tests.store.test_conformance import T0, account, match, step

TABLE = {"timers": {"action_ms": 8000, "bank_ms": 10000}, "spectate": {"allowed": False}}


@pytest.mark.asyncio
async def test_the_recovery_record_is_stored_with_the_match(any_repo: Repository) -> None:
    await any_repo.create_match(match("m-1"), RecoveryRecord("m-1", "ab" * 32, TABLE))
    await any_repo.create_match(match("m-2"))  # without one (a match that cannot be replayed)
    assert await any_repo.recovery_record("m-1") == RecoveryRecord("m-1", "ab" * 32, TABLE)
    assert await any_repo.recovery_record("m-2") is None
    assert await any_repo.recovery_record("m-404") is None
    stored = await any_repo.get_match("m-1")
    assert stored is not None and stored.seed_hex is None  # the match record never carries it
    assert "ab" * 32 not in repr(stored)
    with pytest.raises(ValueError):
        await any_repo.create_match(match("m-3"), RecoveryRecord("m-other", "00", None))
    assert await any_repo.get_match("m-3") is None


@pytest.mark.asyncio
async def test_a_pause_is_kept_with_the_recovery_record_and_forgotten_when_it_ends(
    any_repo: Repository,
) -> None:
    await any_repo.create_match(match("m-1"), RecoveryRecord("m-1", "ab" * 32, TABLE))
    await any_repo.create_match(match("m-2"))  # no recovery record: nothing to keep
    await any_repo.set_paused("m-1", "a dispute")
    await any_repo.set_paused("m-2", "a dispute")
    await any_repo.set_paused("m-404", "a dispute")
    assert await any_repo.recovery_record("m-1") == RecoveryRecord(
        "m-1", "ab" * 32, TABLE | {"paused": "a dispute"}
    )
    assert await any_repo.recovery_record("m-2") is None
    await any_repo.set_paused("m-1", "still")  # a second pause keeps its reason
    assert await any_repo.recovery_record("m-1") == RecoveryRecord(
        "m-1", "ab" * 32, TABLE | {"paused": "still"}
    )
    await any_repo.set_paused("m-1", None)
    await any_repo.set_paused("m-1", None)  # going on twice changes nothing
    assert await any_repo.recovery_record("m-1") == RecoveryRecord("m-1", "ab" * 32, TABLE)


@pytest.mark.asyncio
async def test_unfinished_matches_oldest_first(any_repo: Repository) -> None:
    for i, id_ in enumerate(("m-b", "m-a", "m-c")):
        await any_repo.create_match(dataclasses.replace(match(id_), created_at=T0 + (i if i < 2 else 0)))
    await any_repo.finish_match("m-a", MatchStatus.COMPLETED, T0 + 9, "ff")
    assert [m.id for m in await any_repo.unfinished_matches()] == ["m-b", "m-c"]


@pytest.mark.asyncio
async def test_running_match_ids_all_and_by_player(any_repo: Repository) -> None:
    """Cluster mode's takeover backstop and its per-hello lookup read ids, not match rows."""
    await any_repo.create_account(account("p-1", "alice"))
    await any_repo.create_account(account("p-2", "bob"))
    await any_repo.create_match(
        dataclasses.replace(match("m-1", seated=("p-1", None, None, None)), created_at=T0)
    )
    await any_repo.create_match(
        dataclasses.replace(match("m-2", seated=(None, "p-2", None, None)), created_at=T0 + 1)
    )
    await any_repo.create_match(
        dataclasses.replace(match("m-3", seated=(None, None, "p-1", None)), created_at=T0 + 2)
    )
    await any_repo.create_match(
        dataclasses.replace(match("m-4", seated=("p-1", None, None, None)), created_at=T0 + 3)
    )
    await any_repo.finish_match("m-3", MatchStatus.COMPLETED, T0 + 9, "ff")
    assert list(await any_repo.unfinished_match_ids()) == ["m-1", "m-2", "m-4"]
    assert list(await any_repo.unfinished_matches_of("p-1")) == ["m-1", "m-4"]
    assert list(await any_repo.unfinished_matches_of("p-2")) == ["m-2"]
    assert list(await any_repo.unfinished_matches_of("nobody")) == []


@pytest.mark.asyncio
async def test_a_match_ends_with_a_reason(any_repo: Repository) -> None:
    await any_repo.create_match(match("m-1"))
    await any_repo.create_match(match("m-2"))
    reason = f"{DIVERGED_PREFIX} step 7, event 0 (tile_discarded): stored ... != replayed ..."
    await any_repo.finish_match("m-1", MatchStatus.ABORTED, T0 + 1, None, reason)
    await any_repo.finish_match("m-2", MatchStatus.COMPLETED, T0 + 1, "ff")
    flagged, done = await any_repo.get_match("m-1"), await any_repo.get_match("m-2")
    assert flagged is not None and flagged.status_reason == reason and flagged.diverged
    assert done is not None and done.status_reason is None and not done.diverged


@pytest.mark.asyncio
async def test_revision_0002_keeps_the_data_of_0001(database: Database) -> None:
    """Upgrading a database in use (and downgrading it) changes no row: 0002 only adds."""
    engine = database.engine()
    try:
        await upgrade(engine, "0001")
        async with write_connection(engine) as conn:
            await conn.execute(
                text(
                    "INSERT INTO matches (id, ruleset_json, ruleset_hash, seed_commitment, engine_version, "
                    "wall_algorithm, status, source, created_at) VALUES "
                    "('m-1', '{}', 'h', 'c', '1', 'w', 'running', '', '2026-01-01 00:00:00+00:00')"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO steps (match_id, step, events, applied_at) VALUES "
                    "('m-1', 0, '[]', '2026-01-01 00:00:00+00:00')"
                )
            )
        await upgrade(engine)
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT count(*) FROM steps"))).scalar_one() == 1
            row = (await conn.execute(text("SELECT status, status_reason FROM matches"))).one()
            assert tuple(row) == ("running", None)
        await downgrade(engine, "0001")
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT count(*) FROM steps"))).scalar_one() == 1
            assert (await conn.execute(text("SELECT count(*) FROM matches"))).scalar_one() == 1
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_the_recovery_record_goes_with_its_match(database: Database) -> None:
    repo = await database.open()
    try:
        await repo.create_match(match("m-1"), RecoveryRecord("m-1", "cd" * 32, None))
        await repo.append_step(step("m-1", 0))
        async with write_connection(repo.engine) as conn:
            await conn.execute(text("DELETE FROM matches WHERE id = 'm-1'"))
        assert await repo.recovery_record("m-1") is None
    finally:
        await repo.close()
