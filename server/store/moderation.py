"""Lobby lines and reports on SQL (migration ``0012``): the
:class:`~server.domain.moderation.ModerationStore` half of ``SqlRepository``."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from server.domain.moderation import LobbyLineRecord, ReportRecord
from server.store.db import write_connection
from server.store.models import LobbyLineRow, ReportRow
from server.store.types import from_unix, to_unix


def _line(row: Any) -> LobbyLineRecord:
    return LobbyLineRecord(
        row.id, row.channel, row.account_id, row.name, row.text, row.stamp, to_unix(row.at)
    )


def _report(row: Any) -> ReportRecord:
    return ReportRecord(
        row.id,
        row.reporter_id,
        row.target_id,
        row.place,
        row.reason,
        row.context,
        to_unix(row.created_at),
        row.status,
        row.resolved_by,
        None if row.resolved_at is None else to_unix(row.resolved_at),
        row.resolution,
        row.sanction_id,
    )


class SqlModeration:
    """The :class:`~server.domain.moderation.ModerationStore` half of ``SqlRepository``."""

    engine: AsyncEngine
    _gate: asyncio.Lock | None

    async def add_lobby_line(self, line: LobbyLineRecord) -> LobbyLineRecord:
        values = {
            "channel": line.channel,
            "account_id": line.account_id,
            "name": line.name,
            "text": line.text,
            "stamp": line.stamp,
            "at": from_unix(line.at),
        }
        async with write_connection(self.engine, self._gate) as conn:
            result = await conn.execute(insert(LobbyLineRow).values(**values).returning(LobbyLineRow.id))
            new_id = int(result.scalar_one())
        return LobbyLineRecord(
            new_id, line.channel, line.account_id, line.name, line.text, line.stamp, line.at
        )

    async def lobby_lines(self, channel: str, *, limit: int, since: float) -> list[LobbyLineRecord]:
        if limit <= 0:
            return []
        query = (
            select(LobbyLineRow)
            .where(LobbyLineRow.channel == channel, LobbyLineRow.at >= from_unix(since))
            .order_by(LobbyLineRow.id.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_line(r) for r in reversed(rows)]

    async def lobby_lines_around(self, line_id: int, *, before: int, after: int) -> list[LobbyLineRecord]:
        async with self.engine.connect() as conn:
            target = (await conn.execute(select(LobbyLineRow).where(LobbyLineRow.id == line_id))).first()
            if target is None:
                return []
            same = LobbyLineRow.channel == target.channel
            earlier = await conn.execute(
                select(LobbyLineRow)
                .where(same, LobbyLineRow.id < line_id)
                .order_by(LobbyLineRow.id.desc())
                .limit(before)
            )
            later = await conn.execute(
                select(LobbyLineRow)
                .where(same, LobbyLineRow.id > line_id)
                .order_by(LobbyLineRow.id)
                .limit(after)
            )
            rows = [*reversed(earlier.all()), target, *later.all()]
        return [_line(r) for r in rows]

    async def prune_lobby(self, before: float, *, keep: frozenset[int] = frozenset()) -> int:
        condition = [LobbyLineRow.at < from_unix(before)]
        if keep:
            condition.append(LobbyLineRow.id.not_in(sorted(keep)))
        async with write_connection(self.engine, self._gate) as conn:
            result = await conn.execute(delete(LobbyLineRow).where(*condition))
        return int(result.rowcount or 0)

    async def add_report(self, report: ReportRecord) -> ReportRecord:
        values = {
            "reporter_id": report.reporter_id,
            "target_id": report.target_id,
            "place": report.where,
            "reason": report.reason,
            "context": report.context,
            "created_at": from_unix(report.created_at),
            "status": report.status,
        }
        async with write_connection(self.engine, self._gate) as conn:
            result = await conn.execute(insert(ReportRow).values(**values).returning(ReportRow.id))
            new_id = int(result.scalar_one())
            row = (await conn.execute(select(ReportRow).where(ReportRow.id == new_id))).one()
        return _report(row)

    async def reports(self, *, status: str | None = None) -> list[ReportRecord]:
        query = select(ReportRow).order_by(ReportRow.id)
        if status is not None:
            query = query.where(ReportRow.status == status)
        async with self.engine.connect() as conn:
            return [_report(r) for r in (await conn.execute(query)).all()]

    async def resolve_report(
        self, report_id: int, *, status: str, by: str, at: float, resolution: str, sanction_id: int | None
    ) -> ReportRecord | None:
        async with write_connection(self.engine, self._gate) as conn:
            await conn.execute(
                update(ReportRow)
                .where(ReportRow.id == report_id, ReportRow.status == "open")
                .values(
                    status=status,
                    resolved_by=by,
                    resolved_at=from_unix(at),
                    resolution=resolution,
                    sanction_id=sanction_id,
                )
            )
            row = (await conn.execute(select(ReportRow).where(ReportRow.id == report_id))).first()
        return None if row is None else _report(row)
