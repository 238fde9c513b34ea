"""Fixtures for the store tests: the same tests on SQLite (always) and PostgreSQL.

PostgreSQL is ``$JANTAKU_TEST_POSTGRES_URL`` (default ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).
When it cannot be reached its tests are skipped, with the reason, except under ``CI=true``, where
they fail: CI must really test PostgreSQL. Every test gets its own schema (``jt_<run>_<n>``, put
first on the connection's ``search_path``), dropped afterwards, so parallel runs never collide.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest
import pytest_asyncio
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from server.domain.clock import Clock
from server.domain.ports import Repository, Store
from server.store.db import create_engine, normalize_url, sqlite_url
from server.store.memory import InMemoryRepository
from server.store.repository import SqlRepository

DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
T = TypeVar("T")
RUN_ID = f"jt_{os.getpid()}_{secrets.token_hex(3)}"
_schema_numbers = itertools.count()


def postgres_url() -> str:
    return normalize_url(os.environ.get("JANTAKU_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL))


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def _in_thread(coro_fn: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine function on a fresh loop in another thread (session fixtures are sync, and
    the test's own event loop must not be touched)."""

    async def main() -> T:
        return await coro_fn()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


async def _probe(url: str) -> str | None:
    engine = create_async_engine(url, connect_args={"timeout": 5})
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        await engine.dispose()


async def _drop_run_schemas(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            names = (
                await conn.execute(
                    text("SELECT nspname FROM pg_namespace WHERE nspname LIKE :p"), {"p": f"{RUN_ID}_%"}
                )
            ).scalars()
            for name in list(names):
                await conn.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
    finally:
        await engine.dispose()


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """The PostgreSQL URL, once it answered (skip, or fail under CI=true, if it does not)."""
    url = postgres_url()
    error = _in_thread(lambda: _probe(url))
    if error is not None:
        reason = f"PostgreSQL at {url} is unreachable ({error})"
        if in_ci():
            pytest.fail(f"{reason}; CI=true requires it (start it: see .ci/run)", pytrace=False)
        pytest.skip(f"{reason}; set JANTAKU_TEST_POSTGRES_URL to test it")
    yield url
    _in_thread(lambda: _drop_run_schemas(url))


@dataclass(frozen=True, slots=True)
class Database:
    """An empty database (no tables) for one test."""

    backend: str  # "sqlite" | "postgresql"
    url: str
    search_path: str | None = None

    def engine(self, *, busy_timeout_ms: int = 5000) -> AsyncEngine:
        return create_engine(self.url, search_path=self.search_path, busy_timeout_ms=busy_timeout_ms)

    async def open(
        self,
        *,
        commit_timeout_s: float = 5.0,
        max_batch: int = 1000,
        max_pending: int = 20_000,
        clock: Clock | None = None,
    ) -> SqlRepository:
        """A repository on this database, migrated to the latest revision."""
        return await SqlRepository.open(
            self.url,
            search_path=self.search_path,
            commit_timeout_s=commit_timeout_s,
            max_batch=max_batch,
            max_pending=max_pending,
            clock=clock,
        )


@asynccontextmanager
async def fresh_database(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Database]:
    if backend == "sqlite":
        yield Database("sqlite", sqlite_url(tmp_path / "data" / "jantaku.sqlite3"))
        return
    url: str = request.getfixturevalue("postgres")
    schema = f"{RUN_ID}_{next(_schema_numbers)}"
    admin = create_async_engine(url)
    try:
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield Database("postgresql", url, schema)
    finally:
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        await admin.dispose()


BACKENDS = ("sqlite", "postgresql")


@pytest_asyncio.fixture(params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    async with fresh_database(request.param, request, tmp_path) as db:
        yield db


@pytest_asyncio.fixture
async def sql_repo(database: Database) -> AsyncIterator[SqlRepository]:
    """A SqlRepository on a freshly migrated database."""
    repo = await database.open()
    try:
        yield repo
    finally:
        await repo.close()


@pytest_asyncio.fixture(params=("memory", *BACKENDS))
async def any_repo(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Repository]:
    """Every implementation of the hub's Repository, for the conformance tests."""
    if request.param == "memory":
        yield InMemoryRepository()
        return
    async with fresh_database(request.param, request, tmp_path) as db:
        repo = await db.open()
        try:
            yield repo
        finally:
            await repo.close()


@pytest_asyncio.fixture(params=("memory", *BACKENDS))
async def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """Every implementation of the Store (both sides: the hub's Repository and the ReadModel)."""
    if request.param == "memory":
        yield InMemoryRepository()
        return
    async with fresh_database(request.param, request, tmp_path) as db:
        repo = await db.open()
        try:
            yield repo
        finally:
            await repo.close()
