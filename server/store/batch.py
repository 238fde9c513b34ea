"""The transaction of one group commit, as plain synchronous SQLAlchemy Core on one connection.

:class:`~server.store.writer.GroupCommitWriter` decides what goes into a batch and what each caller
is told; this module is what runs inside the transaction. It is synchronous so that the whole batch
costs ONE hand-off to wherever the connection lives:

* SQLite: the writer's own thread (:mod:`server.store.sqlite_writer`) calls :func:`commit_batch`
  directly on its ``pysqlite`` connection;
* PostgreSQL (and an in-memory SQLite, which only its own engine can see): the writer calls it
  through :meth:`AsyncConnection.run_sync` on an asyncio connection (the same statements as before,
  one greenlet switch for the batch instead of one per statement).

Nothing here touches the writer's state: the caller passes a snapshot in (the next steps it
remembers, the fences it holds) and applies the :class:`BatchResult` when the commit is back.

Per batch (:func:`append_steps`, the one algorithm of every step append): lock and check the fenced
matches (cluster mode), read the next step of the matches the writer does not remember, classify
every step (the next one: insert; already stored and identical: nothing to do; anything else:
:class:`StepConflictError`; unknown match: :class:`NotFoundError`), insert the new steps with one
``executemany`` and apply the per-hand projection. What differs by database is only the statements
(:class:`StepStatements`): SQLAlchemy Core (:class:`CoreStatements`), SQLite's own driver
(``server.store.sqlite_batch``) and PostgreSQL's one-statement batch (:func:`plan_one_statement`).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec
from sqlalchemy import bindparam, column, func, insert, select, table, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    StatementError,
)

from server.domain.errors import FencedError, NotFoundError
from server.domain.records import StepRecord
from server.store.errors import StepConflictError
from server.store.models import HandResultRow, MatchRow, StepRow
from server.store.projection import HandEnd, HandOp, HandStart, hand_ops
from server.store.types import from_unix, same_instant

log = logging.getLogger("server.store.writer")


def normalized_json(value: Any) -> Any:
    """``value`` as it comes back from a JSON column (tuples become lists, wire structs objects, ...)."""
    return _JSON_DECODE(json_text(value))


def step_row(record: StepRecord) -> dict[str, Any]:
    return {
        "match_id": record.match_id,
        "step": record.step,
        "seat": record.seat,
        "action": record.action,
        "events": msgspec.to_builtins(list(record.events)),  # encoded by SQLAlchemy's JSON type
        "request_id": record.request_id,
        "applied_at": from_unix(record.applied_at),
        "source": record.source,
        "format_version": record.format_version,
        "banks": None if record.banks is None else list(record.banks),
    }


# SQLite: the step rows are encoded here, once, and go to the driver as they are (an untyped view
# of the same table, so SQLAlchemy applies no per-row bind processing): JSON columns as compact
# msgspec text (what SQLAlchemy's JSON type reads back, equal as values to its json.dumps text),
# ``applied_at`` in the text form of SQLAlchemy's SQLite DATETIME (UTC, to the microsecond).
STEP_COLUMNS = (  # a step row's columns in insert order (the raw SQLite path uses them too)
    "match_id",
    "step",
    "seat",
    "action",
    "events",
    "request_id",
    "applied_at",
    "source",
    "format_version",
    "banks",
)
_STEPS_ENCODED = table(StepRow.__tablename__, *(column(name) for name in STEP_COLUMNS))
_INSERT_STEPS_ENCODED = insert(_STEPS_ENCODED)
_JSON = msgspec.json.Encoder()
_JSON_DECODE = msgspec.json.Decoder().decode


def json_text(value: Any) -> str:
    try:
        return _JSON.encode(value).decode()
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"not a JSON document: {exc}") from exc


def sqlite_datetime(seconds: float) -> str:
    """Unix seconds as SQLAlchemy's SQLite DATETIME stores a UTC datetime (naive UTC text).

    The text of the whole second is remembered (the steps of a batch share it), so a step costs
    a rounding and a format instead of a datetime, a replace and an isoformat: the same text as
    :func:`sqlite_datetime_reference`, microseconds rounded half to even as ``fromtimestamp``."""
    if not 0.0 <= seconds < _FAST_UNTIL:
        return sqlite_datetime_reference(seconds)
    frac, whole = math.modf(seconds)
    micros = round(frac * 1e6)
    if micros >= 1_000_000:
        whole += 1.0
        micros -= 1_000_000
    second = int(whole)
    cached = _SECOND[0]
    if cached[0] != second:
        cached = (second, time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(second)))
        _SECOND[0] = cached
    return f"{cached[1]}.{micros:06d}"


_FAST_UNTIL = 253_402_300_800.0  # 10000-01-01: strftime's %Y is four digits before it
# the last second formatted: one (second, text) pair, replaced whole (safe from any thread)
_SECOND: list[tuple[int, str]] = [(-1, "")]


def sqlite_datetime_reference(seconds: float) -> str:
    """:func:`sqlite_datetime` the plain way (the reference its fast path is tested against)."""
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def encoded_step(record: StepRecord, when: Callable[[float], Any]) -> tuple[Any, ...]:
    """A step's row in :data:`STEP_COLUMNS` order as a driver takes it: the JSON columns as compact
    text, ``applied_at`` as ``when`` makes it (SQLite's DATETIME text, or a datetime for asyncpg)."""
    return (
        record.match_id,
        record.step,
        record.seat,
        None if record.action is None else json_text(record.action),
        json_text(record.events),
        record.request_id,
        when(record.applied_at),
        record.source,
        record.format_version,
        None if record.banks is None else json_text(record.banks),
    )


def sqlite_step_row(record: StepRecord) -> dict[str, Any]:
    """:func:`step_row` encoded for SQLite's driver (see ``_STEPS_ENCODED``)."""
    return dict(zip(STEP_COLUMNS, encoded_step(record, sqlite_datetime), strict=True))


def same_step(a: StepRecord, b: StepRecord) -> bool:
    """Whether two records of the same (match, step) say the same thing (a retry, not a conflict)."""
    return (
        a.match_id == b.match_id
        and a.step == b.step
        and a.seat == b.seat
        and a.request_id == b.request_id
        and a.source == b.source
        and a.format_version == b.format_version
        and a.banks == b.banks
        and same_instant(a.applied_at, b.applied_at)
        and normalized_json(a.action) == normalized_json(b.action)
        and normalized_json(list(a.events)) == normalized_json(list(b.events))
    )


@dataclass(slots=True)
class BatchResult:
    """What one committed batch did (applied to the writer's state on the event loop)."""

    outcomes: list[BaseException | None]  # per record: None (stored or already stored) or the error
    expected: dict[str, int]  # the next step of each match of the batch, after this commit
    stale: set[str]  # fenced matches whose token moved (another node owns them now)
    inserted: int
    duplicates: int


class StepStatements(Protocol):
    """What the one append algorithm (:func:`append_steps`) asks of a database: each method is one
    statement (or one group of them) in the batch's transaction. Three implementations: SQLAlchemy
    Core on any connection (:class:`CoreStatements`), SQLite's own driver
    (:class:`server.store.sqlite_batch.SqliteStatements`) and the plan of a PostgreSQL batch as ONE
    statement (:class:`_OneStatementPlan`)."""

    def fences(self, match_ids: Sequence[str]) -> dict[str, int]:
        """The current fencing token of each of ``match_ids`` that exists, its row locked until the
        transaction ends (PostgreSQL ``FOR UPDATE``; SQLite's write transaction is exclusive)."""
        ...

    def next_steps(self, match_ids: Sequence[str]) -> dict[str, int]:
        """For each existing match among ``match_ids``, the next step its log expects."""
        ...

    def stored_step(self, r: StepRecord) -> StepRecord | None:
        """The step stored at ``r``'s match and step, if any (to tell a retry from a conflict)."""
        ...

    def insert_steps(self, records: Sequence[StepRecord]) -> None: ...

    def project(self, projections: Sequence[tuple[str, Sequence[HandOp]]]) -> None:
        """Apply the hand projection of the inserted steps (a problem is logged, never fatal)."""
        ...


def append_steps(
    db: StepStatements, records: Sequence[StepRecord], known_next: Mapping[str, int], held: Mapping[str, int]
) -> BatchResult:
    """Store ``records`` through ``db``, in the transaction open on it (the caller commits it): the
    one algorithm of every step append, whatever the database.

    Lock and check the fenced matches (``held``: the token this node holds for each), read the
    next step of the matches the writer does not remember (``known_next``), sort the batch
    (:func:`classify`), insert the new steps and apply their hand projection."""
    stale = stale_fences(db.fences(sorted(held)), held) if held else {}
    match_ids = {r.match_id for r in records}
    expected = {m: n for m, n in known_next.items() if m in match_ids and m not in stale}
    if len(expected) < len(match_ids):
        expected.update(db.next_steps(sorted(match_ids - expected.keys())))
    outcomes, to_insert, duplicates = classify(records, expected, stale, db.stored_step)
    if to_insert:
        db.insert_steps(to_insert)
        projections = hand_projections(to_insert)
        if projections:
            db.project(projections)
    return BatchResult(outcomes, expected, set(stale), len(to_insert), duplicates)


def stale_fences(current: Mapping[str, int], held: Mapping[str, int]) -> dict[str, FencedError]:
    """The error of each held match whose token is not the one this node holds (logged)."""
    stale = {m: FencedError(m, f, current.get(m)) for m, f in held.items() if current.get(m) != f}
    if stale:
        log.warning("fenced: %s", "; ".join(str(e) for e in stale.values()))
    return stale


def commit_batch(
    conn: Connection,
    records: Sequence[StepRecord],
    known_next: Mapping[str, int],
    held: Mapping[str, int],
) -> BatchResult:
    """:func:`append_steps` through SQLAlchemy Core on ``conn`` (PostgreSQL, or an in-memory
    SQLite that only its own engine can see)."""
    return append_steps(CoreStatements(conn), records, known_next, held)


class CoreStatements:
    """:class:`StepStatements` in SQLAlchemy Core, on a connection in a transaction."""

    __slots__ = ("conn",)

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def fences(self, match_ids: Sequence[str]) -> dict[str, int]:
        return {match_id: int(fence) for match_id, fence in self.conn.execute(_FENCES, {"ids": match_ids})}

    def next_steps(self, match_ids: Sequence[str]) -> dict[str, int]:
        rows = self.conn.execute(_NEXT_STEPS, {"ids": match_ids})
        return {match_id: (-1 if step is None else step) + 1 for match_id, step in rows}

    def stored_step(self, r: StepRecord) -> StepRecord | None:
        return _stored_step(self.conn, r)

    def insert_steps(self, records: Sequence[StepRecord]) -> None:
        if self.conn.dialect.name == "sqlite":
            self.conn.execute(_INSERT_STEPS_ENCODED, [sqlite_step_row(r) for r in records])
        else:
            self.conn.execute(_INSERT_STEPS, [step_row(r) for r in records])

    def project(self, projections: Sequence[tuple[str, Sequence[HandOp]]]) -> None:
        _project(self.conn, projections)


# -- PostgreSQL: a batch in one statement ---------------------------------------------------------
#
# The common batch (every match's next step known to the writer, nothing to read back, no hand
# starting or ending) goes to PostgreSQL as ONE statement in autocommit mode, on the raw asyncpg
# connection: one round trip and one commit, instead of BEGIN, the fencing SELECT, the inserts and
# COMMIT (each a round trip; the server's CPU per batch is mostly these wake-ups and the WAL flush).
# The fencing guarantee is the same: the matches' rows are locked (FOR UPDATE, held until the
# statement commits, so a takeover's token bump waits for it or happens before), and a step is
# inserted only if its match's token is still the one this node holds; the current tokens come
# back, so the writer refuses the steps of a match whose token moved, as commit_batch does.

_STEPS_VALUES = """
    SELECT u.match_id, u.step, u.seat, u.action::json, u.events::json, u.request_id, u.applied_at,
           u.source, u.format_version, u.banks::json
    FROM unnest($1::varchar[], $2::int[], $3::int[], $4::text[], $5::text[], $6::bigint[],
                $7::timestamptz[], $8::varchar[], $9::smallint[], $10::text[])
      AS u(match_id, step, seat, action, events, request_id, applied_at, source, format_version, banks)"""
_STEPS_INSERT = f"INSERT INTO {StepRow.__tablename__} ({', '.join(STEP_COLUMNS)})"
PG_INSERT_STEPS = _STEPS_INSERT + _STEPS_VALUES
PG_INSERT_FENCED_STEPS = f"""
WITH f AS MATERIALIZED (
    SELECT id, fence FROM {MatchRow.__tablename__} WHERE id = ANY($11::varchar[]) ORDER BY id FOR UPDATE
), ins AS (
    {_STEPS_INSERT}{_STEPS_VALUES}
    JOIN unnest($11::varchar[], $12::bigint[]) AS h(id, fence) ON h.id = u.match_id
    JOIN f ON f.id = h.id AND f.fence = h.fence
)
SELECT f.id, f.fence FROM f"""


class _NeedsTransactionError(Exception):
    """The batch needs more than one statement (a read, the projection): the transaction path."""


class _OneStatementPlan:
    """:class:`StepStatements` that runs nothing: the steps to insert become the arguments of ONE
    statement, and anything else a batch could need makes it take the transaction path. The fences
    are checked by that statement itself (:attr:`OneStatement.held`)."""

    __slots__ = ("columns", "inserting")

    def __init__(self) -> None:
        self.columns: tuple[list[Any], ...] | None = None
        self.inserting: list[str] = []

    def fences(self, match_ids: Sequence[str]) -> dict[str, int]:
        raise AssertionError("the statement checks the fences")

    def next_steps(self, match_ids: Sequence[str]) -> dict[str, int]:
        raise _NeedsTransactionError

    def stored_step(self, r: StepRecord) -> StepRecord | None:
        raise _NeedsTransactionError

    def insert_steps(self, records: Sequence[StepRecord]) -> None:
        columns: tuple[list[Any], ...] = tuple([] for _ in STEP_COLUMNS)
        for r in records:
            for column_values, value in zip(columns, encoded_step(r, from_unix), strict=True):
                column_values.append(value)
        self.columns = columns
        self.inserting = [r.match_id for r in records]

    def project(self, projections: Sequence[tuple[str, Sequence[HandOp]]]) -> None:
        raise _NeedsTransactionError


@dataclass(slots=True)
class OneStatement:
    """A batch planned as one PostgreSQL statement (:func:`plan_one_statement`)."""

    sql: str
    args: tuple[Any, ...]
    outcomes: list[BaseException | None]
    records: Sequence[StepRecord]
    expected: dict[str, int]
    held: dict[str, int]  # the tokens this node holds for the batch's matches (fenced: all of them)
    inserting: list[str]  # the match of each step the statement inserts
    duplicates: int

    def result(self, rows: Sequence[Any]) -> BatchResult:
        """The batch's result, given the rows the statement returned (fenced: each match's id and
        current token; a match whose token moved had none of its steps inserted)."""
        if not self.held:
            return BatchResult(self.outcomes, self.expected, set(), len(self.inserting), self.duplicates)
        stale = stale_fences({str(r[0]): int(r[1]) for r in rows}, self.held)
        if not stale:
            return BatchResult(self.outcomes, self.expected, set(), len(self.inserting), self.duplicates)
        outcomes = [stale.get(r.match_id, o) for r, o in zip(self.records, self.outcomes, strict=True)]
        expected = {m: n for m, n in self.expected.items() if m not in stale}
        inserted = sum(1 for m in self.inserting if m not in stale)
        return BatchResult(outcomes, expected, set(stale), inserted, self.duplicates)


def plan_one_statement(
    records: Sequence[StepRecord], known_next: Mapping[str, int], held: Mapping[str, int]
) -> OneStatement | None:
    """The batch as one PostgreSQL statement (:func:`append_steps` on :class:`_OneStatementPlan`),
    or None when it needs the transaction path of :func:`commit_batch`: a match whose next step the
    writer does not know, a step to read back (a retry), a hand that starts or ends (the
    projection), nothing to insert, or a batch that mixes fenced and unfenced matches."""
    match_ids = {r.match_id for r in records}
    fenced = {m: held[m] for m in match_ids if m in held}
    if fenced and len(fenced) != len(match_ids):
        return None
    plan = _OneStatementPlan()
    try:
        result = append_steps(plan, records, known_next, {})
    except _NeedsTransactionError:
        return None
    if plan.columns is None:
        return None
    if fenced:
        ids = sorted(fenced)
        args: tuple[Any, ...] = (*plan.columns, ids, [fenced[m] for m in ids])
        sql = PG_INSERT_FENCED_STEPS
    else:
        args, sql = plan.columns, PG_INSERT_STEPS
    return OneStatement(
        sql, args, result.outcomes, records, result.expected, fenced, plan.inserting, result.duplicates
    )


def hand_projections(records: Sequence[StepRecord]) -> list[tuple[str, list[HandOp]]]:
    """The hand-table operations of the stored ``records``, per match (the ones that have some)."""
    return [
        (r.match_id, ops)
        for r in records
        if (ops := hand_ops(r.match_id, r.step, r.events, r.format_version, r.engine_events))
    ]


def classify(
    records: Sequence[StepRecord],
    expected: dict[str, int],
    stale: Mapping[str, FencedError],
    stored: Callable[[StepRecord], StepRecord | None],
) -> tuple[list[BaseException | None], list[StepRecord], int]:
    """Sort a batch's records, in order: the next step of its match is inserted; a step already
    stored (or earlier in the batch) and identical is a retry that succeeds; anything else is
    refused. ``expected`` (the next step of each known match) is advanced past the inserted ones;
    ``stored`` reads a stored step back. Returns the outcome per record (None: stored or already
    stored), the records to insert and the number of retries absorbed."""
    outcomes: list[BaseException | None] = [None] * len(records)
    in_batch: dict[tuple[str, int], StepRecord] = {}
    to_insert: list[StepRecord] = []
    duplicates = 0
    for i, r in enumerate(records):
        nxt = expected.get(r.match_id)
        if r.match_id in stale:
            outcomes[i] = stale[r.match_id]
        elif nxt is None:
            outcomes[i] = NotFoundError(f"no match {r.match_id!r}")
        elif r.step == nxt:
            expected[r.match_id] = nxt + 1
            in_batch[(r.match_id, r.step)] = r
            to_insert.append(r)
        elif 0 <= r.step < nxt:
            previous = in_batch.get((r.match_id, r.step)) or stored(r)
            if previous is not None and same_step(previous, r):
                duplicates += 1
            else:
                reason = "a different step is already stored there"
                outcomes[i] = StepConflictError(r.match_id, r.step, reason)
        else:
            outcomes[i] = StepConflictError(r.match_id, r.step, f"the log expects step {nxt}")
    return outcomes, to_insert, duplicates


# The statements of every commit are built once: SQLAlchemy memoizes a statement's cache key on the
# object, so reusing it skips rebuilding that key (a good part of the per-commit CPU) every time.
_INSERT_STEPS = insert(StepRow)
_LAST_STEP = (
    select(StepRow.step)
    .where(StepRow.match_id == MatchRow.id)
    .order_by(StepRow.step.desc())
    .limit(1)
    .scalar_subquery()
)
_NEXT_STEPS = select(MatchRow.id, _LAST_STEP).where(MatchRow.id.in_(bindparam("ids", expanding=True)))
_FENCES = (
    select(MatchRow.id, MatchRow.fence)
    .where(MatchRow.id.in_(bindparam("ids", expanding=True)))
    .with_for_update()
)


def _stored_step(conn: Connection, r: StepRecord) -> StepRecord | None:
    row = conn.execute(
        select(
            StepRow.seat,
            StepRow.action,
            StepRow.events,
            StepRow.request_id,
            StepRow.applied_at,
            StepRow.source,
            StepRow.format_version,
            StepRow.banks,
        ).where(StepRow.match_id == r.match_id, StepRow.step == r.step)
    ).one_or_none()
    if row is None:
        return None
    return StepRecord(
        match_id=r.match_id,
        step=r.step,
        seat=row.seat,
        action=row.action,
        events=tuple(row.events),
        request_id=row.request_id,
        applied_at=row.applied_at.timestamp(),
        source=row.source,
        format_version=row.format_version,
        banks=None if row.banks is None else tuple(row.banks),
    )


def _project(conn: Connection, projections: Sequence[tuple[str, Sequence[HandOp]]]) -> None:
    """Apply the projection ops of a batch in one savepoint; if that fails, match by match."""
    try:
        with conn.begin_nested():
            _apply(conn, projections)
        return
    except (DataError, IntegrityError, StatementError) as exc:
        if is_unavailable(exc):
            raise
    for match_id, ops in projections:
        apply_hand_ops_sync(conn, match_id, ops)


def apply_hand_ops_sync(conn: Connection, match_id: str, ops: Sequence[HandOp]) -> None:
    """Apply one match's projection ops inside a savepoint: a projection problem is logged, never
    fatal to the steps (the log is the truth; the projection can be rebuilt from it)."""
    try:
        with conn.begin_nested():
            _apply(conn, [(match_id, ops)])
    except (DataError, IntegrityError, StatementError) as exc:
        if is_unavailable(exc):
            raise
        log.warning("match %s: hand results not projected: %s", match_id, describe(exc))


_END_TARGET = (HandResultRow.match_id == bindparam("b_match_id")) & (
    HandResultRow.hand_index == bindparam("b_hand_index")
)


def _apply(conn: Connection, projections: Sequence[tuple[str, Sequence[HandOp]]]) -> None:
    """Apply ops with few statements: round ``j`` takes the ``j``-th op of every match (so each
    match's ops keep their order), as one multi-row INSERT and one UPDATE per set of columns."""
    per_match: dict[str, list[HandOp]] = {}
    for match_id, ops in projections:
        per_match.setdefault(match_id, []).extend(ops)
    for j in range(max((len(ops) for ops in per_match.values()), default=0)):
        this_round = [(m, ops[j]) for m, ops in per_match.items() if j < len(ops)]
        ends = [(m, op) for m, op in this_round if isinstance(op, HandEnd)]
        starts = [op.values for _, op in this_round if isinstance(op, HandStart)]
        if ends:
            _end_hands(conn, ends)
        if starts:
            conn.execute(insert(HandResultRow), starts)


def _end_hands(conn: Connection, ends: Sequence[tuple[str, HandEnd]]) -> None:
    unresolved = sorted({m for m, op in ends if op.hand_index is None})
    latest: dict[str, int] = {}
    if unresolved:
        rows = conn.execute(
            select(HandResultRow.match_id, func.max(HandResultRow.hand_index))
            .where(HandResultRow.match_id.in_(unresolved))
            .group_by(HandResultRow.match_id)
        )
        latest = {m: i for m, i in rows}
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for m, op in ends:
        index = op.hand_index if op.hand_index is not None else latest.get(m)
        if index is None:
            continue  # no hand was started: nothing to end
        values = op.values()
        row = {"b_match_id": m, "b_hand_index": index, **values}
        groups.setdefault(tuple(sorted(values)), []).append(row)
    for keys, rows_ in groups.items():
        statement = update(HandResultRow).where(_END_TARGET).values({k: bindparam(k) for k in keys})
        conn.execute(statement, rows_)


def is_unavailable(exc: BaseException) -> bool:
    """Whether a statement error is really the database failing (not the record being bad)."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    orig = getattr(exc, "orig", None)
    return isinstance(orig, OSError | ConnectionError | TimeoutError)


def describe(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip().splitlines()
    return f"{type(orig or exc).__name__}: {text[0] if text else ''}"
