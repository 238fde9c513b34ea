"""Fixtures of the review API tests: one seeded store per backend (the in-memory store and SQLite
always, PostgreSQL when reachable: skipped with the reason otherwise, failing under ``CI=true``, as
in tests/store), and an HTTP client on a fresh app over it for each test (httpx, in-process ASGI,
same event loop). The API reads through the store's read model, so every test runs on each store.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import create_async_engine

from server.domain.errors import UnavailableError
from server.store.db import sqlite_url
from server.store.memory import InMemoryRepository
from server.store.repository import SqlRepository
from server.web.api import ApiSettings, create_app
from tests.store.conftest import RUN_ID, _in_thread, postgres
from tests.web_api.seed import Seeded, seed_database

__all__ = ["postgres"]  # the session fixture of tests/store, reused here

BACKENDS = ("memory", "sqlite", "postgresql")
AnyStore = SqlRepository | InMemoryRepository  # a Store with its close() and ``async with``


@dataclass(frozen=True, slots=True)
class SeededDb:
    backend: str
    url: str
    search_path: str | None
    data: Seeded
    memory: InMemoryRepository | None = None  # the store itself, for the memory backend

    async def open(self) -> AnyStore:
        if self.memory is not None:
            return self.memory
        return await SqlRepository.open(self.url, search_path=self.search_path)

    def failure(self) -> Exception:
        """What this store raises when its database fails (as the API sees it)."""
        if self.memory is not None:
            return UnavailableError("disk I/O error")
        return OperationalError("INSERT INTO audit_log", {}, Exception("disk I/O error"))


async def _seed(url: str, search_path: str | None) -> Seeded:
    async with await SqlRepository.open(url, search_path=search_path) as repo:
        return await seed_database(repo)


async def _schema(url: str, sql: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(sql))
    finally:
        await engine.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
def seeded_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeededDb]:
    """The seeded database of ``tests/web_api/seed.py`` on one backend, shared by the session (tests
    only add audit entries and accounts of their own to it)."""
    if request.param == "memory":
        memory = InMemoryRepository()
        yield SeededDb("memory", "memory:", None, _in_thread(lambda: seed_database(memory)), memory)
        return
    if request.param == "sqlite":
        url = sqlite_url(tmp_path_factory.mktemp("web_api") / "jantaku.sqlite3")
        yield SeededDb("sqlite", url, None, _in_thread(lambda: _seed(url, None)))
        return
    pg: str = request.getfixturevalue("postgres")
    schema = f"{RUN_ID}_api"
    _in_thread(lambda: _schema(pg, f'CREATE SCHEMA "{schema}"'))
    try:
        yield SeededDb("postgresql", pg, schema, _in_thread(lambda: _seed(pg, schema)))
    finally:
        _in_thread(lambda: _schema(pg, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


@dataclass(slots=True)
class Api:
    """An HTTP client on the app, with the seeded data and the repository behind it."""

    client: httpx.AsyncClient
    repo: AnyStore
    data: Seeded
    db: SeededDb

    def headers(self, who: str | None) -> dict[str, str]:
        if who is None:
            return {}
        token = self.data.tokens.get(who, who)  # a role, or a raw token
        return {"Authorization": f"Bearer {token}"}

    async def get(self, path: str, who: str | None = None, **params: Any) -> httpx.Response:
        # (params=... would replace a query string written in ``path``)
        return await self.client.get(path, headers=self.headers(who), params=params or None)

    def game(self, label: str) -> str:
        return self.data.games[label]


@pytest_asyncio.fixture
async def api(seeded_db: SeededDb) -> AsyncIterator[Api]:
    repo = await seeded_db.open()
    try:
        app = create_app(repo, ApiSettings())
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield Api(client, repo, seeded_db.data, seeded_db)
    finally:
        await repo.close()


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def data_dir_of(db: SeededDb) -> Path | None:
    """The ``--data-dir`` of a SQLite database (None for PostgreSQL)."""
    if db.backend != "sqlite":
        return None
    return Path(db.url.split("///", 1)[1]).parent
