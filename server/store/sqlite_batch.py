"""The group commit's transaction on SQLite's own driver: prepared SQL, one ``executemany``.

:func:`server.store.batch.commit_batch` runs the transaction through SQLAlchemy Core, which costs
each statement its execution context, cache-key lookup and parameter processing, and each batch
its transaction objects and events: on the step writer's thread that was about half of the
thread's Python (``docs/benchmarks.md``, "SQLite: the writer's DBAPI path (lane S)"). Here the same
transaction runs on the ``sqlite3`` connection underneath
(:meth:`~server.store.sqlite_writer.WriterThread.run_raw` opens and commits it): the SQL text of
every statement is built once, at import, from the models' table and column names; the step rows
go to one ``executemany`` as tuples; the JSON columns are encoded with msgspec and the timestamps
as SQLAlchemy's SQLite ``DATETIME`` text, exactly as :func:`server.store.batch.sqlite_step_row`
does for the Core path (the same rows: a test reads both back).

The algorithm is the Core path's own (:func:`~server.store.batch.append_steps`: the fenced
matches are checked first, the batch is sorted by :func:`~server.store.batch.classify`); only the
statements differ (:class:`SqliteStatements`). The hand projection runs in a savepoint and a
problem there is logged, never fatal to the steps. Errors are the driver's (``sqlite3.Error``); the
thread turns them into SQLAlchemy's exception classes so the writer treats both paths alike.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON

from server.domain.records import StepRecord
from server.store.batch import (
    STEP_COLUMNS,
    BatchResult,
    append_steps,
    encoded_step,
    json_text,
    log,
    sqlite_datetime,
)
from server.store.models import HandResultRow, MatchRow, StepRow
from server.store.projection import HandEnd, HandOp, HandStart


def _in(n: int) -> str:
    """``?, ?, ...``: ``n`` placeholders."""
    return ", ".join("?" * n)


_STEP_COLUMNS = STEP_COLUMNS
_STEPS = StepRow.__tablename__
_MATCHES = MatchRow.__tablename__
_HANDS = HandResultRow.__tablename__
_INSERT_STEPS = f"INSERT INTO {_STEPS} ({', '.join(_STEP_COLUMNS)}) VALUES ({_in(len(_STEP_COLUMNS))})"
_STORED_STEP = f"SELECT {', '.join(_STEP_COLUMNS[2:])} FROM {_STEPS} WHERE match_id = ? AND step = ?"
_LATEST_HAND = f"SELECT max(hand_index) FROM {_HANDS} WHERE match_id = ?"
# hand_results columns that are JSON documents (SQLAlchemy's JSON type: text on SQLite); the
# optional ones store None as SQL NULL (none_as_null), the others never get None from the projection.
_HAND_JSON = frozenset(c.name for c in HandResultRow.__table__.columns if isinstance(c.type, JSON))
_HAND_COLUMNS = tuple(c.name for c in HandResultRow.__table__.columns)
_INSERT_HAND = f"INSERT INTO {_HANDS} ({', '.join(_HAND_COLUMNS)}) VALUES ({_in(len(_HAND_COLUMNS))})"
_END_HAND: dict[tuple[str, ...], str] = {}  # UPDATE text per set of columns, built once each


def commit_batch_raw(
    conn: sqlite3.Connection,
    records: Sequence[StepRecord],
    known_next: Mapping[str, int],
    held: Mapping[str, int],
) -> BatchResult:
    """:func:`server.store.batch.append_steps` on ``conn``, a ``sqlite3`` connection in a write
    transaction (the caller commits it)."""
    return append_steps(SqliteStatements(conn), records, known_next, held)


class SqliteStatements:
    """:class:`~server.store.batch.StepStatements` on SQLite's own driver: SQL text built once."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def fences(self, match_ids: Sequence[str]) -> dict[str, int]:
        query = f"SELECT id, fence FROM {_MATCHES} WHERE id IN ({_in(len(match_ids))})"
        return {match_id: int(fence) for match_id, fence in self.conn.execute(query, match_ids)}

    def next_steps(self, match_ids: Sequence[str]) -> dict[str, int]:
        query = (
            f"SELECT m.id, (SELECT s.step FROM {_STEPS} s WHERE s.match_id = m.id ORDER BY s.step DESC"
            f" LIMIT 1) FROM {_MATCHES} m WHERE m.id IN ({_in(len(match_ids))})"
        )
        rows = self.conn.execute(query, match_ids)
        return {match_id: (-1 if step is None else step) + 1 for match_id, step in rows}

    def stored_step(self, r: StepRecord) -> StepRecord | None:
        row = self.conn.execute(_STORED_STEP, (r.match_id, r.step)).fetchone()
        if row is None:
            return None
        seat, action, events, request_id, applied_at, source, format_version, banks = row
        return StepRecord(
            match_id=r.match_id,
            step=r.step,
            seat=seat,
            action=None if action is None else json.loads(action),
            events=tuple(json.loads(events)),
            request_id=request_id,
            applied_at=datetime.fromisoformat(applied_at).replace(tzinfo=UTC).timestamp(),
            source=source,
            format_version=format_version,
            banks=None if banks is None else tuple(json.loads(banks)),
        )

    def insert_steps(self, records: Sequence[StepRecord]) -> None:
        self.conn.executemany(_INSERT_STEPS, [encoded_step(r, sqlite_datetime) for r in records])

    def project(self, projections: Sequence[tuple[str, Sequence[HandOp]]]) -> None:
        _project(self.conn, projections)


_PROJECTION_ERRORS = (
    sqlite3.IntegrityError,
    sqlite3.DataError,
    sqlite3.ProgrammingError,
    TypeError,
    ValueError,
)


def _project(conn: sqlite3.Connection, projections: Sequence[tuple[str, Sequence[HandOp]]]) -> None:
    """The batch's projection ops in one savepoint; if that fails, match by match, each failure
    logged (the log is the truth; the projection can be rebuilt from it)."""
    try:
        _apply_in_savepoint(conn, projections)
        return
    except _PROJECTION_ERRORS:
        pass
    for match_id, ops in projections:
        try:
            _apply_in_savepoint(conn, [(match_id, ops)])
        except _PROJECTION_ERRORS as exc:
            log.warning("match %s: hand results not projected: %s: %s", match_id, type(exc).__name__, exc)


def _apply_in_savepoint(
    conn: sqlite3.Connection, projections: Sequence[tuple[str, Sequence[HandOp]]]
) -> None:
    conn.execute("SAVEPOINT hand_projection")
    try:
        for match_id, ops in projections:
            _apply(conn, match_id, ops)
    except _PROJECTION_ERRORS:
        conn.execute("ROLLBACK TO hand_projection")
        conn.execute("RELEASE hand_projection")
        raise
    # (anything else, such as a full disk, fails the whole transaction: SQLite may have rolled it
    # back already, savepoint included)
    conn.execute("RELEASE hand_projection")


def _encoded(column: str, value: Any) -> Any:
    if column in _HAND_JSON and value is not None:
        return json_text(value)
    return value


def _apply(conn: sqlite3.Connection, match_id: str, ops: Sequence[HandOp]) -> None:
    """One match's ops, in order (an end completes the row its hand index names, or the latest)."""
    for op in ops:
        if isinstance(op, HandStart):
            conn.execute(_INSERT_HAND, tuple(_encoded(c, op.values.get(c)) for c in _HAND_COLUMNS))
        elif isinstance(op, HandEnd):
            index = op.hand_index
            if index is None:
                index = conn.execute(_LATEST_HAND, (match_id,)).fetchone()[0]
                if index is None:
                    continue  # no hand was started: nothing to end
            values = op.values()
            keys = tuple(sorted(values))
            sql = _END_HAND.get(keys)
            if sql is None:
                sets = ", ".join(f"{k} = ?" for k in keys)
                sql = _END_HAND[keys] = f"UPDATE {_HANDS} SET {sets} WHERE match_id = ? AND hand_index = ?"
            conn.execute(sql, (*(_encoded(k, values[k]) for k in keys), match_id, index))
