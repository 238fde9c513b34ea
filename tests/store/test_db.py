"""Engines: where the database is, and SQLite's pragmas, set on every connection and verified."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from server.store.db import (
    SQLITE_FILENAME,
    create_engine,
    normalize_url,
    resolve_url,
    sqlite_pragmas,
    sqlite_url,
    verify_engine,
    write_connection,
)
from server.store.errors import StoreConfigError
from server.store.migrate import prepare_database, require_current_schema
from tests.store.conftest import Database


def test_default_is_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    url = resolve_url(data_dir=tmp_path / "d", environ={})
    assert url == f"sqlite+aiosqlite:///{tmp_path / 'd' / SQLITE_FILENAME}"


def test_url_option_beats_environment_beats_data_dir(tmp_path: Path) -> None:
    env = {"DATABASE_URL": "postgresql://env@db/jantaku"}
    assert resolve_url(data_dir=tmp_path, environ=env) == "postgresql+asyncpg://env@db/jantaku"
    assert (
        resolve_url(data_dir=tmp_path, database_url="postgres://opt:pw@db/x", environ=env)
        == "postgresql+asyncpg://opt:pw@db/x"
    )
    assert resolve_url(data_dir=tmp_path, environ={"DATABASE_URL": ""}).startswith("sqlite+aiosqlite")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("postgresql+asyncpg://u@h:5433/db", "postgresql+asyncpg://u@h:5433/db"),
        ("sqlite:////tmp/x.db", "sqlite+aiosqlite:////tmp/x.db"),
    ],
)
def test_normalize_url(given: str, expected: str) -> None:
    assert normalize_url(given) == expected


@pytest.mark.parametrize(
    "url", ["mysql://u@h/db", "postgresql+psycopg2://u@h/db", "sqlite+pysqlite:///x", "::"]
)
def test_blocking_or_unknown_drivers_are_refused(url: str) -> None:
    with pytest.raises(StoreConfigError):
        normalize_url(url)


def test_a_password_is_not_shown_in_errors() -> None:
    with pytest.raises(StoreConfigError) as info:
        normalize_url("mysql://user:hunter2@h/db")
    assert "hunter2" not in str(info.value)


@pytest.mark.asyncio
async def test_sqlite_pragmas_on_every_connection(tmp_path: Path) -> None:
    engine = create_engine(sqlite_url(tmp_path / "j.sqlite3"), busy_timeout_ms=1234)
    try:
        await verify_engine(engine, busy_timeout_ms=1234)
        # Several connections at once: each one went through the connect hook.
        conns = [await engine.connect() for _ in range(3)]
        try:
            for conn in conns:
                values = [
                    (await conn.exec_driver_sql(f"PRAGMA {p}")).scalar_one()
                    for p in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
                ]
                assert values == ["wal", 2, 1, 1234]
        finally:
            for conn in conns:
                await conn.close()
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_verification_fails_loudly_without_the_pragmas(tmp_path: Path) -> None:
    # An engine made without our hook: rollback journal, no foreign keys.
    plain = create_async_engine(sqlite_url(tmp_path / "plain.sqlite3"))
    try:
        got = await sqlite_pragmas(plain)
        assert got["journal_mode"] == "delete" and got["foreign_keys"] == 0
        with pytest.raises(StoreConfigError, match=r"journal_mode is 'delete'.*foreign_keys is 0"):
            await verify_engine(plain)
    finally:
        await plain.dispose()


@pytest.mark.asyncio
async def test_in_memory_sqlite_is_refused() -> None:
    engine = create_engine("sqlite+aiosqlite://")
    try:
        with pytest.raises(StoreConfigError, match="journal_mode"):
            await verify_engine(engine)
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_foreign_keys_are_enforced(database: Database) -> None:
    repo = await database.open()
    try:
        with pytest.raises(Exception, match=r"(?i)foreign key"):
            async with write_connection(repo.engine) as conn:
                await conn.execute(
                    text("INSERT INTO seats (match_id, seat, name, kind) VALUES ('m-missing', 0, 'x', 'bot')")
                )
    finally:
        await repo.close()


@pytest.mark.asyncio
async def test_sqlite_writers_queue_on_the_lock(tmp_path: Path) -> None:
    """Two write transactions at once: the second waits (BEGIN IMMEDIATE + busy_timeout), no error."""
    url = sqlite_url(tmp_path / "j.sqlite3")
    await prepare_database(url)
    engine = create_engine(url)
    try:

        async def write(n: int) -> None:
            async with write_connection(engine) as conn:
                await conn.execute(
                    text("INSERT INTO audit_log (at, actor, action, detail) VALUES (:at, 'a', 'x', '{}')"),
                    {"at": "2026-01-01 00:00:00.000000"},
                )
                await asyncio.sleep(0.05)  # hold the lock a while

        await asyncio.gather(*(write(n) for n in range(4)))
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("SELECT count(*) FROM audit_log")).scalar_one() == 4
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_prepare_database_on_a_fresh_data_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / "new" / "data"
    url = resolve_url(data_dir=data_dir, environ={})
    await prepare_database(url)
    assert (data_dir / SQLITE_FILENAME).is_file()
    await prepare_database(url)  # again: nothing to do
    engine = create_engine(url)
    try:
        await require_current_schema(engine)
    finally:
        await engine.dispose()


@pytest.mark.asyncio
async def test_an_unmigrated_database_is_refused_without_migrate(tmp_path: Path) -> None:
    from server.store.repository import SqlRepository

    with pytest.raises(StoreConfigError, match="jantaku db upgrade"):
        await SqlRepository.open(sqlite_url(tmp_path / "j.sqlite3"), migrate=False)


@pytest.mark.asyncio
async def test_postgresql_must_make_commits_durable(postgres: str) -> None:
    engine = create_engine(postgres)
    try:
        await verify_engine(engine)  # the test server commits durably
    finally:
        await engine.dispose()
    lax = create_async_engine(postgres, connect_args={"server_settings": {"synchronous_commit": "off"}})
    try:
        with pytest.raises(StoreConfigError, match="synchronous_commit is 'off'"):
            await verify_engine(lax)
    finally:
        await lax.dispose()
