"""Engines: the embedded SQLite file (default) or PostgreSQL, both through asyncio drivers.

Where the database is, first match wins:

1. ``--database-url URL`` (``database_url=``),
2. the ``DATABASE_URL`` environment variable,
3. ``<data-dir>/jantaku.sqlite3`` (created on first use).

URLs: ``postgresql://…`` / ``postgres://…`` become ``postgresql+asyncpg://…`` and ``sqlite:///…``
becomes ``sqlite+aiosqlite:///…``; other drivers are refused (they would block the event loop).

SQLite is set up on every new connection (an event listener) with::

    PRAGMA journal_mode=WAL       readers never wait for the writer
    PRAGMA synchronous=FULL       a commit is on disk when it returns (WAL fsync per commit)
    PRAGMA foreign_keys=ON
    PRAGMA busy_timeout=<ms>      wait for another writer's lock instead of failing at once

and :func:`verify_engine` reads them back at startup and raises :class:`StoreConfigError` if one is
not in effect (an in-memory database, for example, cannot use WAL). Write transactions on SQLite
start with ``BEGIN IMMEDIATE`` (:func:`write_connection`), so two writers queue on the lock rather
than failing to upgrade a read snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy import event, make_url
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from server.store.errors import StoreConfigError

SQLITE_FILENAME = "jantaku.sqlite3"
DEFAULT_BUSY_TIMEOUT_MS = 5000
# What PRAGMA synchronous reads back for FULL.
_SYNCHRONOUS_FULL = 2
_IMMEDIATE = "jantaku_immediate"
# The busy timeout each SQLite engine of create_engine() was made with (the step writer's own
# connection, see sync_sqlite_engine(), waits for the lock as long as the engine's do).
_BUSY_TIMEOUTS: weakref.WeakKeyDictionary[Engine, int] = weakref.WeakKeyDictionary()


def resolve_url(
    *,
    data_dir: Path | str | None = None,
    database_url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The database URL for these options (see the module docstring for the order)."""
    env = os.environ if environ is None else environ
    url = database_url or env.get("DATABASE_URL") or None
    if url:
        return normalize_url(url)
    directory = Path(data_dir) if data_dir is not None else Path("data")
    return sqlite_url(directory / SQLITE_FILENAME)


def sqlite_url(path: Path | str) -> str:
    return URL.create("sqlite+aiosqlite", database=str(Path(path).absolute())).render_as_string()


def normalize_url(url: str) -> str:
    """Pick the asyncio driver for a database URL; raise StoreConfigError for anything else."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreConfigError(f"not a database URL: {_redacted(url)!r}") from exc
    backend, _, driver = parsed.drivername.partition("+")
    if backend == "postgres":
        backend = "postgresql"
    if backend == "postgresql" and driver in ("", "asyncpg"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    if backend == "sqlite" and driver in ("", "aiosqlite"):
        return parsed.set(drivername="sqlite+aiosqlite").render_as_string(hide_password=False)
    raise StoreConfigError(
        f"unsupported database URL {_redacted(url)!r}: use postgresql+asyncpg://… or sqlite+aiosqlite:///…"
    )


def _redacted(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<unparseable>"


def display_url(url: str) -> str:
    """The URL with its password hidden (for logs and messages)."""
    return _redacted(url)


def is_sqlite(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for an in-memory database or another backend)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def create_engine(
    url: str,
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    search_path: str | None = None,
    pool_size: int = 5,
    echo: bool = False,
) -> AsyncEngine:
    """An engine for ``url`` (normalised); SQLite connections get the pragmas of the docstring.

    ``search_path`` (PostgreSQL) puts the tables in that schema (the tests use one per test).
    The parent directory of a SQLite file is created.
    """
    url = normalize_url(url)
    kwargs: dict[str, Any] = {"echo": echo, "pool_pre_ping": True}
    if is_sqlite(url):
        path = sqlite_path(url)
        if path is not None:  # (an in-memory database has a single static connection)
            path.parent.mkdir(parents=True, exist_ok=True)
            kwargs["pool_size"] = pool_size
            kwargs["max_overflow"] = pool_size
        kwargs["connect_args"] = {"timeout": busy_timeout_ms / 1000}
    else:
        kwargs["pool_size"] = pool_size
        kwargs["max_overflow"] = pool_size
        if search_path is not None:
            kwargs["connect_args"] = {"server_settings": {"search_path": search_path}}
    engine = create_async_engine(url, **kwargs)
    if is_sqlite(url):
        _install_sqlite_hooks(engine.sync_engine, busy_timeout_ms)
        _BUSY_TIMEOUTS[engine.sync_engine] = busy_timeout_ms
    return engine


def sync_sqlite_engine(engine: AsyncEngine) -> Engine | None:
    """A synchronous engine (the stdlib ``sqlite3`` driver) on the same SQLite file as ``engine``,
    with the same pragmas and busy timeout, for a thread that owns its connection (the step
    writer's, :mod:`server.store.sqlite_writer`); None for PostgreSQL or an in-memory SQLite
    (another connection would not see the same database)."""
    url = engine.url
    if url.get_backend_name() != "sqlite" or sqlite_path(url.render_as_string(hide_password=False)) is None:
        return None
    busy_timeout_ms = _BUSY_TIMEOUTS.get(engine.sync_engine, DEFAULT_BUSY_TIMEOUT_MS)
    sync = create_sync_engine(
        url.set(drivername="sqlite+pysqlite"),
        pool_size=1,
        max_overflow=0,
        connect_args={"timeout": busy_timeout_ms / 1000},
    )
    _install_sqlite_hooks(sync, busy_timeout_ms)
    return sync


def _install_sqlite_hooks(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let us emit BEGIN ourselves (the driver's implicit transactions defer the write lock and
        # commit before DDL); see "Serializable isolation / Savepoints / Transactional DDL
        # (asyncio version)" in SQLAlchemy's SQLite dialect documentation.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(_IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


@asynccontextmanager
async def write_connection(
    engine: AsyncEngine, gate: asyncio.Lock | None = None
) -> AsyncIterator[AsyncConnection]:
    """A connection in a write transaction, committed on exit (rolled back on an exception).

    On SQLite the transaction takes the write lock first (``BEGIN IMMEDIATE``). ``gate`` (see
    :func:`write_gate`) queues the writers of one process in asyncio instead of in SQLite's busy
    handler, which sleeps in steps of up to 100 ms (or whole seconds) between its retries."""
    async with gate if gate is not None else contextlib.nullcontext(), engine.connect() as plain:
        conn = await plain.execution_options(**{_IMMEDIATE: True})
        async with conn.begin():
            yield conn


def immediate_writes(conn: Connection) -> Connection:
    """``conn`` with its transactions beginning with ``BEGIN IMMEDIATE`` on SQLite (a synchronous
    connection's counterpart of :func:`write_connection`)."""
    return conn.execution_options(**{_IMMEDIATE: True})


def write_gate(engine: AsyncEngine) -> asyncio.Lock | None:
    """A lock for the write transactions of one process: SQLite has one writer at a time anyway;
    PostgreSQL needs none (row locks)."""
    return asyncio.Lock() if engine.dialect.name == "sqlite" else None


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """ORM sessions for read models (admin pages); objects stay usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


async def sqlite_pragmas(engine: AsyncEngine) -> dict[str, Any]:
    """The pragmas of the docstring as a fresh connection of ``engine`` reports them."""
    async with engine.connect() as conn:
        out: dict[str, Any] = {}
        for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout"):
            out[name] = (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar_one()
        await conn.rollback()
        return out


async def _verify_postgresql(engine: AsyncEngine) -> None:
    """A commit must be durable when it returns (commit before broadcast): refuse a server that
    runs with ``fsync`` or ``synchronous_commit`` off."""
    async with engine.connect() as conn:
        fsync = (await conn.exec_driver_sql("SHOW fsync")).scalar_one()
        sync_commit = (await conn.exec_driver_sql("SHOW synchronous_commit")).scalar_one()
        await conn.rollback()
    problems = []
    if str(fsync).lower() != "on":
        problems.append(f"fsync is {fsync!r}")
    if str(sync_commit).lower() == "off":
        problems.append(f"synchronous_commit is {sync_commit!r}")
    if problems:
        raise StoreConfigError(
            f"PostgreSQL at {engine.url.render_as_string(hide_password=True)} does not make commits "
            "durable (" + "; ".join(problems) + "): a crash could lose steps players have seen"
        )


async def verify_engine(engine: AsyncEngine, *, busy_timeout_ms: int | None = None) -> None:
    """Check the database is reachable and makes commits durable: for SQLite, that every pragma
    is in effect; for PostgreSQL, that ``fsync`` and ``synchronous_commit`` are not off.

    Raises StoreConfigError naming the setting and the value read back."""
    if engine.dialect.name != "sqlite":
        await _verify_postgresql(engine)
        return
    got = await sqlite_pragmas(engine)
    problems = []
    if str(got["journal_mode"]).lower() != "wal":
        problems.append(f"journal_mode is {got['journal_mode']!r}, not 'wal'")
    if got["synchronous"] != _SYNCHRONOUS_FULL:
        problems.append(f"synchronous is {got['synchronous']!r}, not 2 (FULL)")
    if got["foreign_keys"] != 1:
        problems.append(f"foreign_keys is {got['foreign_keys']!r}, not 1 (ON)")
    if got["busy_timeout"] <= 0 or (busy_timeout_ms is not None and got["busy_timeout"] != busy_timeout_ms):
        problems.append(f"busy_timeout is {got['busy_timeout']!r}")
    if problems:
        raise StoreConfigError(
            f"SQLite database {engine.url.database!r} is not safe to use: " + "; ".join(problems)
        )
