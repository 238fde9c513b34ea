"""The step writer's own thread on SQLite: one synchronous connection, one hand-off per commit.

Through the asyncio driver (aiosqlite) every statement, BEGIN and COMMIT of a group commit is its
own round trip to aiosqlite's thread plus a greenlet switch (a dozen per commit, measured in
docs/benchmarks.md), and each costs the event loop a wake-up. Here the writer hands the whole
batch to this thread once (:meth:`WriterThread.run`), the thread runs the transaction on a plain
``sqlite3`` connection through SQLAlchemy Core (same statements, same pragmas: WAL,
``synchronous=FULL``, ``BEGIN IMMEDIATE``, the engine's busy timeout) and one future comes back once
the transaction has committed (or failed). The event loop never blocks: it awaits that future.

The connection lives and dies on this thread (sqlite3's own rule). After a failure that may have
left it unusable (the database locked past the busy timeout, the disk full, an I/O error) it is
closed and the next batch opens a fresh one; a failed transaction is rolled back, so the tables
keep only whole batches. :meth:`WriterThread.close` waits for the batch in flight, closes the
connection and ends the thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Concatenate, ParamSpec, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from server.store.batch import describe, is_unavailable
from server.store.db import immediate_writes
from server.store.errors import StoreConfigError

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
_SYNCHRONOUS_FULL = 2


class WriterThread:
    """Runs write transactions on one connection of ``engine`` (a synchronous SQLite engine,
    :func:`server.store.db.sync_sqlite_engine`), one at a time, in a thread of its own."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="jantaku-sqlite-writer")
        self._conn: Connection | None = None  # touched on the thread only
        self._closed = False
        self.transactions = 0  # committed, for tests and benchmarks
        self.connections = 0  # opened (more than one: it reconnected after a failure)

    async def run(self, fn: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(conn, *args)`` in a write transaction on the thread, committed when it returns
        (rolled back if it raises, the exception coming back here unchanged)."""
        if self._closed:
            raise RuntimeError("the writer thread is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: self._transaction(fn, *args, **kwargs))

    async def run_raw(
        self, fn: Callable[Concatenate[sqlite3.Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``fn(raw, *args)`` on the ``sqlite3`` connection itself, in a write transaction
        (``BEGIN IMMEDIATE``) committed when it returns, rolled back if it raises; the driver's
        errors come back as SQLAlchemy's (``OperationalError``, ``IntegrityError``, ...), like
        :meth:`run`'s. No SQLAlchemy machinery per statement: the step batches' path."""
        if self._closed:
            raise RuntimeError("the writer thread is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: self._raw_transaction(fn, *args, **kwargs))

    async def close(self) -> None:
        """Wait for the transaction in flight, close the connection and end the thread."""
        if self._closed:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._executor, self._shutdown)
        finally:  # join the thread without blocking the loop
            await loop.run_in_executor(None, self._executor.shutdown)

    # -- on the thread --------------------------------------------------------------------------------

    def _transaction(
        self, fn: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        conn = self._connection()
        try:
            with conn.begin():
                result = fn(conn, *args, **kwargs)
        except BaseException as exc:
            if conn.in_transaction():  # the COMMIT itself failed
                with contextlib.suppress(Exception):
                    conn.rollback()
            if conn.invalidated or not _connection_survives(exc):
                log.info("step writer: reconnecting after %s", describe(exc))
                self._drop()
            raise
        self.transactions += 1
        return result

    def _raw_transaction(
        self, fn: Callable[Concatenate[sqlite3.Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        conn = self._connection()
        raw = conn.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        try:
            try:
                raw.execute("BEGIN IMMEDIATE")
                result = fn(raw, *args, **kwargs)
                raw.execute("COMMIT")
            except sqlite3.Error as exc:
                raise DBAPIError.instance("(the step batch)", None, exc, sqlite3.Error) from exc
        except BaseException as exc:
            if raw.in_transaction:  # fn or the COMMIT itself failed
                with contextlib.suppress(Exception):
                    raw.execute("ROLLBACK")
            if not _connection_survives(exc):
                log.info("step writer: reconnecting after %s", describe(exc))
                self._drop()
            raise
        self.transactions += 1
        return result

    def _connection(self) -> Connection:
        if self._conn is None:
            conn = self._engine.connect()
            try:
                _verify(conn)
            except BaseException:
                conn.close()
                raise
            self.connections += 1
            self._conn = immediate_writes(conn)
        return self._conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.invalidate()
            with contextlib.suppress(Exception):
                conn.close()

    def _shutdown(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        self._engine.dispose()


def _connection_survives(exc: BaseException) -> bool:
    """Whether the connection is still good after ``exc`` ended a transaction: yes after a bad
    record (a constraint, a value that is not JSON), no after the database failed (locked past the
    busy timeout, disk full, I/O) or anything unexpected."""
    if isinstance(exc, SQLAlchemyError):
        return not is_unavailable(exc)
    return isinstance(exc, TypeError | ValueError)


def _verify(conn: Connection) -> None:
    """The durability the writer promises (the engine's own connections are checked at startup by
    :func:`server.store.db.verify_engine`; this one is opened later, maybe more than once)."""
    journal = conn.exec_driver_sql("PRAGMA journal_mode").scalar_one()
    synchronous = conn.exec_driver_sql("PRAGMA synchronous").scalar_one()
    conn.rollback()
    if str(journal).lower() != "wal" or synchronous != _SYNCHRONOUS_FULL:
        raise StoreConfigError(
            f"the step writer's SQLite connection has journal_mode={journal!r}, synchronous={synchronous!r}"
            " (WAL and FULL=2 expected)"
        )
