"""The read side of the SQL store: :class:`~server.domain.ports.ReadModel` on SQLite and PostgreSQL.

:class:`SqlReads` is the half of :class:`~server.store.repository.SqlRepository` that the admin
review reads through: finding matches (the filters of :mod:`server.domain.reads` as SQL), their
per-hand results (the ``hand_results`` projection), the audit log. Nothing above the store runs SQL.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, exists, func, insert, not_, or_, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.domain.reads import (
    AuditEntry,
    HandResult,
    Lineup,
    MatchListing,
    MatchPage,
    MatchQuery,
    StatusFilter,
)
from server.domain.records import AccountKind, MatchRecord, MatchStatus, ResultRecord, SeatRecord
from server.store.db import write_connection
from server.store.models import AuditRow, HandResultRow, MatchResultRow, MatchRow, SeatRow
from server.store.projection import hand_result
from server.store.types import from_unix, to_unix, to_unix_opt


def match_from_row(row: Row[Any], seats: Sequence[Row[Any]]) -> MatchRecord:
    return MatchRecord(
        id=row.id,
        ruleset_json=row.ruleset_json,
        ruleset_hash=row.ruleset_hash,
        seed_commitment=row.seed_commitment,
        engine_version=row.engine_version,
        wall_algorithm=row.wall_algorithm,
        seats=tuple(
            SeatRecord(seat=s.seat, name=s.name, kind=AccountKind(s.kind), account_id=s.account_id, bot=s.bot)
            for s in seats
        ),
        status=MatchStatus(row.status),
        created_at=to_unix(row.created_at),
        ended_at=to_unix_opt(row.ended_at),
        seed_hex=row.seed_hex,
        source=row.source,
        status_reason=row.status_reason,
    )


def _seat_is_bot() -> ColumnElement[bool]:
    return or_(SeatRow.kind == AccountKind.BOT.value, SeatRow.bot.is_not(None))


def _clauses(q: MatchQuery, names_matching: set[str] | None) -> list[ColumnElement[bool]]:
    """The query's filters as SQL conditions on ``matches`` (see :mod:`server.domain.reads`)."""
    clauses: list[ColumnElement[bool]] = []
    seat_of_match = SeatRow.match_id == MatchRow.id
    if q.status is StatusFilter.FINISHED:
        clauses.append(MatchRow.status != MatchStatus.RUNNING.value)
    elif q.status is not None:
        clauses.append(MatchRow.status == q.status.value)
    if q.account_id is not None:
        clauses.append(exists().where(seat_of_match, SeatRow.account_id == q.account_id))
    if q.player is not None:
        clauses.append(
            exists().where(seat_of_match, or_(SeatRow.account_id == q.player, SeatRow.name == q.player))
        )
    if q.q and q.q.isascii():
        # lower() folds ASCII on both databases, so an ASCII search is one SQL condition.
        needle = q.q.lower()
        clauses.append(
            exists().where(seat_of_match, func.lower(SeatRow.name).contains(needle, autoescape=True))
        )
    elif q.q:
        # Beyond ASCII, SQLite's lower() folds nothing: the names are matched here (casefold).
        clauses.append(exists().where(seat_of_match, SeatRow.name.in_(sorted(names_matching or ()))))
    if q.ruleset is not None:
        text = q.ruleset.strip()
        if len(text) == 64 and all(c in "0123456789abcdef" for c in text.lower()):
            clauses.append(MatchRow.ruleset_hash == text.lower())
        else:
            # ruleset_json is canonical (sorted keys, no spaces), so the name is this exact text.
            needle = '"name":' + json.dumps(text)
            clauses.append(MatchRow.ruleset_json.contains(needle, autoescape=True))
    if q.seats is not None:
        clauses.append(MatchRow.seat_count == q.seats)
    if q.since is not None:
        clauses.append(MatchRow.created_at >= q.since)
    if q.until is not None:
        clauses.append(MatchRow.created_at < q.until)
    if q.lineup is not None:
        has_bot = exists().where(seat_of_match, _seat_is_bot())
        has_human = exists().where(seat_of_match, not_(_seat_is_bot()))
        clauses.append(
            {
                Lineup.HUMANS: and_(has_human, not_(has_bot)),
                Lineup.BOTS: and_(has_bot, not_(has_human)),
                Lineup.MIXED: and_(has_bot, has_human),
                Lineup.WITH_BOTS: has_bot,
                Lineup.WITH_HUMANS: has_human,
            }[q.lineup]
        )
    return clauses


async def _names_containing(conn: AsyncConnection, text: str) -> set[str]:
    needle = text.casefold()
    names = (await conn.execute(select(SeatRow.name).distinct())).scalars()
    return {n for n in names if needle in n.casefold()}


async def matches_on(conn: AsyncConnection, query: Any) -> list[MatchRecord]:
    """The matches ``query`` (a select of ``MatchRow``) gives, with their seats, in its order."""
    rows = (await conn.execute(query)).all()
    if not rows:
        return []
    ids = [r.id for r in rows]
    seat_rows = await conn.execute(
        select(SeatRow).where(SeatRow.match_id.in_(ids)).order_by(SeatRow.match_id, SeatRow.seat)
    )
    seats: dict[str, list[Row[Any]]] = {}
    for s in seat_rows:
        seats.setdefault(s.match_id, []).append(s)
    return [match_from_row(r, seats.get(r.id, [])) for r in rows]


async def _results_of(conn: AsyncConnection, ids: Sequence[str]) -> dict[str, ResultRecord]:
    rows: dict[str, list[Row[Any]]] = {}
    for r in await conn.execute(
        select(MatchResultRow)
        .where(MatchResultRow.match_id.in_(ids))
        .order_by(MatchResultRow.match_id, MatchResultRow.seat)
    ):
        rows.setdefault(r.match_id, []).append(r)
    return {
        match_id: ResultRecord(
            match_id=match_id,
            scores=tuple(r.score for r in res),
            ranks=tuple(r.rank for r in res),
            final_points=tuple(r.final_points for r in res),
        )
        for match_id, res in rows.items()
    }


class SqlReads:
    """The :class:`~server.domain.ports.ReadModel` half of ``SqlRepository``."""

    engine: AsyncEngine
    _gate: asyncio.Lock | None

    @property
    def unavailable_errors(self) -> tuple[type[Exception], ...]:
        return (SQLAlchemyError,)

    async def find_matches(self, query: MatchQuery) -> MatchPage:
        """One connection for the count and the page, so they agree unless a match is written
        between its statements."""
        async with self.engine.connect() as conn:
            names = await _names_containing(conn, query.q) if query.q and not query.q.isascii() else None
            clauses = _clauses(query, names)
            total = int(await conn.scalar(select(func.count()).select_from(MatchRow).where(*clauses)) or 0)
            page = (
                select(MatchRow.id)
                .where(*clauses)
                .order_by(MatchRow.created_at.desc(), MatchRow.id.desc())
                .limit(query.limit)
                .offset(query.offset)
            )
            ids = list((await conn.execute(page)).scalars())
            if not ids:
                return MatchPage((), total)
            matches = {m.id: m for m in await matches_on(conn, select(MatchRow).where(MatchRow.id.in_(ids)))}
            results = await _results_of(conn, ids)
        # A match deleted between the statements is left out.
        listings = tuple(MatchListing(matches[i], results.get(i)) for i in ids if i in matches)
        return MatchPage(listings, total)

    async def list_matches(
        self,
        *,
        status: MatchStatus | None = None,
        account_id: str | None = None,
        ruleset_hash: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> Sequence[MatchRecord]:
        """Matches, newest first, filtered by status, a seated account, ruleset, creation time."""
        query = select(MatchRow)
        if status is not None:
            query = query.where(MatchRow.status == status.value)
        if account_id is not None:
            seated = select(SeatRow.match_id).where(SeatRow.account_id == account_id)
            query = query.where(MatchRow.id.in_(seated))
        if ruleset_hash is not None:
            query = query.where(MatchRow.ruleset_hash == ruleset_hash)
        if since is not None:
            query = query.where(MatchRow.created_at >= from_unix(since))
        if until is not None:
            query = query.where(MatchRow.created_at < from_unix(until))
        query = query.order_by(MatchRow.created_at.desc(), MatchRow.id.desc()).limit(limit).offset(offset)
        async with self.engine.connect() as conn:
            return await matches_on(conn, query)

    async def hand_results(self, match_id: str) -> Sequence[HandResult]:
        """Every hand of the match, in order (projected from its steps)."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(HandResultRow)
                .where(HandResultRow.match_id == match_id)
                .order_by(HandResultRow.hand_index)
            )
            return [hand_result(r._mapping) for r in rows]

    async def record_audit(self, entry: AuditEntry) -> int:
        """Append to the admin audit log; returns the entry's id."""
        values = {
            "at": from_unix(entry.at),
            "actor_id": entry.actor_id,
            "actor": entry.actor,
            "action": entry.action,
            "match_id": entry.match_id,
            "detail": entry.detail if entry.detail is not None else {},
        }
        async with write_connection(self.engine, self._gate) as conn:
            result = await conn.execute(insert(AuditRow).values(values).returning(AuditRow.id))
            return int(result.scalar_one())

    async def audit_entries(
        self, *, match_id: str | None = None, actor_id: str | None = None, limit: int = 100
    ) -> Sequence[AuditEntry]:
        """The most recent audit entries first."""
        query = select(AuditRow)
        if match_id is not None:
            query = query.where(AuditRow.match_id == match_id)
        if actor_id is not None:
            query = query.where(AuditRow.actor_id == actor_id)
        query = query.order_by(AuditRow.id.desc()).limit(limit)
        async with self.engine.connect() as conn:
            rows = await conn.execute(query)
            return [
                AuditEntry(
                    id=r.id,
                    at=to_unix(r.at),
                    actor=r.actor,
                    action=r.action,
                    actor_id=r.actor_id,
                    match_id=r.match_id,
                    detail=r.detail,
                )
                for r in rows
            ]
