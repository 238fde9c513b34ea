"""Models vs migrations (the ``alembic check`` of CI) and the upgrade/downgrade round trip, on both
databases."""

from __future__ import annotations

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from server.store.db import write_connection
from server.store.migrate import (
    alembic_config,
    check,
    current_revision,
    downgrade,
    head_revision,
    schema_diff,
    upgrade,
)
from server.store.models import Base
from tests.store.conftest import Database

TABLES = {
    "accounts",
    "sessions",
    "matches",
    "match_recovery",
    "seats",
    "steps",
    "hand_results",
    "match_results",
    "audit_log",
    "credentials",
    "standings",
    "rated_matches",
    "rating_changes",
    "events",
    "event_entrants",
    "event_rounds",
    "event_adjustments",
    "event_audit",
    "organizers",
    "social_links",
    "social_mutes",
    "social_prefs",
    "sanctions",
    "lobby_lines",
    "reports",
}


def _tables(conn: Connection) -> set[str]:
    return set(inspect(conn).get_table_names())


def test_one_linear_history() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1
    revisions = list(script.walk_revisions())
    assert revisions[-1].down_revision is None
    for rev in revisions:
        assert not rev.is_merge_point and not rev.is_branch_point


def test_models_declare_every_table() -> None:
    assert set(Base.metadata.tables) == TABLES


@pytest.mark.asyncio
async def test_migrations_build_exactly_the_models(database: Database) -> None:
    engine = database.engine()
    try:
        assert await current_revision(engine) is None
        await upgrade(engine)
        assert await current_revision(engine) == head_revision()
        assert await schema_diff(engine) == []
        assert (await check(engine)).ok
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_drift_is_detected(database: Database) -> None:
    engine = database.engine()
    try:
        await upgrade(engine)
        async with write_connection(engine) as conn:
            await conn.exec_driver_sql("CREATE TABLE stray (id INTEGER PRIMARY KEY)")
            await conn.exec_driver_sql("CREATE INDEX ix_steps_seat ON steps (seat)")
        diff = await schema_diff(engine)
        assert {d[0] for d in diff} == {"remove_table", "remove_index"}
        assert not (await check(engine)).ok
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_upgrade_downgrade_upgrade(database: Database) -> None:
    engine = database.engine()
    try:
        await upgrade(engine)
        async with engine.connect() as conn:
            assert await conn.run_sync(_tables) >= TABLES
        await downgrade(engine, "base")
        assert await current_revision(engine) is None
        async with engine.connect() as conn:
            assert await conn.run_sync(_tables) <= {"alembic_version"}
        await upgrade(engine)
        assert await schema_diff(engine) == []
        # Step by step as well: every revision's downgrade undoes its upgrade.
        script = ScriptDirectory.from_config(alembic_config())
        for _ in list(script.walk_revisions()):
            await downgrade(engine, "-1")
        assert await current_revision(engine) is None
        await upgrade(engine)
        assert await current_revision(engine) == head_revision()
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_seed_is_revealed_only_after_the_end(database: Database) -> None:
    engine = database.engine()
    try:
        await upgrade(engine)
        insert = (
            "INSERT INTO matches (id, ruleset_json, ruleset_hash, seed_commitment, seed_hex, "
            "engine_version, wall_algorithm, status, source, created_at) VALUES "
            "('m-1', '{{}}', 'h', 'c', {seed}, '1', 'w', '{status}', '', '2026-01-01 00:00:00+00:00')"
        )
        with pytest.raises(IntegrityError, match=r"(?i)check"):
            async with write_connection(engine) as conn:
                await conn.exec_driver_sql(insert.format(seed="'00ff'", status="running"))
        async with write_connection(engine) as conn:
            await conn.exec_driver_sql(insert.format(seed="NULL", status="running"))
            await conn.exec_driver_sql("UPDATE matches SET status = 'completed', seed_hex = '00ff'")
        with pytest.raises(IntegrityError, match=r"(?i)check"):
            async with write_connection(engine) as conn:
                await conn.exec_driver_sql("UPDATE matches SET status = 'paused'")
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_the_seat_count_is_counted_from_the_seats_of_existing_matches(database: Database) -> None:
    engine = database.engine()
    try:
        await upgrade(engine, "0010")
        insert = (
            "INSERT INTO matches (id, ruleset_json, ruleset_hash, seed_commitment, engine_version, "
            "wall_algorithm, status, source, created_at) VALUES "
            "('{id}', '{{}}', 'h', 'c', '1', 'w', 'running', '', '2026-01-01 00:00:00+00:00')"
        )
        seat = "INSERT INTO seats (match_id, seat, name, kind) VALUES ('{id}', {seat}, 'p{seat}', 'bot')"
        async with write_connection(engine) as conn:
            for match_id, seats in (("m-four", 4), ("m-three", 3), ("m-none", 0)):
                await conn.exec_driver_sql(insert.format(id=match_id))
                for s in range(seats):
                    await conn.exec_driver_sql(seat.format(id=match_id, seat=s))
        await upgrade(engine)
        async with engine.connect() as conn:
            rows = (await conn.exec_driver_sql("SELECT id, seat_count FROM matches ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [("m-four", 4), ("m-none", 4), ("m-three", 3)]
    finally:
        await engine.dispose()
