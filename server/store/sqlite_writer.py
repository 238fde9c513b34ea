"""The step writer's own thread on SQLite: one synchronous connection, one hand-off per commit.

Through the asyncio driver (aiosqlite) every statement, BEGIN and COMMIT of a group commit is its
own round trip to aiosqlite's thread plus a greenlet switch (a dozen per commit, measured in
docs/benchmarks.md), and each costs the event loop a wake-up. Here the writer hands the whole
batch to this thread once and one future comes back once the transaction has committed (or
failed); the event loop never blocks, it awaits that future. The hand-off is a
``queue.SimpleQueue`` into the thread and one ``call_soon_threadsafe`` back (no executor: its
futures, locks and callbacks cost the event loop more than the transaction's own Python did).

Two kinds of transaction, both on the same connection (same pragmas: WAL, ``synchronous=FULL``,
``BEGIN IMMEDIATE``, the engine's busy timeout): :meth:`WriterThread.run_raw`, the step batches',
on the ``sqlite3`` connection itself with prepared SQL (:mod:`server.store.sqlite_batch`), and
:meth:`WriterThread.run`, through SQLAlchemy Core (grouped writes of other rows, tests).

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
import queue
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from server.store.batch import describe, is_unavailable
from server.store.db import immediate_writes
from server.store.errors import StoreConfigError

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
_SYNCHRONOUS_FULL = 2
THREAD_NAME = "jantaku-sqlite-writer"
_Job = tuple[Callable[[], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


class WriterThread:
    """Runs write transactions on one connection of ``engine`` (a synchronous SQLite engine,
    :func:`server.store.db.sync_sqlite_engine`), one at a time, in a thread of its own."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        # The thread starts with the first transaction; jobs reach it through this queue, each
        # with the loop and future its result goes back to (one call_soon_threadsafe).
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._conn: Connection | None = None  # touched on the thread only
        self._closed = False
        self.transactions = 0  # committed, for tests and benchmarks
        self.connections = 0  # opened (more than one: it reconnected after a failure)

    async def run(self, fn: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(conn, *args)`` in a write transaction on the thread, committed when it returns
        (rolled back if it raises, the exception coming back here unchanged)."""
        if self._closed:
            raise RuntimeError("the writer thread is closed")
        return await self._submit(lambda: self._transaction(fn, *args, **kwargs))

    async def run_raw(
        self, fn: Callable[Concatenate[sqlite3.Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``fn(raw, *args)`` on the ``sqlite3`` connection itself, in a write transaction
        (``BEGIN IMMEDIATE``) committed when it returns, rolled back if it raises; the driver's
        errors come back as SQLAlchemy's (``OperationalError``, ``IntegrityError``, ...), like
        :meth:`run`'s. No SQLAlchemy machinery per statement: the step batches' path."""
        if self._closed:
            raise RuntimeError("the writer thread is closed")
        return await self._submit(lambda: self._raw_transaction(fn, *args, **kwargs))

    def _submit(self, job: Callable[[], T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name=THREAD_NAME, daemon=True)
            self._thread.start()
        self._jobs.put((job, loop, future))
        return future

    async def close(self) -> None:
        """Wait for the transaction in flight, close the connection and end the thread."""
        if self._closed:
            return
        self._closed = True
        thread = self._thread
        if thread is None:
            self._engine.dispose()
            return
        try:
            await self._submit(self._shutdown)
        finally:
            self._jobs.put(None)  # the thread ends after the jobs before this one
            await asyncio.get_running_loop().run_in_executor(None, thread.join)

    # -- on the thread --------------------------------------------------------------------------------

    def _serve(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, loop, future = item
            try:
                result: Any = job()
            except BaseException as exc:  # it goes back to the caller
                _reply(loop, future, None, exc)
            else:
                _reply(loop, future, result, None)

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


def _reply(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any, exc: BaseException | None
) -> None:
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
        loop.call_soon_threadsafe(_resolve, future, result, exc)


def _resolve(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.done():  # its caller was cancelled
        return
    if exc is None:
        future.set_result(result)
    else:
        future.set_exception(exc)


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
